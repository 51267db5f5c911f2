//! The topology with its policies as data (`policylens graph`, the server's `policylens/graph`,
//! the editors' topology views): the hierarchy DAG's drawn nodes and edges, and every policy
//! with its computed status and the nodes it attaches to. `dot` and `mermaid` draw it;
//! `--format json` is its serde form (docs/json.md).

mod dot;
mod mermaid;

use std::collections::{HashMap, HashSet};

use serde::Serialize;

pub use dot::dot;
pub use mermaid::mermaid;

use super::refs::{Target, declaration};
use crate::effective::{AcceptedReport, EffectiveIndex, Enforcement, Reason, accepted_report};
use crate::syntax::{PositionEncoding, Span};
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId};
use crate::world::ObjId;

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Graph {
    pub nodes: Vec<GraphNode>,
    /// From less to more specific (GatewayClass → Gateway → listener → route → …).
    pub edges: Vec<GraphEdge>,
    pub policies: Vec<GraphPolicy>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NodeType {
    Object,
    /// A listener, named rule or named Service port.
    Section,
    /// A Namespace a policy targets.
    Namespace,
    /// A target of a kind the workspace cannot check (GEP-713 virtual types).
    Virtual,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GraphNode {
    /// The key, with `@file` appended when the same object is defined in several files.
    pub id: String,
    /// `Kind[.group]/[namespace/]name[#section]`.
    pub key: String,
    pub kind: String,
    pub group: String,
    #[serde(rename = "type")]
    pub node_type: NodeType,
    /// Where it is defined (its `metadata.name`, or the section's name); absent for virtual
    /// targets and Namespaces the workspace does not define.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 0-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GraphEdge {
    pub from: String,
    pub to: String,
}

/// What a policy amounts to, in one word: how views colour it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PolicyState {
    Enforced,
    PartiallyEnforced,
    Overridden,
    // Accepted, yet its controllers leave it alone (`unsupported-by-controller`, Istio's
    // opt-out): not drawn as overridden, since nothing supersedes it. (A plain comment: a doc
    // comment would turn the schema's enum into a oneOf.)
    NotEnforced,
    NotAccepted,
    // Accepted, and every target it names is one the files do not hold but something else may
    // supply (docs/semantics.md §6.1): what it does is unknown.
    Unknown,
}

impl PolicyState {
    pub fn label(self) -> &'static str {
        match self {
            PolicyState::Enforced => "enforced",
            PolicyState::PartiallyEnforced => "partially enforced",
            PolicyState::Overridden => "overridden",
            PolicyState::NotEnforced => "not enforced",
            PolicyState::NotAccepted => "not accepted",
            PolicyState::Unknown => "effect unknown",
        }
    }

    /// Stroke colour in dot and Mermaid (and the VS Code view's palette).
    pub fn colour(self) -> &'static str {
        match self {
            PolicyState::Enforced => "#2e7d32",
            PolicyState::PartiallyEnforced => "#ef6c00",
            PolicyState::Overridden => "#757575",
            PolicyState::NotEnforced => "#6a1b9a",
            PolicyState::NotAccepted => "#c62828",
            PolicyState::Unknown => "#0277bd",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GraphPolicy {
    /// The key, with `@file` appended when the policy is defined in several files.
    pub id: String,
    pub key: String,
    pub kind: String,
    pub group: String,
    /// Absent for a policy only the live cluster holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 0-based line of its `metadata.name` in `file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub accepted: AcceptedReport,
    /// Absent when not accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Enforcement>,
    pub state: PolicyState,
    /// Ids of the nodes it attaches to (none when no target resolves).
    pub targets: Vec<String>,
}

/// Every drawn node, edge and policy of the world; with `focus`, only that node, its ancestors
/// and descendants, the Namespace nodes of their namespaces, and the policies attached to them.
pub fn build(world: &Linked, index: &EffectiveIndex, focus: Option<NodeId>) -> Graph {
    let t = &world.topology;
    let mut nodes = drawn(world);
    if let Some(f) = focus {
        let keep = neighbourhood(world, f);
        nodes.retain(|n| keep.contains(n));
    }
    let kept: HashSet<NodeId> = nodes.iter().copied().collect();
    let ids = node_ids(world, &nodes);
    let id_of = |n: NodeId| ids.get(&n).cloned().unwrap_or_default();

    let mut edges = Vec::new();
    for &n in &nodes {
        for &c in t.children(n) {
            if kept.contains(&c) {
                edges.push(GraphEdge { from: id_of(n), to: id_of(c) });
            }
        }
    }

    // Targets per policy, in node order (the order of `drawn`).
    let mut targets: HashMap<ObjId, Vec<NodeId>> = HashMap::new();
    for &n in &nodes {
        for &p in t.policies_at(n) {
            let v = targets.entry(p).or_default();
            if !v.contains(&n) {
                v.push(n);
            }
        }
    }
    let policy_ids: Vec<ObjId> =
        world.policies.iter().copied().filter(|p| focus.is_none() || targets.contains_key(p)).collect();
    let duplicated = duplicated_keys(policy_ids.iter().map(|&p| world.key(p).to_string()));
    let mut policies: Vec<GraphPolicy> = policy_ids
        .into_iter()
        .filter_map(|pid| {
            let s = index.status(pid)?;
            let obj = world.object(pid);
            let (file, line) = place(world, pid, obj.name.span).unzip();
            let key = world.key(pid).to_string();
            let accepted = accepted_report(world, pid, s);
            let state = match (accepted.reason, s.enforcement) {
                (Reason::Accepted, Some(Enforcement::PartiallyEnforced)) => PolicyState::PartiallyEnforced,
                (Reason::Accepted, Some(Enforcement::Overridden)) => PolicyState::Overridden,
                (Reason::Accepted, Some(Enforcement::NotEnforced)) => PolicyState::NotEnforced,
                (Reason::Accepted, Some(Enforcement::Unknown)) => PolicyState::Unknown,
                (Reason::Accepted, _) => PolicyState::Enforced,
                _ => PolicyState::NotAccepted,
            };
            Some(GraphPolicy {
                id: match &file {
                    Some(f) if duplicated.contains(&key) => format!("{key}@{f}"),
                    _ => key.clone(),
                },
                key,
                kind: obj.kind().to_owned(),
                group: obj.group().to_owned(),
                file,
                line,
                accepted,
                enforcement: s.enforcement,
                state,
                targets: targets.get(&pid).map(|v| v.iter().map(|&n| id_of(n)).collect()).unwrap_or_default(),
            })
        })
        .collect();
    policies.sort_by(|a, b| (&a.key, &a.file).cmp(&(&b.key, &b.file)));

    let nodes = nodes.iter().map(|&n| graph_node(world, n, id_of(n))).collect();
    Graph { nodes, edges, policies }
}

/// Nodes worth drawing: every object of the hierarchy, its sections, and the Namespace and
/// virtual nodes policies attach to. Objects outside the hierarchy (policies themselves,
/// ReferenceGrants, CRDs...) are left out.
fn drawn(world: &Linked) -> Vec<NodeId> {
    let t = &world.topology;
    (0..t.node_count() as u32)
        .map(NodeId)
        .filter(|&n| {
            !t.parents(n).is_empty()
                || !t.children(n).is_empty()
                || !t.policies_at(n).is_empty()
                || matches!(t.node(n), DagNode::Object(o) if is_hierarchy_kind(world.object(o).kind()))
        })
        .collect()
}

fn is_hierarchy_kind(kind: &str) -> bool {
    matches!(kind, "GatewayClass" | "Gateway" | "ListenerSet" | "XListenerSet" | "Service") || kind.ends_with("Route")
}

/// `focus`, everything above and below it, and the Namespace nodes of those objects (a
/// Namespace policy reaches every object of its namespace without a DAG edge). Below a
/// Service, only the ports that the rules above it use (as `explain`'s paths do).
fn neighbourhood(world: &Linked, focus: NodeId) -> HashSet<NodeId> {
    let t = &world.topology;
    let walk = |up: bool| {
        let mut seen = HashSet::new();
        let mut stack = vec![focus];
        while let Some(n) = stack.pop() {
            for &m in if up { t.parents(n) } else { t.children(n) } {
                if m != focus && seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        seen
    };
    let up = walk(true);
    let mut down = walk(false);
    let reached = |n: NodeId, down: &HashSet<NodeId>| n == focus || down.contains(&n);
    let unused: Vec<NodeId> = down
        .iter()
        .copied()
        .filter(|&port| {
            let Some(number) = t.port_of(world, port) else { return false };
            t.parents(port).iter().all(|&service| {
                service != focus
                    && !t.parents(service).iter().any(|&p| {
                        reached(p, &down) && {
                            let mut ports = t.edge_ports(p, service).peekable();
                            ports.peek().is_none() || ports.any(|q| q.is_none() || q == Some(number))
                        }
                    })
            })
        })
        .collect();
    for n in unused {
        down.remove(&n);
    }
    let mut keep: HashSet<NodeId> = up.into_iter().chain(down).collect();
    keep.insert(focus);
    let namespaces: Vec<NodeId> = keep
        .iter()
        .filter_map(|&n| t.node_object(n))
        .filter_map(|o| world.namespace_of(o))
        .filter_map(|ns| t.namespace_node(ns))
        .collect();
    keep.extend(namespaces);
    keep
}

/// Stable ids: the key, and `key@file` for an object defined in several files.
fn node_ids(world: &Linked, nodes: &[NodeId]) -> HashMap<NodeId, String> {
    let t = &world.topology;
    let keys: Vec<String> = nodes.iter().map(|&n| t.node_key(world, n).to_string()).collect();
    let duplicated = duplicated_keys(keys.iter().cloned());
    nodes
        .iter()
        .zip(keys)
        .map(|(&n, key)| {
            let id = match (duplicated.contains(&key), t.node_object(n)) {
                (true, Some(o)) if world.file_of(o).origin != crate::source::Origin::Cluster => {
                    format!("{key}@{}", world.file_of(o).path)
                }
                _ => key,
            };
            (n, id)
        })
        .collect()
}

fn duplicated_keys(keys: impl Iterator<Item = String>) -> HashSet<String> {
    let mut seen = HashSet::new();
    keys.filter(|k| !seen.insert(k.clone())).collect()
}

fn graph_node(world: &Linked, n: NodeId, id: String) -> GraphNode {
    let t = &world.topology;
    let key = t.node_key(world, n);
    let (node_type, at) = match t.node(n) {
        DagNode::Object(o) => (NodeType::Object, Some((o, declaration(world, Target::object(o)).1))),
        DagNode::Section(o, i) => {
            (NodeType::Section, Some((o, declaration(world, Target { obj: o, section: Some(i) }).1)))
        }
        DagNode::Namespace(ns) => {
            let obj = world.namespace_object(t.namespace_name(ns));
            (NodeType::Namespace, obj.map(|o| (o, world.object(o).name.span)))
        }
        DagNode::Virtual(_) => (NodeType::Virtual, None),
    };
    let (file, line) = at.and_then(|(o, span)| place(world, o, span)).unzip();
    GraphNode {
        id,
        key: key.to_string(),
        kind: key.gk.kind.to_string(),
        group: key.gk.group.to_string(),
        node_type,
        file,
        line,
    }
}

/// The file of object `o` and the 0-based line of `span` in it; `None` for an object only the
/// live cluster holds (it has no file to open).
fn place(world: &Linked, o: ObjId, span: Span) -> Option<(String, u32)> {
    let file = world.file_of(o);
    (file.origin != crate::source::Origin::Cluster)
        .then(|| (file.path.to_string(), file.position(span.start, PositionEncoding::Utf16).line))
}

#[cfg(test)]
mod tests;
