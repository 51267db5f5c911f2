//! Policy status as a controller would report it (docs/semantics.md §5.1, GEP-713 "Policy status"):
//! Accepted and why not, Enforced / PartiallyEnforced / Overridden over every context the
//! policy takes part in, who supersedes it, and the effective targets it affects.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use super::fold::{Fate, Outcome};
use super::provenance::Supplier;
use super::spec::{PolicySpec, UnknownStrategy};
use crate::topology::Linked;
use crate::topology::{NodeId, RefProblem, TargetResolution};
use crate::world::ObjId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Reason {
    Accepted,
    Conflicted,
    Invalid,
    TargetNotFound,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum Enforcement {
    Enforced,
    PartiallyEnforced,
    Overridden,
    /// Accepted, yet the controllers it reaches do not act on it (docs/semantics.md §4.4.1):
    /// Kuadrant's `Enforced=False` on a Gateway of another provider.
    NotEnforced,
    /// Accepted, and every target it names is one the files do not hold but something else
    /// may supply (a test harness, a Helm release, an operator: docs/semantics.md §6.1): what it
    /// does there is unknown. The status report's `unknown` says why.
    Unknown,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicyStatus {
    pub accepted: bool,
    pub reason: Reason,
    /// Absent when not accepted.
    pub enforcement: Option<Enforcement>,
    /// Policies (or targets' own values) that hold what this policy lost, sorted.
    pub superseded_by: Vec<Supplier>,
    /// Effective targets where something of the policy is in effect.
    pub affects: Vec<NodeId>,
    /// Effective targets whose contexts the policy takes part in.
    pub reached: usize,
    /// Where it lost None-strategy conflicts: the contested target and the winner.
    pub conflicts: Vec<(NodeId, ObjId)>,
    /// What it lost where it was applied, sorted, at most [`MAX_LOST`]: the first ones.
    pub lost: Vec<Lost>,
    /// Effective targets where it lost something while applied (all of them, unlike `lost`).
    pub lost_targets: usize,
    pub unknown_strategy: Option<UnknownStrategy>,
    /// What the above was counted from, for a what-if ([`patch`]).
    pub(super) tally: Tally,
}

/// A place where an applied policy lost something.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lost {
    /// The effective target.
    pub target: NodeId,
    /// Where the target is reached by several paths, the most specific node a policy of the
    /// context attaches to (the path the loss is on); else the target itself.
    pub through: NodeId,
    /// A JSON pointer into its spec; empty: the whole spec.
    pub pointer: Arc<str>,
}

/// Enough losses to say which fields and where; a Gateway-wide policy can lose at every route.
pub const MAX_LOST: usize = 32;

/// Accepted=False reasons known before any fold: malformed, or nothing to attach to.
pub(super) fn pre_reason(world: &Linked, pid: ObjId, spec: &PolicySpec) -> Option<Reason> {
    let res = world.topology.policies.get(&pid)?;
    let rejected_ref = res.refs.iter().any(|r| {
        matches!(
            r,
            TargetResolution::Problem(p) if matches!(
                **p,
                RefProblem::KindNotAllowed { .. }
                    | RefProblem::SectionNotSupported { .. }
                    | RefProblem::CrossNamespaceForbidden
            )
        )
    });
    if res.is_invalid() || spec.unknown_strategy.is_some() || rejected_ref {
        return Some(Reason::Invalid);
    }
    if no_target_resolves(world, pid) {
        return Some(Reason::TargetNotFound);
    }
    // A backend inside the spec that names nothing usable: Envoy Gateway (whose kinds are the
    // ones with such references) rejects the whole policy (docs/semantics.md §4.8). It resolves
    // the targets first: a policy none of whose targets (or sections) resolves is
    // TargetNotFound whatever its spec says (envoyproxy/gateway securitypolicy.go: the resolve
    // error is set and the target skipped before the spec is validated or translated).
    if world.topology.spec_refs(pid).iter().any(|b| b.resolution.is_broken()) {
        return Some(Reason::Invalid);
    }
    None
}

/// Whether policy `pid` targets things and none of them (or of their sections) resolves. A
/// target the files do not hold but something else may supply is not "not found": the policy's
/// effect there is unknown (docs/semantics.md §6.1).
fn no_target_resolves(world: &Linked, pid: ObjId) -> bool {
    let Some(res) = world.topology.policies.get(&pid) else { return false };
    let templated = res.refs.iter().any(|r| matches!(r, TargetResolution::Templated));
    // A kind that applies by selector or namespace-wide without a target is not targetless.
    let untargeted =
        res.refs.is_empty() && res.selected.is_empty() && world.policy_kind(pid).is_some_and(|k| k.target_optional);
    // A filter names it, beside another copy of the route: attached there, not targetless.
    let untargeted = untargeted || (res.refs.is_empty() && world.topology.named_by_filter(world, pid));
    let unknown = res.unknown_targets().next().is_some();
    res.attached_nodes().next().is_none() && !templated && !untargeted && !unknown
}

/// Where policy `pid`'s effect is unknown: the targets and the backends in its spec that the
/// files do not hold but something else may supply, with why (docs/semantics.md §6.1).
/// Whether [`unknown_effects`] has any, without naming them.
pub fn has_unknown_effects(world: &Linked, pid: ObjId) -> bool {
    let t = &world.topology;
    t.policies.get(&pid).is_some_and(|res| res.unknown_targets().next().is_some())
        || t.spec_refs(pid).iter().any(|b| b.resolution.unknown().is_some())
}

pub fn unknown_effects(world: &Linked, pid: ObjId) -> Vec<(String, &crate::world::Unknown)> {
    let t = &world.topology;
    let own_ns = world.namespace_of(pid).unwrap_or("");
    let mut out: Vec<(String, &crate::world::Unknown)> = Vec::new();
    if let Some(res) = t.policies.get(&pid) {
        out.extend(res.unknown_targets().map(|(k, u)| (k.to_string(), u)));
    }
    for b in t.spec_refs(pid) {
        if let Some(u) = b.resolution.unknown() {
            out.push((b.fields.spelled("Service", own_ns), u));
        }
    }
    out
}

/// One policy's outcomes over every context, accumulated. Contexts arrive grouped by target,
/// so a target is recorded once by comparing with the last one. Everything that is not kept
/// per target is counted, so that a what-if can take some targets' contexts out of a status
/// and put others in without visiting the rest again ([`patch`]).
#[derive(Debug, Default)]
pub(super) struct Agg {
    contexts: u32,
    conflicted: u32,
    /// Contexts where it lost something, and where it kept something.
    not_all_kept: u32,
    kept_any: u32,
    // Sets as sorted vectors: usually a handful of items, and there is one per policy. Each
    // item with the number of contexts it came from.
    by: Vec<(Supplier, u32)>,
    affects: Vec<NodeId>,
    reached: Vec<NodeId>,
    conflicts: Vec<((NodeId, ObjId), u32)>,
    lost: Vec<Lost>,
    /// A loss was left out of `lost` for being past [`MAX_LOST`].
    lost_dropped: bool,
    lost_targets: Vec<NodeId>,
    /// Targets reached by more than one context, and the count for the current one.
    multi_path: Vec<NodeId>,
    current: (Option<NodeId>, u32),
}

/// The counts a status was made from (see [`Agg`]): not shown, kept for [`patch`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    contexts: u32,
    conflicted: u32,
    not_all_kept: u32,
    kept_any: u32,
    /// Per item of `superseded_by` and of `conflicts`, in their order: how many contexts.
    by: Vec<u32>,
    conflicts: Vec<u32>,
    lost_dropped: bool,
    /// Some target or spec backend is one the files do not hold but something else may supply.
    effect_unknown: bool,
}

