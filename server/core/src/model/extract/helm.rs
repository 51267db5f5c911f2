//! Flux's HelmRelease and chart sources, and the app-template chart's objects rendered from a
//! release's values (`model::app_template`).

use super::read;
use crate::model::app_template::{self, CHART};
use crate::model::{Body, ChartRef, Helm, Intent, Object, Release, TypeMeta, str_of};
use crate::syntax::{Document, Node};

pub(super) const FLUX_HELM_GROUP: &str = "helm.toolkit.fluxcd.io";
pub(super) const FLUX_SOURCE_GROUP: &str = "source.toolkit.fluxcd.io";
/// What a kustomization's `helmCharts` item is called as the release its chart renders from
/// (no such object exists in the cluster: it stands for the item, so that what the chart
/// renders follows it as it follows a HelmRelease).
pub const HELM_CHART_ITEM: (&str, &str) = ("kustomize.config.k8s.io", "HelmChart");

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

/// The app-template items of a kustomization's `helmCharts` (the first document of
/// kustomization.yaml), each followed by what the chart renders from its `valuesInline`, as
/// kustomize inflates it (kubernetes-sigs/kustomize 12f9e63 `api/types/helmchartargs.go`
/// `AsHelmArgs`: `helm template <releaseName> --namespace <namespace>`; the chart's objects
/// then go through the kustomization's own transformers like any resource). Not rendered: an
/// item without `releaseName` (kustomize passes `--generate-name`), or whose values are partly
/// in files (`valuesFile`, `additionalValuesFiles`): the item stays a generator of anything.
pub fn helm_chart_items(doc: &Document, index: u32, text: &str, out: &mut Vec<Object>) {
    let Some(root) = &doc.root else { return };
    for item in root.get("helmCharts").and_then(Node::as_sequence).unwrap_or_default() {
        let field = |k: &str| item.get(k).and_then(read::spanned_str).filter(|s| !s.value.is_empty());
        let (Some(chart), Some(release)) = (field("name"), field("releaseName")) else { continue };
        let values = item.get("valuesInline");
        if chart.value != CHART || field("valuesFile").is_some() || item.get("additionalValuesFiles").is_some() {
            continue;
        }
        let Some(values) = values.filter(|v| v.as_mapping().is_some()) else { continue };
        let version = field("version").map(|v| v.value);
        let at = out.len();
        out.push(Object {
            meta: TypeMeta::of(HELM_CHART_ITEM.0, HELM_CHART_ITEM.1),
            kind_span: chart.span,
            name: release.clone(),
            namespace: field("namespace"),
            labels: Box::default(),
            creation_timestamp: None,
            span: item.span,
            doc: index,
            templated: false,
            substitutable: true,
            broken: false,
            intent: Intent::Applied,
            body: Body::Helm(Box::new(Helm::Release(Release {
                chart: ChartRef::Named { chart: chart.value.clone(), version: version.clone() },
                release_name: release.value.clone(),
                target_namespace: None,
                open: false,
                rendered: 0,
            }))),
        });
        let r = app_template::Release {
            values,
            root,
            text,
            name: &release.value,
            version: version.as_deref(),
            namespace: field("namespace"),
            doc: index,
            substitutable: true,
        };
        let n = app_template::render(&r, out);
        if let Some(Body::Helm(h)) = out.get_mut(at).map(|o| &mut o.body)
            && let Helm::Release(r) = &mut **h
        {
            r.rendered = n;
        }
        for o in &mut out[at..] {
            o.broken = doc.error.is_some();
        }
    }
}

/// After an Argo CD Application at `out[at]` whose Helm source installs app-template with its
/// values in the file, what the chart renders (argoproj/argo-cd 37ee009
/// `reposerver/repository/repository.go` `helmTemplate`: the release is `helm.releaseName`,
/// else the Application's name; its namespace `helm.namespace`, else the destination's;
/// `helm.valuesObject` or `helm.values` (a YAML text) are the values, `pkg/apis/application/
/// v1alpha1/types.go` `ValuesYAML`). Not rendered where values come from elsewhere too
/// (`valueFiles`, `parameters`, `fileParameters`) or no namespace is written: the
/// Application stays a generator of anything.
pub(super) fn render_argo(root: &Node, text: &str, at: usize, out: &mut Vec<Object>) {
    let Some(obj) = out.get(at) else { return };
    if (obj.group(), obj.kind()) != ("argoproj.io", "Application") {
        return;
    }
    let Some(spec) = root.get("spec") else { return };
    let sources =
        spec.get("source").into_iter().chain(spec.get("sources").and_then(Node::as_sequence).unwrap_or_default());
    let Some(source) = sources.into_iter().find(|s| read::str_at(Some(s), "chart") == Some(CHART)) else { return };
    let helm = source.get("helm");
    let given = |k: &str| helm.and_then(|h| h.get(k)).is_some_and(|n| n.as_sequence().is_none_or(|s| !s.is_empty()));
    if given("valueFiles") || given("parameters") || given("fileParameters") {
        return;
    }
    let field = |n: Option<&Node>, k: &str| {
        n.and_then(|n| n.get(k)).and_then(read::spanned_str).filter(|s| !s.value.is_empty())
    };
    let Some(namespace) = field(helm, "namespace").or_else(|| field(spec.get("destination"), "namespace")) else {
        return;
    };
    let name = field(helm, "releaseName").map_or_else(|| obj.name.value.clone(), |n| n.value);
    let version = field(Some(source), "targetRevision").map(|v| v.value);
    let (doc, substitutable) = (obj.doc, obj.substitutable);
    let mut release = Release {
        chart: ChartRef::Named { chart: CHART.into(), version: version.clone() },
        release_name: name.clone(),
        target_namespace: Some(namespace.clone()),
        open: false,
        rendered: 0,
    };
    let object_values = helm.and_then(|h| h.get("valuesObject")).filter(|v| v.as_mapping().is_some());
    let parsed;
    let values = match object_values {
        Some(v) => v,
        None => {
            let Some(v) = helm.and_then(|h| h.get("values")) else { return };
            parsed = values_text(text, v);
            match parsed.as_ref().and_then(|p| p.documents.first()).and_then(|d| d.root.as_ref()) {
                Some(v) if v.as_mapping().is_some() => v,
                _ => return,
            }
        }
    };
    let r = app_template::Release {
        values,
        root: if object_values.is_some() { root } else { values },
        text,
        name: &name,
        version: version.as_deref(),
        namespace: Some(namespace),
        doc,
        substitutable,
    };
    release.rendered = app_template::render(&r, out);
    if let Some(Body::Other(o)) = out.get_mut(at).map(|o| &mut o.body)
        && let Some(h) = o.release.as_mut()
    {
        h.rendered = Some(Box::new(release));
    }
}

/// `helm.values` written as a literal block (`values: |`): its lines parsed where they are in
/// the file (everything before them blanked), so the values' spans are the file's.
fn values_text(text: &str, v: &Node) -> Option<crate::syntax::ParsedFile> {
    let (start, end) = (v.span.start as usize, v.span.end as usize);
    let written = text.get(start..end)?;
    if !written.starts_with('|') {
        return None;
    }
    let body = start + written.find('\n')? + 1;
    let mut blanked: String = text[..body].bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }).collect();
    blanked.push_str(text.get(body..end)?);
    Some(crate::syntax::parse_file(&blanked))
}
