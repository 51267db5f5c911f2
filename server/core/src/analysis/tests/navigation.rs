//! Definition and references: each location as `file:line "covered text"`.

use super::{EXTENSION, assert_lines, cursor_after, fixture, show, with_base};
use crate::analysis::{Location, definition, references};

fn render(snap: &crate::workspace::Snapshot, locs: &[Location]) -> String {
    locs.iter().map(|l| show(snap, &l.file, l.span)).collect::<Vec<_>>().join("\n")
}

fn check_definition(src: &str, expect: &str) {
    let f = fixture(src);
    assert_lines(&render(&f.snap, &definition(&f.snap, &f.file, f.offset)), expect);
}

fn check_references(src: &str, include_declaration: bool, expect: &str) {
    let f = fixture(src);
    assert_lines(&render(&f.snap, &references(&f.snap, &f.file, f.offset, include_declaration)), expect);
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
    name: checkout
    sectionName: https
  - {group: "", kind: Service, name: cart}
  - {group: "", kind: Service, name: nope}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: ctp
  namespace: infra
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
    sectionName: https
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: by-port
  namespace: infra
spec:
  parentRefs:
  - name: edge
    port: 443
"#;

/// The base workspace with `POLICIES`, the cursor placed right after the first `needle` in
/// `file`.
fn at(file: &str, needle: &str) -> String {
    let src = with_base(POLICIES);
    let from = src.find(&format!("//- {file}")).expect("file");
    let i = from + src[from..].find(needle).expect("needle") + needle.len();
    format!("{}$0{}", &src[..i], &src[i..])
}

#[test]
fn definition_of_policy_ref_goes_to_the_section_when_named() {
    check_definition(&at("policies.yaml", "    name: check"), "shop.yaml:15 \"https\"");
    check_definition(&at("policies.yaml", "    sectionName: htt"), "shop.yaml:15 \"https\"");
    check_definition(&at("policies.yaml", "    kind: Serv"), "shop.yaml:15 \"https\"");
    check_definition(&at("policies.yaml", "kind: Service, name: ca"), "shop.yaml:21 \"cart\"");
    check_definition(&at("policies.yaml", "kind: Service, name: no"), "");
    check_definition(&at("policies.yaml", "    kind: Gate"), "infra.yaml:22 \"https\"");
}

#[test]
fn definition_of_route_refs() {
    // parentRef with sectionName: the listener.
    check_definition(&at("shop.yaml", "  - name: ed"), "infra.yaml:22 \"https\"");
    // parentRef matched by port only: the listener on that port.
    check_definition(&at("policies.yaml", "  - name: edge\n    port: 4"), "infra.yaml:22 \"https\"");
    // backendRef with a matching port: that port; a port without a name: the port item.
    check_definition(&at("shop.yaml", "    - name: checkou"), "shop.yaml:15 \"https\"");
    check_definition(&at("shop.yaml", "    - name: car"), "shop.yaml:25 \"port: 8080\"");
    // gatewayClassName.
    check_definition(&at("infra.yaml", "gatewayClassName: e"), "infra.yaml:4 \"eg\"");
}

#[test]
fn definition_elsewhere_is_empty() {
    check_definition(&at("policies.yaml", "  name: tl"), "");
    check_definition(&at("policies.yaml", "metadata:\n"), "");
}

#[test]
fn references_of_a_gateway() {
    check_references(
        &at("infra.yaml", "kind: Gateway\nmetadata:\n  name: ed"),
        true,
        r#"
infra.yaml:11 "edge"
policies.yaml:24 "edge"
policies.yaml:34 "edge"
shop.yaml:34 "edge"
"#,
    );
    // The same from its kind, without the declaration.
    check_references(
        &at("infra.yaml", "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gatew"),
        false,
        r#"
policies.yaml:24 "edge"
policies.yaml:34 "edge"
shop.yaml:34 "edge"
"#,
    );
    // A GatewayClass is referred to by gatewayClassName.
    check_references(&at("infra.yaml", "kind: Gatew"), false, "infra.yaml:14 \"eg\"\ninfra.yaml:36 \"eg\"");
}

#[test]
fn references_of_a_listener_and_a_port() {
    // A listener: sectionNames naming it, and a parentRef that matched it by port.
    check_references(
        &at("infra.yaml", "  - name: https"),
        true,
        r#"
infra.yaml:22 "https"
policies.yaml:25 "https"
policies.yaml:35 "443"
shop.yaml:36 "https"
"#,
    );
    // A Service port: sectionNames naming it, and the backendRef port that matches it.
    check_references(
        &at("shop.yaml", "  - name: https"),
        false,
        r#"
policies.yaml:11 "https"
shop.yaml:41 "443"
"#,
    );
}

#[test]
fn references_from_a_reference() {
    // On a backendRef name: every reference to that Service, declaration first.
    check_references(
        &at("shop.yaml", "    - name: checkou"),
        true,
        r#"
shop.yaml:9 "checkout"
policies.yaml:10 "checkout"
shop.yaml:40 "checkout"
"#,
    );
    // On a sectionName: the section's references.
    check_references(
        &at("policies.yaml", "    sectionName: http"),
        false,
        r#"
policies.yaml:11 "https"
shop.yaml:41 "443"
"#,
    );
    // A name that resolves to nothing has no references.
    check_references(&at("policies.yaml", "name: no"), true, "");
}

/// The referrer index finds exactly what a scan of every reference in the workspace finds,
/// for every object and section of the demo repo and the conformance fixtures.
#[test]
fn referrer_index_matches_a_full_scan() {
    use crate::analysis::refs::{Target, section_indices, sites, usages};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    for dir in ["demo", "conformance/backendtlspolicy-conflicts-ports", "conformance/gep713-abstract-dag", "lsp"] {
        let mut ws = crate::workspace::Workspace::new();
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml") {
                    ws.set_file(&p.to_string_lossy(), std::fs::read_to_string(&p).unwrap_or_default());
                }
            }
        }
        let snap = ws.snapshot();
        let world = snap.world();
        let mut checked = 0;
        for obj in world.ids() {
            let targets = std::iter::once(Target::object(obj))
                .chain(section_indices(world, obj).into_iter().map(|i| Target { obj, section: Some(i) }));
            for target in targets {
                let mut scan = Vec::new();
                for id in world.ids() {
                    for s in sites(world, id) {
                        if s.names(target)
                            && let Some((span, _)) = s.span_for(target)
                        {
                            scan.push((world.file_of(id).path.clone(), span.start));
                        }
                    }
                }
                scan.sort();
                scan.dedup();
                let indexed: Vec<_> = usages(world, target).into_iter().map(|u| (u.file, u.span.start)).collect();
                assert_eq!(indexed, scan, "{dir}: usages of {:?}", target);
                checked += usize::from(!scan.is_empty());
            }
        }
        assert!(checked > 0, "{dir}: no target has a usage; the test would prove nothing");
    }
}

