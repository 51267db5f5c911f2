//! Diagnostics from the computed policy status (docs/semantics.md §5.1, §6): `conflicted`, `overridden`,
//! `partially-overridden`, `unknown-strategy`, `affects-nothing`, `unsupported-by-controller`, each with the locations of
//! the policies involved.

use std::sync::Arc;

use super::{Code, Diagnostic, list};
use crate::analysis::summary::where_lost;
use crate::effective::{EffectiveIndex, Enforcement, Ignored, PolicyStatus, Reason, Supplier, supplier_label};
use crate::model::Body;
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::{NodeId, TargetResolution};
use crate::world::ObjId;

pub(super) fn check(eff: &EffectiveIndex, world: &Linked, out: &mut Vec<Diagnostic>) {
    for &pid in &world.policies {
        let Some(st) = eff.status(pid) else { continue };
        let file = &world.file_of(pid).path;
        let me = world.key(pid).to_string();
        if let Some(u) = &st.unknown_strategy {
            out.push(unknown_strategy(world, pid, file, u).object(world, pid));
        }
        if let Some(d) = disagrees(world, pid, file, st) {
            out.push(d.object(world, pid));
        }
        if let Some(d) = stale(world, pid, file) {
            out.push(d.object(world, pid));
        }
        if !st.accepted && st.reason != Reason::Conflicted {
            // Invalid and TargetNotFound have their own reference diagnostics.
            continue;
        }
        match eff.ignored(pid) {
            Some(Ignored::Unsupported { gateways }) => {
                out.push(unsupported(world, pid, file, gateways).object(world, pid));
                continue;
            }
            // Left by Istio to another controller: reaching nothing here is the point.
            Some(Ignored::IstioOptOut) => continue,
            None => {}
        }
        let mut seen_nodes: Vec<NodeId> = Vec::new();
        for &(node, winner) in &st.conflicts {
            if seen_nodes.contains(&node) {
                continue;
            }
            seen_nodes.push(node);
            let at = world.topology.node_key(world, node).to_string();
            let w = world.key(winner).to_string();
            let why = match (world.creation_timestamp(winner), world.creation_timestamp(pid)) {
                (a, b) if a != b => "is older",
                (None, None) => {
                    "comes first by namespace/name (neither has a creationTimestamp; in a cluster the older one wins)"
                }
                _ => "comes first by namespace/name (both were created at the same time)",
            };
            let (wfile, wspan) = ref_location(world, winner, node);
            let unit = unit_note(world, pid);
            out.push(
                Diagnostic::new(
                    file,
                    ref_location(world, pid, node).1,
                    Code::Conflicted,
                    format!(
                        "`{me}` conflicts with `{w}` on `{at}`{unit}: `{w}` {why}, so this policy is not applied there"
                    ),
                )
                .related(&wfile, wspan, format!("`{w}` wins on `{at}`"))
                .object(world, pid),
            );
        }
        let conflict_winners: Vec<Supplier> = st.conflicts.iter().map(|&(_, w)| Supplier::Policy(w)).collect();
        let others: Vec<Supplier> =
            st.superseded_by.iter().copied().filter(|o| !conflict_winners.contains(o)).collect();
        let name_span = world.object(pid).name.span;
        match st.enforcement {
            Some(Enforcement::Overridden) => {
                let by = names(world, &st.superseded_by);
                let d = Diagnostic::new(
                    file,
                    name_span,
                    Code::Overridden,
                    format!("nothing `{me}` sets is in effect: everything is superseded by {by}"),
                );
                out.push(related(world, d, &st.superseded_by).object(world, pid));
            }
            Some(Enforcement::PartiallyEnforced) if !others.is_empty() => {
                let by = names(world, &others);
                let d = Diagnostic::new(
                    file,
                    name_span,
                    Code::PartiallyOverridden,
                    format!(
                        "`{me}` is superseded in part by {by}{}; {}",
                        where_lost(world, st).map(|w| format!(": {w}")).unwrap_or_default(),
                        still_in_effect(st)
                    ),
                );
                out.push(related(world, d, &others).object(world, pid));
            }
            _ => {}
        }
        // A copy that another instance of the same policy stands in for is a duplicate (reported
        // as such), not a policy that reaches nothing.
        let shadowed = world.topology.shadowed_by(pid).is_some();
        // A copy a route's ExtensionRef filter names beside another copy of the route: the
        // instance the filter resolves to is the one that acts (docs/semantics.md §4.5).
        let shadowed = shadowed
            || (world.topology.extension_nodes(pid).next().is_none() && world.topology.named_by_filter(world, pid));
        // What lies below a virtual or external target is unknown, so "nothing" cannot be said.
        let unknowable = world
            .topology
            .policies
            .get(&pid)
            .is_some_and(|r| r.refs.iter().any(|x| matches!(x, TargetResolution::Virtual(_))));
        let untargeted = crate::analysis::summary::untargeted_scope(world, pid).is_some();
        // Nothing reached where its targets are unknown (docs/semantics.md §6.1): unknown, not
        // nothing.
        let unknown = st.enforcement == Some(Enforcement::Unknown);
        if st.accepted
            && st.reached == 0
            && !templated(world, pid)
            && !shadowed
            && !unknowable
            && !untargeted
            && !unknown
        {
            out.push(affects_nothing(world, pid, file, st).object(world, pid));
        }
    }
}

