//! Envoy Gateway (BackendTrafficPolicy, SecurityPolicy, EnvoyExtensionPolicy,
//! ClientTrafficPolicy): no defaults/overrides. The more specific target (rule > route >
//! listener > Gateway) replaces the less specific policy whole, unless the more specific one
//! sets `mergeType` (StrategicMerge or JSONMerge, only on route targets), which patches it onto
//! the parent's. So the challenger, not the established policy, picks atomic or patch.
//! Siblings on one target: the oldest (then the first by `namespace/name`) is accepted and the
//! others are rejected with `Accepted=False` (Envoy Gateway's policy concept page,
//! "Conflict resolution"; its status reports `Conflicted`), not merged or overridden.
//!
//! StrategicMerge is applied as an RFC 7386 merge patch: Envoy Gateway's Go structs carry the
//! list merge keys, which CRD schemas do not.

use super::{Dictates, SameLevel};

pub const DICTATES: Dictates = Dictates::Challenger;
pub const SAME_LEVEL: SameLevel = SameLevel::YoungerConflicted;
