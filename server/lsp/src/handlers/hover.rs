use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverParams};

use super::locate;
use crate::state::View;
use crate::to_proto;

pub fn hover(view: &View, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let Some((path, file, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    let Some(h) = analysis::near::hover(&view.snap, view.base.as_ref(), &path, offset) else { return Ok(None) };
    let actions =
        view.caps.hover_actions.then(|| to_proto::hover_actions(h.target.as_deref(), &p.text_document.uri, p.position));
    let mut hover = to_proto::hover(view, file, h);
    if let (Some(Some(links)), tower_lsp_server::ls_types::HoverContents::Markup(m)) = (actions, &mut hover.contents) {
        m.value.push_str(&links);
    }
    Ok(Some(hover))
}
