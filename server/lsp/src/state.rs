//! The server's mutable state: the core workspace, the open documents, the roots and config.
//!
//! All of it sits behind one `std::sync::Mutex` that is only ever held for synchronous work
//! (never across an `.await`). Notification handlers apply their edits while holding it, in the
//! synchronous prefix of the handler, which tower-lsp-server polls in the order the client sent
//! the messages: that lock is the ordered writer. Requests take a [`View`] (one immutable
//! snapshot) under the same lock and never see half an edit.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use policylens_core::source::SourceFile;
use policylens_core::syntax::{ByteEdit, PositionEncoding};
use policylens_core::workspace::{Snapshot, Workspace};
use tokio::sync::watch;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

use crate::config::{Excludes, Settings};
use crate::documents::Document;
use crate::roots::Roots;

/// What the client said it can do, read once from `initialize`.
#[derive(Clone, Debug, Default)]
pub struct Caps {
    pub encoding: PositionEncoding,
    pub work_done_progress: bool,
    pub watched_files_dynamic: bool,
    /// Watchers may name a base directory (`RelativePattern`): how roots outside the client's
    /// folders (a folder's workspace above it) are watched.
    pub watched_files_relative: bool,
    pub configuration: bool,
    pub configuration_dynamic: bool,
    /// The client pulls diagnostics (`textDocument/diagnostic`) for open documents and can be
    /// asked to pull again (`workspace/diagnostic/refresh`); without the latter it is pushed.
    pub pull_diagnostics: bool,
    pub diagnostic_refresh: bool,
    /// The client re-asks for code lenses on `workspace/codeLens/refresh`.
    pub code_lens_refresh: bool,
    pub snippets: bool,
    pub hierarchical_symbols: bool,
    pub show_document: bool,
    pub markdown_hover: bool,
    /// The client runs `command:` links in hovers (VS Code's extension says so in its
    /// initializationOptions, `hoverActions`).
    pub hover_actions: bool,
    /// The client wants `policylens/serverStatus` notifications (`statusNotifications`).
    pub status_notifications: bool,
}

/// An open document as of a snapshot; `uri` is the client's own spelling, which published
/// diagnostics must match.
#[derive(Clone, Debug)]
pub struct OpenDoc {
    pub uri: Uri,
    pub version: i32,
    /// Which opening of the document this is: versions restart when a document is reopened.
    pub opening: u64,
    /// The saved side of the hover on an unsaved policy edit (`handlers/whatif.rs`): kept with
    /// the document, new at each opening and whenever the file changes on disk.
    pub saved: SavedSide,
}

/// The workspace with one open document as it is on disk (and the disk text it was made
/// from), made by the first hover on an unsaved edit that needs it and shared by the next ones
/// while the disk and every other file stay as they were: its analysis is the expensive part.
/// A cell of one document's state, like the lazily computed parts of a snapshot; the
/// notifications that open the document or see its file change replace it.
#[derive(Clone, Default)]
pub struct SavedSide(Arc<Mutex<Option<(String, Snapshot)>>>);

impl SavedSide {
    /// The saved side for the text `disk`, made by `make` unless the one kept still holds.
    pub fn get(&self, disk: &str, holds: impl Fn(&Snapshot) -> bool, make: impl FnOnce() -> Snapshot) -> Snapshot {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match kept.as_ref() {
            Some((d, s)) if d == disk && holds(s) => s.clone(),
            _ => {
                let s = make();
                *kept = Some((disk.to_owned(), s.clone()));
                s
            }
        }
    }
}

impl std::fmt::Debug for SavedSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SavedSide")
    }
}

/// What was last published for a file (both diagnostics passes publish through it).
pub struct Pushed {
    pub uri: Uri,
    /// The published set's `result_id`.
    pub id: String,
    /// The open document's opening and version it was computed for.
    pub doc: Option<(u64, i32)>,
}

