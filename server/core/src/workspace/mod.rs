//! The set of files and the immutable snapshots analysis reads.
//!
//! Setting a file re-parses that file only; everything derived from all files (catalog,
//! topology, diagnostics) is computed lazily, once per snapshot, and shared by every request
//! that reads the snapshot.

mod file;
mod key_index;
pub mod loader;
mod partial;
mod suppress;
mod world;

pub use file::{Origin, SourceFile};
pub use suppress::{Suppression, SuppressionScope};
pub use world::{ObjId, World};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::analysis::diagnostics::{self, Diagnostic};
use crate::catalog::{Config, ConfigError, load_config};
use crate::effective::EffectiveIndex;

/// The workspace config in force, with the file it came from.
#[derive(Clone, Debug, Default)]
pub struct ConfigState {
    pub path: Option<Arc<str>>,
    /// The config file's text, so its diagnostics have positions.
    pub file: Option<Arc<SourceFile>>,
    pub config: Config,
    pub errors: Vec<ConfigError>,
}

/// The mutable workspace. Edits are applied in the order they are made; readers take
/// [`Snapshot`]s, which never change.
#[derive(Debug, Default)]
pub struct Workspace {
    files: Arc<BTreeMap<Arc<str>, Arc<SourceFile>>>,
    config: Arc<ConfigState>,
    /// The last snapshot handed out, reused until the next edit so that its lazily computed
    /// analysis is shared.
    cached: Option<Snapshot>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::default()
    }

    /// Adds or replaces a file. Only this file is parsed.
    pub fn set_file(&mut self, path: &str, text: impl Into<Arc<str>>) {
        self.insert([SourceFile::parse(path.into(), text.into())]);
    }

    /// Adds or replaces a file from an editor's text: like [`Workspace::set_file`], except that
    /// a text the loader would take for a binary file is recorded as unreadable, as it would
    /// be once saved.
    pub fn set_editor_file(&mut self, path: &str, text: String) {
        match loader::binary(text.as_bytes()) {
            Some(reason) => self.set_unreadable(path, reason),
            None => self.set_file(path, text),
        }
    }

    /// Adds or replaces a file of another origin (a `context:` directory, the cluster).
    pub fn set_file_with_origin(&mut self, path: &str, text: impl Into<Arc<str>>, origin: Origin) {
        self.insert([SourceFile::parse(path.into(), text.into()).with_origin(origin)]);
    }

    /// Records a file that could not be read as text (binary, not UTF-8): it contributes one
    /// diagnostic and nothing else.
    pub fn set_unreadable(&mut self, path: &str, reason: &str) {
        self.insert([SourceFile::unreadable(path.into(), reason)]);
    }

    /// Adds or replaces many files, parsing them in parallel.
    pub fn set_files(&mut self, files: Vec<(String, String)>) {
        self.set_files_with_origin(files, Origin::Workspace);
    }

    /// [`Workspace::set_files`] for files of another origin (the objects a cluster read).
    pub fn set_files_with_origin(&mut self, files: Vec<(String, String)>, origin: Origin) {
        use rayon::prelude::*;
        let parsed: Vec<SourceFile> = files
            .into_par_iter()
            .map(|(path, text)| SourceFile::parse(path.into(), text.into()).with_origin(origin))
            .collect();
        self.insert(parsed);
    }

    /// Reads and parses files from disk in parallel: (path as shown, path on disk). Their
    /// texts are not kept (see [`SourceFile`]). Returns the files that could not be read.
    pub fn read_files(&mut self, files: Vec<(String, PathBuf)>) -> Vec<(PathBuf, std::io::Error)> {
        self.read_files_with_origin(files, Origin::Workspace)
    }

    /// [`Workspace::read_files`] for files of another origin.
    pub fn read_files_with_origin(
        &mut self,
        files: Vec<(String, PathBuf)>,
        origin: Origin,
    ) -> Vec<(PathBuf, std::io::Error)> {
        let (read, failed): (Vec<_>, Vec<_>) = file::read_all(files).into_iter().partition(Result::is_ok);
        self.insert(read.into_iter().flatten().map(|f| f.with_origin(origin)));
        failed.into_iter().filter_map(Result::err).collect()
    }

    /// Adds or replaces a file whose `text` was just read from `disk`, without keeping it.
    pub fn set_file_on_disk(&mut self, path: &str, disk: &Path, text: &str) {
        self.insert([SourceFile::parse_on_disk(path.into(), disk, text)]);
    }

    fn insert(&mut self, files: impl IntoIterator<Item = SourceFile>) {
        let map = Arc::make_mut(&mut self.files);
        for f in files {
            map.insert(f.path.clone(), Arc::new(f));
        }
        self.cached = None;
    }

    pub fn remove_file(&mut self, path: &str) -> bool {
        let removed = Arc::make_mut(&mut self.files).remove(path).is_some();
        if removed {
            self.cached = None;
        }
        removed
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Sets the workspace config from the text of a `.policylens.yaml`.
    pub fn set_config(&mut self, path: Option<&str>, text: &str) {
        let (mut config, errors) = load_config(text);
        // The directories belong to where the file is, not to its text.
        config.base_dir = self.config.config.base_dir.clone();
        config.cwd = self.config.config.cwd.clone();
        let file = path.map(|p| Arc::new(SourceFile::unparsed(p.into(), text.into())));
        self.config = Arc::new(ConfigState { path: path.map(Into::into), file, config, errors });
        self.cached = None;
    }

    /// Where the config's relative paths start (its directory) and where relative file paths
    /// start (the loader's current directory): `worlds` globs match against both.
    pub fn set_config_dirs(&mut self, base: Option<PathBuf>, cwd: Option<PathBuf>) {
        let state = Arc::make_mut(&mut self.config);
        state.config.base_dir = base;
        state.config.cwd = cwd;
        self.cached = None;
    }

    pub fn config(&self) -> &ConfigState {
        &self.config
    }

    pub fn snapshot(&mut self) -> Snapshot {
        if let Some(s) = &self.cached {
            return s.clone();
        }
        let s = Snapshot {
            inner: Arc::new(SnapshotInner {
                files: self.files.clone(),
                config: self.config.clone(),
                world: OnceLock::new(),
                effective: OnceLock::new(),
                diagnostics: OnceLock::new(),
                near: Mutex::default(),
            }),
        };
        self.cached = Some(s.clone());
        s
    }
}

