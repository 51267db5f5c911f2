//! LSP → core: URIs to absolute path strings, positions to byte offsets.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use policylens_core::syntax::{Position as CorePosition, PositionEncoding, Span};
use policylens_core::workspace::SourceFile;
use tower_lsp_server::ls_types::{Position, Range, Uri};

/// The absolute path a `file:` URI names (percent-decoded), as the workspace keys files.
/// Other schemes (untitled:, git:, ...) have no path and are not analysed.
pub fn path(uri: &Uri) -> Option<Arc<str>> {
    let scheme = uri.scheme().as_str();
    if !scheme.eq_ignore_ascii_case("file") {
        return None;
    }
    let p = uri.to_file_path()?;
    Some(normalize(&p).to_string_lossy().into())
}

/// A path as a filesystem path, with `.` and `..` resolved lexically (no symlinks followed:
/// the same spelling the directory walk produces).
pub fn normalize(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

pub fn offset(file: &SourceFile, pos: Position, enc: PositionEncoding) -> u32 {
    file.offset(CorePosition { line: pos.line, character: pos.character }, enc)
}

pub fn span(file: &SourceFile, range: Range, enc: PositionEncoding) -> Span {
    let a = offset(file, range.start, enc);
    let b = offset(file, range.end, enc);
    Span::new(a.min(b), a.max(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn file_uris_decode_and_others_are_refused() {
        let u = Uri::from_str("file:///tmp/a%20b/c%C3%A9/./x/../d.yaml").unwrap();
        assert_eq!(path(&u).as_deref(), Some("/tmp/a b/cé/d.yaml"));
        assert_eq!(path(&Uri::from_str("untitled:Untitled-1").unwrap()), None);
    }
}
