//! Diagnostics on repositories as they are laid out: one identity defined in several places
//! (example folders, overlays), explicit worlds, objects declared external, namespaces outside
//! the world, templated names, ignore comments and config severities.

use super::tests::check;

/// One example folder: a Gateway, a route to a Service and a policy on the route, all with
/// the names every upstream example uses.
fn example(dir: &str, timeout: &str) -> String {
    format!(
        r#"//- {dir}/gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: eg
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    port: 80
    protocol: HTTP
---
apiVersion: v1
kind: Service
metadata:
  name: backend
spec:
  ports:
  - port: 3000
//- {dir}/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: backend
spec:
  parentRefs:
  - name: eg
  rules:
  - backendRefs:
    - name: backend
      port: 3000
//- {dir}/policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: policy-for-route
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: backend
  timeout:
    http:
      requestTimeout: {timeout}
"#
    )
}

const CLASS: &str = r#"//- class.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
"#;

#[test]
fn example_folders_are_worlds_of_their_own_without_configuration() {
    // Four identities defined in both folders (a folder of cases: `examples/`): each folder's
    // references resolve to its own copies, the two different policies never conflict, and the
    // copies are not reported (duplicate-object is off by default).
    let a = example("examples/a", "10s");
    let b = example("examples/b", "20s");
    check(&format!("{CLASS}{a}{b}"), "");
}

#[test]
fn explicit_worlds_never_see_each_other_but_see_the_shared_files() {
    let config = "//- .policylens.yaml\nworlds: [\"examples/*\"]\n";
    let a = example("examples/a", "10s");
    // examples/b lost its Service: with worlds, the route cannot borrow examples/a's.
    let b = example("examples/b", "20s").replace(
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: backend\nspec:\n  ports:\n  - port: 3000\n",
        "",
    );
    let b = b.replace("    - name: backend\n      port: 3000", "    - name: $0backend$0\n      port: 3000");
    check(
        &format!("{config}{CLASS}{a}{b}"),
        r#"examples/b/route.yaml "backend" warning[backend-not-found] Service/default/backend does not exist"#,
    );
}

#[test]
fn what_a_case_names_and_nothing_it_reaches_defines_is_left_to_the_harness() {
    // kgateway's translator inputs and Gateway API's examples name a class, a parent and a
    // backend that their test harness or the reader provides: notes. A near name is a typo and
    // keeps its severity; the same outside a folder of cases is a finding.
    let gateway = |dir: &str, class: &str| {
        format!(
            "//- {dir}/gw.yaml\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\nspec:\n  gatewayClassName: $0{class}$0\n  listeners:\n  - {{name: http, port: 80, protocol: HTTP}}\n"
        )
    };
    let route = "//- hack/more-examples/route.yaml\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\nspec:\n  parentRefs:\n  - name: $0elsewhere$0\n";
    check(
        &format!(
            "{CLASS}{}{}{}{route}",
            gateway("test/inputs/a", "example-gateway-class"),
            gateway("test/inputs/b", "eh"),
            gateway("deploy", "example-gateway-class"),
        ),
        r#"
deploy/gw.yaml "example-gateway-class" warning[gateway-class-not-found] GatewayClass/example-gateway-class does not exist in the workspace; declare it in `external` if the cluster provides it
hack/more-examples/route.yaml "elsewhere" information[parent-not-found] Gateway/default/elsewhere does not exist (nothing this test or example can reach defines it: it is left to the reader or the test harness)
test/inputs/a/gw.yaml "example-gateway-class" information[gateway-class-not-found] GatewayClass/example-gateway-class does not exist in the workspace; declare it in `external` if the cluster provides it (nothing this test or example can reach defines it: it is left to the reader or the test harness)
test/inputs/b/gw.yaml "eh" warning[gateway-class-not-found] GatewayClass/eh does not exist; did you mean `eg`?
"#,
    );
}

