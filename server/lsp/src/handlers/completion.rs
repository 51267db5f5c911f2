use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CompletionList, CompletionParams, CompletionResponse};

use super::locate;
use crate::state::View;
use crate::to_proto;

/// Completion at the position in the text as of this request: the snapshot holds every edit
/// the client sent before it, so the offset is that of the just-edited text.
pub fn completion(view: &View, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let p = params.text_document_position;
    let Some((path, file, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    let items: Vec<_> = analysis::near::completions(&view.snap, view.base.as_ref(), &path, offset)
        .into_iter()
        .map(|c| to_proto::completion(view, file, c))
        .collect();
    Ok(Some(CompletionResponse::List(CompletionList { is_incomplete: false, items })))
}
