//! Gloo Gateway and kgateway (RouteOption, VirtualHostOption, TrafficPolicy, ...): policies
//! are sorted section-specific first, then older first, and shallow-merged: a higher-priority
//! policy's field wins whole, a lower-priority one may only add fields. That is a patch whose
//! leaves are the fields of `options` (or the top-level fields), applied least specific first
//! with the older policy holding its fields at the same level.

use crate::catalog::Strategy;

use super::SameLevel;

/// Several policies on one target: the oldest takes precedence whatever the strategy (kgateway
/// and Gloo's docs on merging policies), unlike GEP-713's "the older dictates the strategy".
pub const SAME_LEVEL: SameLevel = SameLevel::OlderWins;

/// Every Gloo policy merges this way, whatever its class.
pub const STRATEGY: Strategy = Strategy::Custom;

/// Whether the mapping at `path` is one shallow-merge unit.
pub fn is_unit(path: &[&str]) -> bool {
    match path {
        [k] => *k != "options",
        [k, _] => *k == "options",
        _ => false,
    }
}
