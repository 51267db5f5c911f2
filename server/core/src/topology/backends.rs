//! backendRefs (a route rule's, and those inside a policy's spec): existence,
//! ReferenceGrants and ports.

use super::delegation::{self, Delegation};
use super::{BackendResolution, Missing};
use crate::catalog::SpecRefNamespaces;
use crate::model::is_placeholder;
use crate::model::{BackendRef, Body, GATEWAY_GROUP, GroupKind, normalize_group};
use crate::suggest;
use crate::world::{ObjId, Wanted, World};

/// What a route rule's backendRef names when it leaves `group` and `kind` out.
pub(super) fn route_default() -> GroupKind {
    GroupKind::new("", "Service")
}

/// Resolves backendRef `b` written in object `from` (a route, or a policy for references in
/// its spec): `default` is the group and kind it names when it leaves them out, `namespaces`
/// whether another namespace may be named with a ReferenceGrant from `from`'s group, kind and
/// namespace.
pub(super) fn resolve_backend(
    world: &World,
    from: ObjId,
    b: &BackendRef,
    default: &GroupKind,
    namespaces: SpecRefNamespaces,
) -> BackendResolution {
    if world.object(from).kind() == "HTTPRoute"
        && let Some(d) = delegation::delegation(world, from, b)
    {
        return delegated(world, from, d);
    }
    let Some(name) = b.name.as_ref().map(|n| n.value.as_str()).filter(|n| !n.is_empty()) else {
        return BackendResolution::Unchecked;
    };
    let gk = GroupKind::new(
        b.group.as_ref().map_or(default.group.as_str(), |g| g.value.as_str()),
        b.kind.as_ref().map_or(default.kind.as_str(), |k| k.value.as_str()),
    );
    let from_ns = world.namespace_of(from).unwrap_or("");
    let ns = b.namespace.as_ref().map(|n| n.value.as_str()).unwrap_or(from_ns);
    let is_service = gk.is("", "Service");
    let candidates = world.candidates_from(from, &gk, Some(ns), name);
    if candidates.ids.is_empty() {
        if b.templated || is_placeholder(ns) || world.is_external(&gk, Some(ns), name) || !is_service {
            return BackendResolution::Unchecked;
        }
        return missing(world, from, &gk, ns, name);
    }
    if ns != from_ns {
        let permitted = match namespaces {
            SpecRefNamespaces::Granted => {
                grant_allows(world, from, &world.object(from).group_kind(), from_ns, &gk, ns, name)
            }
            SpecRefNamespaces::Own => false,
            SpecRefNamespaces::Any => true,
        };
        if !permitted {
            if candidates.borrowed {
                return BackendResolution::Unchecked;
            }
            return BackendResolution::NotPermitted { target: candidates.ids.first().copied() };
        }
    }
    // The copy of the backend that has the port, else the nearest's answer.
    candidates.first_satisfying(
        |target| with_port(world, target, b),
        |r| matches!(r, BackendResolution::Found { .. }),
        BackendResolution::Unchecked,
    )
}

/// A backend no file `from` can see defines: a near name, and whether the world is closed for
/// it (docs/semantics.md §6.1).
fn missing(world: &World, from: ObjId, gk: &GroupKind, ns: &str, name: &str) -> BackendResolution {
    let suggestion = suggest::closest(name, world.names_seen_from(from, gk, ns)).map(str::to_owned);
    let wanted = Wanted { gk, namespace: Some(ns), name };
    let unknown = world.certainty(from, &wanted, suggestion.is_some()).unknown();
    BackendResolution::NotFound(Box::new(Missing { suggestion, unknown }))
}

/// The backend `target` with the port `b` names.
fn with_port(world: &World, target: ObjId, b: &BackendRef) -> BackendResolution {
    match (&world.object(target).body, b.port.as_ref()) {
        (Body::Service(svc), Some(port)) => match svc.ports.iter().position(|p| p.port == Some(port.value)) {
            Some(i) => BackendResolution::Found { target, port: Some(i as u32) },
            None if svc.ports.is_empty() || world.is_incomplete(target) => {
                BackendResolution::Found { target, port: None }
            }
            // Envoy Gateway does not check a backendRef's port against a Backend's endpoints
            // (envoyproxy/gateway `internal/gatewayapi/validate.go` `validateBackendPort`).
            None if world.object(target).kind() == "Backend" => BackendResolution::Found { target, port: None },
            None => {
                let available = Box::new(svc.ports.iter().filter_map(|p| p.port).collect());
                BackendResolution::PortNotFound { target, available }
            }
        },
        _ => BackendResolution::Found { target, port: None },
    }
}

/// Whether a ReferenceGrant in `to_ns` (one that object `referrer` sees) lets objects of
/// `from` in `from_ns` refer to `to_name` of kind `to` (GEP-709).
pub(crate) fn grant_allows(
    world: &World,
    referrer: ObjId,
    from: &GroupKind,
    from_ns: &str,
    to: &GroupKind,
    to_ns: &str,
    to_name: &str,
) -> bool {
    let grant = GroupKind::new(GATEWAY_GROUP, "ReferenceGrant");
    world.objects_in(&grant, to_ns).iter().filter(|&&g| world.sees(referrer, g)).any(|&g| {
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
                None if is_placeholder(namespace) || world.is_external(&gk, Some(namespace), name) => {
                    return BackendResolution::Unchecked;
                }
                None => return missing(world, parent, &gk, namespace, name),
            }
        }
        Delegation::Selected { namespace, label } => {
            delegation::select(world, parent, namespace, label.as_ref().map(|(k, v)| (k.as_str(), *v)))
        }
    };
    BackendResolution::Delegated { children: Box::new(children) }
}
