//! Istio's opt-out: a BackendTLSPolicy or XBackendTrafficPolicy annotated
//! `istio.io/ignore-policy-attachment: "true"` is meant for another controller, so Istio
//! translates none of it and counts it in no conflict (Istio release notes, istio/istio issue
//! 60122). policylens honours it where Istio is the controller: every GatewayClass of the
//! world is Istio's (and there is one). Elsewhere the other controller applies the policy as
//! usual.

use crate::model::{Body, GATEWAY_GROUP, GroupKind};
use crate::world::{ObjId, World};

/// Whether Istio, the world's controller, leaves policy `pid` to another controller.
pub fn left_to_other_controllers(world: &World, pid: ObjId) -> bool {
    let Body::Other(o) = &world.object(pid).body else { return false };
    o.policy.istio_opt_out && istio_controls_every_class(world)
}

fn istio_controls_every_class(world: &World) -> bool {
    let classes = world.objects_of(&GroupKind::new(GATEWAY_GROUP, "GatewayClass"));
    !classes.is_empty()
        && classes.iter().all(|&c| match &world.object(c).body {
            Body::GatewayClass(g) => g.controller_name.as_deref().is_some_and(|n| n.starts_with("istio.io/")),
            _ => false,
        })
}
