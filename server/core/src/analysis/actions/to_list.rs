//! `targetRef` → `targetRefs`: the singular reference becomes a one-item list, written so that
//! the YAML stays valid and the item keeps its fields' indentation where it can.
//!
//! Block mapping: the dash goes two columns left of the fields (never left of the key), and
//! the fields move right only when there is no room for it:
//!
//! ```yaml
//! targetRef:                    targetRefs:
//!   group: g          ->        - group: g
//!   kind: Gateway                 kind: Gateway
//! ```
//!
//! Flow mapping: `targetRef: {…}` → `targetRefs: [{…}]`.

use crate::analysis::cursor::column;
use crate::analysis::diagnostics::Code;
use crate::analysis::refs::objects_in;
use crate::analysis::{CodeAction, CodeActionKind, FileEdit};
use crate::model::Body;
use crate::syntax::Span;
use crate::workspace::Snapshot;

pub(super) fn target_ref_to_list(snap: &Snapshot, file: &str, span: Span) -> Option<CodeAction> {
    let src = snap.file(file)?;
    let world = snap.world();
    let text: &str = src.text();
    for id in objects_in(world, file) {
        let Body::Other(other) = &world.object(id).body else { continue };
        let Some(kind) = world.policy_kind(id) else { continue };
        let Some((key, Some(r))) = &other.policy.target_ref else { continue };
        // The list must be allowed, and not be there already (a second key would be invalid).
        if !kind.target_refs || other.policy.target_refs.is_some() {
            continue;
        }
        let whole = Span::new(key.start, r.span.end);
        if span.start > whole.end || whole.start > span.end {
            continue;
        }
        let new_text = rewrite(text, *key, r.span)?;
        // Where the kind has no `targetRef` at all, this fixes the diagnostic that says so.
        let diagnosed = snap.diagnostics_for(file).iter().any(|d| d.code == Code::TargetRefFields && d.span == *key);
        return Some(CodeAction {
            title: "Convert `targetRef` to `targetRefs`".into(),
            kind: if diagnosed { CodeActionKind::QuickFix } else { CodeActionKind::Refactor },
            edits: vec![FileEdit { file: src.path.clone(), span: whole, new_text }],
            fixes: diagnosed.then_some(Code::TargetRefFields),
            preferred: diagnosed,
        });
    }
    None
}

/// The text replacing `key` through the end of `value` (the ref's mapping).
fn rewrite(text: &str, key: Span, value: Span) -> Option<String> {
    let between = text.get(key.end as usize..value.start as usize)?;
    let mapping = text.get(value.start as usize..value.end as usize)?;
    if mapping.starts_with('{') {
        return Some(format!("targetRefs{between}[{mapping}]"));
    }
    // A block mapping starts on its own line, after indentation only.
    let line_start =
        text.as_bytes()[..value.start as usize].iter().rposition(|&c| c == b'\n' || c == b'\r').map_or(0, |i| i + 1);
    if line_start < key.end as usize || !text.get(line_start..value.start as usize)?.bytes().all(|c| c == b' ') {
        return None;
    }
    let k = column(text, key.start as usize);
    let v = column(text, value.start as usize);
    let dash = v.saturating_sub(2).max(k);
    let shift = dash + 2 - v;
    let head = text.get(key.end as usize..line_start)?;
    let mut out = format!("targetRefs{head}{}- ", " ".repeat(dash));
    let mut lines = mapping.split('\n');
    out.push_str(lines.next().unwrap_or(""));
    for line in lines {
        out.push('\n');
        if !line.trim().is_empty() {
            out.push_str(&" ".repeat(shift));
        }
        out.push_str(line);
    }
    Some(out)
}
