//! Code actions: closest-name fixes, sectionName choices, targetRef → targetRefs.

use super::CodeAction;
use crate::syntax::Span;
use crate::workspace::Snapshot;

pub fn code_actions(_snap: &Snapshot, _file: &str, _span: Span) -> Vec<CodeAction> {
    Vec::new()
}
