//! The hierarchy DAG (docs/semantics.md §4.3) and every resolved reference: route parentRefs and
//! backendRefs, policy targetRefs and targetSelectors.
//!
//! Nodes are objects, their sections (listeners, named rules, named ports), Namespaces and
//! virtual targets. Edges run from less to more specific: GatewayClass → Gateway → listener →
//! route → rule → backend → port. Resolution results are kept per reference so that
//! diagnostics, status and editor features read one answer.

mod adjacency;
mod attach;
pub(crate) use attach::would_admit;
mod backends;
mod build;
pub mod controllers;
mod delegation;
mod extension_refs;
mod generated;
mod hostnames;
mod mesh;
mod paths;
mod route_refs;
mod spec_refs;
mod targets;
mod typed_target;
mod validate;

pub use controllers::{Served, Via};
pub use extension_refs::{ExtensionAttachment, VIRTUAL_HOST};
pub use paths::PathLimit;
pub use spec_refs::SpecBackend;
pub use targets::{PolicyResolution, RefProblem, TargetResolution};
pub use typed_target::TargetError;
pub use validate::RefViolation;

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::{GroupKind, ObjectKey};
use crate::world::{ObjId, Unknown, World};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A DAG node (names and keys of the rare kinds live in the topology, by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DagNode {
    Object(ObjId),
    /// A listener (Gateway, ListenerSet), a named rule (route) or a named port (Service); the
    /// index is into the object's listeners, rules or ports.
    Section(ObjId, u32),
    /// All objects of a namespace (a policy targeting a Namespace attaches here); the name is
    /// [`Topology::namespace_name`].
    Namespace(u32),
    /// A target of a kind the workspace cannot check (GEP-713 virtual types); its key is
    /// [`Topology::virtual_key`].
    Virtual(u32),
}

/// How a route's parentRef resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum ParentResolution {
    /// Attached to these listener nodes (or, for a mesh parent, the Service node).
    Attached { parent: ObjId, nodes: Vec<NodeId> },
    /// No such Gateway/ListenerSet/Service; `unknown` when the world is not closed for it
    /// (docs/semantics.md §6.1: a harness or a generator may supply it).
    NotFound { suggestion: Option<String>, unknown: Option<Unknown> },
    /// The parent exists but has no listener (Service port) named `sectionName`; `available`
    /// lists the names it has.
    SectionNotFound { parent: ObjId, available: Vec<String> },
    /// A parent Service has no port `port` (among the ports named `sectionName`, when set);
    /// `available` lists those ports' numbers.
    PortNotFound { parent: ObjId, available: Vec<i64> },
    /// Every candidate listener refused the route; one reason per listener.
    Refused { parent: ObjId, reasons: Vec<String> },
    /// Templated or of a kind policylens does not model.
    Unchecked,
}

/// How a rule's backendRef resolved. 16 bytes (there is one per backendRef): the rare
/// variants' lists and names are behind thin boxes.
#[derive(Clone, Debug, PartialEq)]
pub enum BackendResolution {
    /// The backend and, when the ref names a port that a Service declares, its index.
    Found {
        target: ObjId,
        port: Option<u32>,
    },
    PortNotFound {
        target: ObjId,
        available: Box<Vec<i64>>,
    },
    NotFound(Box<Missing>),
    /// Cross-namespace with no ReferenceGrant admitting it.
    NotPermitted {
        target: Option<ObjId>,
    },
    /// Not a Service, templated, or otherwise not checkable.
    Unchecked,
    /// Route delegation (kgateway, Gloo Gateway): the child HTTPRoutes the ref hands its
    /// requests to, in id order (none: a wildcard or label that selects nothing yet).
    Delegated {
        children: Box<Vec<ObjId>>,
    },
}

const _: () = assert!(std::mem::size_of::<BackendResolution>() == 16);

/// A backend that no instance the reference could mean defines.
#[derive(Clone, Debug, PartialEq)]
pub struct Missing {
    /// A near name (did-you-mean).
    pub suggestion: Option<String>,
    /// Why the world is not closed for it, when it is not (docs/semantics.md §6.1).
    pub unknown: Option<Unknown>,
}

