//! What an effective target of a kind is: a whole object or its sections, the level of a node
//! in the hierarchy, and which routes reach a Service port.

use crate::catalog::PolicyKind;
use crate::model::Body;
use crate::topology::Linked;
use crate::topology::{BackendResolution, DagNode, NodeId, Topology};
use crate::world::ObjId;

/// Whether an object's node is itself an effective target when its kind is one: routes with
/// an unnamed rule, Services with an unnamed port, objects without sections. Named sections
/// are the effective targets otherwise.
pub(super) fn whole_object_counts(world: &Linked, o: ObjId) -> bool {
    let t = &world.topology;
    match &world.object(o).body {
        Body::Gateway(g) => g.listeners.is_empty(),
        Body::ListenerSet(ls) => ls.listeners.is_empty(),
        // An unnamed rule with a node of its own (a policy its filter names) is that node.
        Body::Route(r) => {
            r.rules.is_empty()
                || r.rules
                    .iter()
                    .enumerate()
                    .any(|(k, rule)| rule.name.is_none() && t.rule_node(world, o, rule, k as u32).is_none())
        }
        Body::Service(s) => s.ports.is_empty() || s.ports.iter().any(|p| p.name.is_none()),
        _ => true,
    }
}

/// The section nodes of an object, in order.
pub fn sections_of(t: &Topology, o: ObjId) -> Vec<NodeId> {
    t.children(t.object_node(o))
        .iter()
        .copied()
        .filter(|&c| matches!(t.node(c), DagNode::Section(x, _) if x == o))
        .collect()
}

/// Whether `n` is an effective target of an Inherited kind.
pub fn is_effective(world: &Linked, kind: &PolicyKind, n: NodeId) -> bool {
    let t = &world.topology;
    if kind.effective_targets.is_empty() && kind.effective_target.is_none() {
        return t.children(n).is_empty() && !matches!(t.node(n), DagNode::Namespace(_));
    }
    // Compared field by field: this runs for every node below every policy.
    let is = |group: &str, k: &str| {
        kind.effective_targets.iter().chain(kind.effective_target.iter()).any(|g| g.group == group && g.kind == k)
    };
    match t.node(n) {
        DagNode::Object(o) => {
            let ob = world.object(o);
            is(ob.group(), ob.kind()) && whole_object_counts(world, o)
        }
        DagNode::Section(o, _) => {
            let ob = world.object(o);
            is(ob.group(), ob.kind())
        }
        DagNode::Virtual(k) => {
            let k = world.topology.virtual_key(k);
            is(&k.gk.group, &k.gk.kind)
        }
        DagNode::Namespace(_) => false,
    }
}

/// Depth of a node's level in the hierarchy: GatewayClass 0, Gateway 1, listener 2, ListenerSet 2,
/// its listeners 3, route 4, rule 5, backend 6, port 7.
pub(super) fn rank(world: &Linked, n: NodeId) -> u8 {
    let of = |o: ObjId| match &world.object(o).body {
        Body::GatewayClass(_) => 0,
        Body::Gateway(_) => 1,
        Body::ListenerSet(_) => 2,
        Body::Route(_) => 4,
        _ => 6,
    };
    match world.topology.node(n) {
        DagNode::Object(o) => of(o),
        DagNode::Section(o, _) => of(o) + 1,
        DagNode::Namespace(_) => 0,
        // A route a controller generates (or a virtual route) sits at the route level.
        DagNode::Virtual(k) if world.topology.virtual_key(k).gk.kind.ends_with("Route") => 4,
        DagNode::Virtual(_) => 6,
    }
}

/// The deepest level an effective target of the kind can be at (`u8::MAX`: any, for kinds that
/// act at the leaves).
pub(super) fn max_rank(kind: &PolicyKind) -> u8 {
    let mut max = None;
    for g in kind.effective_targets.iter().chain(kind.effective_target.iter()) {
        let r = match g.kind.as_str() {
            "GatewayClass" => 0,
            "Gateway" => 2,
            "ListenerSet" | "XListenerSet" => 3,
            k if k.ends_with("Route") => 5,
            _ => 7,
        };
        max = Some(max.map_or(r, |m: u8| m.max(r)));
    }
    max.unwrap_or(u8::MAX)
}

/// The effective targets of a Direct policy attached at `n`.
pub fn direct_effective(world: &Linked, n: NodeId) -> Vec<NodeId> {
    let t = &world.topology;
    match t.node(n) {
        DagNode::Object(o) => {
            let mut v = sections_of(t, o);
            if v.is_empty() || whole_object_counts(world, o) {
                v.insert(0, n);
            }
            v
        }
        _ => vec![n],
    }
}

/// A Service port section: the Service and the port number.
pub fn service_port(world: &Linked, n: NodeId) -> Option<(ObjId, Option<i64>)> {
    match world.topology.node(n) {
        DagNode::Section(o, i) => match &world.object(o).body {
            Body::Service(s) => Some((o, s.ports.get(i as usize).and_then(|p| p.port))),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the edge from `q` into Service `svc` carries `port` (a backendRef naming that port
/// or none), as `Topology::paths_to` filters them. Parents that are not routes always pass.
pub fn admits(world: &Linked, q: NodeId, svc: ObjId, port: Option<i64>) -> bool {
    let t = &world.topology;
    let Some(want) = port else { return true };
    let (route, section) = match t.node(q) {
        DagNode::Object(r) => (r, None),
        DagNode::Section(r, i) => (r, Some(i)),
        _ => return true,
    };
    let Body::Route(r) = &world.object(route).body else {
        return true;
    };
    for (k, (rule, results)) in r.rules.iter().zip(t.backend_refs(route)).enumerate() {
        // The node the rule's backend edges start from (as the topology builds them).
        let from = t.rule_node(world, route, rule, k as u32);
        let rule_is_q = match section {
            Some(_) => from == Some(q),
            None => from.is_none(),
        };
        if !rule_is_q {
            continue;
        }
        for (br, res) in rule.backend_refs.iter().zip(results) {
            if matches!(res, BackendResolution::Found { target, .. } if *target == svc) {
                let p = br.port.as_ref().map(|p| p.value);
                if p.is_none() || p == Some(want) {
                    return true;
                }
            }
        }
    }
    false
}
