//! Indexing: the workspace folders read from disk by the shared loader, and the live cluster
//! when enabled, with `$/progress` (files read / total, then the cluster).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use policylens_core::workspace::Workspace;
use tokio::sync::mpsc;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::notification::Progress as ProgressNotification;
use tower_lsp_server::ls_types::{
    MessageType, NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressEnd, WorkDoneProgressReport,
};

use crate::config::{self, Excludes};
use crate::panics::panic_message;
use crate::state::Shared;

/// A work-done progress the server started; silent when the client cannot show one.
pub struct Progress {
    client: Client,
    token: Option<NumberOrString>,
}

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

impl Progress {
    pub async fn begin(client: &Client, supported: bool, title: &str) -> Progress {
        let mut p = Progress { client: client.clone(), token: None };
        if !supported {
            return p;
        }
        let token = NumberOrString::String(format!("policylens/index/{}", NEXT_TOKEN.fetch_add(1, Ordering::Relaxed)));
        // The spec forbids progress on a token the client refused to create.
        if client.create_work_done_progress(token.clone()).await.is_err() {
            return p;
        }
        p.token = Some(token);
        p.send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
            title: title.to_owned(),
            cancellable: Some(false),
            message: None,
            percentage: Some(0),
        }))
        .await;
        p
    }

    async fn send(&self, value: WorkDoneProgress) {
        if let Some(token) = &self.token {
            let params = ProgressParams { token: token.clone(), value: ProgressParamsValue::WorkDone(value) };
            self.client.send_notification::<ProgressNotification>(params).await;
        }
    }

    pub async fn report(&self, done: usize, total: usize) {
        let percentage = (done * 100).checked_div(total).unwrap_or(100) as u32;
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(false),
            message: Some(format!("{done}/{total} files")),
            percentage: Some(percentage),
        }))
        .await;
    }

    /// The files are read: the analysis runs.
    pub async fn analysing(&self) {
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(false),
            message: Some("analysing".to_owned()),
            percentage: Some(100),
        }))
        .await;
    }

    /// A step without a count (the cluster read), keeping the last percentage.
    pub async fn say(&self, message: String) {
        self.send(WorkDoneProgress::Report(WorkDoneProgressReport {
            cancellable: Some(false),
            message: Some(message),
            percentage: None,
        }))
        .await;
    }

    pub async fn end(self, message: String) {
        self.send(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message) })).await;
    }
}

/// What indexing tells the progress as it goes.
enum Step {
    Files(usize, usize),
    /// The files are read; the cluster (this context, or the current one) is being read.
    Cluster(Option<String>),
}

/// What a walk of the roots produced, before it replaces the server's workspace.
struct Built {
    ws: Workspace,
    /// What the cluster read said, for the user: connected (and what was skipped), or why not.
    cluster: Option<(bool, String)>,
    /// How many objects the cluster read brought.
    cluster_objects: Option<usize>,
    /// The cluster read, to watch from.
    watch_from: Option<(policylens_cluster::Options, policylens_cluster::Snapshot)>,
    disk: HashSet<Arc<str>>,
    config_path: Option<PathBuf>,
    excludes: Excludes,
    /// What the user should hear about (a folder gone, a configPath that names nothing).
    problems: Vec<String>,
}

fn build(
    roots: Vec<PathBuf>,
    config_path: Option<PathBuf>,
    cluster: crate::config::ClusterSettings,
    progress: mpsc::UnboundedSender<Step>,
) -> Result<Built, String> {
    let mut built = build_files(roots, config_path, &progress)?;
    if cluster.enabled {
        let opts = policylens_cluster::Options {
            kubeconfig: cluster.kubeconfig.map(PathBuf::from),
            context: cluster.context,
            request_timeout: None,
        };
        // A cluster read can take seconds (discovery, then every kind's list): say so.
        let _ = progress.send(Step::Cluster(opts.context.clone()));
        built.cluster = Some(match policylens_cluster::read(&opts) {
            Ok(mut snap) => {
                let n = snap.objects.len();
                let objects = std::mem::take(&mut snap.objects).into_iter().map(|o| (o.path, o.text)).collect();
                built.ws.set_files_with_origin(objects, policylens_core::workspace::Origin::Cluster);
                let mut m = format!("cluster `{}` at {}: {n} objects, watched", snap.context, snap.server);
                if !snap.warnings.is_empty() {
                    m.push_str(&format!("; {}", snap.warnings.join("; ")));
                }
                built.watch_from = Some((opts, snap));
                built.cluster_objects = Some(n);
                (true, m)
            }
            // The files are still analysed; the next re-index tries again.
            Err(e) => (false, format!("{e}; analysing the workspace files alone")),
        });
    }
    Ok(built)
}

