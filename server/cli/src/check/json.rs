//! `check --format json` (docs/json.md): 0-based lines, UTF-16 columns.

use policylens_core::analysis::diagnostics::{Diagnostic, Suppressed};
use policylens_core::syntax::{PositionEncoding, Span};
use policylens_core::workspace::Snapshot;
use serde_json::{Value, json};

use super::Summary;

pub fn range(snap: &Snapshot, file: &str, span: Span) -> Value {
    let (s, e) = match snap.source(file) {
        Some(f) => (f.position(span.start, PositionEncoding::Utf16), f.position(span.end, PositionEncoding::Utf16)),
        None => Default::default(),
    };
    json!({"start": {"line": s.line, "character": s.character}, "end": {"line": e.line, "character": e.character}})
}

pub fn render(snap: &Snapshot, diags: &[&Diagnostic], suppressed: &[&Suppressed], summary: &Summary) -> String {
    let list: Vec<Value> = diags.iter().map(|d| diagnostic(snap, d)).collect();
    let mut out = json!({
        "diagnostics": list,
        "summary": {
            "files": summary.files,
            "documents": summary.documents,
            "objects": summary.objects,
            "policies": summary.policies,
            "suppressed": summary.suppressed,
            "elapsedMs": summary.elapsed_ms.round() as u64,
        }
    });
    if !suppressed.is_empty() {
        out["suppressed"] = suppressed
            .iter()
            .map(|s| {
                let mut v = diagnostic(snap, &s.diagnostic);
                v["justification"] = json!(s.justification);
                v
            })
            .collect();
    }
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_default();
    s.push('\n');
    s
}

fn diagnostic(snap: &Snapshot, d: &Diagnostic) -> Value {
    {
        {
            let mut v = json!({
                "file": &*d.file,
                "range": range(snap, &d.file, d.span),
                "severity": d.severity.as_str(),
                "code": d.code.as_str(),
                "message": d.message,
            });
            if let Some(o) = &d.object {
                v["object"] = json!(o);
            }
            if !d.related.is_empty() {
                v["related"] = d
                    .related
                    .iter()
                    .map(|r| json!({"file": &*r.file, "range": range(snap, &r.file, r.span), "message": r.message}))
                    .collect();
            }
            v
        }
    }
}
