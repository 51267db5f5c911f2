//! Template pre-processing (Helm `{{ … }}`, Hugo `{{< … >}}`): the file is rewritten, byte for
//! byte, into something the YAML parser can read, so every offset stays that of the original.

use super::split::line_end;

/// Stands in for an inline template action. Valid anywhere in a plain or quoted scalar, and
/// not a character of Kubernetes names, so a placeholder never resolves to a real object.
const PLACEHOLDER: u8 = b'_';

pub(super) struct Prepared {
    /// The text with template-only lines blanked and inline actions replaced by placeholders;
    /// same length, same line breaks as the original.
    pub text: String,
    /// Byte ranges of the placeholders, sorted and disjoint.
    pub placeholders: Vec<(u32, u32)>,
    /// Starts of the lines whose structure the templating hides (a line of actions only, an
    /// action that runs over lines, `key:{{ … | nindent 4 }}`), in order: an error after one
    /// may be the template's, not the YAML's.
    pub structural: Vec<u32>,
}

/// The first `{{` or `}}` at or after `from`.
fn next_brace_pair(b: &[u8], from: usize) -> Option<usize> {
    let rest = b.get(from..)?;
    rest.windows(2).position(|w| w == b"{{" || w == b"}}").map(|i| from + i)
}

/// Byte ranges of the template actions, `{{` through `}}`. An action left open (the user is
/// typing it, or another `{{` comes first) ends at its line's end. Linear: each search stops
/// at the next `{{` or `}}`.
fn find_actions(b: &[u8]) -> Vec<(usize, usize)> {
    let mut actions = Vec::new();
    let mut i = 0;
    while let Some(s) = next_brace_pair(b, i) {
        if b[s] == b'}' {
            // A stray `}}`: plain text.
            i = s + 2;
            continue;
        }
        let e = match next_brace_pair(b, s + 2) {
            Some(c) if b[c] == b'}' => c + 2,
            other => {
                let eol = line_end(b, s).0;
                other.map_or(eol, |r| r.min(eol)).max(s + 2)
            }
        };
        actions.push((s, e));
        i = e;
    }
    actions
}

fn blank(out: &mut [u8], from: usize, to: usize, with: u8) {
    for c in &mut out[from..to] {
        if *c != b'\n' && *c != b'\r' {
            *c = with;
        }
    }
}

/// Rewrites `text` from `from` (past a byte-order mark).
pub(super) fn prepare(text: &str, from: usize) -> Prepared {
    let src = text.as_bytes();
    let actions = find_actions(src);
    let mut out = src.to_vec();
    let mut placeholders = Vec::new();
    let mut structural = Vec::new();
    let mut first = 0; // first action that may reach the current line
    let mut line = from;
    while line < src.len() && first < actions.len() {
        let (eol, next) = line_end(src, line);
        while first < actions.len() && actions[first].1 <= line {
            first += 1;
        }
        // Actions touching this line, and whether anything else is on it.
        let mut last = first;
        let mut pos = line;
        let mut only_actions = true;
        while last < actions.len() && actions[last].0 <= eol && actions[last].1 > line {
            let (s, e) = actions[last];
            if s > pos && src[pos..s.min(eol)].iter().any(|c| !c.is_ascii_whitespace()) {
                only_actions = false;
            }
            pos = pos.max(e);
            last += 1;
        }
        if pos < eol && src[pos..eol].iter().any(|c| !c.is_ascii_whitespace()) {
            only_actions = false;
        }
        if last > first {
            if only_actions {
                // A directive line (`{{- if … }}`, `{{ include … | nindent 4 }}`) reads as
                // empty lines: spaces would count as indentation where it is measured (a
                // block scalar's first lines), and a directive at column 0 inside a block
                // scalar would end it if it were anything but empty.
                blank(&mut out, line, eol, b'\n');
                structural.push(line as u32);
            } else {
                for &(s, e) in &actions[first..last] {
                    if s >= line && e <= eol && !(s > line && src[s - 1] == b':') {
                        blank(&mut out, s, e, PLACEHOLDER);
                        placeholders.push((s as u32, e as u32));
                    } else {
                        // A multi-line action cannot become one scalar: drop its part here.
                        // Right after a key's `:` an action writes the value's block
                        // (`key:{{ toYaml .x | nindent 4 }}`): the key reads as one without.
                        blank(&mut out, s.max(line), e.min(eol), b' ');
                        if structural.last() != Some(&(line as u32)) {
                            structural.push(line as u32);
                        }
                    }
                }
            }
        }
        line = next;
    }
    match String::from_utf8(out) {
        Ok(text) => Prepared { text, placeholders, structural },
        // Unreachable (only whole ASCII-delimited ranges are rewritten), but never fail.
        Err(_) => Prepared { text: text.to_owned(), placeholders: Vec::new(), structural: Vec::new() },
    }
}
