//! Units: which files are applied together (docs/semantics.md §4.7). A claim that involves
//! several files (a conflict, an override, a reference) is only made where they are.
//!
//! Every file's objects are *instances* in one or more units. Unit 0 is the workspace: the
//! files nothing else claims, applied together, and the context every other unit sees. The
//! other units are *variants*: alternatives never applied together, each seeing itself and
//! unit 0 — a case of a folder of test cases or examples, one of several overlays of a
//! kustomize base, a folder or file the config's `worlds` names. Kustomizations and Helm charts
//! also change what their files' objects are called (namespace, name affixes, the release's
//! namespace); that is the instance's [`Transform`].

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::Config;
use crate::model::{GroupKind, Object, ReplacementTarget, ResSelector, Str, Variables};
use crate::source::{Origin, SourceFile};

mod argocd;
mod cases;
mod flux;
mod intent;
mod kustomize;
mod worlds;

use cases::CaseFolders;
use kustomize::Kustomize;
use worlds::WorldGlobs;

/// The namespace a Helm chart's objects are installed in when they name none, and what
/// `{{ .Release.Namespace }}` stands for.
pub const RELEASE_NAMESPACE: &str = "{{ .Release.Namespace }}";

/// Folder names that hold independent cases by default (docs/semantics.md §4.7): tests and
/// examples, and documentation (its snippets and design sketches are cases too).
pub const CASE_FOLDERS: &[&str] = &[
    "testdata",
    "test",
    "tests",
    "e2e",
    "fixtures",
    "examples",
    "example",
    "samples",
    "golden",
    "docs",
    "doc",
    "design",
    "proposals",
];

/// What a unit is, for messages: `case test/e2e/testdata/a.yaml`, `kustomization
/// overlays/prod`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub kind: UnitKind,
    /// The file or folder that defines it, relative to the workspace root.
    pub name: Arc<str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitKind {
    /// Unit 0: every file nothing else claims.
    Workspace,
    /// One case of a folder of independent cases: the files its references link.
    Case,
    /// A kustomization applied on its own (an overlay beside others of the same base, or one
    /// inside a folder of cases).
    Kustomization,
    /// A Helm chart inside a folder of cases.
    Chart,
    /// A folder or file the config's `worlds` names.
    World,
    /// One of several clusters a GitOps repository's bootstraps apply (named by the folder
    /// each syncs).
    Cluster,
    /// A file no Flux Kustomization or Argo CD Application of a GitOps repository applies:
    /// analysed alone, seeing nothing else and seen by nothing (docs/semantics.md §4.7).
    NotApplied,
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            UnitKind::Workspace => return f.write_str("the workspace"),
            UnitKind::Case => "case",
            UnitKind::Kustomization => "kustomization",
            UnitKind::Chart => "chart",
            UnitKind::World => "world",
            UnitKind::Cluster => "cluster",
            UnitKind::NotApplied => "file applied by nothing,",
        };
        write!(f, "{what} {}", self.name)
    }
}

/// How a unit changes the objects of a file it applies.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Transform {
    /// Every namespaced object's namespace (kustomize `namespace:`).
    pub namespace: Option<Str>,
    /// The namespace of objects that write none (a chart's release namespace).
    pub default_namespace: Option<Str>,
    pub name_prefix: Str,
    pub name_suffix: Str,
    /// The root kustomization that applies the file: two instances of one identity that it
    /// applies make `kustomize build` fail.
    pub kustomization: Option<Arc<str>>,
    /// The post-build variables of the Flux Kustomization that applies the file.
    pub vars: Option<Arc<Variables>>,
    /// The Flux Kustomization or Argo CD Application that applies the file.
    pub applied_by: Option<Arc<Applier>>,
    /// The kustomizations' `replacements` that select an object of the file, resolved to their
    /// values, innermost first (a later one wins).
    pub replacements: Option<Arc<[Replaced]>>,
}

/// A replacement target with the value its source gave.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Replaced {
    pub target: ReplacementTarget,
    pub value: Str,
}

