//! The what-if of a deletion: the effective index of the same world with some policies taken
//! out, computed from the index as it is. Kinds never merge, so only the removed policies'
//! kinds change; within a kind, only the effective targets below the nodes the removed
//! policies attach to (their [`Region`]) get other contexts. Those targets' contexts are
//! walked twice, with and without the policies, and every policy that takes part there has its
//! status patched: the old contexts' counts taken out, the new ones' put in (`status::patch`).
//! Every other context is left as it was counted.
//!
//! A status whose list of losses was cut where some of them are taken out cannot be patched
//! (which losses come next is not kept): that policy's own region is walked and its status
//! counted again. Where that cannot be exact, the kind is computed again whole: policies of
//! several units (their worlds are walked apart), and an index whose contexts were cut at the
//! path limit.

use std::collections::{BTreeMap, HashMap};

use super::contexts::{Folder, KindPlan, Region, Scratch, visit_within};
use super::status::{Agg, finish, patch, recounted};
use super::{EffectiveIndex, namespace_objects, outcomes_at, shadow};
use crate::model::GroupKind;
use crate::topology::{Linked, NodeId};
use crate::world::ObjId;

/// [`EffectiveIndex::without`]: the index, and what was computed again.
pub struct Without {
    pub index: EffectiveIndex,
    /// Per kind of a removed policy: the effective targets whose contexts may differ.
    pub targets: BTreeMap<GroupKind, Vec<NodeId>>,
    /// Per kind of a removed policy: the nodes where it took part (attached, or a Gateway
    /// ignoring it); a context whose signature holds none of them is the same on both sides.
    pub seeds: BTreeMap<GroupKind, Vec<NodeId>>,
    pub stats: WithoutStats,
}

/// What the what-if cost, for `--stats` and the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WithoutStats {
    /// Contexts walked at the changed targets, with the policies and without.
    pub contexts: usize,
    /// Policies whose status was patched.
    pub patched: usize,
    /// Policies whose status was counted again over their own region (see the module's note).
    pub recounted: usize,
    /// Kinds computed again whole (see the module's note).
    pub whole_kinds: usize,
}

/// One kind patched: its region, the new statuses of the policies taking part there, the
/// contexts walked and the statuses counted again.
type Patched = (Region, Vec<(ObjId, super::PolicyStatus)>, usize, usize);

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
        let mut seeds_of = BTreeMap::new();
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
            seeds_of.insert(gk.clone(), seeds.clone());
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
                Some((region, statuses, walked, recounted)) => {
                    stats.contexts += walked;
                    stats.recounted += recounted;
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
        Without { index: out, targets, seeds: seeds_of, stats }
    }

    /// One kind's statuses after taking the policies `gone` out of `before`'s plan (leaving
    /// `after`'s): the region below `seeds` walked with each plan, and the statuses of the
    /// policies taking part there patched; a status that cannot be patched (its list of losses
    /// was cut and some are taken out) counted again over its own region. `None` when some
    /// node has more contexts than the limit.
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
        let (mut before_aggs, n) = self.tally(world, before, &region, scratch, &ns_objects, &|_| true)?;
        walked += n;
        let (mut after_aggs, n) = self.tally(world, after, &region, scratch, &ns_objects, &|_| true)?;
        walked += n;
        let mut policies: Vec<ObjId> =
            before_aggs.keys().chain(after_aggs.keys()).copied().filter(|&p| !gone(p)).collect();
        policies.sort_unstable();
        policies.dedup();
        let within = |n: NodeId| region.contains_target(n);
        let mut out = Vec::with_capacity(policies.len());
        let mut recounts = 0;
        for p in policies {
            let base = self.statuses.get(&p)?;
            let was = finish(None, before_aggs.remove(&p).unwrap_or_default(), None, false, false);
            let now = finish(None, after_aggs.remove(&p).unwrap_or_default(), None, false, false);
            let st = match patch(base, &within, &was, &now) {
                Some(st) => st,
                None => {
                    // Every context it takes part in: those below the nodes it attaches to.
                    let nodes: Vec<NodeId> =
                        after.attached.iter().filter(|(_, list)| list.contains(&p)).map(|(&n, _)| n).collect();
                    let own = Region::below(world, after, scratch, &ns_objects, &nodes);
                    let (mut aggs, n) = self.tally(world, after, &own, scratch, &ns_objects, &|q| q == p)?;
                    walked += n;
                    recounts += 1;
                    recounted(base, aggs.remove(&p).unwrap_or_default())
                }
            };
            out.push((p, st));
        }
        Some((region, out, walked, recounts))
    }

    /// The outcomes of the policies `keep` accepts in every context at the targets of
    /// `region` under `plan`, and how many contexts; `None` when some node has more contexts
    /// than the limit.
    fn tally(
        &self,
        world: &Linked,
        plan: &KindPlan,
        region: &Region,
        scratch: &mut Scratch,
        ns_objects: &HashMap<std::sync::Arc<str>, Vec<ObjId>>,
        keep: &dyn Fn(ObjId) -> bool,
    ) -> Option<(HashMap<ObjId, Agg>, usize)> {
        let mut walked = 0;
        let mut aggs: HashMap<ObjId, Agg> = HashMap::new();
        let mut nodes: Vec<NodeId> = plan.attached.keys().copied().collect();
        nodes.retain(|&n| {
            region.contains(n) || matches!(world.topology.node(n), crate::topology::DagNode::Namespace(_))
        });
        let specs = self.specs_at(world, plan, nodes);
        let schema = self.schemas.get(&plan.kind.gk);
        let folder = Folder::new(world, plan, &specs, schema);
        let mut json = shadow::ObjectJson::default();
        let truncated = visit_within(&folder, scratch, ns_objects, self.limit, Some(region), &mut |target, ctxs| {
            walked += ctxs.len();
            outcomes_at(&folder, &mut json, target, ctxs, &mut |sig, o| {
                if keep(o.policy) {
                    aggs.entry(o.policy).or_default().add(target, sig, o);
                }
            });
        });
        (!truncated).then_some((aggs, walked))
    }
}
