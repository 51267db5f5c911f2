//! Helm values as the chart's templates see them: aliases are their anchored node (the file's
//! tree never expands them), Go template truthiness, maps iterated in key order (Go's `range`
//! over a map), and strings the chart passes through `tpl` with `{{ .Release.Name }}` filled in.

use std::collections::BTreeMap;

use crate::model::{Spanned, Str, normalize_placeholder};
use crate::syntax::{Node, NodeKind, Span};

/// What `tpl` stands for in a rendered string: the release name, when it is known.
const RELEASE_NAME: &str = "{{ .Release.Name }}";

pub(super) struct Values<'a> {
    /// The document's root: where an alias's anchor is looked for.
    root: &'a Node,
    text: &'a str,
    release: &'a str,
}

impl<'a> Values<'a> {
    pub(super) fn new(root: &'a Node, text: &'a str, release: &'a str) -> Values<'a> {
        Values { root, text, release }
    }

    /// The node itself, or for an alias the node its anchor marks (go-yaml: the last
    /// definition of the anchor before the alias). An alias that cannot be followed reads as
    /// itself (absent wherever a value is wanted).
    pub(super) fn node(&self, n: &'a Node) -> &'a Node {
        let mut n = n;
        // Bounded: an alias names a node defined before it, never itself.
        for _ in 0..8 {
            if !matches!(n.kind, NodeKind::Alias) {
                return n;
            }
            match self.anchored(n) {
                Some(t) => n = t,
                None => return n,
            }
        }
        n
    }

    fn anchored(&self, alias: &Node) -> Option<&'a Node> {
        let written = self.text.get(alias.span.start as usize..alias.span.end as usize)?;
        let name = written.strip_prefix('*')?;
        let before = self.text.get(..alias.span.start as usize)?;
        let token = format!("&{name}");
        let mut end = before.len();
        // The last `&name` before the alias that is a whole token.
        let at = loop {
            let i = before[..end].rfind(&token)?;
            let after = before.as_bytes().get(i + token.len()).copied();
            if after.is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b',' | b']' | b'}')) {
                break i + token.len();
            }
            end = i;
        };
        first_at_or_after(self.root, at as u32)
    }

    pub(super) fn get(&self, n: &'a Node, key: &str) -> Option<&'a Node> {
        self.node(n).get(key).map(|v| self.node(v))
    }

    /// A mapping's entries by key, in key order (the last of a repeated key wins), each value
    /// resolved; with the key's span.
    pub(super) fn entries(&self, n: Option<&'a Node>) -> Vec<(String, Span, &'a Node)> {
        let mut by_key: BTreeMap<String, (Span, &'a Node)> = BTreeMap::new();
        for e in n.map(|n| self.node(n)).and_then(Node::as_mapping).unwrap_or_default() {
            if let Some(k) = e.key.as_str() {
                by_key.insert(k.to_owned(), (e.key.span, self.node(&e.value)));
            }
        }
        by_key.into_iter().map(|(k, (s, v))| (k, s, v)).collect()
    }

    /// The items of a sequence, each resolved (none when `n` is not one).
    pub(super) fn items(&self, n: Option<&'a Node>) -> Vec<&'a Node> {
        let seq = n.map(|n| self.node(n)).and_then(Node::as_sequence).unwrap_or_default();
        seq.iter().map(|i| self.node(i)).collect()
    }

    /// A scalar's text as written: for a template file's scalar, the text with its actions
    /// (normalized, `{{ .Release.Name }}` kept); `None` for null, collections and aliases.
    pub(super) fn raw(&self, n: &'a Node) -> Option<String> {
        let n = self.node(n);
        let s = n.as_scalar()?;
        if n.is_null() {
            return None;
        }
        if !s.templated {
            return Some(s.value.to_string());
        }
        let written = self.text.get(n.span.start as usize..n.span.end as usize)?;
        Some(normalize_placeholder(written))
    }

    /// A scalar as the chart's `tpl` renders it: `{{ .Release.Name }}` is the release name;
    /// any other action stays as written (a placeholder, docs/semantics.md §4.10).
    pub(super) fn tpl(&self, n: &'a Node) -> Option<String> {
        let raw = self.raw(n)?;
        Some(if raw.contains(RELEASE_NAME) { raw.replace(RELEASE_NAME, self.release) } else { raw })
    }

    pub(super) fn spanned(&self, n: &'a Node, tpl: bool) -> Option<Spanned<Str>> {
        let v = if tpl { self.tpl(n) } else { self.raw(n) }?;
        Some(Spanned::new(v.into(), self.node(n).span))
    }

    /// An integer; a quoted number too (Helm writes it back unquoted).
    pub(super) fn int(&self, n: &'a Node) -> Option<i64> {
        let n = self.node(n);
        n.as_i64().or_else(|| n.as_str()?.trim().parse().ok())
    }

    /// Go template truthiness (`if`): false, 0, "", null, an empty map or list are false.
    pub(super) fn truthy(&self, n: &'a Node) -> bool {
        let n = self.node(n);
        match &n.kind {
            NodeKind::Scalar(_) if n.is_null() => false,
            NodeKind::Scalar(s) if s.style == crate::syntax::ScalarStyle::Plain => {
                !matches!(&*s.value, "false" | "False" | "FALSE" | "0")
            }
            NodeKind::Scalar(s) => !s.value.is_empty(),
            NodeKind::Mapping(m) => !m.is_empty(),
            NodeKind::Sequence(s) => !s.is_empty(),
            NodeKind::Alias | NodeKind::Missing => false,
        }
    }

    /// An item is enabled unless its `enabled` key says otherwise (the chart's
    /// `lib/*/_enabled_*.tpl`: `hasKey` then the value's truthiness).
    pub(super) fn enabled(&self, item: &'a Node) -> bool {
        self.get(item, "enabled").is_none_or(|e| self.truthy(e))
    }
}

/// The outermost node that starts at or after `pos`, in document order: the node an anchor
/// token ending at `pos` marks.
fn first_at_or_after(n: &Node, pos: u32) -> Option<&Node> {
    if n.span.start >= pos && !matches!(n.kind, NodeKind::Missing) {
        return Some(n);
    }
    if n.span.end < pos {
        return None;
    }
    match &n.kind {
        NodeKind::Mapping(m) => {
            m.iter().find_map(|e| first_at_or_after(&e.key, pos).or_else(|| first_at_or_after(&e.value, pos)))
        }
        NodeKind::Sequence(s) => s.iter().find_map(|i| first_at_or_after(i, pos)),
        _ => None,
    }
}
