//! `policylens/serverStatus`: what the server reads and how it stands (roots and why, config,
//! cluster, indexing progress, the findings of the last full analysis by severity), as a
//! request for `:checkhealth policylens` and as a notification, for clients that ask for it
//! (`statusNotifications`), whenever it changes: VS Code's status item follows it.

use serde_json::{Value, json};
use tower_lsp_server::ls_types::notification::Notification;

use crate::state::Shared;

/// The notification's type for tower-lsp-server.
enum ServerStatus {}

impl Notification for ServerStatus {
    type Params = Value;
    const METHOD: &'static str = "policylens/serverStatus";
}

/// The report. `state`: `indexing` until the roots as they are now are read (with `progress`
/// in files), `analysing` until the files read are analysed whole, then `ready`. `roots` are the directories read, `rootReasons` why each was chosen,
/// `folders` the client's workspace folders (findings are reported under them), `rootNote`
/// what the user was told of a root guessed without a marker.
pub fn gather(shared: &Shared) -> Value {
    let ready = shared.is_ready();
    let state = match (ready, shared.is_analysed()) {
        (false, _) => "indexing",
        (true, false) => "analysing",
        (true, true) => "ready",
    };
    let (roots, reasons, folders, note, config, settings, cluster, files, progress) = {
        let st = shared.lock();
        let roots: Vec<String> = st.roots.chosen().iter().map(|r| r.dir.display().to_string()).collect();
        let reasons: Vec<String> = st.roots.chosen().iter().map(|r| r.why.clone()).collect();
        let folders: Vec<String> = st.roots.folders().iter().map(|f| f.display().to_string()).collect();
        let config = st.config_path.as_ref().map(|c| c.display().to_string());
        let (settings, cluster) = (st.settings.clone(), st.cluster_note.clone());
        (roots, reasons, folders, st.roots.note.clone(), config, settings, cluster, st.disk.len(), st.progress)
    };
    let mut counts = serde_json::Map::new();
    for sev in ["error", "warning", "information", "hint"] {
        counts.insert(sev.into(), Value::from(0));
    }
    if let Some(base) = shared.base() {
        // What the editor shows: the files' findings (not the cluster's), where reported.
        let files =
            base.snap.diagnostics().iter().filter(|(p, _)| !crate::cluster_doc::is_cluster_path(p) && base.reports(p));
        for d in files.flat_map(|(_, ds)| ds) {
            let key = d.severity.as_str();
            let n = counts.get(key).and_then(Value::as_u64).unwrap_or(0);
            counts.insert(key.into(), Value::from(n + 1));
        }
    }
    let c = &settings.cluster;
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "state": state,
        "progress": progress.filter(|_| !ready).map(|(done, total)| json!({"done": done, "total": total})),
        "roots": roots,
        "rootReasons": reasons,
        "folders": folders,
        "rootNote": note,
        "config": config,
        "files": files,
        "diagnostics": counts,
        "cluster": {
            "enabled": c.enabled,
            "context": c.context,
            "connected": cluster.as_ref().map(|(ok, _)| *ok),
            "message": cluster.map(|(_, m)| m),
        },
    })
}

/// Sends the report to a client that asked for it.
pub async fn notify(shared: &Shared) {
    if !shared.caps().status_notifications {
        return;
    }
    let report = gather(shared);
    shared.client.send_notification::<ServerStatus>(report).await;
}
