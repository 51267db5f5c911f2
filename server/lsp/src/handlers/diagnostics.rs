//! Diagnostics, pushed and pulled, in two tiers.
//!
//! - The **full** pass analyses the whole workspace (tens of milliseconds at 10k objects)
//!   after a change, publishes every file whose diagnostics changed and becomes the *base*.
//! - The **open-file** pass answers each keystroke in an open document at once: the file's
//!   syntax and reference diagnostics from its partial world cut from the base
//!   (`diagnostics::local`), plus the base's workspace-wide ones (status warnings) moved
//!   through the edits made since (`diagnostics::carry`). When the full pass catches up it
//!   publishes the exact set, which differs only where the edit really changed the effective
//!   policies, so nothing blinks while typing.
//!
//! Both publish through one gate that never sends a file's diagnostics for an older version
//! of an open document than it already sent.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use policylens_core::analysis::diagnostics::{self as core_diagnostics, Diagnostic as CoreDiagnostic};
use policylens_core::syntax::ByteEdit;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    Diagnostic, DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FullDocumentDiagnosticReport, RelatedFullDocumentDiagnosticReport, RelatedUnchangedDocumentDiagnosticReport,
    UnchangedDocumentDiagnosticReport, Uri,
};

use super::run;
use crate::from_proto;
use crate::state::{OpenDoc, Pushed, Shared, View};
use crate::to_proto;

/// The full pass waits for this long a pause in the changes (open documents do not wait:
/// the open-file pass answers them), so that a burst of keystrokes costs one full analysis
/// and does not compete with the keystrokes for the CPU. Changes that arrive meanwhile or
/// while it runs are folded into the next pass (the watch channel keeps only "changed"), so
/// the last state is never dropped.
const QUIET: Duration = Duration::from_millis(50);
/// ... but changes that never pause (a tool rewriting files) still get a full pass this often.
const MAX_WAIT: Duration = Duration::from_millis(1500);

/// A stable id for a set of diagnostics: equal sets get equal ids, so a pull of an unchanged
/// file is answered `unchanged`.
pub fn result_id(items: &[Diagnostic]) -> String {
    let mut h = DefaultHasher::new();
    serde_json::to_string(items).unwrap_or_default().hash(&mut h);
    format!("{:016x}", h.finish())
}

/// One file's diagnostics ready to publish.
struct Outgoing {
    path: Arc<str>,
    uri: Uri,
    items: Vec<Diagnostic>,
    doc: Option<(u64, i32)>,
}

/// Publishes unless the client already has this set, or has a newer version's.
async fn publish(shared: &Shared, pushed: &mut HashMap<Arc<str>, Pushed>, out: Outgoing) {
    let id = result_id(&out.items);
    if let Some(p) = pushed.get(&out.path) {
        if p.uri != out.uri {
            shared.client.publish_diagnostics(p.uri.clone(), Vec::new(), None).await;
        } else {
            let older = matches!((p.doc, out.doc), (Some((o1, v1)), Some((o2, v2))) if o1 == o2 && v2 < v1);
            // An unchanged set is not resent, even for a new version: a keystroke that
            // changes no diagnostic publishes nothing.
            if older || p.id == id {
                return;
            }
        }
    } else if out.items.is_empty() {
        // A clean file the client never heard about.
        return;
    }
    shared.client.publish_diagnostics(out.uri.clone(), out.items, out.doc.map(|(_, v)| v)).await;
    pushed.insert(out.path, Pushed { uri: out.uri, id, doc: out.doc });
}

/// Whether the client pulls open documents' diagnostics: pushing them too would show every
/// diagnostic twice (Neovim keeps the two apart), so they are pushed empty.
fn pulled(view: &View, path: &str) -> bool {
    view.caps.pull_diagnostics && view.open.contains_key(path)
}

