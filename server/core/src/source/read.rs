//! Reading a file's bytes as text. Walking directories and finding the config happen in the
//! loader crate (`policylens-loader`); this is what a file read back for its positions needs.

use std::path::Path;

/// A file as read from disk: text, or why it is not text.
#[derive(Debug)]
pub enum FileContent {
    Text(String),
    Unreadable(String),
}

/// Reads a file; binary and non-UTF-8 files are reported as unreadable, not failed.
pub fn read(path: &Path) -> std::io::Result<FileContent> {
    let bytes = std::fs::read(path)?;
    Ok(decode(bytes))
}

/// Why `bytes` are not a text file, when a NUL byte in their first 8 KiB says so (as git
/// decides). Editor buffers are checked too: their JSON can carry NULs as `\u0000`.
pub fn binary(bytes: &[u8]) -> Option<String> {
    bytes.iter().take(8192).any(|&b| b == 0).then(|| "binary file (holds NUL bytes)".into())
}

pub fn decode(bytes: Vec<u8>) -> FileContent {
    if let Some(reason) = binary(&bytes) {
        return FileContent::Unreadable(reason);
    }
    match String::from_utf8(bytes) {
        Ok(s) => FileContent::Text(s),
        Err(e) => {
            FileContent::Unreadable(format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
        }
    }
}