#[test]
fn an_overlay_copy_takes_part_where_it_is_nearer_and_the_policies_do_not_compete() {
    // base/ and overlays/prod/ both define the policy on the Gateway that only base defines:
    // the base copy (nearer to the Gateway) takes part; no conflict, and no "affects nothing"
    // for the shadowed copy. No kustomization says what is applied together, so the copies
    // are not reported (duplicate-object is off by default).
    let fixture = format!(
        r#"{CLASS}//- base/gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: web
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    port: 80
    protocol: HTTP
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
spec:
  parentRefs:
  - name: web
//- base/policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: web-client
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: web
  timeout:
    http:
      idleTimeout: 10s
//- overlays/prod/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
spec:
  parentRefs:
  - name: web
  hostnames: [shop.example.com]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: web-client
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: web
  timeout:
    http:
      idleTimeout: 60s
"#
    );
    check(&fixture, "");
}

#[test]
fn externals_resolve_and_templated_names_match_nothing() {
    let fixture = r#"//- .policylens.yaml
external: ["Gateway/infra/edge#https", "Service/shop/api"]
//- chart/templates/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: {{ .Release.Name }}-web
  namespace: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
    sectionName: https
  rules:
  - backendRefs:
    - name: api
      port: 80
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: {{ .Release.Name }}-limits
  namespace: infra
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: edge
    sectionName: https
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0web$0
"#;
    // The route's name is a template: `web` is not it (no fuzzy match against `____-web`).
    check(fixture, r#"chart/templates/route.yaml "web" error[target-not-found] HTTPRoute/infra/web does not exist"#);
}

#[test]
fn a_namespace_outside_the_world_is_assumed_to_admit() {
    let fixture = r#"//- gw.yaml
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
        selector:
          matchLabels: {edge: "true"}
//- routes.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: known
  labels: {edge: "false"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: unknown-ns
  namespace: elsewhere
spec:
  parentRefs:
  - name: edge
    namespace: infra
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: known-ns
  namespace: known
spec:
  parentRefs:
  - name: $0edge$0
    namespace: infra
"#;
    check(
        fixture,
        r#"routes.yaml "edge" warning[route-not-allowed] Gateway/infra/edge does not admit this route: listener `http` only admits routes from namespaces selected by {edge=true}, and Namespace `known` does not match"#,
    );
}

#[test]
fn ignore_comments_and_config_severities_choose_what_is_reported() {
    let fixture = r#"//- .policylens.yaml
diagnostics:
  backend-not-found: error
  affects-nothing: off
  $0no-such-code$0: warning
//- a.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
spec:
  parentRefs:
  - name: gw  # policylens: ignore[parent-not-found]
  rules:
  - backendRefs:
    # policylens: ignore[backend-not-found]
    - name: missing
    - name: $0gone$0
    - name: $0alsogone$0  # policylens: ignore[$0target-not-found$0]
//- b.yaml
# policylens: ignore-file[parent-not-found]
$0# policylens: ignore$0
# policylens: ignore[$0made-up$0]
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: s
spec:
  parentRefs:
  - name: gw
"#;
    check(
        fixture,
        r##"
.policylens.yaml "no-such-code" error[config] `no-such-code` is not a policylens diagnostic code
a.yaml "gone" error[backend-not-found] Service/default/gone does not exist
a.yaml "alsogone" error[backend-not-found] Service/default/alsogone does not exist
a.yaml "target-not-found" information[unused-suppression] no `target-not-found` diagnostic here to suppress: remove `target-not-found` from this comment
b.yaml "# policylens: ignore" information[unused-suppression] a bare `ignore` silences nothing: name the codes, e.g. `# policylens: ignore[target-not-found]`
b.yaml "made-up" information[unused-suppression] `made-up` is not a policylens diagnostic code
"##,
    );
}

#[test]
fn kinds_as_their_implementations_define_them() {
    // Envoy AI Gateway's AIGatewayRoute is a route (its older releases attached it with
    // `targetRefs`; aigateway.envoyproxy.io api/v1alpha1 AIGatewayRoute), Istio's
    // AuthorizationPolicy applies by `selector` without a targetRef (security.istio.io/v1
    // AuthorizationPolicy: "at most one of selector, targetRef, targetRefs"), and a kind known
    // only from its shape has no 16-ref limit. None of them is a finding.
    let many_refs: String =
        (0..20).map(|i| format!("  - {{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r{i}}}\n")).collect();
    let routes: String = (0..20)
        .map(|i| format!("---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r{i}\nspec:\n  parentRefs: [{{name: edge}}]\n"))
        .collect();
    let fixture = format!(
        r#"//- gw.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: envoy
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
spec:
  gatewayClassName: $0envoi$0
  listeners:
  - {{name: http, port: 80, protocol: HTTP}}
{routes}//- ai.yaml
apiVersion: aigateway.envoyproxy.io/v1alpha1
kind: AIGatewayRoute
metadata:
  name: llm
spec:
  targetRefs:
  - {{name: edge, kind: Gateway, group: gateway.networking.k8s.io}}
---
apiVersion: security.istio.io/v1
kind: AuthorizationPolicy
metadata:
  name: allow-frontend
spec:
  selector:
    matchLabels: {{app: reviews}}
  action: ALLOW
---
apiVersion: example.io/v1
kind: WidePolicy
metadata:
  name: wide
spec:
  targetRefs:
{many_refs}  color: blue
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: $0orphan$0
spec:
  rules:
  - backendRefs: []
"#
    );
    check(
        &fixture,
        r#"
ai.yaml "orphan" information[route-without-parent] HTTPRoute/default/orphan has no parentRefs: it attaches to no Gateway and no policy reaches it through one
gw.yaml "envoi" warning[gateway-class-not-found] GatewayClass/envoi does not exist; did you mean `envoy`?
"#,
    );
}

#[test]
fn envoy_gateway_rejects_the_younger_of_two_policies_on_one_target() {
    // Envoy Gateway's policy concept page ("Conflict resolution", v1.4): on one target and
    // section the oldest policy is accepted and the others are rejected (Conflicted), even
    // when one would merge (`mergeType`).
    let btp = |name: &str, ts: &str, target: &str, extra: &str| {
        format!(
            "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: {name}\n  creationTimestamp: \"{ts}\"\nspec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: {target}\n{extra}  timeout:\n    http:\n      requestTimeout: 5s\n"
        )
    };
    let fixture = format!(
        "//- route.yaml\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: edge\nspec:\n  gatewayClassName: eg\n  listeners:\n  - {{name: http, port: 80, protocol: HTTP}}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\nspec:\n  parentRefs: [{{name: edge}}]\n//- policies.yaml\n{}{}",
        btp("older", "2025-01-01T00:00:00Z", "web", ""),
        btp("newer", "2025-02-01T00:00:00Z", "$0web$0", "  mergeType: StrategicMerge\n")
    );
    check(
        &fixture,
        r#"policies.yaml "web" warning[conflicted] `BackendTrafficPolicy.gateway.envoyproxy.io/default/newer` conflicts with `BackendTrafficPolicy.gateway.envoyproxy.io/default/older` on `HTTPRoute/default/web`: `BackendTrafficPolicy.gateway.envoyproxy.io/default/older` is older, so this policy is not applied there"#,
    );
}

/// Two BackendTLSPolicies on one Service port, the older annotated
/// `istio.io/ignore-policy-attachment: "true"`, under a GatewayClass of `controller`.
fn opted_out_tls(controller: &str, mark: &str) -> String {
    let tls = |name: &str, ts: &str, note: &str, service: &str| {
        format!(
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata:\n  name: {name}\n  creationTimestamp: \"{ts}\"\n{note}spec:\n  targetRefs:\n  - {{group: \"\", kind: Service, name: {service}, sectionName: https}}\n  validation:\n    hostname: web.example.com\n    wellKnownCACertificates: System\n"
        )
    };
    format!(
        "//- infra.yaml\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: mesh\nspec:\n  controllerName: {controller}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - {{name: https, port: 443}}\n//- tls.yaml\n{}{}",
        tls(
            "for-other-controller",
            "2025-01-01T00:00:00Z",
            "  annotations:\n    istio.io/ignore-policy-attachment: \"true\"\n",
            "web"
        ),
        tls("istio-tls", "2025-02-01T00:00:00Z", "", &format!("{mark}web{mark}")),
    )
}

#[test]
fn istio_leaves_a_policy_annotated_for_another_controller_alone() {
    // Istio (release notes; istio/istio issue 60122): a BackendTLSPolicy annotated
    // `istio.io/ignore-policy-attachment: "true"` is not translated and takes part in no
    // conflict detection. Under Istio the newer policy is therefore the only one on the port:
    // no conflict, and the annotated one is not "affects nothing".
    check(&opted_out_tls("istio.io/gateway-controller", ""), "");
    // Under another controller the annotation means nothing: the older policy wins the port.
    check(
        &opted_out_tls("gateway.envoyproxy.io/gatewayclass-controller", "$0"),
        r#"tls.yaml "web" warning[conflicted] `BackendTLSPolicy/default/istio-tls` conflicts with `BackendTLSPolicy/default/for-other-controller` on `Service/default/web#https`: `BackendTLSPolicy/default/for-other-controller` is older, so this policy is not applied there"#,
    );
}

#[test]
fn backend_tls_policy_names_an_implementation_backend_port_as_its_section() {
    // Envoy Gateway's Backend (gateway.envoyproxy.io/v1alpha1): Envoy Gateway compares a
    // BackendTLSPolicy's sectionName with the backendRef's port number (envoyproxy/gateway
    // d32f2829 `internal/gatewayapi/route.go` `getTargetBackendReference`), so `443` is a
    // section of a Backend whose endpoint listens there and a port name never matches.
    // kgateway's Backend ports are not read: its sections are trusted.
    let fixture = r#"//- tls.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata:
  name: upstream
spec:
  endpoints:
  - fqdn: {hostname: api.example.com, port: 443}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata:
  name: static
spec:
  type: Static
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - {name: https, port: 443}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
spec:
  targetRefs:
  - {group: gateway.envoyproxy.io, kind: Backend, name: upstream, sectionName: "443"}
  - {group: gateway.envoyproxy.io, kind: Backend, name: upstream, sectionName: $0tls-port$0}
  - {group: gateway.kgateway.dev, kind: Backend, name: static, sectionName: tls-port}
  - {group: "", kind: Service, name: web, sectionName: $0htps$0}
  validation:
    hostname: api.example.com
    wellKnownCACertificates: System
"#;
    check(
        fixture,
        r#"tls.yaml "tls-port" error[section-not-found] Backend.gateway.envoyproxy.io/default/upstream has no port named `tls-port` (Envoy Gateway names a Backend's sections by port number: `443`)
tls.yaml "htps" error[section-not-found] Service/default/web has no port named `htps`; did you mean `https`? (ports: `https`)"#,
    );
}

#[test]
fn a_crd_strategy_field_without_enum_takes_every_gep_strategy() {
    // GEP-713's sample types declare `strategy` as a plain string; only an enum restricts it.
    let fixture = r#"//- crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: colorpolicies.policies.example.com
  labels: {gateway.networking.k8s.io/policy: inherited}
spec:
  group: policies.example.com
  names: {kind: ColorPolicy, plural: colorpolicies}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              targetRefs: {type: array, items: {type: object}}
              defaults:
                type: object
                properties:
                  strategy: {type: string}
                  color: {type: string}
//- p.yaml
apiVersion: policies.example.com/v1
kind: ColorPolicy
metadata:
  name: p
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: $0edge$0}
  defaults:
    strategy: patch
    color: blue
"#;
    // The only finding is the missing Gateway: `patch` is no unknown strategy.
    check(fixture, r#"p.yaml "edge" error[target-not-found] Gateway/default/edge does not exist"#);
}

#[test]
fn every_code_has_its_page_in_docs_diagnostics() {
    use super::Code;
    for code in Code::ALL {
        let help = code.help();
        assert!(help.contains("Why it matters:"), "docs/diagnostics.md has no full section for `{}`", code.as_str());
        assert!(help.contains("How to fix:"), "`{}`: say how to fix it", code.as_str());
        assert!(help.contains("```"), "`{}`: give an example", code.as_str());
    }
}

#[test]
fn kuma_mesh_targets_and_snippets_policies_never_conflict() {
    // Kuma (kuma.io/v1alpha1 MeshTimeout): `targetRef: {kind: Mesh}` names the policy's own
    // mesh, no object; NGINX Gateway Fabric inserts every SnippetsPolicy's snippets. Two of each
    // on one target are not conflicts, and a nameless Mesh ref is not malformed.
    let mesh_timeout = |name: &str| {
        format!(
            "---\napiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata:\n  name: {name}\n  namespace: kuma-system\nspec:\n  targetRef:\n    kind: Mesh\n  to:\n  - targetRef: {{kind: Mesh}}\n    default:\n      connectionTimeout: 2s\n"
        )
    };
    let snippets = |name: &str| {
        format!(
            "---\napiVersion: gateway.nginx.org/v1alpha1\nkind: SnippetsPolicy\nmetadata:\n  name: {name}\nspec:\n  targetRefs:\n  - {{group: gateway.networking.k8s.io, kind: Gateway, name: edge}}\n  snippets:\n  - {{context: http, value: \"gzip on;\"}}\n"
        )
    };
    let fixture = format!(
        "//- mesh.yaml\n{}{}//- gw.yaml\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: edge\nspec:\n  gatewayClassName: nginx\n  listeners:\n  - {{name: http, port: 80, protocol: HTTP}}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\nspec:\n  parentRefs: [{{name: edge}}]\n{}{}",
        mesh_timeout("a"),
        mesh_timeout("b"),
        snippets("one"),
        snippets("two")
    );
    check(&fixture, "");
}

#[test]
fn target_selectors_are_checked_like_target_refs() {
    // Envoy Gateway targetSelectors (gateway.envoyproxy.io/v1alpha1 PolicyTargetReferences):
    // label selectors over targets; reaching another namespace needs a ReferenceGrant there.
    let route = |name: &str, ns: &str, team: &str| {
        format!(
            "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n  namespace: {ns}\n  labels: {{team: {team}}}\nspec:\n  parentRefs: [{{name: edge, namespace: infra}}]\n"
        )
    };
    let fixture = format!(
        r#"//- routes.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - {{name: http, port: 80, protocol: HTTP, allowedRoutes: {{namespaces: {{from: All}}}}}}
{}{}//- policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: by-label
  namespace: shop
spec:
  targetSelectors:
  - $0kind: HTTPRoute
    matchLabels: {{team: stor}}$0
  - $0kind: HTTPRoute
    matchExpressions:
    - {{key: team, operator: Equals, values: [store]}}$0
  - $0kind: HTTPRoute
    namespaces: {{from: All}}
    matchLabels: {{team: pay}}$0
  timeout: {{http: {{requestTimeout: 5s}}}}
"#,
        route("store", "shop", "store"),
        route("pay", "payments", "pay")
    );
    // The third entry would reach `payments/pay`, but no ReferenceGrant in `payments` admits it.
    check(
        &fixture,
        r#"
policy.yaml "kind: HTTPRoute\n    matchLabels: {team: stor}" warning[selector-matches-nothing] no HTTPRoute in namespace `shop` has these labels
policy.yaml "kind: HTTPRoute\n    matchExpressions:\n    - {key: team, operator: Equals, values: [store]}" error[invalid-selector] `Equals` is not a selector operator: use In, NotIn, Exists or DoesNotExist
policy.yaml "kind: HTTPRoute\n    namespaces: {from: All}\n    matchLabels: {team: pay}" warning[selector-matches-nothing] HTTPRoute/payments/pay has these labels, but no ReferenceGrant in namespace `payments` lets a BackendTrafficPolicy from `shop` select it; add one there
"#,
    );
}

/// A live cluster under the files (`--cluster`): Envoy Gateway's rule for two
/// BackendTrafficPolicies on one Gateway (the older wins). The team's file redefines its
/// policy without a `creationTimestamp`, as files do: applying it keeps the cluster object's
/// age, so it still wins over the younger rival that exists only in the cluster. The
/// controller's status in the cluster, written while an older version lost, says Conflicted:
/// that disagreement is reported on the file. The rival only the cluster holds is reported
/// too (by object, where the CLI shows it): it loses, while its controller says Accepted.
#[test]
fn live_cluster_ages_and_reported_status() {
    // `name` and `target` may carry `$0` marks: where a finding on the cluster's copy lands.
    let policy = |name: &str, target: &str, created: &str, status: &str| {
        format!(
            r#"apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: {name}
  namespace: infra
  creationTimestamp: "{created}"
spec:
  targetRefs:
  - {{group: gateway.networking.k8s.io, kind: Gateway, name: {target}}}
  timeout: {{http: {{requestTimeout: 5s}}}}
status:
  ancestors:
  - ancestorRef: {{group: gateway.networking.k8s.io, kind: Gateway, name: edge}}
    controllerName: gateway.envoyproxy.io/gatewayclass-controller
    conditions:
    - {{type: Accepted, status: "{status}", reason: {reason}, message: "{message}"}}
"#,
            reason = if status == "True" { "Accepted" } else { "Conflicted" },
            message = if status == "True" { "Policy has been accepted." } else { "Conflicts with team-timeouts." },
        )
    };
    let fixture = format!(
        r#"//- cluster://fake/gateway.networking.k8s.io/Gateway/infra/edge.json
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
  creationTimestamp: "2025-01-01T00:00:00Z"
spec:
  gatewayClassName: eg
  listeners:
  - {{name: http, port: 80, protocol: HTTP}}
//- cluster://fake/gateway.networking.k8s.io/HTTPRoute/infra/status.json
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: status
  namespace: infra
spec:
  parentRefs:
  - name: edge
//- cluster://fake/gateway.envoyproxy.io/BackendTrafficPolicy/infra/team-timeouts.json
{}//- cluster://fake/gateway.envoyproxy.io/BackendTrafficPolicy/infra/platform-timeouts.json
{}//- team/policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: $0team-timeouts$0
  namespace: infra
spec:
  targetRefs:
  - {{group: gateway.networking.k8s.io, kind: Gateway, name: edge}}
  timeout: {{http: {{requestTimeout: 9s}}}}
"#,
        policy("team-timeouts", "edge", "2025-01-02T00:00:00Z", "False"),
        policy("$0platform-timeouts$0", "$0edge$0", "2025-03-01T00:00:00Z", "True"),
    );
    check(
        &fixture,
        "cluster://fake/gateway.envoyproxy.io/BackendTrafficPolicy/infra/platform-timeouts.json \"platform-timeouts\" warning[status-disagrees] the controller `gateway.envoyproxy.io/gatewayclass-controller` reports Accepted=True (Accepted: Policy has been accepted.) for `Gateway/infra/edge`, but the cluster's objects give Accepted=False (Conflicted: lost to BackendTrafficPolicy.gateway.envoyproxy.io/infra/team-timeouts on Gateway/infra/edge)
cluster://fake/gateway.envoyproxy.io/BackendTrafficPolicy/infra/platform-timeouts.json \"edge\" warning[conflicted] `BackendTrafficPolicy.gateway.envoyproxy.io/infra/platform-timeouts` conflicts with `BackendTrafficPolicy.gateway.envoyproxy.io/infra/team-timeouts` on `Gateway/infra/edge`: `BackendTrafficPolicy.gateway.envoyproxy.io/infra/team-timeouts` is older, so this policy is not applied there
team/policy.yaml \"team-timeouts\" warning[status-disagrees] the controller `gateway.envoyproxy.io/gatewayclass-controller` reports Accepted=False (Conflicted: Conflicts with team-timeouts.) for `Gateway/infra/edge`, but these files give Accepted: the cluster holds objects or versions the files do not show, or the controller reads this kind differently",
    );
    let mut f = crate::analysis::fixture::parse(&fixture);
    let snap = f.workspace.snapshot();
    let report = snap.effective().report(snap.world());
    let json = serde_json::to_value(&report.policies).unwrap_or_default();
    assert_eq!(
        json,
        serde_json::json!([{
            // Only the cluster holds it (no file, no resourceVersion in this fixture).
            "policy": "BackendTrafficPolicy.gateway.envoyproxy.io/infra/platform-timeouts",
            "file": null,
            "cluster": {},
            "accepted": {"status": false, "reason": "Conflicted", "message": "lost to BackendTrafficPolicy.gateway.envoyproxy.io/infra/team-timeouts on Gateway/infra/edge"},
            "supersededBy": ["BackendTrafficPolicy.gateway.envoyproxy.io/infra/team-timeouts"],
            "affects": [],
            "reported": [{
                "ancestor": "Gateway/infra/edge",
                "controller": "gateway.envoyproxy.io/gatewayclass-controller",
                "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "Policy has been accepted."}]
            }],
            "agrees": false
        }, {
            "policy": "BackendTrafficPolicy.gateway.envoyproxy.io/infra/team-timeouts",
            "file": "team/policy.yaml",
            "range": {"start": {"line": 3, "character": 8}, "end": {"line": 3, "character": 21}},
            "accepted": {"status": true, "reason": "Accepted"},
            "enforcement": "Enforced",
            "supersededBy": [],
            "affects": ["HTTPRoute/infra/status"],
            "reported": [{
                "ancestor": "Gateway/infra/edge",
                "controller": "gateway.envoyproxy.io/gatewayclass-controller",
                "conditions": [{"type": "Accepted", "status": "False", "reason": "Conflicted", "message": "Conflicts with team-timeouts."}]
            }],
            "agrees": false
        }])
    );
    // Hover on the policy shows both.
    let at = f.marks.iter().find(|m| m.0 == "team/policy.yaml").map_or(0, |m| m.1);
    let hover = crate::analysis::hover(&snap, "team/policy.yaml", at).map(|h| h.markdown).unwrap_or_default();
    assert!(
        hover.contains("Live cluster:\n- controller `gateway.envoyproxy.io/gatewayclass-controller` says Accepted=False (Conflicted) for `Gateway/infra/edge` · computed: Accepted (**disagrees**)"),
        "{hover}"
    );
}

#[test]
fn consul_gateway_policy_references_are_consuls_own_type() {
    // Consul's GatewayPolicy refers with its own `PolicyTargetReference` (hashicorp/consul-k8s
    // a507b1d1e `control-plane/api/v1alpha1/gatewaypolicy_types.go`; CRD
    // `charts/consul/templates/crd-gatewaypolicies.yaml`): `group`, `kind`, `name` required,
    // 1 to 253 characters and no pattern, and Consul matches on kind, name, namespace and
    // section alone (`control-plane/api-gateway-custom/common/resources.go`). Its acceptance
    // fixtures write `group: gateway.networking.k8s.io/v1`: no finding, and the policy reaches
    // the listener. An empty `group` breaks its CRD; a wrong listener is still not found.
    let fixture = r#"//- gw.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: consul
spec:
  controllerName: consul.hashicorp.com/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gateway
spec:
  gatewayClassName: consul
  listeners:
  - {name: http-auth, port: 8080, protocol: HTTP}
//- policy.yaml
apiVersion: consul.hashicorp.com/v1alpha1
kind: GatewayPolicy
metadata:
  name: my-policy
spec:
  targetRef:
    name: gateway
    sectionName: http-auth
    group: gateway.networking.k8s.io/v1
    kind: Gateway
  override:
    jwt:
      providers:
      - name: local
---
apiVersion: consul.hashicorp.com/v1alpha1
kind: GatewayPolicy
metadata:
  name: empty-group
spec:
  targetRef: {name: gateway, sectionName: http-auth, group: $0""$0, kind: Gateway}
---
apiVersion: consul.hashicorp.com/v1alpha1
kind: GatewayPolicy
metadata:
  name: wrong-listener
spec:
  targetRef: {name: gateway, sectionName: $0http-aut$0, group: gateway.networking.k8s.io/v1, kind: Gateway}
"#;
    check(
        fixture,
        r#"policy.yaml "\"\"" error[invalid-target-ref] `group` is empty (Consul requires at least 1 character)
policy.yaml "http-aut" error[section-not-found] Gateway/default/gateway has no listener named `http-aut`; did you mean `http-auth`? (listeners: `http-auth`)"#,
    );
}