impl BackendResolution {
    /// The reference names nothing it may use: no such backend, no such port, or no
    /// ReferenceGrant admits it. A backend something else may supply (its certainty is
    /// unknown) is not broken: what it does is unknown.
    pub fn is_broken(&self) -> bool {
        match self {
            BackendResolution::NotFound(m) => m.unknown.is_none(),
            BackendResolution::PortNotFound { .. } | BackendResolution::NotPermitted { .. } => true,
            _ => false,
        }
    }

    /// Why the backend's effect is unknown, when it names something the files do not hold
    /// and something else may supply.
    pub fn unknown(&self) -> Option<&Unknown> {
        match self {
            BackendResolution::NotFound(m) => m.unknown.as_ref(),
            _ => None,
        }
    }

    /// The object the reference names, when it exists (whether or not it may name it).
    pub fn target(&self) -> Option<ObjId> {
        match self {
            BackendResolution::Found { target, .. }
            | BackendResolution::PortNotFound { target, .. }
            | BackendResolution::NotPermitted { target: Some(target) } => Some(*target),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Topology {
    /// Nodes come in three runs: the objects (node `i` is object `i`), their sections, then
    /// namespace and virtual nodes (`others`). Only the last are stored: a node array of 12
    /// bytes per object and section cost more than the rest of the DAG's nodes.
    object_count: u32,
    parents: adjacency::Adjacency,
    children: adjacency::Adjacency,
    /// Per object (by `ObjId`): where its run of `sections` starts; it ends where the next
    /// object's starts (a handful per object: a scan beats a map keyed by owned names).
    section_starts: Vec<u32>,
    /// Each section node's object and index in its listeners, rules or ports: section `k` is
    /// node `object_count + k`. Names are read from the object.
    sections: Vec<(ObjId, u32)>,
    /// Namespace and virtual nodes, in node order after the sections.
    others: Vec<DagNode>,
    namespace_nodes: HashMap<Arc<str>, NodeId>,
    /// The names of `DagNode::Namespace`s, by index.
    namespace_names: Vec<Arc<str>>,
    virtual_nodes: HashMap<ObjectKey, NodeId>,
    /// The keys of `DagNode::Virtual`s, by index.
    virtual_keys: Vec<ObjectKey>,
    /// For an edge into a Service node, the Service ports the referring rule/route uses
    /// (`None`: the ref named no port), sorted. Paths to a port section only pass through
    /// parents that use that port.
    edge_ports: Vec<(NodeId, NodeId, Option<i64>)>,
    /// Per route: per parentRef, and per rule per backendRef.
    route_refs: route_refs::RouteRefs,
    /// Every route rule's ExtensionRef filter that names a policy kind, by route and rule.
    extension_refs: Vec<ExtensionAttachment>,
    /// (policy, node) of each ExtensionRef attachment that found its policy, sorted.
    extension_by_policy: Vec<(ObjId, NodeId)>,
    /// Routes that some route delegates to (kgateway, Gloo Gateway), sorted.
    delegated: Vec<ObjId>,
    /// Per policy: the references inside its spec (docs/semantics.md §4.8).
    spec_refs: spec_refs::SpecRefs,
    /// Per ListenerSet: its parent Gateway, when found.
    pub listener_set_parents: HashMap<ObjId, ParentResolution>,
    /// Per policy.
    pub policies: PolicyResolutions,
    /// Policies attached to each node.
    attached: HashMap<NodeId, Vec<ObjId>>,
    /// Policy instances left out where another instance of the same identity attached to the
    /// same node: (shadowed, the instance used), sorted.
    pub shadowed: Vec<(ObjId, ObjId)>,
    /// For each object, the objects whose references resolve to it (or to one of its
    /// sections): routes, ListenerSets, Gateways (by class) and policies. Find-references
    /// and rename look only at these instead of every object of the workspace.
    /// `(target, referrer)` pairs sorted, split in two so a target's run is one slice.
    referrer_targets: Vec<ObjId>,
    referrers: Vec<ObjId>,
    /// Each Gateway's controller, when known (docs/semantics.md §4.4.1), by Gateway id.
    controllers: Vec<(ObjId, Served)>,
    /// Routes a controller generates (virtual nodes) and the object each is generated from,
    /// sorted (`generated.rs`).
    generated: Vec<(NodeId, ObjId)>,
}

/// Each policy's resolution, by policy id: two arrays in id order (a map's slack and
/// buckets cost more than the 100-byte resolutions).
#[derive(Debug, Default)]
pub struct PolicyResolutions {
    ids: Vec<ObjId>,
    items: Vec<PolicyResolution>,
}

impl PolicyResolutions {
    pub fn get(&self, policy: &ObjId) -> Option<&PolicyResolution> {
        self.ids.binary_search(policy).ok().map(|i| &self.items[i])
    }

    pub(super) fn with_capacity(n: usize) -> PolicyResolutions {
        PolicyResolutions { ids: Vec::with_capacity(n), items: Vec::with_capacity(n) }
    }

    /// Adds the next policy's; policies come in increasing id order.
    pub(super) fn push(&mut self, policy: ObjId, res: PolicyResolution) {
        debug_assert!(self.ids.last().is_none_or(|&last| last < policy));
        self.ids.push(policy);
        self.items.push(res);
    }
}

/// A world and the topology built on it: what effective policies and analysis read. Reads as
/// its world through `Deref`.
#[derive(Debug)]
pub struct Linked {
    /// Shared with partial worlds cut from this one (they ask it workspace-wide questions).
    pub world: Arc<World>,
    pub topology: Topology,
}

impl Linked {
    pub fn build(world: World) -> Linked {
        let topology = Topology::build(&world);
        Linked { world: Arc::new(world), topology }
    }
}

impl Linked {
    /// The world alone, with an empty topology: what a base snapshot keeps (see
    /// `Snapshot::as_base`).
    pub fn without_topology(&self) -> Linked {
        Linked { world: Arc::new(self.world.detached()), topology: Topology::default() }
    }
}

impl std::ops::Deref for Linked {
    type Target = World;

    fn deref(&self) -> &World {
        &self.world
    }
}

impl Topology {
    pub fn build(world: &World) -> Topology {
        build::build(world)
    }

    pub fn node(&self, id: NodeId) -> DagNode {
        let i = id.0 as usize;
        let objects = self.object_count as usize;
        if i < objects {
            return DagNode::Object(ObjId(id.0));
        }
        match self.sections.get(i - objects) {
            Some(&(o, k)) => DagNode::Section(o, k),
            None => self.others[i - objects - self.sections.len()],
        }
    }

    /// The controller serving Gateway `gw`, when its class is known.
    pub fn controller_of(&self, gw: ObjId) -> Option<&Served> {
        self.controllers.binary_search_by_key(&gw, |(g, _)| *g).ok().map(|i| &self.controllers[i].1)
    }

    pub fn node_count(&self) -> usize {
        self.object_count as usize + self.sections.len() + self.others.len()
    }

    pub fn parents(&self, id: NodeId) -> &[NodeId] {
        self.parents.get(id)
    }

    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.children.get(id)
    }

    pub fn object_node(&self, id: ObjId) -> NodeId {
        // Objects are the first nodes, in id order.
        NodeId(id.0)
    }

    pub fn section_node(&self, world: &World, id: ObjId, section: &str) -> Option<NodeId> {
        let start = *self.section_starts.get(id.0 as usize)? as usize;
        let end = self.section_starts.get(id.0 as usize + 1).map_or(self.sections.len(), |&e| e as usize);
        let rows = self.sections.get(start..end)?;
        let k = rows.iter().position(|&(o, i)| section_name(world, o, i) == Some(section))?;
        Some(NodeId(self.object_count + (start + k) as u32))
    }

    /// The node of rule `index` of `route` (`rule`): its section, by name; for an unnamed rule,
    /// the node it has when its ExtensionRef filter names a policy. `None`: the rule is the
    /// route's (its backends hang off the route).
    pub fn rule_node(&self, world: &World, route: ObjId, rule: &crate::model::Rule, index: u32) -> Option<NodeId> {
        if let Some(n) = &rule.name {
            return self.section_node(world, route, &n.value);
        }
        let start = *self.section_starts.get(route.0 as usize)? as usize;
        let end = self.section_starts.get(route.0 as usize + 1).map_or(self.sections.len(), |&e| e as usize);
        let k = self.sections.get(start..end)?.iter().position(|&(o, i)| o == route && i == index)?;
        Some(NodeId(self.object_count + (start + k) as u32))
    }

    /// The node of a section as [`Topology::node_key`] shows it: by name, or an unnamed rule
    /// with a node of its own by its place (`rules[1]`).
    pub fn shown_section_node(&self, world: &World, id: ObjId, shown: &str) -> Option<NodeId> {
        self.section_node(world, id, shown).or_else(|| self.unnamed_rule_node(world, id, shown))
    }

    fn unnamed_rule_node(&self, world: &World, route: ObjId, shown: &str) -> Option<NodeId> {
        let index: u32 = shown.strip_prefix("rules[")?.strip_suffix(']')?.parse().ok()?;
        let crate::model::Body::Route(r) = &world.object(route).body else { return None };
        let rule = r.rules.get(index as usize).filter(|rule| rule.name.is_none())?;
        self.rule_node(world, route, rule, index)
    }

    /// The name of the namespace of a `DagNode::Namespace`.
    pub fn namespace_name(&self, index: u32) -> &Arc<str> {
        &self.namespace_names[index as usize]
    }

    /// The key of a `DagNode::Virtual`.
    pub fn virtual_key(&self, index: u32) -> &ObjectKey {
        &self.virtual_keys[index as usize]
    }

    pub fn namespace_node(&self, ns: &str) -> Option<NodeId> {
        self.namespace_nodes.get(ns).copied()
    }

    /// The object a node belongs to (the object itself for a section).
    pub fn node_object(&self, id: NodeId) -> Option<ObjId> {
        match self.node(id) {
            DagNode::Object(o) | DagNode::Section(o, _) => Some(o),
            _ => None,
        }
    }

    /// Policies whose targetRefs or targetSelectors resolve to `node`.
    pub fn policies_at(&self, node: NodeId) -> &[ObjId] {
        self.attached.get(&node).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The instance of the same identity used instead of policy `pid` where both reached one
    /// node (the nearest to the node's definition).
    pub fn shadowed_by(&self, pid: ObjId) -> Option<ObjId> {
        let i = self.shadowed.partition_point(|&(s, _)| s < pid);
        self.shadowed.get(i).filter(|&&(s, _)| s == pid).map(|&(_, by)| by)
    }

    /// Objects with a reference that resolves to `obj` or one of its sections, in id order.
    pub fn referrers(&self, obj: ObjId) -> &[ObjId] {
        let start = self.referrer_targets.partition_point(|&t| t < obj);
        let end = start + self.referrer_targets[start..].partition_point(|&t| t == obj);
        &self.referrers[start..end]
    }

    /// Every (target, referrer) pair, sorted by target.
    pub fn referrer_pairs(&self) -> impl Iterator<Item = (ObjId, ObjId)> + '_ {
        self.referrer_targets.iter().copied().zip(self.referrers.iter().copied())
    }

    /// The object a controller generates node `n` from (an Envoy AI Gateway AIGatewayRoute for
    /// its HTTPRoute), when `n` is such a generated route.
    pub fn generated_from(&self, n: NodeId) -> Option<ObjId> {
        let i = self.generated.partition_point(|&(g, _)| g < n);
        self.generated.get(i).filter(|&&(g, _)| g == n).map(|&(_, o)| o)
    }

    /// The generated route of key `key` (no section), if any.
    pub(crate) fn generated_node(&self, key: &ObjectKey) -> Option<NodeId> {
        self.virtual_nodes.get(key).copied().filter(|&n| self.generated_from(n).is_some())
    }

    /// The route node generated from object `by`, if any.
    pub fn generated_by(&self, by: ObjId) -> Option<NodeId> {
        self.generated.iter().find(|&&(_, o)| o == by).map(|&(n, _)| n)
    }

    /// Whether some route delegates to `route` (it then needs no parentRefs of its own).
    pub fn is_delegated(&self, route: ObjId) -> bool {
        self.delegated.binary_search(&route).is_ok()
    }

    /// Routes, in id order.
    pub fn routes(&self) -> impl Iterator<Item = ObjId> + '_ {
        self.route_refs.routes()
    }

    /// How each of a route's parentRefs resolved.
    pub fn parent_refs(&self, route: ObjId) -> &[ParentResolution] {
        self.route_refs.parents(route)
    }

    /// Per rule of a route, how each of its backendRefs resolved.
    pub fn backend_refs(&self, route: ObjId) -> impl Iterator<Item = &[BackendResolution]> + '_ {
        self.route_refs.rules(route)
    }

