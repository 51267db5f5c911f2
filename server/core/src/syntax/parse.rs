//! The YAML parser front: splits a file into documents and builds span-carrying trees from
//! libyaml's events.
//!
//! - Each document is parsed on its own ([`split`]), so one broken document never hides the
//!   others.
//! - After a syntax error the offending line (from the error onwards, then whole) is blanked
//!   and the document re-parsed, a few times, so keys after the break are read too. Blanking
//!   replaces bytes with spaces, so offsets never move.
//! - Templated files are rewritten first ([`template`]), byte for byte.
//! - All spans are byte offsets into the original text.

mod builder;
mod fast;
mod libyaml;
mod split;
mod template;
#[cfg(test)]
mod tests;

use builder::{MAX_DEPTH, Outcome, Scratch, parse_piece};
use split::{Piece, line_end, split_documents};
pub use template::is_templated;

use super::{Document, Node, NodeKind, ParsedFile, Span, SyntaxError};

/// Re-parses allowed for one broken document, over all recovery attempts.
const MAX_REPARSES: usize = 4;

/// Parses a YAML file into its documents. Never fails and never panics: a broken document
/// carries one [`SyntaxError`] and whatever could be read, and the other documents are not
/// affected. Spans are byte offsets into `text`.
pub fn parse_file(text: &str) -> ParsedFile {
    let mut documents = Vec::new();
    let templated = parse_pieces(text, |pieces| pieces, |_, d| documents.push(d));
    ParsedFile { documents, templated }
}

/// [`parse_file`] one document at a time: each is handed to `each` with its index and dropped
/// after, so the trees of a big file are never all in memory at once (a 50 MB file's would be
/// several times its size). Returns whether the file is templated.
pub fn parse_each(text: &str, each: impl FnMut(u32, Document)) -> bool {
    parse_pieces(text, |pieces| pieces, each)
}

/// What [`parse_each_after`] took over from the text parsed before instead of parsing it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reuse {
    /// The documents before the edit: the first `kept` read as before.
    pub kept: u32,
    /// Where the last kept document ends (0 when none).
    pub kept_end: u32,
    /// The documents after the edit, read as before but moved in the text.
    pub moved: Option<Moved>,
}

/// The last documents of a text, unchanged since the text before but for where they lie: an
/// edit before them changed the length of the text by `by` bytes, and may have added or
/// removed documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    /// The index of the first of them in the new text, and in the old.
    pub first: u32,
    pub old_first: u32,
    /// Where the first of them began in the old text (at the stray `...` before the file's
    /// first document, when there is one).
    pub old_start: u32,
    pub by: i64,
}

/// [`parse_each`] of `text`, the new text of `old` (already parsed): the documents wholly
/// inside the bytes both share at their start (closing `---` or `...` line included) are
/// skipped, as they read as before; so are the documents inside the bytes both share at their
/// end, when both texts split into the same documents there. The others are handed to `each`
/// with their index in the file. Not for texts that are templated or read as JSON (those are
/// parsed whole; see [`parse_pieces_with`]).
pub fn parse_each_after(old: &str, text: &str, mut each: impl FnMut(u32, Document)) -> Reuse {
    let (a, b) = (old.as_bytes(), text.as_bytes());
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // The shared end stops where the shared start does, in either text.
    let tail = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count().min(a.len().min(b.len()) - same);
    let by = b.len() as i64 - a.len() as i64;
    let reuse = std::cell::Cell::new(Reuse::default());
    parse_pieces(
        text,
        |mut pieces| {
            // The last piece ends at the end of the text, with no marker line to go by.
            let k = pieces
                .iter()
                .take_while(|p| (p.end as usize) < b.len() && line_end(b, p.end as usize).1 <= same)
                .count();
            let k = k.min(pieces.len().saturating_sub(1));
            let kept_end = k.checked_sub(1).map_or(0, |last| pieces[last].end);
            let moved = moved_pieces(old, &pieces, k, b.len() - tail, by);
            let to = moved.map_or(pieces.len(), |m| m.first as usize);
            reuse.set(Reuse { kept: u32::try_from(k).unwrap_or(u32::MAX), kept_end, moved });
            pieces.truncate(to);
            pieces.drain(..k);
            pieces
        },
        |i, d| each(i.saturating_add(reuse.get().kept), d),
    );
    reuse.get()
}

