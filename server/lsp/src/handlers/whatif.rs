//! The what-if in the editor: the code action "Preview removing this policy" (its command is
//! the client's: VS Code opens the report in a read-only preview, the Neovim plugin in a
//! scratch buffer, both through `policylens/without`), the `policylens/without` request (the
//! report of `policylens diff --without` for the policy under a position or for references),
//! and the hover paragraph that says what an unsaved edit of a policy changes against the file
//! on disk. One engine: core's `analysis::diff`.

use std::sync::Arc;

use policylens_core::analysis::diff;
use serde::Deserialize;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{CodeAction, CodeActionKind, Command, Position, Range, TextDocumentIdentifier, Uri};

use super::failed;
use crate::state::View;
use crate::{from_proto, to_proto};

/// The client-side command the code action runs (not in `executeCommandProvider`: VS Code's
/// extension and the Neovim plugin register it; the server answers it too, for other clients).
pub const PREVIEW_WITHOUT: &str = "policylens.previewWithout";

/// The kind of the code action: it inspects, it does not edit.
pub const KIND: &str = "refactor.inspect";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WithoutParams {
    /// The policy whose document holds this position (every policy that document defines).
    #[serde(default)]
    pub text_document: Option<TextDocumentIdentifier>,
    #[serde(default)]
    pub position: Option<Position>,
    /// Or: policies by reference (`Kind[.group]/namespace/name`), every definition of each.
    #[serde(default)]
    pub policies: Vec<String>,
    /// `human` (default: the text `policylens diff --without` prints), `markdown`, or `json`.
    #[serde(default)]
    pub format: Option<String>,
}

/// `policylens/without`: `{"title", "text"}` (or `{"title", "report"}` for `json`).
pub fn without(view: &View, params: WithoutParams) -> Result<Value> {
    let snap = &view.snap;
    let mut removed = Vec::new();
    if let (Some(doc), Some(pos)) = (&params.text_document, params.position) {
        let path = from_proto::path(&doc.uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
        let file = snap.source(&path).ok_or_else(|| failed(format!("{path} is not in the workspace")))?;
        let offset = from_proto::offset(file, pos, view.enc());
        removed = diff::policies_at(snap, &path, offset);
        if removed.is_empty() {
            return Err(failed("no policy at this position".to_owned()));
        }
    }
    if !params.policies.is_empty() {
        removed.extend(diff::resolve_policies(snap, &params.policies).map_err(|e| failed(e.to_string()))?);
    }
    if removed.is_empty() {
        return Err(Error::invalid_params("give `policies`, or `textDocument` and `position`"));
    }
    removed.sort_unstable();
    removed.dedup();
    let mut what = diff::without(snap, &removed, "workspace");
    what.report.map_files(&|f| shown(view, f));
    let title = format!("without {}", what.report.without.join(", "));
    Ok(match params.format.as_deref() {
        Some("json") => {
            json!({"title": title, "report": serde_json::to_value(&what.report).map_err(|e| failed(e.to_string()))?})
        }
        Some("markdown") => json!({"title": title, "text": diff::markdown(&what.report)}),
        _ => json!({"title": title, "text": diff::human(&what.report)}),
    })
}

/// A file as the reports name it: relative to the workspace root it lies in (the CLI's form),
/// never a path of this machine; a file under no root by its name.
fn shown(view: &View, file: &str) -> String {
    let path = std::path::Path::new(file);
    view.roots
        .iter()
        .chain(view.folders.iter())
        .filter_map(|r| path.strip_prefix(r).ok())
        .min_by_key(|rel| rel.as_os_str().len())
        .or_else(|| path.file_name().map(std::path::Path::new))
        .map_or_else(|| file.to_owned(), |rel| rel.to_string_lossy().replace('\\', "/"))
}

/// "Preview removing this policy" on a policy's document that `range` touches.
pub fn preview_action(view: &View, uri: &Uri, range: Range) -> Option<CodeAction> {
    let path = from_proto::path(uri)?;
    let file = view.snap.source(&path)?;
    let offset = from_proto::offset(file, range.start, view.enc());
    let world = view.snap.world();
    let policies = diff::policies_at(&view.snap, &path, offset);
    let &first = policies.first()?;
    let name = world.object(first).name.span;
    let position = to_proto::position(file, name.start, view.enc());
    let key = world.key(first).to_string();
    let args = json!({"textDocument": {"uri": uri}, "position": position, "policy": key});
    Some(CodeAction {
        title: "Preview removing this policy".into(),
        kind: Some(CodeActionKind::new(KIND)),
        command: Some(Command {
            title: format!("Preview removing {key}"),
            command: PREVIEW_WITHOUT.into(),
            arguments: Some(vec![args]),
        }),
        ..Default::default()
    })
}

/// `workspace/executeCommand` of [`PREVIEW_WITHOUT`] for a client that sends it to the server:
/// the report's text.
pub fn execute(view: &View, arguments: &[Value]) -> Result<Value> {
    let params: WithoutParams =
        arguments.first().and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
    without(view, params)
}

/// On a policy whose document holds `offset` in a buffer that differs from the file on disk:
/// what the edit changes against the saved file (`None` when nothing, or when saved).
pub fn edit_hover(view: &View, path: &Arc<str>, offset: u32) -> Option<String> {
    let doc = view.open.get(path)?;
    let now = &view.snap;
    // Only a hover on a policy reads the disk: every other hover answers without I/O.
    let &policy = diff::policies_at(now, path, offset).first()?;
    let text = now.source(path)?.text();
    let disk = std::fs::read_to_string(&**path).ok()?;
    if disk == text {
        return None;
    }
    let saved = doc.saved.get(&disk, |s| s.same_except(now, path), || now.with_file(path, disk.clone()));
    let mut report = diff::edit(&saved, now, path, policy)?;
    report.map_files(&|f| shown(view, f));
    Some(diff::edit_markdown(&report))
}
