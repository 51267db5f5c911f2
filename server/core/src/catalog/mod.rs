//! What each policy kind is: class, allowed targets, reference fields, defaults/overrides
//! spelling and merge semantics. Built from the built-in table, workspace CRDs (label
//! discovery), the `.policylens.yaml` config, and shape inference, in that order of trust:
//! config beats built-in beats CRD label beats shape.

mod builtin;
mod cel;
pub mod config;
pub mod controllers;
mod crd_targets;
mod discover;

pub use config::{Config, ConfigError, Level, load_config};
pub use discover::build_catalog;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::model::GroupKind;

/// GEP-713 policy classes: a Direct policy affects exactly what it targets; an Inherited one
/// also everything below its target in the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum PolicyClass {
    /// Affects only the object (or section) it targets (GEP-2648).
    Direct,
    /// Affects its target and everything below it in the hierarchy (GEP-2649).
    Inherited,
}

/// GEP-713 merge strategies.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum Strategy {
    /// No merging: of two policies on the same target the established one wins and the
    /// other is rejected as Conflicted.
    None,
    /// The more specific policy replaces the less specific one whole.
    AtomicDefaults,
    /// The less specific policy wins whole.
    AtomicOverrides,
    /// The more specific policy is merge-patched (RFC 7386) onto the less specific one.
    PatchDefaults,
    /// The less specific policy is merge-patched onto the more specific one.
    PatchOverrides,
    /// A project-specific rule (e.g. Kuadrant's per-rule merge) that is neither atomic nor an
    /// RFC 7386 patch.
    Custom,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::None => "None",
            Strategy::AtomicDefaults => "AtomicDefaults",
            Strategy::AtomicOverrides => "AtomicOverrides",
            Strategy::PatchDefaults => "PatchDefaults",
            Strategy::PatchOverrides => "PatchOverrides",
            Strategy::Custom => "Custom",
        }
    }

    pub fn parse(s: &str) -> Option<Strategy> {
        Some(match s {
            "None" => Strategy::None,
            "AtomicDefaults" => Strategy::AtomicDefaults,
            "AtomicOverrides" => Strategy::AtomicOverrides,
            "PatchDefaults" => Strategy::PatchDefaults,
            "PatchOverrides" => Strategy::PatchOverrides,
            "Custom" => Strategy::Custom,
            _ => return None,
        })
    }
}

/// A (group, kind) a policy may target, and whether a `sectionName` may be given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetKind {
    pub gk: GroupKind,
    pub section_name: bool,
}

/// Which unlisted kinds a policy kind may still target ([`PolicyKind::open_targets`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenTargets {
    /// Any kind: the kind's CRD has a rule on its references policylens cannot follow.
    Any(String),
    /// Kinds of implementations' own groups: the specification lets implementations add
    /// targets (GEP-1897's implementation-specific BackendTLSPolicy targets), but not Gateway
    /// API's own kinds (`gateway.networking.k8s.io`) or Kubernetes' core ones, whose allowed
    /// ones are listed.
    Implementations(String),
}

impl OpenTargets {
    /// Why, in words.
    pub fn why(&self) -> &str {
        match self {
            OpenTargets::Any(w) | OpenTargets::Implementations(w) => w,
        }
    }

    fn admits(&self, gk: &GroupKind) -> bool {
        match self {
            OpenTargets::Any(_) => true,
            OpenTargets::Implementations(_) => !matches!(&*gk.group, "" | crate::model::GATEWAY_GROUP),
        }
    }
}

/// A reference inside the spec proper to a routable object (docs/semantics.md §4.8): resolved
/// like a route's backendRef, never read for content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecRef {
    /// Where it is, from `spec`: keys separated by dots, `[]` after a key for every item of
    /// its list (`extAuth.http.backendRefs[]`; see [`crate::model::spec_path_steps`]).
    pub path: String,
    /// What the reference names when it leaves `group` and `kind` out.
    pub default_kind: GroupKind,
    /// Which namespaces it may name.
    pub namespaces: SpecRefNamespaces,
}