/// The pieces of `text` from the first that starts at or after `from` (where the bytes shared
/// with the end of `old` begin, and not before piece `k`), when `old`'s last pieces are the
/// same ones `by` bytes earlier.
fn moved_pieces(old: &str, pieces: &[Piece], k: usize, from: usize, by: i64) -> Option<Moved> {
    let first = k + pieces[k..].iter().position(|p| p.start as usize >= from)?;
    let old_pieces = split_documents(old, if old.starts_with('\u{feff}') { 3 } else { 0 });
    let count = pieces.len() - first;
    let old_first = old_pieces.len().checked_sub(count)?;
    let shift = |o: u32| i64::from(o) + by;
    let same = |p: &Piece, q: &Piece| {
        i64::from(p.start) == shift(q.start)
            && i64::from(p.content_start) == shift(q.content_start)
            && i64::from(p.end) == shift(q.end)
            // A `...` typed before a document makes it bare (an error) without moving it.
            && p.bare == q.bare
            && p.stray_end.map(i64::from) == q.stray_end.map(shift)
    };
    if old_first < k || !pieces[first..].iter().zip(&old_pieces[old_first..]).all(|(p, q)| same(p, q)) {
        return None;
    }
    Some(Moved {
        first: u32::try_from(first).ok()?,
        old_first: u32::try_from(old_first).ok()?,
        // The first document's error for a stray `...` before it lies before its start: the
        // moved documents begin there (an error right at the start reads the file whole).
        old_start: old_pieces[old_first].stray_end.unwrap_or(old_pieces[old_first].start),
        by,
    })
}

/// Parses only the document of `text` that holds `offset`: the last one whose content starts
/// at or before it, else (before the first one's content, on a leading `---` line) the first.
/// Editor features that look at the cursor's document alone need not parse the rest of the
/// file. The document is exactly as [`parse_file`] reads it.
pub fn parse_document_at(text: &str, offset: u32) -> Document {
    let mut found = None;
    parse_pieces(
        text,
        |mut pieces| {
            let at = pieces.iter().rposition(|p| p.content_start <= offset).unwrap_or(0);
            pieces.swap(0, at);
            pieces.truncate(1);
            pieces
        },
        |_, d| found = Some(d),
    );
    found.unwrap_or(Document { span: Span::new(0, 0), root: None, error: None, skipped: false })
}

/// Splits `text` into documents and parses those `pick` keeps, handing each to `each`;
/// returns whether the text is templated.
/// [`parse_file`] through the YAML parser alone (tests compare the JSON path with it).
#[cfg(test)]
pub(crate) fn parse_file_as_yaml(text: &str) -> ParsedFile {
    let mut documents = Vec::new();
    let templated =
        parse_pieces_with(text, Readers { json: false, fast: true }, |pieces| pieces, |_, d| documents.push(d));
    ParsedFile { documents, templated }
}

/// [`parse_file`] with libyaml reading every document, the fast reader never: the oracle tests
/// and the `libyaml` fuzz target check that both give the same trees.
#[doc(hidden)]
pub fn parse_file_by_libyaml(text: &str) -> ParsedFile {
    let mut documents = Vec::new();
    let templated =
        parse_pieces_with(text, Readers { json: false, fast: false }, |pieces| pieces, |_, d| documents.push(d));
    ParsedFile { documents, templated }
}

/// Which readers may take a text or a document before libyaml does.
#[derive(Clone, Copy)]
struct Readers {
    json: bool,
    fast: bool,
}

fn parse_pieces(text: &str, pick: impl FnOnce(Vec<Piece>) -> Vec<Piece>, each: impl FnMut(u32, Document)) -> bool {
    parse_pieces_with(text, Readers { json: true, fast: true }, pick, each)
}

