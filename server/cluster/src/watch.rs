//! Watching the cluster after a read, for the language server: one watch per kind read,
//! resumed from the list's resourceVersion, so the editor follows the cluster as it changes.
//!
//! Faults degrade, never stop: a watch that ends (servers end them after a timeout) is
//! resumed from the last version seen; a dropped connection or a server error resumes after
//! a backoff with jitter (200 ms doubling to 30 s); `410 Gone` (the version is too old)
//! lists the kind again and reports what changed meanwhile, deletions included; a kind the
//! credentials may not watch stops with one note.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kube::Client;
use kube::api::{Api, DynamicObject, WatchEvent, WatchParams};

use super::{ClusterObject, Listed, Options, Snapshot, config, jitter, list_once, path_of, plural, to_text};

/// A change to the cluster's objects.
#[derive(Clone, Debug)]
pub enum Change {
    /// An object added or changed (or seen again after a relist).
    Upsert(ClusterObject),
    /// The object at this `cluster://` path is gone.
    Remove(String),
    /// Something the user may want to know (a kind no longer watched, a relist).
    Note(String),
}

type Sink = Arc<dyn Fn(Change) + Send + Sync>;

/// A running watch of the cluster; dropping it stops it.
pub struct Watcher {
    stop: Arc<AtomicBool>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

const MIN_BACKOFF: Duration = Duration::from_millis(200);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A watch that ends sooner than this is not resumed at once (no busy loop on a server that
/// closes watches right away).
const MIN_WATCH: Duration = Duration::from_secs(1);
/// Servers end a watch after this; it is resumed from the last version seen.
const WATCH_TIMEOUT_SECS: u32 = 290;

/// Watches every kind `snap` read, from where its list left off, calling `sink` with every
/// change, on a thread of its own, until the returned [`Watcher`] is dropped.
pub fn watch(opts: &Options, snap: &Snapshot, sink: impl Fn(Change) + Send + Sync + 'static) -> Watcher {
    let stop = Arc::new(AtomicBool::new(false));
    let (opts, kinds, context, flag) = (opts.clone(), snap.kinds.clone(), snap.context.clone(), stop.clone());
    let sink: Sink = Arc::new(sink);
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async move {
            let client = match config(&opts).await.and_then(|(c, _)| Client::try_from(c).map_err(|e| e.to_string())) {
                Ok(c) => c,
                Err(e) => return sink(Change::Note(format!("cannot watch the cluster: {e}"))),
            };
            for l in kinds {
                tokio::spawn(watch_kind(client.clone(), l, context.clone(), sink.clone()));
            }
            while !flag.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
    });
    Watcher { stop }
}

/// How one watch request ended.
enum Ended {
    /// The server closed it: resume from the last version.
    Closed,
    /// `410 Gone`: list again.
    Gone,
    /// A connection or server error: resume after a backoff.
    Failed,
    /// Not allowed: stop watching the kind.
    Forbidden(u16),
}

async fn watch_kind(client: Client, mut l: Listed, context: String, sink: Sink) {
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &l.ar);
    let wp = WatchParams::default().timeout(WATCH_TIMEOUT_SECS);
    let mut backoff = MIN_BACKOFF;
    loop {
        let started = Instant::now();
        let ended = match api.watch(&wp, &l.resource_version).await {
            Ok(stream) => {
                let mut stream = std::pin::pin!(stream);
                let mut ended = Ended::Closed;
                while let Some(event) = stream.next().await {
                    match event {
                        Ok(WatchEvent::Added(o) | WatchEvent::Modified(o)) => {
                            l.resource_version = o.metadata.resource_version.clone().unwrap_or_default();
                            if let Some(c) = to_text(&context, &l.ar, o) {
                                l.paths.insert(c.path.clone());
                                sink(Change::Upsert(c));
                            }
                        }
                        Ok(WatchEvent::Deleted(o)) => {
                            l.resource_version = o.metadata.resource_version.clone().unwrap_or_default();
                            let ns = o.metadata.namespace.as_deref().unwrap_or("_");
                            let path = path_of(&context, &l.ar, ns, o.metadata.name.as_deref().unwrap_or("_"));
                            l.paths.remove(&path);
                            sink(Change::Remove(path));
                        }
                        Ok(WatchEvent::Bookmark(b)) => l.resource_version = b.metadata.resource_version,
                        Ok(WatchEvent::Error(e)) if e.code == 410 => {
                            ended = Ended::Gone;
                            break;
                        }
                        Ok(WatchEvent::Error(_)) | Err(_) => {
                            ended = Ended::Failed;
                            break;
                        }
                    }
                }
                ended
            }
            Err(kube::Error::Api(e)) if e.code == 410 => Ended::Gone,
            Err(kube::Error::Api(e)) if e.code == 401 || e.code == 403 => Ended::Forbidden(e.code),
            Err(_) => Ended::Failed,
        };
        match ended {
            Ended::Closed => {
                backoff = MIN_BACKOFF;
                if let Some(rest) = MIN_WATCH.checked_sub(started.elapsed()) {
                    tokio::time::sleep(rest).await;
                }
            }
            Ended::Gone => match list_once(&client, &l.ar).await {
                Ok((items, version)) => {
                    backoff = MIN_BACKOFF;
                    relisted(&mut l, items, version, &context, &sink);
                }
                Err(w) => {
                    sink(Change::Note(w));
                    tokio::time::sleep(backoff + jitter()).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            },
            Ended::Failed => {
                tokio::time::sleep(backoff + jitter()).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            Ended::Forbidden(code) => {
                return sink(Change::Note(format!(
                    "{}: not allowed to watch ({code}); no longer followed",
                    plural(&l.ar)
                )));
            }
        }
    }
}

/// After `410 Gone`: every listed object again, and the ones no longer listed removed.
fn relisted(l: &mut Listed, items: Vec<DynamicObject>, version: String, context: &str, sink: &Sink) {
    let mut now = BTreeSet::new();
    let mut changes: Vec<ClusterObject> = Vec::new();
    for o in items {
        if let Some(c) = to_text(context, &l.ar, o) {
            now.insert(c.path.clone());
            changes.push(c);
        }
    }
    for gone in l.paths.difference(&now) {
        sink(Change::Remove(gone.clone()));
    }
    for c in changes {
        sink(Change::Upsert(c));
    }
    l.paths = now;
    l.resource_version = version;
}
