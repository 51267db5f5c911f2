use std::collections::HashMap;

use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    DocumentSymbolParams, DocumentSymbolResponse, WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use super::document;
use crate::state::View;
use crate::to_proto;

pub fn document_symbols(view: &View, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
    let Some((path, file)) = document(view, &params.text_document.uri) else { return Ok(None) };
    let symbols = analysis::document_symbols(&view.snap, &path);
    if view.caps.hierarchical_symbols {
        let out = symbols.into_iter().map(|s| to_proto::document_symbol(view, file, s)).collect();
        Ok(Some(DocumentSymbolResponse::Nested(out)))
    } else {
        let (mut out, mut rendered) = (Vec::new(), HashMap::new());
        for s in symbols {
            to_proto::symbol_information(view, s, None, &mut rendered, &mut out);
        }
        Ok(Some(DocumentSymbolResponse::Flat(out)))
    }
}

pub fn workspace_symbols(view: &View, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
    let (mut out, mut rendered) = (Vec::new(), HashMap::new());
    for s in analysis::workspace_symbols(&view.snap, &params.query) {
        to_proto::symbol_information(view, s, None, &mut rendered, &mut out);
    }
    Ok(Some(WorkspaceSymbolResponse::Flat(out)))
}
