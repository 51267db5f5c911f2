//! Where the cursor is in a YAML document: the path of mapping keys and sequence indices from
//! the document root (`spec.targetRefs[0].sectionName`), whether the cursor is on a key or a
//! value, and the span being typed.
//!
//! Typing is the normal state of the text under the cursor, so this works on half-typed
//! documents. The cursor's document is re-parsed (one document: cheap) and the tree walked.
//! Where the tree has nothing at the cursor (a blank line, a line the parser blanked to recover
//! from an error, the space after `targetRef:` whose mapping starts on the next line), the path
//! is recovered from indentation instead ([`indent`]).

mod indent;
#[cfg(test)]
mod tests;

#[cfg(test)]
use std::fmt;

use crate::syntax::{Document, Node, NodeKind, Span, parse_document_at};

/// One step of a path: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

impl Seg {
    pub fn key(&self) -> Option<&str> {
        match self {
            Seg::Key(k) => Some(k),
            Seg::Index(_) => None,
        }
    }
}

/// A path written the way people say it: `spec.targetRefs[0].name`.
#[cfg(test)]
pub(crate) struct PathDisplay<'a>(pub &'a [Seg]);

#[cfg(test)]
impl fmt::Display for PathDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if i == 0 => f.write_str(k)?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// On a mapping key (possibly one still being typed, without its `:`).
    Key,
    /// On a value: a mapping value or a sequence item.
    Value,
}

/// The cursor's context in one file.
#[derive(Debug)]
pub(crate) struct Cursor {
    /// The document holding the cursor, re-parsed.
    pub document: Document,
    /// For [`Role::Key`] the path ends with the key under the cursor (`Key("")` on a blank
    /// line); for [`Role::Value`] it is the path of the value.
    pub path: Vec<Seg>,
    pub role: Role,
    /// The key or value text under the cursor; empty at the cursor when nothing is typed.
    pub span: Span,
    /// The cursor sits right after a `:` with no space: an inserted value needs one.
    pub needs_space: bool,
}

/// Whether `offset` is inside a YAML comment: after a `#` that starts its line's content or
/// follows a blank, outside quotes. (In a block scalar `#` is text, where nothing completes
/// anyway.)
pub(crate) fn in_comment(text: &str, offset: u32) -> bool {
    let offset = clamp(text, offset);
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line = &text.as_bytes()[line_start..offset];
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        let after_blank = i == 0 || matches!(line[i - 1], b' ' | b'\t');
        match quote {
            // `\"` inside double quotes, `''` inside single quotes: an escaped quote.
            Some(b'"') if b == b'\\' => i += 1,
            Some(b'\'') if b == b'\'' && line.get(i + 1) == Some(&b'\'') => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'#' && after_blank => return true,
            None if matches!(b, b'"' | b'\'') && (after_blank || matches!(line[i - 1], b'[' | b'{' | b',')) => {
                quote = Some(b)
            }
            None => {}
        }
        i += 1;
    }
    false
}

impl Cursor {
    pub fn at(text: &str, offset: u32) -> Cursor {
        let offset = clamp(text, offset);
        let document = parse_document_at(text, offset as u32);
        let doc_start = document.span.start as usize;
        let mut cursor = Cursor {
            document,
            path: Vec::new(),
            role: Role::Value,
            span: Span::new(offset as u32, offset as u32),
            needs_space: false,
        };
        let hit = cursor.root().and_then(|root| walk(text, root, offset as u32));
        let (path, role, span) = match hit {
            Some(h) => h,
            None => indent::locate(text, doc_start, offset),
        };
        cursor.needs_space = role == Role::Value
            && span.start as usize == offset
            && offset > 0
            && text.as_bytes().get(offset - 1) == Some(&b':');
        cursor.path = path;
        cursor.role = role;
        cursor.span = span;
        cursor
    }

    /// The root node of the cursor's document.
    pub fn root(&self) -> Option<&Node> {
        self.document.root.as_ref()
    }

