//! The graph as Graphviz dot: hierarchy left to right, policies as notes with dashed arrows to
//! their targets, coloured by status; a policy that is not accepted is a dashed red note, one
//! its controllers ignore a dotted purple one.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Graph, NodeType, PolicyState};

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

pub fn dot(g: &Graph) -> String {
    let index: HashMap<&str, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut out = String::from("digraph policylens {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n");
    for (i, n) in g.nodes.iter().enumerate() {
        let style = match n.node_type {
            NodeType::Section => ", style=rounded",
            NodeType::Namespace => ", style=\"rounded,bold\"",
            NodeType::Virtual => ", style=dotted",
            NodeType::Object => "",
        };
        let _ = writeln!(out, "  n{i} [label=\"{}\"{style}];", escape(&n.key));
    }
    for e in &g.edges {
        if let (Some(a), Some(b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            let _ = writeln!(out, "  n{a} -> n{b};");
        }
    }
    for (i, p) in g.policies.iter().enumerate() {
        let colour = p.state.colour();
        let (status, style) = match p.state {
            PolicyState::NotAccepted => (format!("not accepted: {:?}", p.accepted.reason), "dashed"),
            PolicyState::NotEnforced => (PolicyState::NotEnforced.label().to_owned(), "dotted"),
            s => (s.label().to_owned(), "solid"),
        };
        let _ = writeln!(
            out,
            "  p{i} [label=\"{}\\n{status}\", shape=note, style={style}, color=\"{colour}\", fontcolor=\"{colour}\"];",
            escape(&p.key),
        );
        for t in &p.targets {
            if let Some(n) = index.get(t.as_str()) {
                let _ = writeln!(out, "  p{i} -> n{n} [style=dashed, arrowhead=open, color=\"{colour}\"];");
            }
        }
    }
    out.push_str("}\n");
    out
}
