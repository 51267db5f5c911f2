//! One fixture per diagnostic code: exact code, severity, file, range and message.

use crate::analysis::fixture;

/// Runs the analysis on `fixture` and compares every diagnostic, rendered as
/// `file "covered text" severity[code] message`, with `expect`; the ranges must be exactly
/// the `$0…$0` marks, in order.
pub(super) fn check(fixture: &str, expect: &str) {
    let mut f = fixture::parse(fixture);
    let snap = f.workspace.snapshot();
    let mut got = String::new();
    let mut spans = Vec::new();
    for (file, diags) in snap.diagnostics() {
        for d in diags {
            let text = snap.source(file).map(|s| s.slice(d.span).to_owned()).unwrap_or_default();
            got.push_str(&format!("{file} {text:?} {}[{}] {}\n", d.severity.as_str(), d.code.as_str(), d.message));
            spans.push((file.to_string(), d.span));
        }
    }
    assert_eq!(got.trim(), expect.trim(), "diagnostics differ; got:\n{got}");
    let mut marks = f.ranges();
    marks.sort();
    let mut sorted = spans.clone();
    sorted.sort();
    assert_eq!(sorted, marks, "diagnostic ranges differ from the $0 marks");
}

const GATEWAY: &str = r#"//- infra.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    exposed: "true"
---
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
        from: All
  - name: https
    port: 443
    protocol: HTTPS
    hostname: "*.example.com"
    allowedRoutes:
      namespaces:
        from: Selector
        selector:
          matchLabels:
            exposed: "true"
  - name: internal
    port: 8080
    protocol: HTTP
"#;

const SHOP: &str = r#"//- shop.yaml
apiVersion: v1
kind: Service
metadata:
  name: checkout
  namespace: shop
spec:
  ports:
  - name: http
    port: 80
  - name: grpc
    port: 9090
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: store
  namespace: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
    sectionName: https
  hostnames: ["shop.example.com"]
  rules:
  - name: pay
    backendRefs:
    - name: checkout
      port: 80
  - backendRefs:
    - name: checkout
      port: 9090
"#;

fn fixture(parts: &[&str]) -> String {
    parts.concat()
}

#[test]
fn clean_workspace_has_no_diagnostics() {
    check(&fixture(&[GATEWAY, SHOP]), "");
}

#[test]
fn target_not_found_proposes_the_closest_name() {
    let policy = r#"//- policy.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: $0chekout$0
  validation:
    hostname: checkout.shop
    wellKnownCACertificates: System
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "chekout" error[target-not-found] Service/shop/chekout does not exist; did you mean `checkout`?"#,
    );
}

#[test]
fn a_missing_gateway_class_is_named_without_a_namespace() {
    // GatewayClass is cluster-scoped: the reference reads `GatewayClass/egg`, not
    // `GatewayClass/infra/egg` (Envoy Gateway EnvoyPatchPolicy may target a GatewayClass,
    // api/v1alpha1/envoypatchpolicy_types.go).
    let policy = r#"//- policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyPatchPolicy
metadata:
  name: patch
  namespace: infra
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GatewayClass, name: $0egg$0}
  type: JSONPatch
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "egg" error[target-not-found] GatewayClass/egg does not exist; did you mean `eg`?"#,
    );
}

#[test]
fn section_not_found_lists_the_sections() {
    let policy = r#"//- policy.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: checkout, sectionName: $0htp$0}
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "htp" error[section-not-found] Service/shop/checkout has no port named `htp`; did you mean `http`? (ports: `http`, `grpc`)"#,
    );
}

#[test]
fn target_kind_not_allowed_names_what_is() {
    let policy = r#"//- policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: ctp
  namespace: shop
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: $0HTTPRoute$0
    name: store
"#;
    let mut f = fixture::parse(&fixture(&[GATEWAY, SHOP, policy]));
    let snap = f.workspace.snapshot();
    let d = &snap.diagnostics_for("policy.yaml");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.as_str(), "target-kind-not-allowed");
    assert_eq!(snap.source("policy.yaml").map(|s| s.slice(d[0].span)), Some("HTTPRoute"));
    assert!(
        d[0].message
            .starts_with("ClientTrafficPolicy.gateway.envoyproxy.io cannot target HTTPRoute; it can target `Gateway`"),
        "{}",
        d[0].message
    );
}

