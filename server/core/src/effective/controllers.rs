//! Policies on Gateways whose controller does not act on their kind (docs/semantics.md §4.4.1).
//!
//! A policy *reaches* the Gateways above the nodes it attaches to (and those of a
//! GatewayClass it targets). Under a Gateway whose controller ignores the kind, the policy
//! takes part in no context (the contexts whose path starts at that Gateway); a policy every
//! reached Gateway ignores is `unsupported-by-controller`. A policy that reaches no Gateway (a mesh route's, a Service
//! no Gateway route sends to) is not judged.

use super::reach::reached_gateways;
use crate::catalog::PolicyKind;
use crate::topology::Linked;
use crate::world::ObjId;

/// Whether Gateway `gw`'s controller is known and does not act on policies of `kind`.
pub fn ignores(world: &Linked, kind: &PolicyKind, gw: ObjId) -> bool {
    world.topology.controller_of(gw).is_some_and(|s| !kind.controllers.act_under(&s.controller_name))
}

/// Which of the Gateways a policy reaches ignore its kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Support {
    pub reached: Vec<ObjId>,
    pub ignoring: Vec<ObjId>,
}

impl Support {
    pub fn of(world: &Linked, pid: ObjId) -> Support {
        let Some(kind) = world.policy_kind(pid) else { return Support::default() };
        let reached = reached_gateways(world, pid);
        let ignoring = reached.iter().copied().filter(|&g| ignores(world, kind, g)).collect();
        Support { reached, ignoring }
    }

    /// Every Gateway it reaches ignores it.
    pub fn none(&self) -> bool {
        !self.reached.is_empty() && self.ignoring.len() == self.reached.len()
    }
}

/// Why the controllers a policy reaches leave it alone: it takes part in no effective policy,
/// and hover, explain and status say this instead of "affects nothing".
#[derive(Clone, Debug, PartialEq)]
pub enum Ignored {
    /// Every Gateway it reaches is served by a controller that does not implement its kind
    /// (`unsupported-by-controller`).
    Unsupported { gateways: Vec<ObjId> },
    /// Istio serves what it reaches and the policy is annotated
    /// `istio.io/ignore-policy-attachment: "true"`: meant for another controller.
    IstioOptOut,
}

impl Ignored {
    /// The reason as `status` reports it.
    pub fn reason(&self) -> &'static str {
        match self {
            Ignored::Unsupported { .. } => "UnsupportedByController",
            Ignored::IstioOptOut => "IgnorePolicyAttachment",
        }
    }

    /// Why, in words: which Gateways, served by whom, and who implements the kind.
    pub fn words(&self, world: &Linked, pid: ObjId) -> String {
        match self {
            Ignored::IstioOptOut => "it is annotated `istio.io/ignore-policy-attachment: \"true\"` and Istio serves what it reaches: Istio leaves it to another controller (it takes part in no conflict and changes nothing here)".to_owned(),
            Ignored::Unsupported { gateways } => {
                let Some(kind) = world.policy_kind(pid) else { return String::new() };
                let mut served: Vec<String> = gateways
                    .iter()
                    .filter_map(|&g| world.topology.controller_of(g).map(|s| format!("`{}` by {}", world.key(g), s.describe())))
                    .collect();
                let more = served.len().saturating_sub(MAX_NAMED);
                served.truncate(MAX_NAMED);
                if more > 0 {
                    served.push(format!("{more} more"));
                }
                let what = if gateways.len() == 1 { "the Gateway it reaches is served" } else { "every Gateway it reaches is served" };
                let implementers = kind.controllers.names();
                let by = match (&kind.controllers, implementers.is_empty()) {
                    (crate::catalog::Controllers::Only(_), false) => format!(" (it is implemented by {})", implementers.join(", ")),
                    _ => String::new(),
                };
                format!("{what} by a controller that does not implement {}{by}: {}", kind.gk, served.join(", "))
            }
        }
    }
}

/// The Gateways `gateways` (which ignore policy `pid`'s kind) in words, for a policy that other
/// Gateways act on: under these it takes part in nothing.
pub fn words_under(world: &Linked, pid: ObjId, gateways: &[ObjId]) -> String {
    let Some(kind) = world.policy_kind(pid) else { return String::new() };
    let mut served: Vec<String> = gateways
        .iter()
        .filter_map(|&g| {
            world.topology.controller_of(g).map(|s| format!("`{}`, served by {}", world.key(g), s.describe()))
        })
        .collect();
    let more = served.len().saturating_sub(MAX_NAMED);
    served.truncate(MAX_NAMED);
    if more > 0 {
        served.push(format!("{more} more"));
    }
    let implementers = kind.controllers.names();
    let by = if implementers.is_empty() {
        String::new()
    } else {
        format!(" (it is implemented by {})", implementers.join(", "))
    };
    let whose = if gateways.len() == 1 { "its controller does not" } else { "their controllers do not" };
    format!(
        "it takes part in nothing under {}: {whose} implement {}{by}; the other Gateways it reaches act on it",
        served.join("; "),
        kind.gk
    )
}

/// Gateways named in a message before "N more".
const MAX_NAMED: usize = 3;

/// What the controllers a policy reaches do with it.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every one acts on it (or it reaches no Gateway whose controller is known).
    Acted,
    /// They all leave it alone.
    Ignored(Ignored),
    /// These Gateways' controllers ignore it, the others act on it: the contexts whose path
    /// starts at one of these leave it out.
    IgnoredUnder(Vec<ObjId>),
}

/// What the controllers policy `pid` reaches do with it. Cheap for the kinds every controller
/// implements and for policies without the Istio opt-out.
pub fn verdict(world: &Linked, pid: ObjId) -> Verdict {
    let Some(kind) = world.policy_kind(pid) else { return Verdict::Acted };
    if super::semantics::istio::left_to_other_controllers(world, pid) {
        return Verdict::Ignored(Ignored::IstioOptOut);
    }
    if kind.controllers == crate::catalog::Controllers::Any {
        return Verdict::Acted;
    }
    let support = Support::of(world, pid);
    if support.none() {
        Verdict::Ignored(Ignored::Unsupported { gateways: support.ignoring })
    } else if support.ignoring.is_empty() {
        Verdict::Acted
    } else {
        Verdict::IgnoredUnder(support.ignoring)
    }
}

/// Whether the controllers policy `pid` reaches all leave it alone, and why.
pub fn ignored(world: &Linked, pid: ObjId) -> Option<Ignored> {
    match verdict(world, pid) {
        Verdict::Ignored(i) => Some(i),
        _ => None,
    }
}
