//! Topology as the implementations define it (issue "Policy kinds as their implementations
//! define them"): mesh parentRefs to Service ports, ListenerSets and their Gateway's
//! `allowedListeners`, policies attached by ExtensionRef filters, route delegation. Each test
//! pins the attachment (the root-to-node paths) and the diagnostics users see.

use super::tests::check;
use crate::analysis::fixture;
use crate::model::ObjectKey;
use crate::topology::PathLimit;

/// Every root-to-`target` path of the fixture's world, as `a > b > c` lines (sorted).
fn paths(fixture: &str, target: &str) -> Vec<String> {
    let mut f = fixture::parse(&fixture.replace("$0", ""));
    let snap = f.workspace.snapshot();
    let world = snap.world();
    let t = &world.topology;
    let Some(key) = ObjectKey::parse(target, crate::model::is_core_kind) else { panic!("bad key {target}") };
    let Some(node) = t.find(world, &key) else { return Vec::new() };
    let (paths, _) = t.paths_to(world, node, PathLimit::default());
    let mut out: Vec<String> = paths
        .iter()
        .map(|p| p.iter().map(|&n| t.node_key(world, n).to_string()).collect::<Vec<_>>().join(" > "))
        .collect();
    out.sort();
    out
}

/// gateway-api v1 (commit 4564255a) `conformance/tests/listenerset-allowed-namespace-*.yaml`
/// and apis/v1 `AllowedListeners`: a Gateway admits no ListenerSet unless
/// `allowedListeners.namespaces.from` says so (None by default; Same, All, Selector); a refused
/// ListenerSet is `Accepted: False, reason: NotAllowed` and its listeners carry no routes.
const LISTENER_SETS: &str = r#"//- infra.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
  labels: {listeners: "yes"}
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-b
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: closed, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: same, namespace: infra}
spec:
  gatewayClassName: eg
  allowedListeners:
    namespaces: {from: Same}
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: selected, namespace: infra}
spec:
  gatewayClassName: eg
  allowedListeners:
    namespaces:
      from: Selector
      selector:
        matchLabels: {listeners: "yes"}
  listeners: [{name: http, port: 80, protocol: HTTP}]
