use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{PrepareRenameResponse, RenameParams, TextDocumentPositionParams, WorkspaceEdit};

use super::{failed, locate};
use crate::state::View;
use crate::to_proto;

pub fn prepare_rename(view: &View, p: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
    let Some((path, file, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    Ok(analysis::prepare_rename(&view.snap, &path, offset).map(|(span, placeholder)| {
        PrepareRenameResponse::RangeWithPlaceholder { range: to_proto::range(file, span, view.enc()), placeholder }
    }))
}

pub fn rename(view: &View, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let p = params.text_document_position;
    let Some((path, _, offset)) = locate(view, &p.text_document.uri, p.position) else {
        return Err(failed("policylens does not know this file"));
    };
    match analysis::rename(&view.snap, &path, offset, &params.new_name) {
        // Renaming what the live cluster declares would leave the files pointing at nothing.
        Ok(edits) if edits.iter().any(|e| crate::cluster_doc::is_cluster_path(&e.file)) => {
            Err(failed("it is declared in the live cluster, which policylens only reads: rename it there"))
        }
        Ok(edits) => Ok(Some(to_proto::workspace_edit(view, &edits))),
        Err(msg) => Err(failed(msg)),
    }
}
