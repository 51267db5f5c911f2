//! A fast reader for the block-structured YAML that Kubernetes manifests are written in: block
//! mappings and sequences, plain scalars (over several lines too), single-line quoted
//! scalars, literal and folded blocks, one-line flow collections, comments.
//!
//! It reads a document piece straight into the tree, without tokens or events, and gives up
//! (`None`) on anything else: anchors, tags, aliases, complex keys, tabs, carriage returns,
//! quoted scalars over several lines, flow collections over several lines, and every text
//! libyaml would reject. libyaml then reads the piece ([`super::builder`]). So it needs to be
//! right only about what it accepts: the tree, values and spans it gives are exactly those the
//! libyaml path gives (the oracle tests compare both on every case, and the `libyaml` fuzz
//! target on every input). The rules followed are libyaml 0.2.5's scanner's
//! (`yaml_parser_scan_plain_scalar`, `yaml_parser_scan_block_scalar`, `_flow_scalar`).

use compact_str::CompactString;

use crate::syntax::{Entry, Node, NodeKind, Scalar, ScalarStyle, Span};

/// Deeper documents go to libyaml, whose builder caps depth with an error.
const MAX_DEPTH: usize = 100;
/// Longer keys go to libyaml, which rejects a simple key longer than 1024 characters.
const MAX_KEY: usize = 1000;

/// Gives up: the piece is libyaml's.
struct GiveUp;

type R<T> = Result<T, GiveUp>;

struct Reader<'a> {
    t: &'a str,
    b: &'a [u8],
    base: u32,
    depth: usize,
    /// Children of the open collections, innermost last (a mapping's keys and values
    /// alternate): each collection moves its own into one exactly-sized `Vec` when it closes.
    kids: Vec<Node>,
    /// The last line read.
    memo: std::cell::Cell<Option<Line>>,
}

/// One line of the piece: where it starts, where its text starts (after the indentation) and
/// where it ends (before its `\n`).
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    text: usize,
    end: usize,
}

impl Line {
    fn indent(self) -> usize {
        self.text - self.start
    }
}

/// Reads a document piece (`text`, at file offset `base`): `Some(root)` when the whole piece
/// is in the subset (`Some(None)` for an empty document), `None` when libyaml must read it.
pub(super) fn read(text: &str, base: u32) -> Option<Option<Node>> {
    let b = text.as_bytes();
    if !plain_text(text) {
        return None;
    }
    let mut r = Reader { t: text, b, base, depth: 0, kids: Vec::with_capacity(64), memo: Default::default() };
    let mut pos = r.start()?;
    let Some(first) = r.content_line(pos) else { return Some(None) };
    let (root, next) = r.block_node(first, -1).ok()?;
    pos = next;
    // Nothing may follow the root but blank and comment lines.
    match r.content_line(pos) {
        None => Some(Some(root)),
        Some(_) => None,
    }
}

/// Only `\n` line breaks, no tabs, no control characters, and no characters that libyaml
/// reads as line breaks (NEL, U+2028, U+2029) or treats specially (U+FEFF): the subset's text.
fn plain_text(text: &str) -> bool {
    if printable_ascii(text.as_bytes()) {
        return true;
    }
    text.chars().all(|c| match c {
        '\n' | ' '..='~' => true,
        '\u{a0}'..='\u{d7ff}' => true,
        '\u{e000}'..='\u{fffd}' => !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}'),
        c => c as u32 >= 0x10000,
    })
}

/// Whether every byte is printable ASCII (`' '..='~'`) or `\n`: eight bytes at a time (the
/// release build is optimised for size and does not vectorise a byte loop).
pub(super) fn printable_ascii(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte of `t` that is zero.
    let zero = |t: u64| !(((t & LOW7) + LOW7) | t) & HIGH;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // Bytes below 0x20 (of their low seven bits; bytes at 0x80 and above are caught apart).
        let control = !((w | HIGH) - 0x20 * ONES) & HIGH;
        let bad = (w & HIGH) | (control & !zero(w ^ (b'\n' as u64 * ONES))) | zero(w ^ (0x7f * ONES));
        if bad != 0 {
            return false;
        }
    }
    chunks.remainder().iter().all(|&c| (b' '..=b'~').contains(&c) || c == b'\n')
}

