//! Certainty decides severity (docs/semantics.md §6.1): every finding that says something is
//! missing asks whether the world is closed for it. Folders of cases, inputs meant to fail,
//! scaffolds, and the objects Helm releases, operators and Gateways' implementations make.
//! Each fixture is shaped like the repositories it stands for, with the true findings that must
//! stay beside the ones that must not be claimed.

use super::tests::check;

const CLASS: &str = r#"//- infra/class.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
"#;

/// The platform's Gateway every team's routes attach to.
const EDGE: &str = r#"//- infra/gateway.yaml
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
"#;

#[test]
fn a_case_folders_policy_target_is_left_to_the_reader_unless_a_near_name_says_typo() {
    // Kuadrant's kubebuilder samples target a `toystore` route their guide creates; an
    // example's RateLimitPolicy targets "your" route. Outside folders of cases, and under a near
    // name anywhere, a missing target stays an error.
    let files = r#"//- config/samples/kuadrant_v1_ratelimitpolicy.yaml
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: ratelimitpolicy-sample
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0toystore$0
  limits:
    toystore:
      rates:
      - limit: 5
        window: 10s
//- examples/ratelimit/policy.yaml
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: limit-your-route
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0my-route$0
  limits:
    global:
      rates:
      - limit: 100
        window: 1m
//- examples/ratelimit/typo.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
spec:
  parentRefs:
  - name: edge
    namespace: infra
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: limit-checkout
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0chekout$0
  limits:
    global:
      rates:
      - limit: 100
        window: 1m
//- apps/shop/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
  namespace: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
//- apps/shop/policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: checkout-timeouts
  namespace: shop
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0checkuot$0
  timeout:
    http:
      requestTimeout: 5s
"#;
    check(
        &format!("{CLASS}{EDGE}{files}"),
        r#"
apps/shop/policy.yaml "checkuot" error[target-not-found] HTTPRoute/shop/checkuot does not exist; did you mean `checkout`?
config/samples/kuadrant_v1_ratelimitpolicy.yaml "toystore" information[target-not-found] HTTPRoute/default/toystore does not exist (nothing this test or example can reach defines it: it is left to the reader or the test harness)
examples/ratelimit/policy.yaml "my-route" information[target-not-found] HTTPRoute/default/my-route does not exist (nothing this test or example can reach defines it: it is left to the reader or the test harness)
examples/ratelimit/typo.yaml "chekout" error[target-not-found] HTTPRoute/default/chekout does not exist; did you mean `checkout`?
"#,
    );
}

#[test]
fn inputs_meant_to_fail_and_scaffolds_take_part_in_nothing() {
    // Envoy AI Gateway's CRD validation inputs (`tests/crdcel/testdata/<kind>/<case>.yaml`, the
    // invalid ones named so), a harness's `_err:` beside an input the API server must reject,
    // a kubebuilder scaffold (`spec:` and its TODO), a folder of bad inputs. Only what does not
    // parse is said; the policy left whole keeps its finding, and no copy of a failing input
    // satisfies another file's reference.
    let files = r#"//- tests/crdcel/testdata/backendsecuritypolicies/targetrefs_invalid_kind.yaml
apiVersion: aigateway.envoyproxy.io/v1alpha1
kind: BackendSecurityPolicy
metadata:
  name: targetrefs-invalid-kind
spec:
  targetRefs:
  - group: aigateway.envoyproxy.io
    kind: InvalidKind
    name: test-backend
  type: APIKey
//- api/v1/testdata/backendtrafficpolicy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: no-target
spec:
  timeout:
    http:
      requestTimeout: 5s
_err: "spec: Invalid value: at least one of targetRef, targetRefs or targetSelectors must be set"
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shadow
spec:
  parentRefs:
  - name: nowhere
_expected: rejected
//- config/samples/extensions_v1alpha1_planpolicy.yaml
apiVersion: extensions.kuadrant.io/v1alpha1
kind: PlanPolicy
metadata:
  labels:
    app.kubernetes.io/name: kuadrant-operator
  name: planpolicy-sample
spec:
  # TODO(user): Add fields here
//- test/bad/broken.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: broken
spec:
  parentRefs:
  - name: edge
   $0$0namespace: infra
//- test/bad/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
spec:
  parentRefs:
  - name: missing-gateway
//- deploy/policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: checkout-timeouts
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0checkout$0
  timeout:
    http:
      requestTimeout: 5s
"#;
    check(
        &format!("{CLASS}{files}"),
        r#"
deploy/policy.yaml "checkout" error[target-not-found] HTTPRoute/default/checkout does not exist
test/bad/broken.yaml "" error[yaml-syntax] bad indentation: this line does not line up with the keys around it
"#,
    );
}

