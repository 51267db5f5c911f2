use std::time::Instant;

use proptest::prelude::*;

use crate::syntax::{
    LineIndex, Node, NodeKind, ParsedFile, PositionEncoding, ScalarStyle, Span, parse_document_at, parse_file,
    parse_file_by_libyaml,
};

/// UTF-16 (line, character) of a byte offset, as an editor would show it.
fn lc(text: &str, offset: u32) -> (u32, u32) {
    let p = LineIndex::new(text).position(text, offset, PositionEncoding::Utf16);
    (p.line, p.character)
}

fn span_lc(text: &str, span: Span) -> ((u32, u32), (u32, u32)) {
    (lc(text, span.start), lc(text, span.end))
}

fn slice(text: &str, span: Span) -> &str {
    &text[span.start as usize..span.end as usize]
}

fn root(f: &ParsedFile, doc: usize) -> &Node {
    f.documents[doc].root.as_ref().expect("document has a root")
}

fn at<'a>(n: &'a Node, path: &[&str]) -> &'a Node {
    n.at(path).unwrap_or_else(|| panic!("no {path:?}"))
}

fn item(n: &Node, i: usize) -> &Node {
    &n.as_sequence().expect("a sequence")[i]
}

/// Every node of a tree, iteratively (trees can be 200 levels deep).
fn walk(n: &Node, mut f: impl FnMut(&Node, usize)) {
    let mut stack = vec![(n, 1usize)];
    while let Some((n, depth)) = stack.pop() {
        f(n, depth);
        match &n.kind {
            NodeKind::Mapping(entries) => {
                for e in entries {
                    stack.push((&e.key, depth + 1));
                    stack.push((&e.value, depth + 1));
                }
            }
            NodeKind::Sequence(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
}

fn max_depth(n: &Node) -> usize {
    let mut max = 0;
    walk(n, |n, d| {
        if matches!(n.kind, NodeKind::Mapping(_) | NodeKind::Sequence(_)) {
            max = max.max(d);
        }
    });
    max
}

/// Runs `f` on a thread with a 2 MB stack, like a test or request thread.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(f).expect("spawn").join().expect("no panic");
}

#[test]
fn broken_middle_document_does_not_hide_the_others() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n---\n\
                apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: foo: bar\n  namespace: x\n---\n\
                kind: HTTPRoute\nmetadata:\n  name: c\n";
    let f = parse_file(text);
    assert!(!f.templated);
    assert_eq!(f.documents.len(), 3);
    let [d0, d1, d2] = &f.documents[..] else { unreachable!() };
    assert_eq!(d0.error, None);
    assert_eq!(d2.error, None);
    assert_eq!(at(root(&f, 0), &["metadata", "name"]).as_str(), Some("a"));
    assert_eq!(at(root(&f, 2), &["metadata", "name"]).as_str(), Some("c"));
    assert_eq!(at(root(&f, 2), &["kind"]).as_str(), Some("HTTPRoute"));

    let err = d1.error.as_ref().expect("middle document is broken");
    assert_eq!(
        err.message,
        "a `:` where a plain value was expected (quote the value, or start the mapping on a new line)"
    );
    assert_eq!(lc(text, err.span.start), (8, 11));
    assert!(err.span.is_empty());
    // Everything before the break, and (after recovery) after it.
    let r1 = root(&f, 1);
    assert_eq!(at(r1, &["kind"]).as_str(), Some("Gateway"));
    assert_eq!(at(r1, &["metadata", "name"]).as_str(), Some("foo"));
    assert_eq!(at(r1, &["metadata", "namespace"]).as_str(), Some("x"));
    assert_eq!(span_lc(text, at(r1, &["metadata", "namespace"]).span), ((9, 13), (9, 14)));

    // Document spans: after the `---` line, up to the next one.
    assert_eq!(d0.span, Span::new(0, text.find("---").unwrap() as u32));
    assert_eq!(span_lc(text, d1.span), ((5, 0), (10, 0)));
    assert_eq!(span_lc(text, d2.span), ((11, 0), (14, 0)));
}

#[test]
fn half_typed_block_mapping_gives_null_values_where_they_would_be_typed() {
    let text = "spec:\n  targetRefs:\n  - kind: Gateway\n    name:\n    sectionName: \n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 1);
    assert_eq!(f.documents[0].error, None);
    let refs = at(root(&f, 0), &["spec", "targetRefs"]);
    assert_eq!(span_lc(text, refs.span), ((2, 2), (4, 17)));
    let r = item(refs, 0);
    assert_eq!(span_lc(text, r.span), ((2, 4), (4, 17)));
    assert_eq!(at(r, &["kind"]).as_str(), Some("Gateway"));
    let name = at(r, &["name"]);
    assert!(name.is_null());
    assert_eq!(span_lc(text, name.span), ((3, 9), (3, 9)));
    let section = at(r, &["sectionName"]);
    assert!(section.is_null());
    assert_eq!(span_lc(text, section.span), ((4, 17), (4, 17)));
    assert_eq!(span_lc(text, r.entry("sectionName").unwrap().key.span), ((4, 4), (4, 15)));
}

#[test]
fn half_typed_flow_mapping() {
    let text = "spec:\n  targetRefs: [{kind: Gateway, name: }]\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let refs = at(root(&f, 0), &["spec", "targetRefs"]);
    assert_eq!(span_lc(text, refs.span), ((1, 14), (1, 39)));
    let r = item(refs, 0);
    assert_eq!(span_lc(text, r.span), ((1, 15), (1, 38)));
    assert_eq!(at(r, &["kind"]).as_str(), Some("Gateway"));
    let name = at(r, &["name"]);
    assert!(name.is_null());
    assert_eq!(span_lc(text, name.span), ((1, 37), (1, 37)));
}

#[test]
fn unclosed_flow_keeps_every_key_before_the_break() {
    let text = "spec:\n  targetRefs: [{kind: Gateway, name: \n";
    let f = parse_file(text);
    let err = f.documents[0].error.as_ref().expect("error");
    assert_eq!(err.message, "a value is missing or unfinished (an unclosed `[`, `{` or quote?)");
    // At the end of what was written, not on the line after the final newline.
    assert_eq!(lc(text, err.span.start), (1, 36));
    let refs = at(root(&f, 0), &["spec", "targetRefs"]);
    assert_eq!(lc(text, refs.span.start), (1, 14));
    let r = item(refs, 0);
    assert_eq!(at(r, &["kind"]).as_str(), Some("Gateway"));
    let name = at(r, &["name"]);
    assert_eq!(name.kind, NodeKind::Missing);
    assert_eq!(span_lc(text, name.span), ((1, 37), (1, 37)));
}

#[test]
fn trailing_dash_is_a_null_item() {
    let text = "spec:\n  targetRefs:\n  - kind: A\n  - ";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let refs = at(root(&f, 0), &["spec", "targetRefs"]);
    let items = refs.as_sequence().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(at(&items[0], &["kind"]).as_str(), Some("A"));
    assert!(items[1].is_null());
    assert_eq!(span_lc(text, items[1].span), ((3, 4), (3, 4)));
    assert_eq!(span_lc(text, refs.span), ((2, 2), (3, 4)));
}

#[test]
fn key_being_typed_does_not_hide_the_keys_after_it() {
    let text = "spec:\n  targetRefs:\n  - kind: Gateway\n    nam\n  other: 1\n";
    let f = parse_file(text);
    let err = f.documents[0].error.as_ref().expect("error");
    assert_eq!(err.message, "a key without `:` after it (write `key: value`)");
    assert_eq!(lc(text, err.span.start), (4, 2));
    let r = root(&f, 0);
    assert_eq!(at(item(at(r, &["spec", "targetRefs"]), 0), &["kind"]).as_str(), Some("Gateway"));
    assert_eq!(at(r, &["spec", "other"]).as_str(), Some("1"));
    assert_eq!(span_lc(text, at(r, &["spec", "other"]).span), ((4, 9), (4, 10)));
}

#[test]
fn bad_indentation_reports_once_and_recovers_later_keys() {
    let text = "a:\n  b: 1\n c: 2\nd: 3\n";
    let f = parse_file(text);
    let err = f.documents[0].error.as_ref().expect("error");
    assert_eq!(err.message, "bad indentation: this line does not line up with the keys around it");
    assert_eq!(lc(text, err.span.start), (2, 1));
    let r = root(&f, 0);
    assert_eq!(at(r, &["a", "b"]).as_str(), Some("1"));
    assert_eq!(at(r, &["d"]).as_str(), Some("3"));
}

#[test]
fn unterminated_quote_keeps_the_keys_before_it() {
    // A quoted scalar left open runs to the end of the document. Recovery blanks it, so the
    // key's value is null at the end of its line.
    let text = "kind: Gateway\nspec:\n  listeners:\n  - name: \"http\n";
    let f = parse_file(text);
    let err = f.documents[0].error.as_ref().expect("error");
    assert_eq!(err.message, "an unclosed quote");
    assert_eq!(lc(text, err.span.start), (3, 10));
    let r = root(&f, 0);
    assert_eq!(at(r, &["kind"]).as_str(), Some("Gateway"));
    let l = item(at(r, &["spec", "listeners"]), 0);
    let name = at(l, &["name"]);
    assert!(name.is_null());
    assert_eq!(span_lc(text, name.span), ((3, 15), (3, 15)));
}

#[test]
fn crlf_line_endings() {
    let text = "apiVersion: v1\r\nkind: Gateway\r\nmetadata:\r\n  name: \"gw\"\r\n---\r\nkind: B\r\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 2);
    let name = at(root(&f, 0), &["metadata", "name"]);
    assert_eq!(name.as_str(), Some("gw"));
    assert_eq!(slice(text, name.span), "\"gw\"");
    assert_eq!(span_lc(text, name.span), ((3, 8), (3, 12)));
    assert_eq!(span_lc(text, root(&f, 0).span), ((0, 0), (3, 12)));
    assert_eq!(span_lc(text, f.documents[1].span), ((5, 0), (6, 0)));
    assert_eq!(span_lc(text, at(root(&f, 1), &["kind"]).span), ((5, 6), (5, 7)));
}

#[test]
fn byte_order_mark_is_skipped() {
    let text = "\u{feff}kind: Gateway\nname: x\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 1);
    assert_eq!(f.documents[0].span, Span::new(3, text.len() as u32));
    let r = root(&f, 0);
    let key = &r.entry("kind").unwrap().key;
    assert_eq!(key.span, Span::new(3, 7));
    assert_eq!(lc(text, key.span.start), (0, 0));
    assert_eq!(span_lc(text, at(r, &["kind"]).span), ((0, 6), (0, 13)));

    let text = "\u{feff}---\na: 1\n---\nb: 2\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 2);
    assert_eq!(at(root(&f, 1), &["b"]).as_str(), Some("2"));
}

#[test]
fn non_ascii_text_has_exact_spans() {
    let text = "name: héllo✓ # c\nemoji: \"😀x\"\nlist: [é, ✓]\nafter: z\n---\nk: é\n";
    let f = parse_file(text);
    let r = root(&f, 0);
    let name = at(r, &["name"]);
    assert_eq!(name.as_str(), Some("héllo✓"));
    assert_eq!(slice(text, name.span), "héllo✓");
    assert_eq!(span_lc(text, name.span), ((0, 6), (0, 12)));
    let emoji = at(r, &["emoji"]);
    assert_eq!(emoji.as_str(), Some("😀x"));
    assert_eq!(slice(text, emoji.span), "\"😀x\"");
    // 😀 is two UTF-16 units.
    assert_eq!(span_lc(text, emoji.span), ((1, 7), (1, 12)));
    let list = at(r, &["list"]);
    assert_eq!(slice(text, list.span), "[é, ✓]");
    assert_eq!(slice(text, item(list, 1).span), "✓");
    assert_eq!(span_lc(text, at(r, &["after"]).span), ((3, 7), (3, 8)));
    assert_eq!(slice(text, at(root(&f, 1), &["k"]).span), "é");
    assert_eq!(span_lc(text, f.documents[1].span), ((5, 0), (6, 0)));
}

#[test]
fn tabs_inside_lines() {
    let text = "a: \tb\tc\t# x\nk: [v,\tw]\t\nd: \"\tq\"\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    let a = at(r, &["a"]);
    assert_eq!(a.as_str(), Some("b\tc"));
    assert_eq!(span_lc(text, a.span), ((0, 4), (0, 7)));
    assert_eq!(span_lc(text, item(at(r, &["k"]), 1).span), ((1, 7), (1, 8)));
    assert_eq!(span_lc(text, at(r, &["k"]).span), ((1, 3), (1, 9)));
    assert_eq!(at(r, &["d"]).as_str(), Some("\tq"));
    assert_eq!(span_lc(text, at(r, &["d"]).span), ((2, 3), (2, 7)));
}

#[test]
fn flow_collections() {
    let text = "a: [1, {b: c}, [d]]  # c\ne: {f: [g]\t, h: }\t\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    let a = at(r, &["a"]);
    assert_eq!(slice(text, a.span), "[1, {b: c}, [d]]");
    assert_eq!(slice(text, item(a, 1).span), "{b: c}");
    assert_eq!(slice(text, item(a, 2).span), "[d]");
    assert_eq!(at(item(a, 1), &["b"]).as_str(), Some("c"));
    let e = at(r, &["e"]);
    assert_eq!(slice(text, e.span), "{f: [g]\t, h: }");
    assert_eq!(slice(text, at(e, &["f"]).span), "[g]");
    assert!(at(e, &["h"]).is_null());
    assert_eq!(span_lc(text, at(e, &["h"]).span), ((1, 16), (1, 16)));
    assert_eq!(span_lc(text, r.span), ((0, 0), (1, 17)));
}

#[test]
fn empty_null_and_comment_only_documents() {
    for text in ["", "\n\n", "# just a comment\n", "~\n", "null", "---\n", "--- # c\n"] {
        let f = parse_file(text);
        assert_eq!(f.documents.len(), 1, "{text:?}");
        assert_eq!(f.documents[0].root, None, "{text:?}");
        assert_eq!(f.documents[0].error, None, "{text:?}");
    }
    let text = "---\n# only a comment\n---\n~\n---\n---\nkind: A\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 4);
    for d in &f.documents[..3] {
        assert_eq!(d.root, None);
        assert_eq!(d.error, None);
    }
    assert_eq!(at(root(&f, 3), &["kind"]).as_str(), Some("A"));
    assert_eq!(span_lc(text, f.documents[0].span), ((1, 0), (2, 0)));
    // Leading comments before the first `---` are not a document of their own.
    let f = parse_file("# Source: chart/templates/x.yaml\n---\nkind: A\n");
    assert_eq!(f.documents.len(), 1);
}

#[test]
fn document_end_markers_and_directives() {
    let text = "a: 1\n...\n# between\n%YAML 1.2\n---\nb: 2\n... # end\n# trailing\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 2);
    assert_eq!(f.documents[0].span, Span::new(0, 5));
    assert_eq!(span_lc(text, f.documents[1].span), ((5, 0), (6, 0)));
    for d in &f.documents {
        assert_eq!(d.error, None);
    }
    assert_eq!(at(root(&f, 1), &["b"]).as_str(), Some("2"));
    // A bare document after `...`: read, but libyaml rejects the file there (only the
    // first document may start without `---`).
    let f = parse_file("a: 1\n...\n# c\nb: 2\n");
    assert_eq!(f.documents.len(), 2);
    assert_eq!(f.documents[0].error, None);
    let err = f.documents[1].error.as_ref().expect("error");
    assert_eq!(err.message, "a document after a `...` line needs a `---` line to start it");
    assert_eq!(err.span, Span::new(13, 13));
    assert_eq!(at(root(&f, 1), &["b"]).as_str(), Some("2"));
    // libyaml rejects a `...` before the first document, `---` or not after it.
    for text in ["...\na: 1\n", "# c\n...\n---\na: 1\n", "...\n"] {
        let f = parse_file(text);
        assert_eq!(f.documents.len(), 1);
        let err = f.documents[0].error.as_ref().expect("error");
        let at = text.find("...").unwrap() as u32;
        let expect = "a `...` line before the first document, which ends nothing (remove it)";
        assert_eq!((err.span.start, err.message.as_str()), (at, expect), "{text:?}");
    }
    // `---` and `...` only count at column 0 and before whitespace.
    let f = parse_file("a: ---x\nb: |\n  ---\n---x: 1\n");
    assert_eq!(f.documents.len(), 1);
    assert_eq!(at(root(&f, 0), &["---x"]).as_str(), Some("1"));
}

#[test]
fn content_on_the_marker_line() {
    let text = "--- |\n  text\n--- !!map\nk: v\n--- plain\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 3);
    let lit = root(&f, 0);
    assert_eq!(lit.as_str(), Some("text\n"));
    assert_eq!(span_lc(text, lit.span), ((0, 4), (1, 6)));
    assert_eq!(lc(text, f.documents[0].span.start), (0, 4));
    assert_eq!(at(root(&f, 1), &["k"]).as_str(), Some("v"));
    assert_eq!(slice(text, root(&f, 2).span), "plain");
}

#[test]
fn block_scalars_span_from_indicator_to_content_end() {
    let text = "a: |\n  foo\n  bar\n\nb: |-\nc: >-\n  x\n  y\n\nd: 1\nlist:\n- | # note > here\n  z\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    let a = at(r, &["a"]);
    assert_eq!(a.as_scalar().unwrap().style, ScalarStyle::Literal);
    assert_eq!(a.as_str(), Some("foo\nbar\n"));
    assert_eq!(slice(text, a.span), "|\n  foo\n  bar");
    let b = at(r, &["b"]);
    assert_eq!(b.as_scalar().unwrap().value.as_str(), "");
    assert_eq!(slice(text, b.span), "|-");
    let c = at(r, &["c"]);
    assert_eq!(c.as_scalar().unwrap().style, ScalarStyle::Folded);
    assert_eq!(c.as_str(), Some("x y"));
    assert_eq!(slice(text, c.span), ">-\n  x\n  y");
    let z = item(at(r, &["list"]), 0);
    assert_eq!(slice(text, z.span), "| # note > here\n  z");
    assert_eq!(at(r, &["d"]).as_i64(), Some(1));
}

#[test]
fn quoted_scalars_are_unescaped_and_span_their_quotes() {
    let text = "e: \"q\\x41\\n\"\nf: 'it''s'\ng: plain\n  folded\n";
    let f = parse_file(text);
    let r = root(&f, 0);
    let e = at(r, &["e"]);
    assert_eq!(e.as_str(), Some("qA\n"));
    assert_eq!(e.as_scalar().unwrap().style, ScalarStyle::DoubleQuoted);
    assert_eq!(slice(text, e.span), "\"q\\x41\\n\"");
    let s = at(r, &["f"]);
    assert_eq!(s.as_str(), Some("it's"));
    assert_eq!(s.as_scalar().unwrap().style, ScalarStyle::SingleQuoted);
    assert_eq!(slice(text, s.span), "'it''s'");
    let g = at(r, &["g"]);
    assert_eq!(g.as_str(), Some("plain folded"));
    assert_eq!(slice(text, g.span), "plain\n  folded");
}

#[test]
fn anchors_tags_and_aliases() {
    let text = "base: &b\n  x: 1\nuse: *b\ntagged: !!str &t 5\nlist: &l [1]\nseq:\n- &i one\n- *i\nc: &c # note\n  v\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    assert_eq!(span_lc(text, at(r, &["base"]).span), ((1, 2), (1, 6)));
    let alias = at(r, &["use"]);
    assert_eq!(alias.kind, NodeKind::Alias);
    assert_eq!(slice(text, alias.span), "*b");
    let tagged = at(r, &["tagged"]);
    assert_eq!(tagged.as_str(), Some("5"));
    assert_eq!(slice(text, tagged.span), "5");
    assert_eq!(slice(text, at(r, &["list"]).span), "[1]");
    let seq = at(r, &["seq"]);
    assert_eq!(span_lc(text, seq.span), ((6, 0), (7, 4)));
    assert_eq!(slice(text, item(seq, 0).span), "one");
    assert_eq!(item(seq, 1).kind, NodeKind::Alias);
    assert_eq!(span_lc(text, at(r, &["c"]).span), ((9, 2), (9, 3)));
}

#[test]
fn nested_block_sequences_start_at_their_dash() {
    let text = "- - - y\n    - w\n  - z\nk:\n- - x\n";
    let f = parse_file(text);
    // Two documents' worth of content in one: a sequence then a mapping is an error, but
    // the sequence before it is intact.
    let r = root(&f, 0);
    assert_eq!(span_lc(text, r.span).0, (0, 0));
    let s1 = item(r, 0);
    assert_eq!(span_lc(text, s1.span), ((0, 2), (2, 5)));
    let s2 = item(s1, 0);
    assert_eq!(span_lc(text, s2.span), ((0, 4), (1, 7)));
    assert_eq!(item(s2, 1).as_str(), Some("w"));

    let text = "k:\n- - x\n  - y\n";
    let f = parse_file(text);
    let k = at(root(&f, 0), &["k"]);
    assert_eq!(span_lc(text, k.span), ((1, 0), (2, 5)));
    assert_eq!(span_lc(text, item(k, 0).span), ((1, 2), (2, 5)));
}

#[test]
fn duplicate_keys_are_kept_and_the_last_wins() {
    let f = parse_file("a: 1\na: 2\n");
    let r = root(&f, 0);
    assert_eq!(r.as_mapping().unwrap().len(), 2);
    assert_eq!(at(r, &["a"]).as_str(), Some("2"));
}

const HELM: &str = r#"{{- if .Values.policy.enabled }}
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: {{ .Values.kind }}
metadata:
  name: {{ include "chart.fullname" . }}-btp
  labels:
    {{- include "chart.labels" . | nindent 4 }}
spec:
  targetRefs:
  {{- range .Values.targets }}
  - kind: Gateway
    name: "{{ .name }}"
  {{- end }}
  timeout: {{ .Values.timeout | quote }}
{{- end }}
---
kind: Service
metadata:
  name: {{ .a }}: {{ .b }}
  namespace: plain
"#;

#[test]
fn helm_templates() {
    let f = parse_file(HELM);
    let text = HELM;
    assert!(f.templated);
    assert_eq!(f.documents.len(), 2);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    assert_eq!(at(r, &["apiVersion"]).as_str(), Some("gateway.envoyproxy.io/v1alpha1"));
    let kind = at(r, &["kind"]);
    assert!(kind.is_templated());
    assert_eq!(slice(text, kind.span), "{{ .Values.kind }}");
    let name = at(r, &["metadata", "name"]);
    assert!(name.is_templated());
    assert_eq!(slice(text, name.span), "{{ include \"chart.fullname\" . }}-btp");
    // The `include` line is blanked: `labels` has no value.
    assert!(at(r, &["metadata", "labels"]).is_null());
    let t = item(at(r, &["spec", "targetRefs"]), 0);
    assert_eq!(at(t, &["kind"]).as_str(), Some("Gateway"));
    assert!(!at(t, &["kind"]).is_templated());
    assert!(at(t, &["name"]).is_templated());
    assert_eq!(span_lc(text, at(t, &["name"]).span), ((11, 10), (11, 23)));
    assert!(at(r, &["spec", "timeout"]).is_templated());
    // `name: {{ .a }}: {{ .b }}` is not YAML once templated, and the error is on a template
    // line: the document is skipped (no tree, no error), and counted.
    assert_eq!(f.documents[1].error, None);
    assert_eq!(f.documents[1].root, None);
    assert!(f.documents[1].skipped);
    assert!(!f.documents[0].skipped);
}

/// Template directives never make a YAML error (docs/semantics.md §4.1): a directive at column 0 inside
/// a block scalar, an action right after a key's `:` writing the value's block, `define` and
/// `range` blocks around documents. Shapes of public Helm charts, written anew.
#[test]
fn template_directives_are_never_yaml_errors() {
    let text = "kind: ConfigMap\ndata:\n  config.yaml: |\n{{- if .Values.a }}\n    a: 1\n{{- else }}\n    a: 2\n{{- end }}\n    b: 3\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    assert!(!f.documents[0].skipped);
    // Its value is the template's to make: the block is read, marked templated.
    let data = at(root(&f, 0), &["data", "config.yaml"]);
    assert!(data.is_templated());
    assert_eq!(slice(text, data.span), &text[text.find('|').unwrap()..text.len() - 1]);

    let text =
        "kind: DaemonSet\nspec:\n  updateStrategy:{{ toYaml .Values.s | nindent 4 }}\n  template:\n    spec: {}\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    assert!(at(r, &["spec", "updateStrategy"]).is_null());
    assert_eq!(slice(text, at(r, &["spec", "template", "spec"]).span), "{}");

    let text = "{{- define \"webhook\" }}\n- name: {{ .name }}\n  rules:\n  {{- range .rules }}\n  - ops: [{{ .op }}]\n  {{- end }}\n{{- end }}\nkind: MutatingWebhookConfiguration\nwebhooks:\n{{- range .Values.hooks }}\n{{ include \"webhook\" . }}\n{{- end }}\n";
    let f = parse_file(text);
    assert_eq!(f.documents.len(), 1);
    let d = &f.documents[0];
    // The define's items and the mapping after them are not one YAML document: skipped.
    assert_eq!(d.error, None);
    assert!(d.skipped);
}

#[test]
fn templated_files_still_report_errors_on_plain_lines() {
    let text = "kind: {{ .K }}\nmetadata:\n  name: a: b\n";
    let f = parse_file(text);
    let err = f.documents[0].error.as_ref().expect("error");
    assert_eq!(
        err.message,
        "a `:` where a plain value was expected (quote the value, or start the mapping on a new line)"
    );
    assert_eq!(lc(text, err.span.start), (2, 9));
    // An action still being typed ends at its line's end.
    let text = "a: {{ .x\nb: 1\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    assert!(at(root(&f, 0), &["a"]).is_templated());
    assert_eq!(at(root(&f, 0), &["b"]).as_str(), Some("1"));
}

#[test]
fn multi_line_template_actions_are_blanked() {
    let text = "kind: A\n{{- /* a comment\n  spanning: lines */ -}}\nname: {{ .a\n  | default \"b\" }}\nafter: 1\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let r = root(&f, 0);
    assert_eq!(at(r, &["kind"]).as_str(), Some("A"));
    assert!(r.get("spanning").is_none());
    assert!(at(r, &["name"]).is_null());
    assert_eq!(at(r, &["after"]).as_str(), Some("1"));
}

#[test]
fn hugo_shortcodes() {
    let text = "{{< note >}}\nkind: Service\nmetadata: {name: x}\n{{< /note >}}\n---\n{{% tab %}}\nkind: B\n";
    let f = parse_file(text);
    assert!(f.templated);
    assert_eq!(f.documents.len(), 2);
    assert_eq!(f.documents[0].error, None);
    assert_eq!(at(root(&f, 0), &["metadata", "name"]).as_str(), Some("x"));
    assert_eq!(span_lc(text, root(&f, 0).span), ((1, 0), (2, 19)));
    assert_eq!(at(root(&f, 1), &["kind"]).as_str(), Some("B"));
}

#[test]
fn alias_bomb_is_not_expanded() {
    let mut text = String::from("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (prev, cur) in "abcdefgh".chars().zip("bcdefghi".chars()) {
        let refs = vec![format!("*{prev}"); 9].join(",");
        text.push_str(&format!("{cur}: &{cur} [{refs}]\n"));
    }
    assert!(text.len() < 400, "{}", text.len());
    let started = Instant::now();
    let f = parse_file(&text);
    let elapsed = started.elapsed();
    assert_eq!(f.documents[0].error, None);
    let i = at(root(&f, 0), &["i"]);
    assert_eq!(i.as_sequence().unwrap().len(), 9);
    assert!(i.as_sequence().unwrap().iter().all(|n| n.kind == NodeKind::Alias));
    // Expansion would be 9^9 nodes; reading it is a few hundred events.
    assert!(elapsed.as_millis() < 200, "{elapsed:?}");
}

#[test]
fn deep_flow_nesting_is_capped() {
    on_small_stack(|| {
        let n = 10_000;
        let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let f = parse_file(&text);
        let d = &f.documents[0];
        let err = d.error.as_ref().expect("depth error");
        assert_eq!(err.message, "nesting deeper than 200 levels");
        assert_eq!(err.span, Span::new(200, 200));
        let r = d.root.as_ref().unwrap();
        assert_eq!(max_depth(r), 200);
        assert_eq!(r.span.start, 0);
        // The derived impls recurse; the cap keeps them within the stack.
        let copy = r.clone();
        assert_eq!(&copy, r);
        drop(f);
        // An unclosed one too.
        let f = parse_file(&"[".repeat(n));
        assert_eq!(max_depth(f.documents[0].root.as_ref().unwrap()), 200);
    });
}

#[test]
fn deep_block_nesting_is_capped() {
    on_small_stack(|| {
        let n = 10_000;
        // Block mappings need one more column per level: ~50 MB of indentation.
        let mut text = String::with_capacity(n * (n + 8) / 2 + 16);
        for i in 0..n {
            text.extend(std::iter::repeat_n(' ', i));
            text.push_str("k:\n");
        }
        text.extend(std::iter::repeat_n(' ', n));
        text.push_str("end\n");
        let f = parse_file(&text);
        let d = &f.documents[0];
        assert_eq!(d.error.as_ref().unwrap().message, "nesting deeper than 200 levels");
        let r = d.root.as_ref().unwrap();
        assert_eq!(max_depth(r), 200);
        drop(f);
        // Compact block sequences: `- - - … x`.
        let text = format!("{}x\n", "- ".repeat(n));
        let f = parse_file(&text);
        let d = &f.documents[0];
        assert_eq!(d.error.as_ref().unwrap().message, "nesting deeper than 200 levels");
        assert_eq!(max_depth(d.root.as_ref().unwrap()), 200);
    });
}

/// One realistic object, `i` making names unique.
fn route(i: usize) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: route-{i}\n  namespace: shop\n  labels:\n    app: \"shop\"\n    tier: frontend\nspec:\n  parentRefs:\n  - name: edge\n    sectionName: https\n  hostnames: [\"shop.example.com\"]\n  rules:\n  - name: pay\n    matches:\n    - path: {{type: PathPrefix, value: /pay}}\n    backendRefs:\n    - name: pay-svc\n      port: 8080\n      weight: 90\n    - name: pay-canary\n      port: 8080\n      weight: 10\n  - backendRefs:\n    - name: web\n      port: 80\n---\n"
    )
}

