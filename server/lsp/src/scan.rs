//! What the roots hold on disk, stamped (modification time and size), and the events between
//! two such scans: the baseline each index takes before it walks (`State::disk_scan`) and the
//! server's own watch (`disk.rs`) compare them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use tower_lsp_server::ls_types::FileChangeType;

use crate::config::Excludes;

/// When a file was last seen changed: modification time and size.
type Stamp = (u128, u64);

/// What a scan of the roots saw: every manifest a walk finds, plus the config and the roots'
/// ignore files (a change to those re-indexes).
#[derive(Clone, Default)]
pub struct Scan(HashMap<PathBuf, Stamp>);

fn stamp(p: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(p).ok()?;
    let t = m.modified().ok()?.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    Some((t, m.len()))
}

/// Walks `roots` as the loader does (ignore files, hidden entries, the config's excludes) and
/// stamps what it finds.
pub fn scan(roots: &[PathBuf], excludes: &Excludes, config: Option<&Path>) -> Scan {
    let mut seen = HashMap::new();
    for root in roots {
        let (files, _) = policylens_loader::walk_yaml(root, &|p| excludes.is_excluded(p));
        for extra in [".gitignore", ".ignore", ".policylens.yaml"] {
            let p = root.join(extra);
            if let Some(s) = stamp(&p) {
                seen.insert(p, s);
            }
        }
        for f in files {
            if let Some(s) = stamp(&f) {
                seen.insert(f, s);
            }
        }
    }
    if let Some(s) = config.and_then(|c| Some((c, stamp(c)?))) {
        seen.insert(s.0.to_path_buf(), s.1);
    }
    Scan(seen)
}

/// The events that turn `old` into `new`.
pub fn diff(old: &Scan, new: &Scan) -> Vec<(Arc<str>, FileChangeType)> {
    let path = |p: &PathBuf| -> Arc<str> { p.to_string_lossy().into() };
    let mut events: Vec<(Arc<str>, FileChangeType)> = Vec::new();
    for (p, s) in &new.0 {
        match old.0.get(p) {
            None => events.push((path(p), FileChangeType::CREATED)),
            Some(o) if o != s => events.push((path(p), FileChangeType::CHANGED)),
            Some(_) => {}
        }
    }
    events.extend(old.0.keys().filter(|p| !new.0.contains_key(*p)).map(|p| (path(p), FileChangeType::DELETED)));
    events.sort_by(|a, b| a.0.cmp(&b.0));
    events
}