impl Transform {
    /// The name `o` gets, when the transform renames it. kustomize's namespace transformer
    /// names every Namespace object after the namespace it sets (the common `namespace.yaml`
    /// with `name: _`), and never affixes a Namespace's name (`kubectl kustomize`, v5.5).
    pub fn name(&self, o: &Object) -> Option<Str> {
        if let Some(v) = self.replaced(o, "metadata.name", true) {
            return (*v != o.name.value).then(|| v.clone());
        }
        self.transformed_name(o)
    }

    /// The name the namespace and affix transformers give `o`.
    fn transformed_name(&self, o: &Object) -> Option<Str> {
        let name = &o.name.value;
        if o.kind() == "Namespace" && o.group().is_empty() {
            return self.namespace.clone().filter(|n| n != name);
        }
        (!self.name_prefix.is_empty() || !self.name_suffix.is_empty())
            .then(|| format!("{}{name}{}", self.name_prefix, self.name_suffix).into())
    }
}

impl Transform {
    /// The namespace `o` is in once transformed, as kustomize compares it (`None`: a Namespace,
    /// or nothing says).
    fn transformed_namespace<'a>(&'a self, o: &'a Object) -> Option<&'a str> {
        if o.kind() == "Namespace" && o.group().is_empty() {
            return None;
        }
        self.namespace
            .as_deref()
            .or_else(|| o.namespace.as_ref().map(|n| n.value.as_str()).filter(|n| !n.is_empty()))
            .or(self.default_namespace.as_deref())
    }

    /// Whether `target` selects `o` as transformed: its select matches the object's current
    /// identity or the one written (kustomize `MakeResIds` keeps the original ids), and no
    /// reject matches either.
    pub(super) fn selects(&self, target: &ReplacementTarget, o: &Object) -> bool {
        self.picks(&target.select, o) && !target.reject.iter().any(|r| !r.is_empty() && self.picks(r, o))
    }

    /// Whether `s` matches `o`'s current identity or the one written.
    pub(super) fn picks(&self, s: &ResSelector, o: &Object) -> bool {
        let current = self.transformed_name(o).unwrap_or_else(|| o.name.value.clone());
        let written_ns = o.namespace.as_ref().map(|n| n.value.as_str()).filter(|n| !n.is_empty());
        let ids = [(current.as_str(), self.transformed_namespace(o)), (o.name.value.as_str(), written_ns)];
        ids.iter().any(|(n, ns)| s.selects(o.group(), o.kind(), n, *ns, &o.labels))
    }

    /// This transform with `more` replacements after its own.
    pub(super) fn with_replacements(&self, more: &[Replaced]) -> Transform {
        let list: Vec<Replaced> = self.replacements.iter().flat_map(|r| r.iter()).chain(more).cloned().collect();
        Transform { replacements: Some(list.into()), ..self.clone() }
    }

    /// The value a replacement sets at `field` (a dotted path) of `o`, the last one that
    /// selects it; `written`: whether `o` has the field (else only `options.create` adds it,
    /// and without it kustomize fails and the field stays as written here).
    pub fn replaced(&self, o: &Object, field: &str, written: bool) -> Option<&Str> {
        let list = self.replacements.as_deref()?;
        list.iter()
            .rev()
            .find(|r| {
                (written || r.target.create)
                    && r.target.field_paths.iter().any(|f| f == field)
                    && self.selects(&r.target, o)
            })
            .map(|r| &r.value)
    }

    /// The namespace a replacement sets on `o` (`metadata.namespace`).
    pub fn replaced_namespace(&self, o: &Object) -> Option<&str> {
        let written = o.namespace.is_some() || self.namespace.is_some();
        self.replaced(o, "metadata.namespace", written).map(Str::as_str)
    }
}

/// What applies a file in a GitOps repository, for hover and explain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Applier {
    pub kind: ApplierKind,
    /// `namespace/name` of the object.
    pub name: Str,
    /// The file that defines it, relative to the workspace root.
    pub file: Arc<str>,
    /// The namespace it sets on what it applies (`targetNamespace`, `destination.namespace`).
    pub namespace: Option<Str>,
    /// The Argo CD ApplicationSet (`namespace/name`) that generates the Application.
    pub generated_by: Option<Str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApplierKind {
    FluxKustomization,
    ArgoApplication,
}

