//! JSON text → the same span-carrying tree the YAML parser builds, without the YAML parser.
//!
//! Objects read from a live cluster arrive as JSON, one object a text. JSON is YAML, so the
//! YAML path reads them too, but its flow-collection scanner is several times slower than
//! this. Only well-formed JSON is taken here; anything else (and any document deeper than
//! [`MAX_DEPTH`]) returns `None` and goes the YAML way, which reports errors. On compact JSON
//! (what an API server sends) the tree is the YAML path's exactly (a test compares them). Where
//! JSON is spaced out, spans are tighter than the YAML parser's (a key's span never takes the
//! spaces before its `:`, a sequence's always ends at its `]`), and surrogate-pair escapes
//! (`\ud83d\ude00`), which the YAML parser rejects, are read.

use super::{Document, Entry, Node, NodeKind, Scalar, ScalarStyle, Span};

/// Deeper documents are left to the YAML path, which caps and reports depth.
const MAX_DEPTH: usize = 128;

/// The document of `text` when it is exactly one JSON object (surrounding whitespace allowed).
pub(crate) fn document(text: &str) -> Option<Document> {
    let mut p = Reader { b: text.as_bytes(), text, at: 0 };
    p.space();
    if p.peek() != Some(b'{') {
        return None;
    }
    let root = p.value(0)?;
    p.space();
    if p.at != p.b.len() {
        return None;
    }
    // As the YAML path: a document's span starts at the text's start, whitespace included.
    Some(Document { span: Span::new(0, text.len() as u32), root: Some(root), error: None, skipped: false })
}

struct Reader<'a> {
    b: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.space();
        (self.peek() == Some(c)).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        let start = self.at;
        match self.peek()? {
            b'{' => {
                self.at += 1;
                let mut entries = Vec::new();
                self.space();
                if self.peek() == Some(b'}') {
                    self.at += 1;
                } else {
                    loop {
                        self.space();
                        let key = self.string()?;
                        self.eat(b':')?;
                        let value = self.value(depth + 1)?;
                        entries.push(Entry { key, value });
                        self.space();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b'}' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                entries.shrink_to_fit();
                Some(Node { span: self.span(start), kind: NodeKind::Mapping(entries) })
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        self.space();
                        match self.peek()? {
                            b',' => self.at += 1,
                            b']' => {
                                self.at += 1;
                                break;
                            }
                            _ => return None,
                        }
                    }
                }
                items.shrink_to_fit();
                Some(Node { span: self.span(start), kind: NodeKind::Sequence(items) })
            }
            b'"' => self.string(),
            _ => {
                // A number, `true`, `false` or `null`: a plain scalar holding its text.
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')) {
                    self.at += 1;
                }
                let raw = &self.text[start..self.at];
                let valid = matches!(raw, "true" | "false" | "null") || is_number(raw);
                valid.then(|| Node {
                    span: self.span(start),
                    kind: NodeKind::Scalar(Scalar { value: raw.into(), style: ScalarStyle::Plain, templated: false }),
                })
            }
        }
    }

    /// A double-quoted string; its span holds the quotes, as the YAML parser's does.
    fn string(&mut self) -> Option<Node> {
        let start = self.at;
        if self.peek() != Some(b'"') {
            return None;
        }
        self.at += 1;
        let mut escaped = false;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.at += 2;
                }
                c if c < 0x20 => return None,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        let raw = self.text.get(start..self.at)?;
        let value: compact_str::CompactString =
            if escaped { serde_json::from_str::<String>(raw).ok()?.into() } else { raw[1..raw.len() - 1].into() };
        Some(Node {
            span: self.span(start),
            kind: NodeKind::Scalar(Scalar { value, style: ScalarStyle::DoubleQuoted, templated: false }),
        })
    }

    fn span(&self, start: usize) -> Span {
        Span::new(start as u32, self.at as u32)
    }
}

/// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse::parse_file_as_yaml;

    /// The YAML path's document of `text`, for comparison.
    fn yaml(text: &str) -> Document {
        let mut f = parse_file_as_yaml(text);
        assert_eq!(f.documents.len(), 1, "{text}");
        f.documents.remove(0)
    }

    /// The tree without spans: kinds, styles and values.
    fn shape(n: &Node) -> String {
        match &n.kind {
            NodeKind::Scalar(s) => format!("{:?}{:?}", s.style, s.value),
            NodeKind::Mapping(m) => {
                let e: Vec<String> = m.iter().map(|e| format!("{}: {}", shape(&e.key), shape(&e.value))).collect();
                format!("{{{}}}", e.join(", "))
            }
            NodeKind::Sequence(items) => format!("[{}]", items.iter().map(shape).collect::<Vec<_>>().join(", ")),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn compact_json_reads_exactly_as_the_yaml_parser_reads_it() {
        let texts = [
            r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","namespace":"shop","labels":{}},"spec":{"ports":[{"port":80,"name":"http"},{"port":443}]}}"#,
            r#"{"a":[1,-2.5e+3,0,true,false,null,[],{}],"b":"x\"y\n\u00e9"}"#,
            r#"{"é":"ü","k":"v w","empty":"","nested":[[["deep"]]]}"#,
            r#"{"status":{"conditions":[{"type":"Accepted","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}"#,
        ];
        for t in texts {
            assert_eq!(document(t), Some(yaml(t)), "{t}");
            // What every caller gets.
            assert_eq!(crate::syntax::parse_file(t).documents, vec![yaml(t)]);
        }
    }

    #[test]
    fn spaced_out_json_holds_the_same_values_with_tighter_spans() {
        // As `kubectl get -o json` prints it.
        let t = "{\n    \"a\" : [\n        1,\n        {}\n    ],\n    \"b\": \"x\"\n}\n";
        let (j, y) = (document(t).expect("json"), yaml(t));
        assert_eq!(j.span, y.span);
        assert_eq!(j.root.as_ref().map(shape), y.root.as_ref().map(shape));
        let root = j.root.expect("root");
        let m = root.as_mapping().expect("mapping");
        let span_text = |n: &Node| &t[n.span.start as usize..n.span.end as usize];
        assert_eq!(span_text(&m[0].key), "\"a\"");
        assert_eq!(span_text(&m[0].value), "[\n        1,\n        {}\n    ]");
        // A surrogate pair, which the YAML parser rejects.
        let d = document(r#"{"e":"\ud83d\ude00"}"#).expect("json");
        assert_eq!(d.root.as_ref().map(shape), Some(r#"{DoubleQuoted"e": DoubleQuoted"😀"}"#.to_owned()));
    }

    #[test]
    fn anything_but_one_well_formed_object_is_left_to_the_yaml_path() {
        for t in [
            "",
            "[1]",
            "{\"a\": 1} {}",
            "{\"a\": 01}",
            "{\"a\": tru}",
            "{\"a\": 1,}",
            "{a: 1}",
            "{\"a\": \"tab\there\"}",
            "{\"a\": \"\\x\"}",
            "{\"a\": [1 2]}",
            "{\"a\": 1",
        ] {
            assert_eq!(document(t), None, "{t:?}");
        }
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(document(&deep), None);
    }
}
