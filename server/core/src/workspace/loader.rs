//! Finding and reading workspace files from disk: the one place the CLI and the language
//! server share for walking directories (honouring `.gitignore`, skipping hidden
//! directories) and for the `.policylens.yaml` lookup.

use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = ".policylens.yaml";

/// A file as read from disk: text, or why it is not text.
#[derive(Debug)]
pub enum FileContent {
    Text(String),
    Unreadable(String),
}

/// Every `*.yaml`/`*.yml` file under `paths` (files given directly are taken whatever their
/// extension), sorted, without duplicates. Directories honour `.gitignore` and skip hidden
/// entries. Errors name the path that could not be walked.
pub fn discover(paths: &[PathBuf], exclude: &dyn Fn(&Path) -> bool) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for root in paths {
        if root.is_file() {
            files.push(root.clone());
            continue;
        }
        if !root.exists() {
            errors.push(format!("{}: no such file or directory", root.display()));
            continue;
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
                    let is_yaml = matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml"));
                    if is_yaml && e.file_type().is_some_and(|t| t.is_file()) && !exclude(p) {
                        files.push(p.to_path_buf());
                    }
                }
                Err(err) => errors.push(err.to_string()),
            }
        }
    }
    files.sort();
    files.dedup();
    (files, errors)
}

/// Reads a file; binary and non-UTF-8 files are reported as unreadable, not failed.
pub fn read(path: &Path) -> std::io::Result<FileContent> {
    let bytes = std::fs::read(path)?;
    Ok(decode(bytes))
}

pub fn decode(bytes: Vec<u8>) -> FileContent {
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return FileContent::Unreadable("binary file (holds NUL bytes)".into());
    }
    match String::from_utf8(bytes) {
        Ok(s) => FileContent::Text(s),
        Err(e) => {
            FileContent::Unreadable(format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
        }
    }
}

/// The nearest `.policylens.yaml` in `start` or a parent directory.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    let start = if start.is_file() { start.parent()? } else { start };
    let abs = std::path::absolute(start).ok()?;
    abs.ancestors().map(|d| d.join(CONFIG_FILE)).find(|p| p.is_file())
}
