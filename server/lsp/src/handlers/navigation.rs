use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    DocumentHighlight, DocumentHighlightKind, DocumentHighlightParams, GotoDefinitionParams, GotoDefinitionResponse,
    Location, ReferenceParams,
};

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

/// The places in this document that name what the cursor is on: its declaration (written)
/// and its references (read), so that `checkout` is not marked inside `checkout-pay` as the
/// editor's word match would. Asked at every move of the cursor: right after an edit, from the
/// file's partial world (`analysis::near`), never a whole world per keystroke.
pub fn highlights(view: &View, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
    let p = params.text_document_position_params;
    let Some((path, file, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    let marks = analysis::near::highlights(&view.snap, view.base.as_ref(), &path, offset)
        .into_iter()
        .map(|(span, declaration)| DocumentHighlight {
            range: to_proto::range(file, span, view.enc()),
            kind: Some(if declaration { DocumentHighlightKind::WRITE } else { DocumentHighlightKind::READ }),
        })
        .collect();
    Ok(Some(marks))
}
