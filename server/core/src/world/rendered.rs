//! Objects a Helm chart renders from a release's values (`model::app_template`): which are
//! kept, and what their unit does to them.
//!
//! - A release that names the chart `app-template` renders; one whose `chartRef` names a Flux
//!   source renders when a source of that kind and name (in the namespace the reference means)
//!   serves app-template: an `OCIRepository` whose URL ends in `/app-template`, a `HelmChart`
//!   of chart `app-template`.
//! - The release namespace is `spec.targetNamespace` when the release sets one, else the
//!   release's own namespace (fluxcd/helm-controller `GetReleaseNamespace`): a unit's namespace
//!   (a kustomization's, a Flux Kustomization's `targetNamespace`) reaches the rendered objects
//!   through the release, but never past its `targetNamespace`. kustomize's name affixes and its
//!   "one identity twice" check are about the files it applies, not what Helm renders from them.
//! - A kustomization's `helmCharts` item (`model::helm_chart_items`) is rendered by kustomize
//!   itself: what it renders is transformed as the kustomization's files are.

use std::collections::HashSet;
use std::sync::Arc;

use super::instance_namespace;
use super::units::{Applier, Transform, Units};
use crate::model::app_template::CHART;
use crate::model::{Body, ChartRef, HELM_CHART_ITEM, Helm, Object, Release, Str};
use crate::source::SourceFile;

/// The chart sources serving app-template: (kind, namespace when known, name).
pub(super) type ChartSources = HashSet<(Str, Option<Str>, Str)>;

pub(super) fn chart_sources(files: &[Arc<SourceFile>], units: &Units) -> ChartSources {
    let mut out = ChartSources::new();
    for f in files {
        for o in &f.objects {
            let Body::Helm(h) = &o.body else { continue };
            let Helm::Source { chart: Some(chart) } = &**h else { continue };
            if chart != CHART {
                continue;
            }
            for m in units.of(&f.path).iter().filter(|m| !m.patch) {
                let ns = instance_namespace(o, m.transform.as_deref()).map(Str::from);
                out.insert((o.kind().into(), ns, o.name.value.clone()));
            }
        }
    }
    out
}

/// Whether the objects release `r` (of object `o`, applied with `t`) rendered are kept: its
/// chart is app-template.
pub(super) fn kept(r: &Release, o: &Object, t: Option<&Transform>, sources: &ChartSources) -> bool {
    match &r.chart {
        ChartRef::Named { chart, .. } => chart == CHART,
        ChartRef::Source { kind, name, namespace } => {
            let wanted = namespace.as_deref().or_else(|| instance_namespace(o, t));
            sources.iter().any(|(k, ns, n)| {
                k == kind && n == name && (ns.is_none() || wanted.is_none() || ns.as_deref() == wanted)
            })
        }
        ChartRef::Unknown => false,
    }
}

/// The transform of an object release `o` rendered, applied with `t`. A kustomization's
/// `helmCharts` item renders inside the build: its kustomizations' transformers reach what
/// the chart renders as they reach their files. A Helm release renders in the cluster: its
/// release's namespace unless the release fixes its own (`targetNamespace`), and nothing else.
/// An Argo CD Application's Helm source is applied by the Application itself (`argo`).
pub(super) fn transform(
    o: &Object,
    t: Option<&Arc<Transform>>,
    fixed_namespace: bool,
    argo: Option<Arc<Applier>>,
) -> Option<Arc<Transform>> {
    if (o.group(), o.kind()) == HELM_CHART_ITEM {
        return t.cloned();
    }
    let t = t.map(|t| &**t);
    // Cloned, not built: what else a unit does to its files' text (a Flux substitution of
    // `${VAR}`) reaches the values the chart reads.
    let mut r = t?.clone();
    if argo.is_some() {
        r.applied_by = argo;
        r.default_namespace = None;
    }
    if fixed_namespace {
        r.namespace = None;
    }
    r.name_prefix = Str::default();
    r.name_suffix = Str::default();
    r.kustomization = None;
    Some(Arc::new(r))
}