/// A request's view of the server: everything it reads, one snapshot and the open documents
/// of that moment (and the client's capabilities).
#[derive(Clone)]
pub struct View {
    pub snap: Snapshot,
    /// The last fully analysed snapshot when this one is newer: requests in a just-edited
    /// file answer from the file's partial world cut from it (`analysis::near`) instead of
    /// waiting for the whole workspace's analysis. Never set on the base itself.
    pub base: Option<Snapshot>,
    pub open: Arc<HashMap<Arc<str>, OpenDoc>>,
    pub caps: Arc<Caps>,
    /// The client's workspace folders: the files whose diagnostics are reported, beside the
    /// open documents (`Roots::reports`).
    pub folders: Arc<Vec<PathBuf>>,
    /// The directories read (each workspace's root): what paths are shown relative to.
    pub roots: Arc<Vec<PathBuf>>,
    /// How many indexes had been installed when it was taken ([`State::installs`]).
    pub installs: u64,
}

impl View {
    pub fn enc(&self) -> PositionEncoding {
        self.caps.encoding
    }

    /// Whether a file's diagnostics are shown: it is open, or lies in a workspace folder.
    pub fn reports(&self, path: &str) -> bool {
        self.open.contains_key(path) || Roots::reports(&self.folders, Path::new(path))
    }
}

/// Editor texts at least this long are parsed off the ordered writer (see [`Parse`]): a 50 MB
/// file takes seconds, and every other request would wait for it.
pub const PARSE_ASIDE: usize = 1 << 20;

/// A big editor text to parse on a blocking thread. Until it lands ([`State::land`]) the
/// workspace and the open-document versions requests see stay as they were, so requests on
/// other files answer at once from the previous snapshot; requests on this file wait for it
/// ([`Shared::view_for`]).
pub struct Parse {
    pub path: Arc<str>,
    pub text: Arc<str>,
    /// The open-document entry to install with it.
    pub doc: OpenDoc,
    pub generation: u64,
}

/// A change for a document the client never opened.
#[derive(Debug)]
pub struct NotOpen;

pub struct State {
    pub ws: Workspace,
    docs: HashMap<Arc<str>, Document>,
    open: Arc<HashMap<Arc<str>, OpenDoc>>,
    /// The directories read and why, the client's folders (`roots.rs`).
    pub roots: Roots,
    /// While an index reads files: how many of how many.
    pub progress: Option<(usize, usize)>,
    /// What the last index said of the live cluster: connected, and the words for the user.
    pub cluster_note: Option<(bool, String)>,
    pub settings: Settings,
    pub config_path: Option<PathBuf>,
    pub excludes: Excludes,
    /// Files the last directory walk found (the ones to fall back to when closed).
    pub disk: HashSet<Arc<str>>,
    pub encoding: PositionEncoding,
    openings: u64,
    /// Per path, the parse set aside for it that is still the latest text ([`Parse`]), and
    /// its open-document entry.
    pending: HashMap<Arc<str>, (u64, OpenDoc)>,
    generations: u64,
    /// While a walk runs: the paths watched-file events changed meanwhile, which its result
    /// may predate and `install` reads again.
    pub touched: Option<HashSet<Arc<str>>>,
    /// For the server's own disk watch (`disk::poll`): what the roots held when the last index
    /// began, or at the last scan since, numbered by index.
    pub disk_scan: Option<(u64, Arc<crate::scan::Scan>)>,
    /// Watched-file notifications are numbered as they arrive (their reads run concurrently):
    /// per path, the latest one applied, so that an older read never overwrites a newer one.
    pub watch_seq: u64,
    watch_applied: HashMap<Arc<str>, u64>,
    /// Indexes installed so far: a base of the latest one means the workspace as read is
    /// analysed (the end of the indexing progress, `policylens/serverStatus`'s `ready`).
    pub installs: u64,
}

impl State {
    fn new() -> State {
        State {
            ws: Workspace::new(),
            docs: HashMap::new(),
            open: Arc::default(),
            roots: Roots::default(),
            cluster_note: None,
            progress: None,
            settings: Settings::default(),
            config_path: None,
            excludes: Excludes::default(),
            disk: HashSet::new(),
            encoding: PositionEncoding::Utf16,
            openings: 0,
            pending: HashMap::new(),
            generations: 0,
            touched: None,
            disk_scan: None,
            watch_seq: 0,
            watch_applied: HashMap::new(),
            installs: 0,
        }
    }

    pub fn is_open(&self, path: &str) -> bool {
        self.docs.contains_key(path)
    }

    pub fn is_config(&self, path: &str) -> bool {
        self.config_path.as_deref().is_some_and(|c| c == Path::new(path))
    }

