//! What one policy contributes at one of its targets: the fields it wins there (with the merge
//! rule), what it loses and to whom, and its status. Shown on a targetRef (for the target it
//! names) and on the policy's name (per target), so that the answer is where users hover.

use crate::analysis::refs::Target;
use crate::effective::{Context, EffectiveIndex, PolicyStatus, explain};
use crate::topology::{Linked, NodeId, PathLimit};
use crate::world::ObjId;

/// Paths enumerated per target, as the target hover does.
const PATH_LIMIT: usize = 256;
/// Distinct results shown per target; the rest are counted.
const MAX_RESULTS: usize = 3;

/// The policy's status in a few words: `Accepted · Enforced`, `Not accepted (TargetNotFound)`.
fn status_words(status: Option<&PolicyStatus>) -> String {
    match super::policy::status_parts(status) {
        Some(("Accepted", e)) => format!("Accepted · {e}"),
        Some((head, why)) => format!("{head} ({why})"),
        None => "Status unknown".to_owned(),
    }
}

/// A JSON pointer as a dotted field path: `/timeout/http/requestTimeout` → `timeout.http.requestTimeout`.
fn dotted(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// The lines for one context: the fields `label` won, then what it lost.
fn context_lines(c: &Context, label: &str, short: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut lines = Vec::new();
    for p in c.provenance.iter().filter(|p| p.policy == label && !p.from_target) {
        let value = c.effective.pointer(&p.field).map_or_else(String::new, |v| format!(": {v}"));
        lines.push(format!("- `{}{value}` · wins ({})", dotted(&p.field), p.strategy.as_str()));
    }
    for l in c.lost.iter().filter(|l| l.policy == label) {
        let by: Vec<String> = l.by.iter().map(|b| format!("`{}`", short(b))).collect();
        let mut line = format!("- {}", l.outcome);
        if !by.is_empty() {
            line.push_str(&format!(" by {}", by.join(", ")));
        }
        if !l.because.is_empty() {
            line.push_str(&format!(" ({})", l.because.join(", ")));
        }
        lines.push(line);
    }
    if lines.is_empty() {
        lines.push("- sets no field here".to_owned());
    }
    lines
}

/// What policy `pid` contributes at the DAG node `node`, as markdown lines (no heading). A
/// node its kind does not take effect at (a Gateway, for a kind effective on routes) answers
/// with the effective targets below it that the policy reaches through it.
fn at_node(world: &Linked, effective: &EffectiveIndex, pid: ObjId, node: NodeId) -> Vec<String> {
    let label = world.key(pid).to_string();
    let Some(status) = effective.status(pid) else { return vec!["- contributes nothing here".to_owned()] };
    let mut reached: Vec<NodeId> = status.affects.iter().copied().chain(status.lost.iter().map(|l| l.target)).collect();
    reached.sort();
    reached.dedup();
    if reached.contains(&node) || reached.is_empty() {
        let lines = node_lines(world, effective, &label, node, None);
        return if lines.is_empty() { vec!["- contributes nothing here".to_owned()] } else { lines };
    }
    let key = world.topology.node_key(world, node).to_string();
    let mut out = Vec::new();
    let mut shown = 0;
    let mut more = 0;
    for &e in &reached {
        if shown == MAX_RESULTS {
            more += 1;
            continue;
        }
        let lines = node_lines(world, effective, &label, e, Some(&key));
        if lines.is_empty() {
            continue;
        }
        shown += 1;
        out.push(format!("On `{}`:", world.topology.node_key(world, e)));
        out.extend(lines);
    }
    if more > 0 {
        out.push(format!("… and up to {more} more objects below"));
    }
    if out.is_empty() {
        out.push("- reaches no object it takes effect on through here".to_owned());
    }
    out
}

/// The lines for `label` at the effective node `node`, from the contexts it takes part in
/// (only those whose path passes through `through`, when given); empty when none.
fn node_lines(
    world: &Linked,
    effective: &EffectiveIndex,
    label: &str,
    node: NodeId,
    through: Option<&str>,
) -> Vec<String> {
    let ex = explain(world, effective, node, PathLimit(PATH_LIMIT));
    let Some(kind) = ex.policies.iter().find(|k| k.contexts.iter().any(|c| c.policies.iter().any(|p| p == label)))
    else {
        return Vec::new();
    };
    let short = |p: &str| kind.short(p).to_owned();
    // Paths with the same outcome for this policy are shown once.
    let mut groups: Vec<(Vec<String>, Vec<&Context>)> = Vec::new();
    let mine = kind.contexts.iter().filter(|c| c.policies.iter().any(|p| p == label));
    for c in mine.filter(|c| through.is_none_or(|t| c.path.iter().any(|p| p == t))) {
        let lines = context_lines(c, label, &short);
        match groups.iter_mut().find(|(l, _)| *l == lines) {
            Some((_, cs)) => cs.push(c),
            None => groups.push((lines, vec![c])),
        }
    }
    let mut out = Vec::new();
    let several = groups.len() > 1;
    for (lines, cs) in groups.iter().take(MAX_RESULTS) {
        if several {
            let path: Vec<String> = cs[0].path.iter().map(|p| format!("`{p}`")).collect();
            let more = if cs.len() > 1 { format!(" (and {} more paths)", cs.len() - 1) } else { String::new() };
            out.push(format!("On {}{more}:", path.join(" › ")));
        }
        out.extend(lines.iter().cloned());
    }
    if groups.len() > MAX_RESULTS {
        out.push(format!("… {} more results on other paths", groups.len() - MAX_RESULTS));
    }
    out
}

/// On a targetRef of `pid` naming `targets`: what the policy contributes at each, with its
/// status.
pub(super) fn on_target_ref(world: &Linked, effective: &EffectiveIndex, pid: ObjId, targets: &[Target]) -> String {
    let name = super::policy::short_name(world, pid);
    let mut out = format!("**`{name}` here** · {}", status_words(effective.status(pid)));
    for t in targets {
        let Some(node) = t.node(world) else { continue };
        if targets.len() > 1 {
            out.push_str(&format!("\n\n`{}`", world.topology.node_key(world, node)));
        }
        out.push('\n');
        for line in at_node(world, effective, pid, node) {
            out.push('\n');
            out.push_str(&line);
        }
    }
    out
}

/// On a policy's name: what it contributes at each node it attaches to (the first few).
pub(super) fn per_target(world: &Linked, effective: &EffectiveIndex, pid: ObjId, max: usize) -> Option<String> {
    let res = world.topology.policies.get(&pid)?;
    let mut nodes: Vec<NodeId> = res.attached_nodes().collect();
    nodes.dedup();
    if nodes.is_empty() {
        return None;
    }
    let mut out = String::from("**Per target**");
    for &node in nodes.iter().take(max) {
        out.push_str(&format!("\n\n`{}`\n", world.topology.node_key(world, node)));
        for line in at_node(world, effective, pid, node) {
            out.push('\n');
            out.push_str(&line);
        }
    }
    if nodes.len() > max {
        out.push_str(&format!("\n\n… {} more targets", nodes.len() - max));
    }
    Some(out)
}
