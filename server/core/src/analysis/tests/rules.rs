//! Implementation rules that decide whether a policy takes effect, each through every surface:
//! `check`'s findings, `status`, `explain`, hover and code lens must tell one story.
//!
//! - `fixtures/conformance/envoy-gateway-target-before-backend`: targets resolve before the
//!   spec's backends (docs/semantics.md §4.8, §5.1).
//! - `fixtures/conformance/gamma-mesh-cross-namespace-backends`: a mesh route's backendRefs
//!   need no ReferenceGrant (§4.3).
//! - `fixtures/conformance/nginx-gateway-fabric-ratelimit-additive`: NGINX Gateway Fabric applies
//!   a Gateway's and a route's RateLimitPolicy together (docs/kinds.md).

use std::fmt::Write as _;

use super::{assert_lines, fixture, render_check, render_explains, render_policy_hovers, render_policy_lenses};

macro_rules! conformance {
    ($name:literal, $file:literal) => {
        include_str!(concat!("../../../../../fixtures/conformance/", $name, "/", $file))
    };
}

/// Check, status (with the Accepted message), explain (paths, effective values, ignored),
/// hovers and lenses of the policies in `workspace.yaml`.
fn every_surface(src: &str, targets: &str, keep_hover: impl Fn(&str) -> bool) -> String {
    let f = fixture(src);
    let snap = &f.snap;
    let world = snap.world();
    let mut got = String::new();

    got.push_str("# check\n");
    render_check(snap, false, &mut got);

    got.push_str("# status\n");
    for p in snap.effective().report(world).policies {
        let _ = writeln!(
            got,
            "{} {:?} {:?} affects={:?}{}",
            p.policy,
            p.accepted.reason,
            p.enforcement,
            p.affects,
            p.accepted.message.map(|m| format!(": {m}")).unwrap_or_default()
        );
    }

    got.push_str("# explain\n");
    render_explains(snap, targets.lines(), &mut got, |target, ex, got| {
        let _ = writeln!(got, "{target}:");
        for k in &ex.policies {
            for c in &k.contexts {
                let _ = writeln!(got, "  via {}: {} {:?}", c.path.join(" > "), c.effective, c.policies);
            }
        }
        for i in &ex.ignored {
            let _ = writeln!(got, "  ignored {} {}: {}", i.policy, i.reason, i.message);
        }
    });

    got.push_str("# hover\n");
    render_policy_hovers(snap, "workspace.yaml", keep_hover, &mut got);

    got.push_str("# lens\n");
    render_policy_lenses(snap, "workspace.yaml", &mut got);
    got
}

#[test]
fn target_before_backend_every_surface_agrees() {
    let src = format!("//- workspace.yaml\n{}", conformance!("envoy-gateway-target-before-backend", "workspace.yaml"));
    let got = every_surface(&src, conformance!("envoy-gateway-target-before-backend", "targets.txt"), |p| {
        p.starts_with("**Accepted") || p.starts_with("**Not accepted") || p.starts_with("- `")
    });
    assert_lines(
        &got,
        r##"
# check
"orders" error[target-not-found] HTTPRoute/billing/orders does not exist
"ext-auth" warning[backend-not-found] Service/billing/ext-auth does not exist
"refunds" error[section-not-found] HTTPRoute/billing/checkout has no rule named `refunds` (rules: `pay`)
"ext-proc" warning[backend-not-found] Service/billing/ext-proc does not exist
"ext-auth" warning[backend-not-found] Service/billing/ext-auth does not exist: Envoy Gateway rejects the policy and answers requests on its targets with HTTP 500
# status
EnvoyExtensionPolicy.gateway.envoyproxy.io/billing/to-missing-rule TargetNotFound None affects=[]: no target resolves: HTTPRoute/billing/checkout has no rule `refunds`
SecurityPolicy.gateway.envoyproxy.io/billing/broken-backend Invalid None affects=[]: its spec names Service/billing/ext-auth, which does not exist; Envoy Gateway answers requests on its targets with HTTP 500 until it is fixed
SecurityPolicy.gateway.envoyproxy.io/billing/to-missing-route TargetNotFound None affects=[]: no target resolves: HTTPRoute/billing/orders does not exist
# explain
HTTPRoute/billing/checkout:
# hover
SecurityPolicy.gateway.envoyproxy.io/billing/to-missing-route: **Not accepted** · TargetNotFound | - `HTTPRoute billing/orders`: not found
- `Service billing/ext-auth`: not found
EnvoyExtensionPolicy.gateway.envoyproxy.io/billing/to-missing-rule: **Not accepted** · TargetNotFound | - `HTTPRoute billing/checkout`: no rule `refunds`
- `Service billing/ext-proc`: not found
SecurityPolicy.gateway.envoyproxy.io/billing/broken-backend: **Not accepted** · Invalid | - `Service billing/ext-auth`: not found
# lens
SecurityPolicy.gateway.envoyproxy.io/billing/to-missing-route: not accepted: TargetNotFound
EnvoyExtensionPolicy.gateway.envoyproxy.io/billing/to-missing-rule: not accepted: TargetNotFound
SecurityPolicy.gateway.envoyproxy.io/billing/broken-backend: not accepted: Invalid
"##,
    );
}

