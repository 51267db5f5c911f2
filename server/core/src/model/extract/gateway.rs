//! GatewayClass, Gateway, ListenerSet / XListenerSet.

use super::read::{self, CollectExact};
use crate::model::{AllowedRoutes, FromNamespaces, Gateway, GatewayClass, Listener, ListenerSet, RouteGroupKind};
use crate::syntax::Node;

pub(super) fn gateway_class(spec: Option<&Node>) -> GatewayClass {
    GatewayClass { controller_name: read::str_at(spec, "controllerName").map(str::to_owned) }
}

pub(super) fn gateway(spec: Option<&Node>) -> Gateway {
    Gateway {
        class_name: spec.and_then(|s| s.get("gatewayClassName")).and_then(read::spanned_str),
        listeners: listeners(spec),
        allowed_listeners: allowed_listeners(spec),
    }
}

/// `spec.allowedListeners.namespaces`: `from` defaults to `None` (no ListenerSet attaches;
/// gateway-api apis/v1 `AllowedListeners`).
fn allowed_listeners(spec: Option<&Node>) -> FromNamespaces {
    match spec.and_then(|s| s.get("allowedListeners")).and_then(|a| a.get("namespaces")) {
        Some(ns) if ns.get("from").is_some_and(|f| !f.is_null()) => read::from_namespaces(ns),
        _ => FromNamespaces::None,
    }
}

pub(super) fn listener_set(spec: Option<&Node>) -> ListenerSet {
    ListenerSet {
        parent_ref: spec.and_then(|s| s.get("parentRef")).filter(|p| p.as_mapping().is_some()).map(read::parent_ref),
        listeners: listeners(spec),
    }
}

/// `spec.listeners[]`; a listener without a name cannot be attached to or targeted, so it is
/// left out.
fn listeners(spec: Option<&Node>) -> Vec<Listener> {
    read::mappings(spec.and_then(|s| s.get("listeners")))
        .filter_map(|l| {
            Some(Listener {
                name: read::spanned_str(l.get("name")?)?,
                port: l.get("port").and_then(Node::as_i64),
                protocol: read::str_at(Some(l), "protocol").map(str::to_owned),
                hostname: l.get("hostname").and_then(read::spanned_str),
                allowed_routes: allowed_routes(l.get("allowedRoutes")),
                span: l.span,
            })
        })
        .collect_exact()
}

fn allowed_routes(node: Option<&Node>) -> AllowedRoutes {
    let Some(node) = node.filter(|n| n.as_mapping().is_some()) else {
        return AllowedRoutes::default();
    };
    AllowedRoutes {
        namespaces: node.get("namespaces").map(read::from_namespaces).unwrap_or_default(),
        kinds: read::mappings(node.get("kinds"))
            .filter_map(|k| {
                Some(RouteGroupKind {
                    group: read::str_at(Some(k), "group").map(str::to_owned),
                    kind: k.get("kind")?.as_str()?.to_owned(),
                })
            })
            .collect_exact(),
        span: Some(node.span),
    }
}
