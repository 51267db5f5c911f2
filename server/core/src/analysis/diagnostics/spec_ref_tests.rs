//! Backend references inside a policy's spec proper (docs/semantics.md §4.8), judged as route
//! backendRefs are.

use super::tests::check;

/// Two Gateways with three routes, and the external services of Envoy Gateway's own test data
/// (envoyproxy/gateway v1.9.0, internal/gatewayapi/testdata:
/// securitypolicy-with-extauth-invalid-no-reference-grant.in.yaml,
/// securitypolicy-with-extauth-invalid-no-matching-port.in.yaml,
/// envoyextensionpolicy-with-extproc-invalid-no-reference-grant.in.yaml,
/// securitypolicy-with-jwt-backendcluster.in.yaml), written as manifests instead of the
/// tests' lists by kind.
const WORLD: &str = r#"//- gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gateway-1
  namespace: default
spec:
  gatewayClassName: envoy-gateway-class
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
  name: gateway-2
  namespace: default
spec:
  gatewayClassName: envoy-gateway-class
  listeners:
  - name: http
    protocol: HTTP
    port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: service-1
  namespace: default
spec:
  ports:
  - port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: httproute-1
  namespace: default
spec:
  parentRefs:
  - name: gateway-1
    sectionName: http
  rules:
  - backendRefs:
    - name: service-1
      port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: httproute-2
  namespace: default
spec:
  parentRefs:
  - name: gateway-1
    sectionName: http
  rules:
  - backendRefs:
    - name: service-1
      port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: httproute-3
  namespace: default
spec:
  parentRefs:
  - name: gateway-2
    sectionName: http
  rules:
  - backendRefs:
    - name: service-1
      port: 8080
//- services.yaml
apiVersion: v1
kind: Service
metadata:
  name: http-backend
  namespace: envoy-gateway
spec:
  ports:
  - port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: http-backend
  namespace: default
spec:
  ports:
  - port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: grpc-backend
  namespace: envoy-gateway
spec:
  ports:
  - port: 9000
---
apiVersion: v1
kind: Service
metadata:
  name: jwks-service
  namespace: default
spec:
  ports:
  - port: 443
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata:
  name: oidc-idp
  namespace: default
spec:
  endpoints:
  - fqdn:
      hostname: oauth.foo.com
      port: 443
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata:
  name: extproc-to-grpc-backend
  namespace: envoy-gateway
spec:
  from:
  - group: gateway.envoyproxy.io
    kind: EnvoyExtensionPolicy
    namespace: default
  to:
  - group: ""
    kind: Service
"#;

#[test]
fn backends_in_a_policy_spec_resolve_like_route_backend_refs() {
    // Envoy Gateway reports each of these on the policy (`Accepted: False`, reason Invalid):
    // "ExtAuth: backend ref to Service envoy-gateway/http-backend not permitted by any
    // ReferenceGrant", "ExtAuth: TCP Port 80 not found on service default/http-backend",
    // "service ... not found" (the tests' .out.yaml files). The grant admits
    // EnvoyExtensionPolicies, not SecurityPolicies; the Backend and the Secret are not judged.
    let policies = r#"//- policies.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: policy-for-gateway-2
  namespace: default
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: gateway-2
  basicAuth:
    users:
      name: users-secret1
  extAuth:
    http:
      backendRefs:
      - name: http-backend
        namespace: $0envoy-gateway$0
        port: 80
      headersToBackend:
      - header1
    failOpen: false
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: policy-for-route-1
  namespace: default
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: httproute-1
  extAuth:
    grpc:
      backendRef:
        name: http-backend
        port: $080$0
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata:
  name: policy-for-route-2
  namespace: default
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: httproute-2
  jwt:
    providers:
    - name: example
      issuer: https://www.example.com
      remoteJWKS:
        uri: https://localhost/jwt/public-key/jwks.json
        backendRefs:
        - name: $0jwks-servce$0
          port: 443
  oidc:
    provider:
      issuer: https://oauth.foo.com
      backendRefs:
      - group: gateway.envoyproxy.io
        kind: Backend
        name: oidc-idp
        port: 443
    clientID: client1.apps.googleusercontent.com
    clientSecret:
      name: client1-secret
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyExtensionPolicy
metadata:
  name: policy-for-route-1
  namespace: default
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: httproute-1
  extProc:
  - backendRefs:
    - name: grpc-backend
      namespace: envoy-gateway
      port: 9000
  - backendRefs:
    - group: gateway.envoyproxy.io
      kind: Backend
      name: not-in-the-workspace
"#;
    check(
        &format!("{WORLD}{policies}"),
        r#"policies.yaml "envoy-gateway" error[backend-not-permitted] SecurityPolicy.gateway.envoyproxy.io/default/policy-for-gateway-2 may not refer to Service/envoy-gateway/http-backend: no ReferenceGrant in namespace `envoy-gateway` allows SecurityPolicies from namespace `default`; add one to `envoy-gateway`; until then, Envoy Gateway rejects the policy and answers requests on its targets with HTTP 500
policies.yaml "80" warning[backend-not-found] Service/default/http-backend has no port 80 (ports: `8080`): Envoy Gateway rejects the policy and answers requests on its targets with HTTP 500
policies.yaml "jwks-servce" warning[backend-not-found] Service/default/jwks-servce does not exist; did you mean `jwks-service`? Envoy Gateway rejects the policy and answers requests on its targets with HTTP 500"#,
    );
    // As Envoy Gateway reports them: the three SecurityPolicies not accepted (Invalid), and
    // they take part in no effective policy; the EnvoyExtensionPolicy, whose references the
    // grant admits, accepted.
    let eg500 = "Envoy Gateway answers requests on its targets with HTTP 500 until it is fixed";
    assert_eq!(
        statuses(policies),
        [
            format!(
                "policy-for-gateway-2 Invalid: its spec names Service/envoy-gateway/http-backend, and no ReferenceGrant in namespace `envoy-gateway` admits it; {eg500}"
            ),
            format!(
                "policy-for-route-1 Invalid: its spec names port 80 of Service/default/http-backend, which has no such port; {eg500}"
            ),
            format!(
                "policy-for-route-2 Invalid: its spec names Service/default/jwks-servce, which does not exist; {eg500}"
            ),
            "policy-for-route-1 Accepted: ".to_owned(),
        ]
    );
}