/// An immutable view of the workspace. Cheap to clone; derived data is computed on first use.
#[derive(Clone, Debug)]
pub struct Snapshot {
    inner: Arc<SnapshotInner>,
}

#[derive(Debug)]
struct SnapshotInner {
    files: Arc<BTreeMap<Arc<str>, Arc<SourceFile>>>,
    config: Arc<ConfigState>,
    world: OnceLock<Arc<World>>,
    effective: OnceLock<Arc<EffectiveIndex>>,
    diagnostics: OnceLock<Arc<Reported>>,
    /// The last partial world cut for one file (`partial.rs`): a keystroke's diagnostics
    /// and the requests right after it share it.
    near: Mutex<Option<partial::Near>>,
}

/// A snapshot's diagnostics as reported, and those ignore comments silenced.
#[derive(Debug, Default)]
struct Reported {
    by_file: BTreeMap<Arc<str>, Vec<Diagnostic>>,
    suppressed: Vec<diagnostics::Suppressed>,
}

/// A computed value of one snapshot's cell, shared by another's.
fn share<T>(cell: &OnceLock<Arc<T>>) -> OnceLock<Arc<T>> {
    match cell.get() {
        Some(v) => OnceLock::from(Arc::clone(v)),
        None => OnceLock::new(),
    }
}

impl Snapshot {
    /// Whether both hold the very same files and config (one state of the workspace).
    pub fn same(&self, other: &Snapshot) -> bool {
        Arc::ptr_eq(&self.inner.files, &other.inner.files) && Arc::ptr_eq(&self.inner.config, &other.inner.config)
    }

