//! What GitOps controllers apply, as their objects say (docs/semantics.md §4.7): Flux
//! Kustomizations (`kustomize.toolkit.fluxcd.io`), Flux Operator's FluxInstance sync path,
//! Argo CD Applications and ApplicationSets, and the variables a ConfigMap or an unencrypted
//! Secret holds for a Kustomization's `postBuild.substituteFrom`. Read at parse time into the
//! object (`Other::gitops`); `world::units` turns them into units.
//!
//! The fields follow the controllers' API types: fluxcd/kustomize-controller
//! `api/v1/kustomization_types.go` (186fb3b), controlplaneio-fluxcd/flux-operator's FluxInstance
//! `spec.sync`, argoproj/argo-cd `pkg/apis/application/v1alpha1/types.go` and
//! `applicationset_types.go`.

use super::{Spanned, Str, str_of};
use crate::syntax::{Node, NodeKind, ScalarStyle};

pub const FLUX_KUSTOMIZE_GROUP: &str = "kustomize.toolkit.fluxcd.io";
pub const ARGO_GROUP: &str = "argoproj.io";
/// The annotation or label with which an object opts out of Flux's variable substitution
/// (fluxcd/pkg `kustomize/kustomize_varsub.go`, `substituteAnnotationKey`).
pub const SUBSTITUTE_KEY: &str = "kustomize.toolkit.fluxcd.io/substitute";

/// A GitOps object's part in deciding what is applied.
#[derive(Clone, Debug, PartialEq)]
pub enum GitOps {
    Flux(FluxKustomization),
    Argo(ArgoApp),
    /// The variables of a ConfigMap or Secret (`data`, `stringData`).
    Vars(Vars),
    /// A folder the cluster's Flux syncs from the repository itself (FluxInstance
    /// `spec.sync.path`, also as the `instance.sync.path` value of a flux-instance
    /// HelmRelease): what it applies is applied.
    Sync(Spanned<Str>),
}

/// A Flux `Kustomization`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FluxKustomization {
    /// `spec.path`, relative to the source's root (`None`: the root).
    pub path: Option<Spanned<Str>>,
    /// `spec.sourceRef` kind and name.
    pub source_kind: Str,
    pub source_name: Str,
    pub target_namespace: Option<Spanned<Str>>,
    pub name_prefix: Option<Str>,
    pub name_suffix: Option<Str>,
    /// `spec.components`, relative to `spec.path`.
    pub components: Vec<Spanned<Str>>,
    pub post_build: Option<PostBuild>,
    /// Inline `spec.patches` that set a `postBuild` on the Flux Kustomizations this one applies
    /// (a cluster's Kustomization handing its variables down to every application's).
    pub child_patches: Vec<ChildPatch>,
}

/// `spec.postBuild`: the variables substituted in what a Kustomization applies.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PostBuild {
    /// `substitute`, in order (they override `substituteFrom`).
    pub substitute: Vec<(Str, Str)>,
    /// `substituteFrom`, in order (a later source overrides an earlier one).
    pub from: Vec<SubstituteRef>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SubstituteRef {
    /// `ConfigMap` or `Secret`.
    pub kind: Str,
    pub name: Str,
    pub optional: bool,
}

/// An inline patch of a Flux Kustomization's `spec.patches` aimed at the Flux Kustomizations
/// it applies (`target.kind: Kustomization`): the `postBuild` it sets on them.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildPatch {
    /// `target.name`, when the patch names one.
    pub name: Option<Str>,
    /// `target.labelSelector` (`key=value`, comma-separated), when set.
    pub label_selector: Option<Str>,
    pub post_build: PostBuild,
}

/// An Argo CD `Application`, or an `ApplicationSet`'s template with its generators.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ArgoApp {
    /// An ApplicationSet template's `metadata.name` (an Application's is the object's).
    pub name: Option<Spanned<Str>>,
    pub sources: Vec<ArgoSource>,
    /// `destination.namespace` (a template for an ApplicationSet).
    pub namespace: Option<Spanned<Str>>,
    /// An ApplicationSet's generators (empty for an Application).
    pub generators: Vec<ArgoGenerator>,
    pub is_set: bool,
    /// `goTemplate: true`: parameters are `{{.path.path}}`, not `{{path}}`.
    pub go_template: bool,
}

