//! Splitting a file into documents at `---` / `...` lines, so that a syntax error in one
//! document cannot hide the others (saphyr stops for good at its first error).

/// One document's share of the file, as byte offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    /// Where the text handed to the YAML parser begins: the `---` line, or earlier when
    /// directives or comments precede it.
    pub start: u32,
    /// Where the document's content begins (after its `---` line).
    pub content_start: u32,
    /// The start of the next marker line, or the end of the text.
    pub end: u32,
    /// A document after a `...` line without a `---` of its own: libyaml (and so Kubernetes)
    /// rejects the file there; only a file's first document may start bare.
    pub bare: bool,
    /// The first document only: where a `...` line before it is. libyaml ends no document
    /// there and rejects the file.
    pub stray_end: Option<u32>,
}

/// The end of the line starting at `from` (before its break) and the start of the next line.
/// Lines end at `\n`, `\r\n` or a lone `\r`, as in `LineIndex`.
pub(super) fn line_end(b: &[u8], from: usize) -> (usize, usize) {
    let rest = &b[from.min(b.len())..];
    match memchr::memchr2(b'\n', b'\r', rest) {
        None => (b.len(), b.len()),
        Some(i) => {
            let eol = from + i;
            let next = if b[eol] == b'\r' && b.get(eol + 1) == Some(&b'\n') { eol + 2 } else { eol + 1 };
            (eol, next)
        }
    }
}

fn is_marker(line: &[u8], marker: &[u8; 3]) -> bool {
    line.starts_with(marker) && matches!(line.get(3), None | Some(b' ' | b'\t'))
}

/// A line that makes an implicit document exist: not blank, not a comment, not a directive.
fn has_content(line: &[u8]) -> bool {
    if line.first() == Some(&b'%') {
        return false;
    }
    match line.iter().find(|&&c| c != b' ' && c != b'\t') {
        None | Some(b'#') => false,
        Some(_) => true,
    }
}

/// Splits `text` (from `from`, past a byte-order mark) into documents.
///
/// An explicit `---` always starts a document; text before the first marker, or after a `...`,
/// is a document only when it holds content (comments and directives alone are a prefix of the
/// next document). A file with no document at all still yields one empty document, so that
/// editor features have a document to work in.
pub(super) fn split_documents(text: &str, from: usize) -> Vec<Piece> {
    let b = text.as_bytes();
    let len = b.len();
    let mut pieces = Vec::new();
    let mut start = from;
    let mut content_start = from;
    let mut explicit = false;
    let mut content = false;
    // A `...` line came, and no `---` since.
    let mut after_end = false;
    // A `...` line before any document.
    let mut stray_end: Option<usize> = None;
    let mut line = from;
    while line < len {
        let (eol, next) = line_end(b, line);
        let l = &b[line..eol];
        if is_marker(l, b"---") {
            if explicit || content {
                pieces.push(piece(start, content_start, line, after_end && !explicit));
                start = line;
            }
            after_end = false;
            // Content on the marker line itself (`--- |`, `--- !tag`) belongs to the document.
            let mut i = line + 3;
            while i < eol && matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
            content_start = if i == eol || b[i] == b'#' { next } else { i };
            explicit = true;
        } else if is_marker(l, b"...") {
            let stray = pieces.is_empty() && !explicit && !content;
            if stray {
                stray_end.get_or_insert(line);
            }
            if explicit || content {
                pieces.push(piece(start, content_start, line, after_end && !explicit));
            }
            // A stray `...` is its own error; the document after it is not bare too.
            after_end = !stray;
            start = next;
            content_start = next;
            explicit = false;
            content = false;
        } else if !explicit && !content {
            content = has_content(l);
        }
        line = next;
    }
    if explicit || content {
        pieces.push(piece(start, content_start, len, after_end && !explicit));
    }
    if pieces.is_empty() {
        pieces.push(piece(from, from, len, false));
    }
    if let Some(first) = pieces.first_mut() {
        first.stray_end = stray_end.map(|at| at as u32);
    }
    pieces
}

fn piece(start: usize, content_start: usize, end: usize, bare: bool) -> Piece {
    Piece { start: start as u32, content_start: content_start as u32, end: end as u32, bare, stray_end: None }
}