#[test]
fn fifty_megabytes() {
    let one = route(0).len();
    let n = 50 * 1024 * 1024 / one;
    let mut text = String::with_capacity(n * (one + 8));
    for i in 0..n {
        text.push_str(&route(i));
    }
    let started = Instant::now();
    let f = parse_file(&text);
    let elapsed = started.elapsed();
    eprintln!(
        "parsed {:.1} MB, {n} documents in {elapsed:?} ({:.0} MB/s, unoptimised crate)",
        text.len() as f64 / 1e6,
        text.len() as f64 / 1e6 / elapsed.as_secs_f64()
    );
    // The last `---` opens one empty document at the end.
    assert_eq!(f.documents.len(), n + 1);
    assert_eq!(f.documents[n].root, None);
    assert!(f.documents.iter().all(|d| d.error.is_none()));
    let idx = LineIndex::new(&text);
    let lines = route(0).lines().count() as u32;
    for i in [0, n / 2, n - 1] {
        let r = root(&f, i);
        let name = at(r, &["metadata", "name"]);
        assert_eq!(name.as_str(), Some(format!("route-{i}").as_str()));
        let p = idx.position(&text, name.span.start, PositionEncoding::Utf16);
        assert_eq!((p.line, p.character), (i as u32 * lines + 3, 8));
        let weight = at(item(at(item(at(r, &["spec", "rules"]), 0), &["backendRefs"]), 1), &["weight"]);
        assert_eq!(weight.as_i64(), Some(10));
    }
}

