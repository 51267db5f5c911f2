//! Istio's opt-out: a BackendTLSPolicy or XBackendTrafficPolicy annotated
//! `istio.io/ignore-policy-attachment: "true"` is meant for another controller, so Istio
//! translates none of it and counts it in no conflict (Istio release notes, istio/istio issue
//! 60122). policylens honours it where Istio is the controller (docs/semantics.md §4.4.1): every
//! Gateway the policy reaches is served by Istio, its class known from a GatewayClass object
//! or as one istiod creates itself (`istio`, `istio-waypoint`, ...); a policy that reaches no
//! Gateway (the mesh's), when every Gateway of its world is Istio's, or, with no Gateway at
//! all, every GatewayClass. Elsewhere the other controller applies the policy as usual.

use crate::catalog::controllers::ISTIO;
use crate::model::{Body, GATEWAY_GROUP, GroupKind};
use crate::topology::Linked;
use crate::world::ObjId;

/// Whether Istio, the controller of the Gateways policy `pid` reaches, leaves it to another
/// controller.
pub fn left_to_other_controllers(world: &Linked, pid: ObjId) -> bool {
    let Body::Other(o) = &world.object(pid).body else { return false };
    if !o.policy.istio_opt_out {
        return false;
    }
    let reached = super::super::reach::reached_gateways(world, pid);
    if !reached.is_empty() {
        return reached.iter().all(|&g| istio_serves(world, g));
    }
    let gateways: Vec<ObjId> = world
        .objects_of(&GroupKind::new(GATEWAY_GROUP, "Gateway"))
        .iter()
        .copied()
        .filter(|&g| world.sees(pid, g))
        .collect();
    if !gateways.is_empty() {
        return gateways.iter().all(|&g| istio_serves(world, g));
    }
    // No Gateway at all (a mesh's files): Istio is the controller when every GatewayClass
    // there is its own.
    let classes = world.objects_of(&GroupKind::new(GATEWAY_GROUP, "GatewayClass"));
    !classes.is_empty()
        && classes.iter().all(|&c| match &world.object(c).body {
            Body::GatewayClass(g) => g
                .controller_name
                .as_deref()
                .and_then(crate::catalog::controllers::implementation)
                .is_some_and(|i| i.id == ISTIO),
            _ => false,
        })
}

fn istio_serves(world: &Linked, gw: ObjId) -> bool {
    world.topology.controller_of(gw).and_then(|s| s.implementation()).is_some_and(|i| i.id == ISTIO)
}