/// The full pass: waits for the first index, then after every change (debounced) analyses
/// the whole workspace, publishes the files whose diagnostics changed and installs the
/// result as the base of the open-file pass.
pub async fn publisher(shared: Arc<Shared>) {
    let mut changes = shared.changes.subscribe();
    let mut indexed = shared.indexed.subscribe();
    // Before the first walk ends, targets look missing: publishing then would flicker.
    if indexed.wait_for(|e| *e > 0).await.is_err() {
        return;
    }
    let mut open_ids: HashMap<Arc<str>, String> = HashMap::new();
    loop {
        // The first pass (the base of everything else) starts at once.
        if shared.base().is_some() {
            let start = tokio::time::Instant::now();
            loop {
                match tokio::time::timeout(QUIET, changes.changed()).await {
                    Err(_) => break,
                    Ok(Err(_)) => return,
                    Ok(Ok(())) if start.elapsed() >= MAX_WAIT => break,
                    Ok(Ok(())) => {}
                }
            }
        }
        changes.borrow_and_update();
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        // The edits since the last pass freed its world: hand those pages back first, so this
        // pass's world reuses them instead of growing the heap beside them.
        let _ = tokio::task::spawn_blocking(crate::memory::release_free_pages).await;
        // A root added since (a document that brought its own) is being read: before it lands,
        // the files it holds look missing to every reference into them. Checked right before
        // the view is taken, with no await between (one async thread): a document opened
        // during the await above may have brought a root.
        shared.ready().await;
        let view = shared.view();
        let computing = view.clone();
        // The base (its world detached, the cross-namespace index built) is made on the same
        // blocking thread: milliseconds of work stay off the async workers serving requests.
        let work = move || Ok((full(&computing), computing.snap.as_base()));
        let Ok((computed, base)) = run("publishDiagnostics", work).await else {
            // Logged by `run`. Keep what was published (clearing it would flicker) and try
            // again on the next change.
            if changes.changed().await.is_err() {
                return;
            }
            continue;
        };
        shared.set_base(View { snap: base, base: None, ..view.clone() });
        // The previous base and this pass's world are gone: hand their pages back.
        tokio::task::spawn_blocking(crate::memory::release_free_pages);
        let current = shared.lock().open();
        let mut pushed = shared.pushed.lock().await;
        let mut seen: HashSet<Arc<str>> = HashSet::with_capacity(computed.len());
        let mut open_changed = false;
        let mut new_open_ids = HashMap::new();
        for (path, items) in computed {
            seen.insert(path.clone());
            let doc = view.open.get(&path);
            if doc.is_some() {
                let id = result_id(&items);
                open_changed |= open_ids.get(&path) != Some(&id);
                new_open_ids.insert(path.clone(), id);
            }
            // Edited since this pass began: the open-file pass answers from the new base.
            if doc.is_some_and(|d| current.get(&path).is_none_or(|c| c.version != d.version || c.opening != d.opening))
            {
                continue;
            }
            let Some(uri) = to_proto::uri(&view, &path) else { continue };
            let items = if pulled(&view, &path) { Vec::new() } else { items };
            let doc = doc.map(|d| (d.opening, d.version));
            publish(&shared, &mut pushed, Outgoing { path, uri, items, doc }).await;
        }
        // Files that no longer have any diagnostic (fixed, deleted, excluded).
        let gone: Vec<Arc<str>> = pushed.keys().filter(|p| !seen.contains(*p)).cloned().collect();
        for path in gone {
            if let Some(p) = pushed.remove(&path)
                && p.id != result_id(&[])
            {
                let version = current.get(&path).map(|o| o.version);
                shared.client.publish_diagnostics(p.uri, Vec::new(), version).await;
            }
        }
        drop(pushed);
        crate::status::notify(&shared).await;
        if open_ids.keys().any(|p| !new_open_ids.contains_key(p)) {
            open_changed = true;
        }
        open_ids = new_open_ids;
        // Another file's edit can change an open file's diagnostics: ask pulling clients to
        // pull again.
        if open_changed && view.caps.pull_diagnostics && view.caps.diagnostic_refresh {
            let client = shared.client.clone();
            tokio::spawn(async move {
                let _ = client.workspace_diagnostic_refresh().await;
            });
        }
        // Code lenses count what the whole workspace attaches: an editor that asked while the
        // workspace was being indexed (the file not read yet: no lenses) or before another
        // file's edit asks again. VS Code otherwise keeps the empty answer until the file is
        // edited.
        if view.caps.code_lens_refresh {
            let client = shared.client.clone();
            tokio::spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        }
        if changes.changed().await.is_err() {
            return;
        }
    }
}

