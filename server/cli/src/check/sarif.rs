//! SARIF 2.1.0 for code-scanning tools: one rule per diagnostic code, 1-based UTF-16 columns.

use policylens_core::analysis::diagnostics::{Code, Diagnostic, Severity, Suppressed};
use policylens_core::syntax::{PositionEncoding, Span};
use policylens_core::workspace::Snapshot;
use serde_json::{Value, json};

fn region(snap: &Snapshot, file: &str, span: Span) -> Value {
    let Some(f) = snap.source(file) else {
        return json!({"startLine": 1});
    };
    let s = f.position(span.start, PositionEncoding::Utf16);
    let e = f.position(span.end, PositionEncoding::Utf16);
    json!({
        "startLine": s.line + 1,
        "startColumn": s.character + 1,
        "endLine": e.line + 1,
        "endColumn": e.character + 1,
    })
}

fn location(snap: &Snapshot, file: &str, span: Span) -> Value {
    if let Some(object) = super::cluster_object(snap, file) {
        return cluster_location(file, &object);
    }
    json!({"physicalLocation": {
        "artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"},
        "region": region(snap, file, span),
    }})
}

/// An object of the live cluster: a logical location naming it. GitHub code scanning rejects
/// a whole upload when a result's location has no `physicalLocation.artifactLocation`
/// ("locationFromSarifResult: expected artifact location"), and absolute URIs of another
/// scheme than the checkout's; a relative path outside the repository is shown without a
/// preview. So the object also gets a relative path of its own under `policylens-cluster/`
/// (context, namespace or `_`, kind, name), and no region.
fn cluster_location(file: &str, object: &str) -> Value {
    // `cluster://CONTEXT/NAMESPACE/KIND/NAME`: a context name may hold `/`, the rest cannot.
    let rest = file.strip_prefix("cluster://").unwrap_or(file);
    let mut parts: Vec<&str> = rest.rsplitn(4, '/').collect();
    parts.reverse();
    let uri: Vec<String> =
        std::iter::once("policylens-cluster".to_owned()).chain(parts.into_iter().map(encode)).collect();
    let name = object.rsplit('/').next().unwrap_or(object);
    json!({
        "physicalLocation": {"artifactLocation": {"uri": uri.join("/"), "uriBaseId": "%SRCROOT%"}},
        "logicalLocations": [{"name": name, "fullyQualifiedName": object, "kind": "resource"}],
    })
}

/// A URI path segment: anything but unreserved characters percent-encoded (kubeconfig
/// context names hold `:`, `@` and `/`).
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// SARIF rule names are PascalCase identifiers: `target-not-found` → `TargetNotFound`.
fn rule_name(c: Code) -> String {
    c.as_str()
        .split('-')
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map(|f| f.to_ascii_uppercase().to_string() + cs.as_str()).unwrap_or_default()
        })
        .collect()
}

pub fn render(snap: &Snapshot, diags: &[&Diagnostic], suppressed: &[&Suppressed]) -> String {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|c| {
            let help = c.help();
            // The section's first paragraph after the severity line says what it means.
            let full = help.split("\n\n").next().unwrap_or("").replace('\n', " ");
            json!({
                "id": c.as_str(),
                "name": rule_name(*c),
                "shortDescription": {"text": c.description()},
                "fullDescription": {"text": full},
                "helpUri": c.help_uri(),
                "help": {"text": help, "markdown": help},
                "defaultConfiguration": {"level": level(c.severity())},
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| (*d, None))
        .chain(suppressed.iter().map(|s| (&s.diagnostic, Some(s.justification.as_str()))))
        .map(|(d, justification)| {
            let mut r = json!({
                "ruleId": d.code.as_str(),
                "ruleIndex": Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0),
                "level": level(d.severity),
                "message": {"text": d.message},
                "locations": [location(snap, &d.file, d.span)],
            });
            if !d.related.is_empty() {
                r["relatedLocations"] = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, rel)| {
                        let mut l = location(snap, &rel.file, rel.span);
                        l["id"] = json!(i);
                        l["message"] = json!({"text": rel.message});
                        l
                    })
                    .collect();
            }
            if let Some(j) = justification {
                r["suppressions"] = json!([{"kind": "inSource", "justification": j}]);
            }
            r
        })
        .collect();
    let out = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "policylens",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/policylens/policylens",
                "rules": rules,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": "./"}},
            "columnKind": "utf16CodeUnits",
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_default();
    s.push('\n');
    s
}
