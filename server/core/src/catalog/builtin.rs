//! The built-in table of real policy kinds (docs/kinds.md is generated from it).
//!
//! Each project starts from a template ([`Tpl`]) that holds what its kinds share (ref fields,
//! default group, merge semantics); each kind then adds its class, targets and the few things
//! that differ. Classes follow the projects' documented *behaviour*, not the CRD label, where
//! the two disagree (survey §0 item 3); a comment says so at each such entry.
//!
//! Target lists are written as space-separated `[group/]Kind[#]` items: no group means Gateway
//! API, `core/` the core group, and a trailing `#` that the target accepts `sectionName`.

use super::controllers::{
    AGENTGATEWAY, APISIX, AWS_VPC_LATTICE, CONSUL, ENVOY_GATEWAY, FSM, GKE, GLOO_GATEWAY, ISTIO, KGATEWAY, KONG, KUMA,
    NGINX_GATEWAY_FABRIC, TRAEFIK,
};
use super::{
    Controllers, DEFAULT_MAX_REFS, GATEWAY_API_MAX_REFS, KindSource, PolicyClass, PolicyKind, Semantics, SpecRef,
    SpecRefNamespaces, Stanza, Strategy, TargetKind, class_defaults,
};
use crate::model::GroupKind;

use PolicyClass::{Direct, Inherited};
use Strategy::{AtomicDefaults, AtomicOverrides, Custom, PatchDefaults};

const GW: &str = "gateway.networking.k8s.io";

/// Which reference fields a kind accepts.
#[derive(Clone, Copy)]
struct Refs {
    one: bool,
    many: bool,
    selectors: bool,
}

/// `targetRef` only.
const ONE: Refs = Refs { one: true, many: false, selectors: false };
/// `targetRefs` only.
const MANY: Refs = Refs { one: false, many: true, selectors: false };
/// `targetRef` or `targetRefs`.
const ONE_OR_MANY: Refs = Refs { one: true, many: true, selectors: false };
/// `targetRefs` and `targetSelectors`.
const MANY_SEL: Refs = Refs { one: false, many: true, selectors: true };
/// All three (Envoy Gateway).
const ALL: Refs = Refs { one: true, many: true, selectors: true };

/// Parses a `[group/]Kind[#] ...` list (see the module docs).
fn targets(spec: &str) -> Vec<TargetKind> {
    spec.split_whitespace()
        .map(|item| {
            let (item, section_name) = match item.strip_suffix('#') {
                Some(i) => (i, true),
                None => (item, false),
            };
            TargetKind { gk: gk(item), section_name }
        })
        .collect()
}

/// Parses one `[group/]Kind` (no group: Gateway API).
fn gk(item: &str) -> GroupKind {
    match item.rsplit_once('/') {
        Some((group, kind)) => GroupKind::new(group, kind),
        None => GroupKind::new(GW, item),
    }
}

fn gks(spec: &str) -> Vec<GroupKind> {
    spec.split_whitespace().map(gk).collect()
}

/// What a project's kinds share.
#[derive(Clone)]
struct Tpl {
    project: &'static str,
    group: &'static str,
    refs: Refs,
    exclusive: bool,
    max_refs: u32,
    cross_namespace: bool,
    default_group: Option<&'static str>,
    semantics: Semantics,
    controllers: Controllers,
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

impl Tpl {
    fn new(project: &'static str, group: &'static str, refs: Refs) -> Tpl {
        Tpl {
            project,
            group,
            refs,
            exclusive: true,
            max_refs: DEFAULT_MAX_REFS,
            cross_namespace: false,
            default_group: None,
            semantics: Semantics::Gep713,
            controllers: Controllers::Any,
        }
    }
    /// Only these implementations act on the project's kinds (docs/semantics.md §4.4.1).
    fn controllers(mut self, only: &[&str]) -> Tpl {
        self.controllers = Controllers::Only(ids(only));
        self
    }
    fn semantics(mut self, s: Semantics) -> Tpl {
        self.semantics = s;
        self
    }
    fn default_group(mut self, g: &'static str) -> Tpl {
        self.default_group = Some(g);
        self
    }
    fn cross_namespace(mut self) -> Tpl {
        self.cross_namespace = true;
        self
    }
    /// The project's CRDs set `maxItems` on `targetRefs`.
    fn max_refs(mut self, n: u32) -> Tpl {
        self.max_refs = n;
        self
    }
    fn direct(&self, kind: &str, target_spec: &str) -> B {
        self.kind(kind, Direct, target_spec)
    }
    fn inherited(&self, kind: &str, target_spec: &str) -> B {
        self.kind(kind, Inherited, target_spec)
    }
    fn kind(&self, kind: &str, class: PolicyClass, target_spec: &str) -> B {
        let mut k = PolicyKind::new(GroupKind::new(self.group, kind), class, KindSource::Builtin);
        k.project = self.project.to_owned();
        k.targets = targets(target_spec);
        k.target_ref = self.refs.one;
        k.target_refs = self.refs.many;
        k.target_selectors = self.refs.selectors;
        k.refs_exclusive = self.exclusive;
        k.max_refs = self.max_refs;
        k.cross_namespace = self.cross_namespace;
        k.default_ref_group = self.default_group.map(str::to_owned);
        k.semantics = self.semantics;
        k.controllers = self.controllers.clone();
        k.extension_ref = crate::model::EXTENSION_REF_KINDS.contains(&(self.group, kind));
        // Built-in Inherited kinds spell their stanza and strategies out; start from the
        // GEP's single default rather than all four.
        k.stanza = Stanza::None;
        k.strategies = match class {
            Direct => class_defaults(Direct).1,
            Inherited => vec![AtomicDefaults],
        };
        B(k)
    }
}

/// One kind under construction.
struct B(PolicyKind);

impl B {
    fn refs(mut self, r: Refs) -> B {
        self.0.target_ref = r.one;
        self.0.target_refs = r.many;
        self.0.target_selectors = r.selectors;
        self
    }
    fn target_optional(mut self) -> B {
        self.0.target_optional = true;
        self
    }
    /// Targets are optional and something else attaches the policy (said where "no target"
    /// would be).
    fn attached_otherwise(mut self, how: &str) -> B {
        self.0.target_optional = true;
        self.0.untargeted = Some(how.to_owned());
        self
    }
    /// Kinds beyond the listed targets are the implementation's to allow (see
    /// [`PolicyKind::open_targets`]).
    fn open_targets(mut self, why: &str) -> B {
        self.0.open_targets = Some(super::OpenTargets::Implementations(why.to_owned()));
        self
    }
    fn controllers(mut self, c: Controllers) -> B {
        self.0.controllers = c;
        self
    }

