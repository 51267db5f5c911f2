//! The YAML parser front: splits a file into documents and builds span-carrying trees from
//! saphyr-parser events.
//!
//! - Each document is parsed on its own ([`split`]), so one broken document never hides the
//!   others.
//! - After a syntax error the offending line (from the error onwards, then whole) is blanked
//!   and the document re-parsed, a few times, so keys after the break are read too. Blanking
//!   replaces bytes with spaces, so offsets never move.
//! - Templated files are rewritten first ([`template`]), byte for byte.
//! - saphyr reports char indices; all spans here are byte offsets into the original text.

mod builder;
mod split;
mod template;
#[cfg(test)]
mod tests;

use builder::{MAX_DEPTH, Outcome, parse_piece};
use split::{Piece, line_end, split_documents};

use super::{Document, Node, NodeKind, ParsedFile, Span, SyntaxError};

/// Re-parses of a broken document after blanking what broke it.
const MAX_RECOVERIES: usize = 3;

pub fn parse_file(text: &str) -> ParsedFile {
    // The byte-order mark is not content; the parser never sees it.
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let templated = text.contains("{{");
    let prepared = templated.then(|| template::prepare(text));
    let (src, placeholders) = match &prepared {
        Some(p) => (p.text.as_str(), p.placeholders.as_slice()),
        None => (text, &[][..]),
    };
    let documents = split_documents(src, bom)
        .into_iter()
        .map(|piece| parse_document(text, src, piece, placeholders, templated))
        .collect();
    ParsedFile { documents, templated }
}

/// True when the line holding `at` was changed by template pre-processing.
fn on_template_line(original: &str, prepared: &str, at: u32) -> bool {
    let (o, p) = (original.as_bytes(), prepared.as_bytes());
    let at = (at as usize).min(p.len());
    let start = p[..at].iter().rposition(|&c| c == b'\n' || c == b'\r').map_or(0, |i| i + 1);
    let end = line_end(p, at).0;
    o.get(start..end) != p.get(start..end)
}

/// The bytes (relative to the piece) to blank after an error at `at` (also relative): the rest
/// of the line from the error, or the whole line when that is already blank. `None` when
/// nothing is left to blank there.
fn blank_range(piece: &[u8], at: usize) -> Option<(usize, usize)> {
    let at = at.min(piece.len());
    let start = piece[..at].iter().rposition(|&c| c == b'\n' || c == b'\r').map_or(0, |i| i + 1);
    let end = line_end(piece, at).0;
    let solid = |r: &[u8]| r.iter().any(|&c| c != b' ' && c != b'\t');
    if solid(&piece[at..end]) && solid(&piece[start..at]) {
        Some((at, end))
    } else if solid(&piece[start..end]) {
        Some((start, end))
    } else {
        None
    }
}

fn parse_document(original: &str, src: &str, piece: Piece, placeholders: &[(u32, u32)], templated: bool) -> Document {
    let span = Span::new(piece.content_start, piece.end);
    let base = piece.start;
    let original_piece = &src[piece.start as usize..piece.end as usize];
    // A copy of the piece is made only once a line has to be blanked.
    let mut blanked: Option<String> = None;
    let mut best: Option<Outcome> = None;
    let mut reported: Option<(u32, String)> = None;
    for attempt in 0..=MAX_RECOVERIES {
        let text = blanked.as_deref().unwrap_or(original_piece);
        let outcome = parse_piece(text, base, placeholders);
        let error = outcome.error.clone();
        if best.as_ref().is_none_or(|b| outcome.reach() >= b.reach()) {
            best = Some(outcome);
        }
        let Some((at, message)) = error else { break };
        // Errors on template lines are artefacts of the templating, not the user's YAML.
        if reported.is_none() && !(templated && on_template_line(original, src, at)) {
            reported = Some((at, message));
        }
        if attempt == MAX_RECOVERIES {
            break;
        }
        let Some((from, to)) = blank_range(text.as_bytes(), (at - base) as usize) else { break };
        let mut bytes = text.as_bytes().to_vec();
        for c in &mut bytes[from..to] {
            *c = b' ';
        }
        // Whole chars were replaced by as many spaces, so this stays UTF-8.
        match String::from_utf8(bytes) {
            Ok(s) => blanked = Some(s),
            Err(_) => break,
        }
    }
    let Some(best) = best else {
        return Document { span, root: None, error: None };
    };
    let syntax = reported.map(|(at, message)| SyntaxError { span: Span::new(at, at), message });
    let depth = best.depth_error.map(|at| SyntaxError {
        span: Span::new(at, at),
        message: format!("nesting deeper than {MAX_DEPTH} levels"),
    });
    let error = match (syntax, depth) {
        (Some(s), Some(d)) => Some(if d.span.start < s.span.start { d } else { s }),
        (s, d) => s.or(d),
    };
    let root = best.root.filter(|n| !is_empty_root(n));
    Document { span, root, error }
}

/// Null documents (`~`, nothing, comments only) have no root.
fn is_empty_root(n: &Node) -> bool {
    matches!(n.kind, NodeKind::Scalar(_) | NodeKind::Missing) && n.is_null()
}
