//! Quick fixes beyond a replaced name: silence a finding where it is (`# policylens:
//! ignore[code]` on the line above), remove a repeated targetRef, and write the
//! ReferenceGrant a cross-namespace backendRef lacks.

use std::sync::Arc;

use crate::analysis::diagnostics::{Code, Diagnostic};
use crate::analysis::refs::{RefKind, objects_in, sites};
use crate::analysis::{CodeAction, CodeActionKind, FileEdit};
use crate::model::GATEWAY_GROUP;
use crate::syntax::Span;
use crate::topology::Linked;

/// The start of the line holding `offset` (bytes: `offset` need not be a char boundary).
fn line_start(text: &str, offset: usize) -> usize {
    let b = text.as_bytes();
    b[..offset.min(b.len())].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1)
}

/// The end of the line holding `offset`, past its line break.
fn line_end(text: &str, offset: usize) -> usize {
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

/// `HTTPRoutes` → `httproutes`, for a grant's name.
fn plural_lower(kind: &str) -> String {
    let k = kind.to_ascii_lowercase();
    match k.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'o', 'u']) => format!("{stem}ies"),
        _ => format!("{k}s"),
    }
}

/// "Create a ReferenceGrant": for a backendRef into another namespace that no grant opens, the
/// grant that admits this object's kind from its namespace to that backend, appended to the
/// file (it names its own namespace, so it may live anywhere).
pub(super) fn create_grant(world: &Linked, file: &str, text: &str, d: &Diagnostic) -> Option<CodeAction> {
    if d.code != Code::BackendNotPermitted {
        return None;
    }
    let owner =
        objects_in(world, file).into_iter().find(|&id| world.object(id).span.contains_inclusive(d.span.start))?;
    let site = sites(world, owner).into_iter().find(|s| {
        s.kind == RefKind::Backend && s.fields.is_some_and(|f| f.namespace.as_ref().is_some_and(|n| n.span == d.span))
    })?;
    let f = site.fields?;
    let to_ns = f.namespace.as_ref()?.value.as_str();
    let from_ns = world.namespace_of(owner)?;
    let from = world.object(owner).group_kind();
    let to_kind = f.kind.as_ref().map_or("Service", |k| k.value.as_str());
    let to_group = f.group.as_ref().map_or("", |g| g.value.as_str());
    let name = f.name.as_ref().map(|n| n.value.as_str());
    let grant = format!("allow-{from_ns}-{}", plural_lower(&from.kind));
    let quoted = |s: &str| if s.is_empty() { "\"\"".to_owned() } else { s.to_owned() };
    let mut doc = format!(
        "---\napiVersion: {GATEWAY_GROUP}/v1beta1\nkind: ReferenceGrant\nmetadata:\n  name: {grant}\n  namespace: {to_ns}\nspec:\n  from:\n    - group: {}\n      kind: {}\n      namespace: {from_ns}\n  to:\n    - group: {}\n      kind: {to_kind}\n",
        quoted(&from.group),
        from.kind,
        quoted(to_group),
    );
    if let Some(n) = name {
        doc.push_str(&format!("      name: {n}\n"));
    }
    let end = text.len() as u32;
    let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
    Some(CodeAction {
        title: format!("Create ReferenceGrant {to_ns}/{grant} (at the end of this file)"),
        kind: CodeActionKind::QuickFix,
        edits: vec![FileEdit {
            file: world.file_of(owner).path.clone(),
            span: Span::new(end, end),
            new_text: format!("{sep}{doc}"),
        }],
        fixes: Some(Code::BackendNotPermitted),
        preferred: true,
    })
}

/// Every kind the policy may target in the group the reference names (every kind, when none
/// is in that group), for a targetRef whose kind it may not.
pub(super) fn allowed_kinds(world: &Linked, file: &str, d: &Diagnostic) -> Vec<String> {
    if d.code != Code::TargetKindNotAllowed {
        return Vec::new();
    }
    let Some(owner) =
        objects_in(world, file).into_iter().find(|&id| world.object(id).span.contains_inclusive(d.span.start))
    else {
        return Vec::new();
    };
    let Some(kind) = world.policy_kind(owner) else { return Vec::new() };
    let group = sites(world, owner)
        .into_iter()
        .filter_map(|s| s.fields)
        .find(|f| f.kind.as_ref().is_some_and(|k| k.span == d.span))
        .and_then(|f| f.group.as_ref().map(|g| g.value.to_string()));
    let in_group: Vec<&str> = kind
        .targets
        .iter()
        .filter(|t| group.as_deref().is_none_or(|g| t.gk.group == g))
        .map(|t| t.gk.kind.as_str())
        .collect();
    let pool: Vec<&str> =
        if in_group.is_empty() { kind.targets.iter().map(|t| t.gk.kind.as_str()).collect() } else { in_group };
    let mut out: Vec<String> = Vec::new();
    for k in pool {
        if !out.iter().any(|o| o == k) {
            out.push(k.to_owned());
        }
    }
    out
}