    fn max(mut self, n: u32) -> B {
        self.0.max_refs = n;
        self
    }
    fn cross_namespace(mut self, yes: bool) -> B {
        self.0.cross_namespace = yes;
        self
    }
    fn stanza(mut self, s: Stanza) -> B {
        self.0.stanza = s;
        self
    }
    fn strategies(mut self, s: &[Strategy]) -> B {
        self.0.strategies = s.to_vec();
        self
    }
    fn semantics(mut self, s: Semantics) -> B {
        self.0.semantics = s;
        self
    }
    fn effective(mut self, spec: &str) -> B {
        self.0.set_effective_targets(gks(spec));
        self
    }
    /// References to backends inside the spec, at these space-separated paths: each names a
    /// core Service unless it says otherwise, in the policy's namespace or, with a
    /// ReferenceGrant, another.
    fn backend_refs(mut self, paths: &str) -> B {
        self.0.spec_refs = paths
            .split_whitespace()
            .map(|path| SpecRef {
                path: path.to_owned(),
                default_kind: GroupKind::new("", "Service"),
                namespaces: SpecRefNamespaces::Granted,
            })
            .collect();
        self
    }
    /// Fields of the target that beat the policy's: `(policy field, target field)` JSON
    /// pointers, the target's value replacing the policy's whole.
    fn shadows(mut self, pairs: &[(&str, &str)]) -> B {
        self.0.shadows = pairs.iter().map(|(f, t)| ((*f).to_owned(), (*t).to_owned())).collect();
        self
    }
    fn ref_type(mut self, t: super::RefType) -> B {
        self.0.ref_type = t;
        self
    }
    fn done(self) -> PolicyKind {
        self.0
    }
}

const ROUTES_ALL: &str = "HTTPRoute GRPCRoute TCPRoute UDPRoute TLSRoute";

pub(super) fn kinds() -> Vec<PolicyKind> {
    let mut v = Vec::with_capacity(96);
    gateway_api(&mut v);
    envoy_gateway(&mut v);
    kuadrant(&mut v);
    nginx_gateway_fabric(&mut v);
    aws(&mut v);
    gke(&mut v);
    istio(&mut v);
    linkerd(&mut v);
    gloo_and_kgateway(&mut v);
    kuma(&mut v);
    kong(&mut v);
    others(&mut v);
    v
}

/// §2.1. Direct, None: oldest wins, the others are Conflicted.
fn gateway_api(v: &mut Vec<PolicyKind>) {
    let p = Tpl::new("Gateway API", GW, MANY).max_refs(GATEWAY_API_MAX_REFS);
    // `core/Service` is the Extended target. Gateway API lets implementations target other
    // kinds ("Implementation-Specific Usage", gateway-api 4564255a geps/gep-1897/index.md and
    // site/content/en/reference/api-types/policy/backendtlspolicy.md, which names
    // InferencePool), so the list is open: those listed are the ones implementations document.
    // Envoy Gateway's `Backend`, a section being an endpoint port number (envoyproxy/gateway
    // d32f2829 internal/gatewayapi/route.go `getTargetBackendReference`); Istio's ServiceEntry,
    // sections by port name (istio 86c9f01f pilot/pkg/config/kube/gateway/backend_policies.go);
    // ServiceImport (Envoy Gateway, same function); kgateway's `Backend`; the Inference
    // Extension's InferencePool (v1 `inference.networking.k8s.io`, and its alpha group), named
    // by the Gateway API page above. A Service's section is a port *name* for every
    // implementation read (Envoy Gateway's same function, which read numbers in earlier
    // releases: envoyproxy/gateway issue 4769; Istio's file above): no numbers.
    v.push(
        p.direct(
            "BackendTLSPolicy",
            "core/Service# gateway.envoyproxy.io/Backend# networking.istio.io/ServiceEntry# \
             multicluster.x-k8s.io/ServiceImport# gateway.kgateway.dev/Backend# \
             inference.networking.k8s.io/InferencePool# inference.networking.x-k8s.io/InferencePool#",
        )
        .effective("core/Service")
        .open_targets(
            "Gateway API lets implementations target kinds of their own with it (GEP-1897, \"Implementation-Specific Usage\")",
        )
        .done(),
    );
    // "Cannot be scoped to a port": no sectionName.
    let x = Tpl::new("Gateway API", "gateway.networking.x-k8s.io", MANY).max_refs(GATEWAY_API_MAX_REFS);
    let backends = "core/Service multicluster.x-k8s.io/ServiceImport";
    // Istio translates it (pilot/pkg/config/kube/gateway/backend_policies.go); Envoy Gateway
    // (d32f2829: no code under internal/ reads it), NGINX Gateway Fabric, Traefik, Kong, Gloo
    // and FSM have no code for it.
    let ignoring = Controllers::AllBut(ids(&[ENVOY_GATEWAY, NGINX_GATEWAY_FABRIC, TRAEFIK, KONG, GLOO_GATEWAY, FSM]));
    v.push(x.direct("XBackendTrafficPolicy", backends).effective("core/Service").controllers(ignoring.clone()).done());
    // The name XBackendTrafficPolicy had before (GEP text).
    v.push(x.direct("BackendTrafficPolicy", backends).effective("core/Service").controllers(ignoring).done());
    v.push(p.direct("BackendLBPolicy", "core/Service").effective("core/Service").done());
}

/// §2.2. Refs are same-namespace; `group` defaults to Gateway API; targetRef XOR targetRefs
/// unless selectors are given. The more specific target replaces the less specific one,
/// unless a route policy sets `mergeType` (patched onto its parent's).
fn envoy_gateway(v: &mut Vec<PolicyKind>) {
    let p = Tpl::new("Envoy Gateway", "gateway.envoyproxy.io", ALL)
        .default_group(GW)
        .semantics(Semantics::EnvoyGateway)
        .controllers(&[ENVOY_GATEWAY]);
    let merge = [AtomicDefaults, PatchDefaults];
    v.push(
        p.inherited(
            "BackendTrafficPolicy",
            "Gateway# ListenerSet# HTTPRoute# GRPCRoute# UDPRoute# TCPRoute# TLSRoute#",
        )
        .strategies(&merge)
        .effective(ROUTES_ALL)
        // A route rule's own `timeouts.request` and `retry` (GEP-1742, GEP-1731) beat the
        // policy's: Envoy Gateway keeps them on the IR route apart from the policy's traffic
        // features and reads them first (d32f2829 `internal/gatewayapi/route.go`
        // processRouteTimeout/processRouteRetry, `internal/xds/translator/route.go`
        // getEffectiveRequestTimeout, `internal/ir/xds.go` GetRetry; its retry task page: the
        // route's retry wins whole).
        .shadows(&[
            ("/timeout/http/requestTimeout", "/spec/rules/*/timeouts/request"),
            ("/retry", "/spec/rules/*/retry"),
        ])
        .done(),
    );
    // Listener settings: sectionName listener > ListenerSet > Gateway; no mergeType.
    v.push(p.inherited("ClientTrafficPolicy", "Gateway# ListenerSet#").effective("Gateway ListenerSet").done());
    // Backends in the spec (Envoy Gateway v1.9 API, `BackendCluster` in
    // api/v1alpha1/shared_types.go): `backendRef` (deprecated) or `backendRefs`, both Gateway
    // API BackendObjectReferences (core Service by default; `Backend` and `ServiceImport` by
    // group and kind); OIDC providers, remote JWKS and external processors take `backendRefs`
    // only (CEL). A cross-namespace one needs a ReferenceGrant from the policy (the
    // `*-invalid-no-reference-grant` tests in internal/gatewayapi/testdata). basicAuth and
    // apiKeyAuth name Secrets, Wasm code an HTTP URL or an image: no backends.
    v.push(
        p.inherited("SecurityPolicy", "Gateway# ListenerSet# HTTPRoute# GRPCRoute# TCPRoute#")
            .strategies(&merge)
            .effective("HTTPRoute GRPCRoute TCPRoute")
            .backend_refs(
                "extAuth.grpc.backendRef extAuth.grpc.backendRefs[] extAuth.http.backendRef \
                 extAuth.http.backendRefs[] oidc.provider.backendRefs[] \
                 jwt.providers[].remoteJWKS.backendRefs[]",
            )
            // A rule's CORS filter beats the policy's `cors` whole (d32f2829
            // `internal/xds/translator/cors.go`: "take precedence over ... the SecurityPolicy").
            .shadows(&[("/cors", "/spec/rules/*/filters/*/cors")])
            .done(),
    );
    v.push(
        p.inherited(
            "EnvoyExtensionPolicy",
            "Gateway# ListenerSet# HTTPRoute# GRPCRoute# UDPRoute# TCPRoute# TLSRoute#",
        )
        .strategies(&merge)
        .effective(ROUTES_ALL)
        .backend_refs("extProc[].backendRefs[]")
        .done(),
    );
    // GEP table: Inherited; behaviour: every matching patch applies in `priority` order, no
    // winner. GatewayClass only with `mergeGateways`.
    v.push(
        p.inherited("EnvoyPatchPolicy", "Gateway GatewayClass")
            .refs(ONE)
            .semantics(Semantics::Additive)
            .strategies(&[])
            .effective("Gateway")
            .done(),
    );

    // Envoy AI Gateway. Several BackendSecurityPolicies on one backend are an error (None);
    // QuotaPolicy picks the alphabetically first, which the generic tie-break approximates.
    // Its data plane is Envoy Gateway's: its controller writes Envoy Gateway resources.
    let ai = Tpl::new("Envoy AI Gateway", "aigateway.envoyproxy.io", MANY)
        .max_refs(GATEWAY_API_MAX_REFS)
        .controllers(&[ENVOY_GATEWAY]);
    // `targetRefs` is `+optional` (api/v1beta1/backendsecurity_policy.go): its CEL tests
    // (tests/crdcel/testdata/backendsecuritypolicies) write most policies without it.
    v.push(
        ai.direct(
            "BackendSecurityPolicy",
            "aigateway.envoyproxy.io/AIServiceBackend inference.networking.k8s.io/InferencePool",
        )
        .effective("aigateway.envoyproxy.io/AIServiceBackend inference.networking.k8s.io/InferencePool")
        .attached_otherwise("`targetRefs` is optional for this kind; without it the policy applies to no backend")
        .done(),
    );
    v.push(
        ai.direct("QuotaPolicy", "aigateway.envoyproxy.io/AIServiceBackend")
            .effective("aigateway.envoyproxy.io/AIServiceBackend")
            .done(),
    );
}

/// §2.3. Singular, same-namespace `targetRef` with sectionName (listener or rule name).
fn kuadrant(v: &mut Vec<PolicyKind>) {
    // Auth, rate limits and token rate limits are programmed into Istio (EnvoyFilter, WasmPlugin)
    // or Envoy Gateway (EnvoyPatchPolicy, EnvoyExtensionPolicy) Gateways only; on another
    // controller's Gateway the policy waits forever (Kuadrant ae698811
    // internal/controller/data_plane_policies_workflow.go, auth_policy_status_updater.go).
    let p =
        Tpl::new("Kuadrant", "kuadrant.io", ONE).semantics(Semantics::Kuadrant).controllers(&[ISTIO, ENVOY_GATEWAY]);
    // `strategy: atomic|merge` in `defaults`/`overrides`; merge is per named rule (Custom).
    let strategies = [AtomicDefaults, AtomicOverrides, Custom];
    let routes_and_gw = "HTTPRoute# GRPCRoute# Gateway#";
    for kind in ["AuthPolicy", "RateLimitPolicy"] {
        v.push(
            p.inherited(kind, routes_and_gw)
                .stanza(Stanza::Plural)
                .strategies(&strategies)
                .effective("HTTPRoute GRPCRoute")
                .done(),
        );
    }
    v.push(
        p.inherited("TokenRateLimitPolicy", "HTTPRoute# Gateway#")
            .stanza(Stanza::Plural)
            .strategies(&strategies)
            .effective("HTTPRoute")
            .done(),
    );
    // GEP-713's table says Inherited, the CRD label says direct; behaviour is Direct: the
    // older policy on the same target wins, a listener policy beats a gateway-wide one.
    // DNS and TLS work with any Gateway API provider (doc/user-guides/dns/basic-dns-configuration.md).
    let mut direct = p.clone().semantics(Semantics::Gep713);
    direct.controllers = Controllers::Any;
    v.push(direct.direct("DNSPolicy", "Gateway#").effective("Gateway").done());
    // Same disagreement; one policy per gateway or listener.
    v.push(direct.direct("TLSPolicy", "Gateway#").effective("Gateway").done());

    // extensions.kuadrant.io: no label, no stanza, conflicts not stated. Kinds that reach
    // routes through a Gateway get the GEP's default for multi-level kinds, AtomicDefaults.
    let ext = Tpl::new("Kuadrant extensions", "extensions.kuadrant.io", ONE);
    // OIDCPolicy makes AuthPolicies, PlanPolicy RateLimitPolicies (cmd/extensions/*/): the
    // same Gateways only.
    let over_auth = Controllers::Only(ids(&[ISTIO, ENVOY_GATEWAY]));
    v.push(
        ext.inherited("OIDCPolicy", "HTTPRoute# Gateway#").effective("HTTPRoute").controllers(over_auth.clone()).done(),
    );
    v.push(ext.inherited("PlanPolicy", routes_and_gw).effective("HTTPRoute GRPCRoute").controllers(over_auth).done());
    v.push(ext.inherited("ThreatPolicy", "HTTPRoute# Gateway#").effective("HTTPRoute").done());
    // `metrics.default` is not a GEP stanza.
    v.push(ext.direct("TelemetryPolicy", "Gateway#").done());
}

/// §2.4. No sectionName, no namespace. Only policies that set the same fields conflict;
/// Inherited kinds merge field-wise with the route-level setting winning (PatchDefaults).
///
/// Two policies of one kind on one target: sorted oldest first (then by namespace/name), each
/// is checked against every older valid one with its kind's `Conflicts`, and only a pair that
/// sets the same field conflicts, the younger losing (nginx/nginx-gateway-fabric e55bfe33
/// internal/controller/state/graph/policies.go `markConflictedPolicies`). Per kind, in
/// internal/controller/nginx/config/policies/<kind>/validator.go: ClientSettingsPolicy compares
/// `body.*` and `keepAlive.*` field by field, ProxySettingsPolicy `buffering.*` and `timeout.*`,
/// UpstreamSettingsPolicy `zoneSize`, `keepAlive.*`, `loadBalancingMethod`, `hashMethodKey`
/// and `useClusterIP`, ObservabilityPolicy `tracing` whole: the field-overlap rule
/// (`Semantics::NginxGatewayFabric`). Policies setting different fields both apply.
fn nginx_gateway_fabric(v: &mut Vec<PolicyKind>) {
    let p = Tpl::new("NGINX Gateway Fabric", "gateway.nginx.org", MANY)
        .semantics(Semantics::NginxGatewayFabric)
        .controllers(&[NGINX_GATEWAY_FABRIC]);
    let gw_routes = "Gateway HTTPRoute GRPCRoute";
    let patch = [PatchDefaults];
    v.push(
        p.inherited("ClientSettingsPolicy", gw_routes)
            .refs(ONE)
            .strategies(&patch)
            .effective("HTTPRoute GRPCRoute")
            .done(),
    );
    // Gateway refs may not be mixed with route refs (ProxySettings, RateLimit); WAFPolicy
    // refs must all be one kind.
    for kind in ["ProxySettingsPolicy", "WAFPolicy"] {
        v.push(p.inherited(kind, gw_routes).strategies(&patch).effective("HTTPRoute GRPCRoute").done());
    }
    // A Gateway's limits and a route's both apply: each policy gets its own `limit_req_zone` and
    // `limit_req` lines, the Gateway's in the http/server context, the route's in its locations
    // ("there is no way to overwrite / negate a RateLimitPolicy from a Gateway", e55bfe33
    // docs/proposals/rate-limiting.md; internal/controller/nginx/config/policies/ratelimit/
    // generator.go writes one file per policy). Nothing is merged or superseded. Not modelled:
    // two on one target conflict when both set `dryRun`, `logLevel` or `rejectCode`
    // (ratelimit/validator.go `Conflicts`); here both apply.
    v.push(
        p.inherited("RateLimitPolicy", gw_routes)
            .semantics(Semantics::Additive)
            .strategies(&[])
            .effective("HTTPRoute GRPCRoute")
            .done(),
    );
    v.push(
        p.inherited("PayloadProcessor", "Gateway HTTPRoute").refs(ONE).strategies(&patch).effective("HTTPRoute").done(),
    );
    v.push(p.direct("ObservabilityPolicy", "HTTPRoute GRPCRoute").done());
    // `group: ""` or the literal `core`.
    v.push(p.direct("UpstreamSettingsPolicy", "core/Service").effective("core/Service").done());
    // Snippets from several policies are all inserted; none rejects another (NGINX Gateway
    // Fabric's SnippetsPolicy API reference, v2.2).
    v.push(p.direct("SnippetsPolicy", "Gateway").semantics(Semantics::Additive).done());
    v.push(p.direct("ExternalLoadBalancer", "Gateway").max(1).done());
}

/// §2.5. Singular `targetRef` with a `namespace` field, yet the docs require the target in
/// the policy's namespace; no sectionName.
fn aws(v: &mut Vec<PolicyKind>) {
    let p =
        Tpl::new("AWS Gateway API Controller", "application-networking.k8s.aws", ONE).controllers(&[AWS_VPC_LATTICE]);
    v.push(
        p.direct("TargetGroupPolicy", "core/Service application-networking.k8s.aws/ServiceExport")
            .effective("core/Service application-networking.k8s.aws/ServiceExport")
            .done(),
    );
    // Docs: "implements Direct Policy Attachment"; several on one target conflict.
    v.push(p.direct("IAMAuthPolicy", "Gateway HTTPRoute GRPCRoute").done());
    // One per target and destination type (S3/CloudWatch/Firehose); the generic None rule
    // over-reports when two policies log to different destination types.
    v.push(p.direct("AccessLogPolicy", "Gateway HTTPRoute GRPCRoute").done());
    v.push(p.direct("VpcAssociationPolicy", "Gateway").done());
}

/// §2.6. Singular `targetRef` with `namespace`, no sectionName; config in a lone
/// `spec.default` (a GEP v0.7-style defaults stanza). No CRD states its allowed kinds, so
/// targets are open; conflict rules are not stated.
fn gke(v: &mut Vec<PolicyKind>) {
    let p = Tpl::new("GKE Gateway", "networking.gke.io", ONE).cross_namespace().controllers(&[GKE]);
    // Unclear effective targets stay empty.
    let with_default =
        |kind: &str, effective: &str| p.inherited(kind, "").stanza(Stanza::Singular).effective(effective).done();
    v.push(with_default("GCPBackendPolicy", "core/Service"));
    v.push(with_default("GCPGatewayPolicy", "Gateway"));
    v.push(with_default("HealthCheckPolicy", "core/Service"));
    v.push(with_default("LBPolicy", ""));
    v.push(with_default("CDNPolicy", ""));
    v.push(with_default("IAPPolicy", ""));
    v.push(with_default("LBSecurityPolicy", ""));
    v.push(with_default("OutlierDetectionPolicy", ""));
    v.push(with_default("HTTPRouteRetryPolicy", "HTTPRoute"));
    v.push(with_default("GRPCRouteRetryPolicy", "GRPCRoute"));
    v.push(p.direct("GCPSessionAffinityPolicy", "").done());
    // Real files target `apps/Deployment` (written with `group: ""`), so targets stay open.
    v.push(p.direct("GCPAuthzPolicy", "").refs(MANY).max(10).done());
    v.push(p.direct("GCPTrafficExtension", "Gateway").refs(MANY).done());
    v.push(p.direct("GCPRoutingExtension", "Gateway").refs(MANY).done());
}

/// §2.7. `group` optional (core); `namespace` in the schema but CEL rejects any value; at most
/// one of selector/targetRef/targetRefs. Additive: every applicable policy applies. A
/// GatewayClass policy (root namespace) reaches every Gateway of the class.
fn istio(v: &mut Vec<PolicyKind>) {
    let targets = "Gateway GatewayClass core/Service networking.istio.io/ServiceEntry";
    let effective = "Gateway core/Service networking.istio.io/ServiceEntry";
    let add = |v: &mut Vec<PolicyKind>, group: &'static str, kind: &str, refs: Refs| {
        // Istio's CRDs cap targetRefs at 16; without a targetRef a policy applies by its
        // workload `selector`, else to its whole namespace.
        let p = Tpl::new("Istio", group, refs)
            .default_group("")
            .semantics(Semantics::Additive)
            .max_refs(GATEWAY_API_MAX_REFS)
            .controllers(&[ISTIO]);
        v.push(p.inherited(kind, targets).strategies(&[]).effective(effective).target_optional().done());
    };
    add(v, "security.istio.io", "AuthorizationPolicy", ONE_OR_MANY);
    add(v, "security.istio.io", "RequestAuthentication", ONE_OR_MANY);
    add(v, "telemetry.istio.io", "Telemetry", ONE_OR_MANY);
    add(v, "extensions.istio.io", "WasmPlugin", ONE_OR_MANY);
    add(v, "extensions.istio.io", "TrafficExtension", MANY);
    add(v, "networking.istio.io", "EnvoyFilter", MANY);
}