#[test]
fn cross_namespace_target_where_the_kind_forbids_it() {
    let policy = r#"//- policy.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: infra
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: checkout
    namespace: $0shop$0
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "shop" error[cross-namespace-target] BackendTLSPolicy can only target objects in its own namespace `infra`; remove `namespace` or move the policy"#,
    );
}

#[test]
fn cross_namespace_target_without_a_grant_names_the_kind_once() {
    // Flomesh FSM policies name targets in other namespaces (flomesh-io/fsm,
    // docs/tests/gateway-api/README.md: a targetRef with `namespace`); without a
    // ReferenceGrant there, the message names the kind in §2.1 form, never a made-up plural
    // of its group ("gateway.flomesh.ios").
    let policy = r#"//- policy.yaml
apiVersion: gateway.flomesh.io/v1alpha1
kind: RateLimitPolicy
metadata:
  name: cross
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: store
    namespace: $0shop$0
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "shop" error[cross-namespace-target] no ReferenceGrant in namespace `shop` lets `RateLimitPolicy.gateway.flomesh.io` policies from `infra` target it; add one to `shop`"#,
    );
}

#[test]
fn invalid_target_ref_fields() {
    let policy = r#"//- policy.yaml
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: rl
  namespace: shop
spec:
  targetRef:
    group: $0gateway.networking.k8s.io/v1$0
    kind: $0HTTPRoute / Gateway$0
    name: store
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "gateway.networking.k8s.io/v1" error[invalid-target-ref] `group` must not include a version: write `gateway.networking.k8s.io`
policy.yaml "HTTPRoute / Gateway" error[invalid-target-ref] `kind` `HTTPRoute / Gateway` is not a valid kind (letters, digits and `-`, starting with a letter, at most 63)"#,
    );
}

#[test]
fn target_ref_fields_both_and_empty() {
    let policy = r#"//- policy.yaml
apiVersion: security.istio.io/v1
kind: AuthorizationPolicy
metadata:
  name: both
  namespace: shop
spec:
  $0targetRef$0:
    kind: Service
    name: checkout
  targetRefs:
  - kind: Service
    name: checkout
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: empty
  namespace: shop
spec:
  targetRefs: $0[]$0
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "targetRef" error[target-ref-fields] AuthorizationPolicy takes `targetRef` or `targetRefs`, not both
policy.yaml "[]" error[target-ref-fields] `targetRefs` is empty: a policy needs at least one target"#,
    );
}

#[test]
fn duplicate_target_ref_points_at_the_repeat() {
    let policy = r#"//- policy.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: checkout, sectionName: http}
  - $0{group: "", kind: Service, name: checkout, sectionName: http}$0
"#;
    check(
        &fixture(&[GATEWAY, SHOP, policy]),
        r#"policy.yaml "{group: \"\", kind: Service, name: checkout, sectionName: http}" warning[duplicate-target-ref] this reference repeats an earlier one; remove it"#,
    );
}

#[test]
fn a_gateway_without_listeners_has_nothing_to_attach_to() {
    // Envoy AI Gateway's `cmd/aigw/testdata/gateway_no_listeners.yaml` has such a Gateway.
    let gw = r#"//- gw.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: bare
  namespace: infra
spec:
  gatewayClassName: eg
  listeners: []
"#;
    let route = r#"//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a
  namespace: infra
spec:
  parentRefs:
  - name: $0bare$0
"#;
    check(
        &fixture(&[gw, route]),
        r#"route.yaml "bare" error[parent-not-found] Gateway/infra/bare has no listeners: nothing to attach to"#,
    );
}

#[test]
fn parent_not_found_and_missing_listener() {
    let route = r#"//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a
  namespace: shop
spec:
  parentRefs:
  - name: $0egde$0
    namespace: infra
  - name: edge
    namespace: infra
    sectionName: $0htps$0
"#;
    check(
        &fixture(&[GATEWAY, SHOP, route]),
        r#"route.yaml "egde" error[parent-not-found] Gateway/infra/egde does not exist; did you mean `edge`?
route.yaml "htps" error[parent-not-found] Gateway/infra/edge has no listener `htps`; did you mean `https`? (listeners: `http`, `https`, `internal`)"#,
    );
}

#[test]
fn a_null_parent_group_is_the_gateway_group_not_core() {
    let route = r#"//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a
  namespace: shop
spec:
  parentRefs:
  - group:
    name: edge
    namespace: infra
  - {group: null, kind: Gateway, name: $0egde$0, namespace: infra}
"#;
    check(
        &fixture(&[GATEWAY, SHOP, route]),
        r#"route.yaml "egde" error[parent-not-found] Gateway/infra/egde does not exist; did you mean `edge`?"#,
    );
}

