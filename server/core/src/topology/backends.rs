//! backendRefs: existence, ReferenceGrants and ports.

use super::delegation::{self, Delegation};
use super::{BackendResolution, Topology};
use crate::model::{BackendRef, Body, GATEWAY_GROUP, GroupKind, normalize_group};
use crate::suggest;
use crate::world::{ObjId, World};

pub(super) fn resolve_backend(world: &World, _t: &Topology, route_id: ObjId, b: &BackendRef) -> BackendResolution {
    if b.templated {
        return BackendResolution::Unchecked;
    }
    if world.object(route_id).kind() == "HTTPRoute"
        && let Some(d) = delegation::delegation(world, route_id, b)
    {
        return delegated(world, route_id, d);
    }
    let Some(name) = b.name.as_ref().map(|n| n.value.as_str()).filter(|n| !n.is_empty()) else {
        return BackendResolution::Unchecked;
    };
    let gk = GroupKind::new(
        b.group.as_ref().map(|g| g.value.as_str()).unwrap_or(""),
        b.kind.as_ref().map(|k| k.value.as_str()).unwrap_or("Service"),
    );
    let route_ns = world.namespace_of(route_id).unwrap_or("");
    let ns = b.namespace.as_ref().map(|n| n.value.as_str()).unwrap_or(route_ns);
    let is_service = gk.is("", "Service");
    let Some(target) = world.lookup_from(route_id, &gk, Some(ns), name) else {
        if world.is_external(&gk, Some(ns), name) {
            return BackendResolution::Unchecked;
        }
        if !is_service {
            return BackendResolution::Unchecked;
        }
        let names = world.objects_in(&gk, ns).iter();
        return BackendResolution::NotFound {
            suggestion: suggest::closest(name, names.map(|&o| world.object(o).name.value.as_str()))
                .map(|s| Box::new(s.to_owned())),
        };
    };
    if ns != route_ns {
        let from = GroupKind::new(GATEWAY_GROUP, world.object(route_id).kind());
        let from = GroupKind { group: crate::model::str_of(world.object(route_id).group()), ..from };
        if !grant_allows(world, &from, route_ns, &gk, ns, name) {
            return BackendResolution::NotPermitted { target: Some(target) };
        }
    }
    match (&world.object(target).body, b.port.as_ref()) {
        (Body::Service(svc), Some(port)) => match svc.ports.iter().position(|p| p.port == Some(port.value)) {
            Some(i) => BackendResolution::Found { target, port: Some(i as u32) },
            None if svc.ports.is_empty() => BackendResolution::Found { target, port: None },
            None => {
                let available = Box::new(svc.ports.iter().filter_map(|p| p.port).collect());
                BackendResolution::PortNotFound { target, available }
            }
        },
        _ => BackendResolution::Found { target, port: None },
    }
}

/// Whether a ReferenceGrant in `to_ns` lets objects of `from` in `from_ns` refer to `to_name`
/// of kind `to` (GEP-709).
pub(crate) fn grant_allows(
    world: &World,
    from: &GroupKind,
    from_ns: &str,
    to: &GroupKind,
    to_ns: &str,
    to_name: &str,
) -> bool {
    let grant = GroupKind::new(GATEWAY_GROUP, "ReferenceGrant");
    world.objects_in(&grant, to_ns).iter().any(|&g| {
        let Body::ReferenceGrant(rg) = &world.object(g).body else {
            return false;
        };
        rg.from.iter().any(|f| normalize_group(&f.group) == from.group && f.kind == from.kind && f.namespace == from_ns)
            && rg.to.iter().any(|t| {
                normalize_group(&t.group) == to.group
                    && t.kind == to.kind
                    && t.name.as_deref().is_none_or(|n| n.is_empty() || n == to_name)
            })
    })
}

/// A delegating backendRef: its children, or the named child that does not exist. Delegation
/// needs no ReferenceGrant across namespaces.
fn delegated(world: &World, parent: ObjId, d: Delegation<'_>) -> BackendResolution {
    let children = match d {
        Delegation::Named { namespace, name } => {
            let gk = GroupKind::new(GATEWAY_GROUP, "HTTPRoute");
            match world.lookup_from(parent, &gk, Some(namespace), name) {
                // A child whose parentRefs name other routes does not take the requests.
                Some(child) if child != parent && delegation::accepts(world, child, parent) => vec![child],
                Some(_) => Vec::new(),
                None if world.is_external(&gk, Some(namespace), name) => return BackendResolution::Unchecked,
                None => {
                    let names = world.objects_in(&gk, namespace).iter();
                    return BackendResolution::NotFound {
                        suggestion: suggest::closest(name, names.map(|&o| world.object(o).name.value.as_str()))
                            .map(|s| Box::new(s.to_owned())),
                    };
                }
            }
        }
        Delegation::Selected { namespace, label } => {
            delegation::select(world, parent, namespace, label.as_ref().map(|(k, v)| (k.as_str(), *v)))
        }
    };
    BackendResolution::Delegated { children: Box::new(children) }
}
