//! Hover: the markdown, exactly, and the span it is about (shown as the text it covers).

use super::{assert_lines, fixture, show, with_base};
use crate::analysis::hover;

fn check(src: &str, expect: &str) {
    let f = fixture(src);
    let got = match hover(&f.snap, &f.file, f.offset) {
        Some(h) => format!("{}\n{}", show(&f.snap, &f.file, h.span), h.markdown),
        None => "none".to_owned(),
    };
    assert_lines(&got, expect);
}

/// Two Envoy Gateway BackendTrafficPolicies: one on the Gateway, one on the route.
const POLICIES: &str = r#"//- policies.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: gw-defaults
  namespace: infra
  creationTimestamp: "2024-01-01T00:00:00Z"
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
  timeout:
    request: 10s
  retry:
    numRetries: 2
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: store-retry
  namespace: shop
  creationTimestamp: "2024-02-01T00:00:00Z"
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: store
  retry:
    numRetries: 5
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: checkout
    sectionName: https
  - group: ""
    kind: Service
    name: cartt
"#;

fn base() -> String {
    with_base(POLICIES)
}

fn at(needle: &str) -> String {
    // Puts the cursor right after the first occurrence of `needle`.
    let src = base();
    let i = src.find(needle).expect("needle in fixture") + needle.len();
    format!("{}$0{}", &src[..i], &src[i..])
}

fn check_at(needle: &str, expect: &str) {
    check(&at(needle), expect);
}

#[test]
fn hover_target_shows_effective_policy_per_path() {
    check_at(
        "kind: HTTPRoute\nmetadata:\n  name: sto",
        r#"
shop.yaml:30 "store"
**HTTPRoute shop/store · 2 rules · 1 parentRef**

**BackendTrafficPolicy.gateway.envoyproxy.io** · `infra/gw-defaults`, `shop/store-retry`

`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/store`
```yaml
retry:
  numRetries: 5  # shop/store-retry · AtomicDefaults
```
Lost: `infra/gw-defaults` (Overridden) to `shop/store-retry` — replaced
"#,
    );
}

#[test]
fn hover_on_kind_of_target() {
    let f = fixture(&at("kind: HTTPR"));
    let h = hover(&f.snap, &f.file, f.offset).expect("hover on kind");
    assert_eq!(show(&f.snap, &f.file, h.span), "shop.yaml:28 \"HTTPRoute\"");
    assert!(h.markdown.starts_with("**HTTPRoute shop/store · 2 rules · 1 parentRef**"));
}

#[test]
fn hover_listener_section() {
    check_at(
        "  - name: http",
        r#"
infra.yaml:16 "http"
**listener http of Gateway infra/edge · HTTP :80**

**BackendTrafficPolicy.gateway.envoyproxy.io** · `infra/gw-defaults`

`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#http`
```yaml
timeout:
  request: 10s  # infra/gw-defaults · AtomicDefaults
retry:
  numRetries: 2  # infra/gw-defaults · AtomicDefaults
```
"#,
    );
}

#[test]
fn hover_target_without_policies() {
    check_at(
        "  name: inter",
        r#"
infra.yaml:33 "internal"
**Gateway infra/internal · 1 listener · class eg**

No policies reach it.
"#,
    );
}

#[test]
fn hover_policy_status() {
    check_at(
        "  name: store-retry",
        r#"
policies.yaml:20 "store-retry"
**BackendTrafficPolicy.gateway.envoyproxy.io** shop/store-retry · Inherited · Envoy Gateway

**Accepted** · Enforced

Targets: `HTTPRoute/shop/store`

Affects 2 objects: `HTTPRoute/shop/store`, `HTTPRoute/shop/store#pay`

**Per target**

`HTTPRoute/shop/store`

- `retry.numRetries: 5` · wins (AtomicDefaults)
"#,
    );
    check_at(
        "  name: gw-def",
        r#"
policies.yaml:4 "gw-defaults"
**BackendTrafficPolicy.gateway.envoyproxy.io** infra/gw-defaults · Inherited · Envoy Gateway

**Accepted** · Overridden

Targets: `Gateway/infra/edge`

Superseded by: `BackendTrafficPolicy.gateway.envoyproxy.io/shop/store-retry` (on `HTTPRoute/shop/store`, its whole spec; on `HTTPRoute/shop/store#pay`, its whole spec)

Affects 0 objects

**Per target**

`Gateway/infra/edge`

On `HTTPRoute/shop/store`, `HTTPRoute/shop/store#pay` (same on 2 objects):
- Overridden by `shop/store-retry` (replaced)
"#,
    );
}

#[test]
fn hover_policy_with_a_broken_ref() {
    check_at(
        "  name: tls",
        r#"
policies.yaml:34 "tls"
**BackendTLSPolicy** shop/tls · Direct · Gateway API

**Accepted** · Enforced

- `Service shop/cartt`: not found; did you mean `cart`?

Targets: `Service/shop/checkout#https`

Affects 1 object: `Service/shop/checkout#https`

**Per target**

`Service/shop/checkout#https`

- sets no field here
"#,
    );
}