/// One of `spec.source`/`spec.sources[]`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ArgoSource {
    pub repo_url: Str,
    pub path: Option<Spanned<Str>>,
    /// A Helm chart from a chart repository (`chart:`): rendered, not read.
    pub chart: Option<Str>,
    /// The source type its spec names (`directory:`, `kustomize:`, `helm:`, `plugin:`), else
    /// `None`: Argo CD tells it from the folder's files.
    pub explicit: Option<ArgoSourceType>,
    /// `directory.recurse`.
    pub recurse: bool,
    /// `directory.include` and `directory.exclude` globs (`{a,b}` alternatives).
    pub include: Option<Str>,
    pub exclude: Option<Str>,
    /// `kustomize.namespace`: overrides the namespace of every namespaced object.
    pub kustomize_namespace: Option<Spanned<Str>>,
    /// `kustomize.namePrefix`/`nameSuffix`: around the kustomization's own affixes.
    pub name_prefix: Option<Spanned<Str>>,
    pub name_suffix: Option<Spanned<Str>>,
}

impl ArgoApp {
    /// In a file with template actions (an ApplicationSet's `{{path.basename}}`), the fields a
    /// template may fill get the text as written, which the parser read with stand-ins.
    pub(crate) fn show_written(&mut self, text: &str) {
        let written = |s: &mut Spanned<Str>| {
            let w = text.get(s.span.start as usize..s.span.end as usize).unwrap_or("");
            if w.contains("{{") {
                s.value = str_of(w.trim().trim_matches(|c| c == '"' || c == '\''));
            }
        };
        let sources = self.sources.iter_mut().flat_map(|s| {
            [s.path.as_mut(), s.kustomize_namespace.as_mut(), s.name_prefix.as_mut(), s.name_suffix.as_mut()]
        });
        for s in [self.name.as_mut(), self.namespace.as_mut()].into_iter().chain(sources).flatten() {
            written(s);
        }
    }
}

/// How Argo CD renders a source (argo-cd `pkg/apis/application/v1alpha1/types.go`
/// `ExplicitType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgoSourceType {
    Directory,
    Kustomize,
    Helm,
    Plugin,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArgoGenerator {
    /// `git.directories`: each directory a path glob matches (and no `exclude: true` entry
    /// does) is one application; `pathParamPrefix` prefixes its parameters.
    GitDirectories { repo_url: Str, directories: Vec<(Str, bool)>, prefix: Option<Str> },
    /// `list.elements`: each element's keys are parameters (a `values` map's keys as
    /// `values.<key>`).
    List(Vec<Vec<(Str, Str)>>),
    /// `matrix.generators`: every combination of their parameter sets.
    Matrix(Vec<ArgoGenerator>),
    /// `merge.generators`: the first one's parameter sets, others' values merged in by key.
    Merge(Vec<ArgoGenerator>),
    /// Any other generator (clusters, pull requests, SCM providers, git files, ...): its
    /// parameters are not known from the files.
    Other,
}

/// Variables a ConfigMap's `data` or a Secret's `stringData`/`data` hold.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Vars {
    pub entries: Vec<(Str, Str)>,
    /// SOPS-encrypted (a `sops:` key, `ENC[...]` values): the values are unknown.
    pub encrypted: bool,
}

/// Reads the GitOps part of an object, if its kind has one.
pub(crate) fn read(root: &Node, group: &str, kind: &str) -> Option<GitOps> {
    match (group, kind) {
        (FLUX_KUSTOMIZE_GROUP, "Kustomization") => Some(GitOps::Flux(flux_kustomization(root.get("spec")?))),
        (ARGO_GROUP, "Application") => Some(GitOps::Argo(argo_app(root.get("spec")?))),
        (ARGO_GROUP, "ApplicationSet") => Some(GitOps::Argo(argo_set(root.get("spec")?))),
        ("fluxcd.controlplane.io", "FluxInstance") => spanned(root.at(&["spec", "sync", "path"])?).map(GitOps::Sync),
        ("helm.toolkit.fluxcd.io", "HelmRelease") => {
            spanned(root.at(&["spec", "values", "instance", "sync", "path"])?).map(GitOps::Sync)
        }
        ("", "ConfigMap") => Some(GitOps::Vars(vars(root, &["data"], false))).filter(has_vars),
        // Flux reads a Secret's `data` (base64); one written in a repository has `stringData`,
        // which the API server moves into `data`. SOPS leaves keys readable and encrypts values.
        ("", "Secret") => {
            let encrypted = root.get("sops").is_some();
            Some(GitOps::Vars(vars(root, &["stringData", "data"], encrypted))).filter(has_vars)
        }
        _ => None,
    }
}

fn has_vars(g: &GitOps) -> bool {
    matches!(g, GitOps::Vars(v) if !v.entries.is_empty() || v.encrypted)
}