/// Release-build throughput: `cargo test --release -p policylens-core --lib syntax -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 5 * 1024 * 1024 {
        text.push_str(&route(i));
        i += 1;
    }
    let runs = 10;
    let started = Instant::now();
    let mut docs = 0;
    for _ in 0..runs {
        docs += parse_file(&text).documents.len();
    }
    let secs = started.elapsed().as_secs_f64() / runs as f64;
    eprintln!(
        "{:.1} MB, {} documents: {:.1} ms per parse, {:.0} MB/s",
        text.len() as f64 / 1e6,
        docs / runs,
        secs * 1e3,
        text.len() as f64 / 1e6 / secs
    );
}

/// A realistic multi-document file with the features the parser must survive.
const FIXTURE: &str = concat!(
    "# Source: chart/templates/policy.yaml\n",
    "apiVersion: gateway.envoyproxy.io/v1alpha1\n",
    "kind: BackendTrafficPolicy\n",
    "metadata:\n",
    "  name: retry-héllo ✓\n",
    "  namespace: shop\n",
    "  annotations:\n",
    "    note: \"quoted 😀 \\\"x\\\"\"\n",
    "spec:\n",
    "  targetRefs:\n",
    "  - group: gateway.networking.k8s.io\n",
    "    kind: HTTPRoute\n",
    "    name: checkout\n",
    "    sectionName: pay\n",
    "  retry:\n",
    "    numRetries: 5\n",
    "    perRetry: {timeout: 250ms, backOff: {baseInterval: 100ms}}\n",
    "  script: |\n",
    "    line one\n",
    "    line two\n",
    "  folded: >-\n",
    "    a\n",
    "    b\n",
    "  anchors: &a [1, 2]\n",
    "  again: *a\n",
    "---\r\n",
    "kind: Service\r\n",
    "metadata:\r\n",
    "  name: api\r\n",
    "spec:\r\n",
    "  ports:\r\n",
    "  - name: https\r\n",
    "    port: 443\r\n",
    "...\n",
    "---\n",
    "kind: Gateway\n",
    "metadata: {name: edge}\n",
    "spec:\n",
    "  listeners:\n",
    "  - name: https\n",
    "    port: 443\n",
    "    tls: {mode: Terminate}\n",
    "  -\n",
);