impl Agg {
    /// Adds the outcome at effective target `target` of a context whose signature is `sig`.
    pub(super) fn add(&mut self, target: NodeId, sig: &[NodeId], o: &Outcome) {
        self.contexts += 1;
        if self.current.0 == Some(target) {
            self.current.1 += 1;
            if self.current.1 == 2 {
                self.multi_path.push(target);
            }
        } else {
            self.current = (Some(target), 1);
        }
        if self.reached.last() != Some(&target) {
            self.reached.push(target);
        }
        if let Fate::Conflicted(w) = o.fate {
            self.conflicted += 1;
            if let Some(&n) = sig.get(o.level as usize) {
                count_sorted(&mut self.conflicts, (n, w), 1);
            }
        }
        if !o.kept_all() {
            self.not_all_kept += 1;
        }
        if o.kept_any() {
            self.kept_any += 1;
            if self.affects.last() != Some(&target) {
                self.affects.push(target);
            }
        }
        for &b in &o.by {
            count_sorted(&mut self.by, b, 1);
        }
        if o.fate == Fate::Applied && !o.lost.is_empty() {
            if self.lost_targets.last() != Some(&target) {
                self.lost_targets.push(target);
            }
            // Nothing kept there: the whole spec is lost, whatever the leaves were.
            let whole: [Arc<str>; 1] = [Arc::from("")];
            let lost = if o.kept == 0 { &whole[..] } else { &o.lost[..] };
            // The MAX_LOST first in order, not the first to arrive: contexts arrive in an order
            // that follows hash maps (seeded anew in every process), and messages name the
            // first few losses (`check` on
            // the same files printed other targets each time, and `check --cluster PATH`,
            // which compares with the cluster alone, saw a change where there was none).
            let through = sig.last().copied().unwrap_or(target);
            for p in lost {
                let l = Lost { target, through, pointer: p.clone() };
                if self.lost.len() == MAX_LOST && self.lost.last().is_some_and(|last| *last <= l) {
                    self.lost_dropped |= !self.lost.contains(&l);
                    continue;
                }
                insert_sorted(&mut self.lost, l);
                if self.lost.len() > MAX_LOST {
                    self.lost.truncate(MAX_LOST);
                    self.lost_dropped = true;
                }
            }
        }
    }
}