fn build_files(
    mut roots: Vec<PathBuf>,
    config_path: Option<PathBuf>,
    progress: &mpsc::UnboundedSender<Step>,
) -> Result<Built, String> {
    // A workspace folder deleted or renamed since the editor opened it: the others are still
    // read (the loader fails the whole load on a path that is not there).
    let mut problems = Vec::new();
    roots.retain(|r| {
        let there = r.is_dir();
        if !there {
            problems.push(format!("workspace folder {} is not a directory; skipped", r.display()));
        }
        there
    });
    if roots.is_empty() && !problems.is_empty() {
        return Err(problems.join("; "));
    }
    // No folder (yet): the loader would read the server's working directory, which may be the
    // home directory or `/`. The open documents are analysed alone until one brings a root.
    if roots.is_empty() {
        return Ok(Built {
            ws: Workspace::new(),
            cluster: None,
            cluster_objects: None,
            watch_from: None,
            disk: HashSet::new(),
            config_path: None,
            excludes: Excludes::default(),
            problems,
        });
    }
    // The one loader the CLI uses: same config lookup, walk, excludes and context.
    let req = policylens_loader::Request {
        paths: roots.clone(),
        config: config_path.clone(),
        isolated: true,
        allow_empty: true,
        ..Default::default()
    };
    let l = policylens_loader::load(&req, &mut |done, total| {
        let _ = progress.send(Step::Files(done, total));
    })?;
    for w in &l.warnings {
        tracing::warn!(target: "policylens", "{w}");
    }
    let excludes = Excludes::new(&l.workspace.config().config, l.config_path.as_deref());
    let disk = l.disk.iter().map(|p| Arc::from(p.as_str())).collect();
    Ok(Built {
        ws: l.workspace,
        cluster: None,
        cluster_objects: None,
        watch_from: None,
        disk,
        config_path: l.config_path,
        excludes,
        problems,
    })
}

