//! libyaml events → a span-carrying tree, for one document piece.
//!
//! Built with an explicit stack (no recursion), capped at [`MAX_DEPTH`] levels, and closed
//! cleanly when the event stream stops early, so a broken document keeps every node read
//! before the break.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::libyaml::{Event, Parser};
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
    placeholders: &'a [(u32, u32)],
    /// Starts of the lines the templating hid (directives): a scalar over one is templated.
    structural: &'a [u32],
    /// Offsets in the piece of the `:`s libyaml read as [`COLON_STAND_IN`] (see
    /// [`parse_piece`]): each is a `:` again in its scalar's value.
    colons: &'a [usize],
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
    /// The anchors defined so far: an alias to none breaks the document (libyaml's loader and
    /// go-yaml reject it). A second definition is not an error: go-yaml v3, which kustomize and
    /// Flux read with, lets it replace the first, and libyaml alone rejects it
    /// (docs/semantics.md §4.1: go-yaml decides where the two differ). Aliases are not
    /// expanded, so which definition one names does not change the tree.
    anchors: Vec<Box<[u8]>>,
}

/// What the builder makes of one event.
enum Step {
    Go,
    /// The document is over.
    Stop,
    /// The document is broken here (a file offset), for this reason.
    Broken(u32, String),
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Text<'_> {
    fn end(&self) -> u32 {
        self.base + self.bytes.len() as u32
    }

    /// The byte at file offset `at`, or 0 outside the piece.
    fn at(&self, at: u32) -> u8 {
        at.checked_sub(self.base).and_then(|i| self.bytes.get(i as usize)).copied().unwrap_or(0)
    }

    /// Past anchors and tags (`&a !!str foo` → `foo`), which libyaml includes in node spans.
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

    /// A block sequence's start: libyaml marks its first `-`, or its properties before it.
    fn block_sequence_start(&self, mark: u32, props: bool) -> u32 {
        let mark = if props { self.skip_properties(mark, self.end()) } else { mark };
        if self.at(mark) == b'-' && (mark + 1 >= self.end() || is_space(self.at(mark + 1))) {
            mark
        } else {
            self.dash_before(mark).unwrap_or(mark)
        }
    }

