//! A syntax tree packed into bytes, for trees kept long but read rarely (a policy's spec is
//! read once per analysis, when its kind's effective policies are computed).
//!
//! A node is 40 bytes and a mapping entry 80, against a few bytes per scalar here: spans as
//! deltas and lengths in LEB128, scalars as their bytes. Nodes are written in document order.

use compact_str::CompactString;

use super::{Entry, Node, NodeKind, Scalar, ScalarStyle, Span};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedNode(Box<[u8]>);

const SCALAR: u8 = 0;
const MAPPING: u8 = 1;
const SEQUENCE: u8 = 2;
const ALIAS: u8 = 3;
const MISSING: u8 = 4;
/// A scalar whose span is as long as its value (most plain scalars): the length is not written.
const SPAN_IS_VALUE: u8 = 0x40;
const TEMPLATED: u8 = 0x80;

impl PackedNode {
    pub fn pack(node: &Node) -> PackedNode {
        let mut w = Writer { out: Vec::new(), last: 0 };
        w.node(node);
        PackedNode(w.out.into_boxed_slice())
    }

    /// The tree as it was packed.
    pub fn unpack(&self) -> Node {
        Reader { bytes: &self.0, at: 0, last: 0 }.node()
    }

    /// The same tree `by` bytes later in the text ([`Span::shifted`]). Starts are written as
    /// differences from the one before, so only the first changes.
    pub fn shifted(&self, by: i64) -> PackedNode {
        let Some((&tag, _)) = self.0.split_first() else { return self.clone() };
        let mut r = Reader { bytes: &self.0, at: 1, last: 0 };
        let first = unzigzag(r.varint());
        let mut w = Writer { out: Vec::with_capacity(self.0.len() + 4), last: 0 };
        w.out.push(tag);
        w.varint(zigzag((first + by).clamp(0, i64::from(u32::MAX))));
        w.out.extend_from_slice(&self.0[r.at.min(self.0.len())..]);
        PackedNode(w.out.into_boxed_slice())
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

struct Writer {
    out: Vec<u8>,
    /// The previous node's start: starts are written as differences from it.
    last: u32,
}

impl Writer {
    fn node(&mut self, n: &Node) {
        let span_is_value = matches!(&n.kind, NodeKind::Scalar(s) if s.value.len() == n.span.len() as usize);
        let tag = match &n.kind {
            NodeKind::Scalar(s) => {
                SCALAR
                    | style_bits(s.style) << 3
                    | if s.templated { TEMPLATED } else { 0 }
                    | if span_is_value { SPAN_IS_VALUE } else { 0 }
            }
            NodeKind::Mapping(_) => MAPPING,
            NodeKind::Sequence(_) => SEQUENCE,
            NodeKind::Alias => ALIAS,
            NodeKind::Missing => MISSING,
        };
        self.out.push(tag);
        let delta = i64::from(n.span.start) - i64::from(self.last);
        self.varint(zigzag(delta));
        if !span_is_value {
            self.varint(u64::from(n.span.len()));
        }
        self.last = n.span.start;
        match &n.kind {
            NodeKind::Scalar(s) => {
                self.varint(s.value.len() as u64);
                self.out.extend_from_slice(s.value.as_bytes());
            }
            NodeKind::Mapping(entries) => {
                self.varint(entries.len() as u64);
                for e in entries {
                    self.node(&e.key);
                    self.node(&e.value);
                }
            }
            NodeKind::Sequence(items) => {
                self.varint(items.len() as u64);
                for i in items {
                    self.node(i);
                }
            }
            NodeKind::Alias | NodeKind::Missing => {}
        }
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }
}

/// Reads what [`Writer`] wrote. Bytes run out only if they were not written by it; the
/// missing parts then read as empty, never as a panic.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    last: u32,
}

impl Reader<'_> {
    fn node(&mut self) -> Node {
        let tag = self.byte();
        let start = (i64::from(self.last) + unzigzag(self.varint())).clamp(0, i64::from(u32::MAX)) as u32;
        let written_len = if tag & 0x7 == SCALAR && tag & SPAN_IS_VALUE != 0 { None } else { Some(self.varint()) };
        self.last = start;
        let mut len = written_len.map_or(0, |l| u32::try_from(l).unwrap_or(u32::MAX));
        let kind = match tag & 0x7 {
            SCALAR => {
                let n = self.count();
                let start = self.at.min(self.bytes.len());
                let end = start.saturating_add(n).min(self.bytes.len());
                let value = std::str::from_utf8(&self.bytes[start..end]).unwrap_or("");
                self.at = end;
                if written_len.is_none() {
                    len = value.len() as u32;
                }
                NodeKind::Scalar(Scalar {
                    value: CompactString::from(value),
                    style: style_of((tag >> 3) & 0x7),
                    templated: tag & TEMPLATED != 0,
                })
            }
            MAPPING => NodeKind::Mapping(self.items(|r| Entry { key: r.node(), value: r.node() })),
            SEQUENCE => NodeKind::Sequence(self.items(Reader::node)),
            ALIAS => NodeKind::Alias,
            _ => NodeKind::Missing,
        };
        Node { span: Span::new(start, start.saturating_add(len)), kind }
    }