fn insert_sorted<T: Ord>(set: &mut Vec<T>, item: T) {
    if let Err(i) = set.binary_search(&item) {
        set.insert(i, item);
    }
}

/// Adds `n` to the count of `item` in a sorted multiset (`n` may be negative); an item whose
/// count falls to 0 leaves.
fn count_sorted<T: Ord>(set: &mut Vec<(T, u32)>, item: T, n: i64) {
    match set.binary_search_by(|(x, _)| x.cmp(&item)) {
        Ok(i) => {
            let c = (i64::from(set[i].1) + n).max(0) as u32;
            if c == 0 {
                set.remove(i);
            } else {
                set[i].1 = c;
            }
        }
        Err(i) if n > 0 => set.insert(i, (item, n as u32)),
        Err(_) => {}
    }
}

/// A policy's status from what its contexts gave (`agg`). `effect_unknown`: some target or
/// spec backend is one the files do not hold but something else may supply.
pub(super) fn finish(
    pre: Option<Reason>,
    mut agg: Agg,
    unknown_strategy: Option<UnknownStrategy>,
    ignored: bool,
    effect_unknown: bool,
) -> PolicyStatus {
    for v in [&mut agg.reached, &mut agg.affects, &mut agg.lost_targets] {
        v.sort();
        v.dedup();
    }
    // The path of a loss is worth naming only where the target has several.
    for l in &mut agg.lost {
        if !agg.multi_path.contains(&l.target) {
            l.through = l.target;
        }
    }
    agg.lost.sort();
    agg.lost.dedup();
    let tally = Tally {
        contexts: agg.contexts,
        conflicted: agg.conflicted,
        not_all_kept: agg.not_all_kept,
        kept_any: agg.kept_any,
        by: agg.by.iter().map(|&(_, n)| n).collect(),
        conflicts: agg.conflicts.iter().map(|&(_, n)| n).collect(),
        lost_dropped: agg.lost_dropped,
        effect_unknown,
    };
    let by = agg.by.into_iter().map(|(b, _)| b).collect();
    let conflicts = agg.conflicts.into_iter().map(|(c, _)| c).collect();
    let reason = match pre {
        Some(r) => r,
        None => counted_reason(&tally),
    };
    let accepted = reason == Reason::Accepted;
    PolicyStatus {
        accepted,
        reason,
        enforcement: enforcement(accepted, ignored, &tally),
        superseded_by: if pre.is_some() { Vec::new() } else { by },
        affects: agg.affects,
        reached: agg.reached.len(),
        conflicts,
        lost: if pre.is_some() { Vec::new() } else { agg.lost },
        lost_targets: if pre.is_some() { 0 } else { agg.lost_targets.len() },
        unknown_strategy,
        tally,
    }
}

/// Conflicted when it lost a conflict in every context it takes part in.
fn counted_reason(t: &Tally) -> Reason {
    if t.contexts > 0 && t.conflicted == t.contexts { Reason::Conflicted } else { Reason::Accepted }
}

