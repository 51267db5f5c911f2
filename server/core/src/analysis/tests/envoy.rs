//! Envoy Gateway's own merge rules through every surface:
//! `fixtures/conformance/envoy-gateway-merge-rate-limits` (StrategicMerge keeps the Gateway's
//! rate-limit rules, JSONMerge replaces them, SecurityPolicy `mergeType`) and
//! `fixtures/conformance/envoy-gateway-route-fields` (a route rule's timeout, retry and CORS
//! filter beat the policy's). `check`, `status`, `explain`, hover on the policies and on the
//! routes, and code lens must tell one story.

use std::fmt::Write as _;

use super::{assert_lines, fixture, render_check, render_explains, render_policy_hovers, render_policy_lenses};
use crate::workspace::Snapshot;

const RATE_LIMITS: &str =
    include_str!("../../../../../fixtures/conformance/envoy-gateway-merge-rate-limits/workspace.yaml");
const ROUTE_FIELDS: &str =
    include_str!("../../../../../fixtures/conformance/envoy-gateway-route-fields/workspace.yaml");

/// Every surface of one workspace; `targets` are explained and hovered (on the route's name).
fn surfaces(workspace: &str, targets: &[&str]) -> String {
    let f = fixture(&format!("//- workspace.yaml\n{workspace}"));
    let snap = &f.snap;
    let world = snap.world();
    let mut got = String::new();

    got.push_str("# check\n");
    render_check(snap, false, &mut got);

    got.push_str("# status\n");
    for p in snap.effective().report(world).policies {
        let _ = writeln!(got, "{} {:?} {:?} by={:?}", p.policy, p.accepted.reason, p.enforcement, p.superseded_by);
    }

    got.push_str("# explain\n");
    render_explains(snap, targets.iter().copied(), &mut got, |target, ex, got| {
        for k in &ex.policies {
            for c in &k.contexts {
                let _ = writeln!(got, "{target} {}:", k.kind);
                for p in &c.provenance {
                    let _ = writeln!(got, "  {} = {}", p.field, p.policy);
                }
                for l in &c.lost {
                    let _ = writeln!(got, "  lost {} {} by {:?} because {:?}", l.policy, l.outcome, l.by, l.because);
                }
            }
        }
    });

    got.push_str("# hover on the routes\n");
    render_route_hovers(snap, targets, &mut got);

    got.push_str("# hover on the policies\n");
    render_policy_hovers(snap, "workspace.yaml", |p| p.contains("Accepted") || p.contains("by `"), &mut got);

    got.push_str("# lens\n");
    render_policy_lenses(snap, "workspace.yaml", &mut got);
    got
}

/// The lines of each route's hover (on its name) where the route's own value holds a field, and
/// the policies that lost.
fn render_route_hovers(snap: &Snapshot, targets: &[&str], got: &mut String) {
    let world = snap.world();
    for target in targets.iter().filter(|t| !t.contains('#')) {
        let Ok(node) = world.topology.resolve_target(world, target) else { continue };
        let Some(o) = world.topology.node_object(node) else { continue };
        let Some(h) = crate::analysis::hover(snap, "workspace.yaml", world.object(o).name.span.start) else {
            let _ = writeln!(got, "{target}: no hover");
            continue;
        };
        for line in h.markdown.lines().filter(|l| l.contains("own value") || l.starts_with("Lost:")) {
            let _ = writeln!(got, "{target}: {}", line.trim());
        }
    }
}

#[test]
fn envoy_gateway_merge_types_every_surface_agrees() {
    let got = surfaces(RATE_LIMITS, &["HTTPRoute/shop/cart", "HTTPRoute/shop/search"]);
    assert_lines(&got, MERGE_TYPES_EXPECTED);
}

#[test]
fn envoy_gateway_route_fields_every_surface_agrees() {
    let got = surfaces(
        ROUTE_FIELDS,
        &["HTTPRoute/shop/cart", "HTTPRoute/shop/widgets", "HTTPRoute/shop/mixed", "HTTPRoute/shop/mixed#fast"],
    );
    assert_lines(&got, ROUTE_FIELDS_EXPECTED);
}

