//! Envoy Gateway (BackendTrafficPolicy, SecurityPolicy, EnvoyExtensionPolicy,
//! ClientTrafficPolicy): no defaults/overrides. The more specific target (rule > route >
//! listener > Gateway) replaces the less specific policy whole, unless the more specific one
//! sets `mergeType` (StrategicMerge or JSONMerge, only on route targets), which patches it onto
//! the parent's. So the challenger, not the established policy, picks atomic or patch.
//! Siblings on one target: the oldest (then the first by `namespace/name`) is accepted and the
//! others are rejected with `Accepted=False` (Envoy Gateway's policy concept page,
//! "Conflict resolution"; its status reports `Conflicted`), not merged or overridden.
//!
//! StrategicMerge is a Kubernetes strategic merge patch: the lists Envoy Gateway's Go types
//! key (`patchMergeKey`, which CRD schemas do not carry; `listmap::strategic_merge_keys`)
//! merge item by item, the route's items first; JSONMerge is an RFC 7386 patch (lists replaced).

use super::{Dictates, SameLevel};
use crate::syntax::{Node, Span};

pub const DICTATES: Dictates = Dictates::Challenger;
pub const SAME_LEVEL: SameLevel = SameLevel::YoungerConflicted;

/// What Envoy Gateway does on a policy's HTTP targets when a backend inside its spec names
/// nothing usable. It always rejects the policy (`Accepted=False`); then, so that requests are
/// not let through unchecked, it answers them with 500, unless every broken reference is in a
/// part that fails open (`internal/gatewayapi/securitypolicy.go`, `envoyextensionpolicy.go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrokenBackend {
    Answers500,
    /// SecurityPolicy: only `extAuth` is broken and `extAuth.failOpen` is true. The other
    /// features apply; requests are not sent to external authorization.
    SkipsExtAuth,
    /// EnvoyExtensionPolicy: every broken `extProc` item has `failOpen: true`. They are left
    /// out; the other extensions apply.
    SkipsExtProcs,
}

/// [`BrokenBackend`] for a policy of `kind` whose `spec` holds the broken references at `broken`.
pub fn broken_backend(kind: &str, spec: &Node, broken: &[Span]) -> BrokenBackend {
    let fails_open = |n: &Node| n.get("failOpen").and_then(Node::as_str) == Some("true");
    let inside = |n: &Node, s: &Span| n.span.start <= s.start && s.end <= n.span.end;
    match kind {
        "SecurityPolicy" => match spec.get("extAuth") {
            Some(ext) if fails_open(ext) && broken.iter().all(|s| inside(ext, s)) => BrokenBackend::SkipsExtAuth,
            _ => BrokenBackend::Answers500,
        },
        "EnvoyExtensionPolicy" => {
            let items = spec.get("extProc").and_then(Node::as_sequence).unwrap_or_default();
            let open = |s: &Span| items.iter().find(|i| inside(i, s)).is_some_and(fails_open);
            if !broken.is_empty() && broken.iter().all(open) {
                BrokenBackend::SkipsExtProcs
            } else {
                BrokenBackend::Answers500
            }
        }
        _ => BrokenBackend::Answers500,
    }
}

impl BrokenBackend {
    /// What it means for traffic, in words that follow "Envoy Gateway".
    pub fn words(self) -> &'static str {
        match self {
            BrokenBackend::Answers500 => "answers requests on its targets with HTTP 500",
            BrokenBackend::SkipsExtAuth => {
                "lets requests on its targets through without external authorization (failOpen)"
            }
            BrokenBackend::SkipsExtProcs => "leaves the broken extProc filters out (failOpen)",
        }
    }
}
