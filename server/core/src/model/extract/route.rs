//! HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute.

use super::read;
use crate::model::{Route, RouteKind, Rule, RuleFields};
use crate::syntax::Node;

pub(super) fn route(kind: RouteKind, spec: Option<&Node>) -> Route {
    let field = |key: &str| spec.and_then(|s| s.get(key));
    let hostnames = if kind.has_hostnames() {
        read::seq(field("hostnames")).iter().filter_map(read::spanned_str).collect()
    } else {
        Box::default()
    };
    Route {
        kind,
        parent_refs: read::mappings(field("parentRefs")).map(read::parent_ref).collect(),
        hostnames,
        rules: read::mappings(field("rules"))
            .map(|r| Rule {
                name: r.get("name").and_then(read::spanned_str),
                backend_refs: read::mappings(r.get("backendRefs")).map(read::ref_fields).collect(),
                extension_refs: read::mappings(r.get("filters"))
                    .filter(|f| read::str_at(Some(f), "type") == Some("ExtensionRef"))
                    .filter_map(|f| f.get("extensionRef").filter(|e| e.as_mapping().is_some()))
                    .map(read::ref_fields)
                    .collect(),
                fields: RuleFields::read(r),
                span: r.span,
            })
            .collect(),
    }
}

/// An Envoy AI Gateway `AIGatewayRoute`: what the HTTPRoute generated from it attaches with
/// (its parentRefs and hostnames, copied as they are; envoyproxy/ai-gateway
/// `internal/controller/ai_gateway_route.go` `newHTTPRoute`). Its rules are left out: their
/// backendRefs name AIServiceBackends, and the generated rules are not targets policylens checks.
/// Older releases named the Gateways in `targetRefs` (api/v1alpha1): read as parentRefs.
pub(super) fn generating_route(spec: Option<&Node>) -> Route {
    let field = |key: &str| spec.and_then(|s| s.get(key));
    let parents = field("parentRefs").or_else(|| field("targetRefs"));
    Route {
        kind: RouteKind::Http,
        parent_refs: read::mappings(parents).map(read::parent_ref).collect(),
        hostnames: read::seq(field("hostnames")).iter().filter_map(read::spanned_str).collect(),
        rules: Box::default(),
    }
}
