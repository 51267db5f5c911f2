//! Where real projects' merge rules differ from the generic GEP-713 fold (survey §0 item 8,
//! §2.2-2.4, §2.9). Each kind's [`Rules`] say which subtrees merge as one unit, who picks
//! between atomic and patch at each step, and what happens between two policies on the same
//! target. Unknown kinds follow GEP-713.

pub mod envoy;
pub mod gloo;
pub mod istio;
pub mod kuadrant;
pub mod nginx;

use crate::catalog::{PolicyKind, Semantics, Strategy};

use super::strategy::Units;

/// Who decides how the effective spec so far and the next (more specific) policy combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dictates {
    /// GEP-713: the established (less specific) policy's strategy.
    Established,
    /// Envoy Gateway: the more specific policy (its `mergeType`, else replace).
    Challenger,
}

/// Two policies on the same target (same level of a path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SameLevel {
    /// GEP-713 ("Conflict resolution" rule 2): the older policy (then the first by
    /// `namespace/name`) dictates the merge strategy. Under defaults the younger challenger is
    /// applied with the older's strategy, so its values win where both set a field (whole for
    /// atomic defaults, field by field for patch/merge); under overrides the older holds; under
    /// None the younger is Conflicted. Kuadrant implements exactly this (ae698811
    /// api/v1/merge_strategies.go: policies sorted oldest first, reduced from the right).
    OlderDictates,
    /// The older policy (then the first by `namespace/name`) wins under every strategy: whole
    /// for atomic and None strategies (None: the newer is Conflicted), field by field for patch
    /// strategies. Gloo and kgateway document it for several policies on one target.
    OlderWins,
    /// NGINX Gateway Fabric: only policies that set the same fields conflict; the others merge.
    ConflictOnOverlap,
    /// Envoy Gateway: the younger of two policies on the same target and section is rejected
    /// (`Accepted=False`, Conflicted), whatever their merge settings.
    YoungerConflicted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub units: Units,
    pub dictates: Dictates,
    pub same_level: SameLevel,
    /// Istio/Linkerd: every policy applies; nothing merges, nothing loses.
    pub additive: bool,
    /// The strategy of a policy that names none, when the kind's semantics fix it.
    pub implicit: Option<Strategy>,
}

pub fn rules(kind: &PolicyKind) -> Rules {
    let generic = Rules {
        units: Units::Fields,
        dictates: Dictates::Established,
        same_level: SameLevel::OlderDictates,
        additive: false,
        implicit: None,
    };
    match kind.semantics {
        Semantics::Gep713 => generic,
        Semantics::Kuadrant => Rules { units: Units::Kuadrant, ..generic },
        Semantics::EnvoyGateway => Rules { dictates: envoy::DICTATES, same_level: envoy::SAME_LEVEL, ..generic },
        Semantics::NginxGatewayFabric => Rules { same_level: nginx::SAME_LEVEL, ..generic },
        Semantics::Gloo => {
            Rules { units: Units::Gloo, implicit: Some(gloo::STRATEGY), same_level: gloo::SAME_LEVEL, ..generic }
        }
        Semantics::Additive => Rules { additive: true, implicit: Some(Strategy::Custom), ..generic },
    }
}
