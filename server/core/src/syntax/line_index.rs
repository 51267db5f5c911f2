//! Byte offsets ↔ line/column positions in UTF-8, UTF-16 or characters.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, as in LSP. A leading byte-order mark is not part of
//! line 0's columns (editors do not show it).

use super::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Position {
    /// 0-based line.
    pub line: u32,
    /// 0-based column in units of the encoding.
    pub character: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
    Utf32,
}

#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// Byte offset of the first character of each line.
    line_starts: Vec<u32>,
    /// Lines that hold non-ASCII text (where columns need counting); sorted.
    non_ascii_lines: Vec<u32>,
    len: u32,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let mut line_starts = vec![bom];
        let mut non_ascii_lines = Vec::new();
        let mut line_has_non_ascii = false;
        let mut i = bom as usize;
        while i < bytes.len() {
            let b = bytes[i];
            match b {
                b'\n' => {
                    push_line(&mut non_ascii_lines, &line_starts, &mut line_has_non_ascii);
                    line_starts.push(i as u32 + 1);
                }
                b'\r' => {
                    push_line(&mut non_ascii_lines, &line_starts, &mut line_has_non_ascii);
                    if bytes.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    line_starts.push(i as u32 + 1);
                }
                b if b >= 0x80 => line_has_non_ascii = true,
                _ => {}
            }
            i += 1;
        }
        push_line(&mut non_ascii_lines, &line_starts, &mut line_has_non_ascii);
        LineIndex { line_starts, non_ascii_lines, len: bytes.len() as u32 }
    }

    /// No line holds non-ASCII text: columns are byte counts and the text is not needed.
    pub fn is_ascii(&self) -> bool {
        self.non_ascii_lines.is_empty()
    }

    pub fn line_count(&self) -> u32 {
        self.line_starts.len() as u32
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Byte offset where `line` starts (clamped to the end of the text).
    pub fn line_start(&self, line: u32) -> u32 {
        self.line_starts.get(line as usize).copied().unwrap_or(self.len)
    }

    /// The byte range of `line` without its line break.
    pub fn line_span(&self, text: &str, line: u32) -> Span {
        let start = self.line_start(line);
        let mut end = self.line_start(line + 1);
        let b = text.as_bytes();
        while end > start && matches!(b.get(end as usize - 1), Some(b'\n' | b'\r')) {
            end -= 1;
        }
        Span::new(start, end)
    }

    /// The line holding byte `offset`.
    pub fn line_of(&self, offset: u32) -> u32 {
        match self.line_starts.binary_search(&offset) {
            Ok(l) => l as u32,
            Err(l) => l.saturating_sub(1) as u32,
        }
    }

    /// Byte offset → position. `text` must be the text this index was built from.
    pub fn position(&self, text: &str, offset: u32, enc: PositionEncoding) -> Position {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let character = if self.non_ascii_lines.binary_search(&line).is_err() {
            offset - start
        } else {
            let slice = text.get(start as usize..offset as usize).unwrap_or_else(|| {
                // Not on a char boundary: count up to the char that holds `offset`.
                let mut o = offset as usize;
                while o > start as usize && !text.is_char_boundary(o) {
                    o -= 1;
                }
                &text[start as usize..o]
            });
            width(slice, enc)
        };
        Position { line, character }
    }

    /// Position → byte offset, clamped to the line's end (LSP clients may send columns past it).
    pub fn offset(&self, text: &str, pos: Position, enc: PositionEncoding) -> u32 {
        if pos.line as usize >= self.line_starts.len() {
            return self.len;
        }
        let span = self.line_span(text, pos.line);
        if self.non_ascii_lines.binary_search(&pos.line).is_err() {
            return (span.start + pos.character).min(span.end);
        }
        let line = &text[span.start as usize..span.end as usize];
        let mut units = 0u32;
        for (i, c) in line.char_indices() {
            if units >= pos.character {
                return span.start + i as u32;
            }
            units += match enc {
                PositionEncoding::Utf8 => c.len_utf8() as u32,
                PositionEncoding::Utf16 => c.len_utf16() as u32,
                PositionEncoding::Utf32 => 1,
            };
        }
        span.end
    }
}

fn push_line(non_ascii: &mut Vec<u32>, starts: &[u32], flag: &mut bool) {
    if *flag {
        non_ascii.push(starts.len() as u32 - 1);
        *flag = false;
    }
}

fn width(s: &str, enc: PositionEncoding) -> u32 {
    match enc {
        PositionEncoding::Utf8 => s.len() as u32,
        PositionEncoding::Utf16 => s.chars().map(|c| c.len_utf16() as u32).sum(),
        PositionEncoding::Utf32 => s.chars().count() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn crlf_lone_cr_and_non_ascii() {
        let text = "a: 1\r\nb: héllo✓ x\rc: 😀z\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 4);
        let x = text.find(" x").unwrap() as u32 + 1;
        assert_eq!(idx.position(text, x, PositionEncoding::Utf16), pos(1, 10));
        assert_eq!(idx.position(text, x, PositionEncoding::Utf8), pos(1, 13));
        assert_eq!(idx.position(text, x, PositionEncoding::Utf32), pos(1, 10));
        let z = text.find('z').unwrap() as u32;
        assert_eq!(idx.position(text, z, PositionEncoding::Utf16), pos(2, 5));
        assert_eq!(idx.position(text, z, PositionEncoding::Utf32), pos(2, 4));
        for enc in [PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32] {
            assert_eq!(idx.offset(text, idx.position(text, x, enc), enc), x);
            assert_eq!(idx.offset(text, idx.position(text, z, enc), enc), z);
        }
        // Past the end of a line clamps to the line end, before the break.
        assert_eq!(idx.offset(text, pos(0, 99), PositionEncoding::Utf16), 4);
    }

    #[test]
    fn bom_is_not_a_column() {
        let text = "\u{feff}kind: Gateway\n";
        let idx = LineIndex::new(text);
        let k = text.find("Gateway").unwrap() as u32;
        assert_eq!(idx.position(text, k, PositionEncoding::Utf16), pos(0, 6));
        assert_eq!(idx.offset(text, pos(0, 6), PositionEncoding::Utf16), k);
    }
}