    /// Puts an editor text into the workspace with its open-document entry: as the config,
    /// as a manifest, or nowhere when the config excludes it. A big manifest comes back as a
    /// [`Parse`] to run aside; any parse still pending for the path is superseded.
    fn route(&mut self, path: &Arc<str>, text: String, doc: OpenDoc) -> Option<Parse> {
        self.pending.remove(path);
        let manifest = !self.is_config(path) && !self.excludes.is_excluded(Path::new(&**path));
        if manifest && text.len() >= PARSE_ASIDE {
            self.generations += 1;
            self.pending.insert(path.clone(), (self.generations, doc.clone()));
            return Some(Parse { path: path.clone(), text: text.into(), doc, generation: self.generations });
        }
        Arc::make_mut(&mut self.open).insert(path.clone(), doc);
        if self.is_config(path) {
            self.ws.set_config(Some(path), &text);
        } else if manifest {
            self.ws.set_file(path, text);
        }
        None
    }

    /// Installs a parse made aside, unless a later text of the file (or its closing)
    /// superseded it. Returns whether it was installed.
    pub fn land(&mut self, parse: Parse, file: policylens_core::workspace::SourceFile) -> bool {
        if !self.wanted(&parse.path, parse.generation) {
            return false;
        }
        self.pending.remove(&parse.path);
        Arc::make_mut(&mut self.open).insert(parse.path, parse.doc);
        self.ws.set_parsed(file);
        true
    }

    /// Whether the parse of `generation` for `path` is still wanted.
    pub fn wanted(&self, path: &str, generation: u64) -> bool {
        self.pending.get(path).is_some_and(|(g, _)| *g == generation)
    }

    /// Forgets a parse that failed, so nobody waits for it.
    pub fn abandon(&mut self, path: &str, generation: u64) {
        if self.wanted(path, generation) {
            self.pending.remove(path);
        }
    }

    /// Whether a parse is pending for `path` (for any path with `None`).
    pub fn parsing(&self, path: Option<&str>) -> bool {
        path.map_or(!self.pending.is_empty(), |p| self.pending.contains_key(p))
    }

    pub fn did_open(&mut self, path: Arc<str>, uri: Uri, version: i32, text: &str) -> Option<Parse> {
        self.docs.insert(path.clone(), Document::new(version, text));
        self.openings += 1;
        let opening = self.openings;
        self.route(&path, text.to_owned(), OpenDoc { uri, version, opening, saved: SavedSide::default() })
    }

    /// Applies the changes in order; `Err` when the document is not open (the client is out
    /// of sync and the event is ignored).
    pub fn did_change(
        &mut self,
        path: &Arc<str>,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) -> Result<Option<Parse>, NotOpen> {
        let enc = self.encoding;
        let Some(doc) = self.docs.get_mut(path) else { return Err(NotOpen) };
        for c in changes {
            doc.apply(c.range, &c.text, enc, version);
        }
        doc.version = version;
        let text = doc.text();
        // The entry of the last opening, also when its first text is still being parsed.
        let Some(entry) = self.pending.get(path).map(|(_, d)| d.clone()).or_else(|| self.open.get(path).cloned())
        else {
            return Err(NotOpen);
        };
        Ok(self.route(path, text, OpenDoc { version, ..entry }))
    }

    /// The file of an open document changed on disk (saved, or written by another program):
    /// what the hover on an unsaved edit kept of the old disk text goes.
    pub fn disk_changed(&mut self, path: &str) {
        if self.open.contains_key(path)
            && let Some(doc) = Arc::make_mut(&mut self.open).get_mut(path)
        {
            doc.saved = SavedSide::default();
        }
    }

    /// Closes a document; returns whether the config was closed (which needs a re-index, as
    /// unsaved config edits may have changed the excludes).
    pub fn did_close(&mut self, path: &str) -> bool {
        if self.docs.remove(path).is_none() {
            return false;
        }
        self.pending.remove(path);
        Arc::make_mut(&mut self.open).remove(path);
        if self.is_config(path) {
            return true;
        }
        // Back to what is on disk, if the walk or a watched-file event put it in the workspace;
        // a binary or non-UTF-8 file is recorded as such, as a walk would.
        let on_disk = self.disk.contains(path).then(|| policylens_loader::read_file(path.into(), Path::new(path)).ok());
        match on_disk.flatten() {
            Some(file) => self.ws.set_parsed(file),
            None => {
                self.disk.remove(path);
                self.ws.remove_file(path);
            }
        }
        false
    }

