//! The graph as a Mermaid flowchart: policies as flags with dotted links to their targets,
//! one class per status; a policy that is not accepted is dashed and red, one its controllers
//! ignore dotted and purple.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Graph, NodeType, PolicyState};

/// Mermaid reads `#...;` as an entity code inside labels: write `#` and `"` as entities.
fn escape(s: &str) -> String {
    s.replace('#', "#35;").replace('"', "#quot;")
}

const CLASSES: [(PolicyState, &str); 5] = [
    (PolicyState::Enforced, "enforced"),
    (PolicyState::PartiallyEnforced, "partiallyEnforced"),
    (PolicyState::Overridden, "overridden"),
    (PolicyState::NotEnforced, "notEnforced"),
    (PolicyState::NotAccepted, "notAccepted"),
];

fn class(s: PolicyState) -> &'static str {
    CLASSES.iter().find(|(c, _)| *c == s).map_or("enforced", |(_, name)| name)
}

pub fn mermaid(g: &Graph) -> String {
    let index: HashMap<&str, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    let mut out = String::from("graph LR\n");
    for (i, n) in g.nodes.iter().enumerate() {
        let text = escape(&n.key);
        let _ = match n.node_type {
            NodeType::Section => writeln!(out, "  n{i}(\"{text}\")"),
            NodeType::Namespace => writeln!(out, "  n{i}[[\"{text}\"]]"),
            _ => writeln!(out, "  n{i}[\"{text}\"]"),
        };
    }
    // Links are numbered in order of appearance; `linkStyle` colours a policy's by that number.
    let mut links = 0usize;
    for e in &g.edges {
        if let (Some(a), Some(b)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            let _ = writeln!(out, "  n{a} --> n{b}");
            links += 1;
        }
    }
    let mut styles: Vec<(usize, PolicyState)> = Vec::new();
    for (i, p) in g.policies.iter().enumerate() {
        let status = match p.state {
            PolicyState::NotAccepted => format!("not accepted: {:?}", p.accepted.reason),
            s => s.label().to_owned(),
        };
        let _ = writeln!(out, "  p{i}>\"{}<br/>{status}\"]:::{}", escape(&p.key), class(p.state));
        for t in &p.targets {
            if let Some(n) = index.get(t.as_str()) {
                let _ = writeln!(out, "  p{i} -.-> n{n}");
                styles.push((links, p.state));
                links += 1;
            }
        }
    }
    for (s, _) in CLASSES {
        let links: Vec<String> = styles.iter().filter(|(_, t)| *t == s).map(|(l, _)| l.to_string()).collect();
        if !links.is_empty() {
            let _ = writeln!(out, "  linkStyle {} stroke:{}", links.join(","), s.colour());
        }
    }
    for (s, name) in CLASSES {
        if g.policies.iter().any(|p| p.state == s) {
            let dash = match s {
                PolicyState::NotAccepted => ",stroke-dasharray:5 5",
                PolicyState::NotEnforced => ",stroke-dasharray:2 2",
                _ => "",
            };
            let _ = writeln!(out, "  classDef {name} stroke:{c},color:{c}{dash}", c = s.colour());
        }
    }
    out
}
