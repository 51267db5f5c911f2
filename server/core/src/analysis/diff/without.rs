//! The what-if of a deletion: the workspace as it is against the same workspace without some
//! policies (every definition of each), before anyone deletes them. The effective index is
//! the snapshot's with only the removed policies' regions recomputed
//! ([`EffectiveIndex::without`]); the findings are the engine's on that index; the report is
//! [`compare`]'s, led by what stops applying ([`super::gone`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Fields, Held, Report, Scope, Side, compare, gone::gone};
use crate::analysis::diagnostics::compute_without;
use crate::effective::{Leaf, Sides, WithoutStats};
use crate::model::GroupKind;
use crate::topology::NodeId;
use crate::workspace::Snapshot;
use crate::world::ObjId;

/// [`without`]'s answer: the report, and what computing it cost.
pub struct WhatIf {
    pub report: Report,
    pub stats: WithoutStats,
    /// Effective targets whose contexts were computed again.
    pub targets: usize,
}

/// A reference that names no policy of the world, with the closest one that does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAPolicy {
    pub written: String,
    pub suggestion: Option<String>,
}

impl std::fmt::Display for NotAPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` names no policy of the workspace", self.written)?;
        match &self.suggestion {
            Some(s) => write!(f, "; did you mean `{s}`?"),
            None => Ok(()),
        }
    }
}

/// The policies `refs` name (`Kind[.group]/[namespace/]name`, the group optional and the kind
/// in any case, as `explain --target` takes them), every definition of each; the first that
/// names none is an error.
pub fn resolve_policies(snap: &Snapshot, refs: &[String]) -> Result<Vec<ObjId>, NotAPolicy> {
    let world = snap.world();
    let keys: Vec<(ObjId, String)> =
        world.policies.iter().map(|&p| (p, world.key(p).to_string().to_ascii_lowercase())).collect();
    // `Kind/ns/name` without the group.
    let short = |key: &str| -> String {
        match key.split_once('/') {
            Some((kg, rest)) => format!("{}/{rest}", kg.split('.').next().unwrap_or(kg)),
            None => key.to_owned(),
        }
    };
    let mut out = Vec::new();
    for r in refs {
        let wanted = r.trim().to_ascii_lowercase();
        // `Kind/name`: the default namespace.
        let defaulted = match wanted.split_once('/') {
            Some((kind, rest)) if !rest.contains('/') => format!("{kind}/{}/{rest}", world.default_namespace),
            _ => wanted.clone(),
        };
        let found: Vec<ObjId> = keys
            .iter()
            .filter(|(_, k)| [&wanted, &defaulted].iter().any(|w| *k == **w || short(k) == **w))
            .map(|&(p, _)| p)
            .collect();
        if found.is_empty() {
            let written: Vec<String> = world.policies.iter().map(|&p| world.key(p).to_string()).collect();
            let suggestion = crate::suggest::closest(r.trim(), written.iter().map(String::as_str))
                .or_else(|| {
                    let shorts: Vec<(String, &str)> = written.iter().map(|w| (short(w), w.as_str())).collect();
                    let s = crate::suggest::closest(r.trim(), shorts.iter().map(|(s, _)| s.as_str()))?;
                    shorts.iter().find(|(x, _)| x == s).map(|(_, full)| *full)
                })
                .map(str::to_owned);
            return Err(NotAPolicy { written: r.clone(), suggestion });
        }
        for p in found {
            out.extend(world.instances(p));
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The policies defined by the document of `file` that holds `offset` (one, or one per unit
/// that applies the document: a kustomize base under two overlays): what deleting that
/// document takes out. Empty when no policy's document holds it.
pub fn policies_at(snap: &Snapshot, file: &str, offset: u32) -> Vec<ObjId> {
    let world = snap.world();
    let Some(span) = world
        .objects_of_file(file)
        .find(|&id| world.policy_kind(id).is_some() && world.object(id).span.contains_inclusive(offset))
        .map(|id| world.object(id).span)
    else {
        return Vec::new();
    };
    world.objects_of_file(file).filter(|&id| world.policy_kind(id).is_some() && world.object(id).span == span).collect()
}

/// The snapshot (`label`) against itself without the policies `removed`.
pub fn without(snap: &Snapshot, removed: &[ObjId], label: &str) -> WhatIf {
    what_if(snap, removed, label, true)
}

/// [`without`] with every target in the removed policies' regions explained on each side and
/// every status of their kinds compared: the slow way, which the test compares it with.
pub fn without_explained(snap: &Snapshot, removed: &[ObjId], label: &str) -> WhatIf {
    what_if(snap, removed, label, false)
}

fn what_if(snap: &Snapshot, removed: &[ObjId], label: &str, incremental: bool) -> WhatIf {
    let world = snap.world();
    let w = snap.effective().without(world, removed);
    let (diagnostics, _) = compute_without(snap, &w.index, removed);
    let names: BTreeSet<String> = removed.iter().map(|&p| world.key(p).to_string()).collect();
    let names: Vec<String> = names.into_iter().collect();
    let base = Side::of(label, snap);
    let head =
        Side { label: format!("without {}", names.join(", ")), snap, effective: &w.index, diagnostics: &diagnostics };
    let targets = w.targets.values().map(Vec::len).sum();
    // Per kind, its two sides; per target reference, its node.
    let sides: BTreeMap<GroupKind, Sides<'_>> = w
        .seeds
        .iter()
        .filter(|_| incremental)
        .filter_map(|(gk, seeds)| Some((gk.clone(), snap.effective().sides(&w.index, world, gk, seeds)?)))
        .collect();
    let nodes: HashMap<String, NodeId> =
        w.targets.values().flatten().map(|&n| (world.topology.node_key(world, n).to_string(), n)).collect();
    let names_of: RefCell<HashMap<NodeId, String>> = RefCell::default();
    let fields = |target: &str, kinds: &[GroupKind]| -> Option<(Fields, Fields)> {
        let node = *nodes.get(target)?;
        let per_kind: Vec<(&GroupKind, &Sides<'_>)> =
            kinds.iter().map(|gk| Some((gk, sides.get(gk)?))).collect::<Option<_>>()?;
        let mut names = names_of.borrow_mut();
        let mut name =
            |n: NodeId| names.entry(n).or_insert_with(|| world.topology.node_key(world, n).to_string()).clone();
        let mut out: [Fields; 2] = Default::default();
        for (gk, s) in per_kind {
            let kind = gk.to_string();
            for path in s.at(node) {
                // A leaf the same on both sides of a path makes no change: left out of both.
                let [b, a] = &path.leaves;
                let differs = |l: &&Leaf, other: &[Leaf]| !other.contains(l);
                let changed: [Vec<&Leaf>; 2] =
                    [b.iter().filter(|l| differs(l, a)).collect(), a.iter().filter(|l| differs(l, b)).collect()];
                for (side, fields) in out.iter_mut().enumerate() {
                    if changed[side].is_empty() {
                        continue;
                    }
                    let shown: Vec<String> = path.shown[side].iter().map(|&n| name(n)).collect();
                    let hops: Vec<String> = shown.iter().filter(|h| !h.starts_with("Namespace/")).cloned().collect();
                    for l in &changed[side] {
                        let held =
                            Held { value: l.value.clone(), policy: l.policy.clone(), strategy: l.strategy.to_owned() };
                        fields.insert((kind.clone(), hops.clone(), l.field.clone()), (held, shown.clone()));
                    }
                }
            }
        }
        let [before, after] = out;
        Some((before, after))
    };
    let mut scope = Scope::of_nodes(world, &w.targets);
    // A removed policy that reached nothing still leaves the status report.
    scope.kinds.extend(removed.iter().filter_map(|&p| world.policy_kind(p)).map(|k| k.gk.clone()));
    scope.kinds.sort();
    scope.kinds.dedup();
    if incremental {
        // Only the statuses that differ (the removed policies' among them) can make a row.
        let changed: Vec<ObjId> = world
            .policies
            .iter()
            .copied()
            .filter(|&p| {
                world.policy_kind(p).is_some_and(|k| scope.kinds.contains(&k.gk))
                    && snap.effective().status(p) != w.index.status(p)
            })
            .collect();
        scope.policies = Some(changed);
        scope.fields = Some(&fields);
    }
    let mut report = compare(&base, &head, Some(&scope));
    report.gone = gone(&report.effective, &names);
    report.without = names;
    WhatIf { report, stats: w.stats, targets }
}