fn parse_pieces_with(
    text: &str,
    readers: Readers,
    pick: impl FnOnce(Vec<Piece>) -> Vec<Piece>,
    mut each: impl FnMut(u32, Document),
) -> bool {
    if text.len() >= u32::MAX as usize {
        // Spans are u32 offsets; such a file is not a Kubernetes manifest anyway.
        let error = SyntaxError { span: Span::new(0, 0), message: "file too large to parse (4 GiB or more)".into() };
        each(0, Document { span: Span::new(0, 0), root: None, error: Some(error), skipped: false });
        return false;
    }
    // The byte-order mark is not content; the parser never sees it.
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let templated = template::is_templated(text);
    // A live cluster's objects are JSON texts: read directly, many times faster than the YAML
    // scanner reads flow collections (same tree; see `json.rs`).
    if readers.json
        && bom == 0
        && !templated
        && text.trim_start().starts_with('{')
        && let Some(doc) = super::json::document(text)
    {
        each(0, doc);
        return false;
    }
    let prepared = templated.then(|| template::prepare(text, bom));
    let (src, placeholders, structural) = match &prepared {
        Some(p) => (p.text.as_str(), p.placeholders.as_slice(), p.structural.as_slice()),
        None => (text, &[][..], &[][..]),
    };
    let template = Template { placeholders, structural };
    let mut scratch = Scratch::default();
    for (i, piece) in pick(split_documents(src, bom)).into_iter().enumerate() {
        each(
            u32::try_from(i).unwrap_or(u32::MAX),
            parse_document(text, src, piece, template, templated, readers.fast && !templated, &mut scratch),
        );
    }
    templated
}

/// True when the line holding `at` was changed by template pre-processing (its bounds as in
/// the original: a directive line reads as empty lines once prepared).
fn on_template_line(original: &str, prepared: &str, at: u32) -> bool {
    let (o, p) = (original.as_bytes(), prepared.as_bytes());
    let (start, end) = line_bounds(o, at as usize);
    o.get(start..end) != p.get(start..end)
}

/// The line holding `at`: its start and its end (before the line break).
fn line_bounds(b: &[u8], at: usize) -> (usize, usize) {
    let at = at.min(b.len());
    let start = b[..at].iter().rposition(|&c| c == b'\n' || c == b'\r').map_or(0, |i| i + 1);
    (start, line_end(b, at).0)
}

fn has_text(r: &[u8]) -> bool {
    r.iter().any(|&c| c != b' ' && c != b'\t')
}

/// Byte ranges (relative to the piece) worth blanking after an error at `at`, most promising
/// first, each a set of ranges blanked together: the rest of the error line (or all of it);
/// the line before, since a key still being typed (`  nam`) is reported on the line after it;
/// the line that opened a flow collection never closed. A flow collection opened on an
/// earlier line and still open at the error is tried first together with the error line: an
/// unclosed `[` reads every line after it as flow content, so either alone reads less.
fn recovery_candidates(piece: &[u8], at: usize, open_flow: Option<usize>) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<Vec<(usize, usize)>> = Vec::with_capacity(4);
    let (start, end) = line_bounds(piece, at);
    let at = at.clamp(start, end);
    let mut error_line = None;
    if has_text(&piece[at..end]) && has_text(&piece[start..at]) {
        error_line = Some((at, end));
    } else if has_text(&piece[start..end]) {
        error_line = Some((start, end));
    }
    let flow_line = open_flow.map(|f| (f, line_bounds(piece, f).1)).filter(|&(f, e)| f < e);
    if let (Some(f), Some(l)) = (flow_line, error_line)
        && f.1 < start
    {
        out.push(vec![f, l]);
    }
    out.extend(error_line.map(|l| vec![l]));
    let mut line = start;
    while line > 0 {
        // Step over the previous line break (`\r\n` counts as one).
        let mut p = line - 1;
        if piece[p] == b'\n' && p > 0 && piece[p - 1] == b'\r' {
            p -= 1;
        }
        let (s, e) = line_bounds(piece, p);
        let first = piece[s..e].iter().find(|&&c| c != b' ' && c != b'\t');
        if first.is_some_and(|&c| c != b'#') {
            out.push(vec![(s, e)]);
            break;
        }
        line = s;
    }
    out.extend(flow_line.map(|f| vec![f]));
    let mut unique = Vec::with_capacity(out.len());
    for r in out {
        if !unique.contains(&r) {
            unique.push(r);
        }
    }
    unique
}

/// `text` with the `ranges` replaced by spaces (whole chars by as many spaces: still UTF-8, and
/// every offset unchanged).
fn blanked(text: &str, ranges: &[(usize, usize)]) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for &(from, to) in ranges {
        for c in bytes.get_mut(from..to)? {
            if *c != b'\n' && *c != b'\r' {
                *c = b' ';
            }
        }
    }
    String::from_utf8(bytes).ok()
}

