//! The syntax tree: YAML nodes with byte spans into the file text.

/// A half-open byte range `[start, end)` into the file text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    pub fn len(self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }

    /// True when `offset` lies inside the span or touches its end (a cursor right after a word
    /// is "in" it, as editors expect).
    pub fn contains_inclusive(self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }

    /// The span `by` bytes later (earlier when negative): where the same text lies after an
    /// edit before it changed the length of the text.
    pub fn shifted(self, by: i64) -> Span {
        let at = |o: u32| (i64::from(o) + by).clamp(0, i64::from(u32::MAX)) as u32;
        Span { start: at(self.start), end: at(self.end) }
    }
}

/// Where a text changed: the bytes `start..end` were replaced by `new_len` bytes (the new
/// text itself is not kept). Maps spans of the old text into the new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteEdit {
    pub start: u32,
    pub end: u32,
    pub new_len: u32,
}

impl ByteEdit {
    /// Where `span` lies after the edit: unmoved before it, shifted after it, `None` when the
    /// edit changed text inside it (an insertion at either end leaves it whole).
    pub fn map(self, span: Span) -> Option<Span> {
        if span.end <= self.start {
            return Some(span);
        }
        if span.start >= self.end {
            let shift = |x: u32| (i64::from(x) + i64::from(self.new_len) - i64::from(self.end - self.start)) as u32;
            return Some(Span::new(shift(span.start), shift(span.end)));
        }
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    /// The scalar's value after unescaping and folding.
    /// Inline up to 24 bytes: most scalars of a Kubernetes object are short, and a heap
    /// block per scalar cost more than the node itself.
    pub value: compact_str::CompactString,
    pub style: ScalarStyle,
    /// The source text of this scalar held a template expression (`{{ … }}`); its value is a
    /// placeholder and must not be checked.
    pub templated: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: Node,
    pub value: Node,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Scalar(Scalar),
    Mapping(Vec<Entry>),
    Sequence(Vec<Node>),
    /// `*anchor`: never expanded, so alias bombs cost nothing.
    Alias,
    /// A value the parser never produced because the document broke off first (e.g. `key:` at
    /// the point of a syntax error). Its span is empty, at the place the value would start.
    Missing,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
}

impl Node {
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The value of a scalar that is not null (YAML 1.2 core schema: ``, `~`, `null`).
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s) if !self.is_null() => Some(&s.value),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        match &self.kind {
            NodeKind::Scalar(s) => {
                s.style == ScalarStyle::Plain && matches!(&*s.value, "" | "~" | "null" | "Null" | "NULL")
            }
            NodeKind::Missing => true,
            _ => false,
        }
    }

    pub fn is_templated(&self) -> bool {
        matches!(&self.kind, NodeKind::Scalar(s) if s.templated)
    }

    pub fn as_mapping(&self) -> Option<&[Entry]> {
        match &self.kind {
            NodeKind::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Sequence(s) => Some(s),
            _ => None,
        }
    }

    /// The entry of a mapping whose key is the plain string `key` (the last one wins, as in
    /// Kubernetes' decoder).
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.as_mapping()?.iter().rev().find(|e| e.key.as_scalar().is_some_and(|s| &*s.value == key))
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// Follows a path of mapping keys.
    pub fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, k| n.get(k))
    }

    /// A scalar read as an integer (decimal, `0x`, `0o`, optional sign).
    pub fn as_i64(&self) -> Option<i64> {
        let s = self.as_scalar()?;
        if s.style != ScalarStyle::Plain {
            return None;
        }
        parse_int(&s.value)
    }

    /// Converts to JSON with the YAML 1.2 core schema for plain scalars. Aliases become null.
    /// Iterative so that deep nesting cannot overflow the stack.
    pub fn to_json(&self) -> serde_json::Value {
        crate::syntax::node::to_json(self)
    }
}

