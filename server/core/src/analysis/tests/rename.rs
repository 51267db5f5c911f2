//! Rename: prepare (the span and current name) and every edit, `file:line "old" -> new`.

use super::{EXTENSION, assert_lines, cursor_after, fixture, show, with_base};
use crate::analysis::{prepare_rename, rename};

fn check(src: &str, new_name: &str, expect: &str) {
    let f = fixture(src);
    let got = match rename(&f.snap, &f.file, f.offset, new_name) {
        Ok(edits) => edits
            .iter()
            .map(|e| format!("{} -> {}", show(&f.snap, &e.file, e.span), e.new_text))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("error: {e}"),
    };
    assert_lines(&got, expect);
}

fn prepare(src: &str) -> String {
    let f = fixture(src);
    match prepare_rename(&f.snap, &f.file, f.offset) {
        Some((span, name)) => format!("{} {name}", show(&f.snap, &f.file, span)),
        None => "none".into(),
    }
}

const POLICIES: &str = r#"//- policies.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: "checkout"
    sectionName: https
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: ctp
  namespace: infra
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: edge, sectionName: https}
"#;

fn at(file: &str, needle: &str) -> String {
    let src = with_base(POLICIES);
    let from = src.find(&format!("//- {file}")).expect("file");
    let i = from + src[from..].find(needle).expect("needle") + needle.len();
    format!("{}$0{}", &src[..i], &src[i..])
}

#[test]
fn rename_prepare_only_on_names() {
    assert_eq!(prepare(&at("infra.yaml", "  name: ed")), "infra.yaml:11 \"edge\" edge");
    assert_eq!(prepare(&at("infra.yaml", "  - name: htt")), "infra.yaml:16 \"http\" http");
    // Inside the quotes of a quoted reference.
    assert_eq!(prepare(&at("policies.yaml", "name: \"che")), "policies.yaml:10 \"checkout\" checkout");
    assert_eq!(prepare(&at("policies.yaml", "name: edg")), "policies.yaml:19 \"edge\" edge");
    // Not on a kind, a policy, a port number, or a Namespace.
    assert_eq!(prepare(&at("infra.yaml", "kind: Gatewa")), "none");
    assert_eq!(prepare(&at("policies.yaml", "  name: tl")), "none");
    assert_eq!(prepare(&at("shop.yaml", "      port: 44")), "none");
    assert_eq!(prepare(&at("shop.yaml", "  name: sho")), "none");
}

#[test]
fn rename_gateway_everywhere() {
    check(
        &at("infra.yaml", "  name: ed"),
        "front",
        r#"
infra.yaml:11 "edge" -> front
policies.yaml:19 "edge" -> front
shop.yaml:34 "edge" -> front
"#,
    );
}

#[test]
fn rename_listener_from_a_reference() {
    // The BackendTLSPolicy's sectionName names a Service port.
    check(
        &at("policies.yaml", "sectionName: htt"),
        "secure",
        r#"
policies.yaml:11 "https" -> secure
shop.yaml:15 "https" -> secure
"#,
    );
    check(
        &at("policies.yaml", "name: edge, sectionName: htt"),
        "secure",
        r#"
infra.yaml:22 "https" -> secure
policies.yaml:19 "https" -> secure
shop.yaml:36 "https" -> secure
"#,
    );
}

#[test]
fn rename_service_and_port() {
    // The quoted reference keeps its quotes; the backendRef is renamed too.
    check(
        &at("shop.yaml", "  name: checko"),
        "payments",
        r#"
policies.yaml:10 "checkout" -> payments
shop.yaml:9 "checkout" -> payments
shop.yaml:40 "checkout" -> payments
"#,
    );
    // A port name: sectionNames follow; the backendRef's port number is not a name.
    check(
        &at("shop.yaml", "  - name: https"),
        "tls",
        r#"
policies.yaml:11 "https" -> tls
shop.yaml:15 "https" -> tls
"#,
    );
}

#[test]
fn rename_rejects_invalid_and_taken_names() {
    check(
        &at("shop.yaml", "  name: checko"),
        "Payments",
        "error: `Payments` is not a valid Service name: lowercase letters, digits and `-`, starting with a letter and ending with a letter or digit, at most 63 characters",
    );
    check(
        &at("shop.yaml", "  name: checko"),
        "1st",
        "error: `1st` is not a valid Service name: lowercase letters, digits and `-`, starting with a letter and ending with a letter or digit, at most 63 characters",
    );
    check(&at("shop.yaml", "  name: checko"), "cart", "error: Service shop/cart already exists");
    check(
        &at("infra.yaml", "  - name: htt"),
        "https",
        "error: Gateway infra/edge already has a listener named `https`",
    );
    check(
        &at("shop.yaml", "  - name: http"),
        "a-very-long-port-name",
        "error: `a-very-long-port-name` is not a valid port name: at most 15 lowercase letters, digits and `-`, with at least one letter, no `--`, not starting or ending with `-`",
    );
    check(
        &at("policies.yaml", "  name: tl"),
        "x",
        "error: nothing to rename here: put the cursor on the name of a Gateway, route, Service, listener, rule, port or ExtensionRef-attached policy, or on a reference's name",
    );
    check(&at("infra.yaml", "  name: ed"), "edge", "");
}

#[test]
fn rename_quotes_names_that_would_not_read_as_strings() {
    check(
        &at("shop.yaml", "  - name: pa"),
        "443",
        r#"
shop.yaml:38 "pay" -> "443"
"#,
    );
}

#[test]
fn rename_a_service_edits_the_backends_in_a_policy_spec() {
    // Envoy Gateway's extProc backendRefs (envoyproxy/gateway v1.9.0
    // internal/gatewayapi/testdata/envoyextensionpolicy-with-extproc-with-multiple-backendrefs.in.yaml).
    let eep = r#"//- eep.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyExtensionPolicy
metadata:
  name: processors
  namespace: shop
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}
  extProc:
  - backendRefs:
    - name: cart
      port: 8080
"#;
    let src = with_base(eep);
    let i = src.find("  name: cart").expect("cart") + "  name: ca".len();
    check(
        &format!("{}$0{}", &src[..i], &src[i..]),
        "basket",
        r#"
eep.yaml:11 "cart" -> basket
shop.yaml:21 "cart" -> basket
shop.yaml:43 "cart" -> basket
"#,
    );
}

#[test]
fn renaming_a_policy_edits_the_extension_ref_filters_naming_it() {
    check(
        &cursor_after(EXTENSION, "  name: re"),
        "host-rewrite",
        r#"
options.yaml:4 "rewrite" -> host-rewrite
route.yaml:10 "rewrite" -> host-rewrite
"#,
    );
}
