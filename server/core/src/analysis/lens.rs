//! Code lenses: "N policies affect this" on targets, counted from the topology (the hierarchy
//! editors see in hover and `policylens graph`), on a Service the policies governing traffic to
//! it as `explain --target Service/…` shows them; on policies, what `policylens status` says:
//! "affects 2 rules, 1 Service" counts the effective targets where something of the policy is
//! in effect, or why it affects nothing.

use std::collections::BTreeSet;

use super::refs::{objects_in, section_decl, section_indices};
use super::summary::{plural, section_noun, untargeted_scope};
use super::{CodeLens, Location};
use crate::catalog::PolicyClass;
use crate::effective::Enforcement;
use crate::model::Body;
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId};
use crate::workspace::Snapshot;
use crate::world::ObjId;

pub fn code_lenses(snap: &Snapshot, file: &str) -> Vec<CodeLens> {
    let world = snap.world();
    let mut out = Vec::new();
    for id in objects_in(world, file) {
        let at = Span::new(world.object(id).span.start, world.object(id).span.start);
        if world.policy_kind(id).is_some() {
            out.push(policy_lens(snap, id, at));
        } else if is_target(world, id) {
            let policies = match world.object(id).body {
                Body::Service(_) => governing(snap, id),
                _ => reaching(world, id),
            };
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

/// The policies that govern traffic to a Service, as `explain --target Service/…` shows them:
/// those in effect at it and its ports, and those in effect where the routes that send it
/// traffic name it (every definition of each).
fn governing(snap: &Snapshot, id: ObjId) -> Vec<ObjId> {
    let world = snap.world();
    let node = world.topology.object_node(id);
    let ex = crate::effective::explain(world, snap.effective(), node, crate::topology::PathLimit::default());
    let kinds = ex.policies.iter().chain(ex.ports.iter().flat_map(|p| &p.policies));
    let kinds = kinds.chain(ex.traffic.iter().flat_map(|t| &t.policies));
    let named: BTreeSet<&str> = kinds.flat_map(|k| &k.contexts).flat_map(|c| &c.policies).map(String::as_str).collect();
    world.policies.iter().copied().filter(|&p| named.contains(world.key(p).to_string().as_str())).collect()
}

/// Policies attached to the object or one of its sections, plus Inherited policies attached
/// above it (its ancestors, and the Namespaces they live in). A Direct policy affects only
/// what it targets, so one attached above does not count.
fn reaching(world: &Linked, id: ObjId) -> Vec<ObjId> {
    let t = &world.topology;
    // The route a controller generates from the object, when it does (it has no file).
    let node = super::refs::Target::object(id).node(world).unwrap_or(t.object_node(id));
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
    let mut namespaces: BTreeSet<String> = world.namespace_of(id).map(str::to_owned).into_iter().collect();
    for n in above.iter().copied() {
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

/// The policy's status as a lens: the effective targets it affects, by kind, and where they
/// are; or why none.
fn policy_lens(snap: &Snapshot, pid: ObjId, at: Span) -> CodeLens {
    let world = snap.world();
    let t = &world.topology;
    let Some(st) = snap.effective().status(pid) else {
        return CodeLens { span: at, title: "status unknown".into(), locations: Vec::new() };
    };
    if !st.accepted {
        return CodeLens { span: at, title: format!("not accepted: {:?}", st.reason), locations: Vec::new() };
    }
    if st.affects.is_empty() {
        let title = match (untargeted_scope(world, pid), st.enforcement) {
            _ if matches!(snap.effective().ignored(pid), Some(crate::effective::Ignored::IstioOptOut)) => {
                "ignored by Istio (istio.io/ignore-policy-attachment)".to_owned()
            }
            _ if snap.effective().ignored(pid).is_some() => {
                "does nothing: its Gateways' controller does not implement it".to_owned()
            }
            (Some(_), _) if world.policy_kind(pid).is_some_and(|k| k.untargeted.is_some()) => {
                "attached without a targetRef".to_owned()
            }
            (Some(_), _) => "applies without a target (selector or namespace-wide)".to_owned(),
            (None, Some(Enforcement::Overridden)) => "affects nothing: overridden everywhere".to_owned(),
            (None, _) => "affects nothing".to_owned(),
        };
        return CodeLens { span: at, title, locations: Vec::new() };
    }
    // A Gateway-, GatewayClass- or Namespace-wide policy spreads over routes in many
    // namespaces: counted as people count them (rules as their route), each route listed once.
    let broad = broad(world, pid);
    let mut locations: Vec<Location> = Vec::new();
    for &n in &st.affects {
        let Some(loc) = location(world, n, broad) else { continue };
        if !locations.contains(&loc) {
            locations.push(loc);
        }
    }
    let mut title = if broad {
        let keys: Vec<crate::model::ObjectKey> = st.affects.iter().map(|&n| t.node_key(world, n)).collect();
        format!("affects {}", super::reach::Reach::of(&keys))
    } else {
        // Counted per noun, in the order first met: `2 rules, 1 Service`.
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for &n in &st.affects {
            let noun = match t.node(n) {
                DagNode::Section(o, _) => section_noun(world, o),
                DagNode::Object(o) => match &world.object(o).body {
                    Body::Route(_) => "route",
                    _ => world.object(o).kind(),
                },
                DagNode::Namespace(_) => "namespace",
                // A route a controller generates (Envoy AI Gateway's HTTPRoute).
                DagNode::Virtual(_) if t.generated_from(n).is_some() => "route",
                DagNode::Virtual(_) => "virtual target",
            };
            match counts.iter_mut().find(|(k, _)| *k == noun) {
                Some((_, c)) => *c += 1,
                None => counts.push((noun, 1)),
            }
        }
        let parts: Vec<String> = counts.iter().map(|&(noun, c)| plural(c, noun)).collect();
        format!("affects {}", parts.join(", "))
    };
    if st.enforcement == Some(Enforcement::PartiallyEnforced) {
        title.push_str(" · partly superseded");
    }
    CodeLens { span: at, title, locations }
}

/// Where the peek shows effective target `n`: a section's name (a rule's route's, when
/// `rules_as_routes`), else its object's (a generated route's source's).
fn location(world: &Linked, n: NodeId, rules_as_routes: bool) -> Option<Location> {
    let t = &world.topology;
    Some(match t.node(n) {
        DagNode::Section(o, i) if !(rules_as_routes && matches!(world.object(o).body, Body::Route(_))) => {
            section_decl(world, o, i)
                .map(|(_, name, _)| Location { file: world.file_of(o).path.clone(), span: name })
                .unwrap_or_else(|| name_location(world, o))
        }
        _ => name_location(world, t.node_object(n).or_else(|| t.generated_from(n))?),
    })
}

/// A policy attached to a Gateway (or a listener of one), a ListenerSet, a GatewayClass or a
/// Namespace: what it reaches spreads over routes in many namespaces.
fn broad(world: &Linked, pid: ObjId) -> bool {
    let t = &world.topology;
    t.policies.get(&pid).is_some_and(|r| {
        r.attached_nodes().any(|n| match t.node(n) {
            DagNode::Namespace(_) => true,
            DagNode::Object(o) | DagNode::Section(o, _) => {
                matches!(world.object(o).body, Body::Gateway(_) | Body::GatewayClass(_) | Body::ListenerSet(_))
            }
            DagNode::Virtual(_) => false,
        })
    })
}