pub(crate) fn parse_int(v: &str) -> Option<i64> {
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v.strip_prefix('+').unwrap_or(v)),
    };
    let n = if let Some(h) = digits.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()?
    } else if let Some(o) = digits.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()?
    } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse().ok()?
    } else {
        return None;
    };
    Some(if neg { -n } else { n })
}

/// Plain scalar → JSON under the YAML 1.2 core schema.
pub fn resolve_plain(v: &str) -> serde_json::Value {
    use serde_json::Value;
    match v {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => {
            if let Some(i) = parse_int(v) {
                return Value::from(i);
            }
            let looks_float =
                v.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'-' || b == b'+' || b == b'.')
                    && v.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
                    && v.bytes().any(|b| b.is_ascii_digit());
            if looks_float
                && let Ok(f) = v.parse::<f64>()
                && let Some(n) = serde_json::Number::from_f64(f)
            {
                return Value::Number(n);
            }
            // `.inf`/`.nan` have no JSON form; keep them as text.
            Value::String(v.to_owned())
        }
    }
}

fn scalar_json(s: &Scalar) -> serde_json::Value {
    if s.style == ScalarStyle::Plain { resolve_plain(&s.value) } else { serde_json::Value::String(s.value.to_string()) }
}

fn key_string(n: &Node) -> String {
    match &n.kind {
        NodeKind::Scalar(s) => s.value.to_string(),
        _ => String::new(),
    }
}

fn to_json(root: &Node) -> serde_json::Value {
    use serde_json::{Map, Value};
    enum Frame<'a> {
        Map(std::slice::Iter<'a, Entry>, Map<String, Value>, Option<String>),
        Seq(std::slice::Iter<'a, Node>, Vec<Value>),
    }
    fn open(n: &Node) -> Result<Value, Frame<'_>> {
        match &n.kind {
            NodeKind::Scalar(s) => Ok(scalar_json(s)),
            NodeKind::Mapping(m) => Err(Frame::Map(m.iter(), Map::new(), None)),
            NodeKind::Sequence(s) => Err(Frame::Seq(s.iter(), Vec::new())),
            NodeKind::Alias | NodeKind::Missing => Ok(Value::Null),
        }
    }
    let mut stack = match open(root) {
        Ok(v) => return v,
        Err(f) => vec![f],
    };
    loop {
        let Some(top) = stack.last_mut() else {
            return Value::Null;
        };
        let next = match top {
            Frame::Map(it, _, pending) => it.next().map(|e| {
                *pending = Some(key_string(&e.key));
                &e.value
            }),
            Frame::Seq(it, _) => it.next(),
        };
        let finished = match next {
            Some(child) => match open(child) {
                Ok(v) => v,
                Err(f) => {
                    stack.push(f);
                    continue;
                }
            },
            None => match stack.pop() {
                Some(Frame::Map(_, m, _)) => Value::Object(m),
                Some(Frame::Seq(_, v)) => Value::Array(v),
                None => return Value::Null,
            },
        };
        match stack.last_mut() {
            Some(Frame::Map(_, m, pending)) => {
                let k = pending.take().unwrap_or_default();
                m.insert(k, finished);
            }
            Some(Frame::Seq(_, v)) => v.push(finished),
            None => return finished,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where the parser gave up (usually an empty span at the offending character).
    pub span: Span,
    pub message: String,
}

/// One YAML document of a file (`---`-separated).
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// From the first character of the document (after its `---` line, if any) to its end.
    pub span: Span,
    /// `None` for null, empty and comment-only documents.
    pub root: Option<Node>,
    /// At most one per document: the first error the parser met. The tree still holds every
    /// node before it (and, after recovery, what could be read after it).
    pub error: Option<SyntaxError>,
    /// A template document that could not be read around its template actions: no root and
    /// no error (the error would be the template's, not the YAML's); counted in `check`'s
    /// summary.
    pub skipped: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedFile {
    pub documents: Vec<Document>,
    /// The file holds template markers (`{{`); template lines are blanked before parsing and
    /// errors on them are not reported.
    pub templated: bool,
}