impl std::fmt::Display for Applier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, ns) = match self.kind {
            ApplierKind::FluxKustomization => ("Flux Kustomization", "targetNamespace"),
            ApplierKind::ArgoApplication => ("Argo CD Application", "destination namespace"),
        };
        write!(f, "the {what} `{}`", self.name)?;
        if let Some(set) = &self.generated_by {
            write!(f, " of the ApplicationSet `{set}`")?;
        }
        write!(f, " ({})", self.file)?;
        if let Some(n) = &self.namespace {
            write!(f, " with {ns} `{n}`")?;
        }
        Ok(())
    }
}

/// One instance of a file's objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub unit: u32,
    pub transform: Option<Arc<Transform>>,
    /// The file is a kustomize patch in this unit: its documents change objects the unit
    /// applies from elsewhere, they are not objects of their own.
    pub patch: bool,
}

impl Membership {
    const SHARED: Membership = Membership { unit: 0, transform: None, patch: false };
}

/// The units of a set of files.
#[derive(Debug)]
pub struct Units {
    /// By index; 0 is the workspace.
    pub list: Vec<Unit>,
    /// Per file path, its instances; a file not listed has one, in unit 0, untransformed.
    by_file: HashMap<Arc<str>, Box<[Membership]>>,
    /// Indexes into the config's `worlds` of the globs that matched no file.
    pub unmatched_worlds: Vec<usize>,
    /// Files inside a folder of cases (whatever their unit: a shared `base/` too), with the
    /// outermost case folder holding them.
    in_case_folders: HashMap<Arc<str>, Arc<str>>,
    /// Some unit is [`UnitKind::NotApplied`].
    isolated: bool,
    /// Files where kubebuilder writes its samples: a scaffold there is not applied.
    samples: HashSet<Arc<str>>,
    /// Files holding Argo CD Applications, with their path relative to the root: what an
    /// Application's Helm source renders is applied by it.
    argo_files: HashMap<Arc<str>, Arc<str>>,
}

impl Default for Units {
    fn default() -> Units {
        Units {
            list: vec![Unit { kind: UnitKind::Workspace, name: "".into() }],
            by_file: HashMap::new(),
            unmatched_worlds: Vec::new(),
            in_case_folders: HashMap::new(),
            isolated: false,
            samples: HashSet::new(),
            argo_files: HashMap::new(),
        }
    }
}

impl Units {
    /// The instances of a file's objects.
    pub fn of(&self, path: &str) -> &[Membership] {
        self.by_file.get(path).map_or(std::slice::from_ref(&Membership::SHARED), |m| m)
    }

    /// Whether the file lies in a folder of cases (tests, examples).
    pub fn in_case_folder(&self, path: &str) -> bool {
        self.in_case_folders.contains_key(path)
    }

    /// The outermost folder of cases holding the file, if any.
    pub fn case_folder(&self, path: &str) -> Option<&str> {
        self.in_case_folders.get(path).map(|f| &**f)
    }

    /// Whether object `o` of file `path` takes part in nothing: an input meant to fail, or a
    /// scaffold (docs/semantics.md §4.8).
    pub fn is_inert(&self, path: &str, o: &crate::model::Object) -> bool {
        intent::inert(o, self.samples.contains(path))
    }

    /// The Argo CD Application `o` of file `path` as what applies the objects its Helm source
    /// renders (in its destination namespace).
    pub fn argo_applier(&self, path: &str, o: &Object, namespace: Option<&Str>) -> Option<Arc<Applier>> {
        let file = self.argo_files.get(path)?.clone();
        let own = o.namespace.as_ref().map_or("argocd", |n| n.value.as_str());
        Some(Arc::new(Applier {
            kind: ApplierKind::ArgoApplication,
            name: format!("{own}/{}", o.name.value).into(),
            file,
            namespace: namespace.cloned(),
            generated_by: None,
        }))
    }

    pub fn unit(&self, i: u32) -> &Unit {
        &self.list[(i as usize).min(self.list.len() - 1)]
    }

    /// Whether objects of unit `from` may see those of unit `to`: its own, and the workspace's
    /// unless it is applied by nothing.
    pub fn sees(&self, from: u32, to: u32) -> bool {
        to == from || (to == 0 && !(self.isolated && self.unit(from).kind == UnitKind::NotApplied))
    }