    /// The edits that turned the document as `base` saw it into its text as `now` sees it:
    /// `None` when either did not have it open, it was reopened in between (versions restart),
    /// or the edits are forgotten.
    pub fn edits_since(&self, path: &str, base: &View, now: &View) -> Option<Vec<ByteEdit>> {
        let (from, to) = (base.open.get(path)?, now.open.get(path)?);
        if from.opening != to.opening {
            return None;
        }
        self.docs.get(path)?.edits_between(from.version, to.version)
    }

    /// Forgets the edits a full analysis has seen (the open documents of its [`View`]).
    pub fn forget_edits(&mut self, seen: &HashMap<Arc<str>, OpenDoc>) {
        for (path, o) in seen {
            let current = self.open.get(path).is_some_and(|c| c.opening == o.opening);
            if let (true, Some(d)) = (current, self.docs.get_mut(path)) {
                d.forget_edits(o.version);
            }
        }
    }

    /// The open documents now.
    pub fn open(&self) -> Arc<HashMap<Arc<str>, OpenDoc>> {
        self.open.clone()
    }

    pub fn view(&mut self, caps: Arc<Caps>) -> View {
        View {
            snap: self.ws.snapshot(),
            base: None,
            open: self.open.clone(),
            caps,
            folders: self.roots.folders(),
            roots: Arc::new(self.roots.dirs()),
            installs: self.installs,
        }
    }

    /// Replaces the whole workspace after a directory walk, keeping the open documents' texts.
    pub fn install(
        &mut self,
        mut fresh: Workspace,
        disk: HashSet<Arc<str>>,
        config_path: Option<PathBuf>,
        excludes: Excludes,
    ) {
        self.config_path = config_path;
        self.excludes = excludes;
        let open: Vec<(Arc<str>, String)> = self.docs.iter().map(|(p, d)| (p.clone(), d.text())).collect();
        for (path, text) in open {
            if self.is_config(&path) {
                fresh.set_config(Some(&path), &text);
            } else if !self.excludes.is_excluded(Path::new(&*path)) {
                fresh.set_file(&path, text);
            }
        }
        self.ws = fresh;
        self.disk = disk;
        self.installs += 1;
        // Files changed on disk while the walk ran: as they are now.
        let mut touched: Vec<Arc<str>> = self.touched.take().unwrap_or_default().into_iter().collect();
        touched.sort();
        for path in touched {
            let p = Path::new(&*path);
            let content = crate::config::is_discoverable(p, &self.roots.dirs(), &self.excludes)
                .then(|| policylens_loader::read_file(path.clone(), p).ok())
                .flatten();
            self.apply_disk(path, content);
        }
    }

    /// Applies what a watched-file notification numbered `seq` read for `path` (`None`: gone,
    /// or not a manifest of the workspace); `false` when the workspace did not change. Skipped
    /// when a later notification already applied the path.
    pub fn apply_watched(&mut self, seq: u64, path: Arc<str>, content: Option<SourceFile>) -> bool {
        if self.watch_applied.get(&path).is_some_and(|s| *s > seq) {
            return false;
        }
        self.watch_applied.insert(path.clone(), seq);
        if let Some(t) = &mut self.touched {
            t.insert(path.clone());
        }
        self.apply_disk(path, content)
    }

    /// Puts a file as on disk into the workspace, or takes it (and, for a directory, what was
    /// below it) out. Open documents keep the editor's text; what is on disk is noted for
    /// when they close.
    fn apply_disk(&mut self, path: Arc<str>, content: Option<SourceFile>) -> bool {
        match content {
            Some(content) => {
                self.disk.insert(path.clone());
                if self.is_open(&path) {
                    return false;
                }
                self.ws.set_parsed(content);
                true
            }
            None => {
                let dir = format!("{path}/");
                let gone: Vec<Arc<str>> =
                    self.disk.iter().filter(|p| **p == path || p.starts_with(&dir)).cloned().collect();
                let mut changed = false;
                for p in gone {
                    self.disk.remove(&p);
                    if !self.is_open(&p) {
                        changed |= self.ws.remove_file(&p);
                    }
                }
                if !self.is_open(&path) {
                    changed |= self.ws.remove_file(&path);
                }
                changed
            }
        }
    }
}

