//! Compiler-style text: `path:line:col: severity[code]: message`, the source line and a caret
//! underline. Lines and columns are 1-based, columns in characters.

use std::fmt::Write;

use policylens_core::analysis::diagnostics::{Diagnostic, Severity, Suppressed};
use policylens_core::syntax::PositionEncoding;
use policylens_core::workspace::Snapshot;

use super::Summary;
use crate::style::Style;

pub fn render(
    snap: &Snapshot,
    diags: &[&Diagnostic],
    suppressed: &[&Suppressed],
    summary: &Summary,
    st: Style,
) -> String {
    let mut out = String::new();
    let shown =
        diags.iter().map(|d| (*d, None)).chain(suppressed.iter().map(|s| (&s.diagnostic, Some(&s.justification))));
    for (d, justification) in shown {
        let sev = d.severity.as_str();
        let Some(f) = snap.source(&d.file) else { continue };
        let start = f.position(d.span.start, PositionEncoding::Utf32);
        let end = f.position(d.span.end, PositionEncoding::Utf32);
        let _ = writeln!(
            out,
            "{}: {}: {}",
            st.bold(&format!("{}:{}:{}", d.file, start.line + 1, start.character + 1)),
            st.severity(sev, &format!("{sev}[{}]", d.code.as_str())),
            st.bold(&d.message)
        );
        if let Some(j) = justification {
            let _ = writeln!(out, "  {} suppressed by `{j}`", st.dim("= note:"));
        }
        let line_span = f.line_index().line_span(f.text(), start.line);
        let line_text = f.slice(line_span).replace('\t', " ");
        if !line_text.trim().is_empty() {
            let num = (start.line + 1).to_string();
            let pad = " ".repeat(num.len());
            // A span over several lines is underlined to the end of its first line.
            let line_end = line_text.chars().count() as u32;
            let end_col = if end.line == start.line { end.character } else { line_end };
            let width = end_col.saturating_sub(start.character).max(1);
            let _ = writeln!(out, "{pad} {}", st.dim("|"));
            let _ = writeln!(out, "{} {} {line_text}", st.dim(&num), st.dim("|"));
            let _ = writeln!(
                out,
                "{pad} {} {}{}",
                st.dim("|"),
                " ".repeat(start.character as usize),
                st.underline_color(sev, &"^".repeat(width as usize))
            );
        }
        for r in &d.related {
            let pos = snap.source(&r.file).map(|rf| rf.position(r.span.start, PositionEncoding::Utf32));
            let at = pos.map_or(r.file.to_string(), |p| format!("{}:{}:{}", r.file, p.line + 1, p.character + 1));
            let _ = writeln!(out, "  {} {at}: {}", st.dim("= note:"), r.message);
        }
        out.push('\n');
    }
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let (e, w, i) = (count(Severity::Error), count(Severity::Warning), count(Severity::Information));
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let head = if diags.is_empty() {
        "no problems".to_owned()
    } else {
        format!("{}, {}, {}", plural(e, "error"), plural(w, "warning"), plural(i, "note"))
    };
    let mut suppressed_note = match summary.suppressed {
        0 => String::new(),
        n => format!(", {n} suppressed"),
    };
    if summary.skipped_templates > 0 {
        let n = summary.skipped_templates;
        suppressed_note += &format!(", {} not read around their template actions", plural(n, "template document"));
    }
    let _ = writeln!(
        out,
        "{}{suppressed_note} in {} ({}, {}, {}) in {:.0} ms",
        if e > 0 { st.severity("error", &head) } else { st.bold(&head) },
        plural(summary.files, "file"),
        plural(summary.documents, "document"),
        plural(summary.objects, "object"),
        plural(summary.policies, "policy").replace("policys", "policies"),
        summary.elapsed_ms
    );
    out
}
