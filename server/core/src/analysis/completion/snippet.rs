//! A whole new target reference: one snippet per (group, kind) the policy kind allows, its name
//! a choice of the objects of that kind in the policy's namespace.
//!
//! Insert texts carry their own indentation (absolute columns): clients must insert them as
//! they are (LSP `InsertTextMode.asIs`), not re-indent them.

use super::site::Form;
use super::values::{allowed, group_text};
use super::{CompletionInput, column};
use crate::analysis::refs::RefKind;
use crate::analysis::{CompletionItem, CompletionKind};

/// At most this many names in the name choice; beyond it the user types.
const MAX_CHOICES: usize = 20;

pub(super) fn new_target_ref(input: &CompletionInput<'_>, form: Form) -> Vec<CompletionItem> {
    let replace = input.cursor.span;
    let here = column(input.text, replace.start as usize);
    let pad = |n: usize| format!("\n{}", " ".repeat(n));
    allowed(input, RefKind::PolicyTarget)
        .into_iter()
        .enumerate()
        .map(|(i, gk)| {
            let lines = [
                format!("group: {}", group_text(&gk.group)),
                format!("kind: {}", gk.kind),
                format!("name: {}", name_placeholder(input, &gk)),
            ];
            let insert_text = match form {
                Form::Item | Form::RefLine => lines.join(&pad(here)),
                Form::ListLine => format!("- {}", lines.join(&pad(here + 2))),
                Form::AfterListKey { key_col } => {
                    format!("{}- {}", pad(key_col), lines.join(&pad(key_col + 2)))
                }
                Form::AfterRefKey { key_col } => format!("{}{}", pad(key_col + 2), lines.join(&pad(key_col + 2))),
            };
            let group = if gk.group.is_empty() { "core" } else { gk.group.as_str() };
            let what =
                if matches!(form, Form::AfterRefKey { .. } | Form::RefLine) { "targetRef" } else { "targetRefs entry" };
            CompletionItem {
                label: gk.kind.to_string(),
                kind: CompletionKind::Snippet,
                detail: Some(format!("{what} · {group}")),
                label_detail: Some(" reference".into()),
                documentation: None,
                insert_text,
                is_snippet: true,
                replace,
                sort_text: format!("{i:03}"),
            }
        })
        .collect()
}

/// `${1|edge,internal|}` with the names of the objects of `gk` in the policy's namespace
/// (same file first), or `${1:name}` when there are none.
fn name_placeholder(input: &CompletionInput<'_>, gk: &crate::model::GroupKind) -> String {
    let w = input.world;
    let ns = input.doc.namespace.as_deref();
    let mut names: Vec<(bool, &str)> = w
        .objects_of_everywhere(gk)
        .into_iter()
        .filter(|&(w, id)| w.namespace_of(id).is_none_or(|n| Some(n) == ns))
        .map(|(w, id)| (&*w.file_of(id).path != input.file, w.object(id).name.value.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return "${1:name}".into();
    }
    let choices: Vec<String> = names.iter().take(MAX_CHOICES).map(|(_, n)| escape_choice(n)).collect();
    format!("${{1|{}|}}", choices.join(","))
}

/// Snippet choice text: `\`, `,`, `|` and `$` escaped.
fn escape_choice(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | ',' | '|' | '$' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