/// Every file's diagnostics in LSP form: the files with any, and every open document.
fn full(view: &View) -> Vec<(Arc<str>, Vec<Diagnostic>)> {
    // Findings on the live cluster's objects are `check --cluster`'s: an editor shows the files'.
    // A workspace read from above the client's folder reports that folder's files (and the
    // open documents), as `check PATH` reports under its PATH.
    let with_any =
        view.snap.diagnostics().keys().filter(|p| !crate::cluster_doc::is_cluster_path(p) && view.reports(p));
    let open = view.open.keys().filter(|p| !view.snap.diagnostics().contains_key(*p));
    with_any.chain(open).map(|path| (path.clone(), to_proto::file_diagnostics(view, path))).collect()
}

/// The open-file pass: after every change to an open document, and whenever a new base
/// arrives, publishes the documents that changed since it last looked.
pub async fn open_files(shared: Arc<Shared>) {
    let mut changes = shared.changes.subscribe();
    let mut bases = shared.base_changed.subscribe();
    let mut done: HashMap<Arc<str>, (u64, i32, u64)> = HashMap::new();
    loop {
        tokio::select! {
            r = changes.changed() => if r.is_err() { return },
            r = bases.changed() => if r.is_err() { return },
        }
        changes.borrow_and_update();
        let base_gen = *bases.borrow_and_update();
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let Some(base) = shared.base() else { continue };
        // Until a root being read lands, the full pass after it answers (see `publisher`).
        if !shared.is_ready() {
            continue;
        }
        let view = shared.view();
        done.retain(|p, _| view.open.contains_key(p));
        let todo: Vec<(Arc<str>, OpenDoc)> = view
            .open
            .iter()
            .filter(|(p, o)| done.get(*p) != Some(&(o.opening, o.version, base_gen)))
            .map(|(p, o)| (p.clone(), o.clone()))
            .collect();
        if todo.is_empty() {
            continue;
        }
        let edits: Vec<Option<Vec<ByteEdit>>> = {
            let st = shared.lock();
            todo.iter().map(|(p, _)| st.edits_since(p, &base, &view)).collect()
        };
        let computing = view.clone();
        let work = move || {
            let out: Vec<(Arc<str>, OpenDoc, Option<Vec<Diagnostic>>)> = todo
                .into_iter()
                .zip(edits)
                .map(|((path, doc), edits)| {
                    let ds = open_file(&computing, &base, &path, edits.as_deref());
                    let items = ds.map(|ds| to_proto::diagnostics(&computing, &path, &ds));
                    (path, doc, items)
                })
                .collect();
            Ok(out)
        };
        let Ok(computed) = run("publishDiagnostics", work).await else { continue };
        let mut pushed = shared.pushed.lock().await;
        for (path, doc, items) in computed {
            done.insert(path.clone(), (doc.opening, doc.version, base_gen));
            // `None`: only the full pass can tell; it publishes this version itself.
            let Some(items) = items else { continue };
            let items = if view.caps.pull_diagnostics { Vec::new() } else { items };
            let out = Outgoing { path, uri: doc.uri.clone(), items, doc: Some((doc.opening, doc.version)) };
            publish(&shared, &mut pushed, out).await;
        }
    }
}

/// An open document's diagnostics without a full analysis: the base's own when the base saw
/// this very text, else the partial-world ones plus the base's workspace-wide ones moved
/// through `edits`. `None` when only a full analysis can tell.
fn open_file(view: &View, base: &View, path: &str, edits: Option<&[ByteEdit]>) -> Option<Vec<CoreDiagnostic>> {
    let (now, then) = (view.snap.file(path)?, base.snap.file(path));
    if then.is_some_and(|t| Arc::ptr_eq(t, now)) {
        return Some(base.snap.diagnostics_for(path).to_vec());
    }
    core_diagnostics::local(&view.snap, path, &base.snap, edits)
}

pub async fn pull(shared: Arc<Shared>, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
    // Answer from a complete workspace: before the first walk, every target looks missing.
    shared.ready().await;
    let path = from_proto::path(&params.text_document.uri);
    let view = shared.view_for(path.as_deref()).await;
    let (base, edits) = match (&path, shared.base()) {
        (Some(p), Some(base)) => {
            let edits = shared.lock().edits_since(p, &base, &view);
            (Some(base), edits)
        }
        _ => (None, None),
    };
    run("textDocument/diagnostic", move || {
        let items = path
            .map(|p| {
                let quick = base.as_ref().and_then(|b| open_file(&view, b, &p, edits.as_deref()));
                match quick {
                    Some(ds) => to_proto::diagnostics(&view, &p, &ds),
                    None => to_proto::file_diagnostics(&view, &p),
                }
            })
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
