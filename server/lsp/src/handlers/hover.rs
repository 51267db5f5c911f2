use policylens_core::analysis;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverParams};

use super::locate;
use crate::state::Ctx;
use crate::to_proto;

pub fn hover(ctx: &Ctx, params: HoverParams) -> Result<Option<Hover>> {
    let p = params.text_document_position_params;
    let Some((path, file, offset)) = locate(ctx, &p.text_document.uri, p.position) else { return Ok(None) };
    Ok(analysis::near::hover(&ctx.snap, ctx.base.as_ref(), &path, offset).map(|h| to_proto::hover(ctx, file, h)))
}