/// The namespace rule of a [`SpecRef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecRefNamespaces {
    /// The policy's namespace by default; another one when a ReferenceGrant there admits the
    /// policy's group, kind and namespace (GEP-709), as for a route's backendRef.
    Granted,
    /// The policy's namespace only.
    Own,
    /// Any namespace, without a ReferenceGrant: a mesh route's backendRefs (GEP-1294
    /// "Namespace boundaries": routes augment Services rather than expose them).
    Any,
}

/// Where a kind keeps defaults and overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum Stanza {
    /// `spec.defaults` / `spec.overrides` (GEP-713 current, Kuadrant).
    Plural,
    /// `spec.default` / `spec.override` (GEP-713 v0.7, Consul, GKE).
    Singular,
    /// No stanza: the whole spec is the policy (Direct kinds, Envoy Gateway).
    None,
}

/// Project-specific merge rules that differ from the generic GEP-713 fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum Semantics {
    /// The generic GEP-713 fold: least specific first, the established policy's strategy
    /// decides.
    Gep713,
    /// Kuadrant: `strategy: atomic|merge`; merge = per named rule under `rules`/`limits`;
    /// overrides let the less specific policy win.
    Kuadrant,
    /// Envoy Gateway: the more specific target replaces the less specific one unless the route
    /// policy sets `mergeType`, which patches it onto the parent's.
    EnvoyGateway,
    /// NGINX Gateway Fabric: field-wise merge, the route-level setting wins.
    NginxGatewayFabric,
    /// Gloo: sorted by specificity and age, shallow-merged.
    Gloo,
    /// Istio/Linkerd: every applicable policy applies (no winner, no conflict).
    Additive,
}

/// Which Gateway controllers act on policies of a kind (docs/semantics.md §4.4.1). Entries are
/// implementation ids ([`controllers::IMPLEMENTATIONS`]) or exact `controllerName`s. A
/// controller policylens does not know is assumed to act on every kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Controllers {
    /// Every controller (Gateway API kinds, and kinds whose implementers are not known).
    #[default]
    Any,
    /// Only these: an implementation-specific kind.
    Only(Vec<String>),
    /// Every controller but these (a Gateway API kind some implementations verifiably ignore).
    AllBut(Vec<String>),
}

impl Controllers {
    /// Whether a Gateway whose class names `controller_name` gets policies of the kind acted on.
    pub fn act_under(&self, controller_name: &str) -> bool {
        let implementation = controllers::implementation(controller_name);
        let named = |list: &[String]| {
            list.iter().any(|e| e == controller_name || implementation.is_some_and(|i| i.id == e.as_str()))
        };
        match self {
            Controllers::Any => true,
            // Unknown controllers are assumed to implement the kind.
            Controllers::Only(list) => implementation.is_none() || named(list),
            Controllers::AllBut(list) => !named(list),
        }
    }

