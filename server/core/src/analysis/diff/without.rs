//! The what-if of a deletion: the workspace as it is against the same workspace without some
//! policies (every definition of each), before anyone deletes them. The effective index is
//! the snapshot's with only the removed policies' regions recomputed
//! ([`EffectiveIndex::without`]); the findings are the engine's on that index; the report is
//! [`compare`]'s, led by what stops applying ([`super::gone`]).

use std::collections::BTreeSet;

use super::{Report, Scope, Side, compare, gone::gone};
use crate::analysis::diagnostics::compute_without;
use crate::effective::WithoutStats;
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
    let world = snap.world();
    let w = snap.effective().without(world, removed);
    let (diagnostics, _) = compute_without(snap, &w.index, removed);
    let names: BTreeSet<String> = removed.iter().map(|&p| world.key(p).to_string()).collect();
    let names: Vec<String> = names.into_iter().collect();
    let base = Side::of(label, snap);
    let head =
        Side { label: format!("without {}", names.join(", ")), snap, effective: &w.index, diagnostics: &diagnostics };
    let targets = w.targets.values().map(Vec::len).sum();
    let mut scope = Scope::of_nodes(world, &w.targets);
    // A removed policy that reached nothing still leaves the status report.
    scope.kinds.extend(removed.iter().filter_map(|&p| world.policy_kind(p)).map(|k| k.gk.clone()));
    scope.kinds.sort();
    scope.kinds.dedup();
    let mut report = compare(&base, &head, Some(&scope));
    report.gone = gone(&report.effective, &names);
    report.without = names;
    WhatIf { report, stats: w.stats, targets }
}
