//! Code lenses: "N policies affect this" on targets, "affects N routes / M backends" on
//! policies. Both count from the topology, so they agree with the hierarchy editors see in
//! hover and `policylens graph`.

use std::collections::BTreeSet;

use super::refs::{objects_in, section_indices};
use super::summary::plural;
use super::{CodeLens, Location};
use crate::catalog::PolicyClass;
use crate::model::Body;
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::{Node, NodeId};
use crate::workspace::Snapshot;
use crate::world::ObjId;

pub fn code_lenses(snap: &Snapshot, file: &str) -> Vec<CodeLens> {
    let world = snap.world();
    let mut out = Vec::new();
    for id in objects_in(world, file) {
        let at = Span::new(world.object(id).span.start, world.object(id).span.start);
        if world.policy_kind(id).is_some() {
            let (routes, backends) = affected(world, id);
            let title = format!("affects {} / {}", plural(routes.len(), "route"), plural(backends.len(), "backend"));
            let locations = routes.iter().chain(&backends).map(|&o| name_location(world, o)).collect();
            out.push(CodeLens { span: at, title, locations });
        } else if is_target(world, id) {
            let policies = reaching(world, id);
            let title = match policies.len() {
                0 => "no policies affect this".to_owned(),
                1 => "1 policy affects this".to_owned(),
                n => format!("{n} policies affect this"),
            };
            let locations = policies.iter().map(|&p| name_location(world, p)).collect();
            out.push(CodeLens { span: at, title, locations });
        }
    }
    out
}

fn name_location(world: &Linked, id: ObjId) -> Location {
    Location { file: world.file_of(id).path.clone(), span: world.object(id).name.span }
}

/// Objects of the kinds policies target, and anything some policy targets.
fn is_target(world: &Linked, id: ObjId) -> bool {
    match world.object(id).body {
        Body::GatewayClass(_) | Body::Gateway(_) | Body::ListenerSet(_) | Body::Route(_) | Body::Service(_) => true,
        Body::Namespace => true,
        _ => {
            let t = &world.topology;
            !t.policies_at(t.object_node(id)).is_empty()
        }
    }
}

/// Policies attached to the object or one of its sections, plus Inherited policies attached
/// above it (its ancestors, and the Namespaces they live in). A Direct policy affects only
/// what it targets, so one attached above does not count.
fn reaching(world: &Linked, id: ObjId) -> Vec<ObjId> {
    let t = &world.topology;
    let node = t.object_node(id);
    let mut own: Vec<NodeId> = vec![node];
    own.extend(
        section_indices(world, id)
            .into_iter()
            .filter_map(|i| super::refs::Target { obj: id, section: Some(i) }.node(world)),
    );
    if matches!(world.object(id).body, Body::Namespace) {
        own.extend(t.namespace_node(&world.object(id).name.value));
    }
    // Ancestors, breadth first.
    let mut above: Vec<NodeId> = Vec::new();
    let mut queue = vec![node];
    while let Some(n) = queue.pop() {
        for &p in t.parents(n) {
            if p != node && !above.contains(&p) {
                above.push(p);
                queue.push(p);
            }
        }
    }
    // The Namespace levels of the object and of every object above it.
    let mut namespaces = BTreeSet::new();
    for n in std::iter::once(node).chain(above.iter().copied()) {
        if let Some(ns) = t.node_object(n).and_then(|o| world.namespace_of(o)) {
            namespaces.insert(ns.to_owned());
        }
    }
    above.extend(namespaces.iter().filter_map(|ns| t.namespace_node(ns)).filter(|n| !own.contains(n)));

    let mut out: BTreeSet<ObjId> = own.iter().flat_map(|&n| t.policies_at(n).iter().copied()).collect();
    for n in above {
        for &p in t.policies_at(n) {
            if world.policy_kind(p).is_some_and(|k| k.class == PolicyClass::Inherited) {
                out.insert(p);
            }
        }
    }
    out.into_iter().collect()
}

/// The routes and backends at or below a policy's targets (a Namespace target: every object in
/// the namespace, and what is below them).
fn affected(world: &Linked, pid: ObjId) -> (Vec<ObjId>, Vec<ObjId>) {
    let t = &world.topology;
    let Some(res) = t.policies.get(&pid) else { return (Vec::new(), Vec::new()) };
    let mut start: Vec<NodeId> = Vec::new();
    for n in res.attached_nodes() {
        match t.node(n) {
            Node::Namespace(ns) => {
                let ns = t.namespace_name(ns);
                start.extend(world.ids().filter(|&o| world.namespace_of(o) == Some(&**ns)).map(|o| t.object_node(o)));
            }
            _ => start.push(n),
        }
    }
    let mut objects: BTreeSet<ObjId> = BTreeSet::new();
    for &n in &start {
        objects.extend(t.node_object(n));
        objects.extend(t.descendants(n).into_iter().filter_map(|d| t.node_object(d)));
    }
    let is_route = |o: ObjId| matches!(world.object(o).body, Body::Route(_));
    let mut routes = Vec::new();
    let mut backends = Vec::new();
    for o in objects {
        if is_route(o) {
            routes.push(o);
        } else if matches!(world.object(o).body, Body::Service(_))
            || t.parents(t.object_node(o)).iter().any(|&p| t.node_object(p).is_some_and(is_route))
        {
            backends.push(o);
        }
    }
    (routes, backends)
}
