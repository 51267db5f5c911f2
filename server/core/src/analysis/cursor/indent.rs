//! The cursor's path from indentation alone, for when the tree has nothing at the cursor.
//!
//! Block YAML nests by indentation, so reading the lines of the document from its start, as a
//! block parser would, and keeping a stack of the keys and sequence items still open, gives the
//! path at any line, even one that does not parse (yet). Block scalars and flow collections
//! that span lines are stepped over; their contents are not structure.

use super::{Role, Seg};
use crate::syntax::Span;

/// An open key or sequence item, at the column of its key or dash.
#[derive(Debug)]
struct Open {
    col: usize,
    seg: Seg,
}

/// What one line says about structure.
#[derive(Debug, Default)]
struct Line<'a> {
    /// Columns of the `- ` sequence indicators at the start of the line.
    dashes: Vec<usize>,
    /// Where the content after indentation and dashes starts.
    content: usize,
    /// A `key:` at `content`: its text and the byte after its `:`.
    key: Option<(String, usize)>,
    /// The text after the `:` (or the whole content when there is no key), comment removed.
    value: &'a str,
}

/// The path, role and typed span at `offset`, reading the lines of the document that starts at
/// `doc_start`.
pub(super) fn locate(text: &str, doc_start: usize, offset: usize) -> (Vec<Seg>, Role, Span) {
    let mut doc_start = doc_start.min(offset);
    while !text.is_char_boundary(doc_start) {
        doc_start -= 1;
    }
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1).max(doc_start);
    let mut stack: Vec<Open> = Vec::new();
    // Lines more indented than this are a block scalar's content.
    let mut scalar_above: Option<usize> = None;
    // Unclosed brackets of a flow collection spanning lines.
    let mut flow_depth: i32 = 0;
    let mut pos = doc_start;
    while pos < line_start {
        let end = text[pos..].find(['\n', '\r']).map_or(text.len(), |i| pos + i).min(line_start);
        let line = &text[pos..end];
        pos = end + 1;
        if flow_depth > 0 {
            flow_depth += bracket_balance(line);
            continue;
        }
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(col) = scalar_above {
            if line.trim().is_empty() || indent > col {
                continue;
            }
            scalar_above = None;
        }
        let Some(l) = scan(line) else { continue };
        apply(&mut stack, &l);
        let v = l.value.trim();
        if v.starts_with('|') || v.starts_with('>') {
            scalar_above = Some(l.key.as_ref().map_or(l.dashes.last().copied().unwrap_or(l.content), |_| l.content));
        } else if v.starts_with('{') || v.starts_with('[') {
            flow_depth = bracket_balance(v).max(0);
        }
    }

    let line_end = text[line_start..].find(['\n', '\r']).map_or(text.len(), |i| line_start + i);
    let col = offset - line_start;
    let line = &text[line_start..line_end];
    let path_of = |stack: &[Open]| stack.iter().map(|o| o.seg.clone()).collect::<Vec<_>>();
    if flow_depth > 0 || scalar_above.is_some_and(|c| col > c) {
        // Inside a multi-line flow collection or block scalar: the key that holds it.
        let here = Span::new(offset as u32, offset as u32);
        return (path_of(&stack), Role::Value, here);
    }

    // The part of the line before the cursor decides; the rest only extends the typed word.
    let prefix = &line[..col];
    let l = scan_prefix(prefix, line);
    for &d in &l.dashes {
        push_item(&mut stack, d);
    }
    match &l.key {
        Some((name, after_colon)) => {
            pop_siblings(&mut stack, l.content);
            let mut path = path_of(&stack);
            path.push(Seg::Key(name.clone()));
            let value_start = after_colon + (prefix[*after_colon..].len() - prefix[*after_colon..].trim_start().len());
            let span = word(line, value_start.min(col), col);
            (path, Role::Value, shift(span, line_start))
        }
        None if !l.dashes.is_empty() && l.content <= col => {
            // `- ` and maybe a word: a sequence item (a scalar, or the first key being typed).
            let span = word(line, l.content, col);
            (path_of(&stack), Role::Value, shift(span, line_start))
        }
        None => {
            let content = if prefix.trim().is_empty() { col } else { l.content };
            pop_siblings(&mut stack, content);
            let span = word(line, content.min(col), col);
            let mut path = path_of(&stack);
            path.push(Seg::Key(line[span.start as usize..span.end as usize].to_owned()));
            (path, Role::Key, shift(span, line_start))
        }
    }
}

fn shift(s: Span, by: usize) -> Span {
    Span::new(s.start + by as u32, s.end + by as u32)
}

/// [`word`] in file offsets: the word around `cursor`, starting no earlier than `from` (both
/// on the cursor's line; `from` moves past leading blanks).
pub(super) fn word_at(text: &str, from: usize, cursor: usize) -> Span {
    let line_start = text[..cursor].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line_end = text[cursor..].find(['\n', '\r']).map_or(text.len(), |i| cursor + i);
    let line = &text[line_start..line_end];
    let mut from = from.clamp(line_start, cursor) - line_start;
    while from < cursor - line_start && matches!(line.as_bytes()[from], b' ' | b'\t') {
        from += 1;
    }
    shift(word(line, from, cursor - line_start), line_start)
}

