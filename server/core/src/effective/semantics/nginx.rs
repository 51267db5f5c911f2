//! NGINX Gateway Fabric: Inherited kinds merge field by field with the route-level setting
//! winning (PatchDefaults, the catalog's strategy for them). Two policies of one kind on the
//! same target conflict only when they set the same fields; the newer (then the second by
//! name) is Conflicted. Policies that set different fields both apply.

use super::SameLevel;

pub const SAME_LEVEL: SameLevel = SameLevel::ConflictOnOverlap;