#[test]
fn route_not_allowed_says_which_listener_refused() {
    let route = r#"//- route.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: blog
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a
  namespace: blog
spec:
  parentRefs:
  - name: $0edge$0
    namespace: infra
    sectionName: https
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: b
  namespace: shop
spec:
  parentRefs:
  - name: $0edge$0
    namespace: infra
    sectionName: https
  hostnames: ["shop.example.org"]
"#;
    check(
        &fixture(&[GATEWAY, SHOP, route]),
        r#"route.yaml "edge" warning[route-not-allowed] Gateway/infra/edge does not admit this route: listener `https` only admits routes from namespaces selected by {exposed=true}, and Namespace `blog` does not match
route.yaml "edge" warning[route-not-allowed] Gateway/infra/edge does not admit this route: listener `https` serves hostname `*.example.com`, which matches none of the route's hostnames (shop.example.org)"#,
    );
}

#[test]
fn backend_not_found_and_not_permitted() {
    let route = r#"//- route.yaml
apiVersion: v1
kind: Service
metadata:
  name: ledger
  namespace: payments
spec:
  ports:
  - port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a
  namespace: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
    sectionName: http
  rules:
  - backendRefs:
    - name: $0checkot$0
      port: 80
    - name: checkout
      port: $08080$0
    - name: ledger
      namespace: $0payments$0
      port: 80
"#;
    check(
        &fixture(&[GATEWAY, SHOP, route]),
        r#"route.yaml "checkot" warning[backend-not-found] Service/shop/checkot does not exist; did you mean `checkout`?
route.yaml "8080" warning[backend-not-found] Service/shop/checkout has no port 8080 (ports: `80`, `9090`)
route.yaml "payments" error[backend-not-permitted] HTTPRoute/shop/a may not refer to Service/payments/ledger: no ReferenceGrant in namespace `payments` allows HTTPRoutes from namespace `shop`; add one to `payments`"#,
    );
}

#[test]
fn reference_grant_admits_a_cross_namespace_backend() {
    let route = r#"//- route.yaml
apiVersion: v1
kind: Service
metadata:
  name: ledger
  namespace: payments
spec:
  ports:
  - port: 80
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata:
  name: shop-to-ledger
  namespace: payments
spec:
  from:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    namespace: shop
  to:
  - group: ""
    kind: Service
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: a
  namespace: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
    sectionName: http
  rules:
  - backendRefs:
    - name: ledger
      namespace: payments
      port: 80
"#;
    check(&fixture(&[GATEWAY, SHOP, route]), "");
}

#[test]
fn yaml_syntax_one_per_broken_document_and_the_rest_still_read() {
    let broken = r#"//- broken.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: nope}
---
apiVersion: v1
kind: Service
metadata:
  name: x: y
---
apiVersion: v1
kind: Service
metadata:
  name: other
  namespace: shop
"#;
    let mut f = fixture::parse(&fixture(&[GATEWAY, SHOP, broken]));
    let snap = f.workspace.snapshot();
    let codes: Vec<&str> = snap.diagnostics_for("broken.yaml").iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["target-not-found", "yaml-syntax"]);
    let world = snap.world();
    let names: Vec<&str> = snap.file("broken.yaml").unwrap().objects.iter().map(|o| o.name.value.as_str()).collect();
    // The broken document still yields what precedes the error (invariant 1).
    assert_eq!(names, ["tls", "x", "other"]);
    assert!(world.object_count() > 3);
}

// Hostile files: few, clear diagnostics (see docs/diagnostics.md, `too-many-problems`).

/// `file line:col severity[code] message` of every diagnostic of `path`.
fn rendered(snap: &crate::workspace::Snapshot, path: &str) -> Vec<String> {
    let file = snap.source(path).expect("the file");
    snap.diagnostics_for(path)
        .iter()
        .map(|d| {
            let p = file.position(d.span.start, crate::syntax::PositionEncoding::Utf8);
            format!("{}:{} {}[{}] {}", p.line, p.character, d.severity.as_str(), d.code.as_str(), d.message)
        })
        .collect()
}

