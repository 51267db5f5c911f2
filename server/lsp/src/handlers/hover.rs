use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverParams};

use super::locate;
use crate::state::View;
use crate::to_proto;

pub fn hover(view: &View, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let Some((path, file, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    Ok(analysis::near::hover(&view.snap, view.base.as_ref(), &path, offset).map(|h| to_proto::hover(view, file, h)))
}
