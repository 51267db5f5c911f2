//! What the walk of one policy kind needs: where its policies attach, in fold order, and
//! the signature of a path (its levels that carry them).

use std::collections::HashMap;
use std::sync::Arc;

use super::super::fold::Input;
use super::super::semantics::Rules;
use super::super::spec::PolicySpec;
use super::scope::Scope;
use crate::catalog::{PolicyClass, PolicyKind};
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId, Topology};
use crate::world::ObjId;

pub type Sig = Arc<[NodeId]>;

/// What the computation needs to know about one policy kind.
#[derive(Debug, Clone)]
pub struct KindPlan {
    pub kind: Arc<PolicyKind>,
    pub rules: Rules,
    /// Policies of the kind that take part (accepted so far), per node, in fold order.
    pub attached: HashMap<NodeId, Vec<ObjId>>,
    /// Namespaces whose Namespace node carries policies of the kind.
    pub namespaces: HashMap<Arc<str>, NodeId>,
    /// Gateway nodes whose controller ignores policies of the kind that other Gateways act on
    /// (docs/semantics.md §4.4.1), with those policies: a path through one leaves them out, so
    /// such a Gateway is a level of the signature even when nothing is attached to it.
    pub ignoring: HashMap<NodeId, Vec<ObjId>>,
    /// Whose world the plan computes.
    pub scope: Scope,
}

impl KindPlan {
    /// The scopes this plan's policies need (one unless they lie in several units).
    pub fn scopes(&self, world: &Linked) -> Vec<Scope> {
        if world.units.is_trivial() {
            return vec![Scope::All];
        }
        let mut units = Vec::new();
        let mut attached_units: HashMap<u32, Vec<u32>> = HashMap::new();
        for (&n, list) in &self.attached {
            let at = world.topology.node_object(n).map_or(0, |o| world.unit_of(o));
            for &p in list {
                let u = world.unit_of(p);
                let case = world.unit(u).kind == crate::world::units::UnitKind::Case;
                units.push((u, case.then(|| world.file_index(p))));
                attached_units.entry(u).or_default().push(at);
            }
        }
        Scope::split(&units, &attached_units)
    }

    /// This plan narrowed to one scope's policies.
    pub fn scoped(&self, world: &Linked, scope: Scope) -> KindPlan {
        let mut plan = self.clone();
        if scope != Scope::All {
            plan.retain(|p| scope.admits_policy(world, p));
        }
        plan.scope = scope;
        plan
    }

    pub fn is_direct(&self) -> bool {
        self.kind.class == PolicyClass::Direct
    }

    /// Keeps the policies `keep` accepts, and the nodes and namespaces still carrying one.
    pub fn retain(&mut self, keep: impl Fn(ObjId) -> bool) {
        self.attached.retain(|_, list| {
            list.retain(|&p| keep(p));
            !list.is_empty()
        });
        let attached = &self.attached;
        self.namespaces.retain(|_, n| attached.contains_key(n));
        self.ignoring.retain(|_, list| {
            list.retain(|&p| keep(p));
            !list.is_empty()
        });
    }

    /// Whether node `n` is a level of signatures: policies attach there, or its controller
    /// ignores some of them.
    pub(super) fn is_level(&self, n: NodeId) -> bool {
        self.attached.contains_key(&n) || self.ignoring.contains_key(&n)
    }

    /// The policies a signature's Gateways ignore.
    pub(super) fn ignored_in(&self, sig: &[NodeId]) -> Vec<ObjId> {
        if self.ignoring.is_empty() {
            return Vec::new();
        }
        sig.iter().flat_map(|n| self.ignoring.get(n).into_iter().flatten().copied()).collect()
    }

    /// The fold input of a signature. A policy attached at several nodes of one path counts
    /// once, at its most specific target.
    pub fn inputs<'a>(&self, sig: &[NodeId], specs: &'a HashMap<ObjId, PolicySpec>) -> Vec<Input<'a>> {
        let mut out: Vec<Input<'a>> = Vec::new();
        let ignored = self.ignored_in(sig);
        for (level, n) in sig.iter().enumerate() {
            for &p in self.attached.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                if ignored.contains(&p) {
                    continue;
                }
                let Some(spec) = specs.get(&p) else { continue };
                out.retain(|i| i.policy != p);
                out.push(Input { level: level as u32, policy: p, spec });
            }
        }
        out
    }

    /// Signature and displayed path (with Namespace levels) of one path.
    pub fn path_signature(&self, world: &Linked, path: &[NodeId]) -> (Vec<NodeId>, Vec<NodeId>) {
        let t = &world.topology;
        if self.is_direct() {
            let target = path.last().copied();
            let sig = target.map(|n| self.direct_signature(t, n)).unwrap_or_default();
            return (sig, path.to_vec());
        }
        let mut sig = Vec::new();
        let mut shown = Vec::with_capacity(path.len() + 1);
        for &n in path {
            if let Some(ns_node) = self.namespace_above(world, n)
                && !shown.contains(&ns_node)
            {
                shown.push(ns_node);
                sig.push(ns_node);
            }
            shown.push(n);
            if self.is_level(n) {
                sig.push(n);
            }
        }
        (sig, shown)
    }

    /// The Namespace node (with policies of the kind) of an object node's namespace.
    pub(super) fn namespace_above(&self, world: &Linked, n: NodeId) -> Option<NodeId> {
        if self.namespaces.is_empty() {
            return None;
        }
        match world.topology.node(n) {
            DagNode::Object(o) => world.namespace_of(o).and_then(|ns| self.namespaces.get(ns).copied()),
            _ => None,
        }
    }

    /// Direct kinds act only where they are attached: the target's object and, for a section,
    /// the section (which beats the whole object).
    pub fn direct_signature(&self, t: &Topology, target: NodeId) -> Vec<NodeId> {
        let mut sig = Vec::new();
        if let DagNode::Section(o, _) = t.node(target) {
            let obj = t.object_node(o);
            if self.attached.contains_key(&obj) {
                sig.push(obj);
            }
        }
        if self.attached.contains_key(&target) {
            sig.push(target);
        }
        sig
    }
}
