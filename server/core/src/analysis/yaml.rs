//! An effective spec as block YAML, each leaf with a note naming the policy that supplied it
//! and the strategy that let it win. The one renderer of effective specs: the hover writes the
//! notes as comments after each leaf (`timeout: 10s  # shop/a · AtomicDefaults`), `explain`
//! aligns and dims them. Strings YAML 1.1 or 1.2 would read as another type (`on`, `yes`,
//! `1e3`) are quoted.

use serde_json::Value;

use crate::analysis::scalar::looks_typed;

/// One line of the rendering and the note of its leaf, if it is one.
pub type Line = (String, Option<String>);

/// `value` as block YAML lines; `leaf_note` gives the note for a JSON pointer that is a leaf
/// (a scalar, a whole list, an empty mapping), `None` elsewhere.
pub fn lines(value: &Value, leaf_note: &dyn Fn(&str) -> Option<String>) -> Vec<Line> {
    lines_within(value, usize::MAX, leaf_note)
}

/// [`lines`], with a leaf collection whose one-line form would pass `width` characters written
/// as a block below its key instead (its note on the key's line): a terminal's lines stay short.
pub fn lines_within(value: &Value, width: usize, leaf_note: &dyn Fn(&str) -> Option<String>) -> Vec<Line> {
    let mut out = Out { width, ..Out::default() };
    match value {
        Value::Object(m) if !m.is_empty() => mapping(&mut out, m, 0, "", leaf_note),
        other => {
            out.push_str(&inline(other));
            out.end_line(leaf_note(""));
        }
    }
    out.lines
}

/// [`lines`] with each note as a comment after its leaf.
pub fn render(value: &Value, leaf_note: &dyn Fn(&str) -> Option<String>) -> String {
    let mut text = String::new();
    for (line, note) in lines(value, leaf_note) {
        text.push_str(&line);
        if let Some(n) = note {
            text.push_str("  # ");
            text.push_str(&n);
        }
        text.push('\n');
    }
    text
}

/// Lines as they are written: the current one, and those finished.
#[derive(Default)]
struct Out {
    lines: Vec<Line>,
    current: String,
    /// Lines longer than this write their collection as a block (see [`lines_within`]).
    width: usize,
}

impl Out {
    fn push_str(&mut self, s: &str) {
        self.current.push_str(s);
    }

    fn end_line(&mut self, note: Option<String>) {
        self.lines.push((std::mem::take(&mut self.current), note));
    }

    /// Whether the current line is a list item's dash so far.
    fn after_dash(&self) -> bool {
        self.current.ends_with("- ")
    }

    /// Whether `v` written after the current line (and `gap`), then its note as a comment,
    /// fits the width, or cannot be broken (a scalar, an empty collection).
    fn fits(&self, v: &Value, gap: usize, inline: &str, note: Option<&str>) -> bool {
        let breakable = matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty());
        let note = note.map_or(0, |n| n.chars().count() + 4);
        !breakable || self.current.chars().count() + gap + inline.chars().count() + note <= self.width
    }

    /// `v` as a block at `indent` (its keys' or dashes' column), its leaves without notes,
    /// and `note` on the first line written. Continues a `- ` already on the current line.
    fn block(&mut self, v: &Value, indent: usize, note: Option<String>) {
        let first = self.lines.len();
        match v {
            Value::Object(m) => mapping(self, m, indent, "", &|_| None),
            Value::Array(items) => {
                for item in items {
                    if !self.after_dash() {
                        self.push_str(&" ".repeat(indent));
                    }
                    self.push_str("- ");
                    let text = inline(item);
                    if self.fits(item, 0, &text, None) {
                        self.push_str(&text);
                        self.end_line(None);
                    } else {
                        self.block(item, indent + 2, None);
                    }
                }
            }
            other => {
                self.push_str(&inline(other));
                self.end_line(None);
            }
        }
        if let Some(line) = self.lines.get_mut(first) {
            line.1 = line.1.take().or(note);
        }
    }
}

fn mapping(
    out: &mut Out,
    m: &serde_json::Map<String, Value>,
    indent: usize,
    pointer: &str,
    leaf_note: &dyn Fn(&str) -> Option<String>,
) {
    // The first line of a list item's mapping follows its `- ` instead of an indent.
    let mut first_pad = out.after_dash();
    for (k, v) in m {
        if !first_pad {
            out.push_str(&" ".repeat(indent));
        }
        first_pad = false;
        let p = format!("{pointer}/{}", escape(k));
        out.push_str(&key(k));
        out.push_str(":");
        value_after_key(out, v, indent, &p, leaf_note);
    }
}

