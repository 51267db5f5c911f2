//! Inputs the fuzz targets (fuzz/, docs/robustness.md) found, minimised, each with the exact
//! outcome it must have.

use policylens_core::syntax::{Node, NodeKind, parse_file};

/// The tree in preorder: (what, start, end) per node.
fn nodes(root: &Node) -> Vec<(&'static str, u32, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let what = match &n.kind {
            NodeKind::Scalar(_) => "scalar",
            NodeKind::Mapping(_) => "mapping",
            NodeKind::Sequence(_) => "sequence",
            NodeKind::Alias => "alias",
            NodeKind::Missing => "missing",
        };
        out.push((what, n.span.start, n.span.end));
        match &n.kind {
            NodeKind::Mapping(entries) => {
                stack.extend(entries.iter().rev().flat_map(|e| [&e.value, &e.key]));
            }
            NodeKind::Sequence(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    out
}

/// workspace target: after the `n` at the error was blanked and the document re-read, the
/// parser before libyaml (saphyr) gave the empty value of `V` the span 4..6, past the flow
/// mapping's `}` (2..5) that holds it. libyaml stops at the root mapping (offset 0) and nothing
/// after it reads as an entry, so no node can stray.
#[test]
fn empty_flow_value_stays_inside_its_mapping() {
    let parsed = parse_file(": {V}n");
    assert_eq!(parsed.documents.len(), 1);
    let doc = &parsed.documents[0];
    let error = doc.error.as_ref().map(|e| (e.span.start, e.span.end, e.message.as_str()));
    assert_eq!(error, Some((0, 0, "bad indentation: this line does not line up with the keys around it")));
    let root = doc.root.as_ref().map(nodes);
    assert_eq!(root, Some(vec![("mapping", 0, 0)]));
}

/// check_text target, the same fault in a templated file: `{eamee }` closed by the first `}`
/// of `}}`, its empty value spanned to past the rest of the line. libyaml stops after the
/// template's directive line: the document cannot be read around it, and is skipped.
#[test]
fn empty_flow_value_stays_inside_its_mapping_in_a_template() {
    let text = "{{- \ns }},}\n{eamee }}ond}\n}\n";
    let parsed = parse_file(text);
    assert_eq!(parsed.documents.len(), 1);
    let doc = &parsed.documents[0];
    let error = doc.error.as_ref().map(|e| (e.span.start, e.span.end, e.message.as_str()));
    assert_eq!(error, None);
    assert!(doc.skipped);
    assert_eq!(doc.root, None);
}

/// edits target: an editor buffer that starts with a byte-order mark and holds a NUL byte gets
/// the binary-file diagnostic at offset 0, inside the mark. Columns are counted after the mark,
/// so the first line starts at byte 3, and `offset - line start` underflowed: a panic with
/// overflow checks, a column of 4294967293 sent to the editor without them. An offset inside
/// the mark is now column 0.
#[test]
fn offset_inside_a_byte_order_mark_is_column_zero() {
    use policylens_core::syntax::{Position, PositionEncoding};
    use policylens_core::workspace::Workspace;
    let mut ws = Workspace::new();
    ws.set_file("edited.yaml", "\u{feff}# notes\n\0junk");
    let snap = ws.snapshot();
    let diags: Vec<_> = snap.diagnostics().values().flat_map(|d| d.iter().cloned()).collect();
    let found: Vec<_> = diags.iter().map(|d| (d.span.start, d.span.end, d.message.as_str())).collect();
    assert_eq!(found, [(0, 0, "skipped: binary file (holds NUL bytes)")]);
    let file = snap.source("edited.yaml").map(|f| {
        [PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32].map(|enc| f.position(0, enc))
    });
    assert_eq!(file, Some([Position { line: 0, character: 0 }; 3]));
}

/// workspace target (found in the second long run): an explicit key (`?`) with nothing after
/// it, a lone `\r` as the line break, then `::`. saphyr read two entries, the empty key's and
/// a key `:`, and spanned that second key over the first `:` (2..3), inside the entry before it
/// (whose empty value sat after that `:`, at 3). A leaf starts no earlier than its previous
/// sibling ends. libyaml reads the same two entries, the first one empty at the line break.
#[test]
fn explicit_empty_key_before_a_carriage_return() {
    for text in ["?\r::", "?\r:-:", "#\r?\r:-:"] {
        let parsed = parse_file(text);
        assert_eq!(parsed.documents.len(), 1, "{text:?}");
        let root = parsed.documents[0].root.as_ref().map(nodes).unwrap_or_default();
        let mut prev_end = 0;
        for (what, start, end) in root.iter().skip(1) {
            assert!(*start >= prev_end && start <= end, "{text:?}: {what} {start}..{end} after {prev_end}: {root:?}");
            prev_end = *end;
        }
    }
    let parsed = parse_file("?\r::");
    let root = parsed.documents[0].root.as_ref().map(nodes);
    assert_eq!(
        root,
        Some(vec![("mapping", 1, 4), ("scalar", 1, 1), ("scalar", 1, 1), ("scalar", 2, 3), ("scalar", 4, 4)])
    );
}
