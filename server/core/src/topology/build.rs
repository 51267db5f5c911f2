//! Builds the DAG: nodes for objects and sections, then edges from each reference.

use std::collections::HashSet;
use std::sync::Arc;

use super::adjacency::Adjacency;
use super::{
    DagNode, NodeId, ParentResolution, Topology, attach, backends, extension_refs, generated, spec_refs, targets,
};
use crate::catalog::SpecRefNamespaces;
use crate::catalog::controllers::checks_reference_grants;
use crate::model::Body;
use crate::world::{ObjId, World};

pub(super) fn build(world: &World) -> Topology {
    let mut b = Builder { t: Topology::default(), edges: HashSet::new(), edge_list: Vec::new(), referrers: Vec::new() };
    // Object nodes are implicit; sections follow, then namespace and virtual nodes.
    b.t.object_count = world.object_count() as u32;
    b.t.section_starts = Vec::with_capacity(world.object_count());
    for id in world.ids() {
        b.t.section_starts.push(b.t.sections.len() as u32);
        b.add_sections(world, id);
    }
    b.t.sections.shrink_to_fit();
    for id in world.ids() {
        match &world.object(id).body {
            Body::Gateway(g) => {
                let class = g.class_name.as_ref().map(|c| c.value.as_str()).unwrap_or("");
                let gc = super::controllers::gateway_class_kind();
                let found = world.lookup_from(id, &gc, None, class);
                if let Some(c) = found {
                    let (p, c2) = (b.t.object_node(c), b.t.object_node(id));
                    b.edge(p, c2);
                    b.referrer(c, id);
                }
                if let Some(served) = super::controllers::resolve(world, g, found) {
                    b.t.controllers.push((id, served));
                }
            }
            Body::ListenerSet(ls) => {
                let res = attach::resolve_listener_set_parent(world, id, ls);
                match &res {
                    ParentResolution::Attached { parent, .. } => {
                        let (p, c) = (b.t.object_node(*parent), b.t.object_node(id));
                        b.edge(p, c);
                        b.referrer(*parent, id);
                    }
                    // Refused by the Gateway's allowedListeners: not attached, still a referrer.
                    ParentResolution::Refused { parent, .. } => b.referrer(*parent, id),
                    _ => {}
                }
                b.t.listener_set_parents.insert(id, res);
            }
            _ => {}
        }
    }
    let service = backends::route_default();
    for id in world.ids() {
        if let Body::Route(route) = &world.object(id).body {
            let parents: Vec<ParentResolution> =
                route.parent_refs.iter().map(|p| attach::resolve_parent(world, &b.t, id, route, p)).collect();
            // A route a controller generates from this object takes its place in the DAG.
            let route_node = match generated::generated_route(world, id) {
                Some(key) => {
                    let n = b.t.ensure_virtual_node(key);
                    b.t.generated.push((n, id));
                    n
                }
                None => b.t.object_node(id),
            };
            for p in &parents {
                if let ParentResolution::Attached { nodes, .. } = p {
                    for &n in nodes {
                        b.edge(n, route_node);
                    }
                }
                match p {
                    ParentResolution::Attached { parent, .. }
                    | ParentResolution::SectionNotFound { parent, .. }
                    | ParentResolution::PortNotFound { parent, .. }
                    | ParentResolution::Refused { parent, .. } => b.referrer(*parent, id),
                    ParentResolution::NotFound { .. } | ParentResolution::Unchecked => {}
                }
            }
            b.t.route_refs.begin_route(id);
            for p in parents {
                b.t.route_refs.push_parent(p);
            }

            let namespaces = if super::mesh::is_mesh_route(route) || grants_unchecked(&b.t, b.t.route_refs.parents(id))
            {
                SpecRefNamespaces::Any
            } else {
                SpecRefNamespaces::Granted
            };
            for (k, rule) in route.rules.iter().enumerate() {
                let from = b.t.rule_node(world, id, rule, k as u32).unwrap_or(route_node);
                let first = b.t.extension_refs.len();
                extension_refs::resolve(world, id, k as u32, &rule.extension_refs, from, &mut b.t.extension_refs);
                // The route refers to the policies its filters name (references, rename).
                for i in first..b.t.extension_refs.len() {
                    if let Some(policy) = b.t.extension_refs[i].policy {
                        b.referrer(policy, id);
                    }
                }
                b.t.route_refs.begin_rule();
                for br in &rule.backend_refs {
                    let r = backends::resolve_backend(world, id, br, &service, namespaces);
                    if let Some(target) = r.target() {
                        b.referrer(target, id);
                    }
                    if let super::BackendResolution::Delegated { children } = &r {
                        for &child in children.iter() {
                            b.edge(from, b.t.object_node(child));
                            b.referrer(child, id);
                            b.t.delegated.push(child);
                        }
                    }
                    if let super::BackendResolution::Found { target, .. } = &r {
                        let to = b.t.object_node(*target);
                        if from != to {
                            b.edge(from, to);
                            b.t.edge_ports.push((from, to, br.port.as_ref().map(|p| p.value)));
                        }
                    }
                    b.t.route_refs.push_backend(r);
                }
            }
        }
    }
    for id in world.ids() {
        if let Body::Other(o) = &world.object(id).body
            && !o.delegate_options.is_empty()
        {
            let (first, node) = (b.t.extension_refs.len(), b.t.object_node(id));
            extension_refs::resolve_delegate_options(world, id, &o.delegate_options, node, &mut b.t.extension_refs);
            for i in first..b.t.extension_refs.len() {
                if let Some(policy) = b.t.extension_refs[i].policy {
                    b.referrer(policy, id);
                }
            }
        }
    }
    b.t.route_refs.shrink_to_fit();
    b.t.generated.sort_unstable();
    b.t.delegated.sort_unstable();
    b.t.delegated.dedup();
    b.t.delegated.shrink_to_fit();
    b.t.extension_refs.shrink_to_fit();
    b.t.extension_by_policy = b.t.extension_refs.iter().filter_map(|e| Some((e.policy?, e.node))).collect::<Vec<_>>();
    b.t.extension_by_policy.sort_unstable();
    b.t.extension_by_policy.dedup();
    b.t.edge_ports.sort_unstable();
    b.t.edge_ports.dedup();
    b.t.edge_ports.shrink_to_fit();
    b.t.policies = super::PolicyResolutions::with_capacity(world.policies.len());
    for &pid in &world.policies {
        let res = targets::resolve_policy(world, &mut b.t, pid);
        for r in &res.refs {
            let target = match r {
                super::TargetResolution::Resolved(n) => match b.t.node(*n) {
                    DagNode::Namespace(ns) => world.namespace_object(b.t.namespace_name(ns)),
                    // A generated route: the policy refers to what it is generated from.
                    DagNode::Virtual(_) => b.t.generated_from(*n),
                    _ => b.t.node_object(*n),
                },
                super::TargetResolution::Problem(p) => match **p {
                    super::RefProblem::SectionNotFound { target, .. } => Some(target),
                    _ => None,
                },
                _ => None,
            };
            if let Some(o) = target {
                b.referrer(o, pid);
            }
        }
        let nodes: Vec<NodeId> = res.attached_nodes().collect();
        for n in nodes {
            let owner = b.t.node_object(n);
            let at = b.t.attached.entry(n).or_default();
            if at.contains(&pid) {
                continue;
            }
            // Two instances of one policy never compete: the one nearest to the target's
            // definition takes part, the other is shadowed.
            match at.iter().position(|&other| same_identity(world, other, pid)) {
                Some(i) => {
                    let other = at[i];
                    let keep = match owner {
                        Some(o) => nearer(world, o, other, pid),
                        None => other.min(pid),
                    };
                    let drop = if keep == pid { other } else { pid };
                    at[i] = keep;
                    b.t.shadowed.push((drop, keep));
                }
                None => at.push(pid),
            }
        }
        b.t.policies.push(pid, res);
        let spec_refs = spec_refs::resolve(world, pid);
        for r in &spec_refs {
            if let Some(target) = r.resolution.target() {
                b.referrer(target, pid);
            }
        }
        b.t.spec_refs.push(pid, spec_refs);
    }
    b.t.spec_refs.shrink_to_fit();
    b.t.shadowed.sort_unstable();
    b.t.shadowed.dedup_by_key(|(s, _)| *s);
    b.referrers.sort_unstable();
    b.referrers.dedup();
    (b.t.referrer_targets, b.t.referrers) = b.referrers.into_iter().unzip();
    b.t.others.shrink_to_fit();
    let nodes = b.t.node_count();
    b.t.children = Adjacency::new(nodes, &b.edge_list);
    let reversed: Vec<(NodeId, NodeId)> = b.edge_list.iter().map(|&(from, to)| (to, from)).collect();
    b.t.parents = Adjacency::new(nodes, &reversed);
    b.t
}