#[test]
fn what_a_helm_release_or_an_operator_makes_is_unknown_not_missing() {
    // A Flux repository: a HelmRelease's chart renders the Service its route sends to and the
    // authorization Service a SecurityPolicy names; operators' custom resources make their
    // Services by their documented names; Flux's own receiver. A name no generator makes stays
    // missing.
    let files = r#"//- kubernetes/apps/media/sonarr/app/helmrelease.yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: sonarr
  namespace: media
spec:
  interval: 1h
  chart:
    spec:
      chart: sonarr
      sourceRef:
        kind: HelmRepository
        name: charts
        namespace: flux-system
//- kubernetes/apps/media/sonarr/app/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: sonarr
  namespace: media
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0sonarr$0
      port: 8989
//- kubernetes/apps/security/authelia/app/helmrelease.yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: authelia
  namespace: security
spec:
  chart:
    spec:
      chart: authelia
      sourceRef:
        kind: HelmRepository
        name: authelia
        namespace: flux-system
//- kubernetes/apps/security/authelia/app/securitypolicy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: authelia
  namespace: security
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: authelia
  extAuth:
    http:
      backendRefs:
      - name: $0authelia$0
        port: 9091
      path: /api/authz/forward-auth
//- kubernetes/apps/security/authelia/app/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: authelia
  namespace: security
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0authelia$0
      port: 9091
//- kubernetes/apps/monitoring/grafana/app/grafana.yaml
apiVersion: grafana.integreatly.org/v1beta1
kind: Grafana
metadata:
  name: grafana
  namespace: monitoring
spec:
  config:
    server:
      root_url: https://grafana.example.com
---
apiVersion: operator.victoriametrics.com/v1beta1
kind: VMSingle
metadata:
  name: metrics
  namespace: monitoring
spec:
  retentionPeriod: 2w
//- kubernetes/apps/monitoring/grafana/app/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: grafana
  namespace: monitoring
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0grafana-service$0
      port: 3000
  - matches:
    - path: {type: PathPrefix, value: /vm}
    backendRefs:
    - name: $0vmsingle-metrics$0
      port: 8429
  - matches:
    - path: {type: PathPrefix, value: /loki}
    backendRefs:
    - name: $0loki-gateway$0
      port: 80
//- kubernetes/apps/flux-system/webhooks/receiver.yaml
apiVersion: notification.toolkit.fluxcd.io/v1
kind: Receiver
metadata:
  name: github
  namespace: flux-system
spec:
  type: github
  events: ["ping", "push"]
  secretRef:
    name: github-webhook-token
  resources:
  - kind: GitRepository
    name: flux-system
//- kubernetes/apps/flux-system/webhooks/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: flux-webhook
  namespace: flux-system
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0webhook-receiver$0
      port: 80
"#;
    check(
        &format!("{CLASS}{EDGE}{files}"),
        r#"
kubernetes/apps/flux-system/webhooks/route.yaml "webhook-receiver" information[backend-not-found] Service/flux-system/webhook-receiver does not exist (not in the files; Flux's notification-controller creates Service `webhook-receiver`)
kubernetes/apps/media/sonarr/app/route.yaml "sonarr" information[backend-not-found] Service/media/sonarr does not exist (not in the files; HelmRelease `media/sonarr` may render it)
kubernetes/apps/monitoring/grafana/app/route.yaml "grafana-service" information[backend-not-found] Service/monitoring/grafana-service does not exist (not in the files; Grafana `monitoring/grafana` creates Service `grafana-service`)
kubernetes/apps/monitoring/grafana/app/route.yaml "vmsingle-metrics" information[backend-not-found] Service/monitoring/vmsingle-metrics does not exist (not in the files; VMSingle `monitoring/metrics` creates Service `vmsingle-metrics`)
kubernetes/apps/monitoring/grafana/app/route.yaml "loki-gateway" warning[backend-not-found] Service/monitoring/loki-gateway does not exist
kubernetes/apps/security/authelia/app/route.yaml "authelia" information[backend-not-found] Service/security/authelia does not exist (not in the files; HelmRelease `security/authelia` may render it)
kubernetes/apps/security/authelia/app/securitypolicy.yaml "authelia" information[backend-not-found] Service/security/authelia does not exist (not in the files; HelmRelease `security/authelia` may render it)
"#,
    );
}

#[test]
fn data_planes_chart_templates_and_inflated_charts_make_what_the_files_do_not_hold() {
    // An edge Envoy Gateway hands TCP to the Service Istio provisions for an internal Gateway
    // (`<name>-<class>`); a route sends to a Service a chart template names
    // `{{ include "shop.fullname" . }}-frontend`; a kustomization inflates a Redis chart into
    // `cache`; a selector over the release's labels. KubeRay's RayService keeps its serve
    // Service under its own name. Names none of them makes stay missing.
    let files = r#"//- platform/gateways.yaml
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
  - name: tcp
    port: 5432
    protocol: TCP
    allowedRoutes:
      namespaces:
        from: All
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: internal
  namespace: mesh
spec:
  gatewayClassName: istio
  listeners:
  - name: tcp
    port: 5432
    protocol: TCP
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata:
  name: to-mesh
  namespace: mesh
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0internal-istio$0
      port: 5432
    - name: $0internal-nginx$0
      port: 5432
//- charts/shop/Chart.yaml
apiVersion: v2
name: shop
version: 1.0.0
//- charts/shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: {{ include "shop.fullname" . }}-frontend
spec:
  ports:
  - port: 80
//- deploy/shop/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0shop-frontend$0
      port: 80
    - name: $0shop-backend$0
      port: 80
//- apps/cache/kustomization.yaml
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: cache
resources:
- policy.yaml
helmCharts:
- name: redis
  repo: oci://registry-1.docker.io/bitnamicharts
  version: 20.1.0
  releaseName: cache
//- apps/cache/policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: cache-routes
spec:
  targetSelectors:
  - $0kind: HTTPRoute
    matchLabels:
      app.kubernetes.io/managed-by: Helm$0
  timeout:
    http:
      requestTimeout: 2s
//- apps/ray/rayservice.yaml
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: text-summarizer
  namespace: ray
spec:
  serveConfigV2: |
    applications: []
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: text-summarizer
  namespace: ray
spec:
  parentRefs:
  - name: edge
    namespace: infra
  rules:
  - backendRefs:
    - name: $0text-summarizer-serve-svc$0
      port: 8000
    - name: $0text-summarizer-svc$0
      port: 8000
"#;
    check(
        &format!("{CLASS}{files}"),
        r#"
apps/cache/policy.yaml "kind: HTTPRoute\n    matchLabels:\n      app.kubernetes.io/managed-by: Helm" information[selector-matches-nothing] no HTTPRoute in namespace `cache` has these labels (not in the files; the Helm chart `redis` (release `cache`) of `apps/cache/kustomization.yaml` may make objects with these labels)
apps/ray/rayservice.yaml "text-summarizer-serve-svc" information[backend-not-found] Service/ray/text-summarizer-serve-svc does not exist (not in the files; RayService `ray/text-summarizer` creates Service `text-summarizer-serve-svc`)
apps/ray/rayservice.yaml "text-summarizer-svc" warning[backend-not-found] Service/ray/text-summarizer-svc does not exist
deploy/shop/route.yaml "shop-frontend" information[backend-not-found] Service/default/shop-frontend does not exist (not in the files; `charts/shop/templates/service.yaml` makes Service `{{ include "shop.fullname" . }}-frontend`, which may be it)
deploy/shop/route.yaml "shop-backend" warning[backend-not-found] Service/default/shop-backend does not exist
platform/gateways.yaml "internal-istio" information[backend-not-found] Service/mesh/internal-istio does not exist (not in the files; Gateway `mesh/internal` creates Service `internal-istio`)
platform/gateways.yaml "internal-nginx" warning[backend-not-found] Service/mesh/internal-nginx does not exist
"#,
    );
}

#[test]
fn an_object_a_chart_renders_into_its_release_namespace_may_be_the_one_named() {
    // linkerd/linkerd2 `b24cd4059`: the linkerd-viz chart renders Server `prometheus-admin` into
    // its release's namespace (`viz/charts/linkerd-viz/templates/prometheus-policy.yaml`), and
    // `grafana/authzpolicy-grafana.yaml` grants Grafana access to it in `linkerd-viz`, where
    // the chart is installed. A Server no template has stays missing.
    let files = r#"//- viz/charts/linkerd-viz/Chart.yaml
apiVersion: v2
name: linkerd-viz
version: 0.1.0
//- viz/charts/linkerd-viz/templates/prometheus-policy.yaml
apiVersion: policy.linkerd.io/v1beta3
kind: Server
metadata:
  namespace: {{ .Release.Namespace }}
  name: prometheus-admin
  labels:
    linkerd.io/extension: viz
spec:
  podSelector:
    matchLabels:
      component: prometheus
  port: admin
  proxyProtocol: HTTP/1
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  namespace: {{ .Release.Namespace }}
  name: prometheus-admin
spec:
  targetRef:
    group: policy.linkerd.io
    kind: Server
    name: prometheus-admin
  requiredAuthenticationRefs:
  - kind: ServiceAccount
    name: metrics-api
    namespace: {{ .Release.Namespace }}
//- grafana/authzpolicy-grafana.yaml
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  namespace: linkerd-viz
  name: grafana
spec:
  targetRef:
    group: policy.linkerd.io
    kind: Server
    name: $0prometheus-admin$0
  requiredAuthenticationRefs:
  - kind: ServiceAccount
    name: grafana
    namespace: grafana
---
apiVersion: policy.linkerd.io/v1alpha1
kind: AuthorizationPolicy
metadata:
  namespace: linkerd-viz
  name: grafana-tap
spec:
  targetRef:
    group: policy.linkerd.io
    kind: Server
    name: $0grafana-admin$0
  requiredAuthenticationRefs:
  - kind: ServiceAccount
    name: grafana
    namespace: grafana
"#;
    check(
        files,
        r#"
grafana/authzpolicy-grafana.yaml "prometheus-admin" information[target-not-found] Server.policy.linkerd.io/linkerd-viz/prometheus-admin does not exist (not in the files; `viz/charts/linkerd-viz/templates/prometheus-policy.yaml`, rendered into its release's namespace, creates Server `prometheus-admin`)
grafana/authzpolicy-grafana.yaml "grafana-admin" error[target-not-found] Server.policy.linkerd.io/linkerd-viz/grafana-admin does not exist
"#,
    );
}

#[test]
fn a_copy_another_case_holds_satisfies_and_two_files_of_a_case_are_alternatives() {
    // A port-routing test folder (shaped like Gloo's and kgateway's `port_routing/testdata`):
    // the route of one test sends to port 81 of `example-svc`, which the shared setup declares
    // on 8080 while the copy its test applies (`svc/port-81.yaml`) has 81; a port no copy has
    // stays a finding. An example folder holds two versions of one policy in two files of one
    // case: alternatives, never a conflict; two policies in one file still compete.
    let files = r#"//- test/port_routing/testdata/setup.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    port: 8080
    protocol: HTTP
---
apiVersion: v1
kind: Service
metadata:
  name: example-svc
spec:
  ports:
  - port: 8080
//- test/port_routing/testdata/k8s/port-81.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: example-route
spec:
  parentRefs:
  - name: gw
  rules:
  - backendRefs:
    - name: example-svc
      port: 81
//- test/port_routing/testdata/k8s/port-82.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: example-route
spec:
  parentRefs:
  - name: gw
  rules:
  - backendRefs:
    - name: example-svc
      port: $082$0
//- test/port_routing/testdata/svc/port-81.yaml
apiVersion: v1
kind: Service
metadata:
  name: example-svc
spec:
  ports:
  - port: 81
    targetPort: 8080
//- examples/timeouts/gateway-and-route.yaml
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
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: backend
spec:
  parentRefs:
  - name: eg
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: timeouts-v1
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: backend
  timeout:
    http:
      requestTimeout: 10s
//- examples/timeouts/policy-v2.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: timeouts-v2
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: backend
  timeout:
    http:
      requestTimeout: 20s
//- examples/retries/all.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: eg
  namespace: retries
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
  name: backend
  namespace: retries
spec:
  parentRefs:
  - name: eg
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: retry-a
  namespace: retries
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: backend
  retry:
    numRetries: 3
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: retry-b
  namespace: retries
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0backend$0
  retry:
    numRetries: 5
"#;
    check(
        &format!("{CLASS}{files}"),
        r#"
examples/retries/all.yaml "backend" warning[conflicted] `BackendTrafficPolicy.gateway.envoyproxy.io/retries/retry-b` conflicts with `BackendTrafficPolicy.gateway.envoyproxy.io/retries/retry-a` on `HTTPRoute/retries/backend`: `BackendTrafficPolicy.gateway.envoyproxy.io/retries/retry-a` comes first by namespace/name (neither has a creationTimestamp; in a cluster the older one wins), so this policy is not applied there
test/port_routing/testdata/k8s/port-82.yaml "82" warning[backend-not-found] Service/default/example-svc has no port 82 (ports: `8080`)
"#,
    );
}
