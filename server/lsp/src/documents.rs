//! Open documents: their text as a rope, edited in place by incremental `didChange` events.

use policylens_core::syntax::{ByteEdit, PositionEncoding};
use ropey::{Rope, RopeSlice};
use tower_lsp_server::ls_types::{Position, Range};

/// Edits kept per document for moving diagnostics of an older text onto the current one;
/// older ones are dropped (the diagnostics they would move are dropped with them).
const MAX_EDITS: usize = 4096;

#[derive(Clone, Debug)]
pub struct Document {
    pub version: i32,
    pub rope: Rope,
    /// The byte-level edits since the last full analysis, each with the version it produced.
    edits: Vec<(i32, ByteEdit)>,
    /// Edits before this version were dropped from `edits`.
    edits_from: i32,
}

impl Document {
    pub fn new(version: i32, text: &str) -> Document {
        Document { version, rope: Rope::from_str(text), edits: Vec::new(), edits_from: version }
    }

    /// Applies one content change: a range replacement, or the whole text when `range` is
    /// `None`. Positions past a line's end or the document's end are clamped, as LSP asks.
    /// The edit is logged under `version` in bytes of the UTF-8 text.
    pub fn apply(&mut self, range: Option<Range>, text: &str, enc: PositionEncoding, version: i32) {
        let new_len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        let edit = match range {
            None => {
                let end = u32::try_from(self.rope.len_bytes()).unwrap_or(u32::MAX);
                self.rope = Rope::from_str(text);
                ByteEdit { start: 0, end, new_len }
            }
            Some(range) => {
                let a = char_index(&self.rope, range.start, enc);
                let b = char_index(&self.rope, range.end, enc);
                let (start, end) = if a <= b { (a, b) } else { (b, a) };
                let byte = |c: usize| u32::try_from(self.rope.char_to_byte(c)).unwrap_or(u32::MAX);
                let edit = ByteEdit { start: byte(start), end: byte(end), new_len };
                self.rope.remove(start..end);
                self.rope.insert(start, text);
                edit
            }
        };
        if self.edits.len() >= MAX_EDITS {
            let cut = self.edits.len() / 2;
            self.edits_from = self.edits[cut - 1].0;
            self.edits.drain(..cut);
        }
        self.edits.push((version, edit));
    }

    /// The edits that turned version `from` into version `to`, or `None` when they are no
    /// longer known.
    pub fn edits_between(&self, from: i32, to: i32) -> Option<Vec<ByteEdit>> {
        if from < self.edits_from || from > to {
            return None;
        }
        Some(self.edits.iter().filter(|(v, _)| *v > from && *v <= to).map(|(_, e)| *e).collect())
    }

    /// Forgets the edits up to `version` (a full analysis has seen them).
    pub fn forget_edits(&mut self, version: i32) {
        if version > self.edits_from {
            self.edits.retain(|(v, _)| *v > version);
            self.edits_from = version;
        }
    }

    pub fn text(&self) -> String {
        self.rope.to_string()
    }
}

/// The char index of an LSP position in `rope`.
pub fn char_index(rope: &Rope, pos: Position, enc: PositionEncoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    let start = rope.line_to_char(line);
    let content = without_break(rope.line(line));
    let col = pos.character as usize;
    let chars = match enc {
        PositionEncoding::Utf32 => col.min(content.len_chars()),
        PositionEncoding::Utf16 => content.utf16_cu_to_char(col.min(content.len_utf16_cu())),
        PositionEncoding::Utf8 => content.byte_to_char(col.min(content.len_bytes())),
    };
    start + chars
}

/// A line without its `\n`, `\r\n` or `\r`.
fn without_break(line: RopeSlice<'_>) -> RopeSlice<'_> {
    let mut len = line.len_chars();
    if len > 0 && line.char(len - 1) == '\n' {
        len -= 1;
    }
    if len > 0 && line.char(len - 1) == '\r' {
        len -= 1;
    }
    line.slice(..len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Document {
        Document::new(0, text)
    }

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Option<Range> {
        Some(Range::new(Position::new(l1, c1), Position::new(l2, c2)))
    }

    #[test]
    fn edits_in_each_encoding() {
        // "é" is 2 UTF-8 bytes, 1 UTF-16 unit; "😀" is 4 bytes, 2 units, 1 char.
        let mut d = doc("a: é😀x\r\nb: 2\rc: 3\n");
        d.apply(range(0, 6, 0, 7), "y", PositionEncoding::Utf16, 1);
        assert_eq!(d.text(), "a: é😀y\r\nb: 2\rc: 3\n");
        d.apply(range(0, 9, 0, 10), "z", PositionEncoding::Utf8, 1);
        assert_eq!(d.text(), "a: é😀z\r\nb: 2\rc: 3\n");
        d.apply(range(0, 5, 0, 6), "w", PositionEncoding::Utf32, 1);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2\rc: 3\n");
        // Lone CR is a line break; columns past the end clamp before the break.
        d.apply(range(2, 99, 2, 99), "!", PositionEncoding::Utf16, 1);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2\rc: 3!\n");
        d.apply(range(1, 99, 2, 0), "", PositionEncoding::Utf16, 1);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2c: 3!\n");
        // Past the last line appends.
        d.apply(range(40, 0, 40, 0), "end", PositionEncoding::Utf16, 1);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2c: 3!\nend");
        d.apply(None, "new", PositionEncoding::Utf16, 1);
        assert_eq!(d.text(), "new");
    }

    #[test]
    fn edits_are_logged_in_bytes_by_version() {
        let mut d = doc("a: é\nb: x\n");
        // UTF-16 column 4 is after "é" (bytes 3..5).
        d.apply(range(0, 4, 0, 4), "zz", PositionEncoding::Utf16, 2);
        d.apply(range(1, 3, 1, 4), "", PositionEncoding::Utf16, 3);
        assert_eq!(d.text(), "a: ézz\nb: \n");
        let e = |start, end, new_len| ByteEdit { start, end, new_len };
        assert_eq!(d.edits_between(0, 3), Some(vec![e(5, 5, 2), e(11, 12, 0)]));
        assert_eq!(d.edits_between(2, 3), Some(vec![e(11, 12, 0)]));
        d.forget_edits(2);
        assert_eq!(d.edits_between(0, 3), None);
        assert_eq!(d.edits_between(2, 3), Some(vec![e(11, 12, 0)]));
    }
}