struct Builder {
    t: Topology,
    edges: HashSet<(NodeId, NodeId)>,
    /// `edges` in the order they were added (children and parents keep it).
    edge_list: Vec<(NodeId, NodeId)>,
    /// (target, referrer) pairs.
    referrers: Vec<(ObjId, ObjId)>,
}

impl Builder {
    fn edge(&mut self, from: NodeId, to: NodeId) {
        if from != to && self.edges.insert((from, to)) {
            self.edge_list.push((from, to));
        }
    }

    fn referrer(&mut self, target: ObjId, from: ObjId) {
        if self.referrers.last() != Some(&(target, from)) {
            self.referrers.push((target, from));
        }
    }

    fn add_sections(&mut self, world: &World, id: ObjId) {
        let names: Vec<(u32, Option<&str>)> = match &world.object(id).body {
            Body::Gateway(g) => {
                g.listeners.iter().enumerate().map(|(i, l)| (i as u32, Some(l.name.value.as_str()))).collect()
            }
            Body::ListenerSet(ls) => {
                ls.listeners.iter().enumerate().map(|(i, l)| (i as u32, Some(l.name.value.as_str()))).collect()
            }
            // Named rules; and an unnamed rule whose ExtensionRef filter names a policy: the
            // policy applies to that rule alone, so it gets a node of its own (never a
            // section a reference can name, GEP-995), where it meets no other rule's policy.
            Body::Route(r) => r
                .rules
                .iter()
                .enumerate()
                .filter_map(|(i, r)| match &r.name {
                    Some(n) => Some((i as u32, Some(n.value.as_str()))),
                    None if names_policy(world, &r.extension_refs) => Some((i as u32, None)),
                    None => None,
                })
                .collect(),
            Body::Service(s) => s
                .ports
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.name.as_ref().map(|n| (i as u32, Some(n.value.as_str()))))
                .collect(),
            _ => return,
        };
        let parent = self.t.object_node(id);
        for (i, name) in names {
            // Names are unique per object; a duplicate keeps the first (the API rejects it).
            if name.is_some_and(|name| self.t.section_node(world, id, name).is_some()) {
                continue;
            }
            let n = NodeId(self.t.object_count + self.t.sections.len() as u32);
            self.t.sections.push((id, i));
            self.edge(parent, n);
        }
    }
}