    /// This snapshot as the base of later partial analyses (`diagnostics::local`): its
    /// files, diagnostics (as far as computed) and a world without topology, and no
    /// effective-policy index. Holding the whole analysis while the next state is analysed
    /// would double the peak memory of a full analysis.
    pub fn as_base(&self) -> Snapshot {
        // Computed first: the detached world could not compute them.
        let _ = self.diagnostics();
        let world = match self.inner.world.get() {
            Some(w) => OnceLock::from(Arc::new(w.detached())),
            None => OnceLock::new(),
        };
        Snapshot {
            inner: Arc::new(SnapshotInner {
                files: self.inner.files.clone(),
                config: self.inner.config.clone(),
                world,
                effective: OnceLock::new(),
                diagnostics: share(&self.inner.diagnostics),
                near: Mutex::default(),
            }),
        }
    }

    /// The same files and config with nothing computed: a test compares answers from two
    /// analyses of one state.
    #[cfg(test)]
    pub(crate) fn unanalysed(&self) -> Snapshot {
        Snapshot {
            inner: Arc::new(SnapshotInner {
                files: self.inner.files.clone(),
                config: self.inner.config.clone(),
                world: OnceLock::new(),
                effective: OnceLock::new(),
                diagnostics: OnceLock::new(),
                near: Mutex::default(),
            }),
        }
    }

    /// The files and diagnostics without the world and effective index they came from: all a
    /// report needs, so a batch run can free the analysis before it renders.
    pub fn without_analysis(&self) -> Snapshot {
        let _ = self.diagnostics();
        Snapshot {
            inner: Arc::new(SnapshotInner {
                files: self.inner.files.clone(),
                config: self.inner.config.clone(),
                world: OnceLock::new(),
                effective: OnceLock::new(),
                diagnostics: share(&self.inner.diagnostics),
                near: Mutex::default(),
            }),
        }
    }

    pub fn files(&self) -> impl ExactSizeIterator<Item = &Arc<SourceFile>> {
        self.inner.files.values()
    }

    pub fn file(&self, path: &str) -> Option<&Arc<SourceFile>> {
        self.inner.files.get(path)
    }

    pub fn config(&self) -> &ConfigState {
        &self.inner.config
    }

    /// A workspace file or the config file, for turning spans into positions.
    pub fn source(&self, path: &str) -> Option<&SourceFile> {
        if let Some(f) = self.inner.files.get(path) {
            return Some(f);
        }
        self.inner.config.file.as_deref().filter(|f| &*f.path == path)
    }

    /// The semantic model: objects, catalog, topology.
    pub fn world(&self) -> &Arc<World> {
        self.inner
            .world
            .get_or_init(|| Arc::new(World::build(self.inner.files.values().cloned().collect(), &self.inner.config)))
    }

    /// Whether [`Snapshot::world`] is computed already (then it answers at once).
    pub fn world_ready(&self) -> bool {
        self.inner.world.get().is_some()
    }

    /// Effective policies and the status of every policy (computed once, shared by check,
    /// status, explain and the language server).
    pub fn effective(&self) -> &Arc<EffectiveIndex> {
        self.inner.effective.get_or_init(|| Arc::new(EffectiveIndex::build(self.world())))
    }

    /// Every diagnostic of the workspace, by file path (files without any are absent).
    pub fn diagnostics(&self) -> &BTreeMap<Arc<str>, Vec<Diagnostic>> {
        &self.reported().by_file
    }

    /// The diagnostics that `# policylens: ignore[...]` comments silenced.
    pub fn suppressed(&self) -> &[diagnostics::Suppressed] {
        &self.reported().suppressed
    }

    fn reported(&self) -> &Reported {
        self.inner.diagnostics.get_or_init(|| {
            let (by_file, suppressed) = diagnostics::compute(self);
            Arc::new(Reported { by_file, suppressed })
        })
    }

    pub fn diagnostics_for(&self, path: &str) -> &[Diagnostic] {
        self.diagnostics().get(path).map(Vec::as_slice).unwrap_or(&[])
    }
}
