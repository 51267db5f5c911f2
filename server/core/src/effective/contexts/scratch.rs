//! Per-node working memory of the walks, shared by every kind of one build: flags as bits,
//! each node's class, and the contexts of nodes still read.

use std::collections::HashMap;

use super::folder::SigFoldSet;
use super::targets::{is_effective, rank, service_port, whole_object_counts};
use crate::catalog::PolicyKind;
use crate::model::GroupKind;
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId};

/// Each node's (group, kind), and whether its object counts as a whole, as an index into a
/// small table: every kind's walk asks [`is_effective`] of each node in its region, and
/// reading the objects for it cost a cache miss per node once a workspace outgrows the cache.
pub(super) struct Classes {
    of: Vec<u16>,
    table: Vec<(GroupKind, bool)>,
}

/// Namespace nodes: never an effective target.
const NO_CLASS: u16 = u16::MAX;
/// The table is full (tens of thousands of kinds): ask [`is_effective`].
const UNCLASSED: u16 = u16::MAX - 1;

impl Classes {
    fn new(world: &Linked) -> Classes {
        let t = &world.topology;
        let mut index: HashMap<(&str, &str, bool), u16> = HashMap::new();
        let mut table: Vec<(GroupKind, bool)> = Vec::new();
        let of = (0..t.node_count() as u32)
            .map(|i| {
                let (group, kind, whole) = match t.node(NodeId(i)) {
                    DagNode::Object(o) => {
                        let ob = world.object(o);
                        (ob.group(), ob.kind(), whole_object_counts(world, o))
                    }
                    DagNode::Section(o, _) => {
                        let ob = world.object(o);
                        (ob.group(), ob.kind(), true)
                    }
                    DagNode::Virtual(k) => {
                        let gk = &t.virtual_key(k).gk;
                        (gk.group.as_str(), gk.kind.as_str(), true)
                    }
                    DagNode::Namespace(_) => return NO_CLASS,
                };
                if let Some(&c) = index.get(&(group, kind, whole)) {
                    return c;
                }
                if table.len() >= UNCLASSED as usize {
                    return UNCLASSED;
                }
                let c = table.len() as u16;
                table.push((GroupKind::new(group, kind), whole));
                index.insert((group, kind, whole), c);
                c
            })
            .collect();
        Classes { of, table }
    }

    /// Per class: whether its nodes are effective targets of `kind` (kinds that declare them).
    pub(super) fn mask(&self, kind: &PolicyKind) -> Vec<bool> {
        let declared = |gk: &GroupKind| {
            kind.effective_targets
                .iter()
                .chain(kind.effective_target.iter())
                .any(|g| g.group == gk.group && g.kind == gk.kind)
        };
        self.table.iter().map(|(gk, whole)| *whole && declared(gk)).collect()
    }

    pub(super) fn is_effective(&self, world: &Linked, kind: &PolicyKind, mask: &[bool], n: NodeId) -> bool {
        if kind.effective_targets.is_empty() && kind.effective_target.is_none() {
            return is_effective(world, kind, n);
        }
        match self.of.get(n.0 as usize).copied() {
            Some(NO_CLASS) => false,
            Some(c) if c != UNCLASSED => mask.get(c as usize).copied().unwrap_or(false),
            _ => is_effective(world, kind, n),
        }
    }
}

/// One flag per node, a bit each (there are tens of thousands of nodes).
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub(super) fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn of(flags: impl Iterator<Item = bool>, len: usize) -> Bits {
        let mut b = Bits::new(len);
        for (i, f) in flags.enumerate() {
            b.set(i, f);
        }
        b
    }

    pub(super) fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    pub(super) fn set(&mut self, i: usize, on: bool) {
        if let Some(w) = self.0.get_mut(i / 64) {
            if on {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }
}

/// Per-node working memory shared by every kind of one build: reset only where a kind wrote,
/// so that a kind with a few policies costs what its region costs, not the whole DAG.
pub struct Scratch {
    pub(super) rank: Vec<u8>,
    pub(super) classes: Classes,
    pub(super) is_port: Bits,
    pub(super) below: Bits,
    pub(super) needed: Bits,
    pub(super) effective: Bits,
    pub(super) done: Bits,
    pub(super) remaining: Vec<u32>,
    pub(super) indeg: Vec<u32>,
    /// The contexts of done nodes that still have readers: few at a time (the walk is depth
    /// first), so a map rather than a slot per node.
    pub(super) sets: HashMap<NodeId, SigFoldSet>,
}

impl Scratch {
    pub fn new(world: &Linked) -> Scratch {
        let count = world.topology.node_count();
        let ids = (0..count as u32).map(NodeId);
        Scratch {
            rank: ids.clone().map(|n| rank(world, n)).collect(),
            classes: Classes::new(world),
            is_port: Bits::of(ids.map(|n| service_port(world, n).is_some()), count),
            below: Bits::new(count),
            needed: Bits::new(count),
            effective: Bits::new(count),
            done: Bits::new(count),
            remaining: vec![0; count],
            indeg: vec![0; count],
            sets: HashMap::new(),
        }
    }

    pub(super) fn reset(&mut self, touched: &[NodeId]) {
        for n in touched {
            let i = n.0 as usize;
            self.below.set(i, false);
            self.needed.set(i, false);
            self.effective.set(i, false);
            self.done.set(i, false);
            self.remaining[i] = 0;
            self.indeg[i] = 0;
            self.sets.remove(n);
        }
    }
}
