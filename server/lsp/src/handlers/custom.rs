//! Custom requests: `policylens/explain`, `policylens/status`, `policylens/graph` return the
//! CLI's JSON; `workspace/textDocumentContent` the YAML of a live cluster's object. Tests only: `policylens/debugPanic` panics inside a handler,
//! `policylens/debugDocument` returns a document's text as the analysis sees it.

use serde::Deserialize;
use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;

use policylens_core::effective;
use policylens_core::topology::{PathLimit, TargetError};
use tower_lsp_server::jsonrpc::Error;

use super::failed;
use crate::state::View;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainParams {
    /// `Kind[.group]/[namespace/]name[#section]` (docs/semantics.md §2.1).
    #[serde(default)]
    pub target: Option<String>,
    /// Instead of `target`: the object (or the section, or what a reference names) at this
    /// place of a document, as an editor command asks for "the object under the cursor".
    #[serde(default)]
    pub text_document: Option<tower_lsp_server::ls_types::TextDocumentIdentifier>,
    #[serde(default)]
    pub position: Option<tower_lsp_server::ls_types::Position>,
    /// `text`: answer `{target, text}`, the readable report `policylens explain` prints (what
    /// the editors show); otherwise the JSON of `explain --format json`.
    #[serde(default)]
    pub format: Option<String>,
}

/// The answer in the format asked for.
fn explained(ex: effective::Explanation, format: Option<&str>) -> Result<Value> {
    if format == Some("text") {
        let text =
            policylens_core::analysis::explain_text::render(&ex, &policylens_core::analysis::explain_text::Plain);
        return Ok(serde_json::json!({"target": ex.target, "text": text}));
    }
    serde_json::to_value(ex).map_err(|e| failed(e.to_string()))
}

