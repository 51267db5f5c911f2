//! The what-if of a deletion: the effective index of the same world with some policies taken
//! out, computed from the index as it is. Kinds never merge, so only the removed policies'
//! kinds change; within a kind, only the effective targets below the nodes the removed
//! policies attach to (their [`Region`]) get other contexts. Those targets' contexts are
//! walked twice, with and without the policies, and every policy that takes part there has its
//! status patched: the old contexts' counts taken out, the new ones' put in (`status::patch`).
//! Every other context is left as it was counted.
//!
//! Where that cannot be exact, the kind is computed again whole: policies of several units
//! (their worlds are walked apart), an index whose contexts were cut at the path limit, and a
//! status whose list of losses was cut where some of them are taken out.

use std::collections::{BTreeMap, HashMap};

use super::contexts::{Folder, KindPlan, Region, Scratch, visit_within};
use super::status::{Agg, finish, patch};
use super::{EffectiveIndex, namespace_objects, outcomes_at, shadow};
use crate::model::GroupKind;
use crate::topology::{Linked, NodeId};
use crate::world::ObjId;

/// [`EffectiveIndex::without`]: the index, and what was computed again.
pub struct Without {
    pub index: EffectiveIndex,
    /// Per kind of a removed policy: the effective targets whose contexts may differ.
    pub targets: BTreeMap<GroupKind, Vec<NodeId>>,
    pub stats: WithoutStats,
}

/// What the what-if cost, for `--stats` and the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WithoutStats {
    /// Contexts walked at the changed targets, with the policies and without.
    pub contexts: usize,
    /// Policies whose status was patched.
    pub patched: usize,
    /// Kinds computed again whole (see the module's note).
    pub whole_kinds: usize,
}

/// One kind patched: its region, the new statuses of the policies taking part there, and the
/// contexts walked.
type Patched = (Region, Vec<(ObjId, super::PolicyStatus)>, usize);

impl EffectiveIndex {
    /// The index of `world` without the policies `removed` (ids of `world.policies`; others
    /// are ignored): as [`EffectiveIndex::build`] would compute it were they not there, their
    /// own statuses absent.
    pub fn without(&self, world: &Linked, removed: &[ObjId]) -> Without {
        let mut removed: Vec<ObjId> = removed.to_vec();
        removed.sort_unstable();
        removed.dedup();
        let gone = |p: ObjId| removed.binary_search(&p).is_ok();
        let mut out = EffectiveIndex {
            plans: self.plans.clone(),
            schemas: self.schemas.clone(),
            statuses: self.statuses.iter().filter(|(p, _)| !gone(**p)).map(|(&p, s)| (p, s.clone())).collect(),
            ignored: self.ignored.iter().filter(|(p, _)| !gone(**p)).map(|(&p, i)| (p, i.clone())).collect(),
            ignored_under: self
                .ignored_under
                .iter()
                .filter(|(p, _)| !gone(**p))
                .map(|(&p, g)| (p, g.clone()))
                .collect(),
            truncated: self.truncated,
            stats: self.stats,
            limit: self.limit,
        };
        let mut stats = WithoutStats::default();
        let mut targets = BTreeMap::new();
        let mut kinds: Vec<GroupKind> =
            removed.iter().filter_map(|&p| world.policy_kind(p)).map(|k| k.gk.clone()).collect();
        kinds.sort();
        kinds.dedup();
        let mut scratch: Option<Scratch> = None;
        for gk in kinds {
            let Some(plan) = self.plans.get(&gk) else { continue };
            // Where the removed policies take part: the nodes they attach to, and the Gateways
            // that ignore them (a level of the signatures only because of them).
            let mut seeds: Vec<NodeId> = plan
                .attached
                .iter()
                .chain(plan.ignoring.iter())
                .filter(|(_, list)| list.iter().any(|&p| gone(p)))
                .map(|(&n, _)| n)
                .collect();
            seeds.sort_unstable();
            seeds.dedup();
            if seeds.is_empty() {
                continue;
            }
            let mut after = plan.clone();
            after.retain(|p| !gone(p));
            let incremental = !self.truncated && world.units.is_trivial();
            let patched = incremental
                .then(|| {
                    let s = scratch.get_or_insert_with(|| Scratch::new(world));
                    self.patch_kind(world, plan, &after, &seeds, s, &gone)
                })
                .flatten();
            match patched {
                Some((region, statuses, walked)) => {
                    stats.contexts += walked;
                    stats.patched += statuses.len();
                    out.statuses.extend(statuses);
                    targets.insert(gk.clone(), region.list);
                    if after.attached.is_empty() {
                        out.plans.remove(&gk);
                    } else {
                        out.plans.insert(gk.clone(), after);
                    }
                }
                None => {
                    stats.whole_kinds += 1;
                    let whole =
                        EffectiveIndex::build_kinds(world, self.limit, Some(std::slice::from_ref(&gk)), &removed);
                    let s = scratch.get_or_insert_with(|| Scratch::new(world));
                    let ns_objects = namespace_objects(world, &self.plans);
                    targets.insert(gk.clone(), Region::below(world, plan, s, &ns_objects, &seeds).list);
                    for (p, st) in whole.statuses {
                        if !gone(p) && world.policy_kind(p).is_some_and(|k| k.gk == gk) {
                            out.statuses.insert(p, st);
                        }
                    }
                    out.truncated |= whole.truncated;
                    match whole.plans.get(&gk) {
                        Some(p) => out.plans.insert(gk.clone(), p.clone()),
                        None => out.plans.remove(&gk),
                    };
                }
            }
        }
        Without { index: out, targets, stats }
    }