fn enforcement(accepted: bool, ignored: bool, t: &Tally) -> Option<Enforcement> {
    if !accepted {
        None
    } else if ignored {
        Some(Enforcement::NotEnforced)
    } else if t.contexts == 0 && t.effect_unknown {
        Some(Enforcement::Unknown)
    } else if t.contexts == 0 || t.not_all_kept == 0 {
        Some(Enforcement::Enforced)
    } else if t.kept_any == 0 {
        Some(Enforcement::Overridden)
    } else {
        Some(Enforcement::PartiallyEnforced)
    }
}

/// The status of a policy whose contexts at some effective targets (`within`) changed: `base`
/// as counted over every context, `before` over the old contexts at those targets, `after`
/// over the new ones (both made by [`finish`] without a prior reason). `None` when the
/// result cannot be told without counting every context again: the losses kept in `base`
/// were cut at [`MAX_LOST`] and some of them are taken out.
pub(super) fn patch(
    base: &PolicyStatus,
    within: &dyn Fn(NodeId) -> bool,
    before: &PolicyStatus,
    after: &PolicyStatus,
) -> Option<PolicyStatus> {
    let count = |b: u32, x: u32, a: u32| (i64::from(b) - i64::from(x) + i64::from(a)).max(0) as u32;
    let (bt, xt, at) = (&base.tally, &before.tally, &after.tally);
    let mut lost: Vec<Lost> = base.lost.iter().filter(|l| !within(l.target)).cloned().collect();
    if bt.lost_dropped && lost.len() < base.lost.len() {
        return None;
    }
    lost.extend(after.lost.iter().cloned());
    lost.sort();
    lost.dedup();
    let cut = lost.len() > MAX_LOST;
    lost.truncate(MAX_LOST);
    let multiset = |items: &[Supplier], counts: &[u32]| -> Vec<(Supplier, u32)> {
        items.iter().copied().zip(counts.iter().copied()).collect()
    };
    let mut by = multiset(&base.superseded_by, &bt.by);
    for (b, n) in multiset(&before.superseded_by, &xt.by) {
        count_sorted(&mut by, b, -i64::from(n));
    }
    for (b, n) in multiset(&after.superseded_by, &at.by) {
        count_sorted(&mut by, b, i64::from(n));
    }
    let mut conflicts: Vec<((NodeId, ObjId), u32)> =
        base.conflicts.iter().copied().zip(bt.conflicts.iter().copied()).collect();
    for (c, n) in before.conflicts.iter().zip(&xt.conflicts) {
        count_sorted(&mut conflicts, *c, -i64::from(*n));
    }
    for (c, n) in after.conflicts.iter().zip(&at.conflicts) {
        count_sorted(&mut conflicts, *c, i64::from(*n));
    }
    let mut affects: Vec<NodeId> = base.affects.iter().copied().filter(|&n| !within(n)).collect();
    affects.extend(after.affects.iter().copied());
    affects.sort();
    affects.dedup();
    let tally = Tally {
        contexts: count(bt.contexts, xt.contexts, at.contexts),
        conflicted: count(bt.conflicted, xt.conflicted, at.conflicted),
        not_all_kept: count(bt.not_all_kept, xt.not_all_kept, at.not_all_kept),
        kept_any: count(bt.kept_any, xt.kept_any, at.kept_any),
        by: by.iter().map(|&(_, n)| n).collect(),
        conflicts: conflicts.iter().map(|&(_, n)| n).collect(),
        lost_dropped: bt.lost_dropped || at.lost_dropped || cut,
        effect_unknown: bt.effect_unknown,
    };
    let reason = counted_reason(&tally);
    let accepted = reason == Reason::Accepted;
    Some(PolicyStatus {
        accepted,
        reason,
        enforcement: enforcement(accepted, false, &tally),
        superseded_by: by.into_iter().map(|(b, _)| b).collect(),
        affects,
        reached: (base.reached + after.reached).saturating_sub(before.reached),
        conflicts: conflicts.into_iter().map(|(c, _)| c).collect(),
        lost,
        lost_targets: (base.lost_targets + after.lost_targets).saturating_sub(before.lost_targets),
        unknown_strategy: base.unknown_strategy.clone(),
        tally,
    })
}

/// `base`'s status counted again from every context its policy takes part in (`agg`), for a
/// what-if where [`patch`] cannot tell it.
pub(super) fn recounted(base: &PolicyStatus, agg: Agg) -> PolicyStatus {
    finish(None, agg, base.unknown_strategy.clone(), false, base.tally.effect_unknown)
}