    /// The references inside a policy's spec proper, resolved (docs/semantics.md §4.8).
    pub fn spec_refs(&self, policy: ObjId) -> &[SpecBackend] {
        self.spec_refs.of(policy)
    }

    /// The ports the backendRefs behind edge `from → to` name (`None`: no port named).
    pub(crate) fn edge_ports(&self, from: NodeId, to: NodeId) -> impl Iterator<Item = Option<i64>> + '_ {
        let start = self.edge_ports.partition_point(|&(f, t, _)| (f, t) < (from, to));
        self.edge_ports[start..].iter().take_while(move |&&(f, t, _)| (f, t) == (from, to)).map(|&(_, _, p)| p)
    }

    /// Every node that has at least one policy attached.
    pub fn attached_nodes(&self) -> impl Iterator<Item = (NodeId, &[ObjId])> {
        self.attached.iter().map(|(n, p)| (*n, p.as_slice()))
    }

    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.node_count() as u32).map(NodeId).filter(|&n| self.parents(n).is_empty())
    }

    /// The §2.1 reference of a node: `Gateway/infra/edge#https`, `Namespace/apps`.
    pub fn node_key(&self, world: &World, id: NodeId) -> ObjectKey {
        match self.node(id) {
            DagNode::Object(o) => world.key(o),
            DagNode::Section(o, i) => match section_name(world, o, i) {
                Some(name) => world.key(o).with_section(Some(name)),
                // An unnamed rule with a node of its own: shown by its place, which no rule
                // name can be.
                None => world.key(o).with_section(Some(&format!("rules[{i}]"))),
            },
            DagNode::Namespace(ns) => ObjectKey::new(GroupKind::new("", "Namespace"), None, self.namespace_name(ns)),
            DagNode::Virtual(k) => self.virtual_key(k).clone(),
        }
    }

    /// The node of a §2.1 reference, if it exists.
    pub fn find(&self, world: &World, key: &ObjectKey) -> Option<NodeId> {
        if key.gk.is("", "Namespace")
            && key.section.is_none()
            && let Some(n) = self.namespace_node(&key.name)
        {
            return Some(n);
        }
        if let Some(o) = world.lookup(&key.gk, key.namespace.as_deref(), &key.name) {
            return match &key.section {
                Some(s) => self.shown_section_node(world, o, s),
                None => Some(self.object_node(o)),
            };
        }
        self.virtual_nodes.get(key).copied()
    }
}

