//! The graph's nodes, edges, policy statuses, focus and ids, and the exact dot and Mermaid.

use super::{Graph, build, dot, mermaid};
use crate::analysis::fixture::parse;
use crate::topology::NodeId;
use crate::workspace::Snapshot;

const WORLD: &str = r#"//- .policylens.yaml
policyKinds:
  - group: policies.example.com
    kind: ColorPolicy
    class: Inherited
    refs: [targetRef]
    targets:
      - {group: "", kind: Namespace}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute}
    effectiveTarget: {group: gateway.networking.k8s.io, kind: HTTPRoute}
//- gw.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - name: https
    port: 443
    protocol: HTTPS
    allowedRoutes:
      namespaces:
        from: All
//- shop.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
spec:
  ports:
  - name: https
    port: 443
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
  namespace: shop
spec:
  parentRefs:
  - {name: edge, namespace: infra}
  rules:
  - name: pay
    backendRefs:
    - {name: api, port: 443}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: other
  namespace: infra
spec:
  parentRefs:
  - {name: edge}
//- policies.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: client
  namespace: infra
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: edge, sectionName: https}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: route
  namespace: shop
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}
  timeout: {http: {requestTimeout: 5s}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: missing}
  validation: {hostname: api.shop, wellKnownCACertificates: System}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: gw
  namespace: infra
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: edge}
  timeout: {http: {requestTimeout: 1s}}
---
apiVersion: policies.example.com/v1
kind: ColorPolicy
metadata:
  name: ns
  namespace: shop
spec:
  targetRef: {group: "", kind: Namespace, name: shop}
  defaults: {color: red}
---
apiVersion: policies.example.com/v1
kind: ColorPolicy
metadata:
  name: blue
  namespace: shop
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}
  defaults: {color: blue}
"#;

fn snapshot(src: &str) -> Snapshot {
    parse(src).workspace.snapshot()
}

fn graph(snap: &Snapshot, focus: Option<&str>) -> Graph {
    let world = snap.world();
    let focus: Option<NodeId> = focus.map(|f| world.topology.resolve_target(world, f).unwrap_or(NodeId(u32::MAX)));
    build(world, snap.effective(), focus)
}

/// One line per node, edge and policy: what the JSON holds, compactly.
fn summary(g: &Graph) -> String {
    let mut out = String::new();
    for n in &g.nodes {
        let at = match (&n.file, n.line) {
            (Some(f), Some(l)) => format!(" {f}:{l}"),
            _ => String::new(),
        };
        out.push_str(&format!("node {} {:?} {}{}{at}\n", n.id, n.node_type, n.kind, group(&n.group)));
    }
    for e in &g.edges {
        out.push_str(&format!("edge {} -> {}\n", e.from, e.to));
    }
    for p in &g.policies {
        let at = match (&p.file, p.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            _ => "cluster".to_owned(),
        };
        out.push_str(&format!(
            "policy {} {:?} {:?} {at} -> [{}]\n",
            p.id,
            p.state,
            p.accepted.reason,
            p.targets.join(", ")
        ));
    }
    out
}

fn group(g: &str) -> String {
    if g.is_empty() { String::new() } else { format!(" ({g})") }
}

fn assert_text(got: &str, want: &str) {
    assert!(got.trim() == want.trim(), "\n--- expected\n{}\n--- got\n{}\n", want.trim(), got.trim());
}