/// `status --format json` (docs/json.md).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StatusReport {
    pub policies: Vec<PolicyStatusReport>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyStatusReport {
    pub policy: String,
    /// The file this instance is defined in (a policy may be defined in several files);
    /// `null` for a policy only the live cluster holds (see `cluster`).
    pub file: Option<String>,
    /// Its `metadata.name` value in `file`: 0-based line, UTF-16 character.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<crate::syntax::Range>,
    /// For a policy only the live cluster holds: the version read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterSource>,
    pub accepted: AcceptedReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Enforcement>,
    pub superseded_by: Vec<String>,
    pub affects: Vec<String>,
    /// Why the controllers it reaches leave it alone (`enforcement` is `NotEnforced`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<IgnoredReport>,
    /// What the controllers wrote in the live cluster's `status.ancestors` (with `--cluster`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reported: Vec<ReportedStatus>,
    /// Whether the controllers' `Accepted` agrees with the computed one; absent when no
    /// controller reported one for the spec as it is (a stale status is not compared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agrees: Option<bool>,
    /// Where its effect is unknown: targets (and backends in its spec) the files do not hold
    /// but something else may supply (docs/semantics.md §6.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<UnknownReport>,
}

/// A reference of a policy whose effect is unknown, and why.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct UnknownReport {
    /// The §2.1 reference it names (`Service/media/sonarr`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// `LeftToTheReader` (a folder of tests or examples: its harness or reader supplies it),
    /// `Generated` (a Helm release, an operator or a Gateway's implementation may make it),
    /// `NotApplied` (nothing applies the policy's file) or `ShapeOnlyKind`.
    pub reason: &'static str,
    pub message: String,
}

/// Why a policy is not enforced although accepted.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct IgnoredReport {
    /// `UnsupportedByController` or `IgnorePolicyAttachment`.
    pub reason: &'static str,
    pub message: String,
}

/// Where a policy only the live cluster holds comes from.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSource {
    /// `metadata.resourceVersion` of the object as read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// `metadata.generation`: the version of its spec.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReportedStatus {
    pub ancestor: String,
    pub controller: String,
    pub conditions: Vec<ReportedConditionJson>,
    /// The controller wrote its `Accepted` condition before the spec's last change
    /// (`observedGeneration` below `metadata.generation`): not compared with the computed one.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReportedConditionJson {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(rename = "observedGeneration", skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// Whether the controllers' `Accepted` conditions agree with the computed acceptance: the
