//! Kustomizations read natively: what each root applies, with its transforms.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{Replaced, Transform, join, parent};
use crate::model::gitops::GitOps;
use crate::model::{
    Body, Kustomization, Object, Replacement, ReplacementEntry, ReplacementSource, Str, is_kustomization_file,
    is_remote,
};
use crate::source::{Origin, SourceFile};

/// The kustomizations of a workspace and what each root applies.
pub(super) struct Kustomize<'a> {
    files: &'a [Arc<SourceFile>],
    /// Kustomization file index by its directory (relative).
    by_dir: HashMap<String, usize>,
    by_rel: &'a HashMap<&'a str, usize>,
    rel: &'a [String],
    /// File indexes by relative path, sorted: the files below a folder are a run.
    sorted: Vec<usize>,
}

impl<'a> Kustomize<'a> {
    pub(super) fn read(
        files: &'a [Arc<SourceFile>],
        rel: &'a [String],
        by_rel: &'a HashMap<&'a str, usize>,
    ) -> Kustomize<'a> {
        let by_dir = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kustomization.is_some() && f.origin == Origin::Workspace)
            .map(|(i, _)| (parent(&rel[i]).to_owned(), i))
            .collect();
        let mut sorted: Vec<usize> = (0..files.len()).collect();
        sorted.sort_by(|&a, &b| rel[a].cmp(&rel[b]));
        Kustomize { files, by_dir, by_rel, rel, sorted }
    }

    fn kustomization(&self, fi: usize) -> Option<&Kustomization> {
        self.files[fi].kustomization.as_deref()
    }

    /// The kustomizations an entry of `dir` names (`resources`, `components`): a directory
    /// holding one.
    fn included(&self, dir: &str, entry: &str) -> Option<usize> {
        if is_remote(entry) {
            return None;
        }
        self.by_dir.get(&join(dir, entry)).copied()
    }

    /// Root kustomizations (no other includes them), each with the size of its group of
    /// variants (roots that share a base: overlays of one application).
    pub(super) fn roots(&self) -> Vec<(usize, usize)> {
        let mut included: HashSet<usize> = HashSet::new();
        let mut bases_of: HashMap<usize, HashSet<usize>> = HashMap::new();
        for (dir, &k) in &self.by_dir {
            let Some(kz) = self.kustomization(k) else { continue };
            for e in kz.resources.iter().chain(&kz.components) {
                if let Some(i) = self.included(dir, &e.value) {
                    included.insert(i);
                }
            }
        }
        let mut roots: Vec<usize> =
            self.by_dir.values().copied().filter(|k| !included.contains(k) && !self.is_component(*k)).collect();
        roots.sort_unstable();
        for &r in &roots {
            let mut seen = HashSet::new();
            self.bases(r, &mut seen);
            seen.remove(&r);
            bases_of.insert(r, seen);
        }
        // Roots sharing a base are variants of one another.
        let mut group: Vec<usize> = (0..roots.len()).collect();
        for i in 0..roots.len() {
            for j in i + 1..roots.len() {
                if !bases_of[&roots[i]].is_disjoint(&bases_of[&roots[j]]) {
                    let (a, b) = (group[i], group[j]);
                    for g in &mut group {
                        if *g == b {
                            *g = a;
                        }
                    }
                }
            }
        }
        roots.iter().enumerate().map(|(i, &r)| (r, group.iter().filter(|&&g| g == group[i]).count())).collect()
    }

    fn is_component(&self, k: usize) -> bool {
        self.kustomization(k).is_some_and(|kz| kz.component)
    }

    /// The non-component kustomizations reachable from `k` (itself included).
    fn bases(&self, k: usize, seen: &mut HashSet<usize>) {
        if !seen.insert(k) {
            return;
        }
        let dir = parent(&self.rel[k]).to_owned();
        let Some(kz) = self.kustomization(k) else { return };
        for e in &kz.resources {
            if let Some(i) = self.included(&dir, &e.value)
                && !self.is_component(i)
            {
                self.bases(i, seen);
            }
        }
    }

    /// Every file `root` applies, with the transform its kustomizations make, and whether it
    /// is a patch.
    pub(super) fn applied(&self, root: usize) -> Vec<(usize, Arc<Transform>, bool)> {
        let mut out = Vec::new();
        let base = Transform { kustomization: Some(self.rel[root].as_str().into()), ..Transform::default() };
        let mut stack = Vec::new();
        self.collect(root, &base, &mut stack, &mut out);
        out
    }

    fn collect(
        &self,
        k: usize,
        outer: &Transform,
        stack: &mut Vec<usize>,
        out: &mut Vec<(usize, Arc<Transform>, bool)>,
    ) {
        if stack.contains(&k) {
            return;
        }
        let Some(kz) = self.kustomization(k) else { return };
        stack.push(k);
        // Outer transformers run after inner ones: the outer namespace wins, affixes nest.
        let t = Transform {
            namespace: outer.namespace.clone().or_else(|| kz.namespace.as_ref().map(|n| n.value.clone())),
            // What the applier sets on objects that name none (an Argo CD destination).
            default_namespace: outer.default_namespace.clone(),
            name_prefix: format!("{}{}", outer.name_prefix, kz.name_prefix.as_deref().unwrap_or("")).into(),
            name_suffix: format!("{}{}", kz.name_suffix.as_deref().unwrap_or(""), outer.name_suffix).into(),
            ..outer.clone()
        };
        let shared = Arc::new(t.clone());
        let dir = parent(&self.rel[k]).to_owned();
        let start = out.len();
        // What its `helmCharts` render (the kustomization file's own objects,
        // `model::helm_chart_items`): the chart writes `namespace: {{ .Release.Namespace }}`,
        // so only a namespace the kustomizations set replaces it, never an applier's default.
        if !self.files[k].objects.is_empty() {
            out.push((k, Arc::new(Transform { default_namespace: None, ..t.clone() }), false));
        }
        for e in kz.resources.iter().chain(&kz.components) {
            if is_remote(&e.value) {
                continue;
            }
            let path = join(&dir, &e.value);
            if let Some(&fi) = self.by_rel.get(path.as_str()) {
                out.push((fi, shared.clone(), false));
            } else if let Some(&i) = self.by_dir.get(&path) {
                self.collect(i, &t, stack, out);
            }
        }
        if !kz.replacements.is_empty() {
            self.replace(&dir, kz, &mut out[start..]);
        }
        for p in &kz.patches {
            if let Some(&fi) = self.by_rel.get(join(&dir, &p.value).as_str()) {
                out.push((fi, shared.clone(), true));
            }
        }
        stack.pop();
    }

    /// Runs the `replacements` of the kustomization of `dir` over what it `built`, last of its
    /// transformers (kubernetes-sigs/kustomize 12f9e63 `api/internal/target/kusttarget.go`
    /// `configureBuiltinTransformers`; `api/filters/replacement/replacement.go`): each source
    /// must select exactly one object and have the field, else kustomize fails and nothing is
    /// replaced here. The files holding a target get the resolved values in their transform,
    /// read where policylens reads those fields ([`Transform::replaced`]).
    fn replace(&self, dir: &str, kz: &Kustomization, built: &mut [(usize, Arc<Transform>, bool)]) {
        let mut items: Vec<Replacement> = Vec::new();
        for e in &kz.replacements {
            match e {
                ReplacementEntry::Inline(r) => items.push(r.clone()),
                ReplacementEntry::Path(p) => {
                    if let Some(&fi) = self.by_rel.get(join(dir, &p.value).as_str()) {
                        items.extend(Replacement::read_file(self.files[fi].text()));
                    }
                }
            }
        }
        let mut resolved: Vec<Replaced> = Vec::new();
        for r in items {
            let value = match &r.source {
                ReplacementSource::Value(v) => v.clone(),
                ReplacementSource::Field { select, field_path } => {
                    let mut found = built
                        .iter()
                        .filter(|(_, _, patch)| !patch)
                        .flat_map(|(fi, t, _)| self.files[*fi].objects.iter().map(move |o| (o, t)))
                        .filter(|(o, t)| t.picks(select, o));
                    let (Some((o, t)), None) = (found.next(), found.next()) else { continue };
                    // The replacements before this one have run.
                    match field_value(o, &t.with_replacements(&resolved), field_path) {
                        Some(v) => v,
                        None => continue,
                    }
                }
                ReplacementSource::Unsupported => continue,
            };
            resolved.extend(r.targets.into_iter().map(|target| Replaced { target, value: value.clone() }));
        }
        if resolved.is_empty() {
            return;
        }
        // One new transform per transform replaced, shared by its files as before.
        let mut replaced: HashMap<*const Transform, Arc<Transform>> = HashMap::new();
        for (fi, t, patch) in built.iter_mut() {
            let targeted = |o: &Object| resolved.iter().any(|r| t.selects(&r.target, o));
            if *patch || !self.files[*fi].objects.iter().any(targeted) {
                continue;
            }
            let with = replaced.entry(Arc::as_ptr(t)).or_insert_with(|| Arc::new(t.with_replacements(&resolved)));
            *t = with.clone();
        }
    }

    /// What a Flux Kustomization of `dir` applies with `outer`: the kustomization file there,
    /// else every manifest below it as kustomize-controller generates one (fluxcd/pkg
    /// `kustomize/kustomize_generator.go` `scanManifests`: a sub-folder holding a kustomization
    /// file is that kustomization, not descended into).
    pub(super) fn apply_dir(&self, dir: &str, outer: &Arc<Transform>, out: &mut Vec<(usize, Arc<Transform>, bool)>) {
        if let Some(&k) = self.by_dir.get(dir) {
            self.collect(k, outer, &mut Vec::new(), out);
            return;
        }
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let start = self.sorted.partition_point(|&i| self.rel[i].as_str() < prefix.as_str());
        let mut nested: HashSet<&str> = HashSet::new();
        for &fi in &self.sorted[start..] {
            let r = self.rel[fi].as_str();
            if !r.starts_with(&prefix) {
                break;
            }
            if self.files[fi].origin != Origin::Workspace || is_kustomization_file(r) {
                continue;
            }
            let inner = r[prefix.len()..]
                .match_indices('/')
                .map(|(i, _)| &r[..prefix.len() + i])
                .find(|d| self.by_dir.contains_key(*d));
            match inner {
                Some(d) => {
                    if nested.insert(d) {
                        self.collect(self.by_dir[d], outer, &mut Vec::new(), out);
                    }
                }
                None => out.push((fi, outer.clone(), false)),
            }
        }
    }

    /// Whether `dir` holds a kustomization file.
    pub(super) fn is_kustomization_dir(&self, dir: &str) -> bool {
        self.by_dir.contains_key(dir)
    }

    /// The kustomization file in `dir`, read.
    pub(super) fn at(&self, dir: &str) -> Option<&Kustomization> {
        self.by_dir.get(dir).and_then(|&k| self.kustomization(k))
    }

    /// The workspace files below `dir` (relative), in path order: all of them, or with
    /// `recurse` false only those directly in it. Kustomization files are left out.
    pub(super) fn files_below(&self, dir: &str, recurse: bool) -> Vec<usize> {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let start = self.sorted.partition_point(|&i| self.rel[i].as_str() < prefix.as_str());
        self.sorted[start..]
            .iter()
            .copied()
            .take_while(|&fi| self.rel[fi].starts_with(&prefix))
            .filter(|&fi| {
                let r = &self.rel[fi];
                self.files[fi].origin == Origin::Workspace
                    && !is_kustomization_file(r)
                    && (recurse || !r[prefix.len()..].contains('/'))
            })
            .collect()
    }

    /// What the kustomization at `dir` applies with `outer`, as `kustomize build` renders it:
    /// a Component a Flux Kustomization adds (`spec.components`), an Argo CD kustomize source.
    pub(super) fn apply_kustomization(
        &self,
        dir: &str,
        outer: &Arc<Transform>,
        out: &mut Vec<(usize, Arc<Transform>, bool)>,
    ) {
        if let Some(&k) = self.by_dir.get(dir) {
            self.collect(k, outer, &mut Vec::new(), out);
        }
    }
}

/// The value of a replacement source's field, as transformed: the names and namespaces, and
/// the Flux Kustomization fields policylens reads; `None` for any other field (the targets
/// keep what they write).
fn field_value(o: &Object, t: &Transform, path: &str) -> Option<Str> {
    match path {
        "metadata.name" => Some(t.name(o).unwrap_or_else(|| o.name.value.clone())),
        "metadata.namespace" => t
            .replaced_namespace(o)
            .or_else(|| t.namespace.as_deref().filter(|_| o.kind() != "Namespace"))
            .or_else(|| o.namespace.as_ref().map(|n| n.value.as_str()).filter(|n| !n.is_empty()))
            .map(Str::from),
        "spec.targetNamespace" | "spec.path" => {
            let Body::Other(other) = &o.body else { return None };
            let Some(GitOps::Flux(spec)) = other.gitops.as_deref() else { return None };
            let written = if path == "spec.path" { spec.path.as_ref() } else { spec.target_namespace.as_ref() };
            t.replaced(o, path, written.is_some()).or(written.map(|w| &w.value)).cloned()
        }
        _ => None,
    }
}
