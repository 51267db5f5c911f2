//! What each policy kind is: class, allowed targets, reference fields, defaults/overrides
//! spelling and merge semantics. Built from the built-in table, workspace CRDs (label
//! discovery), the `.policylens.yaml` config, and shape inference, in that order of trust:
//! config beats built-in beats CRD label beats shape.

mod builtin;
pub mod config;
mod discover;

pub use config::{Config, ConfigError, load_config};
pub use discover::build_catalog;

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::GroupKind;

/// GEP-713 policy classes: a Direct policy affects exactly what it targets; an Inherited one
/// also everything below its target in the hierarchy.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum PolicyClass {
    /// Affects only the object (or section) it targets (GEP-2648).
    Direct,
    /// Affects its target and everything below it in the hierarchy (GEP-2649).
    Inherited,
}

/// GEP-713 merge strategies.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
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

/// Where a kind keeps defaults and overrides.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum Stanza {
    /// `spec.defaults` / `spec.overrides` (GEP-713 current, Kuadrant).
    Plural,
    /// `spec.default` / `spec.override` (GEP-713 v0.7, Consul, GKE).
    Singular,
    /// No stanza: the whole spec is the policy (Direct kinds, Envoy Gateway).
    None,
}

/// Project-specific merge rules that differ from the generic GEP-713 fold.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindSource {
    Builtin,
    Config,
    /// A workspace CRD labelled `gateway.networking.k8s.io/policy`.
    CrdLabel,
    /// Recognised only by the shape of its spec.
    Shape,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicyKind {
    pub gk: GroupKind,
    pub class: PolicyClass,
    /// Allowed targets. Empty: any kind (checked only for existence).
    pub targets: Vec<TargetKind>,
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
    /// Maximum number of `targetRefs` items.
    pub max_refs: u32,
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
    /// The project that ships the kind, for hover text.
    pub project: String,
    pub source: KindSource,
}

/// The GEP-713 reference limit (`targetRefs` maxItems in the upstream types).
pub const DEFAULT_MAX_REFS: u32 = 16;

impl PolicyKind {
    /// A kind with the GEP-713 defaults for its class: `targetRef` or `targetRefs` (not both,
    /// at most 16), any target, same namespace only, `defaults`/`overrides` and the four GEP
    /// strategies for Inherited kinds, no stanza and `None` for Direct ones.
    pub fn new(gk: GroupKind, class: PolicyClass, source: KindSource) -> PolicyKind {
        let (stanza, strategies) = class_defaults(class);
        PolicyKind {
            project: gk.group.clone(),
            gk,
            class,
            targets: Vec::new(),
            effective_target: None,
            effective_targets: Vec::new(),
            cross_namespace: false,
            target_ref: true,
            target_refs: true,
            target_selectors: false,
            refs_exclusive: true,
            max_refs: DEFAULT_MAX_REFS,
            default_ref_group: None,
            stanza,
            strategies,
            semantics: Semantics::Gep713,
            shadows: Vec::new(),
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
    /// sections.
    pub fn target(&self, gk: &GroupKind) -> Option<TargetKind> {
        if self.targets.is_empty() {
            return Some(TargetKind { gk: gk.clone(), section_name: true });
        }
        self.targets.iter().find(|t| &t.gk == gk).cloned()
    }

    /// The strategy a policy gets when it names none (DESIGN §5 item 5): `None` for Direct
    /// kinds; for Inherited ones AtomicDefaults, or, when the kind does not support it, its
    /// first non-override strategy (e.g. PatchDefaults for NGINX Gateway Fabric's field-wise
    /// merge).
    pub fn default_strategy(&self) -> Strategy {
        match self.class {
            PolicyClass::Direct => Strategy::None,
            PolicyClass::Inherited => {
                if self.strategies.is_empty() || self.strategies.contains(&Strategy::AtomicDefaults)
                {
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
            ("patch" | "merge", false) if self.semantics != Semantics::EnvoyGateway => {
                Strategy::PatchDefaults
            }
            ("patch" | "merge", true) if self.semantics != Semantics::EnvoyGateway => {
                Strategy::PatchOverrides
            }
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

/// The policy kinds in force for one workspace.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    kinds: HashMap<GroupKind, Arc<PolicyKind>>,
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

    /// The built-in table alone.
    pub fn builtin() -> Catalog {
        let mut c = Catalog::default();
        for k in builtin::kinds() {
            c.insert(k);
        }
        c
    }
}
