//! Reading kinds, templates and YAML as their implementations and tools do (issues 37 and 38):
//! one fixture per class, shaped like the real thing, with every finding pinned.

use super::tests::check;

/// A CRD whose allowed targets are CEL rules of every common shape: a ternary with a `has()`
/// guard on `spec`, an `in` list, a rule on the list (`self.all`) and one on the item. The
/// group each kind is kept to stays with it (`XBackend` only in `x.dev`); a rule policylens
/// cannot follow leaves the kind's targets unknown, never refused; a kubebuilder scaffold
/// whose CRD requires no reference is not asked for one.
#[test]
fn fidelity_kinds_read_from_their_crds() {
    check(
        r#"//- config/crd/backendguards.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backendguards.x.dev
  labels:
    gateway.networking.k8s.io/policy: Direct
spec:
  group: x.dev
  names: {kind: BackendGuard, plural: backendguards}
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
            required: [targetRefs]
            x-kubernetes-validations:
            - message: targets must be XBackends or Services
              rule: "has(self.targetRefs) ? self.targetRefs.all(r, (r.kind == 'XBackend' && r.group == 'x.dev') || (r.group in ['', 'core'] && r.kind == 'Service')) : true"
            properties:
              targetRefs:
                type: array
                maxItems: 4
                x-kubernetes-validations:
                - message: targetRefs must be unique
                  rule: self.all(p1, self.exists_one(p2, p1.group == p2.group && p1.kind == p2.kind && p1.name == p2.name))
                items:
                  type: object
                  x-kubernetes-validations:
                  - message: sectionName is a Service port
                    rule: "!has(self.sectionName) || self.kind == 'Service'"
                  properties:
                    group: {type: string}
                    kind: {type: string}
                    name: {type: string}
                    sectionName: {type: string}
              mode: {type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: edgeguards.x.dev
  labels:
    gateway.networking.k8s.io/policy: Direct
spec:
  group: x.dev
  names: {kind: EdgeGuard, plural: edgeguards}
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
              targetRef:
                type: object
                x-kubernetes-validations:
                - rule: self.kind == 'Gateway' || self.kind.matches('^X?ListenerSet$')
                properties:
                  group: {type: string}
                  kind: {type: string}
                  name: {type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ratequotas.x.dev
  labels:
    gateway.networking.k8s.io/policy: Direct
spec:
  group: x.dev
  names: {kind: RateQuota, plural: ratequotas}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: RateQuota is the Schema for the ratequotas API
        type: object
        properties:
          spec:
            description: RateQuotaSpec defines the desired state of RateQuota
            type: object
            properties:
              targetRef:
                type: object
                properties:
                  group: {type: string}
                  kind: {type: string}
                  name: {type: string}
              foo:
                description: Foo is an example field of RateQuota. Edit ratequota_types.go to remove/update
                type: string
//- config/samples/x_v1alpha1_ratequota.yaml
apiVersion: x.dev/v1alpha1
kind: RateQuota
metadata:
  name: ratequota-sample
spec:
  # TODO(user): Add fields here
//- apps/api/guards.yaml
apiVersion: x.dev/v1
kind: XBackend
metadata:
  name: api
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - name: http
    port: 80
---
apiVersion: x.dev/v1
kind: BackendGuard
metadata:
  name: api
spec:
  targetRefs:
  - group: x.dev
    kind: XBackend
    name: api
  - group: ""
    kind: Service
    name: web
    sectionName: http
---
apiVersion: x.dev/v1
kind: BackendGuard
metadata:
  name: wrong-group
spec:
  targetRefs:
  - group: gateway.networking.x-k8s.io
    kind: $0XBackend$0
    name: api
---
apiVersion: x.dev/v1
kind: BackendGuard
metadata:
  name: section-on-xbackend
spec:
  targetRefs:
  - group: x.dev
    kind: XBackend
    name: api
    sectionName: $0http$0
---
apiVersion: x.dev/v1
kind: EdgeGuard
metadata:
  name: edge
spec:
  targetRef:
    group: gateway.networking.x-k8s.io
    kind: XListenerSet
    name: tenants
"#,
        r#"
apps/api/guards.yaml "XBackend" error[target-kind-not-allowed] BackendGuard.x.dev cannot target XBackend in group `gateway.networking.x-k8s.io`; it can target `XBackend.x.dev`, `Service`
apps/api/guards.yaml "http" error[invalid-target-ref] BackendGuard.x.dev cannot name a section of a XBackend; remove `sectionName`
"#,
    );
}

/// Templates (docs/semantics.md §4.1): a Helm key whose value an action writes, followed by the
/// block it leads, reads as one block (the route after it is read: its parentRef typo is
/// found); a Jinja template (Ansible's `templates/*.yaml.j2`, loops and conditionals) is read
/// around its tags, never an error.
#[test]
fn fidelity_helm_nindent_blocks_and_jinja_templates() {
    check(
        r#"//- charts/shop/Chart.yaml
apiVersion: v2
name: shop
version: 0.1.0
//- charts/shop/templates/gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  labels: {{ include "shop.labels" . | nindent 4 }}
    app.kubernetes.io/component: gateway
spec:
  gatewayClassName: {{ .Values.gatewayClassName }}
  listeners:
  - name: http
    port: 80
    protocol: HTTP
//- charts/shop/templates/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: {{ include "shop.fullname" . }}
  labels: {{- include "shop.labels" . | nindent 4 }}
    app.kubernetes.io/component: frontend
  annotations:
    {{- toYaml .Values.route.annotations | nindent 4 }}
spec:
  parentRefs:
  - name: edge
    sectionName: $0htps$0
  rules:
  - backendRefs:
    - name: {{ include "shop.fullname" . }}
      port: 80
//- ansible/roles/gateway/templates/gateway.yaml.j2
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: {{ gateway_name }}
  namespace: {{ gateway_namespace | default('infra') }}
spec:
  gatewayClassName: {{ gateway_class }}
  listeners:
{% for listener in gateway_listeners %}
  - name: {{ listener.name }}
    port: {{ listener.port }}
    protocol: {{ listener.protocol | upper }}
{%- if listener.hostname is defined %}
    hostname: "{{ listener.hostname }}"
{%- endif %}
{% endfor %}
---
{# one policy per listener that asks for it #}
{% for listener in gateway_listeners if listener.timeout is defined %}
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: {{ gateway_name }}-{{ listener.name }}
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: Gateway
    name: {{ gateway_name }}
    sectionName: {{ listener.name }}
  timeout:
    http:
      requestReceivedTimeout: {{ listener.timeout }}
{% endfor %}
"#,
        r#"
charts/shop/templates/route.yaml "htps" error[parent-not-found] Gateway/{{ .Release.Namespace }}/edge has no listener `htps` (listeners: `http`)
"#,
    );
}

/// Cascades (docs/semantics.md §4.1): a Gateway whose document is broken (its listeners
/// indented with tabs) gets its `yaml-syntax` error and nothing else: a route to it is not told
/// the Gateway has no listeners or lacks the one it names. The error names the character it
/// stopped at.
#[test]
fn fidelity_a_broken_document_says_only_that_it_is_broken() {
    check(
        "//- platform/gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
spec:
  gatewayClassName: eg
  listeners:
$0$0\t- name: https
\t  port: 443
\t  protocol: HTTPS
//- platform/class.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
//- apps/shop/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
spec:
  parentRefs:
  - name: edge
    sectionName: https
  - name: edge
//- apps/shop/settings.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-settings
data:
  discount: $0$0%10
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-owner
  annotations:
    owner: $0$0@platform-team
",
        r#"
apps/shop/settings.yaml "" error[yaml-syntax] `%` cannot start a value here: quote the value
apps/shop/settings.yaml "" error[yaml-syntax] `@` cannot start a value here (reserved in YAML): quote the value
platform/gateway.yaml "" error[yaml-syntax] a tab where YAML needs spaces (indent with spaces only)
"#,
    );
}

/// Regressions (issue 38 item 7). A namespaced EnvoyPatchPolicy on the cluster-scoped
/// GatewayClass its merged Gateways share (Envoy Gateway's `mergeGateways`) finds it. Istio
/// leaves a BackendTLSPolicy annotated `istio.io/ignore-policy-attachment` on a Service *port*
/// to another controller (no conflict with the one Istio applies there), and a policy on a
/// Service port reaches the Gateways of the routes sending to that Service, so the kind a
/// controller does not implement is `unsupported-by-controller` there too.
#[test]
fn fidelity_gateway_class_targets_and_walks_up_from_service_ports() {
    check(
        r#"//- envoy/merged.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: merged-eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef:
    group: gateway.envoyproxy.io
    kind: EnvoyProxy
    name: merged
    namespace: envoy-gateway-system
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyProxy
metadata:
  name: merged
  namespace: envoy-gateway-system
spec:
  mergeGateways: true
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: merged-1
  namespace: envoy-gateway-system
spec:
  gatewayClassName: merged-eg
  listeners:
  - name: http
    port: 8080
    protocol: HTTP
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyPatchPolicy
metadata:
  name: buffer-limit
  namespace: envoy-gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: GatewayClass
    name: merged-eg
  type: JSONPatch
  jsonPatches:
  - type: type.googleapis.com/envoy.config.listener.v3.Listener
    name: envoy-gateway-system/merged-1/http
    operation:
      op: add
      path: /per_connection_buffer_limit_bytes
      value: 1024
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: backend
  namespace: envoy-gateway-system
spec:
  parentRefs:
  - name: merged-1
  rules:
  - backendRefs:
    - name: backend
      port: 443
---
apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: envoy-gateway-system
spec:
  ports:
  - name: https
    port: 443
---
apiVersion: apisix.apache.org/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: backend-retries
  namespace: envoy-gateway-system
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: $0backend$0
    sectionName: https
  retries: 3
//- istio/echo.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: waypoint
  namespace: echo
spec:
  gatewayClassName: istio
  listeners:
  - name: http
    port: 80
    protocol: HTTP
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: echo
  namespace: echo
spec:
  parentRefs:
  - name: waypoint
  rules:
  - backendRefs:
    - name: echo
      port: 443
---
apiVersion: v1
kind: Service
metadata:
  name: echo
  namespace: echo
spec:
  ports:
  - name: http
    port: 80
  - name: https
    port: 443
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: echo-https
  namespace: echo
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: echo
    sectionName: https
  validation:
    hostname: echo.example.com
    wellKnownCACertificates: System
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: echo-https-for-another-gateway
  namespace: echo
  annotations:
    istio.io/ignore-policy-attachment: "true"
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: echo
    sectionName: https
  validation:
    hostname: echo.internal
    wellKnownCACertificates: System
"#,
        r#"
envoy/merged.yaml "backend" warning[unsupported-by-controller] `BackendTrafficPolicy.apisix.apache.org/envoy-gateway-system/backend-retries` does nothing: the Gateway it reaches is served by a controller that does not implement BackendTrafficPolicy.apisix.apache.org (it is implemented by Apache APISIX): `Gateway/envoy-gateway-system/merged-1` by Envoy Gateway (`gateway.envoyproxy.io/gatewayclass-controller`)
"#,
    );
}

/// An anchor defined again (a Flux HelmRelease's `env` items, each `&name`): go-yaml v3, which
/// kustomize and Flux read with, lets the later one replace the earlier, so it is no error
/// (docs/semantics.md §4.1); an alias to an anchor defined nowhere is one, and says which.
#[test]
fn fidelity_redefined_anchors_are_read_as_go_yaml_reads_them() {
    check(
        r#"//- kubernetes/apps/network/cloudflare-dns/app/helmrelease.yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: &app cloudflare-dns
spec:
  values:
    fullnameOverride: *app
    env:
      - name: &name CF_API_TOKEN
        valueFrom:
          secretKeyRef:
            name: &secret cloudflare-dns-secret
            key: *name
      - name: &name CF_ZONE_ID
        valueFrom:
          secretKeyRef:
            name: *secret
            key: *name
//- kubernetes/apps/network/echo/app/helmrelease.yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: echo
spec:
  values:
    controllers:
      echo:
        containers:
          app:
            env:
              TZ: $0$0*timezone
"#,
        r#"
kubernetes/apps/network/echo/app/helmrelease.yaml "" error[yaml-syntax] an alias (`*timezone`) to an anchor (`&timezone`) defined nowhere before it
"#,
    );
}

/// Policies attached by a route rule's ExtensionRef filter (kgateway TrafficPolicy): each
/// applies to its own rule, named or not, so two rules' policies never meet; a RouteOption
/// whose copy a route's filter names beside another copy of the route is not without target.
#[test]
fn fidelity_extension_ref_policies_apply_to_their_own_rule() {
    check(
        r#"//- apps/shop/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: kgateway
spec:
  controllerName: kgateway.dev/kgateway
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
spec:
  gatewayClassName: kgateway
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
  - name: gw
  rules:
  - matches:
    - path: {type: PathPrefix, value: /cart}
    backendRefs:
    - name: shop
      port: 80
    filters:
    - type: ExtensionRef
      extensionRef:
        group: gateway.kgateway.dev
        kind: TrafficPolicy
        name: cart-headers
  - matches:
    - path: {type: PathPrefix, value: /checkout}
    backendRefs:
    - name: shop
      port: 80
    filters:
    - type: ExtensionRef
      extensionRef:
        group: gateway.kgateway.dev
        kind: TrafficPolicy
        name: checkout-headers
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  ports:
  - port: 80
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata:
  name: cart-headers
spec:
  transformation:
    request:
      set:
      - name: x-section
        value: cart
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata:
  name: checkout-headers
spec:
  transformation:
    request:
      set:
      - name: x-section
        value: checkout
//- test/inputs/route-options/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: example-route
  namespace: gloo
spec:
  parentRefs:
  - name: gw
  rules:
  - backendRefs:
    - name: example-svc
      port: 80
    filters:
    - type: ExtensionRef
      extensionRef:
        group: gateway.solo.io
        kind: RouteOption
        name: faults
---
apiVersion: gateway.solo.io/v1
kind: RouteOption
metadata:
  name: faults
  namespace: gloo
spec:
  options:
    faults:
      abort:
        percentage: 50
        httpStatus: 503
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: gloo
spec:
  gatewayClassName: gloo-gateway
  listeners:
  - name: http
    port: 8080
    protocol: HTTP
---
apiVersion: v1
kind: Service
metadata:
  name: example-svc
  namespace: gloo
spec:
  ports:
  - port: 80
//- test/inputs/route-options/options.yaml
apiVersion: gateway.solo.io/v1
kind: RouteOption
metadata:
  name: faults
  namespace: gloo
spec:
  options:
    faults:
      abort:
        percentage: 50
        httpStatus: 503
"#,
        "",
    );
}

/// What an implementation documents beyond Service for BackendTLSPolicy (the Inference
/// Extension's InferencePool, a kind of an implementation's own group) resolves; a Service
/// port is still named by its name (Envoy Gateway, Istio): `443` for an unnamed port stays a
/// finding, while a kind whose CRD admits numbers names the port by its number.
#[test]
fn fidelity_backend_targets_and_numeric_sections() {
    check(
        r#"//- config/crd/upstreamtimeouts.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: upstreamtimeouts.x.dev
  labels:
    gateway.networking.k8s.io/policy: Direct
spec:
  group: x.dev
  names: {kind: UpstreamTimeout, plural: upstreamtimeouts}
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
            required: [targetRefs]
            properties:
              targetRefs:
                type: array
                items:
                  type: object
                  x-kubernetes-validations:
                  - rule: self.kind == 'Service'
                  properties:
                    group: {type: string}
                    kind: {type: string}
                    name: {type: string}
                    sectionName:
                      type: string
                      maxLength: 253
                      minLength: 1
                      pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
//- apps/llm/pool.yaml
apiVersion: inference.networking.k8s.io/v1
kind: InferencePool
metadata:
  name: vllm-llama3
spec:
  targetPorts:
  - number: 8000
  selector:
    matchLabels:
      app: vllm-llama3
  endpointPickerRef:
    name: vllm-llama3-epp
    port:
      number: 9002
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: vllm-llama3
spec:
  targetRefs:
  - group: inference.networking.k8s.io
    kind: InferencePool
    name: vllm-llama3
  validation:
    hostname: vllm-llama3.llm.svc
    wellKnownCACertificates: System
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: model-cache
spec:
  targetRefs:
  - group: cache.example.dev
    kind: ModelCache
    name: shared
  validation:
    hostname: cache.llm.svc
    wellKnownCACertificates: System
//- apps/static/tls.yaml
apiVersion: v1
kind: Service
metadata:
  name: static-file-server
spec:
  ports:
  - port: 443
    targetPort: 8443
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: static-file-server
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: static-file-server
    sectionName: $0"443"$0
  validation:
    hostname: www.example.com
    wellKnownCACertificates: System
---
apiVersion: x.dev/v1
kind: UpstreamTimeout
metadata:
  name: static-file-server
spec:
  targetRefs:
  - group: ""
    kind: Service
    name: static-file-server
    sectionName: "443"
  timeout: 5s
"#,
        r#"
apps/static/tls.yaml "\"443\"" error[section-not-found] Service/default/static-file-server has no port named `443` (its only port, 443, has no name; name it to target it)
"#,
    );
}

/// NGINX Gateway Fabric UpstreamSettingsPolicies on one Service merge field by field: two
/// that set different `keepAlive` fields both apply; one that sets what an older one sets is
/// Conflicted, by that one (markConflictedPolicies, upstreamsettings `Conflicts`).
#[test]
fn fidelity_per_field_merge_names_the_policy_in_the_way() {
    check(
        r#"//- apps/coffee/upstream.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gateway
spec:
  gatewayClassName: nginx
  listeners:
  - name: http
    port: 80
    protocol: HTTP
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: coffee
spec:
  parentRefs:
  - name: gateway
  rules:
  - backendRefs:
    - name: coffee
      port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: coffee
spec:
  ports:
  - port: 80
---
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata:
  name: base-keepalive
spec:
  targetRefs:
  - group: core
    kind: Service
    name: coffee
  keepAlive:
    time: 1m
    timeout: 5h
---
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata:
  name: pool-size
spec:
  targetRefs:
  - group: core
    kind: Service
    name: coffee
  keepAlive:
    connections: 100
    requests: 55
---
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata:
  name: tuning
spec:
  targetRefs:
  - group: core
    kind: Service
    name: $0coffee$0
  keepAlive:
    connections: 11
"#,
        r#"
apps/coffee/upstream.yaml "coffee" warning[conflicted] `UpstreamSettingsPolicy.gateway.nginx.org/default/tuning` conflicts with `UpstreamSettingsPolicy.gateway.nginx.org/default/pool-size` on `Service/default/coffee`: `UpstreamSettingsPolicy.gateway.nginx.org/default/pool-size` comes first by namespace/name (neither has a creationTimestamp; in a cluster the older one wins), so this policy is not applied there
"#,
    );
}

/// Workloads are never policies (docs/semantics.md §4.4): a VerticalPodAutoscaler and a
/// flagger Canary have a `targetRef` to a Deployment; a kind whose references name a Gateway
/// API kind is one.
#[test]
fn fidelity_workload_controllers_are_not_policies() {
    let mut f = crate::analysis::fixture::parse(
        r#"//- kubernetes/apps/default/echo/app/vpa.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: echo
spec:
  template:
    spec:
      containers:
      - name: app
        image: ghcr.io/example/echo:1.0
---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata:
  name: echo
spec:
  targetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: echo
  updatePolicy:
    updateMode: "Off"
---
apiVersion: flagger.app/v1beta1
kind: Canary
metadata:
  name: echo
spec:
  targetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: echo
  service:
    port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: echo
spec:
  rules:
  - backendRefs:
    - name: echo
      port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: echo
spec:
  ports:
  - port: 80
---
apiVersion: example.org/v1
kind: RetryBudget
metadata:
  name: echo
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: echo
  percent: 20
"#,
    );
    let snap = f.workspace.snapshot();
    let world = snap.world();
    let kinds: Vec<String> =
        world.ids().filter(|&id| world.policy_kind(id).is_some()).map(|id| world.key(id).to_string()).collect();
    assert_eq!(kinds, ["RetryBudget.example.org/default/echo"]);
    let codes: Vec<&str> = snap.diagnostics().values().flatten().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["route-without-parent"]);
}

#[test]
fn fidelity_chainsaw_bindings_name_each_tests_own_objects() {
    // Kyverno chainsaw runs each test folder in an ephemeral namespace of its own, `$namespace`,
    // and evaluates `(…)` bindings per test (kyverno/chainsaw `625077865`
    // `testdata/e2e/examples/bindings/chainsaw-test.yaml`). `($namespace)` in two tests is two
    // namespaces: `route-timeout` gets its Gateway from the harness, not from `backendtls`'s
    // folder, so neither a missing listener nor a port only that copy lacks is claimed. Within
    // one test the Service it applies decides: a port it does not have stays a warning.
    let files = r#"//- test/e2e/chainsaw/backendtls/chainsaw-test.yaml
apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: backendtls
spec:
  steps:
  - try:
    - apply:
        file: gateway.yaml
    - apply:
        file: route.yaml
//- test/e2e/chainsaw/backendtls/gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: ($namespace)
spec:
  gatewayClassName: agentgateway
  listeners:
  - name: http
    port: 80
    protocol: HTTP
---
apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: ($namespace)
spec:
  ports:
  - name: https
    port: 443
//- test/e2e/chainsaw/backendtls/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: route
  namespace: ($namespace)
spec:
  parentRefs:
  - name: gw
    namespace: ($namespace)
  rules:
  - backendRefs:
    - name: backend
      namespace: ($namespace)
      port: $08443$0
//- test/e2e/chainsaw/route-timeout/chainsaw-test.yaml
apiVersion: chainsaw.kyverno.io/v1alpha1
kind: Test
metadata:
  name: route-timeout
spec:
  bindings:
  - name: gateway
    value: gw
  steps:
  - try:
    - apply:
        file: route.yaml
//- test/e2e/chainsaw/route-timeout/route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: slow
  namespace: ($namespace)
spec:
  parentRefs:
  - name: ($gateway)
    namespace: ($namespace)
    sectionName: https
  - name: gw
    namespace: ($namespace)
    sectionName: https
  rules:
  - backendRefs:
    - name: backend
      namespace: ($namespace)
      port: 8080
"#;
    check(
        files,
        r#"test/e2e/chainsaw/backendtls/route.yaml "8443" warning[backend-not-found] Service/($namespace)/backend has no port 8443 (ports: `443`)"#,
    );
}

#[test]
fn fidelity_an_implementation_that_follows_backend_refs_without_grants() {
    // The AWS Gateway API Controller (VPC Lattice) reads the Service a backendRef names in the
    // namespace it writes and no ReferenceGrant (aws/aws-application-networking-k8s `03d6abec`
    // `pkg/gateway/model_build_targetgroup.go`; HTTPRouteReferenceGrant is N/A in its
    // `docs/conformance-test.md`): a route under its Gateway needs no grant. The same reference
    // from a route under an Envoy Gateway, or under both, still does.
    let files = r#"//- lattice/gatewayclass.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: amazon-vpc-lattice
spec:
  controllerName: application-networking.k8s.aws/gateway-api-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
//- lattice/gateways.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: my-hotel
  namespace: default
spec:
  gatewayClassName: amazon-vpc-lattice
  listeners:
  - name: http
    protocol: HTTP
    port: 80
    allowedRoutes:
      namespaces:
        from: All
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: default
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    protocol: HTTP
    port: 80
    allowedRoutes:
      namespaces:
        from: All
//- lattice/inventory.yaml
apiVersion: v1
kind: Service
metadata:
  name: inventory-ver1
  namespace: inventory
spec:
  ports:
  - port: 80
//- lattice/routes.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: inventory
  namespace: parking
spec:
  parentRefs:
  - name: my-hotel
    namespace: default
    sectionName: http
  rules:
  - backendRefs:
    - name: inventory-ver1
      namespace: inventory
      port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: inventory-edge
  namespace: parking
spec:
  parentRefs:
  - name: my-hotel
    namespace: default
  - name: edge
    namespace: default
  rules:
  - backendRefs:
    - name: inventory-ver1
      namespace: $0inventory$0
      port: 80
"#;
    check(
        files,
        r#"lattice/routes.yaml "inventory" error[backend-not-permitted] HTTPRoute/parking/inventory-edge may not refer to Service/inventory/inventory-ver1: no ReferenceGrant in namespace `inventory` allows HTTPRoutes from namespace `parking`; add one to `inventory`"#,
    );
}
