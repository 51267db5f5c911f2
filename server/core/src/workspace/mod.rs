//! The set of files and the immutable snapshots analysis reads.
//!
//! Setting a file re-parses that file only; everything derived from all files (catalog,
//! topology, diagnostics) is computed lazily, once per snapshot, and shared by every request
//! that reads the snapshot.

mod closure;
mod partial;

pub use crate::source::{Origin, SourceFile};
pub use crate::world::{ObjId, World};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use crate::catalog::{Config, ConfigError, load_config};
use crate::diagnostic::{Diagnostic, Suppressed};
use crate::effective::EffectiveIndex;
use crate::topology::Linked;

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

    /// Adds or replaces a file. Only this file is parsed, and of a file held before, only
    /// from the first document that changed ([`SourceFile::reparse`]): a keystroke in a big
    /// buffer re-reads its own document and those after it.
    pub fn set_file(&mut self, path: &str, text: impl Into<Arc<str>>) {
        let text = text.into();
        let file = match self.files.get(path) {
            Some(prev) => SourceFile::reparse(prev, text),
            None => SourceFile::parse(path.into(), text),
        };
        self.insert([file]);
    }

    /// Adds or replaces a file parsed elsewhere ([`SourceFile::parse`]): the language server
    /// parses big editor texts off its ordered writer and installs them here.
    pub fn set_parsed(&mut self, file: SourceFile) {
        self.insert([file]);
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

    /// Adds or replaces many files parsed elsewhere: the loader reads and parses files from
    /// disk in parallel ([`SourceFile::parse_on_disk`]) and installs them here.
    pub fn set_parsed_files(&mut self, files: impl IntoIterator<Item = SourceFile>) {
        self.insert(files);
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

    /// The files of one origin only (the live cluster's alone, to tell what the files laid
    /// over it change), under the same config; the files are shared, not parsed again.
    pub fn only(&self, origin: Origin) -> Workspace {
        let files =
            self.files.iter().filter(|(_, f)| f.origin == origin).map(|(p, f)| (p.clone(), f.clone())).collect();
        Workspace { files: Arc::new(files), config: self.config.clone(), cached: None }
    }

    /// Sets the workspace config from the text of a `.policylens.yaml`.
    pub fn set_config(&mut self, path: Option<&str>, text: &str) {
        let (mut config, errors) = load_config(text);
        // The directories belong to where the file is, not to its text.
        config.base_dir = self.config.config.base_dir.clone();
        config.cwd = self.config.config.cwd.clone();
        config.roots = self.config.config.roots.clone();
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

    /// The workspace roots (absolute): unit rules read folder names below them only.
    pub fn set_roots(&mut self, roots: Vec<PathBuf>) {
        Arc::make_mut(&mut self.config).config.roots = roots;
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
    world: OnceLock<Arc<Linked>>,
    effective: OnceLock<Arc<EffectiveIndex>>,
    diagnostics: OnceLock<Arc<Reported>>,
    /// The last partial worlds cut for one file each (`partial.rs`): a keystroke's
    /// diagnostics and the requests right after it share one.
    near: Mutex<Vec<Arc<partial::Near>>>,
}

/// A snapshot's diagnostics as reported, and those ignore comments silenced: computed by
/// `analysis::diagnostics` (which gives `Snapshot::diagnostics`), kept here.
#[derive(Debug, Default)]
pub(crate) struct Reported {
    pub by_file: BTreeMap<Arc<str>, Vec<Diagnostic>>,
    pub suppressed: Vec<Suppressed>,
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
    /// files, diagnostics (computed by the caller first: the detached world could not) and a
    /// world without topology, and no effective-policy index. Holding the whole analysis while
    /// the next state is analysed would double the peak memory of a full analysis.
    pub(crate) fn detach_base(&self) -> Snapshot {
        let world = match self.inner.world.get() {
            Some(w) => OnceLock::from(Arc::new(w.without_topology())),
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

    /// Whether `other` holds the same config and files as this one, but perhaps `path`.
    pub fn same_except(&self, other: &Snapshot, path: &str) -> bool {
        let (a, b) = (&self.inner.files, &other.inner.files);
        Arc::ptr_eq(&self.inner.config, &other.inner.config)
            && a.len() == b.len()
            && a.iter().zip(b.iter()).all(|((pa, fa), (pb, fb))| pa == pb && (&**pa == path || Arc::ptr_eq(fa, fb)))
    }

    /// The same workspace with one file's text replaced (parsed again from its first changed
    /// document), nothing computed: the other side of a what-if on an edit (the saved file
    /// against the editor's buffer).
    pub fn with_file(&self, path: &str, text: impl Into<Arc<str>>) -> Snapshot {
        let text = text.into();
        let file = match self.inner.files.get(path) {
            Some(prev) => SourceFile::reparse(prev, text),
            None => SourceFile::parse(path.into(), text),
        };
        let mut files = (*self.inner.files).clone();
        files.insert(file.path.clone(), Arc::new(file));
        Snapshot {
            inner: Arc::new(SnapshotInner {
                files: Arc::new(files),
                config: self.inner.config.clone(),
                world: OnceLock::new(),
                effective: OnceLock::new(),
                diagnostics: OnceLock::new(),
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
    /// (The diagnostics are computed by the caller first.)
    pub(crate) fn detach_results(&self) -> Snapshot {
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
    pub fn world(&self) -> &Arc<Linked> {
        self.inner.world.get_or_init(|| {
            let files = self.inner.files.values().cloned().collect();
            Arc::new(Linked::build(World::build(files, &self.inner.config.config)))
        })
    }

    /// Whether [`Snapshot::world`] is computed already (then it answers at once).
    pub fn world_ready(&self) -> bool {
        self.inner.world.get().is_some()
    }

    /// Whether the effective policies are computed (a full pass may be computing them now).
    pub fn effective_ready(&self) -> bool {
        self.inner.effective.get().is_some()
    }

    /// Effective policies and the status of every policy (computed once, shared by check,
    /// status, explain and the language server).
    pub fn effective(&self) -> &Arc<EffectiveIndex> {
        self.inner.effective.get_or_init(|| Arc::new(EffectiveIndex::build(self.world())))
    }

    /// Where `analysis::diagnostics` keeps this snapshot's diagnostics once computed.
    pub(crate) fn reported_cell(&self) -> &OnceLock<Arc<Reported>> {
        &self.inner.diagnostics
    }
}