#[test]
fn mesh_backends_every_surface_agree() {
    let src = format!(
        "//- .policylens.yaml\n{}\n//- workspace.yaml\n{}",
        conformance!("gamma-mesh-cross-namespace-backends", ".policylens.yaml"),
        conformance!("gamma-mesh-cross-namespace-backends", "workspace.yaml")
    );
    let got = every_surface(&src, conformance!("gamma-mesh-cross-namespace-backends", "targets.txt"), |p| {
        p.starts_with("**Accepted") || p.starts_with("Affects")
    });
    assert_lines(
        &got,
        r##"
# check
"mesh" error[backend-not-permitted] HTTPRoute/consumer/edge-route may not refer to Service/mesh/echo: no ReferenceGrant in namespace `mesh` allows HTTPRoutes from namespace `consumer`; add one to `mesh`
"edge-route" information[affects-nothing] `ColorPolicy.policies.example.com/consumer/red` is accepted but affects nothing yet: there is no Service below its targets
# status
ColorPolicy.policies.example.com/consumer/blue Accepted Some(Enforced) affects=["Service/mesh/echo-v2#http"]
ColorPolicy.policies.example.com/consumer/red Accepted Some(Enforced) affects=[]
# explain
Service/mesh/echo-v2:
  via Service/mesh/echo > HTTPRoute/consumer/consumer-route > Service/mesh/echo-v2: {"color":"blue"} ["ColorPolicy.policies.example.com/consumer/blue"]
Service/mesh/echo:
# hover
ColorPolicy.policies.example.com/consumer/blue: **Accepted** · Enforced | Affects 1 object: `Service/mesh/echo-v2#http`
ColorPolicy.policies.example.com/consumer/red: **Accepted** · Enforced | Affects 0 objects
# lens
ColorPolicy.policies.example.com/consumer/blue: affects 1 port
ColorPolicy.policies.example.com/consumer/red: affects nothing
"##,
    );
}

