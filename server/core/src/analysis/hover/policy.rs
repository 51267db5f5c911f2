//! Hover on a policy: its computed status (docs/semantics.md §5.1), who supersedes it, what it targets
//! and how many objects it affects.

use crate::analysis::refs::sites;
use crate::analysis::summary::{untargeted_scope, where_lost};
use crate::catalog::PolicyClass;
use crate::effective::EffectiveIndex;
use crate::effective::supplier_label;
use crate::topology::Linked;
use crate::world::ObjId;

use super::status::{reason, short_name, status_parts};

/// Objects listed by name before the list is cut to a count.
const MAX_LISTED: usize = 8;

pub(super) fn hover(world: &Linked, effective: &EffectiveIndex, pid: ObjId) -> String {
    let t = &world.topology;
    let obj = world.object(pid);
    let mut parts = Vec::new();
    let mut head = format!("**{}** {}", obj.group_kind(), short_name(world, pid));
    if let Some(kind) = world.policy_kind(pid) {
        let class = match kind.class {
            PolicyClass::Direct => "Direct",
            PolicyClass::Inherited => "Inherited",
        };
        head.push_str(&format!(" · {class} · {}", kind.project));
    }
    parts.push(head);

    let status = effective.status(pid);
    parts.push(match status_parts(status) {
        Some((head, detail)) => format!("**{head}** · {detail}"),
        None => "**Status unknown**".to_owned(),
    });
    if let (Some(reported), Some(s)) = (world.reported(pid), status) {
        parts.push(reported_lines(reported, world.server_meta(pid).and_then(|m| m.generation), s));
    }

    // Why refs point at nothing (TargetNotFound, Invalid).
    let problems: Vec<String> = sites(world, pid)
        .iter()
        .filter_map(|s| s.problem.as_ref().map(|p| format!("- `{}`: {p}", s.written)))
        .collect();
    if !problems.is_empty() {
        parts.push(problems.join("\n"));
    }

    if let Some(res) = t.policies.get(&pid) {
        let mut targets: Vec<String> = res.attached_nodes().map(|n| format!("`{}`", t.node_key(world, n))).collect();
        targets.dedup();
        if !targets.is_empty() {
            parts.push(format!("Targets: {}", targets.join(", ")));
        }
    }
    if let Some(i) = effective.ignored(pid) {
        let head = match i {
            crate::effective::Ignored::Unsupported { .. } => "Unsupported by its controller",
            crate::effective::Ignored::IstioOptOut => "Ignored by Istio",
        };
        parts.push(format!("**{head}**: {}", i.words(world, pid)));
    }
    let under = effective.ignored_under(pid);
    if !under.is_empty() {
        parts.push(format!(
            "**Ignored by some of its Gateways**: {}",
            crate::effective::controllers::words_under(world, pid, under)
        ));
    }
    let scope = untargeted_scope(world, pid);
    let untargeted = scope.is_some();
    parts.extend(scope);
    if let Some(s) = status {
        let mut by: Vec<String> = s.superseded_by.iter().map(|&o| format!("`{}`", supplier_label(world, o))).collect();
        by.sort();
        by.dedup();
        if !by.is_empty() {
            let mut line = format!("Superseded by: {}", by.join(", "));
            if let Some(w) = where_lost(world, s) {
                line.push_str(&format!(" ({w})"));
            }
            parts.push(line);
        }
        for (node, winner) in &s.conflicts {
            parts.push(format!(
                "Lost a conflict at `{}` to `{}` (older, or same age and first by name)",
                t.node_key(world, *node),
                world.key(*winner)
            ));
        }
        let mut affects: Vec<String> = s.affects.iter().map(|&n| t.node_key(world, n).to_string()).collect();
        affects.sort();
        let n = affects.len();
        let what = if n == 1 { "object" } else { "objects" };
        let mut line = format!("Affects {n} {what}");
        if n > 0 {
            let listed: Vec<String> = affects.iter().take(MAX_LISTED).map(|a| format!("`{a}`")).collect();
            line.push_str(&format!(": {}", listed.join(", ")));
            if n > MAX_LISTED {
                line.push_str(&format!(", … {} more", n - MAX_LISTED));
            }
        }
        // Workloads picked by a selector are not in the Gateway API topology: no count.
        if s.accepted && !untargeted {
            parts.push(line);
        }
    }
    parts.extend(super::contribution::per_target(world, effective, pid, MAX_LISTED));
    parts.join("\n\n")
}

/// What the controllers wrote in the live cluster, beside the computed status: `controller
/// says Accepted=False (Conflicted) for Gateway/infra/edge · computed: Accepted`.
/// A status written for an older generation of the spec is shown as stale, never as a
/// disagreement.
fn reported_lines(
    reported: &[crate::model::ReportedAncestor],
    generation: Option<i64>,
    s: &crate::effective::PolicyStatus,
) -> String {
    let computed = if s.accepted { "Accepted".to_owned() } else { format!("Accepted=False ({})", reason(s.reason)) };
    let mut lines = Vec::new();
    for a in reported {
        let Some(c) = a.accepted_condition() else { continue };
        let said =
            if c.status == "True" { "Accepted".to_owned() } else { format!("Accepted={} ({})", c.status, c.reason) };
        let verdict = match (c.is_stale(generation), c.observed_generation, generation) {
            (true, Some(seen), Some(now)) => format!("**stale**: written for generation {seen}, the spec is at {now}"),
            _ if (c.status == "True") == s.accepted => "agrees".to_owned(),
            _ => "**disagrees**".to_owned(),
        };
        lines.push(format!(
            "- controller `{}` says {said} for `{}` · computed: {computed} ({verdict})",
            a.controller, a.ancestor
        ));
    }
    if lines.is_empty() {
        return "Live cluster: no controller has reported Accepted".to_owned();
    }
    format!("Live cluster:\n{}", lines.join("\n"))
}