/// Writes what follows `key:`: an inline leaf with its note, or a nested block.
fn value_after_key(out: &mut Out, v: &Value, indent: usize, p: &str, leaf_note: &dyn Fn(&str) -> Option<String>) {
    let n = leaf_note(p);
    match v {
        Value::Object(child) if !child.is_empty() && n.is_none() => {
            out.end_line(None);
            mapping(out, child, indent + 2, p, leaf_note);
        }
        // A list merged by keys: its items have their own leaves.
        Value::Array(items) if !items.is_empty() && n.is_none() => {
            out.end_line(None);
            for (i, item) in items.iter().enumerate() {
                let ip = format!("{p}/{i}");
                out.push_str(&" ".repeat(indent));
                out.push_str("- ");
                match item {
                    Value::Object(m) if !m.is_empty() && leaf_note(&ip).is_none() => {
                        mapping(out, m, indent + 2, &ip, leaf_note)
                    }
                    other => {
                        let (text, note) = (inline(other), leaf_note(&ip));
                        if out.fits(other, 0, &text, note.as_deref()) {
                            out.push_str(&text);
                            out.end_line(note);
                        } else {
                            out.block(other, indent + 2, note);
                        }
                    }
                }
            }
        }
        other => {
            let text = inline(other);
            if out.fits(other, 1, &text, n.as_deref()) {
                out.push_str(" ");
                out.push_str(&text);
                out.end_line(n);
            } else {
                out.end_line(n);
                // Under a key, a mapping is indented and a sequence's dashes are not.
                out.block(other, if other.is_object() { indent + 2 } else { indent }, None);
            }
        }
    }
}

/// A value on one line: scalars as YAML, collections in flow style.
fn inline(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar(s),
        Value::Array(items) => format!("[{}]", items.iter().map(inline).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let parts: Vec<String> = m.iter().map(|(k, v)| format!("{}: {}", key(k), inline(v))).collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// Keys are shown plain whenever their characters allow (a key `on` is a string to the
/// Kubernetes decoder).
fn key(k: &str) -> String {
    if plain_safe(k) { k.to_owned() } else { quoted(k) }
}

/// A string as a plain scalar when that reads back as the same string, else double-quoted.
fn scalar(s: &str) -> String {
    if plain_safe(s) && !looks_typed(s) { s.to_owned() } else { quoted(s) }
}

fn plain_safe(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '/' || c == '.')
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// A JSON pointer token.
fn escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_with_leaf_notes() {
        let v = serde_json::json!({
            "timeout": "10s",
            "retry": {"attempts": 3, "on": ["5xx", "reset"]},
            "rules": [{"name": "a", "x": true}],
            "empty": {},
            "odd key": "true",
            "flags": ["on", "yes", "off-peak", "1e3"]
        });
        let note = |p: &str| match p {
            "/timeout" => Some("infra/gw · AtomicDefaults".to_owned()),
            "/retry/attempts" | "/retry/on" | "/empty" | "/odd key" | "/flags" => {
                Some("shop/r · PatchDefaults".to_owned())
            }
            "/rules/0/name" | "/rules/0/x" => Some("shop/r · Custom".to_owned()),
            _ => None,
        };
        let got = render(&v, &note);
        let expect = "timeout: 10s  # infra/gw · AtomicDefaults
retry:
  attempts: 3  # shop/r · PatchDefaults
  on: [5xx, reset]  # shop/r · PatchDefaults
rules:
- name: a  # shop/r · Custom
  x: true  # shop/r · Custom
empty: {}  # shop/r · PatchDefaults
\"odd key\": \"true\"  # shop/r · PatchDefaults
flags: [\"on\", \"yes\", off-peak, \"1e3\"]  # shop/r · PatchDefaults
";
        assert_eq!(got, expect);
    }

    #[test]
    fn long_collections_break_into_blocks_within_a_width() {
        let v = serde_json::json!({
            "limits": {"per-ip": {"rates": [{"limit": 600, "window": "1m"}], "counters": [{"expression": "source.address"}]}},
            "short": {"a": 1},
            "hosts": [["a.example.com", "b.example.com", "c.example.com"], "d"]
        });
        let note = |p: &str| match p {
            "/limits/per-ip" | "/short" => Some("infra/rl · Custom".to_owned()),
            _ => None,
        };
        let got: Vec<String> = lines_within(&v, 40, &note)
            .into_iter()
            .map(|(l, n)| n.map_or(l.clone(), |n| format!("{l}  # {n}")))
            .collect();
        let expect = [
            "limits:",
            "  per-ip:  # infra/rl · Custom",
            "    rates:",
            "    - limit: 600",
            "      window: 1m",
            "    counters:",
            "    - expression: source.address",
            "short: {a: 1}  # infra/rl · Custom",
            "hosts:",
            "- - a.example.com",
            "  - b.example.com",
            "  - c.example.com",
            "- d",
        ];
        assert_eq!(got, expect);
        // Without a width nothing breaks.
        assert_eq!(lines(&v, &note).len(), 6);
    }
}
