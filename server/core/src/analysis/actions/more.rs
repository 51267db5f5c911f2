//! Quick fixes beyond a replaced name: silence a finding where it is (`# policylens:
//! ignore[code]` on the line above) and remove a repeated targetRef.

use std::sync::Arc;

use crate::analysis::diagnostics::{Code, Diagnostic};
use crate::analysis::{CodeAction, CodeActionKind, FileEdit};
use crate::syntax::Span;

/// The start of the line holding `offset` (bytes: `offset` need not be a char boundary).
pub(super) fn line_start(text: &str, offset: usize) -> usize {
    let b = text.as_bytes();
    b[..offset.min(b.len())].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1)
}

/// The end of the line holding `offset`, past its line break.
pub(super) fn line_end(text: &str, offset: usize) -> usize {
    let b = text.as_bytes();
    let offset = offset.min(b.len());
    b[offset..].iter().position(|&c| c == b'\n').map_or(b.len(), |i| offset + i + 1)
}

/// "Ignore `code` here": an own-line ignore comment above the finding's line, at its
/// indentation, or the code added to the one already there.
pub(super) fn ignore_here(path: &Arc<str>, text: &str, d: &Diagnostic) -> Option<CodeAction> {
    if d.code == Code::UnusedSuppression {
        return None;
    }
    let code = d.code.as_str();
    let start = line_start(text, d.span.start as usize);
    let line = &text[start..line_end(text, start)];
    let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
    // A comment of its own above may already silence other codes on this line: add this one.
    if start > 0 {
        let prev_start = line_start(text, start - 1);
        let prev = &text[prev_start..start];
        let trimmed = prev.trim();
        if let Some(list) = trimmed.strip_prefix("# policylens: ignore[").and_then(|r| r.strip_suffix(']')) {
            let close = prev_start + prev.rfind(']')?;
            if list.split(',').any(|c| c.trim() == code) {
                return None;
            }
            return Some(ignore_action(path, d.code, Span::new(close as u32, close as u32), format!(", {code}")));
        }
    }
    let at = Span::new(start as u32, start as u32);
    Some(ignore_action(path, d.code, at, format!("{indent}# policylens: ignore[{code}]\n")))
}

fn ignore_action(path: &Arc<str>, code: Code, span: Span, new_text: String) -> CodeAction {
    CodeAction {
        title: format!("Ignore `{}` here", code.as_str()),
        kind: CodeActionKind::QuickFix,
        edits: vec![FileEdit { file: path.clone(), span, new_text }],
        fixes: Some(code),
        preferred: false,
    }
}

/// "Remove the repeated reference": the whole block-sequence item of a duplicate targetRef.
pub(super) fn remove_duplicate(path: &Arc<str>, text: &str, d: &Diagnostic) -> Option<CodeAction> {
    if d.code != Code::DuplicateTargetRef {
        return None;
    }
    let start = line_start(text, d.span.start as usize);
    // Only `- ` and blanks before the mapping: an item of a block sequence.
    let lead = text.get(start..d.span.start as usize)?;
    if lead.trim() != "-" {
        return None;
    }
    let end = line_end(text, d.span.end.saturating_sub(1) as usize);
    Some(CodeAction {
        title: "Remove the repeated reference".into(),
        kind: CodeActionKind::QuickFix,
        edits: vec![FileEdit {
            file: path.clone(),
            span: Span::new(start as u32, end as u32),
            new_text: String::new(),
        }],
        fixes: Some(Code::DuplicateTargetRef),
        preferred: true,
    })
}
