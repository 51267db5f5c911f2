//! A file's bytes as text, or why they are not text. Pure: reading the bytes happens in the
//! loader crate (`policylens-loader`).

/// A file's bytes classified: text, or why it is not text.
#[derive(Debug)]
pub enum FileContent {
    Text(String),
    Unreadable(String),
}

/// Why `bytes` are not a text file, when a NUL byte in their first 8 KiB says so (as git
/// decides). Editor buffers are checked too: their JSON can carry NULs as `\u0000`.
pub fn binary(bytes: &[u8]) -> Option<String> {
    bytes.iter().take(8192).any(|&b| b == 0).then(|| "binary file (holds NUL bytes)".into())
}

/// Binary and non-UTF-8 bytes are unreadable (reported as such), not an error.
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