/// The word being typed around `cursor` (line-relative), starting no earlier than `from`: up to
/// the cursor from the last separator, and on past it to the end of the word.
fn word(line: &str, from: usize, cursor: usize) -> Span {
    let b = line.as_bytes();
    let stop = |c: u8| matches!(c, b' ' | b'\t' | b',' | b'{' | b'}' | b'[' | b']' | b'#' | b':');
    let mut start = cursor;
    while start > from && !stop(b[start - 1]) {
        start -= 1;
    }
    let mut end = cursor;
    while end < b.len() && !stop(b[end]) {
        end += 1;
    }
    Span::new(start as u32, end as u32)
}

/// A sequence item at column `d`: closes everything deeper, and a previous item at the same
/// column (counting it).
fn push_item(stack: &mut Vec<Open>, d: usize) {
    let mut index = 0;
    while let Some(top) = stack.last() {
        if top.col > d {
            stack.pop();
        } else if top.col == d && matches!(top.seg, Seg::Index(_)) {
            if let Some(Open { seg: Seg::Index(i), .. }) = stack.pop() {
                index = i + 1;
            }
            break;
        } else {
            break;
        }
    }
    stack.push(Open { col: d, seg: Seg::Index(index) });
}

/// A key at column `k` closes everything at least as deep: its siblings and their contents,
/// and a compact sequence (`- ` at the key's own column) that ended.
fn pop_siblings(stack: &mut Vec<Open>, k: usize) {
    while stack.last().is_some_and(|top| top.col >= k) {
        stack.pop();
    }
}

fn apply(stack: &mut Vec<Open>, l: &Line<'_>) {
    for &d in &l.dashes {
        push_item(stack, d);
    }
    if let Some((name, _)) = &l.key {
        pop_siblings(stack, l.content);
        stack.push(Open { col: l.content, seg: Seg::Key(name.clone()) });
    }
}

/// Reads one whole line; `None` for blank and comment lines.
fn scan(line: &str) -> Option<Line<'_>> {
    let t = line.trim_start_matches([' ', '\t']);
    if t.is_empty() || t.starts_with('#') || line.starts_with("---") || line.starts_with("...") {
        return None;
    }
    Some(scan_prefix(line, line))
}

/// Reads `prefix`, the start of `line` (the line up to the cursor on the cursor's line). A dash
/// at the very end of the prefix counts when the line goes on with a space or ends.
fn scan_prefix<'a>(prefix: &'a str, line: &str) -> Line<'a> {
    let b = prefix.as_bytes();
    let lb = line.as_bytes();
    let mut i = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    let mut l = Line::default();
    while i < b.len() && b[i] == b'-' && matches!(lb.get(i + 1), None | Some(b' ' | b'\t' | b'\n' | b'\r')) {
        l.dashes.push(i);
        i += 1;
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
    }
    l.content = i;
    let content = &prefix[i..];
    match key_of(content) {
        Some((name, colon)) => {
            l.key = Some((name, i + colon + 1));
            l.value = strip_comment(&prefix[i + colon + 1..]);
        }
        None => l.value = strip_comment(content),
    }
    l
}

/// `key:` at the start of `content`: the key's text and the index of its `:`. Quoted keys are
/// unquoted; flow collections have no key here.
fn key_of(content: &str) -> Option<(String, usize)> {
    let b = content.as_bytes();
    let is_end = |i: usize| matches!(b.get(i), None | Some(b' ' | b'\t' | b'\n' | b'\r'));
    match b.first()? {
        b'{' | b'[' | b'#' | b'|' | b'>' | b'&' | b'*' | b'!' => None,
        &q @ (b'"' | b'\'') => {
            let close = content[1..].find(q as char)? + 1;
            let mut j = close + 1;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            (b.get(j) == Some(&b':') && is_end(j + 1)).then(|| (content[1..close].to_owned(), j))
        }
        _ => {
            let mut j = 0;
            while j < b.len() {
                if b[j] == b'#' && j > 0 && matches!(b[j - 1], b' ' | b'\t') {
                    return None;
                }
                if b[j] == b':' && is_end(j + 1) {
                    let k = content[..j].trim_end();
                    return (!k.is_empty()).then(|| (k.to_owned(), j));
                }
                j += 1;
            }
            None
        }
    }
}

fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'#' && (i == 0 || matches!(b[i - 1], b' ' | b'\t')) {
            return &s[..i];
        }
    }
    s
}

/// Opened minus closed brackets on a line, outside quotes.
fn bracket_balance(s: &str) -> i32 {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') => depth -= 1,
            (None, '#') => break,
            _ => {}
        }
    }
    depth
}