    /// A count, then that many items; stops early when the bytes run out.
    fn items<T>(&mut self, mut read: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let n = self.count();
        let mut out = Vec::with_capacity(n.min(self.remaining()));
        for _ in 0..n {
            if self.remaining() == 0 {
                break;
            }
            out.push(read(self));
        }
        out
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.at)
    }

    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(MISSING);
        self.at += 1;
        b
    }

    fn count(&mut self) -> usize {
        usize::try_from(self.varint()).unwrap_or(usize::MAX)
    }

    fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.bytes.get(self.at) else { break };
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
        }
        v
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn style_bits(s: ScalarStyle) -> u8 {
    match s {
        ScalarStyle::Plain => 0,
        ScalarStyle::SingleQuoted => 1,
        ScalarStyle::DoubleQuoted => 2,
        ScalarStyle::Literal => 3,
        ScalarStyle::Folded => 4,
    }
}

fn style_of(bits: u8) -> ScalarStyle {
    match bits {
        1 => ScalarStyle::SingleQuoted,
        2 => ScalarStyle::DoubleQuoted,
        3 => ScalarStyle::Literal,
        4 => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_file;

    fn roundtrip(text: &str) {
        let parsed = parse_file(text);
        for doc in &parsed.documents {
            let Some(root) = &doc.root else { continue };
            let packed = PackedNode::pack(root);
            assert_eq!(&packed.unpack(), root, "{text}");
        }
    }

    #[test]
    fn trees_come_back_whole() {
        roundtrip(
            "spec:\n  defaults:\n    strategy: merge\n    rules: [{a: 1}, 'two', \"th\\u00e9\"]\n  overrides:\n    x: |\n      lit\n    y: >\n      fold\n    z: *anchor\n    empty:\n---\n{k: v, {{ .Values.x }}: 1}\n",
        );
        // Spans far into a file, and a long scalar.
        let long = format!("{}key: {}\n", "#\n".repeat(70_000), "v".repeat(300));
        roundtrip(&long);
    }

    fn shifted(n: &Node, by: i64) -> Node {
        let kind = match &n.kind {
            NodeKind::Mapping(es) => NodeKind::Mapping(
                es.iter().map(|e| Entry { key: shifted(&e.key, by), value: shifted(&e.value, by) }).collect(),
            ),
            NodeKind::Sequence(items) => NodeKind::Sequence(items.iter().map(|i| shifted(i, by)).collect()),
            k => k.clone(),
        };
        Node { span: n.span.shifted(by), kind }
    }

    /// Moving a packed tree moves every node, also across the one-byte varint limits.
    #[test]
    fn a_shifted_tree_moves_every_node() {
        let text = format!("{}spec:\n  a: [1, {{b: c}}]\n  'd': |\n    e\n", "#\n".repeat(30));
        let root = parse_file(&text).documents.remove(0).root.unwrap();
        let packed = PackedNode::pack(&root);
        for by in [-60, -1, 1, 3, 200, 70_000] {
            assert_eq!(packed.shifted(by).unpack(), shifted(&root, by), "by {by}");
        }
        assert_eq!(PackedNode(Box::new([])).shifted(5), PackedNode(Box::new([])));
    }

    fn nodes(n: &Node) -> usize {
        1 + match &n.kind {
            NodeKind::Mapping(es) => es.iter().map(|e| nodes(&e.key) + nodes(&e.value)).sum(),
            NodeKind::Sequence(items) => items.iter().map(nodes).sum(),
            _ => 0,
        }
    }

    #[test]
    fn a_spec_packs_to_about_its_text() {
        let text = "spec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      name: checkout\n  loadBalancer:\n    type: RoundRobin\n  retry:\n    numRetries: 3\n";
        let parsed = parse_file(text);
        let root = parsed.documents[0].root.as_ref().unwrap();
        let packed = PackedNode::pack(root);
        // 3-4 bytes per node beside the scalars' bytes, against 40 per node in a tree (not
        // counting the vectors and scalars the tree allocates).
        assert_eq!((nodes(root), packed.len(), text.len()), (20, 179, 166));
        assert!(packed.len() * 4 < nodes(root) * std::mem::size_of::<Node>());
    }

    #[test]
    fn foreign_bytes_read_as_missing_parts_not_panics() {
        for bytes in [
            &[][..],
            &[MAPPING, 0, 0, 200, 1][..],
            &[SCALAR, 0xff, 0xff, 0xff][..],
            &[SEQUENCE, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f][..],
        ] {
            let _ = PackedNode(bytes.into()).unpack();
        }
    }
}
