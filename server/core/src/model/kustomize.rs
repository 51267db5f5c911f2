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
    /// `replacements`: values copied from one object's field into others' fields, after the
    /// kustomization's other transformers (docs/semantics.md §4.7).
    pub replacements: Vec<ReplacementEntry>,
}

/// One `replacements` item: written inline, or a file holding a list of them (`path:`).
#[derive(Clone, Debug, PartialEq)]
pub enum ReplacementEntry {
    Inline(Replacement),
    Path(Spanned<Str>),
}

/// A replacement as kustomize reads it (kubernetes-sigs/kustomize 12f9e63,
/// `api/types/replacement.go`, applied by `api/filters/replacement/replacement.go`): the value
/// of `source` (or `sourceValue`) set at each target's `fieldPaths`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Replacement {
    pub source: ReplacementSource,
    /// The targets policylens can follow (a target it cannot is left as written).
    pub targets: Vec<ReplacementTarget>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReplacementSource {
    /// `sourceValue`.
    Value(Str),
    /// The field at `fieldPath` (default `metadata.name`) of the one object `select` picks.
    Field { select: ResSelector, field_path: Str },
    /// A shape not followed (`options.delimiter`, both or neither of `source`/`sourceValue`).
    Unsupported,
}

/// Which objects a source or target selects: each field given must match (a target's are
/// anchored regular expressions in kustomize; only literal ones are followed). The version is
/// not compared (policylens keys objects by group and kind).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ResSelector {
    pub group: Option<Str>,
    pub kind: Option<Str>,
    pub name: Option<Str>,
    pub namespace: Option<Str>,
    /// `labelSelector` of equality terms (`a=b`, `a!=b`, `a`), comma-separated.
    pub label_selector: Option<Str>,
}

/// One `targets` item.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReplacementTarget {
    pub select: ResSelector,
    pub reject: Vec<ResSelector>,
    /// Dotted paths (default `metadata.name`).
    pub field_paths: Vec<Str>,
    /// `options.create`: the field is added where the target lacks it (else kustomize fails).
    pub create: bool,
}

impl ResSelector {
    /// Reads a selector; `None` when it uses what policylens does not follow (an
    /// `annotationSelector`, a set-based label selector, a regular expression with `literal`
    /// false).
    fn read(n: &Node, literal: bool) -> Option<ResSelector> {
        n.as_mapping()?;
        let text = |key: &str| n.get(key).and_then(Node::as_str).filter(|s| !s.is_empty()).map(str_of);
        if text("annotationSelector").is_some() {
            return None;
        }
        let label_selector = text("labelSelector");
        if label_selector.as_deref().is_some_and(|s| s.contains(['(', ')'])) {
            return None;
        }
        let s = ResSelector {
            group: text("group"),
            kind: text("kind"),
            name: text("name"),
            namespace: text("namespace"),
            label_selector,
        };
        // `.` is kept: in a group it matches itself (and a literal match is what is meant).
        let regex = |v: &Option<Str>| {
            v.as_deref().is_some_and(|v| v.contains(['*', '+', '?', '(', '[', '{', '|', '^', '$', '\\']))
        };
        if !literal && [&s.group, &s.kind, &s.name, &s.namespace].into_iter().any(regex) {
            return None;
        }
        Some(s)
    }

    /// Whether an object of `group`/`kind` named `name` in `namespace` (`None`: cluster-scoped
    /// or unset, kustomize's `default` when compared) with `labels` is selected.
    pub fn selects(&self, group: &str, kind: &str, name: &str, namespace: Option<&str>, labels: &[(Str, Str)]) -> bool {
        let ns = namespace.unwrap_or("default");
        self.group.as_deref().is_none_or(|g| g == group)
            && self.kind.as_deref().is_none_or(|k| k == kind)
            && self.name.as_deref().is_none_or(|n| n == name)
            && self.namespace.as_deref().is_none_or(|n| n == ns)
            && self.label_selector.as_deref().is_none_or(|s| labels_match(s, labels))
    }

