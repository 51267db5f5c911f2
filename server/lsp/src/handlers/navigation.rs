use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, ReferenceParams};

use super::locate;
use crate::state::Ctx;
use crate::to_proto;

pub fn definition(ctx: &Ctx, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
    let p = params.text_document_position_params;
    let Some((path, _, offset)) = locate(ctx, &p.text_document.uri, p.position) else { return Ok(None) };
    let locs: Vec<Location> = analysis::near::definition(&ctx.snap, ctx.base.as_ref(), &path, offset)
        .iter()
        .filter_map(|l| to_proto::location(ctx, &l.file, l.span))
        .collect();
    Ok((!locs.is_empty()).then_some(GotoDefinitionResponse::Array(locs)))
}

pub fn references(ctx: &Ctx, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let p = params.text_document_position;
    let Some((path, _, offset)) = locate(ctx, &p.text_document.uri, p.position) else { return Ok(None) };
    let locs: Vec<Location> = analysis::references(&ctx.snap, &path, offset, params.context.include_declaration)
        .iter()
        .filter_map(|l| to_proto::location(ctx, &l.file, l.span))
        .collect();
    Ok(Some(locs))
}
