//! Template pre-processing (Helm `{{ … }}`, Hugo `{{< … >}}`, Jinja `{% … %}` and `{{ … }}`):
//! the file is rewritten, byte for byte, into something the YAML parser can read, so every
//! offset stays that of the original (docs/semantics.md §4.1).

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

/// Whether a file holds template actions: Go templates (Helm, Hugo) and Jinja both write
/// `{{ … }}`; Jinja's statements are `{% … %}`, which no YAML value can start with either.
pub fn is_templated(text: &str) -> bool {
    text.contains("{{") || text.contains("{%")
}

/// The first of `wanted` (two-byte delimiters) at or after `from`.
fn next_of(b: &[u8], from: usize, wanted: &[&[u8; 2]]) -> Option<usize> {
    let rest = b.get(from..)?;
    rest.windows(2).position(|w| wanted.iter().any(|d| w == *d)).map(|i| from + i)
}

/// Byte ranges of the template actions, `{{` through `}}` and `{%` through `%}`. An action
/// left open (the user is typing it, or another opening comes first) ends at its line's end.
/// Linear: each search stops at the next opening or the action's own closing (Hugo's
/// `{{% tab %}}` holds a `%}` inside its `}}`).
fn find_actions(b: &[u8]) -> Vec<(usize, usize)> {
    let mut actions = Vec::new();
    let mut i = 0;
    while let Some(s) = next_of(b, i, &[b"{{", b"}}", b"{%", b"%}"]) {
        if b[s + 1] == b'}' {
            // A stray `}}` or `%}`: plain text.
            i = s + 2;
            continue;
        }
        let closer: &[u8; 2] = if b[s + 1] == b'%' { b"%}" } else { b"}}" };
        let e = match next_of(b, s + 2, &[closer, b"{{", b"{%"]) {
            Some(c) if b[c..].starts_with(closer) => c + 2,
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

/// Whether the action `s..e` on the line starting at `line` writes the block of the key before
/// it: it follows `key:` and ends the line, and either its output starts on a line of its own
/// (`nindent`) or the lines after it are indented deeper than the key (the rest of the block).
/// Read as a scalar, the action would leave those lines no key to belong to.
fn opens_block(b: &[u8], line: usize, s: usize, e: usize, eol: usize) -> bool {
    let before = &b[line..s];
    let after_key = before.iter().rposition(|&c| c != b' ' && c != b'\t').is_some_and(|i| before[i] == b':');
    if !after_key || b[e..eol].iter().any(|c| !c.is_ascii_whitespace()) {
        return false;
    }
    if b[s..e].windows(7).any(|w| w == b"nindent") {
        return true;
    }
    // The key's column: where the word before its `:` starts (`- name:` is at the name).
    let colon = line + before.iter().rposition(|&c| c == b':').unwrap_or(0);
    let key_start = b[line..colon].iter().rposition(|&c| c == b' ' || c == b'\t').map_or(line, |i| line + i + 1);
    let key_indent = key_start - line;
    // The next line with content, skipping blank and comment lines.
    let mut next = super::split::line_end(b, line).1;
    while next < b.len() {
        let (end, after) = super::split::line_end(b, next);
        let text = &b[next..end];
        match text.iter().position(|&c| c != b' ') {
            Some(i) if text[i] != b'#' => return i > key_indent,
            _ => next = after,
        }
    }
    false
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
                    if s >= line && e <= eol && !(s > line && src[s - 1] == b':') && !opens_block(src, line, s, e, eol)
                    {
                        blank(&mut out, s, e, PLACEHOLDER);
                        placeholders.push((s as u32, e as u32));
                    } else {
                        // A multi-line action cannot become one scalar: drop its part here.
                        // Right after a key's `:` an action writes the value's block
                        // (`key:{{ toYaml .x | nindent 4 }}`, `labels: {{ include "x" . |
                        // nindent 4 }}` and the lines it leads): the key reads as one without.
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