/// policy counts as reported accepted when every `Accepted` condition is `True`. `None`
/// when no controller wrote one for generation `generation` of the spec (stale conditions
/// are not compared: they judged an older spec).
pub fn agrees(reported: &[crate::model::ReportedAncestor], generation: Option<i64>, accepted: bool) -> Option<bool> {
    let said: Vec<bool> = reported.iter().filter_map(|a| a.fresh_accepted(generation)).collect();
    (!said.is_empty()).then(|| said.iter().all(|&a| a) == accepted)
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AcceptedReport {
    pub status: bool,
    pub reason: Reason,
    /// Why it is not accepted, in words (which reference, which rival, which rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Why a policy is not accepted, in words, from what its references resolved to and the
/// conflicts it lost.
fn why_not(world: &Linked, pid: ObjId, s: &PolicyStatus) -> Option<String> {
    use crate::topology::{RefProblem, TargetResolution};
    let t = &world.topology;
    let res = t.policies.get(&pid);
    let problems = || {
        res.into_iter().flat_map(|r| r.refs.iter()).filter_map(|x| match x {
            TargetResolution::Problem(p) => Some(&**p),
            _ => None,
        })
    };
    let words = |p: &RefProblem| -> String {
        match p {
            RefProblem::Invalid(v) => v.iter().map(|x| x.message.clone()).collect::<Vec<_>>().join("; "),
            RefProblem::KindNotAllowed { allowed } => {
                let names: Vec<String> = allowed.iter().map(|g| g.to_string()).collect();
                format!("it cannot target that kind (it can target {})", names.join(", "))
            }
            RefProblem::SectionNotSupported { gk } => format!("{gk} takes no sectionName here"),
            RefProblem::CrossNamespaceForbidden => "its kind cannot reference another namespace".into(),
            RefProblem::CrossNamespaceNoGrant { namespace } => {
                format!("no ReferenceGrant in namespace `{namespace}` admits the reference")
            }
            RefProblem::NotFound { key, .. } => format!("{key} does not exist"),
            RefProblem::SectionNotFound { target, section, .. } => {
                let noun = crate::model::section_noun(world.object(*target).kind());
                format!("{} has no {noun} `{section}`", world.key(*target))
            }
        }
    };
    match s.reason {
        Reason::Accepted => None,
        Reason::TargetNotFound => {
            let list: Vec<String> = problems().map(words).collect();
            Some(if list.is_empty() {
                "no target resolves".into()
            } else {
                format!("no target resolves: {}", list.join("; "))
            })
        }
        Reason::Invalid => {
            let mut list: Vec<String> =
                res.into_iter().flat_map(|r| r.field_problems.iter().map(|(_, m)| m.clone())).collect();
            list.extend(
                problems()
                    .filter(|p| !matches!(p, RefProblem::NotFound { .. } | RefProblem::SectionNotFound { .. }))
                    .map(words),
            );
            if let Some(u) = &s.unknown_strategy {
                list.push(format!("`{}` is not a strategy its kind supports", u.value));
            }
            list.extend(t.spec_refs(pid).iter().filter_map(|b| broken_backend_words(world, pid, b)));
            if let Some(outcome) = broken_backend_outcome(world, pid) {
                list.push(format!("Envoy Gateway {} until it is fixed", outcome.words()));
            }
            Some(if list.is_empty() { "malformed".into() } else { list.join("; ") })
        }
        Reason::Conflicted => {
            let list: Vec<String> = s
                .conflicts
                .iter()
                .map(|(n, w)| format!("lost to {} on {}", world.key(*w), t.node_key(world, *n)))
                .collect();
            Some(if list.is_empty() { "lost a conflict".into() } else { list.join("; ") })
        }
    }
}

/// A policy's Accepted condition as reported (`status`, `graph`): the reason and, when not
/// accepted, why in words.
pub fn accepted_report(world: &Linked, pid: ObjId, s: &PolicyStatus) -> AcceptedReport {
    AcceptedReport { status: s.accepted, reason: s.reason, message: why_not(world, pid, s) }
}

pub fn supplier_label(world: &Linked, o: Supplier) -> String {
    match o {
        Supplier::Policy(id) | Supplier::Target(id) => world.key(id).to_string(),
    }
}

pub(super) fn report(
    world: &Linked,
    statuses: &HashMap<ObjId, PolicyStatus>,
    ignored: &HashMap<ObjId, super::Ignored>,
    truncated: bool,
    every_origin: bool,
    only: &dyn Fn(ObjId) -> bool,
) -> StatusReport {
    let t = &world.topology;
    let mut policies: Vec<PolicyStatusReport> = world
        .policies
        .iter()
        // Context files take part but are not reported on (but in `diff`); the live cluster's
        // policies are listed beside the files'.
        .filter(|&&pid| every_origin || world.file_of(pid).origin != crate::source::Origin::Context)
        .filter(|&&pid| only(pid))
        .filter_map(|&pid| {
            let s = statuses.get(&pid)?;
            let file = world.file_of(pid);
            let from_cluster = file.origin == crate::source::Origin::Cluster;
            let name = world.object(pid).name.span;
            let enc = crate::syntax::PositionEncoding::Utf16;
            let range = (!from_cluster).then(|| crate::syntax::Range {
                start: file.position(name.start, enc),
                end: file.position(name.end, enc),
            });
            let server = world.server_meta(pid);
            let generation = server.and_then(|m| m.generation);
            let cluster = from_cluster.then(|| ClusterSource {
                resource_version: server.and_then(|m| m.resource_version.as_ref()).map(|v| v.to_string()),
                generation,
            });
            let mut superseded_by: Vec<String> = s.superseded_by.iter().map(|&o| supplier_label(world, o)).collect();
            superseded_by.sort();
            superseded_by.dedup();
            let mut affects: Vec<String> = s.affects.iter().map(|&n| t.node_key(world, n).to_string()).collect();
            affects.sort();
            let reported_by = world.reported(pid).unwrap_or(&[]);
            let reported = reported_by
                .iter()
                .map(|a| ReportedStatus {
                    ancestor: a.ancestor.clone(),
                    controller: a.controller.to_string(),
                    conditions: a
                        .conditions
                        .iter()
                        .map(|c| ReportedConditionJson {
                            type_: c.type_.to_string(),
                            status: c.status.to_string(),
                            reason: c.reason.to_string(),
                            message: c.message.to_string(),
                            observed_generation: c.observed_generation,
                        })
                        .collect(),
                    stale: a.accepted_condition().is_some_and(|c| c.is_stale(generation)),
                })
                .collect();
            Some(PolicyStatusReport {
                policy: world.key(pid).to_string(),
                file: (!from_cluster).then(|| file.path.to_string()),
                range,
                cluster,
                accepted: accepted_report(world, pid, s),
                enforcement: s.enforcement,
                superseded_by,
                affects,
                ignored: ignored.get(&pid).map(|i| IgnoredReport { reason: i.reason(), message: i.words(world, pid) }),
                reported,
                agrees: agrees(reported_by, generation, s.accepted),
                unknown: unknown_effects(world, pid)
                    .into_iter()
                    .map(|(reference, u)| UnknownReport { reference, reason: u.reason(), message: u.words() })
                    .collect(),
            })
        })
        .collect();
    policies.sort_by(|a, b| (&a.policy, &a.file).cmp(&(&b.policy, &b.file)));
    StatusReport { policies, truncated }
}

/// What Envoy Gateway does with the traffic of policy `pid`, when it is one of its kinds and a
/// backend inside its spec names nothing usable.
pub fn broken_backend_outcome(world: &Linked, pid: ObjId) -> Option<super::semantics::envoy::BrokenBackend> {
    let o = world.object(pid);
    let broken: Vec<_> =
        world.topology.spec_refs(pid).iter().filter(|b| b.resolution.is_broken()).map(|b| b.fields.span).collect();
    // Without a target that resolves, the policy is TargetNotFound and no request meets it.
    if broken.is_empty() || o.group() != "gateway.envoyproxy.io" || no_target_resolves(world, pid) {
        return None;
    }
    let crate::model::Body::Other(other) = &o.body else { return None };
    let spec = other.policy.spec.as_ref()?.unpack();
    Some(super::semantics::envoy::broken_backend(o.kind(), &spec, &broken))
}

/// A backend inside policy `pid`'s spec that names nothing usable, in words.
fn broken_backend_words(world: &Linked, pid: ObjId, b: &crate::topology::SpecBackend) -> Option<String> {
    use crate::topology::BackendResolution;
    let own_ns = world.namespace_of(pid).unwrap_or("");
    Some(match &b.resolution {
        BackendResolution::NotFound { .. } => {
            format!("its spec names {}, which does not exist", b.fields.spelled("Service", own_ns))
        }
        BackendResolution::PortNotFound { target, .. } => {
            let port = b.fields.port.as_ref().map_or(0, |p| p.value);
            format!("its spec names port {port} of {}, which has no such port", world.key(*target))
        }
        BackendResolution::NotPermitted { .. } => {
            let ns = b.fields.namespace.as_ref().map_or(own_ns, |n| n.value.as_str());
            let spelled = b.fields.spelled("Service", own_ns);
            format!("its spec names {spelled}, and no ReferenceGrant in namespace `{ns}` admits it")
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The losses kept are the first ones in order, whatever order the contexts come in (it
    /// follows hash maps), so that a message naming the first few is the same in every run.
    #[test]
    fn the_losses_kept_are_the_first_whatever_the_order() {
        let outcome = Outcome {
            policy: ObjId(0),
            level: 0,
            contributed: 2,
            kept: 1,
            fate: Fate::Applied,
            by: vec![Supplier::Policy(ObjId(1))],
            rules: Vec::new(),
            lost: vec![Arc::from("/timeout")],
        };
        let lost = |targets: &mut dyn Iterator<Item = u32>| {
            let mut agg = Agg::default();
            for t in targets {
                agg.add(NodeId(t), &[NodeId(t)], &outcome);
            }
            let st = finish(None, agg, None, false, false);
            (st.lost.iter().map(|l| l.target.0).collect::<Vec<_>>(), st.lost_targets)
        };
        let n = MAX_LOST as u32 * 2;
        let first: Vec<u32> = (0..MAX_LOST as u32).collect();
        assert_eq!(lost(&mut (0..n)), (first.clone(), n as usize));
        assert_eq!(lost(&mut (0..n).rev()), (first, n as usize));
    }
}