    /// The implementations named, for docs and messages (`Envoy Gateway`, `Istio`).
    pub fn names(&self) -> Vec<&str> {
        let list = match self {
            Controllers::Any => return Vec::new(),
            Controllers::Only(l) | Controllers::AllBut(l) => l,
        };
        list.iter().map(|e| controllers::implementation_by_id(e).map_or(e.as_str(), |i| i.name)).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindSource {
    Builtin,
    Config,
    /// A workspace CRD labelled `gateway.networking.k8s.io/policy`.
    CrdLabel,
    /// Recognised only by the shape of its spec.
    Shape,
}

/// The Go type of a kind's target references.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RefType {
    /// Gateway API's `LocalPolicyTargetReference` family (or a copy of it): its patterns.
    #[default]
    GatewayApi,
    /// Consul's `PolicyTargetReference` (hashicorp/consul-k8s
    /// `control-plane/api/v1alpha1/gatewaypolicy_types.go`): `group`, `kind`, `name` required,
    /// every field at most 253 characters, no pattern but `sectionName`'s.
    Consul,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicyKind {
    pub gk: GroupKind,
    pub class: PolicyClass,
    /// Allowed targets. Empty: any kind (checked only for existence).
    pub targets: Vec<TargetKind>,
    /// Kinds missing from `targets` that are not known to be refused, and why: such a kind is
    /// resolved as if allowed, with sections (docs/semantics.md §4.4).
    pub open_targets: Option<OpenTargets>,
    /// A `sectionName` on a core Service may name a port by its number (`"443"`) where no
    /// port has that name: the kind's CRD pattern admits numbers and nothing says its
    /// implementation reads them as names only.
    pub numeric_sections: bool,
    /// The level whose behaviour the policy finally changes (e.g. Service for a
    /// backend policy); `None`: where its targets are (Direct) or the leaves below (Inherited).
    /// Always the first item of `effective_targets`.
    pub effective_target: Option<GroupKind>,
    /// Every effective target kind, for kinds that act at one level made of several kinds
    /// (e.g. Envoy Gateway's route policies: HTTPRoute, GRPCRoute, TCPRoute, ...). A route kind
    /// here means its rules where they are named, else the route. Set both fields with
    /// [`PolicyKind::set_effective_targets`].
    pub effective_targets: Vec<GroupKind>,
    /// May a ref set `namespace`?
    pub cross_namespace: bool,
    /// Which reference fields the kind accepts.
    pub target_ref: bool,
    pub target_refs: bool,
    pub target_selectors: bool,
    /// `targetRef` and `targetRefs` together is an error.
    pub refs_exclusive: bool,
    /// Maximum number of `targetRefs` items: what the kind's CRD sets (`maxItems`), else no
    /// limit (16 is GEP sample code, not a rule).
    pub max_refs: u32,
    /// The kind applies without a target (Istio's: a workload `selector`, else the whole
    /// namespace), so a policy with no targetRef is never "without target".
    pub target_optional: bool,
    /// A route rule may attach a policy of the kind with an `ExtensionRef` filter naming it
    /// (`model::EXTENSION_REF_KINDS`); such an attachment beats a targetRef one.
    pub extension_ref: bool,
    /// Target kinds a reference may name without `name` (Kuma's `{kind: Mesh}`: the mesh the
    /// policy lives in).
    pub nameless_targets: Vec<String>,
    /// The group assumed when a ref leaves `group` out (`None`: the field is required, and
    /// core is assumed).
    pub default_ref_group: Option<String>,
    pub stanza: Stanza,
    /// Strategies a policy of this kind may ask for.
    pub strategies: Vec<Strategy>,
    pub semantics: Semantics,
    /// Which field of the target a field of this policy shadows (GEP-2649 "value in
    /// HTTPRoute" tables): (policy field JSON pointer, target field JSON pointer).
    pub shadows: Vec<(String, String)>,
    /// References inside the spec proper to backends (external authorization, processing,
    /// identity providers), at the paths the implementation defines.
    pub spec_refs: Vec<SpecRef>,
    /// Which Gateway controllers act on it (docs/semantics.md §4.4.1).
    pub controllers: Controllers,
    /// What attaches a policy of the kind when it names no target, for kinds whose targets
    /// are optional (`target_optional`) other than Istio's workload selector: said in hover
    /// and status instead of "no target".
    pub untargeted: Option<String>,
    /// The type of its references, which decides how their fields are validated.
    pub ref_type: RefType,
    /// The project that ships the kind, for hover text.
    pub project: String,
    pub source: KindSource,
}

/// No `targetRefs` limit: a kind has one only where its CRD sets `maxItems`.
pub const DEFAULT_MAX_REFS: u32 = u32::MAX;

/// The `maxItems: 16` that the Gateway API's reference types, and the CRDs built on them, set.
pub const GATEWAY_API_MAX_REFS: u32 = 16;

/// Kinds with `targetRef`-shaped fields that are not policies: routes and extensions whose
/// projects document them so. Shape inference never makes a policy of them.
pub const NOT_POLICIES: &[(&str, &str)] = &[
    // Envoy AI Gateway: a route; older releases attached it to Gateways with `targetRefs`.
    ("aigateway.envoyproxy.io", "AIGatewayRoute"),
    // kgateway: an extension server declaration that policies refer to.
    ("gateway.kgateway.dev", "GatewayExtension"),
    // Kuadrant's developer portal catalog entry (targets an HTTPRoute to describe it).
    ("devportal.kuadrant.io", "APIProduct"),
];

impl PolicyKind {
    /// A kind with the GEP-713 defaults for its class: `targetRef` or `targetRefs` (not both,
    /// at most 16), any target, same namespace only, `defaults`/`overrides` and the four GEP
    /// strategies for Inherited kinds, no stanza and `None` for Direct ones.
    pub fn new(gk: GroupKind, class: PolicyClass, source: KindSource) -> PolicyKind {
        let (stanza, strategies) = class_defaults(class);
        PolicyKind {
            project: gk.group.to_string(),
            gk,
            class,
            targets: Vec::new(),
            open_targets: None,
            numeric_sections: false,
            effective_target: None,
            effective_targets: Vec::new(),
            cross_namespace: false,
            target_ref: true,
            target_refs: true,
            target_selectors: false,
            refs_exclusive: true,
            max_refs: DEFAULT_MAX_REFS,
            target_optional: false,
            extension_ref: false,
            nameless_targets: Vec::new(),
            default_ref_group: None,
            stanza,
            strategies,
            semantics: Semantics::Gep713,
            shadows: Vec::new(),
            spec_refs: Vec::new(),
            controllers: Controllers::Any,
            untargeted: None,
            ref_type: RefType::GatewayApi,
            source,
        }
    }

    /// Sets `effective_targets` and keeps `effective_target` its first item.
    pub fn set_effective_targets(&mut self, kinds: Vec<GroupKind>) {
        self.effective_target = kinds.first().cloned();
        self.effective_targets = kinds;
    }

    /// Whether `gk` is one of the kind's declared effective targets.
    pub fn is_effective_target(&self, gk: &GroupKind) -> bool {
        self.effective_targets.contains(gk) || self.effective_target.as_ref() == Some(gk)
    }

    /// Looks up an allowed target kind. With no declared targets, any kind is allowed, with
    /// sections; so is any kind, when the kind's targets are open.
    pub fn target(&self, gk: &GroupKind) -> Option<TargetKind> {
        if self.targets.is_empty() {
            return Some(TargetKind { gk: gk.clone(), section_name: true });
        }
        let listed = self.targets.iter().find(|t| &t.gk == gk).cloned();
        let open = self.open_targets.as_ref().is_some_and(|o| o.admits(gk));
        listed.or_else(|| open.then(|| TargetKind { gk: gk.clone(), section_name: true }))
    }

    /// The strategy a policy gets when it names none (docs/semantics.md §5 item 5): `None` for Direct
    /// kinds; for Inherited ones AtomicDefaults, or, when the kind does not support it, its
    /// first non-override strategy (e.g. PatchDefaults for NGINX Gateway Fabric's field-wise
    /// merge).
    pub fn default_strategy(&self) -> Strategy {
        match self.class {
            PolicyClass::Direct => Strategy::None,
            PolicyClass::Inherited => {
                if self.strategies.is_empty() || self.strategies.contains(&Strategy::AtomicDefaults) {
                    return Strategy::AtomicDefaults;
                }
                self.strategies
                    .iter()
                    .copied()
                    .find(|s| !matches!(s, Strategy::AtomicOverrides | Strategy::PatchOverrides))
                    .unwrap_or(Strategy::AtomicDefaults)
            }
        }
    }

    /// The spec field that names a strategy: Envoy Gateway spells it `mergeType`.
    pub fn strategy_field(&self) -> &'static str {
        match self.semantics {
            Semantics::EnvoyGateway => "mergeType",
            _ => "strategy",
        }
    }

    /// Reads a strategy value as written in a policy (`atomic`, `patch`, `merge`, any case;
    /// Envoy Gateway's `StrategicMerge`/`JSONMerge`), inside `overrides` or not. `None` when
    /// the value is unknown or the kind does not support the strategy it names (the
    /// `unknown-strategy` diagnostic). Kuadrant's `merge` is its per-rule merge: `Custom`.
    pub fn strategy_for(&self, value: &str, overrides: bool) -> Option<Strategy> {
        let v = value.trim().to_ascii_lowercase();
        let strategy = match (v.as_str(), overrides) {
            ("atomic", false) => Strategy::AtomicDefaults,
            ("atomic", true) => Strategy::AtomicOverrides,
            ("merge", _) if self.semantics == Semantics::Kuadrant => Strategy::Custom,
            ("strategicmerge" | "jsonmerge", false) if self.semantics == Semantics::EnvoyGateway => {
                Strategy::PatchDefaults
            }
            ("patch" | "merge", false) if self.semantics != Semantics::EnvoyGateway => Strategy::PatchDefaults,
            ("patch" | "merge", true) if self.semantics != Semantics::EnvoyGateway => Strategy::PatchOverrides,
            _ => return None,
        };
        self.strategies.contains(&strategy).then_some(strategy)
    }
}

/// Stanza and strategies a kind has when nothing says otherwise.
pub(crate) fn class_defaults(class: PolicyClass) -> (Stanza, Vec<Strategy>) {
    match class {
        PolicyClass::Direct => (Stanza::None, vec![Strategy::None]),
        PolicyClass::Inherited => (
            Stanza::Plural,
            vec![
                Strategy::AtomicDefaults,
                Strategy::AtomicOverrides,
                Strategy::PatchDefaults,
                Strategy::PatchOverrides,
            ],
        ),
    }
}

/// The policy kinds in force for one workspace, iterated in (group, kind) order.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    kinds: BTreeMap<GroupKind, Arc<PolicyKind>>,
}