#[test]
fn nginx_rate_limits_every_surface_agree() {
    let src =
        format!("//- workspace.yaml\n{}", conformance!("nginx-gateway-fabric-ratelimit-additive", "workspace.yaml"));
    let got = every_surface(&src, conformance!("nginx-gateway-fabric-ratelimit-additive", "targets.txt"), |p| {
        p.starts_with("**Accepted") || p.starts_with("Superseded")
    });
    assert_lines(
        &got,
        r##"
# check
"gateway-body" information[partially-overridden] `ClientSettingsPolicy.gateway.nginx.org/billing/gateway-body` is superseded in part by `ClientSettingsPolicy.gateway.nginx.org/billing/checkout-body`: on `HTTPRoute/billing/checkout`, `body.maxSize`; it is still in effect on each of the 2 effective targets it reaches
# status
ClientSettingsPolicy.gateway.nginx.org/billing/checkout-body Accepted Some(Enforced) affects=["HTTPRoute/billing/checkout"]
ClientSettingsPolicy.gateway.nginx.org/billing/gateway-body Accepted Some(PartiallyEnforced) affects=["HTTPRoute/billing/catalog", "HTTPRoute/billing/checkout"]
RateLimitPolicy.gateway.nginx.org/billing/checkout-limit Accepted Some(Enforced) affects=["HTTPRoute/billing/checkout"]
RateLimitPolicy.gateway.nginx.org/billing/gateway-limit Accepted Some(Enforced) affects=["HTTPRoute/billing/catalog", "HTTPRoute/billing/checkout"]
# explain
HTTPRoute/billing/checkout:
  via GatewayClass/nginx > Gateway/billing/edge > Gateway/billing/edge#http > HTTPRoute/billing/checkout: {"body":{"maxSize":"1m","timeout":"30s"}} ["ClientSettingsPolicy.gateway.nginx.org/billing/gateway-body", "ClientSettingsPolicy.gateway.nginx.org/billing/checkout-body"]
  via GatewayClass/nginx > Gateway/billing/edge > Gateway/billing/edge#http > HTTPRoute/billing/checkout: {"RateLimitPolicy.gateway.nginx.org/billing/gateway-limit":{"rateLimit":{"local":{"rules":[{"rate":"100r/s","key":"$binary_remote_addr","zoneSize":"10m"}]},"rejectCode":503}},"RateLimitPolicy.gateway.nginx.org/billing/checkout-limit":{"rateLimit":{"local":{"rules":[{"rate":"5r/s","key":"$binary_remote_addr","zoneSize":"10m","burst":5}]},"rejectCode":429}}} ["RateLimitPolicy.gateway.nginx.org/billing/gateway-limit", "RateLimitPolicy.gateway.nginx.org/billing/checkout-limit"]
HTTPRoute/billing/catalog:
  via GatewayClass/nginx > Gateway/billing/edge > Gateway/billing/edge#http > HTTPRoute/billing/catalog: {"body":{"maxSize":"10m","timeout":"30s"}} ["ClientSettingsPolicy.gateway.nginx.org/billing/gateway-body"]
  via GatewayClass/nginx > Gateway/billing/edge > Gateway/billing/edge#http > HTTPRoute/billing/catalog: {"RateLimitPolicy.gateway.nginx.org/billing/gateway-limit":{"rateLimit":{"local":{"rules":[{"rate":"100r/s","key":"$binary_remote_addr","zoneSize":"10m"}]},"rejectCode":503}}} ["RateLimitPolicy.gateway.nginx.org/billing/gateway-limit"]
# hover
RateLimitPolicy.gateway.nginx.org/billing/gateway-limit: **Accepted** · Enforced
RateLimitPolicy.gateway.nginx.org/billing/checkout-limit: **Accepted** · Enforced
ClientSettingsPolicy.gateway.nginx.org/billing/gateway-body: **Accepted** · PartiallyEnforced | Superseded by: `ClientSettingsPolicy.gateway.nginx.org/billing/checkout-body` (on `HTTPRoute/billing/checkout`, `body.maxSize`)
ClientSettingsPolicy.gateway.nginx.org/billing/checkout-body: **Accepted** · Enforced
# lens
RateLimitPolicy.gateway.nginx.org/billing/gateway-limit: affects 2 routes
RateLimitPolicy.gateway.nginx.org/billing/checkout-limit: affects 1 route
ClientSettingsPolicy.gateway.nginx.org/billing/gateway-body: affects 2 routes · partly superseded
ClientSettingsPolicy.gateway.nginx.org/billing/checkout-body: affects 1 route
"##,
    );
}
