//! Objects a controller generates from a workspace object: Envoy AI Gateway makes an HTTPRoute
//! of each AIGatewayRoute, with its namespace, name, parentRefs and hostnames
//! (envoyproxy/ai-gateway `internal/controller/ai_gateway_route.go`; its
//! `examples/provider_fallback/fallback.yaml` targets one). Such a route is a node of the DAG
//! with no file behind it: a virtual node keyed `HTTPRoute/ns/name`, hung where the generating
//! route's parentRefs attach, and remembered with the object it is generated from (definitions
//! land there; nothing renames or edits it).

use crate::model::{GATEWAY_GROUP, GroupKind, ObjectKey};
use crate::world::{ObjId, World};

/// The key of the route the controller generates from object `id`, when it generates one and
/// the workspace does not hold that route itself (a live cluster does).
pub(super) fn generated_route(world: &World, id: ObjId) -> Option<ObjectKey> {
    let o = world.object(id);
    if !(o.group() == "aigateway.envoyproxy.io" && o.kind() == "AIGatewayRoute") || o.templated {
        return None;
    }
    let gk = GroupKind::new(GATEWAY_GROUP, "HTTPRoute");
    let ns = world.namespace_of(id);
    let name = world.name_of(id);
    if world.lookup_from(id, &gk, ns, name).is_some() {
        return None;
    }
    Some(ObjectKey::new(gk, ns, name))
}