/// Shared by every handler and background task.
pub struct Shared {
    pub client: Client,
    state: Mutex<State>,
    pub caps: OnceLock<Arc<Caps>>,
    /// Bumped on every workspace change; the diagnostics publisher watches it.
    pub changes: watch::Sender<u64>,
    /// The roots epoch (`Roots::epoch`) the last finished index read; 0 before the first.
    pub indexed: watch::Sender<u64>,
    /// Bumped whenever a parse set aside ends (landed or not).
    pub parsed: watch::Sender<u64>,
    /// Serialises re-indexing (config changes while a walk runs).
    pub index_lock: tokio::sync::Mutex<()>,
    pub shutdown: AtomicBool,
    /// The last fully analysed view (its snapshot's diagnostics are computed).
    base: Mutex<Option<View>>,
    /// Bumped when `base` is replaced.
    pub base_changed: watch::Sender<u64>,
    /// What the client was last sent per file; both diagnostics passes publish through it.
    pub pushed: tokio::sync::Mutex<HashMap<Arc<str>, Pushed>>,
    /// The live cluster's watch (`cluster.rs`), and its generation: bumped when it stops.
    pub cluster_watch: Mutex<Option<policylens_cluster::Watcher>>,
    pub cluster_generation: std::sync::atomic::AtomicU64,
    /// Failed cluster reads in a row (the retry backs off with them).
    pub cluster_retries: std::sync::atomic::AtomicU32,
    /// `workspace/textDocumentContent` for `policylens-cluster:` was registered with the
    /// client (once, after the first cluster read).
    pub cluster_docs_registered: AtomicBool,
}

impl Shared {
    pub fn new(client: Client) -> Shared {
        Shared {
            client,
            state: Mutex::new(State::new()),
            caps: OnceLock::new(),
            changes: watch::Sender::new(0),
            indexed: watch::Sender::new(0),
            parsed: watch::Sender::new(0),
            index_lock: tokio::sync::Mutex::new(()),
            shutdown: AtomicBool::new(false),
            base: Mutex::new(None),
            base_changed: watch::Sender::new(0),
            pushed: tokio::sync::Mutex::new(HashMap::new()),
            cluster_watch: Mutex::new(None),
            cluster_generation: std::sync::atomic::AtomicU64::new(0),
            cluster_retries: std::sync::atomic::AtomicU32::new(0),
            cluster_docs_registered: AtomicBool::new(false),
        }
    }

    /// The last fully analysed view.
    pub fn base(&self) -> Option<View> {
        self.base.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Installs a fully analysed view as the base. The edits the previous base had seen
    /// are forgotten (not this one's: a computation may still be moving diagnostics from the
    /// previous base).
    pub fn set_base(&self, view: View) {
        let old = self.base.lock().unwrap_or_else(|e| e.into_inner()).replace(view);
        if let Some(old) = old {
            self.lock().forget_edits(&old.open);
        }
        self.base_changed.send_modify(|g| *g += 1);
    }

    /// The state; a panic that poisoned the lock does not take the server down with it.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn caps(&self) -> Arc<Caps> {
        self.caps.get().cloned().unwrap_or_default()
    }

    pub fn view(&self) -> View {
        let caps = self.caps();
        let mut view = self.lock().view(caps);
        view.base = self.base().map(|b| b.snap).filter(|b| !b.same(&view.snap));
        view
    }

    /// The view for a request on `path` (on every file with `None`): once no parse set
    /// aside for it is pending, so the request sees the text the client last sent. Requests
    /// on other files do not wait.
    pub async fn view_for(&self, path: Option<&str>) -> View {
        let mut parsed = self.parsed.subscribe();
        loop {
            parsed.borrow_and_update();
            if !self.lock().parsing(path) {
                return self.view();
            }
            if parsed.changed().await.is_err() {
                return self.view();
            }
        }
    }

    /// [`Shared::view_for`] the document `uri` names.
    pub async fn view_for_uri(&self, uri: &Uri) -> View {
        match crate::from_proto::path(uri) {
            Some(p) => self.view_for(Some(&p)).await,
            None => self.view(),
        }
    }