/// The statuses of `policies.yaml`'s policies over [`WORLD`]: key, reason, why not.
fn statuses(policies: &str) -> Vec<String> {
    let mut f = crate::analysis::fixture::parse(&format!("{WORLD}{policies}"));
    let snap = f.workspace.snapshot();
    let world = snap.world();
    crate::analysis::refs::objects_in(world, "policies.yaml")
        .into_iter()
        .map(|pid| {
            let report = crate::effective::accepted_report(world, pid, snap.effective().status(pid).unwrap());
            format!("{} {:?}: {}", world.key(pid).name, report.reason, report.message.unwrap_or_default())
        })
        .collect()
}

/// Envoy Gateway fails open only where the broken part says so: `extAuth.failOpen` when
/// external authorization alone is broken, `failOpen` on each broken `extProc` item
/// (`internal/gatewayapi/securitypolicy.go` and `envoyextensionpolicy.go`: `shouldFailOpen`,
/// `hasFailClose`). Otherwise its targets answer 500. The policy is rejected either way.
#[test]
fn a_broken_backend_fails_open_only_where_the_policy_says_so() {
    let policies = r#"//- policies.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: auth-open, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: httproute-1}]
  extAuth:
    failOpen: true
    grpc:
      backendRef: {name: missing-authz, port: 9000}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: auth-open-jwt-broken, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: httproute-2}]
  extAuth:
    failOpen: true
    grpc:
      backendRef: {name: missing-authz, port: 9000}
  jwt:
    providers:
    - name: example
      remoteJWKS:
        uri: https://localhost/jwks.json
        backendRefs: [{name: jwks-service, port: 8443}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyExtensionPolicy
metadata: {name: procs-open, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: httproute-1}]
  extProc:
  - backendRefs: [{name: missing-proc, port: 9000}]
    failOpen: true
  - backendRefs: [{name: http-backend, port: 8080}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyExtensionPolicy
metadata: {name: procs-closed, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: httproute-3}]
  extProc:
  - backendRefs: [{name: missing-proc, port: 9000}]
    failOpen: true
  - backendRefs: [{name: http-backend, port: 9090}]
"#;
    assert_eq!(
        statuses(policies),
        [
            "auth-open Invalid: its spec names Service/default/missing-authz, which does not exist; Envoy Gateway lets requests on its targets through without external authorization (failOpen) until it is fixed",
            "auth-open-jwt-broken Invalid: its spec names Service/default/missing-authz, which does not exist; its spec names port 8443 of Service/default/jwks-service, which has no such port; Envoy Gateway answers requests on its targets with HTTP 500 until it is fixed",
            "procs-open Invalid: its spec names Service/default/missing-proc, which does not exist; Envoy Gateway leaves the broken extProc filters out (failOpen) until it is fixed",
            "procs-closed Invalid: its spec names Service/default/missing-proc, which does not exist; its spec names port 9090 of Service/default/http-backend, which has no such port; Envoy Gateway answers requests on its targets with HTTP 500 until it is fixed",
        ]
    );
}