#[test]
fn a_file_with_an_error_on_every_line_lists_200_and_one_counting_the_rest() {
    let mut ws = crate::workspace::Workspace::new();
    let text: String = (0..25_000).map(|i| format!("key{i}: [unclosed\n---\n")).collect();
    ws.set_file("errors.yaml", text.as_str());
    let snap = ws.snapshot();
    let got = rendered(&snap, "errors.yaml");
    assert_eq!(got.len(), 201);
    // One error per broken document, at its first error, no cascade.
    // At the end of the unclosed line, not on the `---` after it.
    assert_eq!(got[0], "0:15 error[yaml-syntax] an unclosed `[`: expected `,` or `]`");
    assert_eq!(got[199], "398:17 error[yaml-syntax] an unclosed `[`: expected `,` or `]`");
    assert_eq!(
        got[200],
        "400:17 error[too-many-problems] and 24800 more problems in this file, not listed (only the first 200 are): 24800 yaml-syntax"
    );
    // The keystroke path caps the same way.
    let base = snap.clone();
    ws.set_file("errors.yaml", format!("{text}# edited\n"));
    let now = ws.snapshot();
    let local = super::local(&now, "errors.yaml", &base, None).expect("a local answer");
    assert_eq!(local.len(), 201);
    assert_eq!(local[200], snap.diagnostics_for("errors.yaml")[200]);
}

#[test]
fn the_count_is_as_severe_as_the_worst_problem_it_hides() {
    // 250 Services defined twice (250 duplicate-object notes in b.yaml: identical copies, with
    // the code turned on), then one broken document: the error is past the first 200, and must
    // still fail `check`.
    let services: String = (0..250)
        .map(|i| format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s{i:03}\n  namespace: x\n"))
        .collect();
    let mut ws = crate::workspace::Workspace::new();
    ws.set_config(Some(".policylens.yaml"), "diagnostics: {duplicate-object: information}\n");
    ws.set_file("a.yaml", services.as_str());
    ws.set_file("b.yaml", format!("{services}---\nkey: [unclosed\n"));
    let snap = ws.snapshot();
    let got = rendered(&snap, "b.yaml");
    assert_eq!(got.len(), 201);
    assert_eq!(
        got[199],
        "1198:8 information[duplicate-object] Service/x/s199 is also defined at a.yaml:1199 (identical copies)"
    );
    assert_eq!(
        got[200],
        "1204:8 error[too-many-problems] and 51 more problems in this file, not listed (only the first 200 are): 1 yaml-syntax, 50 duplicate-object"
    );
    // A third copy: 250 notes and nothing worse, so the count is only a note.
    ws.set_file("c.yaml", services.as_str());
    let snap = ws.snapshot();
    let c = rendered(&snap, "c.yaml");
    assert_eq!(c.len(), 201);
    assert!(
        c[200].starts_with("1204:8 information[too-many-problems] and 50 more problems in this file"),
        "{}",
        c[200]
    );
}

#[test]
fn binary_junk_in_an_editor_buffer_is_one_diagnostic_and_no_analysis() {
    // What an editor sends for a binary file it decoded: NULs (`\u0000` in the JSON) and
    // replacement characters; it even holds an object's text after the first NUL.
    let junk: String = (0..200_000u32)
        .map(|i| char::from_u32(i.wrapping_mul(2_654_435_761) >> 24).unwrap_or('\u{fffd}'))
        .collect::<String>()
        + "\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: hidden\n";
    let mut ws = crate::workspace::Workspace::new();
    ws.set_file("junk.yaml", junk.as_str());
    let snap = ws.snapshot();
    assert_eq!(rendered(&snap, "junk.yaml"), ["0:0 error[yaml-syntax] skipped: binary file (holds NUL bytes)"]);
    assert_eq!(snap.world().object_count(), 0);
}

#[test]
fn deep_nesting_is_one_diagnostic_and_an_alias_bomb_none() {
    let mut ws = crate::workspace::Workspace::new();
    ws.set_file("flow.yaml", format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000)));
    // Five runs of 1,000 ever deeper block keys: one document, so one error.
    let block: String = (0..5_000).map(|i| format!("{}k{i}:\n", " ".repeat(i % 1000))).collect();
    ws.set_file("block.yaml", block);
    let mut bomb = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
    }
    ws.set_file("bomb.yaml", bomb);
    let snap = ws.snapshot();
    assert_eq!(rendered(&snap, "flow.yaml"), ["0:200 error[yaml-syntax] nesting deeper than 200 levels"]);
    assert_eq!(rendered(&snap, "block.yaml").len(), 1, "{:?}", rendered(&snap, "block.yaml"));
    assert_eq!(rendered(&snap, "bomb.yaml"), Vec::<String>::new());
}