#[test]
fn nodes_edges_and_every_policy_with_its_status() {
    let snap = snapshot(WORLD);
    assert_text(
        &summary(&graph(&snap, None)),
        "
node GatewayClass/eg Object GatewayClass (gateway.networking.k8s.io) gw.yaml:3
node Gateway/infra/edge Object Gateway (gateway.networking.k8s.io) gw.yaml:10
node Service/shop/api Object Service shop.yaml:8
node HTTPRoute/shop/checkout Object HTTPRoute (gateway.networking.k8s.io) shop.yaml:18
node HTTPRoute/infra/other Object HTTPRoute (gateway.networking.k8s.io) shop.yaml:31
node Gateway/infra/edge#https Section Gateway (gateway.networking.k8s.io) gw.yaml:15
node Service/shop/api#https Section Service shop.yaml:12
node HTTPRoute/shop/checkout#pay Section HTTPRoute (gateway.networking.k8s.io) shop.yaml:24
node Namespace/shop Namespace Namespace shop.yaml:3
edge GatewayClass/eg -> Gateway/infra/edge
edge Gateway/infra/edge -> Gateway/infra/edge#https
edge Service/shop/api -> Service/shop/api#https
edge HTTPRoute/shop/checkout -> HTTPRoute/shop/checkout#pay
edge Gateway/infra/edge#https -> HTTPRoute/shop/checkout
edge Gateway/infra/edge#https -> HTTPRoute/infra/other
edge HTTPRoute/shop/checkout#pay -> Service/shop/api
policy BackendTLSPolicy/shop/tls NotAccepted TargetNotFound policies.yaml:22 -> []
policy BackendTrafficPolicy.gateway.envoyproxy.io/infra/gw PartiallyEnforced Accepted policies.yaml:32 -> [Gateway/infra/edge]
policy BackendTrafficPolicy.gateway.envoyproxy.io/shop/route Enforced Accepted policies.yaml:12 -> [HTTPRoute/shop/checkout]
policy ClientTrafficPolicy.gateway.envoyproxy.io/infra/client Enforced Accepted policies.yaml:3 -> [Gateway/infra/edge#https]
policy ColorPolicy.policies.example.com/shop/blue Enforced Accepted policies.yaml:51 -> [HTTPRoute/shop/checkout]
policy ColorPolicy.policies.example.com/shop/ns Overridden Accepted policies.yaml:42 -> [Namespace/shop]
",
    );
}

#[test]
fn focus_keeps_the_target_its_ancestors_descendants_namespace_and_their_policies() {
    let snap = snapshot(WORLD);
    assert_text(
        &summary(&graph(&snap, Some("httproute/shop/checkout"))),
        "
node GatewayClass/eg Object GatewayClass (gateway.networking.k8s.io) gw.yaml:3
node Gateway/infra/edge Object Gateway (gateway.networking.k8s.io) gw.yaml:10
node Service/shop/api Object Service shop.yaml:8
node HTTPRoute/shop/checkout Object HTTPRoute (gateway.networking.k8s.io) shop.yaml:18
node Gateway/infra/edge#https Section Gateway (gateway.networking.k8s.io) gw.yaml:15
node Service/shop/api#https Section Service shop.yaml:12
node HTTPRoute/shop/checkout#pay Section HTTPRoute (gateway.networking.k8s.io) shop.yaml:24
node Namespace/shop Namespace Namespace shop.yaml:3
edge GatewayClass/eg -> Gateway/infra/edge
edge Gateway/infra/edge -> Gateway/infra/edge#https
edge Service/shop/api -> Service/shop/api#https
edge HTTPRoute/shop/checkout -> HTTPRoute/shop/checkout#pay
edge Gateway/infra/edge#https -> HTTPRoute/shop/checkout
edge HTTPRoute/shop/checkout#pay -> Service/shop/api
policy BackendTrafficPolicy.gateway.envoyproxy.io/infra/gw PartiallyEnforced Accepted policies.yaml:32 -> [Gateway/infra/edge]
policy BackendTrafficPolicy.gateway.envoyproxy.io/shop/route Enforced Accepted policies.yaml:12 -> [HTTPRoute/shop/checkout]
policy ClientTrafficPolicy.gateway.envoyproxy.io/infra/client Enforced Accepted policies.yaml:3 -> [Gateway/infra/edge#https]
policy ColorPolicy.policies.example.com/shop/blue Enforced Accepted policies.yaml:51 -> [HTTPRoute/shop/checkout]
policy ColorPolicy.policies.example.com/shop/ns Overridden Accepted policies.yaml:42 -> [Namespace/shop]
",
    );
}

#[test]
fn an_object_defined_twice_gets_an_id_per_file() {
    let src = format!(
        "{WORLD}//- copy.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  ports:\n  - name: https\n    port: 443\n"
    );
    let snap = snapshot(&src);
    let g = graph(&snap, None);
    let ids: Vec<&str> = g.nodes.iter().map(|n| n.id.as_str()).filter(|i| i.starts_with("Service/")).collect();
    assert_eq!(
        ids,
        [
            "Service/shop/api@copy.yaml",
            "Service/shop/api@shop.yaml",
            "Service/shop/api#https@copy.yaml",
            "Service/shop/api#https@shop.yaml"
        ]
    );
}

#[test]
fn dot_and_mermaid_colour_policies_by_status() {
    let snap = snapshot(WORLD);
    let g = graph(&snap, None);
    assert_text(
        &dot(&g),
        r##"
digraph policylens {
  rankdir=LR;
  node [shape=box, fontname="Helvetica"];
  n0 [label="GatewayClass/eg"];
  n1 [label="Gateway/infra/edge"];
  n2 [label="Service/shop/api"];
  n3 [label="HTTPRoute/shop/checkout"];
  n4 [label="HTTPRoute/infra/other"];
  n5 [label="Gateway/infra/edge#https", style=rounded];
  n6 [label="Service/shop/api#https", style=rounded];
  n7 [label="HTTPRoute/shop/checkout#pay", style=rounded];
  n8 [label="Namespace/shop", style="rounded,bold"];
  n0 -> n1;
  n1 -> n5;
  n2 -> n6;
  n3 -> n7;
  n5 -> n3;
  n5 -> n4;
  n7 -> n2;
  p0 [label="BackendTLSPolicy/shop/tls\nnot accepted: TargetNotFound", shape=note, style=dashed, color="#c62828", fontcolor="#c62828"];
  p1 [label="BackendTrafficPolicy.gateway.envoyproxy.io/infra/gw\npartially enforced", shape=note, style=solid, color="#ef6c00", fontcolor="#ef6c00"];
  p1 -> n1 [style=dashed, arrowhead=open, color="#ef6c00"];
  p2 [label="BackendTrafficPolicy.gateway.envoyproxy.io/shop/route\nenforced", shape=note, style=solid, color="#2e7d32", fontcolor="#2e7d32"];
  p2 -> n3 [style=dashed, arrowhead=open, color="#2e7d32"];
  p3 [label="ClientTrafficPolicy.gateway.envoyproxy.io/infra/client\nenforced", shape=note, style=solid, color="#2e7d32", fontcolor="#2e7d32"];
  p3 -> n5 [style=dashed, arrowhead=open, color="#2e7d32"];
  p4 [label="ColorPolicy.policies.example.com/shop/blue\nenforced", shape=note, style=solid, color="#2e7d32", fontcolor="#2e7d32"];
  p4 -> n3 [style=dashed, arrowhead=open, color="#2e7d32"];
  p5 [label="ColorPolicy.policies.example.com/shop/ns\noverridden", shape=note, style=solid, color="#757575", fontcolor="#757575"];
  p5 -> n8 [style=dashed, arrowhead=open, color="#757575"];
}
"##,
    );
    assert_text(
        &mermaid(&g),
        r##"
graph LR
  n0["GatewayClass/eg"]
  n1["Gateway/infra/edge"]
  n2["Service/shop/api"]
  n3["HTTPRoute/shop/checkout"]
  n4["HTTPRoute/infra/other"]
  n5("Gateway/infra/edge#35;https")
  n6("Service/shop/api#35;https")
  n7("HTTPRoute/shop/checkout#35;pay")
  n8[["Namespace/shop"]]
  n0 --> n1
  n1 --> n5
  n2 --> n6
  n3 --> n7
  n5 --> n3
  n5 --> n4
  n7 --> n2
  p0>"BackendTLSPolicy/shop/tls<br/>not accepted: TargetNotFound"]:::notAccepted
  p1>"BackendTrafficPolicy.gateway.envoyproxy.io/infra/gw<br/>partially enforced"]:::partiallyEnforced
  p1 -.-> n1
  p2>"BackendTrafficPolicy.gateway.envoyproxy.io/shop/route<br/>enforced"]:::enforced
  p2 -.-> n3
  p3>"ClientTrafficPolicy.gateway.envoyproxy.io/infra/client<br/>enforced"]:::enforced
  p3 -.-> n5
  p4>"ColorPolicy.policies.example.com/shop/blue<br/>enforced"]:::enforced
  p4 -.-> n3
  p5>"ColorPolicy.policies.example.com/shop/ns<br/>overridden"]:::overridden
  p5 -.-> n8
  linkStyle 8,9,10 stroke:#2e7d32
  linkStyle 7 stroke:#ef6c00
  linkStyle 11 stroke:#757575
  classDef enforced stroke:#2e7d32,color:#2e7d32
  classDef partiallyEnforced stroke:#ef6c00,color:#ef6c00
  classDef overridden stroke:#757575,color:#757575
  classDef notAccepted stroke:#c62828,color:#c62828,stroke-dasharray:5 5
