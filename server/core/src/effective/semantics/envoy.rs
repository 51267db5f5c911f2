//! Envoy Gateway (BackendTrafficPolicy, SecurityPolicy, EnvoyExtensionPolicy,
//! ClientTrafficPolicy): no defaults/overrides. The more specific target (rule > route >
//! listener > Gateway) replaces the less specific policy whole, unless the more specific one
//! sets `mergeType` (StrategicMerge or JSONMerge, only on route targets), which patches it onto
//! the parent's. So the challenger, not the established policy, picks atomic or patch.
//! Siblings on one target: the oldest wins.
//!
//! StrategicMerge is applied as an RFC 7386 merge patch: Envoy Gateway's Go structs carry the
//! list merge keys, which CRD schemas do not.

use super::Dictates;

pub const DICTATES: Dictates = Dictates::Challenger;