    /// One kind's statuses after taking the policies `gone` out of `before`'s plan (leaving
    /// `after`'s): the region below `seeds` walked with each plan, and the statuses of the
    /// policies taking part there patched. `None` when a status cannot be patched exactly.
    fn patch_kind(
        &self,
        world: &Linked,
        before: &KindPlan,
        after: &KindPlan,
        seeds: &[NodeId],
        scratch: &mut Scratch,
        gone: &dyn Fn(ObjId) -> bool,
    ) -> Option<Patched> {
        let ns_objects = namespace_objects(world, &self.plans);
        let region = Region::below(world, before, scratch, &ns_objects, seeds);
        let mut walked = 0;
        let mut tallies: Vec<HashMap<ObjId, Agg>> = Vec::with_capacity(2);
        for plan in [before, after] {
            let mut aggs: HashMap<ObjId, Agg> = HashMap::new();
            let mut nodes: Vec<NodeId> = plan.attached.keys().copied().collect();
            nodes.retain(|&n| {
                region.contains(n) || matches!(world.topology.node(n), crate::topology::DagNode::Namespace(_))
            });
            let specs = self.specs_at(world, plan, nodes);
            let schema = self.schemas.get(&plan.kind.gk);
            let folder = Folder::new(world, plan, &specs, schema);
            let mut json = shadow::ObjectJson::default();
            let truncated =
                visit_within(&folder, scratch, &ns_objects, self.limit, Some(&region), &mut |target, ctxs| {
                    walked += ctxs.len();
                    outcomes_at(&folder, &mut json, target, ctxs, &mut |sig, o| {
                        aggs.entry(o.policy).or_default().add(target, sig, o);
                    });
                });
            if truncated {
                return None;
            }
            tallies.push(aggs);
        }
        let after_aggs = tallies.pop().unwrap_or_default();
        let mut before_aggs = tallies.pop().unwrap_or_default();
        let mut policies: Vec<ObjId> =
            before_aggs.keys().chain(after_aggs.keys()).copied().filter(|&p| !gone(p)).collect();
        policies.sort_unstable();
        policies.dedup();
        let mut after_aggs = after_aggs;
        let within = |n: NodeId| region.contains_target(n);
        let mut out = Vec::with_capacity(policies.len());
        for p in policies {
            let base = self.statuses.get(&p)?;
            let was = finish(None, before_aggs.remove(&p).unwrap_or_default(), None, false, false);
            let now = finish(None, after_aggs.remove(&p).unwrap_or_default(), None, false, false);
            out.push((p, patch(base, &within, &was, &now)?));
        }
        Some((region, out, walked))
    }
}
