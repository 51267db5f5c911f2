//! The topology as a picture: the hierarchy DAG (GatewayClass > Gateway > listener > route >
//! rule > Service > port) with every policy as a dashed note on its targets, as Graphviz dot
//! or Mermaid. Shared by `policylens graph` and the server's `policylens/graph`.

use std::fmt::Write as _;

use super::{Node, NodeId};
use crate::workspace::{ObjId, World};

/// Nodes worth drawing: every object of the hierarchy, its sections, and the Namespace and
/// virtual nodes policies attach to. Objects outside the hierarchy (policies themselves,
/// ReferenceGrants, CRDs...) are left out.
fn drawn(world: &World) -> Vec<NodeId> {
    let t = &world.topology;
    (0..t.node_count() as u32)
        .map(NodeId)
        .filter(|&n| {
            !t.parents(n).is_empty()
                || !t.children(n).is_empty()
                || !t.policies_at(n).is_empty()
                || matches!(t.node(n), Node::Object(o) if is_hierarchy_kind(world.object(o).kind()))
        })
        .collect()
}

fn is_hierarchy_kind(kind: &str) -> bool {
    matches!(kind, "GatewayClass" | "Gateway" | "ListenerSet" | "XListenerSet" | "Service") || kind.ends_with("Route")
}

fn label(world: &World, n: NodeId) -> String {
    world.topology.node_key(world, n).to_string()
}

/// Policies drawn, each once, with its targets.
fn policies(world: &World, nodes: &[NodeId]) -> Vec<(ObjId, Vec<NodeId>)> {
    let t = &world.topology;
    let mut out: Vec<(ObjId, Vec<NodeId>)> = Vec::new();
    for &n in nodes {
        for &p in t.policies_at(n) {
            match out.iter_mut().find(|(q, _)| *q == p) {
                Some((_, targets)) => targets.push(n),
                None => out.push((p, vec![n])),
            }
        }
    }
    out.sort_by_key(|(p, _)| world.key(*p).to_string());
    out
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn dot(world: &World) -> String {
    let t = &world.topology;
    let nodes = drawn(world);
    let mut out = String::from("digraph policylens {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n");
    for &n in &nodes {
        let style = match t.node(n) {
            Node::Section(..) => ", style=rounded",
            Node::Namespace(_) => ", style=\"rounded,bold\"",
            Node::Virtual(_) => ", style=dotted",
            Node::Object(_) => "",
        };
        let _ = writeln!(out, "  n{} [label=\"{}\"{style}];", n.0, dot_escape(&label(world, n)));
    }
    for &n in &nodes {
        for &c in t.children(n) {
            let _ = writeln!(out, "  n{} -> n{};", n.0, c.0);
        }
    }
    for (p, targets) in policies(world, &nodes) {
        let _ = writeln!(
            out,
            "  p{} [label=\"{}\", shape=note, style=dashed];",
            p.0,
            dot_escape(&world.key(p).to_string())
        );
        for n in targets {
            let _ = writeln!(out, "  p{} -> n{} [style=dashed, arrowhead=open];", p.0, n.0);
        }
    }
    out.push_str("}\n");
    out
}

/// Mermaid reads `#...;` as an entity code inside labels: write `#` and `"` as entities.
fn mermaid_escape(s: &str) -> String {
    s.replace('#', "#35;").replace('"', "#quot;")
}

pub fn mermaid(world: &World) -> String {
    let t = &world.topology;
    let nodes = drawn(world);
    let mut out = String::from("graph LR\n");
    for &n in &nodes {
        let text = mermaid_escape(&label(world, n));
        let shape = match t.node(n) {
            Node::Section(..) => format!("n{}(\"{text}\")", n.0),
            Node::Namespace(_) => format!("n{}[[\"{text}\"]]", n.0),
            _ => format!("n{}[\"{text}\"]", n.0),
        };
        let _ = writeln!(out, "  {shape}");
    }
    for &n in &nodes {
        for &c in t.children(n) {
            let _ = writeln!(out, "  n{} --> n{}", n.0, c.0);
        }
    }
    let pols = policies(world, &nodes);
    for (p, targets) in &pols {
        let _ = writeln!(out, "  p{}>\"{}\"]:::policy", p.0, mermaid_escape(&world.key(*p).to_string()));
        for n in targets {
            let _ = writeln!(out, "  p{} -.-> n{}", p.0, n.0);
        }
    }
    if !pols.is_empty() {
        out.push_str("  classDef policy stroke-dasharray: 5 5\n");
    }
    out
}