/// Whether one of a rule's ExtensionRef filters names a kind that attaches policies this way.
fn names_policy(world: &World, refs: &[crate::model::ExtensionRef]) -> bool {
    refs.iter().any(|r| {
        let (Some(group), Some(kind)) = (&r.group, &r.kind) else { return false };
        let gk = crate::model::GroupKind::new(crate::model::normalize_group(&group.value), &kind.value);
        world.catalog.get(&gk).is_some_and(|k| k.extension_ref)
    })
}

impl Topology {
    /// Adds a namespace or virtual node (after every section).
    pub(super) fn add_node(&mut self, node: DagNode) -> NodeId {
        let id = NodeId(self.node_count() as u32);
        self.others.push(node);
        id
    }

    pub(super) fn ensure_namespace_node(&mut self, ns: &str) -> NodeId {
        if let Some(n) = self.namespace_nodes.get(ns) {
            return *n;
        }
        let name: Arc<str> = ns.into();
        let n = self.add_node(DagNode::Namespace(self.namespace_names.len() as u32));
        self.namespace_names.push(name.clone());
        self.namespace_nodes.insert(name, n);
        n
    }

    pub(super) fn ensure_virtual_node(&mut self, key: crate::model::ObjectKey) -> NodeId {
        if let Some(n) = self.virtual_nodes.get(&key) {
            return *n;
        }
        let n = self.add_node(DagNode::Virtual(self.virtual_keys.len() as u32));
        self.virtual_keys.push(key.clone());
        self.virtual_nodes.insert(key, n);
        n
    }
}

fn same_identity(world: &World, a: ObjId, b: ObjId) -> bool {
    let (x, y) = (world.object(a), world.object(b));
    x.name.value == y.name.value
        && x.kind() == y.kind()
        && x.group() == y.group()
        && world.namespace_of(a) == world.namespace_of(b)
        && !x.templated
}

/// Of two instances, the one whose definition is nearest to `target`'s.
fn nearer(world: &World, target: ObjId, a: ObjId, b: ObjId) -> ObjId {
    let ka = world.nearness_to(target, a);
    let kb = world.nearness_to(target, b);
    if kb > ka || (kb == ka && b < a) { b } else { a }
}

/// Whether every Gateway a route attaches to (at least one) is served by an implementation that
/// follows backendRefs into other namespaces without a ReferenceGrant
/// (`catalog::controllers::IGNORE_REFERENCE_GRANTS`).
fn grants_unchecked(t: &Topology, parents: &[ParentResolution]) -> bool {
    let mut gateways = parents.iter().filter_map(|p| match p {
        ParentResolution::Attached { parent, .. } => Some(*parent),
        _ => None,
    });
    let unchecked = |gw: ObjId| t.controller_of(gw).is_some_and(|s| !checks_reference_grants(&s.controller_name));
    gateways.next().is_some_and(|first| unchecked(first) && gateways.all(unchecked))
}
