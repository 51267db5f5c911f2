//! saphyr-parser events → a span-carrying tree, for one document piece.
//!
//! Built with an explicit stack (no recursion), capped at [`MAX_DEPTH`] levels, and closed
//! cleanly when the event stream stops early, so a broken document keeps every node read
//! before the break.

use std::panic::{AssertUnwindSafe, catch_unwind};

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, Span as SaphyrSpan};

use crate::syntax::{Entry, Node, NodeKind, Scalar, ScalarStyle, Span};

/// Containers nested deeper than this are dropped. Derived `Drop`/`Clone`/`PartialEq` on `Node`
/// recurse, so this cap is what keeps them within a thread's stack.
pub(super) const MAX_DEPTH: usize = 200;

/// What one parser run over one piece produced.
pub(super) struct Outcome {
    pub root: Option<Node>,
    /// Byte offset (in the file) and message of the error that stopped the parser.
    pub error: Option<(u32, String)>,
    /// Where content deeper than [`MAX_DEPTH`] was first dropped.
    pub depth_error: Option<u32>,
    /// Nodes read (not counting `Missing` ones): how much of the document this run kept.
    pub nodes: u32,
    /// The outermost flow collection still open when the parser stopped.
    pub open_flow: Option<u32>,
}

impl Outcome {
    /// Which of several runs over a broken document to keep: the one that read the most, then
    /// the one that got furthest.
    pub fn score(&self) -> (u32, u32) {
        (self.nodes, self.error.as_ref().map_or(u32::MAX, |e| e.0))
    }
}

/// Converts saphyr's char indices into byte offsets. Events arrive almost in text order, so a
/// cursor moving from the last position costs little and needs no per-char table.
struct Cursor<'a> {
    bytes: &'a [u8],
    ascii: bool,
    chars: usize,
    byte: usize,
}

impl Cursor<'_> {
    fn byte_of(&mut self, char_index: usize) -> usize {
        let len = self.bytes.len();
        if self.ascii {
            return char_index.min(len);
        }
        while self.chars < char_index && self.byte < len {
            // Width of the UTF-8 sequence from its lead byte.
            self.byte += match self.bytes[self.byte] {
                0..0x80 => 1,
                0x80..0xE0 => 2,
                0xE0..0xF0 => 3,
                _ => 4,
            };
            self.byte = self.byte.min(len);
            self.chars += 1;
        }
        while self.chars > char_index && self.byte > 0 {
            self.byte -= 1;
            while self.byte > 0 && (self.bytes[self.byte] & 0xC0) == 0x80 {
                self.byte -= 1;
            }
            self.chars -= 1;
        }
        self.byte
    }
}

/// An open collection. Its children wait on the builder's shared `children` stack (from
/// `first` on) and move into one exactly-sized `Vec` when it closes: one allocation per
/// collection instead of a growing `Vec` each.
struct Frame {
    start: u32,
    flow: bool,
    map: bool,
    first: usize,
}

/// The piece's text as the parser sees it (possibly with blanked lines), addressed by file
/// offsets.
#[derive(Clone, Copy)]
struct Text<'a> {
    bytes: &'a [u8],
    /// The piece's offset in the file.
    base: u32,
}

struct Builder<'a> {
    /// All positions below are file offsets.
    t: Text<'a>,
    cursor: Cursor<'a>,
    placeholders: &'a [(u32, u32)],
    stack: Vec<Frame>,
    /// Finished children of the open collections, innermost last (keys and values alternate
    /// for mappings).
    children: Vec<Node>,
    root: Option<Node>,
    /// Open containers being dropped for depth, and where the dropped node starts.
    skip: u32,
    skip_start: u32,
    depth_error: Option<u32>,
    /// End of the last token read: where a block scalar's indicator search begins.
    last_end: u32,
    document_started: bool,
    nodes: u32,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn style(s: SaphyrStyle) -> ScalarStyle {
    match s {
        SaphyrStyle::Plain => ScalarStyle::Plain,
        SaphyrStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        SaphyrStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        SaphyrStyle::Literal => ScalarStyle::Literal,
        SaphyrStyle::Folded => ScalarStyle::Folded,
    }
}

