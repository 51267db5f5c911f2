//! Byte offsets ↔ line/column positions in UTF-8, UTF-16 or characters.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, as in LSP. A leading byte-order mark is not part of
//! line 0's columns (editors do not show it).

use super::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize, schemars::JsonSchema)]
pub struct Position {
    /// 0-based line.
    pub line: u32,
    /// 0-based column in units of the encoding.
    pub character: u32,
}

/// A start and end position, as JSON outputs carry them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, schemars::JsonSchema)]
pub struct Range {
    pub start: Position,
    pub end: Position,
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
    line_starts: LineStarts,
    /// Lines that hold non-ASCII text (where columns need counting); sorted.
    non_ascii_lines: Box<[u32]>,
    len: u32,
}

/// Lines per group of [`LineStarts`].
const GROUP: u32 = 32;

/// Line starts as 16-bit offsets from the start of their group (at most [`GROUP`] lines, fewer
/// where a 16-bit offset would overflow): about 2 bytes a line instead of 4. The server keeps
/// an index per file for its lifetime, so this is most of a workspace's index memory.
#[derive(Clone, Debug, Default)]
struct LineStarts {
    /// Each group's first line and that line's start; sorted by both.
    groups: Box<[(u32, u32)]>,
    /// Each line's start minus its group's start.
    rel: Box<[u16]>,
}

impl LineStarts {
    fn new(starts: &[u32]) -> LineStarts {
        let mut groups = Vec::with_capacity(starts.len() / GROUP as usize + 1);
        let mut rel = Vec::with_capacity(starts.len());
        let mut group = (0, 0);
        for (line, &start) in (0u32..).zip(starts) {
            if groups.is_empty() || line - group.0 >= GROUP || start - group.1 > u32::from(u16::MAX) {
                group = (line, start);
                groups.push(group);
            }
            rel.push((start - group.1) as u16);
        }
        LineStarts { groups: groups.into(), rel: rel.into() }
    }

    fn len(&self) -> usize {
        self.rel.len()
    }

    /// The group holding `line`, which must exist.
    fn group_of_line(&self, line: u32) -> (u32, u32) {
        self.groups[self.groups.partition_point(|&(first, _)| first <= line) - 1]
    }

    fn get(&self, line: u32) -> Option<u32> {
        let rel = *self.rel.get(line as usize)?;
        Some(self.group_of_line(line).1 + u32::from(rel))
    }

    /// The last line starting at or before `offset` (line 0 when none does).
    fn line_of(&self, offset: u32) -> u32 {
        let g = self.groups.partition_point(|&(_, start)| start <= offset);
        let Some(&(first, start)) = g.checked_sub(1).and_then(|g| self.groups.get(g)) else { return 0 };
        let end = self.groups.get(g).map_or(self.rel.len(), |&(next, _)| next as usize);
        let within = &self.rel[first as usize..end];
        // At least 1: the group's first line starts at `start`.
        first + within.partition_point(|&r| start + u32::from(r) <= offset) as u32 - 1
    }
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
        LineIndex {
            line_starts: LineStarts::new(&line_starts),
            non_ascii_lines: non_ascii_lines.into(),
            len: bytes.len() as u32,
        }
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
        self.line_starts.get(line).unwrap_or(self.len)
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
        self.line_starts.line_of(offset)
    }

    /// Byte offset → position. `text` must be the text this index was built from.
    pub fn position(&self, text: &str, offset: u32, enc: PositionEncoding) -> Position {
        let offset = offset.min(self.len);
        let line = self.line_of(offset);
        let start = self.line_start(line);
        // An offset inside a leading byte-order mark is the first line's column 0: columns
        // are counted after the mark.
        let offset = offset.max(start);
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
    fn grouped_starts_equal_plain_ones() {
        // Many groups, and lines long enough to end a group early (a 16-bit offset overflows).
        let mut text = String::new();
        let mut seed = 7u32;
        for i in 0..500 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let len = if i % 97 == 5 { 70_000 } else { (seed >> 16) as usize % 90 };
            text.push_str(&"x".repeat(len));
            text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        }
        let plain: Vec<u32> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1)).collect();
        let idx = LineIndex::new(&text);
        assert_eq!(idx.line_count() as usize, plain.len());
        assert!(idx.line_starts.groups.len() > plain.len() / GROUP as usize, "long lines split groups");
        for (line, &start) in plain.iter().enumerate() {
            assert_eq!(idx.line_start(line as u32), start);
            for offset in [start, start + 1, start.saturating_sub(1)] {
                let want = plain.partition_point(|&s| s <= offset).max(1) - 1;
                assert_eq!(idx.line_of(offset), want as u32, "offset {offset}");
            }
        }
        assert_eq!(idx.line_start(plain.len() as u32), text.len() as u32);
        assert_eq!(LineIndex::new("").line_of(0), 0);
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
