//! `fixtures/conformance/controllers-unsupported-kinds` through every surface: `check`'s
//! diagnostics, `status`, `explain`, hover and code lens must tell one story about which
//! controller serves each Gateway and which policies it ignores (docs/semantics.md §4.4.1).

use std::fmt::Write as _;

use super::{assert_lines, fixture, render_check, render_explains, render_policy_hovers, render_policy_lenses};

const WORKSPACE: &str =
    include_str!("../../../../../fixtures/conformance/controllers-unsupported-kinds/workspace.yaml");
const TARGETS: &str = include_str!("../../../../../fixtures/conformance/controllers-unsupported-kinds/targets.txt");

#[test]
fn controllers_every_surface_agrees() {
    let f = fixture(&format!("//- workspace.yaml\n{WORKSPACE}"));
    let snap = &f.snap;
    let world = snap.world();
    let mut got = String::new();

    got.push_str("# check\n");
    render_check(snap, true, &mut got);

    got.push_str("# status\n");
    for p in snap.effective().report(world).policies {
        let _ = writeln!(
            got,
            "{} {:?} {:?} affects={:?}{}",
            p.policy,
            p.accepted.reason,
            p.enforcement,
            p.affects,
            p.ignored.map(|i| format!(" ignored={}: {}", i.reason, i.message)).unwrap_or_default()
        );
    }

    got.push_str("# explain\n");
    render_explains(snap, TARGETS.lines(), &mut got, |target, ex, got| {
        let kinds: Vec<String> = ex
            .policies
            .iter()
            .map(|k| {
                let ps: Vec<&str> = k.contexts.iter().flat_map(|c| c.policies.iter().map(String::as_str)).collect();
                format!("{} [{}]", k.kind, ps.join(", "))
            })
            .collect();
        let _ = writeln!(got, "{target}: {}", kinds.join("; "));
        for i in &ex.ignored {
            let _ = writeln!(got, "  ignored {} {}", i.policy, i.reason);
        }
        // The paths of the route both Gateways serve: the policy is in one context only.
        if target.ends_with("/both") {
            for c in ex.policies.iter().flat_map(|k| &k.contexts) {
                let _ = writeln!(got, "  via {}: {} {:?}", c.path.join(" > "), c.effective, c.policies);
            }
            for i in &ex.ignored {
                let _ = writeln!(got, "  {}: {}", i.policy, i.message);
            }
        }
    });

    got.push_str("# hover\n");
    render_policy_hovers(
        snap,
        "workspace.yaml",
        |p| {
            p.starts_with("Accepted")
                || p.starts_with("**Accepted")
                || p.starts_with("**Unsupported")
                || p.starts_with("**Ignored by some")
        },
        &mut got,
    );

    got.push_str("# lens\n");
    render_policy_lenses(snap, "workspace.yaml", &mut got);
    assert_lines(&got, EXPECTED);
}

const EXPECTED: &str = r##"
# check
"acme" warning[gateway-class-not-found] GatewayClass/acme does not exist in the workspace; declare it in `external` if the cluster provides it
"mesh-edge" warning[unsupported-by-controller] `BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio` does nothing: the Gateway it reaches is served by a controller that does not implement BackendTrafficPolicy.gateway.envoyproxy.io (it is implemented by Envoy Gateway): `Gateway/infra/mesh-edge` by Istio (`istio.io/gateway-controller`)
  related "istio": `Gateway/infra/mesh-edge` is served by Istio (`istio.io/gateway-controller`)
"on-eg" information[partially-overridden] `BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both`: on `HTTPRoute/shop/both`, its whole spec; it is still in effect on 1 of the 2 effective targets it reaches
  related "on-both": `BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both` supersedes it
"cart" warning[unsupported-by-controller] `RateLimitPolicy.kuadrant.io/shop/cart-limits` does nothing: the Gateway it reaches is served by a controller that does not implement RateLimitPolicy.kuadrant.io (it is implemented by Istio, Envoy Gateway): `Gateway/infra/nginx-edge` by NGINX Gateway Fabric (`gateway.nginx.org/nginx-gateway-controller`)
  related "nginx": `Gateway/infra/nginx-edge` is served by NGINX Gateway Fabric (`gateway.nginx.org/nginx-gateway-controller`)