//- sets.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls-closed, namespace: infra}
spec:
  parentRef: {name: $0closed$0}
  listeners: [{name: extra, port: 8080, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls-same, namespace: infra}
spec:
  parentRef: {name: same}
  listeners: [{name: extra, port: 8080, protocol: HTTP}]
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: ls-other, namespace: team-a}
spec:
  parentRef: {name: $0same$0, namespace: infra, kind: Gateway, group: gateway.networking.k8s.io}
  listeners: [{name: extra, port: 8081, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls-a, namespace: team-a}
spec:
  parentRef: {name: selected, namespace: infra}
  listeners: [{name: extra, port: 8082, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls-b, namespace: team-b}
spec:
  parentRef: {name: $0selected$0, namespace: infra}
  listeners: [{name: extra, port: 8083, protocol: HTTP}]
//- routes.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-closed, namespace: infra}
spec:
  parentRefs: [{kind: ListenerSet, name: ls-closed}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-same, namespace: infra}
spec:
  parentRefs: [{kind: ListenerSet, name: ls-same}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-a, namespace: team-a}
spec:
  parentRefs: [{kind: ListenerSet, name: ls-a}]
"#;

#[test]
fn a_gateway_admits_listener_sets_only_as_its_allowed_listeners_say() {
    check(
        LISTENER_SETS,
        r#"
sets.yaml "closed" warning[route-not-allowed] Gateway/infra/closed does not admit this ListenerSet: Gateway/infra/closed admits no ListenerSets (allowedListeners.namespaces.from: None); its listeners and their routes are not attached
sets.yaml "same" warning[route-not-allowed] Gateway/infra/same does not admit this ListenerSet: Gateway/infra/same only admits ListenerSets from its own namespace `infra` (allowedListeners.namespaces.from: Same), and this ListenerSet is in `team-a`; its listeners and their routes are not attached
sets.yaml "selected" warning[route-not-allowed] Gateway/infra/selected does not admit this ListenerSet: Gateway/infra/selected only admits ListenerSets from namespaces selected by {listeners=yes}, and Namespace `team-b` does not match; its listeners and their routes are not attached
"#,
    );
    // Admitted ListenerSets hang below their Gateway; a refused one is a root of its own.
    assert_eq!(
        paths(LISTENER_SETS, "HTTPRoute/infra/r-same"),
        ["Gateway/infra/same > ListenerSet/infra/ls-same > ListenerSet/infra/ls-same#extra > HTTPRoute/infra/r-same"]
    );
    assert_eq!(
        paths(LISTENER_SETS, "HTTPRoute/team-a/r-a"),
        ["Gateway/infra/selected > ListenerSet/team-a/ls-a > ListenerSet/team-a/ls-a#extra > HTTPRoute/team-a/r-a"]
    );
    assert_eq!(
        paths(LISTENER_SETS, "HTTPRoute/infra/r-closed"),
        ["ListenerSet/infra/ls-closed > ListenerSet/infra/ls-closed#extra > HTTPRoute/infra/r-closed"]
    );
}

/// gateway-api apis/v1 `shared_types.go` `ParentReference` (commit 4564255a; GEP-1426): with a
/// Service parent, `sectionName` is a port name and `port` a port number; with both set, one
/// port must match both. A route naming a port the Service lacks is not attached to it.
const MESH: &str = r#"//- svc.yaml
apiVersion: v1
kind: Service
metadata: {name: reviews, namespace: app}
spec:
  ports:
  - {name: http, port: 9080}
  - {name: grpc, port: 9090}
---
apiVersion: v1
kind: Service
metadata: {name: ratings, namespace: app}
spec:
  ports:
  - port: 9080
//- routes.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: whole, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: by-name, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, sectionName: http}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: by-port, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, port: 9090}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: both, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, sectionName: http, port: 9080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: unnamed-port, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: ratings, port: 9080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-name, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, sectionName: $0htp$0}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad-port, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, port: $08080$0}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: mismatch, namespace: app}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, sectionName: http, port: $09090$0}]
"#;

#[test]
fn a_mesh_route_attaches_below_the_service_port_its_parent_ref_names() {
    check(
        MESH,
        r#"
routes.yaml "htp" error[parent-not-found] Service/app/reviews has no port `htp`; did you mean `http`? (ports: `http`, `grpc`)
routes.yaml "8080" error[parent-not-found] Service/app/reviews has no port 8080 (ports: `9080`, `9090`)
routes.yaml "9090" error[parent-not-found] port `http` of Service/app/reviews is `9080`, not 9090
"#,
    );
    let p = |t: &str| paths(MESH, t);
    assert_eq!(p("HTTPRoute/app/whole"), ["Service/app/reviews > HTTPRoute/app/whole"]);
    assert_eq!(p("HTTPRoute/app/by-name"), ["Service/app/reviews > Service/app/reviews#http > HTTPRoute/app/by-name"]);
    assert_eq!(p("GRPCRoute/app/by-port"), ["Service/app/reviews > Service/app/reviews#grpc > GRPCRoute/app/by-port"]);
    assert_eq!(p("HTTPRoute/app/both"), ["Service/app/reviews > Service/app/reviews#http > HTTPRoute/app/both"]);
    assert_eq!(p("HTTPRoute/app/unnamed-port"), ["Service/app/ratings > HTTPRoute/app/unnamed-port"]);
    // Not attached: each is a root of its own.
    for r in ["bad-name", "bad-port", "mismatch"] {
        assert_eq!(p(&format!("HTTPRoute/app/{r}")), [format!("HTTPRoute/app/{r}")]);
    }
}

/// kgateway route delegation, as kgateway-dev/kgateway.dev documents it (commit 85cd0fc8,
/// `assets/kgw-docs/pages/traffic-management/route-delegation/basic.md`, `label.md`,
/// `multi-parent.md`, `overview.md`): a parent rule's backendRef to HTTPRoutes (`*` for a
/// namespace's, or `delegation.kgateway.dev/label`) puts the children below it, across
/// namespaces without a ReferenceGrant; a child with parentRefs only takes requests from the
/// routes they name; a missing named child answers with a 500.
const DELEGATION: &str = r#"//- parent.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: http, namespace: kgateway-system}
spec:
  gatewayClassName: kgateway
  listeners:
  - name: http
    port: 8080
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: parent, namespace: default}
spec:
  parentRefs: [{name: http, namespace: kgateway-system}]
  rules:
  - name: team1
    matches: [{path: {type: PathPrefix, value: /anything/team1}}]
    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "*", namespace: team1}]
  - name: team2
    matches: [{path: {type: PathPrefix, value: /anything/team2}}]
    backendRefs: [{group: delegation.kgateway.dev, kind: label, name: team2, namespace: team2}]
  - name: gone
    matches: [{path: {type: PathPrefix, value: /anything/gone}}]
    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: $0child-gon$0, namespace: team1}]