/// The name of section `index` of an object (listener, rule or port).
pub fn section_name(world: &World, id: ObjId, index: u32) -> Option<&str> {
    use crate::model::Body;
    let i = index as usize;
    match &world.object(id).body {
        Body::Gateway(g) => g.listeners.get(i).map(|l| l.name.value.as_str()),
        Body::ListenerSet(ls) => ls.listeners.get(i).map(|l| l.name.value.as_str()),
        Body::Route(r) => r.rules.get(i).and_then(|r| r.name.as_ref()).map(|n| n.value.as_str()),
        Body::Service(s) => s.ports.get(i).and_then(|p| p.name.as_ref()).map(|n| n.value.as_str()),
        _ => None,
    }
}

/// The names of every section of an object, in order.
pub fn section_names(world: &World, id: ObjId) -> Vec<String> {
    use crate::model::Body;
    match &world.object(id).body {
        Body::Gateway(g) => g.listeners.iter().map(|l| l.name.value.to_string()).collect(),
        Body::ListenerSet(ls) => ls.listeners.iter().map(|l| l.name.value.to_string()).collect(),
        Body::Route(r) => r.rules.iter().filter_map(|r| r.name.as_ref()).map(|n| n.value.to_string()).collect(),
        Body::Service(s) => s.ports.iter().filter_map(|p| p.name.as_ref()).map(|n| n.value.to_string()).collect(),
        _ => Vec::new(),
    }
}