/// §2.8. `targetRef {group?, kind, name}`; the docs read a missing group as core.
fn linkerd(v: &mut Vec<PolicyKind>) {
    let p = Tpl::new("Linkerd", "policy.linkerd.io", ONE).default_group("");
    // An allow-list: every policy applies. A Namespace policy covers the Servers in it.
    v.push(
        p.inherited(
            "AuthorizationPolicy",
            "policy.linkerd.io/Server core/Namespace policy.linkerd.io/HTTPRoute HTTPRoute \
             GRPCRoute",
        )
        .semantics(Semantics::Additive)
        .strategies(&[])
        .effective("policy.linkerd.io/Server policy.linkerd.io/HTTPRoute HTTPRoute GRPCRoute")
        .done(),
    );
    // `spec.overrides[]` here are per-client limits, not GEP overrides.
    v.push(p.direct("HTTPLocalRateLimitPolicy", "policy.linkerd.io/Server").done());
}

/// §2.9 and §2.12. Gloo and kgateway sort by specificity then age and shallow-merge
/// top-level fields.
fn gloo_and_kgateway(v: &mut Vec<PolicyKind>) {
    // `group` optional; every target is a Gateway API kind, so that group is assumed. Refs
    // have `namespace`, but only same-namespace policies attach.
    let gloo = Tpl::new("Gloo Gateway", "gateway.solo.io", MANY).default_group(GW).controllers(&[GLOO_GATEWAY]);
    let listeners = "Gateway# gateway.networking.x-k8s.io/XListenerSet#";
    // GEP table: Direct/None; code: older first, later ones may add top-level fields.
    // Also attached by an HTTPRoute rule's ExtensionRef filter, which beats targetRefs.
    v.push(gloo.direct("RouteOption", "HTTPRoute").semantics(Semantics::Gloo).effective("HTTPRoute").done());
    // GEP table: "Atomic defaults"; code: shallow merge, section-specific first (Custom).
    v.push(
        gloo.inherited("VirtualHostOption", listeners)
            .semantics(Semantics::Gloo)
            .strategies(&[Custom])
            // Gloo Edge: a VirtualService takes it in by `delegateOptions` (topology::extension_refs).
            .effective("Gateway gateway.networking.x-k8s.io/XListenerSet gateway.solo.io/VirtualService")
            .done(),
    );
    v.push(gloo.direct("ListenerOption", listeners).done());
    v.push(gloo.direct("HttpListenerOption", listeners).done());

    // agentgateway Gateways (kgateway 2.1) take TrafficPolicy too.
    let kg = Tpl::new("kgateway", "gateway.kgateway.dev", MANY_SEL)
        .semantics(Semantics::Gloo)
        .max_refs(GATEWAY_API_MAX_REFS)
        .controllers(&[KGATEWAY, AGENTGATEWAY]);
    // Label `Direct`, but a Gateway-level TrafficPolicy is inherited by its routes.
    v.push(
        kg.inherited(
            "TrafficPolicy",
            "HTTPRoute# GRPCRoute# Gateway# ListenerSet# gateway.networking.x-k8s.io/XListenerSet#",
        )
        .strategies(&[Custom])
        .effective("HTTPRoute GRPCRoute")
        .done(),
    );
    v.push(
        kg.direct("BackendConfigPolicy", "core/Service gateway.kgateway.dev/Backend")
            .effective("core/Service gateway.kgateway.dev/Backend")
            .done(),
    );
    // A lone `spec.default` applying to every listener (plus `perPort[]`); the 2025-02 API
    // used a singular targetRef.
    v.push(
        kg.inherited("ListenerPolicy", "Gateway#")
            .refs(ALL)
            .stanza(Stanza::Singular)
            .strategies(&[Custom])
            .effective("Gateway")
            .done(),
    );
    // Older names (2025-02 snapshot): labelled Direct, singular targetRef; docs also plural.
    v.push(kg.direct("HTTPListenerPolicy", "Gateway").refs(ONE_OR_MANY).done());
    v.push(kg.direct("RoutePolicy", "HTTPRoute").refs(ONE).done());
}

