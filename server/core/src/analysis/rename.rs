//! Rename a Gateway, route, Service, listener, rule or port, with every reference to it.

use super::TextEdit;
use crate::syntax::Span;
use crate::workspace::Snapshot;

/// The span and current text of the renameable name at `offset`.
pub fn prepare_rename(_snap: &Snapshot, _file: &str, _offset: u32) -> Option<(Span, String)> {
    None
}

pub fn rename(_snap: &Snapshot, _file: &str, _offset: u32, _new_name: &str) -> Result<Vec<TextEdit>, String> {
    Err("nothing to rename here".into())
}
