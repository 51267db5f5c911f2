//! Which unit's world a walk computes (docs/semantics.md §4.7): the policies and nodes one
//! walk of a kind admits.

use std::collections::HashMap;

use crate::topology::Linked;
use crate::topology::NodeId;
use crate::world::ObjId;

/// Which unit's world (docs/semantics.md §4.7) a walk computes: policies of two cases never
/// meet, and a case's policies meet the workspace's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every policy and node: the workspace has no units, or the kind's policies are all in
    /// the workspace's.
    #[default]
    All,
    /// One unit's world: its policies and the workspace's, over its objects, the workspace's,
    /// and those of the units its policies borrowed a target from. In a case of a folder of
    /// cases, one file's policies (`file`, an index into the world's files): two files of a case
    /// are alternatives (versions of an example, inputs of different tests), not applied
    /// together (docs/semantics.md §4.7).
    Unit { unit: u32, file: Option<u32>, borrowed: Vec<u32> },
    /// The workspace's world: its policies, over every object but those of the units that
    /// have a world of their own for the kind (`own`).
    Shared { own: Vec<u32> },
}

impl Scope {
    pub fn admits_policy(&self, world: &Linked, p: ObjId) -> bool {
        match self {
            Scope::All => true,
            Scope::Unit { unit, file, .. } => {
                let u = world.unit_of(p);
                u == 0 || (u == *unit && file.is_none_or(|f| world.file_index(p) == f))
            }
            Scope::Shared { .. } => world.unit_of(p) == 0,
        }
    }

    pub fn admits_node(&self, world: &Linked, n: NodeId) -> bool {
        if *self == Scope::All {
            return true;
        }
        let u = world.topology.node_object(n).map_or(0, |o| world.unit_of(o));
        match self {
            Scope::All => true,
            Scope::Unit { unit, borrowed, .. } => u == 0 || u == *unit || borrowed.contains(&u),
            Scope::Shared { own } => u == 0 || !own.contains(&u),
        }
    }

    /// The unit whose world this is, for labels (`None`: the workspace's).
    pub fn unit(&self) -> Option<u32> {
        match self {
            Scope::Unit { unit, .. } => Some(*unit),
            _ => None,
        }
    }

    /// The worlds to compute for policies in `units` (each policy's unit, and its file where
    /// the unit is a case: any order), and the units of the nodes each unit's policies attach
    /// to (`attached_units`, for borrowing).
    pub fn split(units: &[(u32, Option<u32>)], attached_units: &HashMap<u32, Vec<u32>>) -> Vec<Scope> {
        let mut keys: Vec<(u32, Option<u32>)> = units.iter().copied().filter(|&(u, _)| u != 0).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() {
            return vec![Scope::All];
        }
        let mut own: Vec<u32> = keys.iter().map(|&(u, _)| u).collect();
        own.dedup();
        let mut out: Vec<Scope> = keys
            .iter()
            .map(|&(unit, file)| {
                let mut borrowed: Vec<u32> =
                    attached_units.get(&unit).into_iter().flatten().copied().filter(|&b| b != 0 && b != unit).collect();
                borrowed.sort_unstable();
                borrowed.dedup();
                Scope::Unit { unit, file, borrowed }
            })
            .collect();
        out.insert(0, Scope::Shared { own });
        out
    }
}
