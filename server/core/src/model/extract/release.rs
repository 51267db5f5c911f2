//! Helm releases the files declare but do not render: a Flux `HelmRelease` and an Argo CD
//! `Application` with a Helm source (docs/semantics.md §4.11). Only where their objects go and
//! which chart they install; what the chart renders is not in the files.

use super::read::str_at;
use crate::model::{HelmRelease, str_of};
use crate::syntax::Node;

/// Flux's HelmRelease API group (fluxcd/helm-controller `api/v2/helmrelease_types.go`).
const FLUX_HELM_GROUP: &str = "helm.toolkit.fluxcd.io";
const ARGO_GROUP: &str = "argoproj.io";

/// The release an object declares, if it is one.
pub(super) fn helm_release(root: &Node, group: &str, kind: &str) -> Option<HelmRelease> {
    let spec = root.get("spec");
    match (group, kind) {
        // `spec.targetNamespace` overrides where the chart's objects go; the chart is named by
        // `spec.chart.spec.chart` or, for an OCIRepository/HelmChart source, `spec.chartRef.name`.
        (FLUX_HELM_GROUP, "HelmRelease") => Some(HelmRelease {
            namespace: str_at(spec, "targetNamespace").map(str_of),
            chart: spec
                .and_then(|s| s.at(&["chart", "spec", "chart"]).or_else(|| s.at(&["chartRef", "name"])))
                .and_then(Node::as_str)
                .map(str_of),
            rendered: None,
        }),
        // argo-cd `pkg/apis/application/v1alpha1/types.go`: a source is Helm when it names a
        // `chart` (a Helm repository) or carries `helm` parameters; `spec.sources` holds several.
        (ARGO_GROUP, "Application") => {
            let spec = spec?;
            let single = spec.get("source").into_iter();
            let many = spec.get("sources").and_then(Node::as_sequence).unwrap_or_default().iter();
            let helm = single.chain(many).find(|s| s.get("chart").is_some() || s.get("helm").is_some())?;
            Some(HelmRelease {
                namespace: str_at(spec.get("destination"), "namespace").map(str_of),
                chart: str_at(Some(helm), "chart").map(str_of),
                rendered: None,
            })
        }
        _ => None,
    }
}
