//! Loads the workspace the CLI analyses: config lookup, directory walk, parallel parse.

use std::path::{Path, PathBuf};
use std::time::Instant;

use policylens_core::workspace::loader;
use policylens_core::workspace::{Snapshot, Workspace};

use crate::Common;

pub struct Loaded {
    pub snapshot: Snapshot,
    pub load_ms: f64,
}

/// The path as shown to users and in JSON: relative to the current directory when below it.
pub fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let rel = cwd.as_deref().and_then(|c| abs.strip_prefix(c).ok()).unwrap_or(&abs);
    let s = rel.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map(str::to_owned).unwrap_or(s)
}

pub fn load(common: &Common) -> Result<Loaded, String> {
    let start = Instant::now();
    let paths: Vec<PathBuf> = if common.paths.is_empty() { vec![PathBuf::from(".")] } else { common.paths.clone() };
    let mut ws = Workspace::new();
    let config_path = match &common.config {
        Some(p) if !p.is_file() => return Err(format!("{}: config file not found", p.display())),
        Some(p) => Some(p.clone()),
        None => loader::find_config(&paths[0]),
    };
    if let Some(cp) = &config_path {
        let text = std::fs::read_to_string(cp).map_err(|e| format!("{}: {e}", cp.display()))?;
        ws.set_config(Some(&display_path(cp)), &text);
    }
    let mut config = ws.config().config.clone();
    config.base_dir = config_path.as_deref().and_then(Path::parent).and_then(|b| std::path::absolute(b).ok());
    let excludes = config.exclude_matcher();
    let is_excluded = |p: &Path| excludes.is_excluded(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let (files, errors) = loader::discover(&paths, &is_excluded);
    if let Some(e) = errors.first() {
        return Err(e.clone());
    }
    // The config file is read as config, not as a manifest.
    let manifests: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter(|f| !config_path.as_deref().is_some_and(|c| same_file(c, f)))
        .map(|f| (display_path(&f), f))
        .collect();
    // Each file is read, parsed and its text dropped in one go: the texts are never all in
    // memory at once.
    if let Some((f, e)) = ws.read_files(manifests).into_iter().next() {
        return Err(format!("{}: {e}", f.display()));
    }
    let snapshot = ws.snapshot();
    Ok(Loaded { snapshot, load_ms: start.elapsed().as_secs_f64() * 1000.0 })
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Peak resident set size of this process (Linux `VmHWM`).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
