//! `# policylens: ignore[code, ...]` comments: found when a file is parsed, applied to its
//! diagnostics by the analysis.
//!
//! At the end of a line a comment covers that line; on a line of its own, the next line;
//! `# policylens: ignore-file[...]` anywhere covers the file.

use crate::syntax::Span;

/// What an ignore comment covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuppressionScope {
    /// Diagnostics starting on this (0-based) line.
    Line(u32),
    /// The whole file.
    File,
}

/// One `# policylens: ignore[code, ...]` (or `ignore-file[...]`) comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    /// The comment's span (for `unused-suppression` and errors in it).
    pub span: Span,
    pub scope: SuppressionScope,
    /// The codes named, with their spans; empty for a bare `ignore` (which is rejected).
    pub codes: Vec<(String, Span)>,
}

const MARKER: &str = "policylens:";

/// Every ignore comment of `text`. Cheap when there is none (one substring search).
pub(crate) fn scan(text: &str) -> Vec<Suppression> {
    let mut out = Vec::new();
    if !text.contains(MARKER) {
        return out;
    }
    let mut offset = 0usize;
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let Some(at) = line.find(MARKER) else { continue };
        // A YAML comment: `#` then optional spaces right before the marker, at the line start or
        // after a space (a `#` inside a scalar is not a comment).
        let before = line[..at].trim_end_matches(' ');
        let Some(hash) = before.strip_suffix('#') else { continue };
        if !(hash.is_empty() || hash.ends_with([' ', '\t'])) {
            continue;
        }
        let own_line = hash.trim().is_empty();
        let comment_start = start + hash.len();
        let rest = &line[at + MARKER.len()..];
        let body = rest.trim_start();
        let body_start = start + at + MARKER.len() + (rest.len() - body.len());
        let (file_wide, args) = if let Some(a) = body.strip_prefix("ignore-file") {
            (true, a)
        } else if let Some(a) = body.strip_prefix("ignore") {
            (false, a)
        } else {
            continue;
        };
        let args_start = body_start + (body.len() - args.len());
        let mut codes = Vec::new();
        if let Some(inner) = args.strip_prefix('[') {
            let close = inner.find(']').unwrap_or(inner.len());
            let mut at = args_start + 1;
            for part in inner[..close].split(',') {
                let code = part.trim();
                let lead = part.len() - part.trim_start().len();
                if !code.is_empty() {
                    let s = (at + lead) as u32;
                    codes.push((code.to_owned(), Span::new(s, s + code.len() as u32)));
                }
                at += part.len() + 1;
            }
        }
        let end = (start + line.trim_end_matches(['\n', '\r']).len()) as u32;
        let line_no = line_no as u32;
        let scope = match (file_wide, own_line) {
            (true, _) => SuppressionScope::File,
            (false, true) => SuppressionScope::Line(line_no + 1),
            (false, false) => SuppressionScope::Line(line_no),
        };
        out.push(Suppression { span: Span::new(comment_start as u32, end), scope, codes });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(s: &Suppression, text: &str) -> Vec<String> {
        s.codes.iter().map(|(c, sp)| format!("{c}@{}", &text[sp.start as usize..sp.end as usize])).collect()
    }

    #[test]
    fn suppress_comments_cover_their_line_the_next_line_or_the_file() {
        let text = "a: 1 # policylens: ignore[target-not-found]\n  # policylens: ignore[conflicted, overridden]\nb: 2\n# policylens: ignore-file[duplicate-object]\nc: \"# policylens: ignore[x]\"\n";
        let s = scan(text);
        assert_eq!(s.len(), 3, "{s:?}");
        assert_eq!(s[0].scope, SuppressionScope::Line(0));
        assert_eq!(codes(&s[0], text), ["target-not-found@target-not-found"]);
        assert_eq!(&text[s[0].span.start as usize..s[0].span.end as usize], "# policylens: ignore[target-not-found]");
        assert_eq!(s[1].scope, SuppressionScope::Line(2));
        assert_eq!(codes(&s[1], text), ["conflicted@conflicted", "overridden@overridden"]);
        assert_eq!(s[2].scope, SuppressionScope::File);
    }

    #[test]
    fn a_bare_ignore_names_no_code() {
        let s = scan("x: 1  # policylens: ignore\n");
        assert_eq!(s.len(), 1);
        assert!(s[0].codes.is_empty());
    }
}
