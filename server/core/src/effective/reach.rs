//! The Gateways a policy reaches: what decides which controllers act on it
//! (`unsupported-by-controller`, the kinds a controller implements) and whether a controller's
//! own rules apply (Istio's `istio.io/ignore-policy-attachment`). Both `controllers.rs` and
//! `semantics/istio.rs` ask it, so it lives below both.

use std::collections::HashSet;

use crate::model::Body;
use crate::topology::{DagNode, Linked, NodeId};
use crate::world::ObjId;

/// The Gateways policy `pid` reaches, in id order: above the nodes it attaches to, and below a
/// GatewayClass it targets. In a unit's world, only the Gateways that world holds.
pub fn reached_gateways(world: &Linked, pid: ObjId) -> Vec<ObjId> {
    let t = &world.topology;
    let Some(res) = t.policies.get(&pid) else { return Vec::new() };
    let mut start: Vec<NodeId> = Vec::new();
    for n in res.attached_nodes() {
        match t.node(n) {
            DagNode::Namespace(ns) => {
                let ns = t.namespace_name(ns);
                start.extend(world.ids().filter(|&o| world.namespace_of(o) == Some(ns)).map(|o| t.object_node(o)));
            }
            DagNode::Object(o) if matches!(world.object(o).body, Body::GatewayClass(_)) => {
                start.extend(t.children(n).iter().copied());
            }
            _ => start.push(n),
        }
    }
    // The objects the policy is on: a Service port's Service too, so that the walk goes on
    // above it (the routes sending to it) as from the Service itself.
    let own: HashSet<NodeId> =
        start.iter().flat_map(|&n| [n, t.node_object(n).map_or(n, |o| t.object_node(o))]).collect();
    let mut seen: HashSet<NodeId> = start.iter().copied().collect();
    let mut queue = start;
    let mut out = Vec::new();
    while let Some(n) = queue.pop() {
        if let DagNode::Object(o) = t.node(n) {
            match world.object(o).body {
                Body::Gateway(_) => {
                    out.push(o);
                    continue;
                }
                // Above a Service are the routes that send to it. A mesh route's traffic does
                // not come from them: walk up from a Service only when the policy is on it.
                Body::Service(_) if !own.contains(&n) => continue,
                _ => {}
            }
        }
        for &p in t.parents(n) {
            if seen.insert(p) {
                queue.push(p);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    let unit = world.unit_of(pid);
    if unit != 0 {
        let borrowed: Vec<u32> =
            res.attached_nodes().filter_map(|n| t.node_object(n)).map(|o| world.unit_of(o)).collect();
        out.retain(|&g| {
            let u = world.unit_of(g);
            u == 0 || u == unit || borrowed.contains(&u)
        });
    }
    out
}
