//! Files that change on disk: the client's watched-file events and, for a client that cannot
//! register watchers (Neovim on Linux turns dynamic `didChangeWatchedFiles` registration off),
//! the server's own watch of the roots ([`poll`]). Both end in [`apply_events`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tower_lsp_server::ls_types::FileChangeType;

use crate::index::reindex;
use crate::scan::{diff, scan};
use crate::state::Shared;

/// Applies files created, changed or deleted on disk. A change to the config or to an ignore
/// file re-indexes (which files belong to the workspace may have changed); manifests are read
/// and parsed off the ordered writer, then applied in the order the events arrived.
pub async fn apply_events(shared: Arc<Shared>, changes: Vec<(Arc<str>, FileChangeType)>) {
    let mut full = false;
    let mut events = Vec::new();
    let seq;
    {
        let mut st = shared.lock();
        st.watch_seq += 1;
        seq = st.watch_seq;
        for (path, typ) in changes {
            st.disk_changed(&path);
            let name = Path::new(&*path).file_name().and_then(|n| n.to_str()).unwrap_or("");
            if st.is_config(&path) || matches!(name, ".policylens.yaml" | ".gitignore" | ".ignore") {
                full = true;
            } else {
                events.push((path, typ));
            }
        }
    }
    if full {
        tokio::spawn(reindex(shared.clone()));
        return;
    }
    if events.is_empty() {
        return;
    }
    let (roots, excludes) = {
        let st = shared.lock();
        (st.roots.dirs(), st.excludes.clone())
    };
    let read = tokio::task::spawn_blocking(move || {
        events
            .into_iter()
            .map(|(path, typ)| {
                let p = Path::new(&*path);
                // Parsed here, off the ordered writer: a big file saved must not hold it.
                let content = (typ != FileChangeType::DELETED && crate::config::is_discoverable(p, &roots, &excludes))
                    .then(|| policylens_loader::read_file(path.clone(), p).ok())
                    .flatten();
                (path, content)
            })
            .collect::<Vec<_>>()
    })
    .await;
    let Ok(read) = read else { return };
    let applied = catch_unwind(AssertUnwindSafe(|| {
        let mut st = shared.lock();
        let mut changed = false;
        for (path, content) in read {
            changed |= st.apply_watched(seq, path, content);
        }
        changed
    }));
    match applied {
        Ok(false) => {}
        Ok(true) => shared.changed(),
        Err(p) => {
            tracing::error!(target: "policylens", "applying disk changes panicked: {}", crate::panics::panic_message(p));
            shared.changed();
        }
    }
}

/// The shortest pause between two scans; a workspace whose scan takes longer waits twenty
/// times the scan, so that the watch never takes more than about 5% of a core.
const POLL: Duration = Duration::from_secs(1);

/// The server's own watch, for clients that cannot register watchers: scans the roots every
/// [`POLL`] and applies what changed since the baseline each index takes before it walks
/// (`State::disk_scan`), so that nothing changed during a walk is missed.
pub async fn poll(shared: Arc<Shared>) {
    let mut pause = POLL;
    loop {
        tokio::time::sleep(pause).await;
        if shared.shutdown.load(Ordering::Relaxed) {
            return;
        }
        let (generation, old, roots, excludes, config) = {
            let st = shared.lock();
            let Some((generation, old)) = st.disk_scan.clone() else { continue };
            (generation, old, st.roots.dirs(), st.excludes.clone(), st.config_path.clone())
        };
        let started = Instant::now();
        let Ok(new) = tokio::task::spawn_blocking(move || scan(&roots, &excludes, config.as_deref())).await else {
            continue;
        };
        pause = POLL.max(started.elapsed() * 20);
        let events = diff(&old, &new);
        {
            let mut st = shared.lock();
            // An index since took its own baseline: this scan may predate it.
            if st.disk_scan.as_ref().is_none_or(|(g, _)| *g != generation) {
                continue;
            }
            st.disk_scan = Some((generation, Arc::new(new)));
        }
        if !events.is_empty() {
            tracing::debug!(target: "policylens", "disk watch: {} change(s)", events.len());
            apply_events(shared.clone(), events).await;
        }
    }
}
