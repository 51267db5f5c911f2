//! Scalar text helpers for edits: quoting, and whether plain text would read as a string.

use crate::syntax::Span;

/// Would a plain scalar with this text read as something other than a string, under YAML 1.2
/// or the YAML 1.1 rules many Kubernetes tools still apply (`on`, `yes`, `0x1f`, `1e3`)?
pub(crate) fn looks_typed(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "" | "~" | "null" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | ".inf" | "-.inf" | ".nan"
    ) {
        return true;
    }
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let hex = body.strip_prefix("0x").is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
    let oct = body.strip_prefix("0o").is_some_and(|o| !o.is_empty() && o.chars().all(|c| c.is_digit(8)));
    let digits = !body.is_empty() && body.chars().all(|c| c.is_ascii_digit() || c == '_');
    let float = body.chars().any(|c| c.is_ascii_digit())
        && body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+' | '_'))
        && body.replace('_', "").parse::<f64>().is_ok_and(f64::is_finite);
    hex || oct || digits || float
}

/// The span inside the quotes of a quoted scalar written at `span` (`"edge"` → `edge`), or
/// `span` itself when it is not quoted.
pub(crate) fn inner(text: &str, span: Span) -> Span {
    let s = text.get(span.start as usize..span.end as usize).unwrap_or("");
    let b = s.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'"' | b'\'') && b[b.len() - 1] == b[0] {
        Span::new(span.start + 1, span.end - 1)
    } else {
        span
    }
}

/// The text that writes `name` at `span`: bare inside existing quotes, quoted where a plain
/// scalar would not read back as a string.
pub(crate) fn replacement(text: &str, span: Span, name: &str) -> (Span, String) {
    let i = inner(text, span);
    if i != span {
        return (i, name.to_owned());
    }
    if looks_typed(name) { (span, format!("\"{name}\"")) } else { (span, name.to_owned()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_that_need_quotes() {
        for s in ["123", "1e3", "1.5", "on", "No", "0x1f", "0o17", "", "null", "1_000"] {
            assert!(looks_typed(s), "{s}");
        }
        for s in ["edge", "v1", "1-2", "0xzz", "e1", "checkout-1", "a.b"] {
            assert!(!looks_typed(s), "{s}");
        }
        let t = "name: \"edge\"";
        assert_eq!(inner(t, Span::new(6, 12)), Span::new(7, 11));
        assert_eq!(replacement(t, Span::new(6, 12), "x"), (Span::new(7, 11), "x".to_owned()));
        assert_eq!(replacement("name: edge", Span::new(6, 10), "443"), (Span::new(6, 10), "\"443\"".to_owned()));
    }
}