/// ` in kustomization overlays/prod` for a policy whose file several units apply (a base under
/// overlays): what is said of it holds in that unit only.
fn unit_note(world: &Linked, pid: ObjId) -> String {
    if world.units.of(&world.file_of(pid).path).len() > 1 {
        format!(" in {}", world.unit(world.unit_of(pid)))
    } else {
        String::new()
    }
}

/// Where the rest of a partially overridden policy still holds.
fn still_in_effect(st: &PolicyStatus) -> String {
    match (st.affects.len(), st.reached) {
        (a, r) if a < r => format!("it is still in effect on {a} of the {r} effective targets it reaches"),
        (_, 1) => "it is still in effect on the one effective target it reaches".to_owned(),
        (_, r) => format!("it is still in effect on each of the {r} effective targets it reaches"),
    }
}

/// `status-disagrees`: a controller's `Accepted` in the live cluster differs from the
/// computed one.
fn disagrees(world: &Linked, pid: ObjId, file: &Arc<str>, st: &PolicyStatus) -> Option<Diagnostic> {
    let reported = world.reported(pid)?;
    let generation = world.server_meta(pid).and_then(|m| m.generation);
    if crate::effective::agrees(reported, generation, st.accepted) != Some(false) {
        return None;
    }
    let (a, c) = reported.iter().find_map(|a| {
        a.accepted_condition()
            .filter(|c| !c.is_stale(generation) && (c.status == "True") != st.accepted)
            .map(|c| (a, c))
    })?;
    let mut said = format!("Accepted={} ({}", c.status, c.reason);
    if !c.message.is_empty() {
        said.push_str(&format!(": {}", c.message));
    }
    said.push(')');
    let computed = match crate::effective::accepted_report(world, pid, st).message {
        _ if st.accepted => "Accepted".to_owned(),
        Some(why) => format!("Accepted=False ({:?}: {why})", st.reason),
        None => format!("Accepted=False ({:?})", st.reason),
    };
    let message = if world.file_of(pid).origin == crate::source::Origin::Cluster {
        format!(
            "the controller `{}` reports {said} for `{}`, but the cluster's objects give {computed}",
            a.controller, a.ancestor
        )
    } else {
        format!(
            "the controller `{}` reports {said} for `{}`, but these files give {computed}: the cluster holds objects or versions the files do not show, or the controller reads this kind differently",
            a.controller, a.ancestor
        )
    };
    Some(Diagnostic::new(file, world.object(pid).name.span, Code::StatusDisagrees, message))
}

/// `stale-status`: a controller's `Accepted` in the live cluster was written for an older
/// spec (`observedGeneration` below `metadata.generation`): it is shown, never compared.
fn stale(world: &Linked, pid: ObjId, file: &Arc<str>) -> Option<Diagnostic> {
    let generation = world.server_meta(pid)?.generation?;
    let (a, c) = world
        .reported(pid)?
        .iter()
        .find_map(|a| a.accepted_condition().filter(|c| c.is_stale(Some(generation))).map(|c| (a, c)))?;
    let seen = c.observed_generation.unwrap_or_default();
    let message = format!(
        "the controller `{}` wrote its status for `{}` (Accepted={}) when the policy was at generation {seen}; the cluster holds generation {generation}, which it has not reported on yet, so its status is not compared with the computed one",
        a.controller, a.ancestor, c.status
    );
    Some(Diagnostic::new(file, world.object(pid).name.span, Code::StaleStatus, message))
}

/// At most this many superseding objects are named in a message or given as related
/// locations (a Gateway-wide policy can be superseded by hundreds of route policies).
const MAX_NAMED: usize = 8;

/// `` `a`, `b` `` and, past [`MAX_NAMED`], "and N more".
fn names(world: &Linked, origins: &[Supplier]) -> String {
    let shown: Vec<String> = origins
        .iter()
        .take(MAX_NAMED)
        .map(|&o| match o {
            Supplier::Policy(_) => supplier_label(world, o),
            Supplier::Target(_) => format!("{} (its own value)", supplier_label(world, o)),
        })
        .collect();
    let mut s = list(&shown);
    if origins.len() > MAX_NAMED {
        s.push_str(&format!(" and {} more", origins.len() - MAX_NAMED));
    }
    s
}

