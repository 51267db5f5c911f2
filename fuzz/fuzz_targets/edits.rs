//! An editor session on one document: a start text (the input up to its first NUL byte), then
//! `didChange` notifications made from the rest of the input, each of 1-4 content changes
//! (LSP ranges in UTF-8, UTF-16 or UTF-32 columns, often out of range or inside a multi-byte
//! character, sometimes reversed; or whole-text replacements), applied by the language
//! server's own `Document::apply` and put into the workspace as `State::did_change` does. Between
//! notifications the server's two passes run at random: the keystroke path
//! (`diagnostics::local` against the last full analysis, with the logged edits) and a full
//! analysis. Checks:
//! - the text equals the changes applied by the simple reference implementation below;
//! - each logged byte edit, applied to the text before it, gives the text after it;
//! - the final workspace's diagnostics equal those of a fresh workspace with the final text;
//! - the keystroke path's syntax and reference diagnostics equal the fresh full analysis's.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use policylens_core::analysis::diagnostics::{self, Code, Diagnostic, MAX_PER_FILE};
use policylens_core::syntax::PositionEncoding;
use policylens_core::workspace::Workspace;
use policylens_fuzz::documents::Document;
use tower_lsp_server::ls_types::{Position, Range};

const PATH: &str = "edited.yaml";

/// Inserted texts: YAML structure, line breaks of each kind, multi-byte characters.
const PIECES: &[&str] = &[
    "",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\r",
    ":",
    ": ",
    "- ",
    "---\n",
    "...\n",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\"",
    "'",
    "#",
    "# policylens: ignore[target-not-found]\n",
    "&a ",
    "*a",
    "!",
    "|\n",
    ">-\n",
    "\t",
    "é",
    "😀",
    "\u{feff}",
    "{{ .Values.x }}",
    "name: x\n",
    "kind: HTTPRoute\n",
    "targetRefs:\n",
    "  - ",
    "sectionName: https\n",
    "apiVersion: gateway.networking.k8s.io/v1\n",
    "namespace: shop\n",
    "\n---\n",
];

fuzz_target!(|data: &[u8]| {
    if data.len() > policylens_fuzz::MAX_INPUT {
        return;
    }
    let (head, tail) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let Ok(start) = std::str::from_utf8(head) else { return };
    let mut u = Unstructured::new(tail);
    let enc = pick(&mut u, &[PositionEncoding::Utf16, PositionEncoding::Utf8, PositionEncoding::Utf32]);

    let mut doc = Document::new(0, start);
    let mut reference = start.to_owned();
    let mut ws = Workspace::new();
    ws.set_file(PATH, start);
    let mut base = ws.snapshot();
    let _ = base.diagnostics();
    let mut base_version = 0;
    let mut version = 0;

    let notifications = u.int_in_range(0..=12u8).unwrap_or(0);
    for _ in 0..notifications {
        version += 1;
        let changes = u.int_in_range(1..=4u8).unwrap_or(1);
        for _ in 0..changes {
            let text = insert_text(&mut u);
            let before = reference.clone();
            let (range, start_byte, end_byte) = if u.ratio(1, 24).unwrap_or(false) {
                (None, 0, before.len())
            } else {
                let (a, ra) = position(&mut u, &before);
                let (b, rb) = position(&mut u, &before);
                let (x, y) = (reference_offset(&before, ra, enc), reference_offset(&before, rb, enc));
                (Some(Range::new(a, b)), x.min(y), x.max(y))
            };
            doc.apply(range, &text, enc, version);
            reference = format!("{}{}{}", &before[..start_byte], text, &before[end_byte..]);
            let now = doc.text();
            assert_eq!(now, reference, "after {range:?} <- {text:?} ({enc:?}) on {before:?}");
            // The byte edit the server logs moves diagnostics: it must describe this change.
            let logged = doc.edits_between(version - 1, version).and_then(|e| e.last().copied());
            let e = logged.unwrap_or_else(|| panic!("no edit logged for version {version}"));
            let (s, t, n) = (e.start as usize, e.end as usize, e.new_len as usize);
            assert_eq!((s, t, n), (start_byte, end_byte, text.len()), "logged edit of {range:?} <- {text:?}");
        }
        doc.version = version;
        ws.set_file(PATH, doc.text());
        match u.int_in_range(0..=3u8).unwrap_or(0) {
            // The keystroke path: this file against the last full analysis.
            1 => {
                let snap = ws.snapshot();
                let edits = doc.edits_between(base_version, version);
                if let Some(local) = diagnostics::local(&snap, PATH, &base, edits.as_deref()) {
                    let text = doc.text();
                    for d in &local {
                        policylens_fuzz::check_span(&text, d.span, "local diagnostic");
                    }
                }
            }
            // A full analysis becomes the new base.
            2 => {
                let snap = ws.snapshot();
                let _ = snap.diagnostics();
                base = snap;
                base_version = version;
                doc.forget_edits(version);
            }
            _ => {}
        }
    }

    let final_text = doc.text();
    assert_eq!(final_text, reference);
    let snap = ws.snapshot();
    let mut fresh_ws = Workspace::new();
    fresh_ws.set_file(PATH, final_text.as_str());
    let fresh = fresh_ws.snapshot();
    assert_eq!(
        snap.diagnostics(),
        fresh.diagnostics(),
        "edited workspace differs from a fresh parse of {final_text:?}"
    );
    policylens_fuzz::check_diagnostics(&snap);

    // The keystroke path gives the full analysis's syntax and reference diagnostics.
    let edits = doc.edits_between(base_version, version);
    let full = fresh.diagnostics_for(PATH);
    if let Some(local) = diagnostics::local(&snap, PATH, &base, edits.as_deref())
        && full.len() < MAX_PER_FILE
        && local.len() < MAX_PER_FILE
    {
        assert_eq!(
            per_file(&local),
            per_file(full),
            "keystroke diagnostics differ from the full analysis's for {final_text:?}"
        );
    }
});

