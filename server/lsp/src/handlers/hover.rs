use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverParams};

use super::locate;
use crate::state::View;
use crate::to_proto;

pub fn hover(view: &View, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let Some((path, file, offset)) = locate(view, &p.text_document.uri, p.position) else { return Ok(None) };
    let edit = super::whatif::edit_hover(view, &path, offset);
    let Some(mut h) = analysis::near::hover(&view.snap, view.base.as_ref(), &path, offset).or_else(|| {
        // Anywhere in a policy's spec being edited: what the edit changes, alone.
        edit.as_ref().map(|_| analysis::Hover {
            span: policylens_core::syntax::Span::new(offset, offset),
            markdown: String::new(),
            target: None,
        })
    }) else {
        return Ok(None);
    };
    if let Some(e) = edit {
        if !h.markdown.is_empty() {
            h.markdown.push_str("\n\n");
        }
        h.markdown.push_str(&e);
    }
    let actions =
        view.caps.hover_actions.then(|| to_proto::hover_actions(h.target.as_deref(), &p.text_document.uri, p.position));
    let mut hover = to_proto::hover(view, file, h);
    if let (Some(Some(links)), tower_lsp_server::ls_types::HoverContents::Markup(m)) = (actions, &mut hover.contents) {
        m.value.push_str(&links);
    }
    Ok(Some(hover))
}