fn is_blank_or_end(c: Option<&u8>) -> bool {
    matches!(c, None | Some(b' ' | b'\n'))
}

impl Reader<'_> {
    fn at(&self, i: usize) -> Option<&u8> {
        self.b.get(i)
    }

    fn off(&self, i: usize) -> u32 {
        self.base + i as u32
    }

    fn line(&self, start: usize) -> Line {
        // Most lines are looked at twice: as the line after a value, then as the next entry.
        if let Some(l) = self.memo.get().filter(|l| l.start == start) {
            return l;
        }
        let b = self.b;
        let mut text = start;
        while text < b.len() && b[text] == b' ' {
            text += 1;
        }
        let end = match b.get(text..).and_then(|rest| memchr::memchr(b'\n', rest)) {
            Some(i) => text + i,
            None => b.len(),
        };
        let l = Line { start, text, end };
        self.memo.set(Some(l));
        l
    }

    fn next_line(&self, l: Line) -> usize {
        (l.end + 1).min(self.b.len())
    }

    /// The first line from `pos` on that is neither blank nor a comment.
    fn content_line(&self, mut pos: usize) -> Option<Line> {
        while pos < self.b.len() {
            let l = self.line(pos);
            if l.text < l.end && self.b[l.text] != b'#' {
                return Some(l);
            }
            if l.end >= self.b.len() {
                return None;
            }
            pos = l.end + 1;
        }
        None
    }

    /// Past a leading `---` line (nothing but a comment after the marker): where content may
    /// begin. Directives and content on the marker line are libyaml's.
    fn start(&self) -> Option<usize> {
        let mut pos = 0;
        while pos < self.b.len() {
            let l = self.line(pos);
            let t = &self.b[l.text..l.end];
            if l.indent() == 0 && t.starts_with(b"---") {
                let rest = &t[3..];
                let rest_trim = rest.iter().position(|&c| c != b' ').map_or(&[][..], |i| &rest[i..]);
                if !rest.is_empty() && rest[0] != b' ' {
                    return None;
                }
                if !rest_trim.is_empty() && rest_trim[0] != b'#' {
                    return None;
                }
                return Some(self.next_line(l));
            }
            if t.first() == Some(&b'%') && l.indent() == 0 {
                return None;
            }
            if !t.is_empty() && t[0] != b'#' {
                // Content before any marker: an implicit document.
                return Some(0);
            }
            if l.end >= self.b.len() {
                return Some(0);
            }
            pos = l.end + 1;
        }
        Some(0)
    }

    /// The node whose first line is `l`, inside a collection indented `parent` (-1 at the
    /// root): a block mapping or sequence. Returns where reading goes on.
    fn block_node(&mut self, l: Line, parent: i64) -> R<(Node, usize)> {
        if l.indent() as i64 <= parent {
            return Err(GiveUp);
        }
        if self.is_dash(l.text) { self.sequence(l) } else { self.mapping(l, l.text) }
    }

    fn is_dash(&self, i: usize) -> bool {
        self.at(i) == Some(&b'-') && is_blank_or_end(self.at(i + 1))
    }

    fn deeper(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { Err(GiveUp) } else { Ok(()) }
    }

    /// A block mapping whose first key starts at `key` (on line `l`; a compact mapping's key
    /// follows its item's `- `); its keys are at `key`'s column.
    fn mapping(&mut self, l: Line, key: usize) -> R<(Node, usize)> {
        self.deeper()?;
        let col = key - l.start;
        let first = self.kids.len();
        let (mut line, mut at) = (l, key);
        let next = loop {
            let (k, colon) = self.key(line, at)?;
            let key_end = k.span.end;
            self.kids.push(k);
            let (value, next) = self.value(line, colon + 1, key_end, col as i64)?;
            self.kids.push(value);
            match self.content_line(next) {
                Some(n) if n.indent() == col => {
                    if self.is_dash(n.text) {
                        return Err(GiveUp);
                    }
                    line = n;
                    at = n.text;
                }
                Some(n) if n.indent() > col => return Err(GiveUp),
                _ => break next,
            }
        };
        self.depth -= 1;
        let mut entries = Vec::with_capacity((self.kids.len() - first) / 2);
        let mut drain = self.kids.drain(first..);
        while let (Some(key), Some(value)) = (drain.next(), drain.next()) {
            entries.push(Entry { key, value });
        }
        drop(drain);
        let start = entries.first().map_or(self.off(key), |e| e.key.span.start);
        let end = entries.last().map_or(start, |e| e.value.span.end.max(e.key.span.end));
        Ok((Node { span: Span::new(start, end), kind: NodeKind::Mapping(entries) }, next))
    }

    /// A block sequence whose first `-` starts line `l`.
    fn sequence(&mut self, l: Line) -> R<(Node, usize)> {
        self.deeper()?;
        let col = l.indent();
        let start = self.off(l.text);
        let first = self.kids.len();
        let mut line = l;
        let next = loop {
            let dash = line.text;
            let after = dash + 1;
            let mut p = after;
            while self.at(p) == Some(&b' ') {
                p += 1;
            }
            let (item, next) = if p >= line.end || self.b[p] == b'#' {
                // `-` alone on its line: the item is on the lines below, or null.
                if p < line.end && p == after {
                    return Err(GiveUp);
                }
                let below = self.next_line(line);
                match self.content_line(below) {
                    Some(n) if n.indent() > col => self.block_node(n, col as i64)?,
                    _ => (self.empty(p), below),
                }
            } else if self.is_dash(p) {
                return Err(GiveUp);
            } else if self.starts_key(line, p) {
                self.mapping(line, p)?
            } else {
                let (node, next) = self.inline_value(line, p, col as i64)?;
                (node, next)
            };
            self.kids.push(item);
            match self.content_line(next) {
                Some(n) if n.indent() == col && self.is_dash(n.text) => line = n,
                Some(n) if n.indent() > col => return Err(GiveUp),
                _ => break next,
            }
        };
        self.depth -= 1;
        let items: Vec<Node> = self.kids.drain(first..).collect();
        let end = items.last().map_or(start + 1, |n| n.span.end);
        Ok((Node { span: Span::new(start, end), kind: NodeKind::Sequence(items) }, next))
    }

    fn empty(&self, at: usize) -> Node {
        let at = self.off(at);
        let scalar = Scalar { value: CompactString::const_new(""), style: ScalarStyle::Plain, templated: false };
        Node { span: Span::new(at, at), kind: NodeKind::Scalar(scalar) }
    }

    /// Whether the text at `p` is a key: a quoted or plain scalar followed by `:` and a blank,
    /// on this line.
    fn starts_key(&self, line: Line, p: usize) -> bool {
        match self.b[p] {
            b'"' | b'\'' => {
                let Ok((_, end)) = self.quoted(line, p) else { return false };
                self.at(end) == Some(&b':') && is_blank_or_end(self.at(end + 1))
            }
            _ => self.plain_key_end(line, p).is_some(),
        }
    }

    /// The end of a plain key starting at `p`: where its `: ` (or `:` at the line's end) is.
    fn plain_key_end(&self, line: Line, p: usize) -> Option<usize> {
        if !can_start_plain(self.b, p) {
            return None;
        }
        let mut i = p;
        while i < line.end {
            match self.b[i] {
                b':' if is_blank_or_end(self.at(i + 1)) => return Some(i),
                b'#' if self.b[i - 1] == b' ' => return None,
                _ => i += 1,
            }
        }
        None
    }

    /// The key at `p` (on `line`) and the position of its `:`.
    fn key(&self, line: Line, p: usize) -> R<(Node, usize)> {
        let (node, colon) = match self.b[p] {
            b'"' | b'\'' => {
                let (node, end) = self.quoted(line, p)?;
                (node, end)
            }
            _ => {
                let colon = self.plain_key_end(line, p).ok_or(GiveUp)?;
                let mut end = colon;
                while self.b[end - 1] == b' ' {
                    end -= 1;
                }
                (self.plain_node(p, end)?, colon)
            }
        };
        if colon - p > MAX_KEY || self.at(colon) != Some(&b':') || !is_blank_or_end(self.at(colon + 1)) {
            return Err(GiveUp);
        }
        Ok((node, colon))
    }

    /// A plain scalar whose value is its text, `s..e`.
    fn plain_node(&self, s: usize, e: usize) -> R<Node> {
        // Cut at ASCII bytes, so always on char boundaries; `get` keeps that from panicking.
        let value = CompactString::new(self.t.get(s..e).ok_or(GiveUp)?);
        Ok(self.scalar_node(s, e, value))
    }

    fn scalar_node(&self, s: usize, e: usize, value: CompactString) -> Node {
        let scalar = Scalar { value, style: ScalarStyle::Plain, templated: false };
        Node { span: Span::new(self.off(s), self.off(e)), kind: NodeKind::Scalar(scalar) }
    }

    /// A mapping value after the `:` at `after - 1` of a key ending at `key_end`, in a mapping
    /// indented `col`.
    fn value(&mut self, line: Line, after: usize, key_end: u32, col: i64) -> R<(Node, usize)> {
        let mut p = after;
        while p < line.end && self.b[p] == b' ' {
            p += 1;
        }
        if p >= line.end || self.b[p] == b'#' {
            if p < line.end && p == after {
                return Err(GiveUp);
            }
            let below = self.next_line(line);
            return match self.content_line(below) {
                Some(n) if n.indent() as i64 > col => self.block_node(n, col),
                // A sequence may sit at its key's column.
                Some(n) if n.indent() as i64 == col && self.is_dash(n.text) => self.sequence(n),
                _ => {
                    let at = self.value_pos(key_end);
                    Ok((self.empty(at), below))
                }
            };
        }
        self.inline_value(line, p, col)
    }

    /// Where the builder puts an empty value: past the blanks after its key's end, its `:`
    /// and the blanks after that.
    fn value_pos(&self, key_end: u32) -> usize {
        let mut i = (key_end - self.base) as usize;
        while self.at(i) == Some(&b' ') {
            i += 1;
        }
        if self.at(i) == Some(&b':') {
            i += 1;
            while self.at(i) == Some(&b' ') {
                i += 1;
            }
        }
        i
    }

    /// A value that starts at `p` on its key's or its `- `'s line, in a collection indented
    /// `parent`: a scalar or a flow collection.
    fn inline_value(&mut self, line: Line, p: usize, parent: i64) -> R<(Node, usize)> {
        match self.b[p] {
            b'"' | b'\'' => {
                let (node, end) = self.quoted(line, p)?;
                self.line_rest(line, end)?;
                Ok((node, self.next_line(line)))
            }
            b'[' | b'{' => {
                self.deeper()?;
                let (node, end) = self.flow(line, p)?;
                self.depth -= 1;
                self.line_rest(line, end)?;
                Ok((node, self.next_line(line)))
            }
            b'|' | b'>' => self.block_scalar(line, p, parent),
            _ => self.plain(line, p, parent),
        }
    }

    /// Only blanks and a comment may follow a value on its line.
    fn line_rest(&self, line: Line, end: usize) -> R<()> {
        let mut i = end;
        while i < line.end && self.b[i] == b' ' {
            i += 1;
        }
        if i == line.end || (self.b[i] == b'#' && i > end) { Ok(()) } else { Err(GiveUp) }
    }

    /// A plain scalar from `p`, continued on the lines below that are indented past `parent`.
    fn plain(&self, line: Line, p: usize, parent: i64) -> R<(Node, usize)> {
        if !can_start_plain(self.b, p) {
            return Err(GiveUp);
        }
        let (mut end, comment) = self.plain_line_end(p, line.end)?;
        let mut value: Option<Vec<u8>> = None;
        let mut next = self.next_line(line);
        if !comment {
            // Continuation lines: folded with one space, or with a line break per blank line.
            let mut pos = next;
            let mut blanks = 0;
            while pos < self.b.len() {
                let l = self.line(pos);
                if l.text == l.end {
                    blanks += 1;
                    if l.end >= self.b.len() {
                        break;
                    }
                    pos = l.end + 1;
                    continue;
                }
                if (l.indent() as i64) <= parent || self.b[l.text] == b'#' {
                    break;
                }
                let (e, comment) = self.plain_line_end(l.text, l.end)?;
                let v = value.get_or_insert_with(|| self.b[p..end].to_vec());
                if blanks == 0 {
                    v.push(b' ');
                } else {
                    v.extend(std::iter::repeat_n(b'\n', blanks));
                }
                v.extend_from_slice(&self.b[l.text..e]);
                blanks = 0;
                end = e;
                next = self.next_line(l);
                pos = next;
                if comment {
                    break;
                }
            }
        }
        let node = match value {
            Some(v) => self.scalar_node(p, end, String::from_utf8(v).map_err(|_| GiveUp)?.into()),
            None => self.plain_node(p, end)?,
        };
        Ok((node, next))
    }

    /// Where a plain scalar's text on one line ends (trailing blanks left out), and whether a
    /// comment follows. A `: ` inside is libyaml's (a key where none may be, or an error).
    fn plain_line_end(&self, p: usize, line_end: usize) -> R<(usize, bool)> {
        let mut i = p;
        let mut comment = false;
        while i < line_end {
            match self.b[i] {
                b':' if is_blank_or_end(self.at(i + 1)) => return Err(GiveUp),
                b'#' if i > p && self.b[i - 1] == b' ' => {
                    comment = true;
                    break;
                }
                _ => i += 1,
            }
        }
        let mut end = i;
        while end > p && self.b[end - 1] == b' ' {
            end -= 1;
        }
        Ok((end, comment))
    }

    /// A quoted scalar starting at `p` and closed on the same line: the node and where it ends.
    fn quoted(&self, line: Line, p: usize) -> R<(Node, usize)> {
        let q = self.b[p];
        // Most quoted scalars hold no escape: their value is their text.
        let close = self.b[p + 1..line.end].iter().position(|&c| c == q || c == b'\\');
        if let Some(i) = close.map(|i| p + 1 + i)
            && self.b[i] == q
            && (q == b'"' || self.at(i + 1) != Some(&b'\''))
        {
            let value = std::str::from_utf8(&self.b[p + 1..i]).map_err(|_| GiveUp)?;
            let style = if q == b'"' { ScalarStyle::DoubleQuoted } else { ScalarStyle::SingleQuoted };
            let scalar = Scalar { value: value.into(), style, templated: false };
            return Ok((Node { span: Span::new(self.off(p), self.off(i + 1)), kind: NodeKind::Scalar(scalar) }, i + 1));
        }
        let mut value: Vec<u8> = Vec::new();
        let mut i = p + 1;
        let mut copied = i;
        loop {
            if i >= line.end {
                return Err(GiveUp);
            }
            let c = self.b[i];
            if q == b'\'' {
                if c == b'\'' {
                    value.extend_from_slice(&self.b[copied..i]);
                    if self.at(i + 1) == Some(&b'\'') {
                        value.push(b'\'');
                        i += 2;
                        copied = i;
                        continue;
                    }
                    break;
                }
                i += 1;
                continue;
            }
            match c {
                b'"' => {
                    value.extend_from_slice(&self.b[copied..i]);
                    break;
                }
                b'\\' => {
                    value.extend_from_slice(&self.b[copied..i]);
                    i = self.escape(i, line.end, &mut value)?;
                    copied = i;
                }
                _ => i += 1,
            }
        }
        let end = i + 1;
        let value = String::from_utf8(value).map_err(|_| GiveUp)?;
        let style = if q == b'"' { ScalarStyle::DoubleQuoted } else { ScalarStyle::SingleQuoted };
        let scalar = Scalar { value: value.into(), style, templated: false };
        Ok((Node { span: Span::new(self.off(p), self.off(end)), kind: NodeKind::Scalar(scalar) }, end))
    }

    /// The escape at `i` (a `\`) in a double-quoted scalar, written to `out`; returns where
    /// the text goes on. libyaml's escapes; a line break or an unknown escape gives up.
    fn escape(&self, i: usize, line_end: usize, out: &mut Vec<u8>) -> R<usize> {
        let c = *self.b.get(i + 1).filter(|_| i + 1 < line_end).ok_or(GiveUp)?;
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b't' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\x0b'),
            b'f' => Some('\x0c'),
            b'r' => Some('\r'),
            b'e' => Some('\x1b'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = simple {
            let mut buf = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            return Ok(i + 2);
        }
        let len = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(GiveUp),
        };
        let digits = self.b.get(i + 2..i + 2 + len).filter(|_| i + 2 + len <= line_end).ok_or(GiveUp)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return Err(GiveUp);
        }
        let code = u32::from_str_radix(std::str::from_utf8(digits).map_err(|_| GiveUp)?, 16).map_err(|_| GiveUp)?;
        let ch = char::from_u32(code).ok_or(GiveUp)?;
        let mut buf = [0; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(i + 2 + len)
    }

    /// A flow collection opened at `p` and closed on the same line.
    fn flow(&mut self, line: Line, p: usize) -> R<(Node, usize)> {
        let map = self.b[p] == b'{';
        let close = if map { b'}' } else { b']' };
        let mut i = p + 1;
        let mut children: Vec<Node> = Vec::new();
        loop {
            i = self.flow_blank(i, line.end);
            let c = *self.b.get(i).filter(|_| i < line.end).ok_or(GiveUp)?;
            if c == close {
                break;
            }
            let (node, end) = self.flow_node(line, i)?;
            i = self.flow_blank(end, line.end);
            if map {
                // `key: value`: a key without a value is libyaml's.
                if self.at(i) != Some(&b':') {
                    return Err(GiveUp);
                }
                let key_end = node.span.end;
                children.push(node);
                i = self.flow_blank(i + 1, line.end);
                let c = *self.b.get(i).filter(|_| i < line.end).ok_or(GiveUp)?;
                if c == b',' || c == close {
                    let at = self.value_pos(key_end);
                    children.push(self.empty(at));
                } else {
                    let (value, end) = self.flow_node(line, i)?;
                    children.push(value);
                    i = self.flow_blank(end, line.end);
                }
            } else {
                children.push(node);
            }
            match self.b.get(i).filter(|_| i < line.end) {
                Some(&b',') => i += 1,
                Some(&c) if c == close => {}
                _ => return Err(GiveUp),
            }
            // `[a, , b]` and `[,]` are libyaml's.
            let j = self.flow_blank(i, line.end);
            if self.at(j) == Some(&b',') {
                return Err(GiveUp);
            }
        }
        let end = i + 1;
        let span = Span::new(self.off(p), self.off(end));
        let kind = if map {
            let mut it = children.into_iter();
            let mut entries = Vec::new();
            while let (Some(key), Some(value)) = (it.next(), it.next()) {
                entries.push(Entry { key, value });
            }
            NodeKind::Mapping(entries)
        } else {
            NodeKind::Sequence(children)
        };
        Ok((Node { span, kind }, end))
    }

    fn flow_blank(&self, mut i: usize, end: usize) -> usize {
        while i < end && self.b[i] == b' ' {
            i += 1;
        }
        i
    }

    /// A node inside a flow collection: a quoted or plain scalar, or a nested collection.
    fn flow_node(&mut self, line: Line, i: usize) -> R<(Node, usize)> {
        match self.b[i] {
            b'"' | b'\'' => self.quoted(line, i),
            b'[' | b'{' => {
                self.deeper()?;
                let r = self.flow(line, i)?;
                self.depth -= 1;
                Ok(r)
            }
            _ => {
                if !can_start_plain(self.b, i) {
                    return Err(GiveUp);
                }
                let mut j = i;
                while j < line.end {
                    match self.b[j] {
                        b',' | b'[' | b']' | b'{' | b'}' => break,
                        b':' => match self.at(j + 1) {
                            Some(b' ' | b'\n') | None => break,
                            Some(b',' | b'?' | b'[' | b']' | b'{' | b'}') => return Err(GiveUp),
                            _ => j += 1,
                        },
                        b'#' if self.b[j - 1] == b' ' => return Err(GiveUp),
                        _ => j += 1,
                    }
                }
                let mut end = j;
                while end > i && self.b[end - 1] == b' ' {
                    end -= 1;
                }
                Ok((self.plain_node(i, end)?, end))
            }
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header is at `p`, in a collection
    /// indented `parent`.
    fn block_scalar(&self, line: Line, p: usize, parent: i64) -> R<(Node, usize)> {
        let literal = self.b[p] == b'|';
        let mut i = p + 1;
        let (mut chomp, mut explicit) = (0i8, 0usize);
        for _ in 0..2 {
            match self.at(i) {
                Some(b'+') if chomp == 0 && i < line.end => chomp = 1,
                Some(b'-') if chomp == 0 && i < line.end => chomp = -1,
                Some(&d @ b'1'..=b'9') if explicit == 0 && i < line.end => explicit = (d - b'0') as usize,
                _ => break,
            }
            i += 1;
        }
        // Blanks, then a comment or the line's end.
        let mut last = i; // end of the last non-blank byte of the token
        let mut j = i;
        while j < line.end && self.b[j] == b' ' {
            j += 1;
        }
        if j < line.end {
            if self.b[j] != b'#' || j == i {
                return Err(GiveUp);
            }
            let mut e = line.end;
            while self.b[e - 1] == b' ' {
                e -= 1;
            }
            last = e;
        }
        let floor = parent.max(-1);
        let mut indent = if explicit > 0 { (if floor >= 0 { floor as usize } else { 0 }) + explicit } else { 0 };
        // Leading blank lines and the first content line fix the indentation.
        let body = self.next_line(line);
        if indent == 0 {
            let mut max = 0;
            let mut q = body;
            while q < self.b.len() {
                let l = self.line(q);
                if l.text < l.end {
                    max = max.max(l.indent());
                    break;
                }
                max = max.max(l.indent());
                if l.end >= self.b.len() {
                    break;
                }
                q = l.end + 1;
            }
            indent = max.max((floor + 1) as usize).max(1);
        }
        let mut value: Vec<u8> = Vec::new();
        let mut leading_break = false; // a line break after the last content line
        let mut trailing = 0usize; // blank lines since
        let mut leading_blank = false;
        let mut first = true;
        let mut pos = body;
        let next;
        loop {
            if pos >= self.b.len() {
                next = self.b.len();
                break;
            }
            let l = self.line(pos);
            let spaces = l.indent();
            if l.text == l.end && spaces <= indent {
                if l.end >= self.b.len() {
                    // Spaces at the very end, without a line break: not a line.
                    next = self.b.len();
                    break;
                }
                // A blank line (no more spaces than the indentation).
                trailing += 1;
                pos = l.end + 1;
                continue;
            }
            if spaces < indent {
                next = pos;
                break;
            }
            let content = l.start + indent;
            let trailing_blank = self.b.get(content) == Some(&b' ');
            if !literal && leading_break && !leading_blank && !trailing_blank && !first {
                if trailing == 0 {
                    value.push(b' ');
                }
            } else if leading_break {
                value.push(b'\n');
            }
            value.extend(std::iter::repeat_n(b'\n', trailing));
            trailing = 0;
            leading_blank = trailing_blank;
            value.extend_from_slice(&self.b[content..l.end]);
            if let Some(e) = (content..l.end).rev().find(|&k| self.b[k] != b' ') {
                last = e + 1;
            }
            first = false;
            if l.end >= self.b.len() {
                // The text ends without a line break after this line.
                leading_break = false;
                next = self.b.len();
                break;
            }
            leading_break = true;
            pos = l.end + 1;
        }
        if chomp != -1 && leading_break {
            value.push(b'\n');
        }
        if chomp == 1 {
            value.extend(std::iter::repeat_n(b'\n', trailing));
        }
        let value = String::from_utf8(value).map_err(|_| GiveUp)?;
        let style = if literal { ScalarStyle::Literal } else { ScalarStyle::Folded };
        let scalar = Scalar { value: value.into(), style, templated: false };
        let node = Node { span: Span::new(self.off(p), self.off(last.max(p + 1))), kind: NodeKind::Scalar(scalar) };
        Ok((node, next))
    }
}

/// Whether a plain scalar may start at `p`: not at an indicator, except `-` before a
/// non-blank (`-1`, `--flag`).
fn can_start_plain(b: &[u8], p: usize) -> bool {
    match b.get(p) {
        None => false,
        Some(b'-') => !is_blank_or_end(b.get(p + 1)),
        Some(
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"'
            | b'%' | b'@' | b'`' | b' ' | b'\n',
        ) => false,
        Some(_) => true,
    }
}
