//! Request handlers. Each runs on a blocking thread over one [`View`] taken when the request
//! arrived; a panic inside is caught, logged and answered with an error (invariant 7).

pub mod actions;
pub mod completion;
pub mod custom;
pub mod diagnostics;
pub mod hover;
pub mod lens;
pub mod navigation;
pub mod rename;
pub mod symbols;
pub mod whatif;

use std::borrow::Cow;
use std::sync::Arc;

use policylens_core::workspace::SourceFile;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::{Position, Uri};

use crate::from_proto;
use crate::panics::panic_message;
use crate::state::View;

/// LSP's `RequestFailed`: the request was valid but could not be carried out.
pub const REQUEST_FAILED: i64 = -32803;

pub fn failed(message: impl Into<Cow<'static, str>>) -> Error {
    Error { code: ErrorCode::ServerError(REQUEST_FAILED), message: message.into(), data: None }
}

/// Runs `f` off the async workers; a panic becomes an `InternalError` answer.
pub async fn run<T, F>(method: &'static str, f: F) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => {
            let msg = if e.is_panic() { panic_message(e.into_panic()) } else { e.to_string() };
            tracing::error!(target: "policylens", "{method} failed: {msg}");
            Err(Error {
                code: ErrorCode::InternalError,
                message: format!("policylens: internal error in {method}: {msg}").into(),
                data: None,
            })
        }
    }
}

/// The workspace path, file and byte offset a text position names, when the file is known.
pub fn locate<'a>(view: &'a View, uri: &Uri, pos: Position) -> Option<(Arc<str>, &'a SourceFile, u32)> {
    let path = from_proto::path(uri)?;
    let file = view.snap.source(&path)?;
    let offset = from_proto::offset(file, pos, view.enc());
    Some((path, file, offset))
}

/// The workspace path and file a document URI names.
pub fn document<'a>(view: &'a View, uri: &Uri) -> Option<(Arc<str>, &'a SourceFile)> {
    let path = from_proto::path(uri)?;
    let file = view.snap.source(&path)?;
    Some((path, file))
}