# status
BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg Accepted Some(PartiallyEnforced) affects=["HTTPRoute/shop/pay"]
BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio Accepted Some(NotEnforced) affects=[] ignored=UnsupportedByController: the Gateway it reaches is served by a controller that does not implement BackendTrafficPolicy.gateway.envoyproxy.io (it is implemented by Envoy Gateway): `Gateway/infra/mesh-edge` by Istio (`istio.io/gateway-controller`)
BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both Accepted Some(Enforced) affects=["HTTPRoute/shop/both"]
ClientTrafficPolicy.gateway.envoyproxy.io/infra/on-unknown Accepted Some(Enforced) affects=["Gateway/infra/lb-edge#http"]
DNSPolicy.kuadrant.io/infra/nginx-dns Accepted Some(Enforced) affects=["Gateway/infra/nginx-edge#http"]
RateLimitPolicy.kuadrant.io/shop/cart-limits Accepted Some(NotEnforced) affects=[] ignored=UnsupportedByController: the Gateway it reaches is served by a controller that does not implement RateLimitPolicy.kuadrant.io (it is implemented by Istio, Envoy Gateway): `Gateway/infra/nginx-edge` by NGINX Gateway Fabric (`gateway.nginx.org/nginx-gateway-controller`)
RateLimitPolicy.kuadrant.io/shop/store-limits Accepted Some(Enforced) affects=["HTTPRoute/shop/store"]
# explain
Gateway/infra/mesh-edge: 
  ignored BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio UnsupportedByController
HTTPRoute/shop/store: RateLimitPolicy.kuadrant.io [RateLimitPolicy.kuadrant.io/shop/store-limits]
  ignored BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio UnsupportedByController
HTTPRoute/shop/cart: 
  ignored RateLimitPolicy.kuadrant.io/shop/cart-limits UnsupportedByController
HTTPRoute/shop/pay: BackendTrafficPolicy.gateway.envoyproxy.io [BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg]
HTTPRoute/shop/both: BackendTrafficPolicy.gateway.envoyproxy.io [BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg, BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both]
  ignored BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio UnsupportedByController
  ignored BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both UnsupportedByController
  via GatewayClass/eg > Gateway/infra/eg-edge > Gateway/infra/eg-edge#http > HTTPRoute/shop/both: {"timeout":{"http":{"requestTimeout":"9s"}}} ["BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg", "BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both"]
  BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio: the Gateway it reaches is served by a controller that does not implement BackendTrafficPolicy.gateway.envoyproxy.io (it is implemented by Envoy Gateway): `Gateway/infra/mesh-edge` by Istio (`istio.io/gateway-controller`)
  BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both: it takes part in nothing under `Gateway/infra/mesh-edge`, served by Istio (`istio.io/gateway-controller`): its controller does not implement BackendTrafficPolicy.gateway.envoyproxy.io (it is implemented by Envoy Gateway); the other Gateways it reaches act on it
# hover
BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio: **Accepted** · NotEnforced | **Unsupported by its controller**: the Gateway it reaches is served by a controller that does not implement BackendTrafficPolicy.gateway.envoyproxy.io (it is implemented by Envoy Gateway): `Gateway/infra/mesh-edge` by Istio (`istio.io/gateway-controller`)
BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg: **Accepted** · PartiallyEnforced
RateLimitPolicy.kuadrant.io/shop/cart-limits: **Accepted** · NotEnforced | **Unsupported by its controller**: the Gateway it reaches is served by a controller that does not implement RateLimitPolicy.kuadrant.io (it is implemented by Istio, Envoy Gateway): `Gateway/infra/nginx-edge` by NGINX Gateway Fabric (`gateway.nginx.org/nginx-gateway-controller`)
RateLimitPolicy.kuadrant.io/shop/store-limits: **Accepted** · Enforced
DNSPolicy.kuadrant.io/infra/nginx-dns: **Accepted** · Enforced
ClientTrafficPolicy.gateway.envoyproxy.io/infra/on-unknown: **Accepted** · Enforced
BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both: **Accepted** · Enforced | **Ignored by some of its Gateways**: it takes part in nothing under `Gateway/infra/mesh-edge`, served by Istio (`istio.io/gateway-controller`): its controller does not implement BackendTrafficPolicy.gateway.envoyproxy.io (it is implemented by Envoy Gateway); the other Gateways it reaches act on it
# lens
BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-istio: does nothing: its Gateways' controller does not implement it
BackendTrafficPolicy.gateway.envoyproxy.io/infra/on-eg: affects 1 route · partly superseded
RateLimitPolicy.kuadrant.io/shop/cart-limits: does nothing: its Gateways' controller does not implement it
RateLimitPolicy.kuadrant.io/shop/store-limits: affects 1 route
DNSPolicy.kuadrant.io/infra/nginx-dns: affects 1 listener
ClientTrafficPolicy.gateway.envoyproxy.io/infra/on-unknown: affects 1 listener
BackendTrafficPolicy.gateway.envoyproxy.io/shop/on-both: affects 1 route
"##;