"##,
    );
}

/// A policy its controllers ignore (`NotEnforced`, docs/semantics.md §4.4.1) is drawn as such,
/// not as overridden: its own state in the JSON, a dotted purple note in dot, its own class in
/// Mermaid.
#[test]
fn a_policy_its_controllers_ignore_is_drawn_not_enforced() {
    let ws = include_str!("../../../../../fixtures/conformance/controllers-unsupported-kinds/workspace.yaml");
    let snap = snapshot(&format!("//- workspace.yaml\n{ws}"));
    let g = graph(&snap, Some("HTTPRoute/shop/cart"));
    let mut got: String = summary(&g).lines().filter(|l| l.starts_with("policy ")).map(|l| format!("{l}\n")).collect();
    got.push_str("# dot\n");
    got.extend(dot(&g).lines().filter(|l| l.starts_with("  p")).map(|l| format!("{l}\n")));
    got.push_str("# mermaid\n");
    got.extend(
        mermaid(&g)
            .lines()
            .filter(|l| l.contains(":::") || l.contains("classDef") || l.contains("linkStyle"))
            .map(|l| format!("{l}\n")),
    );
    assert_text(
        &got,
        r##"
policy DNSPolicy.kuadrant.io/infra/nginx-dns Enforced Accepted workspace.yaml:152 -> [Gateway/infra/nginx-edge]
policy RateLimitPolicy.kuadrant.io/shop/cart-limits NotEnforced Accepted workspace.yaml:134 -> [HTTPRoute/shop/cart]
# dot
  p0 [label="DNSPolicy.kuadrant.io/infra/nginx-dns\nenforced", shape=note, style=solid, color="#2e7d32", fontcolor="#2e7d32"];
  p0 -> n0 [style=dashed, arrowhead=open, color="#2e7d32"];
  p1 [label="RateLimitPolicy.kuadrant.io/shop/cart-limits\nnot enforced", shape=note, style=dotted, color="#6a1b9a", fontcolor="#6a1b9a"];
  p1 -> n1 [style=dashed, arrowhead=open, color="#6a1b9a"];
# mermaid
  p0>"DNSPolicy.kuadrant.io/infra/nginx-dns<br/>enforced"]:::enforced
  p1>"RateLimitPolicy.kuadrant.io/shop/cart-limits<br/>not enforced"]:::notEnforced
  linkStyle 4 stroke:#2e7d32
  linkStyle 5 stroke:#6a1b9a
  classDef enforced stroke:#2e7d32,color:#2e7d32
  classDef notEnforced stroke:#6a1b9a,color:#6a1b9a,stroke-dasharray:2 2
"##,
    );
}