const ROUTE_FIELDS_EXPECTED: &str = r#"
# check
"edge-traffic" information[partially-overridden] `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic` is superseded in part by `HTTPRoute/shop/cart (its own value)`, `HTTPRoute/shop/mixed (its own value)`: on `HTTPRoute/shop/cart`, `retry.numRetries`, `retry.retryOn.httpStatusCodes`, `retry.retryOn.triggers`, `timeout.http.requestTimeout`; on `HTTPRoute/shop/mixed#fast`, `timeout.http.requestTimeout`; it is still in effect on each of the 4 effective targets it reaches
"edge-security" information[partially-overridden] `SecurityPolicy.gateway.envoyproxy.io/infra/edge-security` is superseded in part by `HTTPRoute/shop/widgets (its own value)`: on `HTTPRoute/shop/widgets`, `cors.allowCredentials`, `cors.allowMethods`, `cors.allowOrigins`; it is still in effect on each of the 4 effective targets it reaches
# status
BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic Accepted Some(PartiallyEnforced) by=["HTTPRoute/shop/cart", "HTTPRoute/shop/mixed"]
SecurityPolicy.gateway.envoyproxy.io/infra/edge-security Accepted Some(PartiallyEnforced) by=["HTTPRoute/shop/widgets"]
# explain
HTTPRoute/shop/cart BackendTrafficPolicy.gateway.envoyproxy.io:
  /timeout/http/requestTimeout = HTTPRoute/shop/cart
  /timeout/http/connectionIdleTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry = HTTPRoute/shop/cart
  lost BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic PartiallyOverridden by ["HTTPRoute/shop/cart"] because ["target-value"]
HTTPRoute/shop/cart SecurityPolicy.gateway.envoyproxy.io:
  /cors/allowOrigins = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /cors/allowMethods = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /cors/allowCredentials = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /authorization/defaultAction = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
HTTPRoute/shop/widgets BackendTrafficPolicy.gateway.envoyproxy.io:
  /timeout/http/requestTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /timeout/http/connectionIdleTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/numRetries = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/retryOn/triggers = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/retryOn/httpStatusCodes = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
HTTPRoute/shop/widgets SecurityPolicy.gateway.envoyproxy.io:
  /cors = HTTPRoute/shop/widgets
  /authorization/defaultAction = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  lost SecurityPolicy.gateway.envoyproxy.io/infra/edge-security PartiallyOverridden by ["HTTPRoute/shop/widgets"] because ["target-value"]
HTTPRoute/shop/mixed BackendTrafficPolicy.gateway.envoyproxy.io:
  /timeout/http/requestTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /timeout/http/connectionIdleTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/numRetries = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/retryOn/triggers = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/retryOn/httpStatusCodes = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
HTTPRoute/shop/mixed SecurityPolicy.gateway.envoyproxy.io:
  /cors/allowOrigins = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /cors/allowMethods = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /cors/allowCredentials = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /authorization/defaultAction = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
HTTPRoute/shop/mixed#fast BackendTrafficPolicy.gateway.envoyproxy.io:
  /timeout/http/requestTimeout = HTTPRoute/shop/mixed
  /timeout/http/connectionIdleTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/numRetries = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/retryOn/triggers = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  /retry/retryOn/httpStatusCodes = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic
  lost BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic PartiallyOverridden by ["HTTPRoute/shop/mixed"] because ["target-value"]
HTTPRoute/shop/mixed#fast SecurityPolicy.gateway.envoyproxy.io:
  /cors/allowOrigins = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /cors/allowMethods = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /cors/allowCredentials = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
  /authorization/defaultAction = SecurityPolicy.gateway.envoyproxy.io/infra/edge-security
# hover on the routes
HTTPRoute/shop/cart: requestTimeout: 5s  # HTTPRoute/shop/cart (own value)
HTTPRoute/shop/cart: retry: {attempts: 2, codes: [502]}  # HTTPRoute/shop/cart (own value)
HTTPRoute/shop/cart: Lost: `infra/edge-traffic` (PartiallyOverridden) to `HTTPRoute/shop/cart` — target-value
HTTPRoute/shop/widgets: cors: {allowOrigins: ["https://widgets.example.com"]}  # HTTPRoute/shop/widgets (own value)
HTTPRoute/shop/widgets: Lost: `infra/edge-security` (PartiallyOverridden) to `HTTPRoute/shop/widgets` — target-value
# hover on the policies
BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic: **Accepted** · PartiallyEnforced | `Gateway/infra/edge`
On `HTTPRoute/shop/cart`:
- `timeout.http.connectionIdleTimeout: "60s"` · wins (AtomicDefaults)
- PartiallyOverridden by `HTTPRoute/shop/cart` (target-value)
On `HTTPRoute/shop/mixed#fast`:
- `timeout.http.connectionIdleTimeout: "60s"` · wins (AtomicDefaults)
- `retry.numRetries: 5` · wins (AtomicDefaults)
- `retry.retryOn.triggers: ["connect-failure","retriable-status-codes"]` · wins (AtomicDefaults)
- `retry.retryOn.httpStatusCodes: [503]` · wins (AtomicDefaults)
- PartiallyOverridden by `HTTPRoute/shop/mixed` (target-value)
On `HTTPRoute/shop/widgets`, `HTTPRoute/shop/mixed#slow` (same on 2 objects):
- `timeout.http.requestTimeout: "30s"` · wins (AtomicDefaults)
- `timeout.http.connectionIdleTimeout: "60s"` · wins (AtomicDefaults)
- `retry.numRetries: 5` · wins (AtomicDefaults)
- `retry.retryOn.triggers: ["connect-failure","retriable-status-codes"]` · wins (AtomicDefaults)
- `retry.retryOn.httpStatusCodes: [503]` · wins (AtomicDefaults)
SecurityPolicy.gateway.envoyproxy.io/infra/edge-security: **Accepted** · PartiallyEnforced | `Gateway/infra/edge`
On `HTTPRoute/shop/widgets`:
- `authorization.defaultAction: "Deny"` · wins (AtomicDefaults)
- PartiallyOverridden by `HTTPRoute/shop/widgets` (target-value)
On `HTTPRoute/shop/cart`, `HTTPRoute/shop/mixed#fast`, `HTTPRoute/shop/mixed#slow` (same on 3 objects):
- `cors.allowOrigins: ["https://shop.example.com"]` · wins (AtomicDefaults)
- `cors.allowMethods: ["GET","POST"]` · wins (AtomicDefaults)
- `cors.allowCredentials: true` · wins (AtomicDefaults)
- `authorization.defaultAction: "Deny"` · wins (AtomicDefaults)
# lens
BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-traffic: affects 3 routes · partly superseded
SecurityPolicy.gateway.envoyproxy.io/infra/edge-security: affects 3 routes · partly superseded
"#;

