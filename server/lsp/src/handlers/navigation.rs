use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, ReferenceParams};

use super::locate;
use crate::state::View;
use crate::to_proto;

pub fn definition(view: &View, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
    let p = params.text_document_position_params;
    let Some((path, _, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    let locs: Vec<Location> = analysis::near::definition(&view.snap, view.base.as_ref(), &path, offset)
        .iter()
        .filter_map(|l| to_proto::location(view, &l.file, l.span))
        .collect();
    Ok((!locs.is_empty()).then_some(GotoDefinitionResponse::Array(locs)))
}

pub fn references(view: &View, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let p = params.text_document_position;
    let Some((path, _, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    let locs: Vec<Location> = analysis::references(&view.snap, &path, offset, params.context.include_declaration)
        .iter()
        .filter_map(|l| to_proto::location(view, &l.file, l.span))
        .collect();
    Ok(Some(locs))
}
