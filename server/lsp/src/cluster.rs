//! Following the live cluster: the changes a watch reports are applied to the workspace in
//! the order they come, each like an edit, so diagnostics and requests see them. Reading it
//! (and trying again when it cannot be reached) is part of indexing (`index.rs`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use policylens_cluster::Change;
use policylens_core::workspace::Origin;
use tokio::sync::mpsc;
use tower_lsp_server::ls_types::Registration;

use crate::state::Shared;

/// Stops the running watch, if any; returns the generation the next watch gets (changes of
/// an older generation still in flight are dropped).
pub fn stop(shared: &Shared) -> u64 {
    let mut w = shared.cluster_watch.lock().unwrap_or_else(|e| e.into_inner());
    *w = None;
    shared.cluster_generation.fetch_add(1, Ordering::SeqCst) + 1
}

/// Watches the cluster `snap` read from where it left off, applying its changes.
pub fn follow(
    shared: &Arc<Shared>,
    generation: u64,
    opts: &policylens_cluster::Options,
    snap: &policylens_cluster::Snapshot,
) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Change>();
    let watcher = policylens_cluster::watch(opts, snap, move |c| {
        let _ = tx.send(c);
    });
    *shared.cluster_watch.lock().unwrap_or_else(|e| e.into_inner()) = Some(watcher);
    let shared = shared.clone();
    tokio::spawn(async move {
        while let Some(change) = rx.recv().await {
            if shared.cluster_generation.load(Ordering::SeqCst) != generation {
                return;
            }
            match change {
                Change::Upsert(o) => shared.lock().ws.set_file_with_origin(&o.path, o.text, Origin::Cluster),
                Change::Remove(path) => {
                    shared.lock().ws.remove_file(&path);
                }
                Change::Note(m) => {
                    tracing::warn!(target: "policylens", "cluster: {m}");
                    continue;
                }
            }
            shared.changed();
        }
    });
}

/// Asks the client, once, to fetch `policylens-cluster:` documents from the server
/// (`workspace/textDocumentContent`, LSP 3.18): go-to-definition on an object only the
/// cluster holds opens it read-only. A client without the request declines (logged); the
/// locations still name the object.
pub fn register_documents(shared: &Arc<Shared>) {
    if shared.cluster_docs_registered.swap(true, Ordering::SeqCst) {
        return;
    }
    let client = shared.client.clone();
    tokio::spawn(async move {
        let registration = Registration {
            id: "policylens/clusterDocuments".into(),
            method: "workspace/textDocumentContent".into(),
            register_options: Some(serde_json::json!({"schemes": [crate::cluster_doc::SCHEME]})),
        };
        if let Err(e) = client.register_capability(vec![registration]).await {
            tracing::info!(target: "policylens", "the client cannot show cluster objects as documents: {e}");
        }
    });
}
