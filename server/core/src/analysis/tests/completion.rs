//! Completion: one line per item in order, `label(label detail) [kind] detail => insert`, after a
//! first line with the text `replace` covers (the same for every item).

use super::{assert_lines, fixture, with_base};
use crate::analysis::completions;

fn check(src: &str, expect: &str) {
    let f = fixture(src);
    let items = completions(&f.snap, &f.file, f.offset);
    let mut got = String::new();
    if let Some(first) = items.first() {
        let text = f.snap.file(&f.file).map(|s| s.slice(first.replace).to_owned()).unwrap_or_default();
        got.push_str(&format!("replace {text:?}\n"));
    }
    for i in &items {
        assert_eq!(i.replace, items[0].replace, "every item replaces the same span");
        let ld = i.label_detail.as_deref().unwrap_or("");
        let detail = i.detail.as_deref().unwrap_or("-");
        let insert = if i.insert_text == i.label { String::new() } else { format!(" => {:?}", i.insert_text) };
        got.push_str(&format!("{}{ld} [{:?}] {detail}{insert}\n", i.label, i.kind));
    }
    assert_lines(&got, expect);
}

const BTP_HEAD: &str = "apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: retry
  namespace: shop
";

fn policy(body: &str) -> String {
    with_base(&format!("//- policy.yaml\n{BTP_HEAD}{body}"))
}

/// The same policy in namespace `ns`.
fn policy_in(ns: &str, body: &str) -> String {
    let head = BTP_HEAD.replace("namespace: shop", &format!("namespace: {ns}"));
    with_base(&format!("//- policy.yaml\n{head}{body}"))
}