    /// Past blanks, line breaks and comments from `i`.
    fn skip_blank(&self, mut i: u32) -> u32 {
        let end = self.end();
        while i < end {
            match self.at(i) {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'#' => {
                    while i < end && !matches!(self.at(i), b'\n' | b'\r') {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        i
    }

    /// Past spaces and tabs from `i`.
    fn skip_inline(&self, mut i: u32) -> u32 {
        while i < self.end() && matches!(self.at(i), b' ' | b'\t') {
            i += 1;
        }
        i
    }

    /// The `|` or `>` of a block scalar whose token libyaml starts at `content`: the first
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
    /// A libyaml mark (a byte offset into the piece) as a file offset.
    fn pos(&self, mark: usize) -> u32 {
        self.t.base + (mark.min(self.t.bytes.len()) as u32)
    }

    fn span(&self, start: usize, end: usize) -> (u32, u32) {
        let (s, e) = (self.pos(start), self.pos(end));
        (s, e.max(s))
    }

    /// Notes an anchor's definition (a second one of the same name replaces the first).
    fn define(&mut self, anchor: Option<&[u8]>) {
        if let Some(a) = anchor
            && !self.anchors.iter().any(|d| **d == *a)
        {
            self.anchors.push(a.into());
        }
    }

    fn is_templated(&self, s: u32, e: u32) -> bool {
        let p = self.placeholders;
        let i = p.partition_point(|&(_, pe)| pe <= s);
        let l = self.structural;
        let j = l.partition_point(|&ls| ls < s);
        p.get(i).is_some_and(|&(ps, _)| ps < e) || l.get(j).is_some_and(|&ls| ls < e)
    }

    fn pending_key_end(&self) -> Option<u32> {
        match self.stack.last() {
            Some(f) if f.map && (self.children.len() - f.first) % 2 == 1 => self.children.last().map(|k| k.span.end),
            _ => None,
        }
    }

    /// The `-` of the item being read, when the innermost collection is a block sequence.
    fn pending_dash(&self) -> Option<u32> {
        let f = self.stack.last().filter(|f| !f.flow && !f.map)?;
        let dash = match self.children.get(f.first..).and_then(|c| c.last()) {
            None => f.start,
            Some(prev) => self.t.skip_blank(prev.span.end),
        };
        (self.t.at(dash) == b'-').then_some(dash)
    }

    fn attach(&mut self, mut node: Node) {
        // Siblings never overlap (a value placed after its key's `:` may lie past what the
        // next sibling's mark says, in broken text).
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

    fn event(&mut self, ev: Event<'_>, start: usize, end: usize) -> Step {
        match ev {
            Event::StreamStart => {}
            Event::DocumentStart => {
                // One document per piece; a second one would be a splitting miss.
                if self.document_started {
                    return Step::Stop;
                }
                self.document_started = true;
                self.last_end = self.span(start, end).1;
            }
            // What follows the document's end still counts: libyaml rejects content after a
            // root that ended early (` a: 1` then `b: 2` at column 0) only there.
            Event::DocumentEnd => {}
            Event::StreamEnd => return Step::Stop,
            Event::Alias { anchor } => {
                let (s, e) = self.span(start, end);
                if !self.anchors.iter().any(|d| **d == *anchor) {
                    let name = String::from_utf8_lossy(anchor);
                    return Step::Broken(
                        s,
                        format!("an alias (`*{name}`) to an anchor (`&{name}`) defined nowhere before it"),
                    );
                }
                if self.skip == 0 {
                    self.attach(Node { span: Span::new(s, e), kind: NodeKind::Alias });
                }
            }
            Event::Scalar { value, style, anchor, tagged } => {
                self.define(anchor);
                if self.skip == 0 {
                    self.scalar(value, style, anchor.is_some() || tagged, start, end);
                }
            }
            Event::SequenceStart { anchor, tagged, flow } => {
                self.define(anchor);
                self.open(false, flow, anchor.is_some() || tagged, start, end);
            }
            Event::MappingStart { anchor, tagged, flow } => {
                self.define(anchor);
                self.open(true, flow, anchor.is_some() || tagged, start, end);
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(start, end),
        }
        Step::Go
    }

    fn scalar(&mut self, value: &str, style: ScalarStyle, props: bool, start: usize, end: usize) {
        let (mut s, mut e) = self.span(start, end);
        if props {
            s = self.t.skip_properties(s, e);
        }
        match style {
            ScalarStyle::Literal | ScalarStyle::Folded => {
                // libyaml ends block scalars after their trailing blank lines: span
                // header..last content char.
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
            ScalarStyle::Plain if s == e || (value.is_empty() && !props) => {
                // An empty value: libyaml marks it where the next token starts. Place it where
                // the value would be typed: after its key's `:`, or after its item's `-`.
                if let Some(key_end) = self.pending_key_end() {
                    s = self.t.value_pos(key_end);
                } else if let Some(dash) = self.pending_dash() {
                    s = self.t.skip_inline(dash + 1);
                }
                e = s;
            }
            _ => {}
        }
        let templated = !(self.placeholders.is_empty() && self.structural.is_empty()) && self.is_templated(s, e);
        let value = match self.colons_in(s, e) {
            true if style == ScalarStyle::Plain => self.colons_restored(value, s, e),
            _ => value.into(),
        };
        self.attach(Node { span: Span::new(s, e), kind: NodeKind::Scalar(Scalar { value, style, templated }) });
    }

    fn colons_in(&self, s: u32, e: u32) -> bool {
        self.colons.iter().any(|&c| (s..e).contains(&self.pos(c)))
    }

    /// A plain scalar's value with the stand-ins of its kept `:`s (file span `s..e`) put back.
    /// Folding a plain scalar only changes blanks and line breaks, so its other characters
    /// are the source's, in order: the n-th non-blank of the value is the n-th of the source.
    fn colons_restored(&self, value: &str, s: u32, e: u32) -> compact_str::CompactString {
        let mut out = value.as_bytes().to_vec();
        let source = (s..e).filter(|&i| !is_space(self.t.at(i)));
        let slots = out.iter().enumerate().filter(|(_, c)| !is_space(**c)).map(|(i, _)| i).collect::<Vec<_>>();
        for (i, at) in source.zip(slots) {
            if self.colons.iter().any(|&c| self.pos(c) == i) {
                out[at] = b':';
            }
        }
        String::from_utf8(out).map(Into::into).unwrap_or_else(|_| value.into())
    }

    fn open(&mut self, map: bool, flow: bool, props: bool, start: usize, end: usize) {
        let (s, e) = self.span(start, end);
        if self.skip > 0 {
            self.skip += 1;
            return;
        }
        // libyaml gives flow collections the span of their properties and bracket, block ones
        // an empty span at their first `-` or key (or the span of their properties).
        let start = if flow {
            e.saturating_sub(1).max(s)
        } else if map {
            if props { self.t.skip_properties(s, self.t.end()) } else { s }
        } else {
            self.t.block_sequence_start(s, props)
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

    fn close(&mut self, start: usize, end: usize) {
        let (s, mut e) = self.span(start, end);
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

pub(super) fn parse_piece(
    piece: &str,
    base: u32,
    templating: (&[(u32, u32)], &[u32]),
    scratch: &mut Scratch,
) -> Outcome {
    // go-yaml (v2 and v3, `yaml_parser_scan_plain_scalar`: a `:` ends a plain scalar only
    // before a blank) reads `[1.2.3.4, 001:db8::]` as two scalars, the second `001:db8::`;
    // libyaml 0.2.5 rejects a `:` before `,`, `]` or `}` in a flow collection ("found
    // unexpected ':'"). Kubernetes reads with go-yaml, which decides (docs/semantics.md §4.1):
    // such a `:` is handed to libyaml as another scalar character and put back in the value.
    let mut colons: Vec<usize> = Vec::new();
    let mut text = std::borrow::Cow::Borrowed(piece);
    loop {
        match parse_once(piece, &text, &colons, base, templating, scratch) {
            Ok(outcome) => return outcome,
            Err(at) => {
                // Each run stops at a `:` not replaced before: at most one run per `:`.
                colons.push(at);
                text.to_mut().replace_range(at..at + 1, COLON_STAND_IN);
            }
        }
    }
}

/// What libyaml reads in place of a `:` go-yaml keeps inside a flow plain scalar: a character
/// with no meaning there.
const COLON_STAND_IN: &str = "x";

/// One libyaml run over `text` (the piece, with `colons` replaced); `Err(at)` when libyaml
/// stops at another `:` that go-yaml keeps in a flow plain scalar (at `at` in the piece).
fn parse_once(
    piece: &str,
    text: &str,
    colons: &[usize],
    base: u32,
    (placeholders, structural): (&[(u32, u32)], &[u32]),
    scratch: &mut Scratch,
) -> Result<Outcome, usize> {
    let bytes = piece.as_bytes();
    let mut b = Builder {
        t: Text { bytes, base },
        placeholders,
        structural,
        colons,
        stack: std::mem::take(&mut scratch.stack),
        children: std::mem::take(&mut scratch.children),
        root: None,
        skip: 0,
        skip_start: 0,
        depth_error: None,
        last_end: base,
        document_started: false,
        nodes: 0,
        anchors: Vec::new(),
    };
    let mut parser = Parser::new(text);
    let mut kept_colon = None;
    // A bug in the parser or here must not take the caller down: whatever was built before
    // it is kept, like after a syntax error.
    let run = catch_unwind(AssertUnwindSafe(|| {
        loop {
            match parser.next(|ev, s, e| b.event(ev, s, e)) {
                Ok(None) | Ok(Some(Step::Stop)) => return None,
                // Past the depth cap nothing more is kept, and libyaml checks every open flow
                // level's simple key at each token (quadratic in the depth): stop reading.
                Ok(Some(Step::Go)) if b.skip as usize > MAX_DEPTH * 4 => return None,
                Ok(Some(Step::Go)) => {}
                Ok(Some(Step::Broken(at, problem))) => return Some((at, problem)),
                Err(f) => {
                    if f.context == Some("while scanning a plain scalar")
                        && f.problem == "found unexpected ':'"
                        && bytes.get(f.at) == Some(&b':')
                        && matches!(bytes.get(f.at + 1), Some(b',' | b']' | b'}'))
                    {
                        kept_colon = Some(f.at);
                        return None;
                    }
                    // A quoted scalar left open is shown at its opening quote, not at the end
                    // of the document where libyaml noticed.
                    let at = if f.context == Some("while scanning a quoted scalar") { f.context_at } else { f.at };
                    let message = match f.context {
                        Some(c) => format!("{c}, {}", f.problem),
                        None => f.problem.to_owned(),
                    };
                    return Some((b.pos(at), message));
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
    if let Some(at) = kept_colon {
        return Err(at);
    }
    Ok(Outcome { root: b.root, error, depth_error: b.depth_error, nodes: b.nodes, open_flow })
}