/// What template pre-processing left to know about the file ([`template::Prepared`]).
#[derive(Clone, Copy)]
struct Template<'a> {
    placeholders: &'a [(u32, u32)],
    structural: &'a [u32],
}

fn parse_document(
    original: &str,
    src: &str,
    piece: Piece,
    template: Template<'_>,
    templated: bool,
    fast: bool,
    scratch: &mut Scratch,
) -> Document {
    let span = Span::new(piece.content_start, piece.end);
    let base = piece.start;
    let piece_text = &src[piece.start as usize..piece.end as usize];
    // Only a file's first document may start without `---`: libyaml rejects the others at
    // their first content.
    let bare = piece
        .bare
        .then(|| first_content(src, piece))
        .flatten()
        .filter(|&at| !(templated && on_template_line(original, src, at)));
    let bare = bare.map(|at| SyntaxError { span: Span::new(at, at), message: BARE.into() });
    let stray = piece.stray_end.filter(|&at| !(templated && on_template_line(original, src, at)));
    let bare = bare.or(stray.map(|at| SyntaxError { span: Span::new(at, at), message: STRAY_END.into() }));
    // Most manifests are plain block YAML: read directly, libyaml only for the rest.
    if fast && let Some(root) = fast::read(piece_text, base) {
        return Document { span, root, error: bare, skipped: false };
    }
    let placeholders = (template.placeholders, template.structural);
    let mut best = parse_piece(piece_text, base, placeholders, scratch);
    // A template document broken on a template line, or after a line whose structure the
    // templating hides (`{{- if }}`, `key:{{ … | nindent 4 }}`), cannot be read around its
    // actions: it is skipped and counted, not reported (docs/semantics.md §4.1).
    if templated && let Some((at, _)) = &best.error {
        let at = *at;
        let hidden =
            on_template_line(original, src, at) || template.structural.iter().any(|&l| l >= piece.start && l <= at);
        if hidden {
            return Document { span, root: None, error: None, skipped: true };
        }
    }
    // Only the first error is reported; errors on template lines are artefacts of the
    // templating, not the user's YAML, so the first one elsewhere counts.
    let mut reported: Option<(u32, String)> = None;
    let mut note = |o: &Outcome| {
        if let Some((at, message)) = &o.error
            && reported.is_none()
            && !(templated && on_template_line(original, src, *at))
        {
            reported = Some((*at, message.clone()));
        }
    };
    note(&best);
    // The text that produced `best`, once some of it had to be blanked.
    let mut best_text: Option<String> = None;
    let mut reparses = 0;
    while let Some((at, _)) = &best.error {
        let text = best_text.as_deref().unwrap_or(piece_text);
        let relative = |offset: u32| offset.saturating_sub(base) as usize;
        let candidates = recovery_candidates(text.as_bytes(), relative(*at), best.open_flow.map(relative));
        let mut improved: Option<(String, Outcome)> = None;
        for ranges in candidates {
            if reparses == MAX_REPARSES {
                break;
            }
            reparses += 1;
            let Some(t) = blanked(text, &ranges) else { continue };
            let outcome = parse_piece(&t, base, placeholders, scratch);
            note(&outcome);
            let to_beat = improved.as_ref().map_or(best.score(), |(_, o)| o.score());
            if outcome.score() > to_beat {
                let complete = outcome.error.is_none();
                improved = Some((t, outcome));
                if complete {
                    break;
                }
            }
        }
        match improved {
            Some((t, o)) => {
                best_text = Some(t);
                best = o;
            }
            None => break,
        }
    }
    let syntax = reported.map(|(at, message)| {
        let at = before_trailing_space(src, piece.start, piece.end, at);
        let found = src.get(at as usize..).and_then(|r| r.chars().next()).unwrap_or('\0');
        SyntaxError { span: Span::new(at, at), message: plain_words(&message, found) }
    });
    let depth = best
        .depth_error
        .map(|at| SyntaxError { span: Span::new(at, at), message: format!("nesting deeper than {MAX_DEPTH} levels") });
    let error = match (syntax, depth) {
        (Some(s), Some(d)) => Some(if d.span.start < s.span.start { d } else { s }),
        (s, d) => s.or(d),
    };
    let error = bare.or(error);
    let root = best.root.filter(|n| !is_empty_root(n));
    Document { span, root, error, skipped: false }
}

