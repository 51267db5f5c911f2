//! What one policy contributes at one of its targets: the fields it wins there (with the merge
//! rule), what it loses and to whom, and its status. Shown on a targetRef (for the target it
//! names) and on the policy's name (per target), so that the answer is where users hover.

use crate::analysis::refs::Target;
use crate::effective::{Context, EffectiveIndex, explain};
use crate::topology::{Linked, NodeId, PathLimit};
use crate::world::ObjId;

use super::status::{short_name, status_words};

/// Distinct results shown per target; the rest are counted.
const MAX_RESULTS: usize = 3;
/// Objects below a node that are explained to group them (losses first); the rest are counted.
/// Each costs an `explain` of its paths: a Gateway policy reaches every route of the Gateway.
const MAX_EXAMINED: usize = 64;
/// Objects named in the heading of a block that is the same on several.
const MAX_NAMED: usize = 3;

/// What a policy does at one place, as markdown lines, and whether it loses anything there.
#[derive(Clone, PartialEq)]
struct Block {
    lines: Vec<String>,
    loses: bool,
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
fn context_lines(c: &Context, label: &str, short: &dyn Fn(&str) -> String) -> Block {
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
    let loses = c.lost.iter().any(|l| l.policy == label);
    if lines.is_empty() {
        lines.push("- sets no field here".to_owned());
    }
    Block { lines, loses }
}

/// `lines` after a blank line when they follow others: a heading right below a list item is
/// taken into the item (VS Code renders "On `x`:" as the end of the bullet above).
fn push_block(out: &mut Vec<String>, heading: String, lines: &[String]) {
    if !out.is_empty() {
        out.push(String::new());
    }
    out.push(heading);
    out.extend(lines.iter().cloned());
}

/// What policy `pid` contributes at the DAG node `node`, as markdown lines (no heading). A
/// node its kind does not take effect at (a Gateway, for a kind effective on routes) answers
/// with the effective targets below it that the policy reaches through it: where it loses
/// first, each outcome once with the objects it is the same on.
fn at_node(world: &Linked, effective: &EffectiveIndex, pid: ObjId, node: NodeId) -> Vec<String> {
    let label = world.key(pid).to_string();
    let Some(status) = effective.status(pid) else { return vec!["- contributes nothing here".to_owned()] };
    // Where it lost something first (a loss is what the user hovers to find), then the rest.
    let mut reached: Vec<NodeId> = status.lost.iter().map(|l| l.target).collect();
    reached.sort();
    reached.dedup();
    let mut rest: Vec<NodeId> = status.affects.iter().copied().filter(|n| !reached.contains(n)).collect();
    rest.sort();
    rest.dedup();
    reached.extend(rest);
    if reached.contains(&node) || reached.is_empty() {
        let lines = node_lines(world, effective, &label, node, None).map(|b| b.lines).unwrap_or_default();
        return if lines.is_empty() { vec!["- contributes nothing here".to_owned()] } else { lines };
    }
    let key = world.topology.node_key(world, node).to_string();
    // Objects with the same outcome, in the order met (losses first).
    let mut blocks: Vec<(Block, Vec<NodeId>)> = Vec::new();
    for &e in reached.iter().take(MAX_EXAMINED) {
        let Some(block) = node_lines(world, effective, &label, e, Some(&key)) else { continue };
        match blocks.iter_mut().find(|(b, _)| *b == block) {
            Some((_, nodes)) => nodes.push(e),
            None => blocks.push((block, vec![e])),
        }
    }
    blocks.sort_by_key(|(b, _)| !b.loses);
    let mut out = Vec::new();
    let mut hidden = reached.len().saturating_sub(MAX_EXAMINED);
    for (i, (block, nodes)) in blocks.iter().enumerate() {
        if i == MAX_RESULTS {
            hidden += nodes.len();
            continue;
        }
        let names: Vec<String> =
            nodes.iter().take(MAX_NAMED).map(|&n| format!("`{}`", world.topology.node_key(world, n))).collect();
        let heading = match nodes.len() {
            1 => format!("On {}:", names[0]),
            n if n > MAX_NAMED => format!("On {} and {} more (same on {n} objects):", names.join(", "), n - MAX_NAMED),
            n => format!("On {} (same on {n} objects):", names.join(", ")),
        };
        push_block(&mut out, heading, &block.lines);
    }
    if hidden > 0 {
        out.push(String::new());
        out.push(format!("… and up to {hidden} more objects below"));
    }
    if out.is_empty() {
        out.push("- reaches no object it takes effect on through here".to_owned());
    }
    out
}

/// The lines for `label` at the effective node `node`, from the contexts it takes part in
/// (only those whose path passes through `through`, when given); `None` when none.
fn node_lines(
    world: &Linked,
    effective: &EffectiveIndex,
    label: &str,
    node: NodeId,
    through: Option<&str>,
) -> Option<Block> {
    let ex = explain(world, effective, node, PathLimit(super::PATH_LIMIT));
    let kind = ex.policies.iter().find(|k| k.contexts.iter().any(|c| c.policies.iter().any(|p| p == label)))?;
    let short = |p: &str| kind.short(p).to_owned();
    // Paths with the same outcome for this policy are shown once.
    let mut groups: Vec<(Block, Vec<&Context>)> = Vec::new();
    let mine = kind.contexts.iter().filter(|c| c.policies.iter().any(|p| p == label));
    for c in mine.filter(|c| through.is_none_or(|t| c.path.iter().any(|p| p == t))) {
        let block = context_lines(c, label, &short);
        match groups.iter_mut().find(|(b, _)| *b == block) {
            Some((_, cs)) => cs.push(c),
            None => groups.push((block, vec![c])),
        }
    }
    if groups.is_empty() {
        return None;
    }
    // Losses first here too.
    groups.sort_by_key(|(b, _)| !b.loses);
    if let [(only, _)] = groups.as_slice() {
        return Some(only.clone());
    }
    let loses = groups.iter().any(|(b, _)| b.loses);
    let mut out = Vec::new();
    for (block, cs) in groups.iter().take(MAX_RESULTS) {
        let path: Vec<String> = cs[0].path.iter().map(|p| format!("`{p}`")).collect();
        let more = if cs.len() > 1 { format!(" (and {} more paths)", cs.len() - 1) } else { String::new() };
        push_block(&mut out, format!("On {}{more}:", path.join(" › ")), &block.lines);
    }
    if groups.len() > MAX_RESULTS {
        out.push(String::new());
        out.push(format!("… {} more results on other paths", groups.len() - MAX_RESULTS));
    }
    Some(Block { lines: out, loses })
}

/// On a targetRef of `pid` naming `targets`: what the policy contributes at each, with its
/// status.
pub(super) fn on_target_ref(world: &Linked, effective: &EffectiveIndex, pid: ObjId, targets: &[Target]) -> String {
    let name = short_name(world, pid);
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
