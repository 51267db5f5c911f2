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

pub const DICTATES: Dictates = Dictates::Challenger;
pub const SAME_LEVEL: SameLevel = SameLevel::YoungerConflicted;