/// A SecurityPolicy whose external authorization and remote JWKS name backends (modelled on
/// envoyproxy/gateway v1.9.0 internal/gatewayapi/testdata/securitypolicy-with-extauth-backendrefs.in.yaml
/// and securitypolicy-with-jwt-backendcluster.in.yaml), in the `shop` namespace of the base.
fn security_policy(cursor_after: &str) -> String {
    let policy = r#"//- auth.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: policy-for-store
  namespace: shop
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: store
  extAuth:
    failOpen: true
    grpc:
      backendRefs:
      - name: checkout
        port: 443
      - name: nowhere
        port: 9000
  jwt:
    providers:
    - name: example
      issuer: https://www.example.com
      remoteJWKS:
        uri: https://localhost/jwt/public-key/jwks.json
        backendRefs:
        - name: cart
"#;
    let src = with_base(policy);
    let from = src.find("//- auth.yaml").expect("file");
    let i = from + src[from..].find(cursor_after).expect("needle") + cursor_after.len();
    format!("{}$0{}", &src[..i], &src[i..])
}

#[test]
fn definition_and_references_of_backends_in_a_policy_spec() {
    // The name: the Service's port the ref uses, as for a route's backendRef.
    check_definition(&security_policy("      - name: check"), "shop.yaml:15 \"https\"");
    // No port: the Service.
    check_definition(&security_policy("        - name: ca"), "shop.yaml:21 \"cart\"");
    // A Service that does not exist: nowhere.
    check_definition(&security_policy("      - name: nowh"), "");
    // The policy is among the Service's referrers.
    check_references(
        &security_policy("        - name: ca"),
        true,
        r#"
shop.yaml:21 "cart"
auth.yaml:26 "cart"
shop.yaml:43 "cart"
"#,
    );
}

#[test]
fn an_extension_ref_filter_leads_to_its_policy_and_back() {
    check_definition(&cursor_after(EXTENSION, "kind: RouteOption, name: rew"), "options.yaml:4 \"rewrite\"");
    check_references(&cursor_after(EXTENSION, "  name: rew"), false, "route.yaml:10 \"rewrite\"");
}