/// Whether a variable name is one Flux accepts (`^[_[:alpha:]][_[:alpha:][:digit:]]*$`,
/// fluxcd/pkg `kustomize/kustomize_varsub.go`).
pub fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The longest value kept: variables are hostnames, names and sizes, not documents (a
/// dashboard's JSON in a ConfigMap is never a variable worth holding in memory).
const MAX_VALUE: usize = 512;

fn vars(root: &Node, keys: &[&str], encrypted: bool) -> Vars {
    let mut out = Vars { entries: Vec::new(), encrypted };
    for (i, key) in keys.iter().enumerate() {
        let Some(map) = root.get(key).and_then(Node::as_mapping) else { continue };
        for e in map {
            let (Some(k), Some(v)) = (e.key.as_str(), scalar(&e.value)) else { continue };
            if !is_var_name(k) || v.len() > MAX_VALUE {
                continue;
            }
            out.encrypted |= v.starts_with("ENC[");
            // `data` of a Secret is base64.
            let value = if i > 0 { decode_base64(v) } else { Some(v.to_owned()) };
            if let Some(value) = value
                && !out.entries.iter().any(|(ek, _)| *ek == k)
            {
                // Flux drops newlines from every value (`strings.ReplaceAll(v, "\n", "")`).
                out.entries.push((k.into(), value.replace('\n', "").into()));
            }
        }
    }
    out
}

fn decode_base64(text: &str) -> Option<String> {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = TABLE.iter().position(|&t| t == c)? as u32;
        bits = (bits << 6) | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    String::from_utf8(out).ok()
}

/// A scalar's text (numbers and booleans as written); `None` for null and collections.
fn scalar(n: &Node) -> Option<&str> {
    n.as_str()
}

fn spanned(n: &Node) -> Option<Spanned<Str>> {
    n.as_str().filter(|s| !s.is_empty()).map(|s| Spanned::new(str_of(s), n.span))
}

fn text(n: Option<&Node>) -> Option<Str> {
    n.and_then(Node::as_str).filter(|s| !s.is_empty()).map(str_of)
}

fn flag(n: Option<&Node>) -> bool {
    matches!(n.map(|n| &n.kind), Some(NodeKind::Scalar(s)) if s.style == ScalarStyle::Plain && &*s.value == "true")
}

/// Fields of a Flux Kustomization written as aliases (`targetNamespace: *namespace`, anchored
/// on the file's own `metadata.namespace: &namespace media`): the tree keeps an alias
/// unexpanded, so they are read again from the document's text, as kustomize-controller's YAML
/// reader (go-yaml) expands them.
pub(crate) fn follow_aliases(g: &mut GitOps, root: &Node, text: &str) {
    let GitOps::Flux(k) = g else { return };
    let Some(spec) = root.get("spec") else { return };
    let alias = |key: &str| -> Option<Spanned<Str>> {
        let n = spec.get(key).filter(|n| matches!(n.kind, NodeKind::Alias))?;
        let value = super::app_template::resolved(root, text, n).filter(|v| !v.is_empty())?;
        Some(Spanned::new(str_of(&value), n.span))
    };
    if k.target_namespace.is_none() {
        k.target_namespace = alias("targetNamespace");
    }
    if k.path.is_none() {
        k.path = alias("path");
    }
}

fn flux_kustomization(spec: &Node) -> FluxKustomization {
    let source = spec.get("sourceRef");
    FluxKustomization {
        path: spec.get("path").and_then(spanned),
        source_kind: text(source.and_then(|s| s.get("kind"))).unwrap_or_default(),
        source_name: text(source.and_then(|s| s.get("name"))).unwrap_or_default(),
        target_namespace: spec.get("targetNamespace").and_then(spanned),
        name_prefix: text(spec.get("namePrefix")),
        name_suffix: text(spec.get("nameSuffix")),
        components: spec
            .get("components")
            .and_then(Node::as_sequence)
            .unwrap_or_default()
            .iter()
            .filter_map(spanned)
            .collect(),
        post_build: spec.get("postBuild").map(post_build),
        child_patches: spec
            .get("patches")
            .and_then(Node::as_sequence)
            .unwrap_or_default()
            .iter()
            .filter_map(child_patch)
            .collect(),
    }
}

fn post_build(pb: &Node) -> PostBuild {
    let substitute = pb
        .get("substitute")
        .and_then(Node::as_mapping)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| Some((str_of(e.key.as_str()?), str_of(&scalar(&e.value)?.replace('\n', "")))))
        .collect();
    let from = pb
        .get("substituteFrom")
        .and_then(Node::as_sequence)
        .unwrap_or_default()
        .iter()
        .filter_map(|r| {
            Some(SubstituteRef {
                kind: text(r.get("kind"))?,
                name: text(r.get("name"))?,
                optional: flag(r.get("optional")),
            })
        })
        .collect();
    PostBuild { substitute, from }
}