    /// Waits until the roots as they are now have been indexed. Before that, a request that
    /// reads the world would answer from the open documents alone: "no policy reaches it",
    /// no definition (ARCHITECTURE.md: no answer is wrong while indexing).
    pub async fn ready(&self) {
        let mut indexed = self.indexed.subscribe();
        let wanted = self.lock().roots.epoch.max(1);
        let _ = indexed.wait_for(|e| *e >= wanted).await;
    }

    /// Whether the server watches the disk itself (`disk::poll`): the client cannot register
    /// watchers, or a workspace root lies above its folders and it cannot watch by base
    /// directory. Decided from the roots named in `initialize`.
    pub fn polls_disk(&self) -> bool {
        let caps = self.caps();
        let outside = !self.lock().roots.outside_folders().is_empty();
        !caps.watched_files_dynamic || (outside && !caps.watched_files_relative)
    }

    /// Whether the last index installed has been analysed whole (a base of it is in place).
    pub fn is_analysed(&self) -> bool {
        let installs = self.lock().installs;
        self.base().is_some_and(|b| b.installs >= installs)
    }

    /// Waits until a base of the index numbered `installs` (or a later one) is in place.
    pub async fn analysed(&self, installs: u64) {
        let mut bases = self.base_changed.subscribe();
        loop {
            bases.borrow_and_update();
            if self.base().is_some_and(|b| b.installs >= installs) || self.shutdown.load(Ordering::Relaxed) {
                return;
            }
            if bases.changed().await.is_err() {
                return;
            }
        }
    }

    /// Whether the roots as they are now have been indexed.
    pub fn is_ready(&self) -> bool {
        *self.indexed.borrow() >= self.lock().roots.epoch.max(1)
    }

    /// [`Shared::view_for`] once the roots are indexed ([`Shared::ready`]): for requests whose
    /// answer depends on files the client has not opened.
    pub async fn world_view_for(&self, path: Option<&str>) -> View {
        self.ready().await;
        self.view_for(path).await
    }

    /// [`Shared::world_view_for`] the document `uri` names.
    pub async fn world_view_for_uri(&self, uri: &Uri) -> View {
        self.ready().await;
        self.view_for_uri(uri).await
    }

    /// Tells the diagnostics publisher that the workspace changed.
    pub fn changed(&self) {
        self.changes.send_modify(|g| *g += 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(st: &mut State, path: &str) -> Vec<String> {
        let snap = st.ws.snapshot();
        snap.source(path).map(|f| f.objects.iter().map(|o| o.name.value.to_string()).collect()).unwrap_or_default()
    }

    fn service(name: &str) -> String {
        format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: shop\n")
    }

    fn temp_root(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("policylens-state-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    /// A file created on disk while the first walk ran (its event applied before the walk's
    /// result is installed) is not lost when the walk, which never saw it, is installed.
    #[test]
    fn watched_changes_during_a_walk_survive_its_install() {
        let root = temp_root("walk");
        let file = root.join("late.yaml");
        std::fs::write(&file, service("late")).unwrap();
        let path: Arc<str> = file.to_string_lossy().into();
        let mut st = State::new();
        st.roots = Roots::new(vec![root.clone()]);
        st.touched = Some(HashSet::new());
        let content = policylens_loader::read_file(path.clone(), &file).ok();
        assert!(st.apply_watched(1, path.clone(), content));
        st.install(Workspace::new(), HashSet::new(), None, Excludes::default());
        assert_eq!(names(&mut st, &path), ["late"]);
        assert!(st.disk.contains(&path) && st.touched.is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Watched-file notifications read the disk concurrently: an older read applied after a
    /// newer one is dropped.
    #[test]
    fn an_older_watched_read_never_overwrites_a_newer_one() {
        let root = temp_root("order");
        let path: Arc<str> = root.join("a.yaml").to_string_lossy().into();
        let mut st = State::new();
        assert!(st.apply_watched(2, path.clone(), Some(SourceFile::parse(path.clone(), service("new").into()))));
        assert!(!st.apply_watched(1, path.clone(), Some(SourceFile::parse(path.clone(), service("old").into()))));
        assert_eq!(names(&mut st, &path), ["new"]);
        assert!(!st.apply_watched(1, path.clone(), None));
        assert_eq!(names(&mut st, &path), ["new"]);
        assert!(st.apply_watched(3, path.clone(), None));
        assert_eq!(names(&mut st, &path), Vec::<String>::new());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