fn related(world: &Linked, mut d: Diagnostic, origins: &[Supplier]) -> Diagnostic {
    for &o in origins.iter().take(MAX_NAMED) {
        let (Supplier::Policy(id) | Supplier::Target(id)) = o;
        let f = &world.file_of(id).path;
        let msg = match o {
            Supplier::Policy(_) => format!("`{}` supersedes it", world.key(id)),
            Supplier::Target(_) => format!("`{}` sets the field itself", world.key(id)),
        };
        d = d.related(f, world.object(id).name.span, msg);
    }
    d
}

/// The span of the policy's reference that attaches it to `node` (its `name` value), else the
/// policy's `metadata.name`.
fn ref_location(world: &Linked, pid: ObjId, node: NodeId) -> (Arc<str>, Span) {
    let file = world.file_of(pid).path.clone();
    let obj = world.object(pid);
    if let (Body::Other(other), Some(res)) = (&obj.body, world.topology.policies.get(&pid)) {
        for (r, resolution) in other.policy.refs().zip(&res.refs) {
            if matches!(resolution, TargetResolution::Resolved(n) | TargetResolution::Virtual(n) if *n == node) {
                return (file, r.name.as_ref().map_or(r.span, |n| n.span));
            }
        }
    }
    (file, obj.name.span)
}

fn templated(world: &Linked, pid: ObjId) -> bool {
    world.topology.policies.get(&pid).is_some_and(|r| r.refs.iter().any(|x| matches!(x, TargetResolution::Templated)))
}

fn unknown_strategy(world: &Linked, pid: ObjId, file: &Arc<str>, u: &crate::effective::UnknownStrategy) -> Diagnostic {
    let kind = world.policy_kind(pid);
    let candidates = ["atomic", "patch", "merge", "StrategicMerge", "JSONMerge"];
    let supported: Vec<String> = candidates
        .iter()
        .filter(|c| kind.is_some_and(|k| k.strategy_for(c, u.overrides).is_some()))
        .map(|c| (*c).to_owned())
        .collect();
    let kind_name = kind.map_or_else(String::new, |k| k.gk.to_string());
    let msg = if supported.is_empty() {
        format!("`{}` is not a strategy {kind_name} supports here; it takes none", u.value)
    } else {
        format!("`{}` is not a strategy {kind_name} supports here; use {}", u.value, list(&supported))
    };
    let fix = crate::suggest::closest(&u.value, supported.iter().map(String::as_str)).map(str::to_owned);
    Diagnostic::new(file, u.span, Code::UnknownStrategy, msg).fix(fix)
}

/// `unsupported-by-controller`: every Gateway the policy reaches is served by a controller
/// that does not implement its kind (docs/semantics.md §4.4.1). Related: those Gateways' class
/// names, where their controller is decided.
fn unsupported(world: &Linked, pid: ObjId, file: &Arc<str>, gateways: &[ObjId]) -> Diagnostic {
    let why = Ignored::Unsupported { gateways: gateways.to_vec() }.words(world, pid);
    let mut d = Diagnostic::new(
        file,
        first_ref_span(world, pid),
        Code::UnsupportedByController,
        format!("`{}` does nothing: {why}", world.key(pid)),
    );
    for &g in gateways.iter().take(MAX_NAMED) {
        let Body::Gateway(gw) = &world.object(g).body else { continue };
        let span = gw.class_name.as_ref().map_or(world.object(g).name.span, |c| c.span);
        let by = world.topology.controller_of(g).map(|s| s.describe()).unwrap_or_default();
        d = d.related(&world.file_of(g).path, span, format!("`{}` is served by {by}", world.key(g)));
    }
    d
}

/// The `name` value of the policy's first reference that resolves, else its `metadata.name`.
fn first_ref_span(world: &Linked, pid: ObjId) -> Span {
    let obj = world.object(pid);
    match (&obj.body, world.topology.policies.get(&pid)) {
        (Body::Other(other), Some(res)) => other
            .policy
            .refs()
            .zip(&res.refs)
            .find(|(_, x)| matches!(x, TargetResolution::Resolved(_) | TargetResolution::Virtual(_)))
            .and_then(|(r, _)| r.name.as_ref().map(|n| n.span))
            .unwrap_or(obj.name.span),
        _ => obj.name.span,
    }
}

fn affects_nothing(world: &Linked, pid: ObjId, file: &Arc<str>, _st: &PolicyStatus) -> Diagnostic {
    let span = first_ref_span(world, pid);
    let what = match world.policy_kind(pid) {
        Some(k) if !k.effective_targets.is_empty() => {
            let kinds: Vec<String> = k.effective_targets.iter().map(|g| g.to_string()).collect();
            format!("no {} below its targets", kinds.join(" or "))
        }
        _ => "nothing below its targets".to_owned(),
    };
    Diagnostic::new(
        file,
        span,
        Code::AffectsNothing,
        format!("`{}` is accepted but affects nothing yet: there is {what}", world.key(pid)),
    )
}