#[test]
fn completion_kind_lists_allowed_targets_with_group_when_missing() {
    check(
        &policy("spec:\n  targetRefs:\n  - kind: $0\n    name: store\n"),
        r#"
replace ""
Gateway (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
ListenerSet (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
HTTPRoute (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
GRPCRoute (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
UDPRoute (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
TCPRoute (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
TLSRoute (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
"#,
    );
}

#[test]
fn completion_kind_with_group_written() {
    let src = with_base(
        "//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - group: \"\"
    kind: Se$0
",
    );
    check(&src, "replace \"Se\"\nService [Kind] core");
}

#[test]
fn completion_group_values() {
    let src = with_base(
        "//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - group: $0
",
    );
    check(
        &src,
        r#"
replace ""
"" [Kind] core: Service
gateway.envoyproxy.io [Kind] Backend
networking.istio.io [Kind] ServiceEntry
multicluster.x-k8s.io [Kind] ServiceImport
gateway.kgateway.dev [Kind] Backend
inference.networking.k8s.io [Kind] InferencePool
inference.networking.x-k8s.io [Kind] InferencePool
"#,
    );
}

#[test]
fn completion_name_same_file_first_then_namespace() {
    let src = with_base(&format!(
        "//- policy.yaml
{BTP_HEAD}spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: st$0
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: search
  namespace: shop
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: elsewhere
  namespace: other
"
    ));
    check(
        &src,
        r#"
replace "st"
search [Reference] HTTPRoute shop/search · 0 rules · 0 parentRefs
store [Reference] HTTPRoute shop/store · 2 rules · 1 parentRef
"#,
    );
}

#[test]
fn completion_name_without_kind_offers_every_allowed_kind() {
    check(
        &policy("spec:\n  targetRef:\n    name: $0\n"),
        r#"
replace ""
store [Reference] HTTPRoute shop/store · 2 rules · 1 parentRef
"#,
    );
}

#[test]
fn completion_name_cross_namespace_kind_offers_other_namespaces() {
    let src = with_base(
        "//- consul.yaml
apiVersion: consul.hashicorp.com/v1alpha1
kind: GatewayPolicy
metadata:
  name: gp
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: $0
",
    );
    check(
        &src,
        r#"
replace ""
edge (infra) [Reference] Gateway infra/edge · 2 listeners · class eg
internal (infra) [Reference] Gateway infra/internal · 1 listener · class eg
"#,
    );
}

#[test]
fn completion_name_in_named_namespace() {
    let src = with_base(
        "//- consul.yaml
apiVersion: consul.hashicorp.com/v1alpha1
kind: GatewayPolicy
metadata:
  name: gp
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    namespace: infra
    name: e$0
",
    );
    check(
        &src,
        r#"
replace "e"
edge [Reference] Gateway infra/edge · 2 listeners · class eg
internal [Reference] Gateway infra/internal · 1 listener · class eg
"#,
    );
}

#[test]
fn completion_namespace_only_when_allowed() {
    check(&policy("spec:\n  targetRef:\n    kind: HTTPRoute\n    namespace: $0\n"), "");
    let src = with_base(
        "//- consul.yaml
apiVersion: consul.hashicorp.com/v1alpha1
kind: GatewayPolicy
metadata:
  name: gp
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
    namespace: $0
",
    );
    check(
        &src,
        r#"
replace ""
infra [Namespace] has Gateway infra/edge · 2 listeners · class eg
shop [Namespace] -
"#,
    );
}

#[test]
fn completion_section_name_listeners() {
    check(
        &policy(
            "spec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: Gateway\n    name: edge\n    sectionName: $0\n",
        ),
        "",
    );
    let src = with_base(
        "//- ctp.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: ctp
  namespace: infra
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
    sectionName: ht$0
",
    );
    check(
        &src,
        r#"
replace "ht"
http [Section] listener · HTTP :80
https [Section] listener · HTTPS :443 · *.example.com
"#,
    );
}

#[test]
fn completion_section_name_ports_and_unsupported() {
    let tls = |kind: &str, group: &str| {
        with_base(&format!(
            "//- tls.yaml
apiVersion: {group}/v1
kind: {kind}
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - group: \"\"
    kind: Service
    name: checkout
    sectionName: $0
"
        ))
    };
    check(
        &tls("BackendTLSPolicy", "gateway.networking.k8s.io"),
        r#"
replace ""
http [Section] port · 80
https [Section] port · 443
"#,
    );
    // XBackendTrafficPolicy cannot be scoped to a port.
    check(&tls("XBackendTrafficPolicy", "gateway.networking.x-k8s.io"), "");
}

#[test]
fn completion_strategy_values() {
    let kuadrant = |stanza: &str| {
        with_base(&format!(
            "//- auth.yaml
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: auth
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: store
  {stanza}:
    strategy: $0
"
        ))
    };
    let expect = r#"
replace ""
atomic [Value] {S}
merge [Value] Custom
"#;
    check(&kuadrant("defaults"), &expect.replace("{S}", "AtomicDefaults"));
    check(&kuadrant("overrides"), &expect.replace("{S}", "AtomicOverrides"));
    check(
        &policy("spec:\n  targetRef:\n    kind: HTTPRoute\n    name: store\n  mergeType: $0\n"),
        r#"
replace ""
StrategicMerge [Value] PatchDefaults
JSONMerge [Value] PatchDefaults
"#,
    );
}

#[test]
fn completion_strategy_values_of_a_configured_gep_kind() {
    let src = with_base(
        "//- .policylens.yaml
policyKinds:
  - group: policies.example.com
    kind: ColorPolicy
    class: Inherited
    targets:
      - {group: gateway.networking.k8s.io, kind: Gateway}
//- color.yaml
apiVersion: policies.example.com/v1
kind: ColorPolicy
metadata:
  name: p1
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
  overrides:
    strategy: p$0
",
    );
    check(
        &src,
        r#"
replace "p"
atomic [Value] AtomicOverrides
patch [Value] PatchOverrides
"#,
    );
}

#[test]
fn completion_snippet_for_new_list_item() {
    let src = with_base(
        "//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - $0
",
    );
    check(
        &src,
        r#"
replace ""
Service reference [Snippet] targetRefs entry · core => "group: \"\"\n    kind: Service\n    name: ${1|cart,checkout|}"
Backend reference [Snippet] targetRefs entry · gateway.envoyproxy.io => "group: gateway.envoyproxy.io\n    kind: Backend\n    name: ${1:name}"
ServiceEntry reference [Snippet] targetRefs entry · networking.istio.io => "group: networking.istio.io\n    kind: ServiceEntry\n    name: ${1:name}"
ServiceImport reference [Snippet] targetRefs entry · multicluster.x-k8s.io => "group: multicluster.x-k8s.io\n    kind: ServiceImport\n    name: ${1:name}"
Backend reference [Snippet] targetRefs entry · gateway.kgateway.dev => "group: gateway.kgateway.dev\n    kind: Backend\n    name: ${1:name}"
InferencePool reference [Snippet] targetRefs entry · inference.networking.k8s.io => "group: inference.networking.k8s.io\n    kind: InferencePool\n    name: ${1:name}"
InferencePool reference [Snippet] targetRefs entry · inference.networking.x-k8s.io => "group: inference.networking.x-k8s.io\n    kind: InferencePool\n    name: ${1:name}"
"#,
    );
}

fn first_insert(src: &str) -> (String, String) {
    let f = fixture(src);
    let items = completions(&f.snap, &f.file, f.offset);
    let i = items.first().expect("an item");
    let text = f.snap.file(&f.file).map(|s| s.slice(i.replace).to_owned()).unwrap_or_default();
    (text, i.insert_text.clone())
}

#[test]
fn completion_snippet_forms() {
    let tls = |body: &str| {
        with_base(&format!(
            "//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
{body}"
        ))
    };
    let name = "${1|cart,checkout|}";
    // After `targetRefs:` on its line: a block list below, dashes at the key's column.
    assert_eq!(
        first_insert(&tls("  targetRefs: $0\n")),
        (String::new(), format!("\n  - group: \"\"\n    kind: Service\n    name: {name}"))
    );
    // On a blank line under `targetRefs:`.
    assert_eq!(
        first_insert(&tls("  targetRefs:\n    $0\n")),
        (String::new(), format!("- group: \"\"\n      kind: Service\n      name: {name}"))
    );
    // A word already typed on the new item is replaced.
    assert_eq!(
        first_insert(&tls("  targetRefs:\n  - kind: Service\n    name: cart\n  - Ser$0\n")),
        ("Ser".to_owned(), format!("group: \"\"\n    kind: Service\n    name: {name}"))
    );
    // Indented list style.
    assert_eq!(
        first_insert(&tls("  targetRefs:\n    - kind: Service\n      name: cart\n    $0\n")),
        (String::new(), format!("- group: \"\"\n      kind: Service\n      name: {name}"))
    );
}

#[test]
fn completion_snippet_for_singular_target_ref() {
    let src = with_base(&format!("//- policy.yaml\n{BTP_HEAD}spec:\n  targetRef: $0\n"));
    let (replaced, insert) = first_insert(&src);
    assert_eq!(replaced, "");
    assert_eq!(insert, "\n    group: gateway.networking.k8s.io\n    kind: Gateway\n    name: ${1:name}");
}

#[test]
fn completion_route_parent_refs() {
    let route = |body: &str| {
        with_base(&format!(
            "//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: shop
spec:
  parentRefs:
{body}"
        ))
    };
    check(
        &route("  - namespace: infra\n    name: $0\n"),
        r#"
replace ""
edge [Reference] Gateway infra/edge · 2 listeners · class eg
internal [Reference] Gateway infra/internal · 1 listener · class eg
"#,
    );
    check(
        &route("  - name: edge\n    namespace: infra\n    sectionName: $0\n"),
        r#"
replace ""
http [Section] listener · HTTP :80
https [Section] listener · HTTPS :443 · *.example.com
"#,
    );
    check(
        &route("  - name: edge\n    namespace: $0\n"),
        r#"
replace ""
infra [Namespace] has Gateway infra/edge · 2 listeners · class eg
shop [Namespace] -
"#,
    );
    check(
        &route("  - name: edge\n    kind: $0\n"),
        r#"
replace ""
Gateway (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
ListenerSet (gateway.networking.k8s.io) [Kind] gateway.networking.k8s.io
Service (core) [Kind] core
"#,
    );
}

#[test]
fn completion_route_backend_refs() {
    let route = |body: &str| {
        with_base(&format!(
            "//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: shop
spec:
  rules:
  - backendRefs:
{body}"
        ))
    };
    check(
        &route("    - name: c$0\n"),
        r#"
replace "c"
cart [Reference] Service shop/cart · ports 8080
checkout [Reference] Service shop/checkout · ports http:80, https:443
"#,
    );
    check(
        &route("    - name: checkout\n      port: $0\n"),
        r#"
replace ""
80 [Value] port · http
443 [Value] port · https
"#,
    );
}

#[test]
fn completion_while_typing() {
    // A flow mapping, its value not typed yet.
    let flow = policy_in("infra", "spec:\n  targetRefs:\n  - {kind: Gateway, name: $0}\n");
    let expect = r#"
replace ""
edge [Reference] Gateway infra/edge · 2 listeners · class eg
internal [Reference] Gateway infra/internal · 1 listener · class eg
"#;
    check(&flow, expect);
    // Right after the colon: the value brings its space.
    let tight = policy_in("infra", "spec:\n  targetRefs:\n  - kind: Gateway\n    name:$0");
    check(
        &tight,
        r#"
replace ""
edge [Reference] Gateway infra/edge · 2 listeners · class eg => " edge"
internal [Reference] Gateway infra/internal · 1 listener · class eg => " internal"
"#,
    );
    // At the end of the file, and with another part of the document broken.
    let broken = policy("spec:\n  defaults: [\n  bad: : :\n  targetRefs:\n  - kind: HTTPRoute\n    name: $0");
    check(&broken, "replace \"\"\nstore [Reference] HTTPRoute shop/store · 2 rules · 1 parentRef");
}

#[test]
fn completion_nowhere_useful_is_empty() {
    check(&policy("spec:\n  targetRefs:\n  - kind: HTTPRoute\n    name: store\n  foo: $0\n"), "");
    check(&with_base("//- x.yaml\n$0"), "");
    let f = fixture(&policy("spec:\n  targetRef:\n    name: é$0\n"));
    for o in 0..f.snap.file(&f.file).map_or(0, |s| s.text().len() as u32 + 3) {
        let _ = completions(&f.snap, &f.file, o);
    }
}

#[test]
fn completion_section_name_at_end_of_file_and_in_a_list() {
    let src = with_base(
        "//- ctp.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: ctp
  namespace: infra
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
    sectionName: $0",
    );
    check(
        &src,
        r#"
replace ""
http [Section] listener · HTTP :80
https [Section] listener · HTTPS :443 · *.example.com
"#,
    );
    // The same inside a `kind: List` item.
    let list = with_base(
        "//- list.yaml
apiVersion: v1
kind: List
items:
- apiVersion: gateway.envoyproxy.io/v1alpha1
  kind: ClientTrafficPolicy
  metadata:
    name: ctp
    namespace: infra
  spec:
    targetRefs:
    - group: gateway.networking.k8s.io
      kind: Gateway
      name: edge
      sectionName: h$0
",
    );
    check(
        &list,
        r#"
replace "h"
http [Section] listener · HTTP :80
https [Section] listener · HTTPS :443 · *.example.com
"#,
    );
}

#[test]
fn completion_of_backends_in_a_policy_spec() {
    // Envoy Gateway's extAuth backendRefs (envoyproxy/gateway v1.9.0
    // internal/gatewayapi/testdata/securitypolicy-with-extauth-backendrefs.in.yaml).
    let sp = |body: &str| {
        with_base(&format!(
            "//- sp.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: auth
  namespace: shop
spec:
  targetRef: {{group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}}
  extAuth:
    http:
{body}"
        ))
    };
    check(
        &sp("      backendRefs:\n      - name: c$0\n"),
        r#"
replace "c"
cart [Reference] Service shop/cart · ports 8080
checkout [Reference] Service shop/checkout · ports http:80, https:443
"#,
    );
    check(
        &sp("      backendRef:\n        name: checkout\n        port: $0\n"),
        r#"
replace ""
80 [Value] port · http
443 [Value] port · https
"#,
    );
    // Not a path the kind declares: nothing.
    check(&sp("      headersToBackend:\n      - name: c$0\n"), "");
}

/// A comment is prose: nothing completes there, not even on a line whose value would
/// complete (issue 33: completion replaced words in comments).
#[test]
fn completion_offers_nothing_inside_a_comment() {
    check(&policy("spec:\n  targetRefs:\n  # $0\n  - kind: HTTPRoute\n    name: store\n"), "");
    check(&policy("spec:\n  targetRefs:\n  - kind: HTTPRoute\n    name: store  # the sto$0\n"), "");
    check(&policy("# which kind: $0\nspec:\n  targetRefs:\n  - kind: HTTPRoute\n"), "");
}

#[test]
fn completion_in_a_value_holding_a_hash_is_not_a_comment() {
    let f = fixture(&policy("spec:\n  targetRefs:\n  - kind: HTTPRoute\n    name: \"a #b\"\n    sectionName: $0\n"));
    assert!(!crate::analysis::cursor::in_comment(f.snap.file(&f.file).unwrap().text(), f.offset));
    let text = "a: \"x # y\" # real\nb: 'it''s # no' $\nc: x#y\n";
    let at = |needle: &str| text.find(needle).unwrap() as u32;
    assert!(!crate::analysis::cursor::in_comment(text, at(" y\"")));
    assert!(crate::analysis::cursor::in_comment(text, at("real")));
    assert!(!crate::analysis::cursor::in_comment(text, at(" no'")));
    assert!(!crate::analysis::cursor::in_comment(text, at("y\n")));
}