    /// Whether a file of a GitOps repository is applied by nothing.
    pub fn not_applied(&self, path: &str) -> bool {
        self.isolated && self.of(path).iter().any(|m| self.unit(m.unit).kind == UnitKind::NotApplied)
    }

    /// Whether every file is one untransformed instance in unit 0 (most GitOps repositories).
    pub fn is_trivial(&self) -> bool {
        self.by_file.is_empty()
    }

    /// The units of `files` (all of a workspace), as `config` and the files say.
    pub fn compute(files: &[Arc<SourceFile>], config: &Config, cluster_scoped: &HashSet<GroupKind>) -> Units {
        let rel: Vec<String> = files.iter().map(|f| relative(&f.path, config, &config.roots)).collect();
        // `worlds` globs are relative to the config file's directory.
        let base: Vec<PathBuf> = config.base_dir.iter().cloned().collect();
        let world_rel: Vec<String> = if base.is_empty() {
            rel.clone()
        } else {
            files.iter().map(|f| relative(&f.path, config, &base)).collect()
        };
        let mut b = Builder { files, rel: &rel, units: Units::default(), claimed: vec![false; files.len()] };
        b.units.samples =
            rel.iter().zip(files).filter(|(r, _)| intent::in_samples(r)).map(|(_, f)| f.path.clone()).collect();
        let by_rel: HashMap<&str, usize> = rel.iter().enumerate().map(|(i, r)| (r.as_str(), i)).collect();
        let worlds = WorldGlobs::new(config);
        let mut matched_worlds = vec![false; config.worlds.len()];
        let cases = CaseFolders::new(config);

        // Kustomizations first: they say exactly what they apply. In a GitOps repository, what
        // its Flux Kustomizations and Argo CD Applications apply; a kustomization they do not
        // reach is applied by nothing (unless it lies in a folder of cases), when all they apply
        // is known.
        let kustomize = Kustomize::read(files, &rel, &by_rel);
        let flux = flux::apply(&mut b, &kustomize).found;
        let argo = argocd::apply(&mut b, &kustomize);
        let gitops = (flux || argo.found) && argo.complete;
        for (root, group) in kustomize.roots() {
            if b.claimed[root] || (gitops && cases.folder_of(parent(&rel[root])).is_none()) {
                continue;
            }
            let root_dir = parent(&rel[root]).to_owned();
            let unit = match worlds.world_of(&world_rel[root], &mut matched_worlds) {
                Some(w) => b.unit(UnitKind::World, &w),
                None if group > 1 || cases.folder_of(&root_dir).is_some() => b.unit(UnitKind::Kustomization, &root_dir),
                None => 0,
            };
            for (fi, transform, patch) in kustomize.applied(root) {
                b.add(fi, Membership { unit, transform: Some(transform), patch });
            }
        }

        // Charts: the templates of the innermost chart around them.
        // What a GitOps repository's controllers do not apply, outside folders of cases and
        // charts: each file alone.
        if gitops {
            let chart_dirs = charts_of(&rel);
            for fi in 0..files.len() {
                let r = &rel[fi];
                if b.claimed[fi]
                    || files[fi].origin != Origin::Workspace
                    || files[fi].objects.is_empty()
                    || cases.folder_of(parent(r)).is_some()
                    || chart_root(r, &chart_dirs).is_some()
                {
                    continue;
                }
                let unit = b.unit(UnitKind::NotApplied, r);
                b.add(fi, Membership { unit, transform: None, patch: false });
                b.units.isolated = true;
            }
        }

        let charts: HashSet<&str> =
            rel.iter().filter(|r| r.rsplit('/').next() == Some("Chart.yaml")).map(|r| parent(r)).collect();
        let mut chart_of: Vec<Option<String>> = vec![None; files.len()];
        for (fi, r) in rel.iter().enumerate() {
            if b.claimed[fi] || files[fi].origin != Origin::Workspace {
                continue;
            }
            chart_of[fi] = chart_root(r, &charts);
        }

        // The config's worlds, then folders of cases.
        let mut pending: Vec<usize> = Vec::new();
        for fi in 0..files.len() {
            if b.claimed[fi] || files[fi].origin != Origin::Workspace {
                continue;
            }
            let release = chart_of[fi].as_ref().map(|_| release_transform());
            if let Some(w) = worlds.world_of(&world_rel[fi], &mut matched_worlds) {
                let unit = b.unit(UnitKind::World, &w);
                b.add(fi, Membership { unit, transform: release, patch: false });
            } else if let Some(root) = cases.outermost(parent(&rel[fi])) {
                if intent::named_for_failure(&rel[fi], &root) {
                    // An input meant to fail: in no unit.
                    b.claimed[fi] = true;
                    b.units.by_file.insert(files[fi].path.clone(), Box::default());
                } else {
                    pending.push(fi);
                }
            } else if release.is_some() {
                b.add(fi, Membership { unit: 0, transform: release, patch: false });
            }
        }
        b.units.in_case_folders = pending
            .iter()
            .map(|&fi| (files[fi].path.clone(), cases.outermost(parent(&rel[fi])).unwrap_or_default().into()))
            .collect();
        b.cases(&pending, &chart_of, &cases, cluster_scoped, config);

        let mut units = b.units;
        units.unmatched_worlds = (0..config.worlds.len()).filter(|&i| !matched_worlds[i]).collect();
        units
    }
}

