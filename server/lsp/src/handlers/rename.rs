use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{PrepareRenameResponse, RenameParams, TextDocumentPositionParams, WorkspaceEdit};

use super::{failed, locate};
use crate::state::Ctx;
use crate::to_proto;

pub fn prepare_rename(ctx: &Ctx, p: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
    let Some((path, file, offset)) = locate(ctx, &p.text_document.uri, p.position) else { return Ok(None) };
    Ok(analysis::prepare_rename(&ctx.snap, &path, offset).map(|(span, placeholder)| {
        PrepareRenameResponse::RangeWithPlaceholder { range: to_proto::range(file, span, ctx.enc()), placeholder }
    }))
}

pub fn rename(ctx: &Ctx, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let p = params.text_document_position;
    let Some((path, _, offset)) = locate(ctx, &p.text_document.uri, p.position) else {
        return Err(failed("policylens does not know this file"));
    };
    match analysis::rename(&ctx.snap, &path, offset, &params.new_name) {
        Ok(edits) => Ok(Some(to_proto::workspace_edit(ctx, &edits))),
        Err(msg) => Err(failed(msg)),
    }
}