/// A `spec.patches[]` item whose target is Flux Kustomizations and whose inline patch sets a
/// `postBuild` (a strategic-merge patch, read as YAML).
fn child_patch(p: &Node) -> Option<ChildPatch> {
    let target = p.get("target")?;
    if text(target.get("kind")).as_deref() != Some("Kustomization")
        || text(target.get("group")).is_some_and(|g| g != FLUX_KUSTOMIZE_GROUP)
    {
        return None;
    }
    let patch = p.get("patch")?.as_str()?;
    let parsed = crate::syntax::parse_file(patch);
    let root = parsed.documents.first()?.root.as_ref()?;
    let pb = root.at(&["spec", "postBuild"])?;
    Some(ChildPatch {
        name: text(target.get("name")),
        label_selector: text(target.get("labelSelector")),
        post_build: post_build(pb),
    })
}

fn argo_app(spec: &Node) -> ArgoApp {
    let mut sources: Vec<ArgoSource> = spec.get("source").map(argo_source).into_iter().collect();
    sources.extend(spec.get("sources").and_then(Node::as_sequence).unwrap_or_default().iter().map(argo_source));
    ArgoApp {
        name: None,
        sources,
        namespace: spec.at(&["destination", "namespace"]).and_then(spanned),
        generators: Vec::new(),
        is_set: false,
        go_template: false,
    }
}

fn argo_set(spec: &Node) -> ArgoApp {
    let mut app = spec.at(&["template", "spec"]).map(argo_app).unwrap_or_default();
    app.name = spec.at(&["template", "metadata", "name"]).and_then(spanned);
    app.is_set = true;
    app.go_template = flag(spec.get("goTemplate"));
    app.generators =
        spec.get("generators").and_then(Node::as_sequence).unwrap_or_default().iter().map(generator).collect();
    app
}

fn generator(g: &Node) -> ArgoGenerator {
    if let Some(git) = g.get("git")
        && let Some(dirs) = git.get("directories").and_then(Node::as_sequence)
    {
        let directories = dirs.iter().filter_map(|d| Some((text(d.get("path"))?, flag(d.get("exclude"))))).collect();
        return ArgoGenerator::GitDirectories {
            repo_url: text(git.get("repoURL")).unwrap_or_default(),
            directories,
            prefix: text(git.get("pathParamPrefix")),
        };
    }
    if let Some(elements) = g.at(&["list", "elements"]).and_then(Node::as_sequence) {
        let params = elements
            .iter()
            .map(|e| {
                let mut params = Vec::new();
                for kv in e.as_mapping().unwrap_or_default() {
                    let Some(key) = kv.key.as_str() else { continue };
                    if let Some(v) = scalar(&kv.value) {
                        params.push((str_of(key), str_of(v)));
                    } else if key == "values" {
                        // argo-cd 37ee009 `applicationset/generators/list.go`: `values.<key>`.
                        for v in kv.value.as_mapping().unwrap_or_default() {
                            if let (Some(k), Some(v)) = (v.key.as_str(), scalar(&v.value)) {
                                params.push((str_of(&format!("values.{k}")), str_of(v)));
                            }
                        }
                    }
                }
                params
            })
            .collect();
        return ArgoGenerator::List(params);
    }
    // Argo CD nests them at most two deep (`ApplicationSetNestedGenerator`).
    for (key, make) in [("matrix", ArgoGenerator::Matrix as fn(_) -> _), ("merge", ArgoGenerator::Merge)] {
        if let Some(children) = g.at(&[key, "generators"]).and_then(Node::as_sequence) {
            return make(children.iter().map(generator).collect());
        }
    }
    ArgoGenerator::Other
}

fn argo_source(s: &Node) -> ArgoSource {
    let dir = s.get("directory");
    ArgoSource {
        repo_url: text(s.get("repoURL")).unwrap_or_default(),
        path: s.get("path").and_then(spanned),
        chart: text(s.get("chart")),
        explicit: [
            ("directory", ArgoSourceType::Directory),
            ("kustomize", ArgoSourceType::Kustomize),
            ("helm", ArgoSourceType::Helm),
            ("plugin", ArgoSourceType::Plugin),
        ]
        .into_iter()
        .find(|(k, _)| s.get(k).is_some())
        .map(|(_, t)| t),
        recurse: flag(dir.and_then(|d| d.get("recurse"))),
        include: text(dir.and_then(|d| d.get("include"))),
        exclude: text(dir.and_then(|d| d.get("exclude"))),
        kustomize_namespace: s.at(&["kustomize", "namespace"]).and_then(spanned),
        name_prefix: s.at(&["kustomize", "namePrefix"]).and_then(spanned),
        name_suffix: s.at(&["kustomize", "nameSuffix"]).and_then(spanned),
    }
}
