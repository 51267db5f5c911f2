//! Mesh (GAMMA) attachment: a route whose parentRef is a Service hangs below that Service, or
//! below one of its ports when the ref names one by `sectionName` (the port's name) or `port`
//! (gateway-api apis/v1 `ParentReference`; GEP-1426). When both are set, one port must match
//! both.

use super::{ParentResolution, Topology};
use crate::model::{Body, ParentRef, Route, normalize_group};
use crate::world::{ObjId, World};

/// Whether `route` is a mesh route: every parentRef names a Service. Its backendRefs may name
/// any namespace without a ReferenceGrant (GEP-1294 "Namespace boundaries"; gateway-api
/// conformance `mesh-consumer-route`). A route that a Gateway also serves still needs one.
pub(super) fn is_mesh_route(route: &Route) -> bool {
    !route.parent_refs.is_empty()
        && route.parent_refs.iter().all(|p| {
            p.group.as_ref().is_some_and(|g| normalize_group(&g.value).is_empty())
                && p.kind.as_ref().is_some_and(|k| k.value == "Service")
        })
}

/// Resolves a parentRef that names Service `parent`.
pub(super) fn resolve_service_parent(world: &World, t: &Topology, parent: ObjId, p: &ParentRef) -> ParentResolution {
    let whole = ParentResolution::Attached { parent, nodes: vec![t.object_node(parent)] };
    let section = p.section_name.as_ref().map(|s| s.value.as_str());
    let port = p.port.as_ref().map(|n| n.value);
    let Body::Service(svc) = &world.object(parent).body else { return whole };
    if section.is_none() && port.is_none() {
        return whole;
    }
    if let Some(s) = section
        && !svc.ports.iter().any(|sp| sp.name.as_ref().is_some_and(|n| n.value == s))
    {
        let available = svc.ports.iter().filter_map(|sp| sp.name.as_ref()).map(|n| n.value.to_string()).collect();
        return ParentResolution::SectionNotFound { parent, available };
    }
    let matches = |sp: &&crate::model::ServicePort| {
        section.is_none_or(|s| sp.name.as_ref().is_some_and(|n| n.value == s))
            && port.is_none_or(|n| sp.port == Some(n))
    };
    match svc.ports.iter().find(matches) {
        // An unnamed port is no section (a Service with one port): the route hangs below
        // the Service itself.
        Some(sp) => match sp.name.as_ref().and_then(|n| t.section_node(world, parent, &n.value)) {
            Some(n) => ParentResolution::Attached { parent, nodes: vec![n] },
            None => whole,
        },
        // A Service without ports in the workspace cannot say: attach to the whole of it.
        None if svc.ports.is_empty() => whole,
        None => {
            let candidates =
                svc.ports.iter().filter(|sp| section.is_none_or(|s| sp.name.as_ref().is_some_and(|n| n.value == s)));
            ParentResolution::PortNotFound { parent, available: candidates.filter_map(|sp| sp.port).collect() }
        }
    }
}