/// `policylens explain --format json` for one target.
pub fn explain(view: &View, params: ExplainParams) -> Result<Value> {
    let world = view.snap.world();
    if let (Some(doc), Some(pos)) = (&params.text_document, params.position) {
        let path = crate::from_proto::path(&doc.uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
        let file = view.snap.source(&path).ok_or_else(|| failed(format!("{path} is not in the workspace")))?;
        let offset = crate::from_proto::offset(file, pos, view.enc());
        let nodes = policylens_core::analysis::explain_nodes_at(&view.snap, &path, offset);
        let mut each: Vec<Value> = Vec::new();
        for node in nodes {
            let ex = effective::explain(world, view.snap.effective(), node, PathLimit::default());
            each.push(explained(ex, params.format.as_deref())?);
        }
        return match each.len() {
            0 => Err(failed("no Kubernetes object at this position".to_owned())),
            1 => Ok(each.remove(0)),
            // A policy: each of its targets, the texts one after the other.
            _ if params.format.as_deref() == Some("text") => {
                let targets: Vec<Value> = each.iter().map(|e| e["target"].clone()).collect();
                let texts: Vec<&str> = each.iter().filter_map(|e| e["text"].as_str()).collect();
                Ok(serde_json::json!({"target": targets[0], "targets": targets, "text": texts.join("\n\n")}))
            }
            _ => Ok(Value::Array(each)),
        };
    }
    let Some(target) = params.target.as_deref().map(str::trim) else {
        return Err(Error::invalid_params("give `target`, or `textDocument` and `position`"));
    };
    if target.is_empty() {
        return Err(Error::invalid_params("`target` is empty"));
    }
    let node = match world.topology.resolve_target(world, target) {
        Ok(node) => node,
        Err(TargetError::Malformed) => {
            return Err(Error::invalid_params(format!("`{target}` {}", TargetError::Malformed)));
        }
        Err(e) => return Err(failed(e.to_string())),
    };
    let ex = effective::explain(world, view.snap.effective(), node, PathLimit::default());
    explained(ex, params.format.as_deref())
}

/// `policylens status --format json`.
pub fn status(view: &View) -> Result<Value> {
    let report = view.snap.effective().report(view.snap.world());
    serde_json::to_value(report).map_err(|e| failed(e.to_string()))
}

#[derive(Debug, Default, Deserialize)]
pub struct GraphParams {
    /// `dot` (default), `mermaid` or `json`.
    #[serde(default)]
    pub format: Option<String>,
    /// `policylens graph --focus REF`: one node's neighbourhood.
    #[serde(default)]
    pub focus: Option<String>,
}

/// `policylens graph`: `{"format": "dot"|"mermaid"|"json", "graph": TEXT or the JSON}`.
pub fn graph(view: &View, params: GraphParams) -> Result<Value> {
    use policylens_core::analysis::graph;
    let world = view.snap.world();
    let focus = match params.focus.as_deref() {
        None => None,
        Some(text) => match world.topology.resolve_target(world, text) {
            Ok(n) => Some(n),
            Err(e @ TargetError::Malformed) => return Err(failed(format!("`{text}` {e}"))),
            Err(e) => return Err(failed(e.to_string())),
        },
    };
    let g = graph::build(world, view.snap.effective(), focus);
    let (format, out) = match params.format.as_deref().unwrap_or("dot") {
        "dot" => ("dot", Value::String(graph::dot(&g))),
        "mermaid" => ("mermaid", Value::String(graph::mermaid(&g))),
        "json" => ("json", serde_json::to_value(&g).map_err(|e| failed(e.to_string()))?),
        other => return Err(failed(format!("unknown graph format `{other}`: use `dot`, `mermaid` or `json`"))),
    };
    Ok(serde_json::json!({ "format": format, "graph": out }))
}

#[derive(Debug, Deserialize)]
pub struct DocumentParams {
    pub uri: tower_lsp_server::ls_types::Uri,
}

/// Test-only: the text the analysis sees for a document, and its version if open, so tests
/// can check that edits were applied exactly and in order.
pub fn debug_document(view: &View, params: DocumentParams) -> Result<Value> {
    let path = crate::from_proto::path(&params.uri);
    let text = path.as_deref().and_then(|p| view.snap.source(p)).map(|f| f.text().to_owned());
    let version = path.as_deref().and_then(|p| view.open.get(p)).map(|o| o.version);
    Ok(serde_json::json!({ "text": text, "version": version }))
}

/// Enabled only with `POLICYLENS_TEST_PANIC=1`: lets tests check invariant 7 end to end.
pub fn debug_panic() -> Result<Value> {
    panic!("policylens/debugPanic: deliberate panic (POLICYLENS_TEST_PANIC=1)")
}

#[derive(Debug, Deserialize)]
pub struct ContentParams {
    pub uri: tower_lsp_server::ls_types::Uri,
}

/// `workspace/textDocumentContent`: a live cluster object's YAML, `{text}`; an error for a
/// URI that names no object the cluster holds (any more).
pub fn text_document_content(view: &View, params: ContentParams) -> Result<Value> {
    let file = crate::cluster_doc::path(&params.uri).and_then(|p| view.snap.source(&p).map(|f| f.text().to_owned()));
    match file {
        Some(json) => Ok(serde_json::json!({"text": crate::cluster_doc::render(&json).text})),
        None => Err(super::failed(format!("policylens: {} is not an object of the live cluster", params.uri.as_str()))),
    }
}

/// What is at a location, for a list to choose from: the object there as a §2.1 reference
/// (`BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-pay`), else `file:line`.
pub fn label_at(view: &View, loc: &tower_lsp_server::ls_types::Location) -> String {
    let at = || {
        let path = crate::from_proto::path(&loc.uri)?;
        let file = view.snap.source(&path)?;
        let offset = crate::from_proto::offset(file, loc.range.start, view.enc());
        let world = view.snap.world();
        let id = world.objects_of_file(&path).find(|&id| world.object(id).span.contains_inclusive(offset))?;
        Some(world.key(id).to_string())
    };
    at().unwrap_or_else(|| {
        let name = loc.uri.path().as_str().rsplit('/').next().unwrap_or("").to_owned();
        format!("{name}:{}", loc.range.start.line + 1)
    })
}