const BARE: &str = "a document after a `...` line needs a `---` line to start it";
const STRAY_END: &str = "a `...` line before the first document, which ends nothing (remove it)";

/// Where the first content of a piece is (not a blank or comment line).
fn first_content(src: &str, piece: Piece) -> Option<u32> {
    let b = src.as_bytes();
    let mut line = piece.content_start as usize;
    while line < piece.end as usize {
        let (eol, next) = line_end(b, line);
        if let Some(i) = b[line..eol].iter().position(|&c| c != b' ' && c != b'\t')
            && b[line + i] != b'#'
        {
            return Some((line + i) as u32);
        }
        line = next;
    }
    None
}

/// An error the parser meets at the end of the text (an unclosed bracket or quote) is put
/// right after the last thing written, not on the empty line after the final newline, which
/// is past the end of the file as people count lines.
fn before_trailing_space(src: &str, start: u32, end: u32, at: u32) -> u32 {
    let (s, e) = (start as usize, (end as usize).min(src.len()));
    let at_us = (at as usize).clamp(s, e);
    if !src.get(at_us..e).is_some_and(|rest| rest.trim().is_empty()) {
        return at;
    }
    match src.get(s..at_us) {
        Some(before) => start + before.trim_end().len() as u32,
        None => at,
    }
}

/// libyaml's message (`context, problem`) in the words of someone editing Kubernetes YAML;
/// `found` is the character where it stopped. Messages not listed are kept as they are.
pub(crate) fn plain_words(message: &str, found: char) -> String {
    let plain = match message {
        "while scanning a simple key, could not find expected ':'" => "a key without `:` after it (write `key: value`)",
        "while parsing a block mapping, did not find expected key" => {
            "bad indentation: this line does not line up with the keys around it"
        }
        "while parsing a block collection, did not find expected '-' indicator" => {
            "bad indentation: a list item is not lined up with the `-` of the items before it"
        }
        "while parsing a block node, did not find expected node content"
        | "while parsing a flow node, did not find expected node content"
        | "while parsing a node, did not find expected node content" => {
            "a value is missing or unfinished (an unclosed `[`, `{` or quote?)"
        }
        "mapping values are not allowed in this context" => {
            "a `:` where a plain value was expected (quote the value, or start the mapping on a new line)"
        }
        "block sequence entries are not allowed in this context" => {
            "a `-` list item where a value was expected (put the list on its own lines, indented)"
        }
        "while parsing a flow sequence, did not find expected ',' or ']'" => "an unclosed `[`: expected `,` or `]`",
        "while parsing a flow mapping, did not find expected ',' or '}'" => "an unclosed `{`: expected `,` or `}`",
        "while scanning a quoted scalar, found unexpected end of stream" => "an unclosed quote",
        "while scanning a quoted scalar, found unexpected document indicator" => {
            "an unclosed quote (a `---` or `...` line came before its end)"
        }
        "while scanning for the next token, found character that cannot start any token" if found == '\t' => {
            "a tab where YAML needs spaces (indent with spaces only)"
        }
        "while scanning for the next token, found character that cannot start any token" => {
            return cannot_start(found);
        }
        "while scanning a plain scalar, found a tab character that violates indentation"
        | "while scanning a block scalar, found a tab character where an indentation space is expected" => {
            "a tab where YAML needs spaces (indent with spaces only)"
        }
        "control characters are not allowed" => "a control character, which YAML does not allow in a file",
        _ => return message.to_owned(),
    };
    plain.to_owned()
}

/// The words for a character no YAML token starts with, naming it (`@` and `` ` `` are YAML's
/// reserved indicators).
fn cannot_start(found: char) -> String {
    let shown = match found {
        '`' => "`` ` ``".to_owned(),
        c if c.is_control() => format!("the control character U+{:04X}", u32::from(c)),
        c => format!("`{c}`"),
    };
    let why = match found {
        '@' | '`' => " (reserved in YAML)",
        _ => "",
    };
    format!("{shown} cannot start a value here{why}: quote the value")
}

/// Null documents (`~`, nothing, comments only) have no root.
fn is_empty_root(n: &Node) -> bool {
    matches!(n.kind, NodeKind::Scalar(_) | NodeKind::Missing) && n.is_null()
}