impl Text<'_> {
    fn end(&self) -> u32 {
        self.base + self.bytes.len() as u32
    }

    /// The byte at file offset `at`, or 0 outside the piece.
    fn at(&self, at: u32) -> u8 {
        at.checked_sub(self.base).and_then(|i| self.bytes.get(i as usize)).copied().unwrap_or(0)
    }

    /// Past anchors and tags (`&a !!str foo` → `foo`), which saphyr includes in node spans.
    fn skip_properties(&self, mut i: u32, limit: u32) -> u32 {
        let end = self.end();
        while matches!(self.at(i), b'&' | b'!') {
            if self.at(i) == b'!' && self.at(i + 1) == b'<' {
                while i < end && self.at(i) != b'>' {
                    i += 1;
                }
            }
            while i < end && !is_space(self.at(i)) {
                i += 1;
            }
            // Blanks and comments between the properties and the node.
            loop {
                while i < end && is_space(self.at(i)) {
                    i += 1;
                }
                if self.at(i) != b'#' {
                    break;
                }
                while i < end && !matches!(self.at(i), b'\n' | b'\r') {
                    i += 1;
                }
            }
        }
        i.min(limit)
    }

    /// Where a mapping value starts (or would): past the `:` after a key ending at `key_end`.
    fn value_pos(&self, key_end: u32) -> u32 {
        let end = self.end();
        let mut i = key_end;
        while i < end && matches!(self.at(i), b' ' | b'\t') {
            i += 1;
        }
        if i < end && self.at(i) == b':' {
            i += 1;
            while i < end && matches!(self.at(i), b' ' | b'\t') {
                i += 1;
            }
        }
        i
    }

    /// The `-` of a block sequence entry before the node at `p`, across whitespace and node
    /// properties (`- &a x`).
    fn dash_before(&self, p: u32) -> Option<u32> {
        let mut i = p;
        loop {
            let token_end = i;
            while i > self.base && is_space(self.at(i - 1)) {
                i -= 1;
            }
            if i == token_end || i == self.base {
                return None;
            }
            let mut j = i;
            while j > self.base && !is_space(self.at(j - 1)) {
                j -= 1;
            }
            match self.at(j) {
                b'-' if j + 1 == i => return Some(j),
                b'&' | b'!' => i = j,
                _ => return None,
            }
        }
    }

    /// A block sequence's start: saphyr marks either its first `-` or its first item.
    fn block_sequence_start(&self, mark: u32) -> u32 {
        if self.at(mark) == b'-' && (mark + 1 >= self.end() || is_space(self.at(mark + 1))) {
            mark
        } else {
            self.dash_before(mark).unwrap_or(mark)
        }
    }

    /// The `|` or `>` of a block scalar whose content saphyr starts at `content`: the first
    /// one after the previous token, outside comments.
    fn block_indicator(&self, from: u32, content: u32) -> Option<u32> {
        let mut i = from;
        let limit = content.min(self.end().saturating_sub(1));
        while i <= limit {
            match self.at(i) {
                b'|' | b'>' => return Some(i),
                b'#' if i == self.base || is_space(self.at(i - 1)) => {
                    while i <= limit && !matches!(self.at(i), b'\n' | b'\r') {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        None
    }
}

impl Builder<'_> {
    fn pos(&mut self, char_index: usize) -> u32 {
        self.t.base + self.cursor.byte_of(char_index) as u32
    }

    fn span(&mut self, sp: &SaphyrSpan) -> (u32, u32) {
        let s = self.pos(sp.start.index());
        let e = self.pos(sp.end.index());
        (s, e.max(s))
    }

    fn is_templated(&self, s: u32, e: u32) -> bool {
        let p = self.placeholders;
        let i = p.partition_point(|&(_, pe)| pe <= s);
        p.get(i).is_some_and(|&(ps, _)| ps < e)
    }

    fn pending_key_end(&self) -> Option<u32> {
        match self.stack.last() {
            Some(f) if f.map && (self.children.len() - f.first) % 2 == 1 => self.children.last().map(|k| k.span.end),
            _ => None,
        }
    }

    fn attach(&mut self, mut node: Node) {
        // Siblings never overlap. After an explicit key and a lone `\r` (`?\r::`) saphyr reads
        // the `:` that ended the entry before as the next key's text; that key starts where
        // the previous value was placed, not before it.
        let leaf = matches!(node.kind, NodeKind::Scalar(_) | NodeKind::Alias | NodeKind::Missing);
        if leaf
            && let Some(f) = self.stack.last()
            && self.children.len() > f.first
            && let Some(prev_end) = self.children.last().map(|p| p.span.end)
            && node.span.start < prev_end
        {
            node.span = Span::new(prev_end, node.span.end.max(prev_end));
        }
        self.last_end = self.last_end.max(node.span.end);
        if !matches!(node.kind, NodeKind::Missing) {
            self.nodes += 1;
        }
        if self.stack.is_empty() {
            if self.root.is_none() {
                self.root = Some(node);
            }
        } else {
            self.children.push(node);
        }
    }

    /// Returns false when the document is over.
    fn event(&mut self, ev: Event<'_>, sp: SaphyrSpan) -> bool {
        match ev {
            Event::Nothing | Event::StreamStart => {}
            Event::DocumentStart(_) => {
                // One document per piece; a second one would be a splitting miss.
                if self.document_started {
                    return false;
                }
                self.document_started = true;
                self.last_end = self.span(&sp).1;
            }
            Event::DocumentEnd | Event::StreamEnd => return false,
            Event::Alias(_) => {
                let (s, e) = self.span(&sp);
                if self.skip == 0 {
                    self.attach(Node { span: Span::new(s, e), kind: NodeKind::Alias });
                }
            }
            Event::Scalar(value, st, anchor, tag) => {
                if self.skip == 0 {
                    self.scalar(&value, style(st), anchor != 0 || tag.is_some(), &sp);
                }
            }
            Event::SequenceStart(anchor, tag) => self.open(false, anchor != 0 || tag.is_some(), &sp),
            Event::MappingStart(anchor, tag) => self.open(true, anchor != 0 || tag.is_some(), &sp),
            Event::SequenceEnd | Event::MappingEnd => self.close(&sp),
        }
        true
    }

    fn scalar(&mut self, value: &str, style: ScalarStyle, props: bool, sp: &SaphyrSpan) {
        let (mut s, mut e) = self.span(sp);
        if props {
            s = self.t.skip_properties(s, e);
        }
        match style {
            ScalarStyle::Literal | ScalarStyle::Folded => {
                // saphyr starts block scalars at their content (sometimes at the header) and
                // ends them after trailing blank lines: span header..last content char.
                let floor = match self.t.block_indicator(self.last_end, s) {
                    Some(ind) => {
                        s = ind;
                        ind + 1
                    }
                    None => s,
                };
                while e > floor && is_space(self.t.at(e - 1)) {
                    e -= 1;
                }
            }
            ScalarStyle::Plain if value.is_empty() => {
                // An empty value sits at its key's `:`; place it where the value would be typed.
                // It has no text of its own: after error recovery saphyr may span it over what
                // follows (`{a}x`: to past the `}`), outside its mapping.
                if (s == e || !props)
                    && let Some(key_end) = self.pending_key_end()
                {
                    s = self.t.value_pos(key_end);
                }
                e = s;
            }
            _ => {}
        }
        let templated = !self.placeholders.is_empty() && self.is_templated(s, e);
        self.attach(Node {
            span: Span::new(s, e),
            kind: NodeKind::Scalar(Scalar { value: value.into(), style, templated }),
        });
    }

    fn open(&mut self, map: bool, props: bool, sp: &SaphyrSpan) {
        let (s, e) = self.span(sp);
        if self.skip > 0 {
            self.skip += 1;
            return;
        }
        // saphyr gives flow collections the span of their properties and bracket, block ones
        // an empty span at their first `-` or item.
        let flow = e > s && matches!(self.t.at(e - 1), b'[' | b'{');
        let start = if flow {
            e - 1
        } else if map {
            if props { self.t.skip_properties(s, e) } else { s }
        } else {
            self.t.block_sequence_start(s)
        };
        if self.stack.len() >= MAX_DEPTH {
            self.skip = 1;
            self.skip_start = start;
            self.depth_error.get_or_insert(start);
            return;
        }
        if !map && !flow {
            // `- - x`: the outer sequences may have been marked at the inner one's dash.
            let t = self.t;
            let mut child = start;
            // A frame has no children yet when none were pushed since its own `first`.
            let mut next_first = self.children.len();
            for f in self.stack.iter_mut().rev() {
                let empty_block_seq = !f.flow && !f.map && f.first == next_first;
                next_first = f.first;
                if !empty_block_seq || f.start < child {
                    break;
                }
                match t.dash_before(child) {
                    Some(d) => {
                        f.start = d;
                        child = d;
                    }
                    None => break,
                }
            }
        }
        self.stack.push(Frame { start, flow, map, first: self.children.len() });
        self.last_end = if flow {
            e
        } else if map {
            start
        } else {
            start + 1
        };
    }

    fn close(&mut self, sp: &SaphyrSpan) {
        let (s, mut e) = self.span(sp);
        // A flow end's span runs on over trailing blanks and comments: stop at the bracket.
        if matches!(self.t.at(s), b']' | b'}') {
            e = s + 1;
        }
        if self.skip > 0 {
            self.skip -= 1;
            if self.skip == 0 {
                let at = self.skip_start;
                self.attach(Node { span: Span::new(at, at), kind: NodeKind::Missing });
            }
            return;
        }
        if let Some(frame) = self.stack.pop() {
            let node = self.finish(frame, Some(e));
            self.attach(node);
        }
    }

    /// Turns a frame into a node. `end` is the end of the closing event, absent when the
    /// stream broke off (then the last child's end is used).
    fn finish(&mut self, frame: Frame, end: Option<u32>) -> Node {
        let Frame { start, flow, map, first } = frame;
        let first = first.min(self.children.len());
        let closed = |last: Option<u32>| match (flow, end) {
            (true, Some(e)) => e,
            _ => last.unwrap_or(if flow { start + 1 } else { start }),
        };
        if map {
            if (self.children.len() - first) % 2 == 1 {
                // A key whose value never came.
                let at = self.children.last().map_or(start, |k| self.t.value_pos(k.span.end));
                self.children.push(Node { span: Span::new(at, at), kind: NodeKind::Missing });
            }
            let mut entries = Vec::with_capacity((self.children.len() - first) / 2);
            let mut drain = self.children.drain(first..);
            while let (Some(key), Some(value)) = (drain.next(), drain.next()) {
                entries.push(Entry { key, value });
            }
            drop(drain);
            let start = match entries.first() {
                Some(e) if !flow => e.key.span.start,
                _ => start,
            };
            let end = closed(entries.last().map(|e| e.value.span.end.max(e.key.span.end)));
            Node { span: Span::new(start, end.max(start)), kind: NodeKind::Mapping(entries) }
        } else {
            let items: Vec<Node> = self.children.drain(first..).collect();
            let end = closed(items.last().map(|n| n.span.end));
            Node { span: Span::new(start, end.max(start)), kind: NodeKind::Sequence(items) }
        }
    }

    /// Closes everything still open after the stream stopped.
    fn close_all(&mut self) {
        if self.skip > 0 {
            self.skip = 0;
            let at = self.skip_start;
            self.attach(Node { span: Span::new(at, at), kind: NodeKind::Missing });
        }
        while let Some(frame) = self.stack.pop() {
            let node = self.finish(frame, None);
            self.attach(node);
        }
    }
}

/// Parses one document piece (`piece` starts at file offset `base`). Never fails: on a syntax
/// error the tree holds every node before it, with open containers closed.
/// The builder's working stacks, kept from one document to the next so their allocations are
/// reused.
#[derive(Default)]
pub(super) struct Scratch {
    stack: Vec<Frame>,
    children: Vec<Node>,
}

pub(super) fn parse_piece(piece: &str, base: u32, placeholders: &[(u32, u32)], scratch: &mut Scratch) -> Outcome {
    let bytes = piece.as_bytes();
    let mut b = Builder {
        t: Text { bytes, base },
        cursor: Cursor { bytes, ascii: piece.is_ascii(), chars: 0, byte: 0 },
        placeholders,
        stack: std::mem::take(&mut scratch.stack),
        children: std::mem::take(&mut scratch.children),
        root: None,
        skip: 0,
        skip_start: 0,
        depth_error: None,
        last_end: base,
        document_started: false,
        nodes: 0,
    };
    let mut parser = Parser::new_from_str(piece);
    // saphyr has `unwrap`s on internal invariants; a bug there must not take the caller
    // down. Whatever was built before it is kept, like after a syntax error.
    let run = catch_unwind(AssertUnwindSafe(|| {
        loop {
            match parser.next_event() {
                None => return None,
                Some(Ok((ev, sp))) => {
                    if !b.event(ev, sp) {
                        return None;
                    }
                }
                // The iterator repeats its error forever: stop at the first one.
                Some(Err(e)) => {
                    let at = b.pos(e.marker().index());
                    return Some((at, e.info().to_owned()));
                }
            }
        }
    }));
    let error = match run {
        Ok(error) => error,
        Err(_) => Some((b.last_end, "internal YAML parser error".to_owned())),
    };
    let open_flow = match error {
        Some(_) => b.stack.iter().find(|f| f.flow).map(|f| f.start),
        None => None,
    };
    b.close_all();
    b.stack.clear();
    b.children.clear();
    scratch.stack = b.stack;
    scratch.children = b.children;
    Outcome { root: b.root, error, depth_error: b.depth_error, nodes: b.nodes, open_flow }
}