#[test]
fn hover_conflicted_policy_and_the_loser_on_the_target() {
    let src = with_base(
        r#"//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: first
  namespace: shop
  creationTimestamp: "2024-01-01T00:00:00Z"
spec:
  targetRefs:
  - {group: "", kind: Service, name: cart}
  validation:
    hostname: a.example.com
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: sec$0ond
  namespace: shop
  creationTimestamp: "2024-03-01T00:00:00Z"
spec:
  targetRefs:
  - {group: "", kind: Service, name: cart}
  validation:
    hostname: b.example.com
"#,
    );
    check(
        &src,
        r#"
tls.yaml:16 "second"
**BackendTLSPolicy** shop/second · Direct · Gateway API

**Not accepted** · Conflicted

Targets: `Service/shop/cart`

Superseded by: `BackendTLSPolicy/shop/first`

Lost a conflict at `Service/shop/cart` to `BackendTLSPolicy/shop/first` (older, or same age and first by name)

**Per target**

`Service/shop/cart`

- Conflicted by `shop/first` (conflict)
"#,
    );
    let on_target = with_base(&format!("{}//- x.yaml\n", src.replace("sec$0ond", "second"))).replacen(
        "  name: cart\n",
        "  name: ca$0rt\n",
        1,
    );
    check(
        &on_target,
        r#"
shop.yaml:21 "cart"
**Service shop/cart · ports 8080**

**BackendTLSPolicy** · `shop/first`, `shop/second`

`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/store` › `Service/shop/cart`
```yaml
validation:
  hostname: a.example.com  # shop/first · None
```
Lost: `shop/second` (Conflicted) to `shop/first` — conflict
"#,
    );
}

#[test]
fn hover_references() {
    // A targetRef: the route it names, then what the policy contributes there.
    check_at(
        "kind: HTTPRoute\n    name: sto",
        r#"
policies.yaml:27 "store"
HTTPRoute shop/store · 2 rules · 1 parentRef

**`shop/store-retry` here** · Accepted · Enforced

- `retry.numRetries: 5` · wins (AtomicDefaults)
"#,
    );
    // A sectionName: the exact listener.
    check_at(
        "    sectionName: ht",
        "shop.yaml:36 \"https\"\nlistener https of Gateway infra/edge · HTTPS :443 · *.example.com",
    );
    // A name that resolves to nothing.
    check_at("    name: cartt", "policies.yaml:44 \"cartt\"\nService shop/cartt · not found; did you mean `cart`?");
    // A backendRef with a port: the port, then what governs the requests this entry sends
    // (the policies on its rule).
    check_at(
        "    - name: checkout\n      port: 44",
        r#"
shop.yaml:41 "443"
port https of Service shop/checkout · 443

**Requests sent here** are governed by the policies on `HTTPRoute/shop/store#pay`:

**BackendTrafficPolicy.gateway.envoyproxy.io** · `infra/gw-defaults`, `shop/store-retry`

`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/store` › `HTTPRoute/shop/store#pay`
```yaml
retry:
  numRetries: 5  # shop/store-retry · AtomicDefaults
```
Lost: `infra/gw-defaults` (Overridden) to `shop/store-retry` — replaced
"#,
    );
    // gatewayClassName.
    check_at(
        "  gatewayClassName: e",
        "infra.yaml:14 \"eg\"\nGatewayClass eg · controller gateway.envoyproxy.io/gatewayclass-controller",
    );
}

#[test]
fn hover_other_ref_fields_and_nothing_elsewhere() {
    // On a ref's `kind`: the whole ref is what the hover is about.
    check_at(
        "spec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: Gateway",
        r#"
policies.yaml:9 "group: gateway.networking.k8s.io\n    kind: Gateway\n    name: edge"
Gateway infra/edge · 2 listeners · class eg

**`infra/gw-defaults` here** · Accepted · Overridden

On `HTTPRoute/shop/store`, `HTTPRoute/shop/store#pay` (same on 2 objects):
- Overridden by `shop/store-retry` (replaced)
"#,
    );
    check_at(
        "spec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: Gateway\n    name: edge\n  time",
        "none",
    );
    check(&format!("{}//- empty.yaml\n$0", base()), "none");
    let f = fixture(&at("  name: tls"));
    for o in 0..f.snap.file(&f.file).map_or(0, |s| s.text().len() as u32 + 2) {
        let _ = hover(&f.snap, &f.file, o);
    }
}

