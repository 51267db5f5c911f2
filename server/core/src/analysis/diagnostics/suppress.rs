//! What is reported: the config's per-code severities, then `# policylens: ignore[...]`
//! comments; ignore comments that silence nothing are reported themselves.

use crate::catalog::Level;
use crate::diagnostic::{Code, Diagnostic, Severity, Suppressed};
use crate::source::{SourceFile, SuppressionScope};
use crate::workspace::ConfigState;

/// Applies the config's severities and the file's ignore comments to its diagnostics. With
/// `local` (one file analysed against an older full analysis), comments naming codes that
/// only the full analysis computes are not judged unused.
pub(super) fn apply(
    config: &ConfigState,
    file: &SourceFile,
    diags: Vec<Diagnostic>,
    local: bool,
) -> (Vec<Diagnostic>, Vec<Suppressed>) {
    let levels = &config.config.diagnostics;
    let level = |code: Code| levels.get(code.as_str()).copied();
    let mut kept = Vec::with_capacity(diags.len());
    let mut suppressed = Vec::new();
    let comments = &file.suppressions;
    let mut used = vec![false; comments.iter().map(|c| c.codes.len()).sum()];
    for mut d in diags {
        match level(d.code) {
            Some(Level::Off) => continue,
            // A finding whose world is not closed stays information at most: the config may
            // lower it, not raise it (docs/semantics.md §6.1).
            Some(l) if d.unknown.is_some() => d.severity = d.severity.max(severity(l)),
            Some(l) => d.severity = severity(l),
            None => {}
        }
        if comments.is_empty() {
            kept.push(d);
            continue;
        }
        let line = file.line_index().line_of(d.span.start);
        let mut slot = 0;
        let mut by = None;
        for c in comments.iter() {
            let applies = match c.scope {
                SuppressionScope::File => true,
                SuppressionScope::Line(l) => l == line,
            };
            for (i, (code, _)) in c.codes.iter().enumerate() {
                if by.is_none() && applies && code == d.code.as_str() {
                    used[slot + i] = true;
                    by = Some(c);
                }
            }
            slot += c.codes.len();
        }
        match by {
            Some(c) => suppressed.push(Suppressed { justification: file.slice(c.span).to_owned(), diagnostic: d }),
            None => kept.push(d),
        }
    }
    let mut slot = 0;
    for c in comments.iter() {
        if c.codes.is_empty() {
            kept.push(Diagnostic::new(
                &file.path,
                c.span,
                Code::UnusedSuppression,
                "a bare `ignore` silences nothing: name the codes, e.g. `# policylens: ignore[target-not-found]`",
            ));
        }
        for (i, (code, span)) in c.codes.iter().enumerate() {
            let known = Code::ALL.iter().find(|k| k.as_str() == code);
            let message = match known {
                None => Some(format!("`{code}` is not a policylens diagnostic code")),
                Some(k) if !(used[slot + i] || local && k.is_workspace_wide()) => {
                    Some(format!("no `{code}` diagnostic here to suppress: remove `{code}` from this comment"))
                }
                Some(_) => None,
            };
            if let Some(m) = message {
                let mut d = Diagnostic::new(&file.path, *span, Code::UnusedSuppression, m);
                match level(Code::UnusedSuppression) {
                    Some(Level::Off) => continue,
                    Some(l) => d.severity = severity(l),
                    None => {}
                }
                kept.push(d);
            }
        }
        slot += c.codes.len();
    }
    (kept, suppressed)
}

fn severity(l: Level) -> Severity {
    match l {
        Level::Error => Severity::Error,
        Level::Warning => Severity::Warning,
        Level::Information => Severity::Information,
        Level::Hint | Level::Off => Severity::Hint,
    }
}