    /// Whether it names anything at all (an empty reject selects nothing in kustomize).
    pub fn is_empty(&self) -> bool {
        *self == ResSelector::default()
    }
}

/// An equality-based label selector (`key=value`, `key==value`, `key!=value`, `key`, `!key`),
/// terms comma-separated.
pub fn labels_match(selector: &str, labels: &[(Str, Str)]) -> bool {
    let get = |k: &str| labels.iter().find(|(lk, _)| lk == k.trim()).map(|(_, v)| v.as_str());
    selector.split(',').filter(|t| !t.trim().is_empty()).all(|term| {
        if let Some((k, v)) = term.split_once("!=") {
            get(k) != Some(v.trim())
        } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
            get(k) == Some(v.trim())
        } else if let Some(k) = term.trim().strip_prefix('!') {
            get(k).is_none()
        } else {
            get(term).is_some()
        }
    })
}

impl Replacement {
    /// Reads one item (`None`: not a mapping, or no targets).
    pub fn read(n: &Node) -> Option<Replacement> {
        n.as_mapping()?;
        let delimited = |opts: Option<&Node>| {
            opts.and_then(|o| o.get("delimiter")).and_then(Node::as_str).is_some_and(|d| !d.is_empty())
        };
        let source = match (n.get("source"), n.get("sourceValue").and_then(Node::as_str)) {
            (Some(s), None) if !delimited(s.get("options")) => match ResSelector::read(s, true) {
                Some(select) => ReplacementSource::Field {
                    select,
                    field_path: s
                        .get("fieldPath")
                        .and_then(Node::as_str)
                        .filter(|p| !p.is_empty())
                        .map_or_else(|| str_of("metadata.name"), str_of),
                },
                None => ReplacementSource::Unsupported,
            },
            (None, Some(v)) => ReplacementSource::Value(str_of(v)),
            _ => ReplacementSource::Unsupported,
        };
        let targets = n
            .get("targets")
            .and_then(Node::as_sequence)?
            .iter()
            .filter_map(|t| {
                let options = t.get("options");
                if delimited(options) {
                    return None;
                }
                let select = ResSelector::read(t.get("select")?, false)?;
                let reject = match t.get("reject").and_then(Node::as_sequence) {
                    Some(r) => r.iter().map(|r| ResSelector::read(r, false)).collect::<Option<Vec<_>>>()?,
                    None => Vec::new(),
                };
                let mut field_paths: Vec<Str> = t
                    .get("fieldPaths")
                    .and_then(Node::as_sequence)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|p| p.as_str().map(str_of))
                    .collect();
                if field_paths.is_empty() {
                    field_paths.push(str_of("metadata.name"));
                }
                let create = options.and_then(|o| o.get("create")).and_then(Node::as_str) == Some("true");
                Some(ReplacementTarget { select, reject, field_paths, create })
            })
            .collect();
        Some(Replacement { source, targets })
    }

    /// The items of a file `replacements[].path` names: a list in its first document.
    pub fn read_file(text: &str) -> Vec<Replacement> {
        let mut out = Vec::new();
        crate::syntax::parse_each(text, |i, doc| {
            if i == 0
                && let Some(items) = doc.root.as_ref().and_then(Node::as_sequence)
            {
                out.extend(items.iter().filter_map(Replacement::read));
            }
        });
        out
    }
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
            replacements: root
                .get("replacements")
                .and_then(Node::as_sequence)
                .unwrap_or_default()
                .iter()
                .filter_map(|r| match r.get("path").and_then(|n| n.as_str().map(|s| Spanned::new(str_of(s), n.span))) {
                    Some(path) => Some(ReplacementEntry::Path(path)),
                    None => Replacement::read(r).map(ReplacementEntry::Inline),
                })
                .collect(),
        })
    }
}

/// Whether a resource entry is remote (kustomize fetches it; policylens cannot).
pub fn is_remote(entry: &str) -> bool {
    entry.contains("://") || entry.starts_with("github.com/") || entry.contains("?ref=") || entry.starts_with("git@")
}