//- team1.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: child-gone, namespace: team1}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: other-parent, namespace: default}]
  rules:
  - backendRefs: [{name: httpbin, port: 8000}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: child-team1, namespace: team1}
spec:
  rules:
  - backendRefs: [{name: httpbin, port: 8000}]
---
apiVersion: v1
kind: Service
metadata: {name: httpbin, namespace: team1}
spec:
  ports: [{name: http, port: 8000}]
//- team2.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: child-team2
  namespace: team2
  labels: {delegation.kgateway.dev/label: team2}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: parent, namespace: default}]
  rules:
  - backendRefs: [{name: httpbin, port: 8000}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: $0unlabelled$0, namespace: team2}
spec:
  rules:
  - backendRefs: [{name: httpbin, port: 8000}]
---
apiVersion: v1
kind: Service
metadata: {name: httpbin, namespace: team2}
spec:
  ports: [{name: http, port: 8000}]
"#;

#[test]
fn a_delegating_route_puts_its_child_routes_below_the_rule() {
    // No backend-not-permitted across namespaces, no route-without-parent for the children,
    // and the one missing named child is a backend-not-found (the docs' 500).
    check(
        DELEGATION,
        r#"
parent.yaml "child-gon" warning[backend-not-found] HTTPRoute/team1/child-gon does not exist: requests this rule delegates get an HTTP 500; did you mean `child-gone`?
team2.yaml "unlabelled" information[route-without-parent] HTTPRoute/team2/unlabelled has no parentRefs: it attaches to no Gateway and no policy reaches it through one
"#,
    );
    let p = |t: &str| paths(DELEGATION, t);
    let above = "Gateway/kgateway-system/http > Gateway/kgateway-system/http#http > HTTPRoute/default/parent";
    assert_eq!(
        p("Service/team1/httpbin"),
        [
            format!("{above} > HTTPRoute/default/parent#team1 > HTTPRoute/team1/child-team1 > Service/team1/httpbin"),
            "HTTPRoute/team1/child-gone > Service/team1/httpbin".to_owned(),
        ]
    );
    assert_eq!(
        p("Service/team2/httpbin"),
        [
            format!("{above} > HTTPRoute/default/parent#team2 > HTTPRoute/team2/child-team2 > Service/team2/httpbin"),
            "HTTPRoute/team2/unlabelled > Service/team2/httpbin".to_owned(),
        ]
    );
    // Its parentRefs name another parent: `*` does not reach it.
    assert_eq!(p("HTTPRoute/team1/child-gone"), ["HTTPRoute/team1/child-gone"]);
}
