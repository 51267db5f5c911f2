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
        r#"policies.yaml "envoy-gateway" error[backend-not-permitted] SecurityPolicy.gateway.envoyproxy.io/default/policy-for-gateway-2 may not refer to Service/envoy-gateway/http-backend: no ReferenceGrant in namespace `envoy-gateway` allows SecurityPolicies from namespace `default`; add one to `envoy-gateway`
policies.yaml "80" warning[backend-not-found] Service/default/http-backend has no port 80 (ports: `8080`)
policies.yaml "jwks-servce" warning[backend-not-found] Service/default/jwks-servce does not exist; did you mean `jwks-service`?"#,
    );
}
