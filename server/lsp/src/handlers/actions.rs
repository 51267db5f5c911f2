use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeActionOrCommand, CodeActionParams, CodeActionResponse};

use super::document;
use crate::state::View;
use crate::{from_proto, to_proto};

/// Core's actions, each quick fix carrying the diagnostics it fixes.
pub fn code_actions(view: &View, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let Some((path, file)) = document(view, &params.text_document.uri) else { return Ok(None) };
    let span = from_proto::span(file, params.range, view.enc());
    let touching: Vec<_> = view
        .snap
        .diagnostics_for(&path)
        .iter()
        .filter(|d| d.span.start <= span.end && span.start <= d.span.end)
        .collect();

    let actions = analysis::code_actions(&view.snap, &path, span);

    let only = params.context.only.unwrap_or_default();
    let mut out = Vec::new();
    for a in actions {
        let lsp_diags = match a.fixes {
            Some(code) => {
                touching.iter().filter(|d| d.code == code).map(|d| to_proto::diagnostic(view, file, d)).collect()
            }
            None => Vec::new(),
        };
        let action = to_proto::code_action(view, a, lsp_diags);
        let kind = action.kind.as_ref().map(|k| k.as_str()).unwrap_or("");
        // `only: ["refactor"]` admits `refactor.rewrite`.
        if !only.is_empty() && !only.iter().any(|o| kind == o.as_str() || kind.starts_with(&format!("{}.", o.as_str())))
        {
            continue;
        }
        out.push(CodeActionOrCommand::CodeAction(action));
    }
    // The what-if of deleting the policy here, after every fix.
    let inspect = only.is_empty() || only.iter().any(|o| super::whatif::KIND.starts_with(o.as_str()));
    if inspect && let Some(a) = super::whatif::preview_action(view, &params.text_document.uri, params.range) {
        out.push(CodeActionOrCommand::CodeAction(a));
    }
    Ok(Some(out))
}
