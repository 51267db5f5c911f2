//! Flux's HelmRelease and chart sources, and the app-template chart's objects rendered from a
//! release's values (`model::app_template`).

use super::read;
use crate::model::app_template::{self, CHART};
use crate::model::{Body, ChartRef, Helm, Object, Release, str_of};
use crate::syntax::Node;

pub(super) const FLUX_HELM_GROUP: &str = "helm.toolkit.fluxcd.io";
pub(super) const FLUX_SOURCE_GROUP: &str = "source.toolkit.fluxcd.io";

/// Flux's longest release name: a longer one is shortened with a hash of it
/// (fluxcd/helm-controller `internal/release/name.go` `ShortenName`), which policylens does not
/// compute; such a release renders nothing here.
const MAX_RELEASE_NAME: usize = 53;

/// A HelmRelease: its chart and release name (fluxcd/helm-controller `api/v2/
/// helmrelease_types.go` `GetReleaseName`: `spec.releaseName`, else
/// `<spec.targetNamespace>-<metadata.name>` when the release sets a target namespace, else
/// `metadata.name`).
pub(super) fn release(root: &Node) -> Helm {
    let spec = root.get("spec");
    let at = |path: &[&str]| spec.and_then(|s| s.at(path));
    let text = |path: &[&str]| at(path).and_then(Node::as_str).filter(|s| !s.is_empty());
    let chart = if let Some(c) = text(&["chart", "spec", "chart"]) {
        ChartRef::Named { chart: str_of(c), version: text(&["chart", "spec", "version"]).map(str_of) }
    } else if let (Some(kind), Some(name)) = (text(&["chartRef", "kind"]), text(&["chartRef", "name"])) {
        ChartRef::Source {
            kind: str_of(kind),
            name: str_of(name),
            namespace: text(&["chartRef", "namespace"]).map(str_of),
        }
    } else {
        ChartRef::Unknown
    };
    let target_namespace = at(&["targetNamespace"]).and_then(read::spanned_str).filter(|n| !n.value.is_empty());
    let name = root.at(&["metadata", "name"]).and_then(Node::as_str).unwrap_or_default();
    let release_name = match (text(&["releaseName"]), &target_namespace) {
        (Some(r), _) => r.to_owned(),
        (None, Some(ns)) => format!("{}-{name}", ns.value),
        (None, None) => name.to_owned(),
    };
    let open =
        at(&["valuesFrom"]).is_some_and(|v| !v.is_null()) || at(&["postRenderers"]).is_some_and(|v| !v.is_null());
    Helm::Release(Release { chart, release_name: release_name.into(), target_namespace, open, rendered: 0 })
}

/// An `OCIRepository` (the chart is its URL's last segment) or a `HelmChart` (`spec.chart`).
pub(super) fn source(kind: &str, spec: Option<&Node>) -> Helm {
    let chart = match kind {
        "OCIRepository" => read::str_at(spec, "url").map(|u| u.trim_end_matches('/').rsplit('/').next().unwrap_or(u)),
        _ => read::str_at(spec, "chart"),
    };
    Helm::Source { chart: chart.map(str_of) }
}

/// After the release at `out[at]`, the objects its chart renders, when the chart may be
/// app-template: named so, or a `chartRef` (the world keeps them only when its source serves
/// app-template).
pub(super) fn render(root: &Node, text: &str, at: usize, out: &mut Vec<Object>) {
    // A chartRef written with aliases (`name: *app`) reads only with the text at hand.
    if let Some(Body::Helm(h)) = out.get_mut(at).map(|o| &mut o.body)
        && let Helm::Release(r) = &mut **h
        && r.chart == ChartRef::Unknown
        && let Some(cr) = root.at(&["spec", "chartRef"])
    {
        let field = |k: &str| cr.get(k).and_then(|n| app_template::resolved(root, text, n)).filter(|s| !s.is_empty());
        if let (Some(kind), Some(name)) = (field("kind"), field("name")) {
            r.chart = ChartRef::Source {
                kind: kind.into(),
                name: name.into(),
                namespace: field("namespace").map(Into::into),
            };
        }
    }
    let Some(obj) = out.get(at) else { return };
    let Body::Helm(h) = &obj.body else { return };
    let Helm::Release(r) = &**h else { return };
    let version = match &r.chart {
        ChartRef::Named { chart, version } if chart == CHART => version.clone(),
        ChartRef::Source { .. } => None,
        _ => return,
    };
    let Some(values) = root.at(&["spec", "values"]) else { return };
    if r.release_name.len() > MAX_RELEASE_NAME {
        return;
    }
    let (name, namespace, doc, substitutable) = (
        r.release_name.clone(),
        r.target_namespace.clone().or_else(|| obj.namespace.clone()),
        obj.doc,
        obj.substitutable,
    );
    let release = app_template::Release {
        values,
        root,
        text,
        name: &name,
        version: version.as_deref(),
        namespace,
        doc,
        substitutable,
    };
    let n = app_template::render(&release, out);
    if let Some(Body::Helm(h)) = out.get_mut(at).map(|o| &mut o.body)
        && let Helm::Release(r) = &mut **h
    {
        r.rendered = n;
    }
}