fn release_transform() -> Arc<Transform> {
    Arc::new(Transform { default_namespace: Some(RELEASE_NAMESPACE.into()), ..Transform::default() })
}

struct Builder<'a> {
    files: &'a [Arc<SourceFile>],
    rel: &'a [String],
    units: Units,
    claimed: Vec<bool>,
}

impl Builder<'_> {
    fn unit(&mut self, kind: UnitKind, name: &str) -> u32 {
        if let Some(i) = self.units.list.iter().position(|u| u.kind == kind && *u.name == *name) {
            return i as u32;
        }
        self.units.list.push(Unit { kind, name: name.into() });
        self.units.list.len() as u32 - 1
    }

    fn add(&mut self, fi: usize, m: Membership) {
        self.claimed[fi] = true;
        let path = self.files[fi].path.clone();
        let entry = self.units.by_file.entry(path).or_default();
        if !entry.contains(&m) {
            let mut v = entry.to_vec();
            v.push(m);
            *entry = v.into();
        }
    }
}

/// The directory of a relative path (`""` at the root).
fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The folders holding a `Chart.yaml`.
fn charts_of(rel: &[String]) -> HashSet<&str> {
    rel.iter().filter(|r| r.rsplit('/').next() == Some("Chart.yaml")).map(|r| parent(r)).collect()
}

/// The innermost chart whose `templates/` or `crds/` hold `rel`.
fn chart_root(rel: &str, charts: &HashSet<&str>) -> Option<String> {
    let mut dir = parent(rel);
    let mut below = String::new();
    loop {
        if charts.contains(dir) && (below.starts_with("templates") || below.starts_with("crds")) {
            return Some(dir.to_owned());
        }
        let (up, name) = match dir.rsplit_once('/') {
            Some((u, n)) => (u, n),
            None if dir.is_empty() => return None,
            None => ("", dir),
        };
        below = if below.is_empty() { name.to_owned() } else { format!("{name}/{below}") };
        dir = up;
    }
}

/// A file's path relative to the root it lies under (the longest), with `/`.
fn relative(path: &str, config: &Config, roots: &[PathBuf]) -> String {
    let p = Path::new(path);
    let abs: PathBuf = match (&config.cwd, p.is_absolute()) {
        (Some(cwd), false) => cwd.join(p),
        _ => p.to_path_buf(),
    };
    let rel = roots
        .iter()
        .filter_map(|r| abs.strip_prefix(r).ok())
        .min_by_key(|r| r.components().count())
        .map(Path::to_path_buf);
    match rel {
        Some(r) => r.to_string_lossy().replace('\\', "/"),
        // Outside every root nothing is known of its folders: none of them decides a unit.
        None if p.is_absolute() => path.rsplit('/').next().unwrap_or(path).to_owned(),
        None => path.strip_prefix("./").unwrap_or(path).to_owned(),
    }
}

/// `dir/entry` with `.` and `..` resolved, `/`-separated, no trailing slash.
fn join(dir: &str, entry: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for c in entry.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests;
