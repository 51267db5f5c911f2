//! Walking directories for manifests and finding the config file.

use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = ".policylens.yaml";

/// Every `*.yaml`/`*.yml` file under `root` (a file given directly is taken whatever its
/// extension), sorted. Honours `.gitignore` and `.ignore` (in the directory and its parents),
/// skips hidden entries and what `exclude` says. Errors name what could not be walked.
pub fn walk_yaml(root: &Path, exclude: &dyn Fn(&Path) -> bool) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    if !root.is_dir() {
        return (vec![root.to_path_buf()], errors);
    }
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(false)
        .git_global(false)
        .require_git(false)
        .parents(true)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        match entry {
            Ok(e) => {
                let p = e.path();
                if e.file_type().is_some_and(|t| t.is_dir()) {
                    continue;
                }
                if is_yaml(p) && e.file_type().is_some_and(|t| t.is_file()) && !exclude(p) {
                    files.push(p.to_path_buf());
                }
            }
            Err(err) => errors.push(err.to_string()),
        }
    }
    files.sort();
    (files, errors)
}

fn is_yaml(p: &Path) -> bool {
    matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml"))
}

/// The nearest `.policylens.yaml` in `start` (a file's directory when `start` is a file) or a
/// parent directory.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    let start = if start.is_dir() { start } else { start.parent()? };
    let abs = std::path::absolute(start).ok()?;
    abs.ancestors().map(|d| d.join(CONFIG_FILE)).find(|p| p.is_file())
}

/// Whether `path` is a manifest a walk of `roots` would pick up: below a root, no hidden
/// component, not git-ignored, not excluded. For files that appear or change on disk after the
/// first walk (the language server's watcher).
pub fn is_discoverable(path: &Path, roots: &[PathBuf], exclude: &dyn Fn(&Path) -> bool) -> bool {
    if !is_yaml(path) || exclude(path) {
        return false;
    }
    let Some(root) = roots.iter().find(|r| path.starts_with(r)) else { return false };
    let Ok(rel) = path.strip_prefix(root) else { return false };
    if rel.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.')) {
        return false;
    }
    !is_ignored(path)
}

/// `.ignore` and `.gitignore` files from the file's directory up to the filesystem root; the
/// deepest file with a matching rule decides (as the walk reads parents' ignore files too).
fn is_ignored(path: &Path) -> bool {
    use ignore::gitignore::GitignoreBuilder;
    let Some(dir) = path.parent() else { return false };
    for d in dir.ancestors() {
        for name in [".ignore", ".gitignore"] {
            let f = d.join(name);
            if !f.is_file() {
                continue;
            }
            let mut b = GitignoreBuilder::new(d);
            if b.add(&f).is_some() {
                continue;
            }
            let Ok(gi) = b.build() else { continue };
            let m = gi.matched_path_or_any_parents(path, false);
            if m.is_ignore() {
                return true;
            }
            if m.is_whitelist() {
                return false;
            }
        }
    }
    false
}