/// §2.10: APISIX, Consul, Flomesh.
/// Kuma (kuma.io v1alpha1): a singular `targetRef` with no `group`, whose `{kind: Mesh}` names
/// no object (the policy's mesh); policies of one kind are merged by the control plane by
/// specificity, never rejected, so they are modelled as all applying.
fn kuma(v: &mut Vec<PolicyKind>) {
    let p =
        Tpl::new("Kuma", "kuma.io", ONE).default_group("kuma.io").semantics(Semantics::Additive).controllers(&[KUMA]);
    let targets = "kuma.io/Mesh kuma.io/MeshSubset kuma.io/MeshService# kuma.io/MeshGateway# kuma.io/MeshHTTPRoute \
                   kuma.io/MeshTCPRoute kuma.io/Dataplane# kuma.io/MeshExternalService kuma.io/MeshMultiZoneService";
    for kind in [
        "MeshAccessLog",
        "MeshCircuitBreaker",
        "MeshFaultInjection",
        "MeshHealthCheck",
        "MeshLoadBalancingStrategy",
        "MeshMetric",
        "MeshPassthrough",
        "MeshProxyPatch",
        "MeshRateLimit",
        "MeshRetry",
        "MeshTimeout",
        "MeshTLS",
        "MeshTrace",
        "MeshTrafficPermission",
    ] {
        let mut k = p.inherited(kind, targets).strategies(&[]).done();
        k.nameless_targets = vec!["Mesh".into(), "MeshSubset".into()];
        v.push(k);
    }
}

