//! `check --format json` (docs/json.md): 0-based lines, UTF-16 columns. The types below are
//! the contract: `schemas/policylens-check.schema.json` is generated from them.

use policylens_core::analysis::diagnostics::{Diagnostic, Suppressed};
use policylens_core::syntax::{PositionEncoding, Range, Span};
use policylens_core::workspace::Snapshot;
use schemars::JsonSchema;
use serde::Serialize;

use super::Summary;

#[derive(Serialize, JsonSchema)]
pub struct CheckReport {
    pub diagnostics: Vec<DiagnosticJson>,
    pub summary: SummaryJson,
    /// With `--show-suppressed`: what ignore comments silenced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<SuppressedJson>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummaryJson {
    pub files: usize,
    /// Objects read from the live cluster (`--cluster`); present when not 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub cluster_objects: usize,
    pub documents: usize,
    pub objects: usize,
    pub policies: usize,
    /// Diagnostics that ignore comments silenced.
    pub suppressed: usize,
    /// Template documents (Helm, Hugo) that could not be read around their template actions:
    /// skipped, not reported as YAML errors. Present when not 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_templates: usize,
    pub elapsed_ms: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize, JsonSchema)]
pub struct DiagnosticJson {
    /// The file, relative to the current directory; `null` for a finding on an object of
    /// the live cluster (`--cluster`), which `object` names.
    pub file: Option<String>,
    /// In `file`; absent with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    /// `error`, `warning`, `information` or `hint`.
    pub severity: String,
    /// A code of docs/diagnostics.md.
    pub code: String,
    pub message: String,
    /// The reference (`Kind/namespace/name`) of the object the diagnostic is about (for a
    /// finding on the live cluster, the object it is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<RelatedJson>,
}

#[derive(Serialize, JsonSchema)]
pub struct RelatedJson {
    /// `null` for an object of the live cluster, which `object` then names.
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    pub message: String,
}

#[derive(Serialize, JsonSchema)]
pub struct SuppressedJson {
    #[serde(flatten)]
    pub diagnostic: DiagnosticJson,
    /// The ignore comment that silenced it.
    pub justification: String,
}

pub fn range(snap: &Snapshot, file: &str, span: Span) -> Range {
    match snap.source(file) {
        Some(f) => Range {
            start: f.position(span.start, PositionEncoding::Utf16),
            end: f.position(span.end, PositionEncoding::Utf16),
        },
        None => Range::default(),
    }
}

pub fn render(snap: &Snapshot, diags: &[&Diagnostic], suppressed: &[&Suppressed], summary: &Summary) -> String {
    let report = CheckReport {
        diagnostics: diags.iter().map(|d| diagnostic(snap, d)).collect(),
        summary: SummaryJson {
            files: summary.files,
            cluster_objects: summary.cluster_objects,
            documents: summary.documents,
            objects: summary.objects,
            policies: summary.policies,
            suppressed: summary.suppressed,
            skipped_templates: summary.skipped_templates,
            elapsed_ms: summary.elapsed_ms.round() as u64,
        },
        suppressed: suppressed
            .iter()
            .map(|s| SuppressedJson {
                diagnostic: diagnostic(snap, &s.diagnostic),
                justification: s.justification.clone(),
            })
            .collect(),
    };
    let mut s = serde_json::to_string_pretty(&report).unwrap_or_default();
    s.push('\n');
    s
}

fn diagnostic(snap: &Snapshot, d: &Diagnostic) -> DiagnosticJson {
    let cluster = super::cluster_object(snap, &d.file);
    DiagnosticJson {
        file: cluster.is_none().then(|| d.file.to_string()),
        range: cluster.is_none().then(|| range(snap, &d.file, d.span)),
        severity: d.severity.as_str().to_owned(),
        code: d.code.as_str().to_owned(),
        message: d.message.clone(),
        object: cluster.or_else(|| d.object.clone()),
        related: d
            .related
            .iter()
            .map(|r| {
                let cluster = super::cluster_object(snap, &r.file);
                RelatedJson {
                    file: cluster.is_none().then(|| r.file.to_string()),
                    range: cluster.is_none().then(|| range(snap, &r.file, r.span)),
                    object: cluster,
                    message: r.message.clone(),
                }
            })
            .collect(),
    }
}