    /// The node at `path` from the document root, if the tree has it.
    pub fn node(&self, path: &[Seg]) -> Option<&Node> {
        let mut n = self.root()?;
        for s in path {
            n = match s {
                Seg::Key(k) => n.get(k)?,
                Seg::Index(i) => n.as_sequence()?.get(*i)?,
            };
        }
        Some(n)
    }
}

/// `offset` clamped to the text and moved back to a char boundary.
pub(crate) fn clamp(text: &str, offset: u32) -> usize {
    let mut o = (offset as usize).min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// The column of `offset` on its line, in bytes (indentation is ASCII).
pub(crate) fn column(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    offset - text.as_bytes()[..offset].iter().rposition(|&c| c == b'\n' || c == b'\r').map_or(0, |i| i + 1)
}

/// The plain text of a key node.
fn key_text(n: &Node) -> String {
    match &n.kind {
        NodeKind::Scalar(s) => s.value.to_string(),
        _ => String::new(),
    }
}

/// Walks the tree down to the key or value at `offset`. `None` when the cursor is in a
/// container but on none of its children (whitespace, a blank line, past the end).
fn walk(text: &str, root: &Node, offset: u32) -> Option<(Vec<Seg>, Role, Span)> {
    let mut path = Vec::new();
    let mut node = root;
    if !node.span.contains_inclusive(offset) && !matches!(node.kind, NodeKind::Mapping(_) | NodeKind::Sequence(_)) {
        return None;
    }
    loop {
        match &node.kind {
            NodeKind::Mapping(entries) => {
                let flow = text.as_bytes().get(node.span.start as usize) == Some(&b'{');
                if let Some(e) =
                    entries.iter().find(|e| !e.key.span.is_empty() && e.key.span.contains_inclusive(offset))
                {
                    path.push(Seg::Key(key_text(&e.key)));
                    return Some((path, Role::Key, e.key.span));
                }
                let (e, region) = entries.iter().find_map(|e| {
                    let r = value_region(text, &e.key, &e.value, flow);
                    r.contains_inclusive(offset).then_some((e, r))
                })?;
                path.push(Seg::Key(key_text(&e.key)));
                if e.value.span.is_empty() && matches!(e.value.kind, NodeKind::Scalar(_) | NodeKind::Missing) {
                    // The tree saw no value, but the parser may have blanked what is typed
                    // (`name: "che`): the word before the cursor is the value being typed.
                    return Some((path, Role::Value, indent::word_at(text, region.start as usize, offset as usize)));
                }
                node = &e.value;
            }
            NodeKind::Sequence(items) => {
                let (i, item) = items.iter().enumerate().find(|(_, n)| n.span.contains_inclusive(offset))?;
                path.push(Seg::Index(i));
                node = item;
            }
            NodeKind::Scalar(_) | NodeKind::Missing | NodeKind::Alias => {
                let span = if node.span.is_empty() { Span::new(offset, offset) } else { node.span };
                return Some((path, Role::Value, span));
            }
        }
    }
}

/// Where the cursor counts as "on" an entry's value. A null or missing value is empty in the
/// tree; the cursor anywhere after its `:` on the key's line is typing it.
fn value_region(text: &str, key: &Node, value: &Node, flow: bool) -> Span {
    let empty = value.span.is_empty() && matches!(value.kind, NodeKind::Scalar(_) | NodeKind::Missing);
    if !empty {
        return value.span;
    }
    let b = text.as_bytes();
    let at = value.span.start as usize;
    // From just past the `:` that follows the key, when it is on the same line.
    let mut start = at;
    let mut i = key.span.end as usize;
    while i < at && i < b.len() && !matches!(b[i], b'\n' | b'\r') {
        if b[i] == b':' {
            start = i + 1;
            break;
        }
        i += 1;
    }
    let mut end = at;
    while end < b.len() && !matches!(b[end], b'\n' | b'\r') {
        if flow && matches!(b[end], b',' | b'}' | b']') {
            break;
        }
        if b[end] == b'#' && end > 0 && matches!(b[end - 1], b' ' | b'\t') {
            break;
        }
        end += 1;
    }
    Span::new(start as u32, end as u32)
}