fn check_spans(text: &str, f: &ParsedFile) {
    let len = text.len() as u32;
    let ok = |s: Span| {
        s.start <= s.end
            && s.end <= len
            && text.is_char_boundary(s.start as usize)
            && text.is_char_boundary(s.end as usize)
    };
    let mut prev_end = 0;
    for d in &f.documents {
        assert!(ok(d.span), "document {:?}", d.span);
        assert!(d.span.start >= prev_end, "documents overlap");
        prev_end = d.span.end;
        if let Some(e) = &d.error {
            assert!(ok(e.span), "error {:?}", e.span);
            assert!(!e.message.is_empty());
        }
        if let Some(r) = &d.root {
            walk(r, |n, depth| {
                assert!(ok(n.span), "node {:?} {:?}", n.span, n.kind);
                assert!(depth <= 201);
            });
        }
    }
}

#[test]
fn fixture_parses_cleanly() {
    let f = parse_file(FIXTURE);
    check_spans(FIXTURE, &f);
    assert_eq!(f.documents.len(), 3);
    for d in &f.documents {
        assert_eq!(d.error, None);
    }
    assert_eq!(at(root(&f, 0), &["metadata", "name"]).as_str(), Some("retry-héllo ✓"));
    assert_eq!(at(root(&f, 1), &["metadata", "name"]).as_str(), Some("api"));
    assert!(item(at(root(&f, 2), &["spec", "listeners"]), 1).is_null());
}

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, &'static str),
    Delete(usize, usize),
    Replace(usize, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    let piece = prop::sample::select(vec![
        ":",
        ": ",
        "-",
        "- ",
        "\n",
        "\r\n",
        "\r",
        " ",
        "  ",
        "\t",
        "[",
        "]",
        "{",
        "}",
        ",",
        "\"",
        "'",
        "#",
        "&a ",
        "*a",
        "!",
        "|",
        ">",
        "?",
        "%",
        "---\n",
        "...\n",
        "{{",
        "}}",
        "{{ .x }}",
        "é",
        "😀",
        "\u{feff}",
        "@",
        "`",
        "- - ",
        "? ",
        ": |",
        "\"\\",
        "%YAML 1.2\n",
        "!!str ",
        "&a\n",
    ]);
    prop_oneof![
        (any::<usize>(), piece.clone()).prop_map(|(p, s)| Edit::Insert(p, s)),
        (any::<usize>(), 1usize..8).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<usize>(), piece).prop_map(|(p, s)| Edit::Replace(p, s)),
    ]
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &mut String, e: &Edit) {
    let pick = |text: &String, p: usize| floor_boundary(text, p % (text.len() + 1));
    match *e {
        Edit::Insert(p, s) => {
            let p = pick(text, p);
            text.insert_str(p, s);
        }
        Edit::Delete(p, n) => {
            let p = pick(text, p);
            let end = floor_boundary(text, p + n).max(p);
            text.replace_range(p..end, "");
        }
        Edit::Replace(p, s) => {
            let p = pick(text, p);
            let end = text[p..].chars().next().map_or(p, |c| p + c.len_utf8());
            text.replace_range(p..end, s);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixture_never_breaks_the_parser(edits in prop::collection::vec(edit(), 1..12)) {
        let mut text = FIXTURE.to_owned();
        for e in &edits {
            apply(&mut text, e);
        }
        let f = parse_file(&text);
        check_spans(&text, &f);
        prop_assert!(!f.documents.is_empty());
    }

    #[test]
    fn token_soup_never_breaks_the_parser(tokens in prop::collection::vec(token(), 0..120)) {
        let text = tokens.concat();
        let f = parse_file(&text);
        check_spans(&text, &f);
        prop_assert!(!f.documents.is_empty());
    }
}

fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "kind",
        ": ",
        ":",
        "- ",
        "-",
        "\n",
        "\r\n",
        "  ",
        "\t",
        "[",
        "]",
        "{",
        "}",
        ", ",
        "\"x\"",
        "'y'",
        "\"",
        "'",
        "# c\n",
        "&a ",
        "*a",
        "!t ",
        "|\n",
        ">-\n",
        "? ",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "{{ .v }}",
        "{{- if x }}\n",
        "}}",
        "é✓",
        "😀",
        "~",
        "null",
        "1",
        "\\",
    ])
}

