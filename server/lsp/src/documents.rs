//! Open documents: their text as a rope, edited in place by incremental `didChange` events.

use policylens_core::syntax::PositionEncoding;
use ropey::{Rope, RopeSlice};
use tower_lsp_server::ls_types::{Position, Range};

#[derive(Clone, Debug)]
pub struct Document {
    pub version: i32,
    pub rope: Rope,
}

impl Document {
    pub fn new(version: i32, text: &str) -> Document {
        Document { version, rope: Rope::from_str(text) }
    }

    /// Applies one content change: a range replacement, or the whole text when `range` is
    /// `None`. Positions past a line's end or the document's end are clamped, as LSP asks.
    pub fn apply(&mut self, range: Option<Range>, text: &str, enc: PositionEncoding) {
        let Some(range) = range else {
            self.rope = Rope::from_str(text);
            return;
        };
        let a = char_index(&self.rope, range.start, enc);
        let b = char_index(&self.rope, range.end, enc);
        let (start, end) = if a <= b { (a, b) } else { (b, a) };
        self.rope.remove(start..end);
        self.rope.insert(start, text);
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
        d.apply(range(0, 6, 0, 7), "y", PositionEncoding::Utf16);
        assert_eq!(d.text(), "a: é😀y\r\nb: 2\rc: 3\n");
        d.apply(range(0, 9, 0, 10), "z", PositionEncoding::Utf8);
        assert_eq!(d.text(), "a: é😀z\r\nb: 2\rc: 3\n");
        d.apply(range(0, 5, 0, 6), "w", PositionEncoding::Utf32);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2\rc: 3\n");
        // Lone CR is a line break; columns past the end clamp before the break.
        d.apply(range(2, 99, 2, 99), "!", PositionEncoding::Utf16);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2\rc: 3!\n");
        d.apply(range(1, 99, 2, 0), "", PositionEncoding::Utf16);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2c: 3!\n");
        // Past the last line appends.
        d.apply(range(40, 0, 40, 0), "end", PositionEncoding::Utf16);
        assert_eq!(d.text(), "a: é😀w\r\nb: 2c: 3!\nend");
        d.apply(None, "new", PositionEncoding::Utf16);
        assert_eq!(d.text(), "new");
    }
}