#[test]
fn hover_says_what_was_assumed_or_declared_and_lists_every_definition() {
    let gw = r#"//- .policylens.yaml
external: ["Service/shop/api"]
//- gw.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: Selector
        selector: {matchLabels: {edge: "true"}}
"#;
    let route = |cursor_on_parent: bool| {
        let (p, b) = if cursor_on_parent { ("ed$0ge", "api") } else { ("edge", "a$0pi") };
        format!(
            "//- shop/route.yaml\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  parentRefs:\n  - name: {p}\n    namespace: infra\n  rules:\n  - backendRefs:\n    - name: {b}\n      port: 80\n"
        )
    };
    check(
        &format!("{gw}{}", route(true)),
        "shop/route.yaml:8 \"edge\"\nGateway infra/edge · 1 listener · class eg · namespace `shop` is not in the workspace, so its labels are unknown: the listener's namespace selector is assumed to admit this route",
    );
    check(
        &format!("{gw}{}", route(false)),
        "shop/route.yaml:12 \"api\"\nService shop/api · declared external in .policylens.yaml",
    );
    let copy = |dir: &str, cursor: &str| {
        format!(
            "//- {dir}/svc.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: {cursor}\nspec:\n  ports:\n  - port: 80\n"
        )
    };
    let got = {
        let f = fixture(&format!("{}{}", copy("a", "api"), copy("b", "a$0pi")));
        hover(&f.snap, &f.file, f.offset).map(|h| h.markdown).unwrap_or_default()
    };
    assert!(
        got.ends_with("\n\n**Defined 2 times** (each reference uses the nearest definition):\n- `a/svc.yaml:4`\n- `b/svc.yaml:4` (this one)"),
        "{got}"
    );
}

#[test]
fn hover_on_a_policy_without_target_says_what_it_applies_to() {
    check(
        r#"//- authz.yaml
apiVersion: security.istio.io/v1
kind: AuthorizationPolicy
metadata:
  name: allow-$0frontend
  namespace: shop
spec:
  selector:
    matchLabels: {app: reviews}
  action: ALLOW
"#,
        "authz.yaml:4 \"allow-frontend\"\n**AuthorizationPolicy.security.istio.io** shop/allow-frontend · Inherited · Istio\n\n**Accepted** · Enforced\n\nApplies to the workloads its `selector` picks in namespace `shop` (no targetRef)",
    );
}

#[test]
fn hover_on_a_service_shows_what_reaches_each_port() {
    // BackendTLSPolicy `tls` names the `https` port only; nothing takes effect on the Service
    // as a whole, so before per-port sections this hover said "No policies reach it". The
    // route's BackendTrafficPolicies take effect on the route, and govern every request it
    // sends the Service: the hover shows them from the Service back.
    check_at(
        "kind: Service\nmetadata:\n  name: check",
        r#"
shop.yaml:9 "checkout"
**Service shop/checkout · ports http:80, https:443**

**Port `https`** · 443

**BackendTLSPolicy** · `shop/tls`

`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/store` › `HTTPRoute/shop/store#pay` › `Service/shop/checkout` › `Service/shop/checkout#https`
```yaml
{}
```

**Traffic to it**: the policies on each route (or rule) that sends it requests

**From `HTTPRoute/shop/store#pay`**

**BackendTrafficPolicy.gateway.envoyproxy.io** · `infra/gw-defaults`, `shop/store-retry`

`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/store` › `HTTPRoute/shop/store#pay`
```yaml
retry:
  numRetries: 5  # shop/store-retry · AtomicDefaults
```
Lost: `infra/gw-defaults` (Overridden) to `shop/store-retry` — replaced
"#,
    );
}

#[test]
fn hover_on_a_policy_istio_leaves_to_another_controller_says_so() {
    let src = r#"//- infra.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: istio
spec:
  controllerName: istio.io/gateway-controller
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - {name: https, port: 443}
//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: for-$0other
  annotations:
    istio.io/ignore-policy-attachment: "true"
spec:
  targetRefs:
  - {group: "", kind: Service, name: web, sectionName: https}
  validation:
    hostname: web.example.com
    wellKnownCACertificates: System
"#;
    let f = fixture(src);
    let h = hover(&f.snap, &f.file, f.offset).expect("hover");
    assert!(
        h.markdown.contains("**Ignored by Istio**: it is annotated `istio.io/ignore-policy-attachment: \"true\"` and Istio serves what it reaches"),
        "{}",
        h.markdown
    );
    assert!(h.markdown.contains("Accepted** · NotEnforced"), "{}", h.markdown);
}

#[test]
fn hover_says_which_argo_cd_application_applied_an_object_and_with_what_namespace() {
    // One Application per list element; the route names no namespace, so each generated
    // Application's destination namespace is its namespace (docs/semantics.md §4.7).
    let f = fixture(
        r#"//- argocd/tenants.yaml
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: tenants
  namespace: argocd
spec:
  goTemplate: true
  generators:
  - list:
      elements:
      - tenant: blue
  template:
    metadata:
      name: 'tenant-{{.tenant}}'
    spec:
      source:
        repoURL: https://git.example.com/gitops.git
        path: tenants/base
      destination:
        namespace: 'tenant-{{.tenant}}'
//- tenants/base/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: por$0tal
"#,
    );
    let got = hover(&f.snap, &f.file, f.offset).map(|h| h.markdown).unwrap_or_default();
    assert!(
        got.ends_with("\n\nApplied by the Argo CD Application `argocd/tenant-blue` of the ApplicationSet `argocd/tenants` (argocd/tenants.yaml) with destination namespace `tenant-blue`."),
        "{got}"
    );
    assert!(got.contains("tenant-blue/portal"), "{got}");
}