#[test]
fn the_document_at_an_offset_is_the_one_parse_file_reads() {
    // A comment before the first marker, a broken document, a templated line and `...`.
    let text = "# head\n---\nkind: A\nspec: {x: 1\n---\nkind: B\nname: {{ .Values.n }}\n...\nkind: C\n";
    let whole = parse_file(text);
    assert_eq!(whole.documents.len(), 3);
    for offset in 0..=text.len() as u32 {
        let at = whole.documents.iter().rposition(|d| d.span.start <= offset).unwrap_or(0);
        assert_eq!(parse_document_at(text, offset), whole.documents[at], "offset {offset}");
    }
}

/// The two shapes libyaml (and so Kubernetes) loads that the parser before it rejected: a
/// double-quoted scalar continued at its key's or its item's column, and a flow sequence
/// closed at the column of the key that holds it.
#[test]
fn shapes_libyaml_loads_are_read() {
    let text =
        "rules:\n- message: \"first half\n  second\n  half\"\n  rule: \"self.a ==\n  self.b\"\n- rule: \"x\n  y\"\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let rules = at(root(&f, 0), &["rules"]);
    assert_eq!(at(item(rules, 0), &["message"]).as_str(), Some("first half second half"));
    assert_eq!(at(item(rules, 0), &["rule"]).as_str(), Some("self.a == self.b"));
    assert_eq!(span_lc(text, at(item(rules, 0), &["rule"]).span), ((4, 8), (5, 9)));
    assert_eq!(at(item(rules, 1), &["rule"]).as_str(), Some("x y"));

    let text = "spec:\n  args: [\n    \"--a\",\n    \"--b\"\n  ]\n  next: 1\n";
    let f = parse_file(text);
    assert_eq!(f.documents[0].error, None);
    let args = at(root(&f, 0), &["spec", "args"]);
    assert_eq!(args.to_json(), serde_json::json!(["--a", "--b"]));
    assert_eq!(span_lc(text, args.span), ((1, 8), (4, 3)));
    assert_eq!(at(root(&f, 0), &["spec", "next"]).as_i64(), Some(1));
}

