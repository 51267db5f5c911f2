//! What a target *is* under its implementation, through every surface (issue 31 §2): Istio
//! ServiceEntry ports and Envoy Gateway Backend ports as sections, the HTTPRoute Envoy AI Gateway
//! generates from an AIGatewayRoute, and the VirtualHostOptions a Gloo Edge VirtualService takes
//! in by `delegateOptions`. Each test walks one `fixtures/conformance` workspace: `check`,
//! `status`, `explain`, hover and code lens must tell one story.

use std::fmt::Write as _;

use super::{assert_lines, fixture, render_check, render_explains, render_policy_hovers, render_policy_lenses};

/// check, status, explain (winners and losers per context), the policies' hovers (status and
/// losses) and lenses of one conformance workspace.
fn every_surface(workspace: &str, targets: &str) -> (super::Fixture, String) {
    let f = fixture(&format!("//- workspace.yaml\n{workspace}"));
    let snap = &f.snap;
    let world = snap.world();
    let mut got = String::new();
    got.push_str("# check\n");
    render_check(snap, false, &mut got);
    got.push_str("# status\n");
    for p in snap.effective().report(world).policies {
        let _ = writeln!(got, "{} {:?} {:?} affects={:?}", p.policy, p.accepted.reason, p.enforcement, p.affects);
    }
    got.push_str("# explain\n");
    render_explains(snap, targets.lines(), &mut got, |target, ex, got| {
        for k in &ex.policies {
            for c in &k.contexts {
                let _ = writeln!(got, "{target} via {}:", c.path.join(" > "));
                for p in &c.provenance {
                    let _ = writeln!(got, "  {} = {}", p.field, p.policy);
                }
                for l in &c.lost {
                    let _ = writeln!(got, "  lost {} {} by {:?}", l.policy, l.outcome, l.by);
                }
            }
        }
    });
    got.push_str("# hover\n");
    render_policy_hovers(
        snap,
        "workspace.yaml",
        |p| p.starts_with("Accepted") || p.starts_with("**Accepted") || p.starts_with("**Not") || p.contains("by `"),
        &mut got,
    );
    got.push_str("# lens\n");
    render_policy_lenses(snap, "workspace.yaml", &mut got);
    (f, got)
}

macro_rules! conformance {
    ($dir:literal) => {
        (
            include_str!(concat!("../../../../../fixtures/conformance/", $dir, "/workspace.yaml")),
            include_str!(concat!("../../../../../fixtures/conformance/", $dir, "/targets.txt")),
        )
    };
}

#[test]
fn istio_service_entry_ports_are_sections() {
    let (ws, targets) = conformance!("istio-serviceentry-ports");
    let (_, got) = every_surface(ws, targets);
    assert_lines(&got, SERVICE_ENTRY);
}

#[test]
fn envoy_gateway_backend_sections_are_port_numbers() {
    let (ws, targets) = conformance!("envoy-gateway-backend-sections");
    let (_, got) = every_surface(ws, targets);
    assert_lines(&got, EG_BACKEND);
}

#[test]
fn gloo_edge_virtual_service_takes_in_virtual_host_options() {
    let (ws, targets) = conformance!("gloo-edge-delegate-options");
    let (_, got) = every_surface(ws, targets);
    assert_lines(&got, GLOO_DELEGATE);
}

#[test]
fn the_route_envoy_ai_gateway_generates_is_in_the_topology() {
    let (ws, targets) = conformance!("envoy-ai-gateway-generated-route");
    let (f, mut got) = every_surface(ws, targets);
    let snap = &f.snap;
    let world = snap.world();
    let text = snap.file("workspace.yaml").map(|s| s.text().to_owned()).unwrap_or_default();
    // The targetRef's name: defined by the AIGatewayRoute, never renamed from here.
    let at = text.find("kind: HTTPRoute, name: llm").map_or(0, |i| i + "kind: HTTPRoute, name: ".len()) as u32;
    got.push_str("# definition\n");
    for l in crate::analysis::definition(snap, "workspace.yaml", at) {
        let _ = writeln!(got, "{}", super::show(snap, &l.file, l.span));
    }
    let _ = writeln!(got, "# rename\n{:?}", crate::analysis::prepare_rename(snap, "workspace.yaml", at));
    if let Some(h) = crate::analysis::hover(snap, "workspace.yaml", at) {
        let _ = writeln!(got, "# hover on the targetRef\n{}", h.markdown);
    }
    // The AIGatewayRoute's own hover and lens speak for the route it generates.
    let route = crate::analysis::refs::objects_in(world, "workspace.yaml")
        .into_iter()
        .find(|&o| world.object(o).kind() == "AIGatewayRoute");
    if let Some(id) = route {
        let o = world.object(id);
        if let Some(h) = crate::analysis::hover(snap, "workspace.yaml", o.name.span.start) {
            let _ = writeln!(got, "# hover on the AIGatewayRoute ({:?})\n{}", h.target, h.markdown);
        }
        for l in crate::analysis::code_lenses(snap, "workspace.yaml").iter().filter(|l| l.span.start == o.span.start) {
            let _ = writeln!(got, "# lens on the AIGatewayRoute\n{}", l.title);
        }
    }
    assert_lines(&got, AI_GATEWAY);
}

