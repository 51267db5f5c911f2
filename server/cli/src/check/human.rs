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
    // A related location: `file:line:col`, or the cluster object.
    let at = |file: &str, span: policylens_core::syntax::Span| match super::cluster_object(snap, file) {
        Some(object) => format!("cluster: {object}"),
        None => snap
            .source(file)
            .map(|f| f.position(span.start, PositionEncoding::Utf32))
            .map_or(file.to_owned(), |p| format!("{file}:{}:{}", p.line + 1, p.character + 1)),
    };
    for (d, justification) in shown {
        let sev = d.severity.as_str();
        // A live cluster's object has no lines to show: it is named.
        if let Some(object) = super::cluster_object(snap, &d.file) {
            let _ = writeln!(
                out,
                "{}: {}: {}",
                st.bold(&format!("cluster: {object}")),
                st.severity(sev, &format!("{sev}[{}]", d.code.as_str())),
                st.bold(&d.message)
            );
            for r in &d.related {
                let _ = writeln!(out, "  {} {}: {}", st.dim("= note:"), at(&r.file, r.span), r.message);
            }
            out.push('\n');
            continue;
        }
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
            let _ = writeln!(out, "  {} {}: {}", st.dim("= note:"), at(&r.file, r.span), r.message);
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
    let policies = plural(summary.policies, "policy").replace("policys", "policies");
    let objects = plural(summary.objects, "object");
    let documents = plural(summary.documents, "document");
    // What was read: files, the live cluster, or both.
    let read = match (summary.files, summary.cluster_objects) {
        (_, 0) => format!("{} ({documents}, {objects}, {policies})", plural(summary.files, "file")),
        (0, _) => format!("the cluster ({objects}, {policies})"),
        (f, _) => format!("{} and the cluster ({documents}, {objects}, {policies})", plural(f, "file")),
    };
    let _ = writeln!(
        out,
        "{}{suppressed_note} in {read} in {:.0} ms",
        if e > 0 { st.severity("error", &head) } else { st.bold(&head) },
        summary.elapsed_ms
    );
    out
}
