//! What a `kustomization.yaml` says about the files it applies (docs/semantics.md §4.7): the
//! resources and components it includes, the namespace and name affixes it sets, and the
//! patches it lays over them. Read natively, so that every object keeps the position it has in
//! its own file; `kubectl kustomize` is the reference for what these fields do.

use super::{Spanned, Str, str_of};
use crate::syntax::{Document, Node};

/// The file names kustomize looks for in a directory (it also takes `Kustomization`, which a
/// walk for `*.yaml`/`*.yml` never meets).
pub fn is_kustomization_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "kustomization.yaml" | "kustomization.yml")
}

/// A kustomization file's fields that decide which objects it applies and as what.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kustomization {
    /// `kind: Component`: a mixin an overlay includes, never applied alone.
    pub component: bool,
    /// `resources` and the older `bases`, in order: files, or directories holding a
    /// kustomization. Remote ones (URLs) are kept and skipped when resolving.
    pub resources: Vec<Spanned<Str>>,
    pub components: Vec<Spanned<Str>>,
    /// Sets the namespace of every namespaced object it applies (replacing what they write).
    pub namespace: Option<Spanned<Str>>,
    pub name_prefix: Option<Str>,
    pub name_suffix: Option<Str>,
    /// Files of `patches[].path` and `patchesStrategicMerge`: partial objects laid over the
    /// resources, not objects of their own.
    pub patches: Vec<Spanned<Str>>,
    /// `helmCharts`: charts kustomize inflates (with `--enable-helm`); what they render is not
    /// in the files (docs/semantics.md §4.11).
    pub helm_charts: Vec<HelmChart>,
}

/// One `helmCharts` item (kustomize `api/types/helmchartargs.go` `HelmChart`).
#[derive(Clone, Debug, PartialEq)]
pub struct HelmChart {
    /// `name`: the chart's name.
    pub name: Spanned<Str>,
    /// `releaseName`, defaulting to the chart's name.
    pub release_name: Option<Str>,
    /// `namespace`: where its objects go (the kustomization's `namespace:` overrides it).
    pub namespace: Option<Str>,
}

impl Kustomization {
    /// Reads the kustomization from the first document of its file (`None`: not a mapping).
    pub fn read(doc: &Document) -> Option<Kustomization> {
        let root = doc.root.as_ref()?;
        root.as_mapping()?;
        let kind = root.get("kind").and_then(Node::as_str);
        let paths = |key: &str| -> Vec<Spanned<Str>> {
            root.get(key)
                .and_then(Node::as_sequence)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| n.as_str().map(|s| Spanned::new(str_of(s), n.span)))
                .collect()
        };
        let mut resources = paths("resources");
        resources.extend(paths("bases"));
        let mut patches: Vec<Spanned<Str>> = root
            .get("patches")
            .and_then(Node::as_sequence)
            .unwrap_or_default()
            .iter()
            .filter_map(|p| p.get("path").and_then(|n| n.as_str().map(|s| Spanned::new(str_of(s), n.span))))
            .collect();
        // Inline patches (a YAML text in the list) are not files.
        patches.extend(paths("patchesStrategicMerge").into_iter().filter(|p| !p.value.contains('\n')));
        let text = |key: &str| root.get(key).and_then(Node::as_str).map(str_of);
        Some(Kustomization {
            component: kind == Some("Component"),
            resources,
            components: paths("components"),
            namespace: root
                .get("namespace")
                .and_then(|n| n.as_str().filter(|s| !s.is_empty()).map(|s| Spanned::new(str_of(s), n.span))),
            name_prefix: text("namePrefix"),
            name_suffix: text("nameSuffix"),
            patches,
            helm_charts: root
                .get("helmCharts")
                .and_then(Node::as_sequence)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| {
                    let name = c.get("name")?;
                    let text = |key: &str| c.get(key).and_then(Node::as_str).map(str_of);
                    Some(HelmChart {
                        name: Spanned::new(str_of(name.as_str()?), name.span),
                        release_name: text("releaseName"),
                        namespace: text("namespace"),
                    })
                })
                .collect(),
        })
    }
}

/// Whether a resource entry is remote (kustomize fetches it; policylens cannot).
pub fn is_remote(entry: &str) -> bool {
    entry.contains("://") || entry.starts_with("github.com/") || entry.contains("?ref=") || entry.starts_with("git@")
}