/// The diagnostics that a one-file analysis computes itself, in a stable order.
fn per_file(diags: &[Diagnostic]) -> Vec<String> {
    let mut v: Vec<String> = diags
        .iter()
        .filter(|d| !d.code.is_workspace_wide() && d.code != Code::UnusedSuppression)
        .map(|d| format!("{:?}", d))
        .collect();
    v.sort();
    v
}

fn pick<T: Copy>(u: &mut Unstructured<'_>, items: &[T]) -> T {
    u.choose(items).copied().unwrap_or(items[0])
}

fn insert_text(u: &mut Unstructured<'_>) -> String {
    if u.ratio(1, 4).unwrap_or(false) {
        // Free text from the input, as typed or pasted.
        let len = u.int_in_range(0..=24usize).unwrap_or(0);
        let bytes = u.bytes(len).unwrap_or(&[]);
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let n = u.int_in_range(1..=3u8).unwrap_or(1);
    (0..n).map(|_| pick(u, PIECES)).collect()
}

/// A position: mostly on an existing line and near its length, sometimes past the end of the
/// line or of the document. Also returns it as (line, column) for the reference.
fn position(u: &mut Unstructured<'_>, text: &str) -> (Position, (u32, u32)) {
    let lines = lines(text).len() as u32;
    let line = if u.ratio(1, 16).unwrap_or(false) {
        u.arbitrary::<u32>().unwrap_or(0)
    } else {
        u.int_in_range(0..=lines + 1).unwrap_or(0)
    };
    let character = if u.ratio(1, 16).unwrap_or(false) {
        u.arbitrary::<u32>().unwrap_or(0)
    } else {
        u.int_in_range(0..=40u32).unwrap_or(0)
    };
    (Position::new(line, character), (line, character))
}

/// The lines of `text` with their breaks (`\n`, `\r\n`, `\r`): the byte ranges of their
/// contents, breaks excluded. A text ending in a break has an empty last line.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            b'\r' => {
                out.push((start, i));
                if b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, b.len()));
    out
}

/// The reference: the byte offset of an LSP position. Past the last line: the end of the text;
/// past the line's end: the line's end; inside a character: that character's start.
fn reference_offset(text: &str, (line, col): (u32, u32), enc: PositionEncoding) -> usize {
    let lines = lines(text);
    let Some(&(start, end)) = lines.get(line as usize) else { return text.len() };
    let mut units = 0u64;
    for (i, c) in text[start..end].char_indices() {
        let w = match enc {
            PositionEncoding::Utf8 => c.len_utf8(),
            PositionEncoding::Utf16 => c.len_utf16(),
            PositionEncoding::Utf32 => 1,
        } as u64;
        if units + w > u64::from(col) {
            return start + i;
        }
        units += w;
    }
    end
}