const SERVICE_ENTRY: &str = r#"
# check
"payments-all" information[partially-overridden] `BackendTLSPolicy/shop/payments-all` is superseded in part by `BackendTLSPolicy/shop/payments-admin`: on `ServiceEntry.networking.istio.io/shop/payments#admin`, its whole spec; it is still in effect on 1 of the 2 effective targets it reaches
"admn" error[section-not-found] ServiceEntry.networking.istio.io/shop/payments has no port named `admn`; did you mean `admin`? (ports: `https`, `admin`)
# status
BackendTLSPolicy/shop/payments-admin Accepted Some(Enforced) affects=["ServiceEntry.networking.istio.io/shop/payments#admin"]
BackendTLSPolicy/shop/payments-all Accepted Some(PartiallyEnforced) affects=["ServiceEntry.networking.istio.io/shop/payments#https"]
BackendTLSPolicy/shop/payments-typo TargetNotFound None affects=[]
# explain
ServiceEntry.networking.istio.io/shop/payments#https via ServiceEntry.networking.istio.io/shop/payments > ServiceEntry.networking.istio.io/shop/payments#https:
  /validation/hostname = BackendTLSPolicy/shop/payments-all
  /validation/wellKnownCACertificates = BackendTLSPolicy/shop/payments-all
ServiceEntry.networking.istio.io/shop/payments#admin via ServiceEntry.networking.istio.io/shop/payments > ServiceEntry.networking.istio.io/shop/payments#admin:
  /validation/hostname = BackendTLSPolicy/shop/payments-admin
  /validation/caCertificateRefs = BackendTLSPolicy/shop/payments-admin
  lost BackendTLSPolicy/shop/payments-all Overridden by ["BackendTLSPolicy/shop/payments-admin"]
ServiceEntry.networking.istio.io/shop/payments via ServiceEntry.networking.istio.io/shop/payments:
  /validation/hostname = BackendTLSPolicy/shop/payments-all
  /validation/wellKnownCACertificates = BackendTLSPolicy/shop/payments-all
# hover
BackendTLSPolicy/shop/payments-all: **Accepted** · PartiallyEnforced | `ServiceEntry.networking.istio.io/shop/payments`
On `ServiceEntry.networking.istio.io/shop/payments#admin`:
- Overridden by `shop/payments-admin` (section-wins)
On `ServiceEntry.networking.istio.io/shop/payments#https`:
- `validation.hostname: "api.payments.example"` · wins (None)
- `validation.wellKnownCACertificates: "System"` · wins (None)
BackendTLSPolicy/shop/payments-admin: **Accepted** · Enforced
BackendTLSPolicy/shop/payments-typo: **Not accepted** · TargetNotFound
# lens
BackendTLSPolicy/shop/payments-all: affects 1 port · partly superseded
BackendTLSPolicy/shop/payments-admin: affects 1 port
BackendTLSPolicy/shop/payments-typo: not accepted: TargetNotFound
"#;

