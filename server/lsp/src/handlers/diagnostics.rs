//! Diagnostics: pushed (debounced) after every change, and pulled with result ids.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    Diagnostic, DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FullDocumentDiagnosticReport, RelatedFullDocumentDiagnosticReport, RelatedUnchangedDocumentDiagnosticReport,
    UnchangedDocumentDiagnosticReport, Uri,
};

use super::run;
use crate::from_proto;
use crate::state::{Ctx, Shared};
use crate::to_proto;

/// A short pause after the first change of a burst. Bursts longer than this coalesce anyway:
/// changes that arrive while diagnostics are computed are folded into the next computation
/// (the watch channel keeps only "changed"), so the last state is never dropped.
const DEBOUNCE: Duration = Duration::from_millis(2);

/// A stable id for a set of diagnostics: equal sets get equal ids, so a pull of an unchanged
/// file is answered `unchanged`.
pub fn result_id(items: &[Diagnostic]) -> String {
    let mut h = DefaultHasher::new();
    serde_json::to_string(items).unwrap_or_default().hash(&mut h);
    format!("{:016x}", h.finish())
}

struct Computed {
    path: Arc<str>,
    uri: Option<Uri>,
    version: Option<i32>,
    open: bool,
    items: Vec<Diagnostic>,
    id: String,
}

fn compute(ctx: &Ctx) -> Vec<Computed> {
    ctx.snap
        .diagnostics()
        .keys()
        .map(|path| {
            let items = to_proto::file_diagnostics(ctx, path);
            let open = ctx.open.get(path);
            Computed {
                path: path.clone(),
                uri: to_proto::uri(ctx, path),
                version: open.map(|o| o.version),
                open: open.is_some(),
                id: result_id(&items),
                items,
            }
        })
        .collect()
}

/// What was last pushed for a file (only non-empty sets are remembered).
struct Pushed {
    uri: Uri,
    id: String,
}

/// The push loop: waits for the first index, then after every change (debounced) publishes
/// the files whose diagnostic set changed. It always recomputes from the latest snapshot, so
/// the last state is never dropped, and unchanged files are never republished.
pub async fn publisher(shared: Arc<Shared>) {
    let mut changes = shared.changes.subscribe();
    let mut indexed = shared.indexed.subscribe();
    // Before the first walk ends, targets look missing: publishing then would flicker.
    if indexed.wait_for(|v| *v).await.is_err() {
        return;
    }
    let mut pushed: HashMap<Arc<str>, Pushed> = HashMap::new();
    let mut open_ids: HashMap<Arc<str>, String> = HashMap::new();
    loop {
        tokio::time::sleep(DEBOUNCE).await;
        changes.borrow_and_update();
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let ctx = shared.ctx();
        let caps = ctx.caps.clone();
        let open = ctx.open.clone();
        let Ok(computed) = run("publishDiagnostics", move || Ok(compute(&ctx))).await else {
            // Logged by `run`. Keep what was published (clearing it would flicker) and try
            // again on the next change.
            if changes.changed().await.is_err() {
                return;
            }
            continue;
        };
        let empty_id = result_id(&[]);
        let mut seen: HashSet<Arc<str>> = HashSet::with_capacity(computed.len());
        let mut open_changed = false;
        let mut new_open_ids = HashMap::new();
        for c in computed {
            seen.insert(c.path.clone());
            if c.open {
                if open_ids.get(&c.path) != Some(&c.id) {
                    open_changed = true;
                }
                new_open_ids.insert(c.path.clone(), c.id.clone());
            }
            let Some(uri) = c.uri else { continue };
            // Pull-capable clients get open files' diagnostics by pull; pushing them too would
            // show every diagnostic twice (Neovim keeps the two apart).
            let (items, id) =
                if caps.pull_diagnostics && c.open { (Vec::new(), empty_id.clone()) } else { (c.items, c.id) };
            let prev = pushed.get(&c.path);
            if let Some(p) = prev.filter(|p| p.uri != uri) {
                shared.client.publish_diagnostics(p.uri.clone(), Vec::new(), None).await;
                pushed.remove(&c.path);
            }
            let prev_id = pushed.get(&c.path).map_or(&empty_id, |p| &p.id);
            if *prev_id == id {
                continue;
            }
            shared.client.publish_diagnostics(uri.clone(), items, c.version).await;
            if id == empty_id {
                pushed.remove(&c.path);
            } else {
                pushed.insert(c.path, Pushed { uri, id });
            }
        }
        // Files that no longer have any diagnostic (fixed, deleted, excluded).
        let gone: Vec<Arc<str>> = pushed.keys().filter(|p| !seen.contains(*p)).cloned().collect();
        for path in gone {
            if let Some(p) = pushed.remove(&path) {
                let version = open.get(&path).map(|o| o.version);
                shared.client.publish_diagnostics(p.uri, Vec::new(), version).await;
            }
        }
        if open_ids.keys().any(|p| !new_open_ids.contains_key(p)) {
            open_changed = true;
        }
        open_ids = new_open_ids;
        // Another file's edit can change an open file's diagnostics: ask pulling clients to
        // pull again.
        if open_changed && caps.pull_diagnostics && caps.diagnostic_refresh {
            let client = shared.client.clone();
            tokio::spawn(async move {
                let _ = client.workspace_diagnostic_refresh().await;
            });
        }
        if changes.changed().await.is_err() {
            return;
        }
    }
}

pub async fn pull(shared: Arc<Shared>, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
    // Answer from a complete workspace: before the first walk, every target looks missing.
    let _ = shared.indexed.subscribe().wait_for(|v| *v).await;
    let ctx = shared.ctx();
    run("textDocument/diagnostic", move || {
        let items = from_proto::path(&params.text_document.uri)
            .map(|p| to_proto::file_diagnostics(&ctx, &p))
            .unwrap_or_default();
        let id = result_id(&items);
        let report = if params.previous_result_id.as_deref() == Some(id.as_str()) {
            DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                related_documents: None,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id: id },
            })
        } else {
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id: Some(id), items },
            })
        };
        Ok(DocumentDiagnosticReportResult::Report(report))
    })
    .await
}
