//! Reading a file's bytes as text. Walking directories and finding the config happen in the
//! loader crate (`policylens-loader`); this is what a file read back for its positions needs.

use std::path::Path;

/// A file as read from disk: text, or why it is not text.
#[derive(Debug)]
pub enum FileContent {
    Text(String),
    Unreadable(String),
}

/// Why bytes are taken for a binary file (a NUL in the first 8 KiB), or `None`. An editor's
/// text goes through the same test, so a buffer and the file saved from it agree.
pub fn binary(bytes: &[u8]) -> Option<&'static str> {
    bytes.iter().take(8192).any(|&b| b == 0).then_some("binary file (holds NUL bytes)")
}

/// Reads a file; binary and non-UTF-8 files are reported as unreadable, not failed.
pub fn read(path: &Path) -> std::io::Result<FileContent> {
    let bytes = std::fs::read(path)?;
    Ok(decode(bytes))
}

pub fn decode(bytes: Vec<u8>) -> FileContent {
    if let Some(reason) = binary(&bytes) {
        return FileContent::Unreadable(reason.into());
    }
    match String::from_utf8(bytes) {
        Ok(s) => FileContent::Text(s),
        Err(e) => {
            FileContent::Unreadable(format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
        }
    }
}
