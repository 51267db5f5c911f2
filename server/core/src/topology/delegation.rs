//! Route delegation (kgateway, Gloo Gateway): an HTTPRoute rule whose backendRef names
//! HTTPRoutes hands its requests to those child routes, which then sit below the rule in the
//! hierarchy (policies on the parent reach the children's backends).
//!
//! kgateway-dev/kgateway.dev `assets/kgw-docs/pages/traffic-management/route-delegation/`
//! (`overview.md`, `basic.md`, `label.md`, `multi-parent.md`, commit 85cd0fc8) and
//! kgateway-dev/kgateway `internal/kgateway/query/httproute.go`,
//! `translator/httproute/delegation_helpers.go` (commit 06ff8b9d):
//! - `{group: gateway.networking.k8s.io, kind: HTTPRoute, name, namespace}` names one child;
//!   `name: "*"` (or empty) every HTTPRoute of the namespace (the parent's when unset);
//! - `{group: delegation.kgateway.dev, kind: label, name: v, namespace}` every HTTPRoute
//!   labelled `delegation.kgateway.dev/label: v` in the namespace, `namespace: all` in every
//!   one (Gloo Gateway: `delegation.gateway.solo.io`, same shape);
//! - a child that sets parentRefs only takes requests from the HTTPRoutes they name;
//! - no ReferenceGrant is needed to delegate to another namespace.

use crate::model::{BackendRef, Body, GATEWAY_GROUP, GroupKind, normalize_group};
use crate::world::{ObjId, World};

/// The label groups of label delegation: the backendRef's group is also the label key's prefix.
const LABEL_GROUPS: &[&str] = &["delegation.kgateway.dev", "delegation.gateway.solo.io"];

/// What a delegating backendRef asks for.
pub(super) enum Delegation<'a> {
    /// One child by name.
    Named { namespace: &'a str, name: &'a str },
    /// Every HTTPRoute of `namespace` (`None`: of every namespace) that `label` (key, value)
    /// selects, or all of them when `label` is `None`.
    Selected { namespace: Option<&'a str>, label: Option<(String, &'a str)> },
}

/// The delegation a backendRef of route `parent` asks for, if it delegates.
pub(super) fn delegation<'a>(world: &'a World, parent: ObjId, b: &'a BackendRef) -> Option<Delegation<'a>> {
    let group = normalize_group(b.group.as_ref()?.value.as_str());
    let kind = b.kind.as_ref()?.value.as_str();
    let name = b.name.as_ref().map_or("", |n| n.value.as_str());
    let own_ns = world.namespace_of(parent).unwrap_or("");
    let ns = b.namespace.as_ref().map_or(own_ns, |n| n.value.as_str());
    if group == GATEWAY_GROUP && kind == "HTTPRoute" {
        if name.is_empty() || name == "*" {
            return Some(Delegation::Selected { namespace: Some(ns), label: None });
        }
        return Some(Delegation::Named { namespace: ns, name });
    }
    if kind == "label" && LABEL_GROUPS.contains(&group) {
        let namespace = (ns != "all").then_some(ns);
        return Some(Delegation::Selected { namespace, label: Some((format!("{group}/label"), name)) });
    }
    None
}

/// The children of `parent` that a `Selected` delegation picks, in id order.
pub(super) fn select(world: &World, parent: ObjId, namespace: Option<&str>, label: Option<(&str, &str)>) -> Vec<ObjId> {
    let gk = GroupKind::new(GATEWAY_GROUP, "HTTPRoute");
    let candidates = match namespace {
        Some(ns) => world.objects_in(&gk, ns),
        None => world.objects_of(&gk),
    };
    let mut out: Vec<ObjId> = candidates
        .iter()
        .copied()
        .filter(|&c| c != parent && !world.object(c).templated)
        .filter(|&c| label.is_none_or(|(k, v)| world.object(c).label(k) == Some(v)))
        .filter(|&c| accepts(world, c, parent))
        .collect();
    out.sort_unstable();
    out
}

/// Whether child route `child` takes requests from `parent`: a child without parentRefs takes
/// them from any parent; one with parentRefs only from the HTTPRoutes they name.
pub(super) fn accepts(world: &World, child: ObjId, parent: ObjId) -> bool {
    let Body::Route(route) = &world.object(child).body else { return false };
    if route.parent_refs.is_empty() {
        return true;
    }
    let child_ns = world.namespace_of(child).unwrap_or("");
    let parent_ns = world.namespace_of(parent).unwrap_or("");
    let parent_name = world.object(parent).name.value.as_str();
    route.parent_refs.iter().any(|p| {
        let group = p.group.as_ref().map_or(GATEWAY_GROUP, |g| normalize_group(&g.value));
        group == GATEWAY_GROUP
            && p.kind.as_ref().is_some_and(|k| k.value == "HTTPRoute")
            && p.name.as_ref().is_some_and(|n| n.value == parent_name)
            && p.namespace.as_ref().map_or(child_ns, |n| n.value.as_str()) == parent_ns
    })
}