const EG_BACKEND: &str = r#"
# check
"upstream-all" warning[overridden] nothing `BackendTLSPolicy/shop/upstream-all` sets is in effect: everything is superseded by `BackendTLSPolicy/shop/upstream-port`
"https" error[section-not-found] Backend.gateway.envoyproxy.io/shop/upstream has no port named `https` (Envoy Gateway names a Backend's sections by port number: `443`)
# status
BackendTLSPolicy/shop/upstream-all Accepted Some(Overridden) affects=[]
BackendTLSPolicy/shop/upstream-named TargetNotFound None affects=[]
BackendTLSPolicy/shop/upstream-port Accepted Some(Enforced) affects=["Backend.gateway.envoyproxy.io/shop/upstream#443"]
# explain
Backend.gateway.envoyproxy.io/shop/upstream#443 via GatewayClass/eg > Gateway/shop/edge > Gateway/shop/edge#http > HTTPRoute/shop/web > HTTPRoute/shop/web#api > Backend.gateway.envoyproxy.io/shop/upstream > Backend.gateway.envoyproxy.io/shop/upstream#443:
  /validation/hostname = BackendTLSPolicy/shop/upstream-port
  /validation/wellKnownCACertificates = BackendTLSPolicy/shop/upstream-port
  lost BackendTLSPolicy/shop/upstream-all Overridden by ["BackendTLSPolicy/shop/upstream-port"]
Backend.gateway.envoyproxy.io/shop/upstream via GatewayClass/eg > Gateway/shop/edge > Gateway/shop/edge#http > HTTPRoute/shop/web > HTTPRoute/shop/web#api > Backend.gateway.envoyproxy.io/shop/upstream:
  /validation/hostname = BackendTLSPolicy/shop/upstream-all
  /validation/wellKnownCACertificates = BackendTLSPolicy/shop/upstream-all
# hover
BackendTLSPolicy/shop/upstream-all: **Accepted** · Overridden | `Backend.gateway.envoyproxy.io/shop/upstream`
On `Backend.gateway.envoyproxy.io/shop/upstream#443`:
- Overridden by `shop/upstream-port` (section-wins)
BackendTLSPolicy/shop/upstream-port: **Accepted** · Enforced
BackendTLSPolicy/shop/upstream-named: **Not accepted** · TargetNotFound
# lens
BackendTLSPolicy/shop/upstream-all: affects nothing: overridden everywhere
BackendTLSPolicy/shop/upstream-port: affects 1 port
BackendTLSPolicy/shop/upstream-named: not accepted: TargetNotFound
"#;

const GLOO_DELEGATE: &str = r#"
# check
"shop-headers" error[target-not-found] VirtualHostOption.gateway.solo.io/web/shop-headers does not exist: Gloo skips it with a warning, and its options do not reach this virtual host
"" error[target-ref-fields] VirtualHostOption has no target: add `targetRefs`
# status
VirtualHostOption.gateway.solo.io/gloo-system/shop-cors Accepted Some(Enforced) affects=["VirtualService.gateway.solo.io/web/shop"]
VirtualHostOption.gateway.solo.io/web/unused Invalid None affects=[]
# explain
VirtualService.gateway.solo.io/web/shop via VirtualService.gateway.solo.io/web/shop:
  /options/cors = VirtualHostOption.gateway.solo.io/gloo-system/shop-cors
# hover
VirtualHostOption.gateway.solo.io/gloo-system/shop-cors: **Accepted** · Enforced
VirtualHostOption.gateway.solo.io/web/unused: **Not accepted** · Invalid
# lens
VirtualHostOption.gateway.solo.io/gloo-system/shop-cors: affects 1 VirtualService
VirtualHostOption.gateway.solo.io/web/unused: not accepted: Invalid
"#;

const AI_GATEWAY: &str = r#"
# check
# status
BackendTrafficPolicy.gateway.envoyproxy.io/ai/gateway-timeouts Accepted Some(Enforced) affects=["HTTPRoute/ai/llm"]
BackendTrafficPolicy.gateway.envoyproxy.io/ai/llm-fallback Accepted Some(Enforced) affects=["HTTPRoute/ai/llm"]
# explain
HTTPRoute/ai/llm via GatewayClass/eg > Gateway/ai/ai-gw > Gateway/ai/ai-gw#http > HTTPRoute/ai/llm:
  /timeout/http/requestTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/ai/gateway-timeouts
  /retry/numRetries = BackendTrafficPolicy.gateway.envoyproxy.io/ai/llm-fallback
  /retry/retryOn/triggers = BackendTrafficPolicy.gateway.envoyproxy.io/ai/llm-fallback
  /retry/retryOn/httpStatusCodes = BackendTrafficPolicy.gateway.envoyproxy.io/ai/llm-fallback
Gateway/ai/ai-gw via GatewayClass/eg > Gateway/ai/ai-gw:
  /timeout/http/requestTimeout = BackendTrafficPolicy.gateway.envoyproxy.io/ai/gateway-timeouts
# hover
BackendTrafficPolicy.gateway.envoyproxy.io/ai/gateway-timeouts: **Accepted** · Enforced
BackendTrafficPolicy.gateway.envoyproxy.io/ai/llm-fallback: **Accepted** · Enforced
# lens
BackendTrafficPolicy.gateway.envoyproxy.io/ai/gateway-timeouts: affects 1 route
BackendTrafficPolicy.gateway.envoyproxy.io/ai/llm-fallback: affects 1 route
# definition
workspace.yaml:25 "llm"
# rename
None
# hover on the targetRef
AIGatewayRoute.aigateway.envoyproxy.io ai/llm · 0 rules · 1 parentRef · HTTPRoute/ai/llm is generated from it by its controller (Envoy AI Gateway)

**`ai/llm-fallback` here** · Accepted · Enforced

- `retry.numRetries: 5` · wins (PatchDefaults)
- `retry.retryOn.triggers: ["connect-failure","retriable-status-codes"]` · wins (PatchDefaults)
- `retry.retryOn.httpStatusCodes: [500]` · wins (PatchDefaults)
# hover on the AIGatewayRoute (Some("HTTPRoute/ai/llm"))
**AIGatewayRoute.aigateway.envoyproxy.io ai/llm · 0 rules · 1 parentRef**

**BackendTrafficPolicy.gateway.envoyproxy.io** · `ai/gateway-timeouts`, `ai/llm-fallback`

`GatewayClass/eg` › `Gateway/ai/ai-gw` › `Gateway/ai/ai-gw#http` › `HTTPRoute/ai/llm`
```yaml
timeout:
  http:
    requestTimeout: 60s  # ai/gateway-timeouts · AtomicDefaults
retry:
  numRetries: 5  # ai/llm-fallback · PatchDefaults
  retryOn:
    triggers: [connect-failure, retriable-status-codes]  # ai/llm-fallback · PatchDefaults
    httpStatusCodes: [500]  # ai/llm-fallback · PatchDefaults
```
# lens on the AIGatewayRoute
2 policies affect this
"#;
