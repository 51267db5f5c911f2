//! The built-in table of real policy kinds (reference/policy-kinds.md §2).

use super::PolicyKind;

pub(super) fn kinds() -> Vec<PolicyKind> {
    Vec::new()
}
