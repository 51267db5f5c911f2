use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeLens, CodeLensParams};

use super::document;
use crate::state::View;
use crate::to_proto;

pub fn code_lens(view: &View, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let Some((path, file)) = document(view, &params.text_document.uri) else { return Ok(None) };
    let lenses = analysis::code_lenses(&view.snap, &path)
        .into_iter()
        .map(|l| to_proto::code_lens(view, file, &path, l))
        .collect();
    Ok(Some(lenses))
}