/// The documents the fast reader must take (or the parse is libyaml's pace), and some it must
/// leave to libyaml; what it reads equals libyaml's reading (tests/libyaml_oracle.rs).
#[test]
fn the_fast_reader_takes_plain_manifests() {
    use super::fast::read;
    for i in 0..3 {
        let text = route(i);
        let doc = &text[..text.find("---").unwrap()];
        let root = read(doc, 0).expect("fast").expect("a root");
        assert_eq!(root, parse_file_by_libyaml(doc).documents[0].root.clone().unwrap());
    }
    let plain = "# c\n---\na: 1 # c\nb:\n  - x\n  - 'y'\n  - {k: \"v\\n\", l: [1, 2]}\nc: |-\n  lit\n\n  eral\nd: >\n  fo\n  lded\ne: plain\n  over lines\nf:\n- -1\ng: \"\"\n";
    let root = read(plain, 0).expect("fast").expect("a root");
    assert_eq!(root, parse_file_by_libyaml(plain).documents[0].root.clone().unwrap());
    assert_eq!(read("# only a comment\n", 0).expect("fast"), None);
    for libyamls in [
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "? a\n: b\n",
        "a:\tb\n",
        "a: 1\r\n",
        "a: \"one\n  two\"\n",
        "a: [1,\n  2]\n",
        "%YAML 1.2\n---\na: 1\n",
        "--- a\n",
        "a: b: c\n",
        " a: 1\nb: 2\n",
        "a: 1\n b: 2\n",
        "a:\u{2028}b\n",
    ] {
        assert_eq!(read(libyamls, 0), None, "{libyamls:?}");
    }
}

#[test]
fn printable_ascii_is_decided_eight_bytes_at_a_time_as_byte_by_byte() {
    use super::fast::printable_ascii;
    let reference = |b: &[u8]| b.iter().all(|&c| (b' '..=b'~').contains(&c) || c == b'\n');
    let mut buf = *b"abcdefgh: ijklmnop\nqrstuvwx";
    assert!(printable_ascii(&buf));
    for at in 0..buf.len() {
        for c in 0..=255u8 {
            let keep = buf[at];
            buf[at] = c;
            assert_eq!(printable_ascii(&buf), reference(&buf), "byte {c:#x} at {at}");
            buf[at] = keep;
        }
    }
}
