//! Hover: on a target, the policies reaching it and their effective spec; on a policy, its
//! status; on a reference, a one-line summary of what it names.

use super::Hover;
use crate::workspace::Snapshot;

pub fn hover(_snap: &Snapshot, _file: &str, _offset: u32) -> Option<Hover> {
    None
}