const MERGE_TYPES_EXPECTED: &str = r#"
# check
"edge-limits" information[partially-overridden] `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits`: on `HTTPRoute/shop/search`, its whole spec; it is still in effect on 1 of the 2 effective targets it reaches
# status
BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits Accepted Some(PartiallyEnforced) by=["BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits"]
BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits Accepted Some(Enforced) by=[]
BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits Accepted Some(Enforced) by=[]
SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors Accepted Some(Enforced) by=[]
SecurityPolicy.gateway.envoyproxy.io/shop/cart-authz Accepted Some(Enforced) by=[]
# explain
HTTPRoute/shop/cart BackendTrafficPolicy.gateway.envoyproxy.io:
  /rateLimit/type = BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits
  /rateLimit/global/rules/0/clientSelectors = BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits
  /rateLimit/global/rules/0/limit/requests = BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits
  /rateLimit/global/rules/0/limit/unit = BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits
  /rateLimit/global/rules/1/limit/requests = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits
  /rateLimit/global/rules/1/limit/unit = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits
  /rateLimit/global/rules/1/shared = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits
  /rateLimit/global/rules/2/clientSelectors = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits
  /rateLimit/global/rules/2/limit/requests = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits
  /rateLimit/global/rules/2/limit/unit = BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits
HTTPRoute/shop/cart SecurityPolicy.gateway.envoyproxy.io:
  /cors/allowOrigins = SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors
  /cors/allowMethods = SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors
  /authorization/defaultAction = SecurityPolicy.gateway.envoyproxy.io/shop/cart-authz
  /authorization/rules = SecurityPolicy.gateway.envoyproxy.io/shop/cart-authz
HTTPRoute/shop/search BackendTrafficPolicy.gateway.envoyproxy.io:
  /rateLimit/type = BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits
  /rateLimit/global/rules = BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits
  lost BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits Overridden by ["BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits"] because ["patched"]
HTTPRoute/shop/search SecurityPolicy.gateway.envoyproxy.io:
  /cors/allowOrigins = SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors
  /cors/allowMethods = SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors
# hover on the routes
HTTPRoute/shop/search: Lost: `infra/edge-limits` (Overridden) to `shop/search-limits` — patched
# hover on the policies
BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits: **Accepted** · PartiallyEnforced | `Gateway/infra/edge`
On `HTTPRoute/shop/search`:
- Overridden by `shop/search-limits` (patched)
On `HTTPRoute/shop/cart`:
- `rateLimit.global.rules.1.limit.requests: 1000` · wins (AtomicDefaults)
- `rateLimit.global.rules.1.limit.unit: "Hour"` · wins (AtomicDefaults)
- `rateLimit.global.rules.1.shared: true` · wins (AtomicDefaults)
- `rateLimit.global.rules.2.clientSelectors: [{"headers":[{"name":"x-tenant","type":"Distinct"}]}]` · wins (AtomicDefaults)
- `rateLimit.global.rules.2.limit.requests: 50` · wins (AtomicDefaults)
- `rateLimit.global.rules.2.limit.unit: "Minute"` · wins (AtomicDefaults)
SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors: **Accepted** · Enforced
BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits: **Accepted** · Enforced
BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits: **Accepted** · Enforced
SecurityPolicy.gateway.envoyproxy.io/shop/cart-authz: **Accepted** · Enforced
# lens
BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-limits: affects 1 route · partly superseded
SecurityPolicy.gateway.envoyproxy.io/infra/edge-cors: affects 2 routes
BackendTrafficPolicy.gateway.envoyproxy.io/shop/cart-limits: affects 1 route
BackendTrafficPolicy.gateway.envoyproxy.io/shop/search-limits: affects 1 route
SecurityPolicy.gateway.envoyproxy.io/shop/cart-authz: affects 1 route
"#;
