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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyClass {
    Direct,
    Inherited,
}

/// GEP-713 merge strategies (DESIGN §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    None,
    AtomicDefaults,
    AtomicOverrides,
    PatchDefaults,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stanza {
    /// `spec.defaults` / `spec.overrides` (GEP-713 current, Kuadrant).
    Plural,
    /// `spec.default` / `spec.override` (GEP-713 v0.7, Consul, GKE).
    Singular,
    /// No stanza: the whole spec is the policy (Direct kinds, Envoy Gateway).
    None,
}

/// Project-specific merge rules that differ from the generic GEP-713 fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Semantics {
    /// DESIGN §5 as written.
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
    pub effective_target: Option<GroupKind>,
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

impl PolicyKind {
    /// Looks up an allowed target kind. With no declared targets, any kind is allowed, with
    /// sections.
    pub fn target(&self, gk: &GroupKind) -> Option<TargetKind> {
        if self.targets.is_empty() {
            return Some(TargetKind { gk: gk.clone(), section_name: true });
        }
        self.targets.iter().find(|t| &t.gk == gk).cloned()
    }

    /// The strategy a policy gets when it names none (DESIGN §5 item 5).
    pub fn default_strategy(&self) -> Strategy {
        match self.class {
            PolicyClass::Direct => Strategy::None,
            PolicyClass::Inherited => Strategy::AtomicDefaults,
        }
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