impl Catalog {
    pub fn get(&self, gk: &GroupKind) -> Option<&Arc<PolicyKind>> {
        self.kinds.get(gk)
    }

    pub fn insert(&mut self, kind: PolicyKind) {
        self.kinds.insert(kind.gk.clone(), Arc::new(kind));
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<PolicyKind>> {
        self.kinds.values()
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The built-in table alone (built once; copies share the entries).
    pub fn builtin() -> Catalog {
        static BUILTIN: OnceLock<Catalog> = OnceLock::new();
        BUILTIN
            .get_or_init(|| {
                let mut c = Catalog::default();
                for k in builtin::kinds() {
                    c.insert(k);
                }
                c
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GW: &str = "gateway.networking.k8s.io";

    fn kind(c: &Catalog, group: &str, kind: &str) -> Arc<PolicyKind> {
        c.get(&GroupKind::new(group, kind)).cloned().unwrap_or_else(|| panic!("{kind}.{group}"))
    }

    #[test]
    fn catalog_builtin_lookups() {
        let c = Catalog::builtin();

        let btls = kind(&c, GW, "BackendTLSPolicy");
        assert_eq!(btls.class, PolicyClass::Direct);
        assert_eq!(btls.source, KindSource::Builtin);
        assert_eq!(btls.stanza, Stanza::None);
        assert_eq!(btls.semantics, Semantics::Gep713);
        assert!(!btls.target_ref && btls.target_refs);
        assert_eq!(btls.max_refs, GATEWAY_API_MAX_REFS);
        assert_eq!(btls.target(&GroupKind::new("", "Service")).map(|t| t.section_name), Some(true));
        assert_eq!(btls.target(&GroupKind::new("core", "Service")).map(|t| t.section_name), Some(true));
        // Listed: Service and the kinds implementations document; open beyond them (GEP-1897).
        assert_eq!(btls.target(&GroupKind::new(GW, "Gateway")), None);
        assert!(btls.open_targets.is_some());
        assert!(btls.target(&GroupKind::new("example.dev", "MyBackend")).is_some());
        assert!(btls.target(&GroupKind::new("inference.networking.k8s.io", "InferencePool")).is_some());
        assert_eq!(btls.effective_target, Some(GroupKind::new("", "Service")));
        assert_eq!(btls.default_strategy(), Strategy::None);

        let btp = kind(&c, "gateway.envoyproxy.io", "BackendTrafficPolicy");
        assert_eq!(btp.class, PolicyClass::Inherited);
        assert_eq!(btp.semantics, Semantics::EnvoyGateway);
        assert!(btp.target_ref && btp.target_refs && btp.target_selectors && btp.refs_exclusive);
        assert_eq!(btp.default_ref_group.as_deref(), Some(GW));
        assert_eq!(btp.target(&GroupKind::new(GW, "HTTPRoute")).map(|t| t.section_name), Some(true));
        assert!(btp.is_effective_target(&GroupKind::new(GW, "GRPCRoute")));
        assert_eq!(btp.strategy_field(), "mergeType");
        assert_eq!(btp.strategy_for("StrategicMerge", false), Some(Strategy::PatchDefaults));
        assert_eq!(btp.strategy_for("Replace", false), None);

        let auth = kind(&c, "kuadrant.io", "AuthPolicy");
        assert_eq!(auth.class, PolicyClass::Inherited);
        assert_eq!(auth.stanza, Stanza::Plural);
        assert_eq!(auth.semantics, Semantics::Kuadrant);
        assert!(auth.target_ref && !auth.target_refs);
        assert_eq!(auth.strategy_for("merge", true), Some(Strategy::Custom));
        assert_eq!(auth.strategy_for("Atomic", true), Some(Strategy::AtomicOverrides));
        assert_eq!(auth.strategy_for("patch", false), None);

        // Label says direct, GEP table says Inherited: behaviour (older wins) makes it Direct.
        let dns = kind(&c, "kuadrant.io", "DNSPolicy");
        assert_eq!(dns.class, PolicyClass::Direct);
        assert_eq!(dns.target(&GroupKind::new(GW, "Gateway")).map(|t| t.section_name), Some(true));

        let csp = kind(&c, "gateway.nginx.org", "ClientSettingsPolicy");
        assert_eq!(csp.target(&GroupKind::new(GW, "Gateway")).map(|t| t.section_name), Some(false));
        assert_eq!(csp.default_strategy(), Strategy::PatchDefaults);
        assert_eq!(kind(&c, "gateway.nginx.org", "ExternalLoadBalancer").max_refs, 1);

        let gke = kind(&c, "networking.gke.io", "HealthCheckPolicy");
        assert_eq!(gke.stanza, Stanza::Singular);
        assert!(gke.cross_namespace);
        assert!(gke.target(&GroupKind::new("", "Service")).is_some(), "open targets");

        let consul = kind(&c, "consul.hashicorp.com", "GatewayPolicy");
        assert_eq!(consul.stanza, Stanza::Singular);

        let istio = kind(&c, "security.istio.io", "AuthorizationPolicy");
        assert_eq!(istio.semantics, Semantics::Additive);
        assert_eq!(istio.default_ref_group.as_deref(), Some(""));
        assert!(!istio.cross_namespace);

        // kgateway labels TrafficPolicy Direct; Gateway-level policies are inherited.
        assert_eq!(kind(&c, "gateway.kgateway.dev", "TrafficPolicy").class, PolicyClass::Inherited);
    }

    #[test]
    fn catalog_same_kind_in_several_groups() {
        let c = Catalog::builtin();
        let k = kind(&c, "kuadrant.io", "RateLimitPolicy");
        let n = kind(&c, "gateway.nginx.org", "RateLimitPolicy");
        let f = kind(&c, "gateway.flomesh.io", "RateLimitPolicy");
        assert_eq!(
            (k.semantics, n.semantics, f.semantics),
            // NGINX Gateway Fabric applies a Gateway's and a route's limits together.
            (Semantics::Kuadrant, Semantics::Additive, Semantics::Gep713)
        );
        assert_eq!(k.stanza, Stanza::Plural);
        assert_eq!(n.stanza, Stanza::None);
        assert!(k.target_ref && !k.target_refs);
        assert!(!n.target_ref && n.target_refs);

        let gke = kind(&c, "networking.gke.io", "HealthCheckPolicy");
        let fsm = kind(&c, "gateway.flomesh.io", "HealthCheckPolicy");
        assert_eq!(gke.class, PolicyClass::Inherited);
        assert_eq!(fsm.class, PolicyClass::Direct);

        let eg = kind(&c, "gateway.envoyproxy.io", "BackendTrafficPolicy");
        let apisix = kind(&c, "apisix.apache.org", "BackendTrafficPolicy");
        let x = kind(&c, "gateway.networking.x-k8s.io", "BackendTrafficPolicy");
        assert_eq!(eg.class, PolicyClass::Inherited);
        assert_eq!(apisix.class, PolicyClass::Direct);
        assert_eq!(apisix.target(&GroupKind::new("", "Service")).map(|t| t.section_name), Some(true));
        assert_eq!(x.target(&GroupKind::new("", "Service")).map(|t| t.section_name), Some(false));

        assert_eq!(kind(&c, "security.istio.io", "AuthorizationPolicy").project, "Istio");
        assert_eq!(kind(&c, "policy.linkerd.io", "AuthorizationPolicy").project, "Linkerd");
        assert!(c.get(&GroupKind::new("example.com", "BackendTLSPolicy")).is_none());
    }

    #[test]
    fn catalog_survey_kinds_are_all_built_in() {
        let c = Catalog::builtin();
        let expected: &[(&str, &[&str])] = &[
            (GW, &["BackendTLSPolicy", "BackendLBPolicy"]),
            ("gateway.networking.x-k8s.io", &["XBackendTrafficPolicy"]),
            (
                "gateway.envoyproxy.io",
                &[
                    "BackendTrafficPolicy",
                    "ClientTrafficPolicy",
                    "SecurityPolicy",
                    "EnvoyExtensionPolicy",
                    "EnvoyPatchPolicy",
                ],
            ),
            ("aigateway.envoyproxy.io", &["BackendSecurityPolicy", "QuotaPolicy"]),
            ("kuadrant.io", &["AuthPolicy", "RateLimitPolicy", "TokenRateLimitPolicy", "DNSPolicy", "TLSPolicy"]),
            ("extensions.kuadrant.io", &["OIDCPolicy", "PlanPolicy", "TelemetryPolicy", "ThreatPolicy"]),
            (
                "gateway.nginx.org",
                &[
                    "ClientSettingsPolicy",
                    "ProxySettingsPolicy",
                    "RateLimitPolicy",
                    "WAFPolicy",
                    "PayloadProcessor",
                    "ObservabilityPolicy",
                    "UpstreamSettingsPolicy",
                    "SnippetsPolicy",
                    "ExternalLoadBalancer",
                ],
            ),
            (
                "application-networking.k8s.aws",
                &["TargetGroupPolicy", "IAMAuthPolicy", "AccessLogPolicy", "VpcAssociationPolicy"],
            ),
            (
                "networking.gke.io",
                &[
                    "GCPBackendPolicy",
                    "GCPGatewayPolicy",
                    "HealthCheckPolicy",
                    "LBPolicy",
                    "GCPSessionAffinityPolicy",
                    "GCPAuthzPolicy",
                    "CDNPolicy",
                    "IAPPolicy",
                    "LBSecurityPolicy",
                    "OutlierDetectionPolicy",
                    "HTTPRouteRetryPolicy",
                    "GRPCRouteRetryPolicy",
                ],
            ),
            ("security.istio.io", &["AuthorizationPolicy", "RequestAuthentication"]),
            ("telemetry.istio.io", &["Telemetry"]),
            ("extensions.istio.io", &["WasmPlugin", "TrafficExtension"]),
            ("networking.istio.io", &["EnvoyFilter"]),
        ];
        for (group, kinds) in expected {
            for k in *kinds {
                assert!(c.get(&GroupKind::new(group, k)).is_some(), "{k}.{group} missing");
            }
        }
    }
}
