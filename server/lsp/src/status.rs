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
/// in files), then `ready`.
pub fn gather(shared: &Shared) -> Value {
    let ready = shared.is_ready();
    let (roots, note, config, settings, cluster, files, progress) = {
        let st = shared.lock();
        let roots: Vec<String> = st.roots.iter().map(|r| r.display().to_string()).collect();
        let config = st.config_path.as_ref().map(|c| c.display().to_string());
        (roots, st.root_note.clone(), config, st.settings.clone(), st.cluster_note.clone(), st.disk.len(), st.progress)
    };
    let mut counts = serde_json::Map::new();
    for sev in ["error", "warning", "information", "hint"] {
        counts.insert(sev.into(), Value::from(0));
    }
    if let Some(base) = shared.base() {
        let files = base.snap.diagnostics().iter().filter(|(p, _)| !crate::cluster_doc::is_cluster_path(p));
        for d in files.flat_map(|(_, ds)| ds) {
            let key = d.severity.as_str();
            let n = counts.get(key).and_then(Value::as_u64).unwrap_or(0);
            counts.insert(key.into(), Value::from(n + 1));
        }
    }
    let c = &settings.cluster;
    json!({
        "version": env!("CARGO_PKG_VERSION"),
        "state": if ready { "ready" } else { "indexing" },
        "progress": progress.filter(|_| !ready).map(|(done, total)| json!({"done": done, "total": total})),
        "roots": roots,
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