/// Kong: KongUpstreamPolicy has no reference field at all; a Service (or KongServiceFacade)
/// annotated `konghq.com/upstream-policy: <name>` in its namespace attaches it (its CRD,
/// labelled `gateway.networking.k8s.io/policy: direct`, in Kong/kubernetes-configuration
/// b6e8d4f7 config/crd/gateway-operator/configuration.konghq.com_kongupstreampolicies.yaml;
/// Kong/kubernetes-ingress-controller internal/annotations/annotations.go).
fn kong(v: &mut Vec<PolicyKind>) {
    let p = Tpl::new("Kong", "configuration.konghq.com", MANY).controllers(&[KONG]);
    let mut k = p
        .direct("KongUpstreamPolicy", "core/Service configuration.konghq.com/KongServiceFacade")
        .effective("core/Service")
        .attached_otherwise("a Service annotated `konghq.com/upstream-policy` with its name attaches it (no targetRef)")
        .done();
    k.target_refs = false;
    v.push(k);
}

fn others(v: &mut Vec<PolicyKind>) {
    let apisix = Tpl::new("Apache APISIX", "apisix.apache.org", MANY).controllers(&[APISIX]);
    v.push(apisix.direct("BackendTrafficPolicy", "core/Service#").effective("core/Service").done());
    v.push(apisix.direct("HTTPRoutePolicy", "HTTPRoute# networking.k8s.io/Ingress").done());
    v.push(apisix.direct("L4RoutePolicy", "TCPRoute# UDPRoute# TLSRoute#").done());

    // Singular `default` and `override`, both allowed in one object (JWT settings).
    let consul = Tpl::new("Consul API Gateway", "consul.hashicorp.com", ONE).cross_namespace().controllers(&[CONSUL]);
    v.push(
        consul
            .inherited("GatewayPolicy", "Gateway#")
            .stanza(Stanza::Singular)
            .strategies(&[AtomicDefaults, AtomicOverrides])
            .effective("Gateway")
            .ref_type(super::RefType::Consul)
            .done(),
    );

    // Flomesh FSM. v1alpha2 kinds (label `Direct`) use targetRefs; the older v1alpha1 kinds
    // (same group) a targetRef with `namespace`. Versions share a (group, kind), so the
    // overlapping names accept both.
    let fsm = Tpl::new("Flomesh FSM", "gateway.flomesh.io", ONE_OR_MANY).cross_namespace().controllers(&[FSM]);
    let svc = "core/Service";
    v.push(fsm.direct("BackendLBPolicy", svc).refs(MANY).cross_namespace(false).done());
    v.push(fsm.direct("HealthCheckPolicy", svc).effective(svc).done());
    // Targets a route plus a required `rule` (not sectionName).
    v.push(fsm.direct("RouteRuleFilterPolicy", "TCPRoute UDPRoute").refs(MANY).cross_namespace(false).done());
    for kind in [
        "RateLimitPolicy",
        "AccessControlPolicy",
        "FaultInjectionPolicy",
        "UpstreamTLSPolicy",
        "SessionStickyPolicy",
        "LoadBalancerPolicy",
        "CircuitBreakingPolicy",
        "RetryPolicy",
    ] {
        v.push(fsm.direct(kind, "Gateway HTTPRoute core/Service").done());
    }
    // Labelled `gateway.flomesh.io/extension: Filter`; refs need a `port`.
    let ext = Tpl::new("Flomesh FSM", "extension.gateway.flomesh.io", MANY).controllers(&[FSM]);
    v.push(ext.direct("ListenerFilter", "Gateway").done());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn catalog_builtin_keys_are_unique() {
        let all = kinds();
        let mut seen = HashSet::new();
        for k in &all {
            assert!(seen.insert(k.gk.clone()), "duplicate built-in entry {}", k.gk);
            assert!(!k.project.is_empty());
            assert!(
                k.target_ref || k.target_refs || k.target_selectors || k.untargeted.is_some(),
                "{} has no ref field",
                k.gk
            );
            assert_eq!(k.effective_target.as_ref(), k.effective_targets.first());
            if k.class == Direct {
                assert_eq!(k.strategies, vec![Strategy::None], "{}", k.gk);
                assert_eq!(k.stanza, Stanza::None, "{}", k.gk);
            }
        }
        assert!(all.len() >= 70, "{} kinds", all.len());
    }

    #[test]
    fn catalog_target_spec_parsing() {
        let t = targets("Gateway# core/Service aigateway.envoyproxy.io/AIServiceBackend");
        assert_eq!(t[0], TargetKind { gk: GroupKind::new(GW, "Gateway"), section_name: true });
        assert_eq!(t[1], TargetKind { gk: GroupKind::new("", "Service"), section_name: false });
        assert_eq!(t[2].gk, GroupKind::new("aigateway.envoyproxy.io", "AIServiceBackend"));
    }
}
