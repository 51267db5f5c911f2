//! What the fuzz targets share: the checks every analysis result must pass, whatever the input.
//! A failed check panics, which libFuzzer reports as a crash with the input that caused it.

use policylens_core::analysis;
use policylens_core::effective::explain;
use policylens_core::syntax::{Node, NodeKind, ParsedFile, PositionEncoding, Span, parse_document_at, parse_file};
use policylens_core::topology::{NodeId, PathLimit};
use policylens_core::workspace::Snapshot;

/// The language server's open-document code (`didChange` edits), compiled from its own source
/// file: depending on `policylens-lsp` would build kube and k8s-openapi with sanitizers for
/// nothing, and this file needs only ropey, core and the LSP position types.
#[path = "../../server/lsp/src/documents.rs"]
#[allow(dead_code)]
pub mod documents;

pub const ENCODINGS: [PositionEncoding; 3] = [PositionEncoding::Utf8, PositionEncoding::Utf16, PositionEncoding::Utf32];

/// Inputs larger than this are skipped: libFuzzer's default `-max_len` is far below it, and
/// a seed from a big fixture is not worth a timeout.
pub const MAX_INPUT: usize = 64 * 1024;

/// The syntax tree of `text` is well formed: documents in order and inside the text, every
/// node's span inside the text, on char boundaries, inside its parent's and after its previous
/// sibling's; one document alone parses as it does in the whole file.
pub fn check_parsed(text: &str, parsed: &ParsedFile) {
    let mut prev_end = 0u32;
    for doc in &parsed.documents {
        check_span(text, doc.span, "document");
        assert!(doc.span.start >= prev_end, "document {:?} starts before the previous one ends ({prev_end})", doc.span);
        prev_end = doc.span.end;
        if let Some(e) = &doc.error {
            check_span(text, e.span, "syntax error");
        }
        if let Some(root) = &doc.root {
            check_node(text, root, doc.span);
        }
    }
    // parse_document_at is the cursor's document exactly as parse_file reads it.
    for doc in parsed.documents.iter().take(3) {
        let alone = parse_document_at(text, doc.span.start);
        if parsed.documents.iter().filter(|d| d.span.start == doc.span.start).count() == 1 {
            assert_eq!(&alone, doc, "parse_document_at({}) differs from parse_file's document", doc.span.start);
        }
    }
}

fn check_node(text: &str, root: &Node, doc: Span) {
    // Iterative: the parser accepts nesting far deeper than the fuzzer's stack.
    let mut stack: Vec<(&Node, Span)> = vec![(root, doc)];
    while let Some((node, parent)) = stack.pop() {
        check_span(text, node.span, "node");
        assert!(
            parent.start <= node.span.start && node.span.end <= parent.end,
            "node {:?} ({:?}) outside its parent {:?}",
            node.span,
            short(&node.kind),
            parent
        );
        let mut prev = node.span.start;
        let child = |n: &'_ Node, prev: &mut u32| {
            assert!(n.span.start >= *prev, "node {:?} starts before its previous sibling ends ({prev})", n.span);
            *prev = n.span.end;
        };
        match &node.kind {
            NodeKind::Mapping(entries) => {
                for e in entries {
                    child(&e.key, &mut prev);
                    child(&e.value, &mut prev);
                    stack.push((&e.key, node.span));
                    stack.push((&e.value, node.span));
                }
            }
            NodeKind::Sequence(items) => {
                for n in items {
                    child(n, &mut prev);
                    stack.push((n, node.span));
                }
            }
            NodeKind::Scalar(_) | NodeKind::Alias | NodeKind::Missing => {}
        }
    }
}

fn short(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Scalar(_) => "scalar",
        NodeKind::Mapping(_) => "mapping",
        NodeKind::Sequence(_) => "sequence",
        NodeKind::Alias => "alias",
        NodeKind::Missing => "missing",
    }
}

/// `span` is ordered, inside `text` and on char boundaries.
pub fn check_span(text: &str, span: Span, what: &str) {
    assert!(span.start <= span.end, "{what} span {span:?} is reversed");
    assert!(span.end as usize <= text.len(), "{what} span {span:?} ends past the text ({} bytes)", text.len());
    assert!(
        text.is_char_boundary(span.start as usize) && text.is_char_boundary(span.end as usize),
        "{what} span {span:?} splits a character"
    );
}

/// Everything `policylens check` computes for a snapshot (world, effective policies,
/// diagnostics, the status report), plus what explain and graph read, then the checks on
/// every diagnostic: spans inside their file, positions that convert back to the same offset.
pub fn analyse(snap: &Snapshot, explain_nodes: usize) {
    let world = snap.world();
    let index = snap.effective();
    let report = index.report_every(world);
    let _ = serde_json::to_string(&report);
    let nodes = world.topology.node_count().min(explain_nodes);
    for n in 0..nodes {
        let ex = explain(world, index, NodeId(n as u32), PathLimit(64));
        let _ = serde_json::to_string(&ex);
    }
    if explain_nodes > 0 {
        let _ = analysis::graph::build(world, index, None);
    }
    check_diagnostics(snap);
}

pub fn check_diagnostics(snap: &Snapshot) {
    for (path, diags) in snap.diagnostics() {
        let Some(file) = snap.source(path) else { continue };
        let text = file.text();
        for d in diags {
            check_span(text, d.span, "diagnostic");
            for enc in ENCODINGS {
                for offset in [d.span.start, d.span.end] {
                    let pos = file.position(offset, enc);
                    let back = file.offset(pos, enc);
                    // Between the \r and \n of a CRLF there is no position of its own.
                    let inside_crlf = offset > 0
                        && text.as_bytes().get(offset as usize - 1) == Some(&b'\r')
                        && text.as_bytes().get(offset as usize) == Some(&b'\n');
                    // Inside a leading byte-order mark is column 0, which is after the mark.
                    let inside_bom = text.starts_with('\u{feff}') && offset < 3;
                    if !inside_crlf && !inside_bom {
                        assert_eq!(
                            back,
                            offset,
                            "{path}: {:?} {:?}: offset {offset} -> {pos:?} ({enc:?}) -> {back}\n{:?}",
                            d.code,
                            d.message,
                            &text[..text.len().min(120)]
                        );
                    }
                }
            }
            for r in &d.related {
                if let Some(rf) = snap.source(&r.file) {
                    check_span(rf.text(), r.span, "related");
                }
            }
        }
    }
}

/// Editor features at a few offsets of one file: hover, completion, definition, symbols, code
/// lenses and actions, as the language server asks them.
pub fn editor_features(snap: &Snapshot, path: &str, offsets: &[u32]) {
    for &o in offsets {
        let _ = analysis::hover(snap, path, o);
        let _ = analysis::completions(snap, path, o);
        let _ = analysis::definition(snap, path, o);
        let _ = analysis::code_actions(snap, path, Span::new(o, o));
    }
    let _ = analysis::document_symbols(snap, path);
    let _ = analysis::code_lenses(snap, path);
}

/// Parses `text` alone and checks its tree.
pub fn parse_and_check(text: &str) -> ParsedFile {
    let parsed = parse_file(text);
    check_parsed(text, &parsed);
    parsed
}