/// Walks the roots (honouring `.gitignore` and the config's excludes), reads and parses every
/// file off the async workers, then swaps the result in, keeping open documents' texts.
pub async fn reindex(shared: Arc<Shared>) {
    let _one_at_a_time = shared.index_lock.lock().await;
    let start = Instant::now();
    let (roots, folders, epoch, settings) = {
        let mut st = shared.lock();
        // Files that change on disk from here on may be read by the walk before they change.
        st.touched = Some(Default::default());
        (st.roots.dirs(), st.roots.folders(), st.roots.epoch.max(1), st.settings.clone())
    };
    let caps = shared.caps();
    let progress = Progress::begin(&shared.client, caps.work_done_progress, "policylens: indexing").await;
    crate::status::notify(&shared).await;
    let (config_path, config_problem) = config::resolve_config_path(&settings, &folders, &roots);
    let config_path = config_path.map(|p| crate::from_proto::normalize(&p));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let cluster = settings.cluster.clone();
    let delay = test_index_delay();
    // The server watches the disk itself: its baseline is taken before the walk, so that a
    // file changed while the walk runs is seen by the next scan.
    let polling = shared.polls_disk();
    let excludes = shared.lock().excludes.clone();
    let job = tokio::task::spawn_blocking(move || {
        let baseline = polling.then(|| crate::scan::scan(&roots, &excludes, config_path.as_deref()));
        std::thread::sleep(delay);
        (build(roots, config_path, cluster, tx), baseline)
    });
    while let Some(step) = rx.recv().await {
        match step {
            Step::Files(done, total) => {
                shared.lock().progress = Some((done, total));
                progress.report(done, total).await;
                crate::status::notify(&shared).await;
            }
            Step::Cluster(context) => {
                let which = context.map_or("the current context".to_owned(), |c| format!("`{c}`"));
                progress.say(format!("reading the cluster ({which})")).await;
            }
        }
    }
    let (job, baseline) = match job.await {
        Ok((built, baseline)) => (Ok(built), baseline),
        Err(e) => (Err(e), None),
    };
    // The index this walk installed, whose first analysis the progress waits for.
    let mut analysed = None;
    let message = match job {
        Ok(Ok(mut built)) => {
            built.problems.extend(config_problem);
            if !built.problems.is_empty() {
                let m = built.problems.join("; ");
                tracing::warn!(target: "policylens", "{m}");
                shared.client.show_message(MessageType::WARNING, format!("policylens: {m}")).await;
            }
            let cluster_failed = matches!(built.cluster, Some((false, _)));
            // Connected is news for the log and the status (a message box would hold Neovim
            // at a prompt); a failure is a warning the user sees.
            match &built.cluster {
                Some((true, m)) => tracing::info!(target: "policylens", "{m}"),
                Some((false, m)) => {
                    tracing::warn!(target: "policylens", "{m}");
                    shared.client.show_message(MessageType::WARNING, format!("policylens: {m}")).await;
                }
                None => {}
            }
            let files = built.disk.len();
            let cluster_objects = built.cluster_objects;
            let config = built.config_path.as_deref().map(|p| p.display().to_string());
            // The previous watch stops before the workspace it fed is replaced.
            let generation = crate::cluster::stop(&shared);
            {
                let mut st = shared.lock();
                st.cluster_note = built.cluster.clone();
                st.install(built.ws, built.disk, built.config_path, built.excludes);
                analysed = Some(st.installs);
                if let Some(scan) = baseline {
                    let generation = st.disk_scan.as_ref().map_or(0, |(g, _)| g + 1);
                    st.disk_scan = Some((generation, Arc::new(scan)));
                }
            }
            if let Some((opts, snap)) = built.watch_from {
                crate::cluster::follow(&shared, generation, &opts, &snap);
                crate::cluster::register_documents(&shared);
            }
            if cluster_failed {
                retry_later(&shared, generation);
            } else {
                shared.cluster_retries.store(0, std::sync::atomic::Ordering::Relaxed);
            }
            let ms = start.elapsed().as_millis();
            tracing::info!(
                target: "policylens",
                "indexed {files} files in {ms} ms (config: {})",
                config.as_deref().unwrap_or("none")
            );
            let files = if files == 1 { "1 file".to_owned() } else { format!("{files} files") };
            match cluster_objects {
                Some(n) => format!("{files}, {n} cluster objects"),
                None => files,
            }
        }
        // Nothing could be read (every folder gone, a config that cannot be read): the user is
        // told, and the workspace read before is kept rather than replaced by an empty one,
        // which would show every target as missing.
        Ok(Err(e)) => {
            tracing::error!(target: "policylens", "indexing failed: {e}");
            shared.client.show_message(MessageType::ERROR, format!("policylens: cannot read the workspace: {e}")).await;
            shared.lock().touched = None;
            "indexing failed".to_owned()
        }
        Err(e) => {
            let msg = if e.is_panic() { panic_message(e.into_panic()) } else { e.to_string() };
            tracing::error!(target: "policylens", "indexing failed: {msg}");
            shared.lock().touched = None;
            "indexing failed".to_owned()
        }
    };
    // A failed index releases the waiting requests too: they answer from what is there.
    shared.indexed.send_modify(|e| *e = (*e).max(epoch));
    shared.lock().progress = None;
    crate::status::notify(&shared).await;
    shared.changed();
    // The files are read; the first analysis of them (seconds at 100k objects, which a hover
    // sent now waits for) is part of the same progress, so that the editor is never silent.
    match analysed {
        Some(installs) => {
            progress.analysing().await;
            let shared = shared.clone();
            tokio::spawn(async move {
                shared.analysed(installs).await;
                progress.end(message).await;
            });
        }
        None => progress.end(message).await,
    }
}

/// Tests stretch indexing (`POLICYLENS_TEST_INDEX_DELAY_MS`, with `POLICYLENS_TEST=1`) to
/// check what requests answer while it runs, which on the fixtures lasts milliseconds.
fn test_index_delay() -> Duration {
    let on = std::env::var("POLICYLENS_TEST").is_ok_and(|v| v == "1");
    let ms = on.then(|| std::env::var("POLICYLENS_TEST_INDEX_DELAY_MS").ok()?.parse::<u64>().ok()).flatten();
    Duration::from_millis(ms.unwrap_or(0))
}

/// After a failed cluster read, indexes again later (2 s, doubling to 5 min) unless another
/// index came first: the editor keeps serving the files meanwhile, and connects once the
/// cluster is back.
fn retry_later(shared: &Arc<Shared>, generation: u64) {
    let attempt = shared.cluster_retries.fetch_add(1, Ordering::Relaxed).min(8);
    let delay = Duration::from_secs(2u64 << attempt).min(Duration::from_secs(300));
    tracing::info!(target: "policylens", "cluster: trying again in {} s", delay.as_secs());
    let shared = shared.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let current = shared.cluster_generation.load(Ordering::SeqCst) == generation;
        if current && !shared.shutdown.load(Ordering::Relaxed) {
            Box::pin(reindex(shared)).await;
        }
    });
}
