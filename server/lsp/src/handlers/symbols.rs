use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    DocumentSymbolParams, DocumentSymbolResponse, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use super::document;
use crate::state::Ctx;
use crate::to_proto;

pub fn document_symbols(ctx: &Ctx, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
    let Some((path, file)) = document(ctx, &params.text_document.uri) else { return Ok(None) };
    let symbols = analysis::document_symbols(&ctx.snap, &path);
    if ctx.caps.hierarchical_symbols {
        let out = symbols.into_iter().map(|s| to_proto::document_symbol(ctx, file, s)).collect();
        Ok(Some(DocumentSymbolResponse::Nested(out)))
    } else {
        let mut out = Vec::new();
        for s in symbols {
            to_proto::symbol_information(ctx, s, None, &mut out);
        }
        Ok(Some(DocumentSymbolResponse::Flat(out)))
    }
}

pub fn workspace_symbols(ctx: &Ctx, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
    let mut out = Vec::new();
    for s in analysis::workspace_symbols(&ctx.snap, &params.query) {
        to_proto::symbol_information(ctx, s, None, &mut out);
    }
    Ok(Some(WorkspaceSymbolResponse::Flat(out)))
}
