//! Flux Kustomizations as units (docs/semantics.md §4.7): what each `kustomize.toolkit.fluxcd.io`
//! Kustomization of this repository applies, with its `targetNamespace`, name affixes and
//! post-build variables, starting from what the cluster's bootstrap applies.
//!
//! The rules are kustomize-controller's (fluxcd/kustomize-controller 186fb3b,
//! `internal/controller/kustomization_controller.go` `build`) and fluxcd/pkg's (e2cfd1a):
//! - `spec.path` is relative to the source's root; a kustomization file there is built as it is,
//!   else one is generated listing every `.yaml`/`.yml` below the path, a sub-folder holding a
//!   kustomization file as itself without descending into it (`kustomize/kustomize_generator.go`
//!   `findOrGenerateKustomization`, `scanManifests`).
//! - `targetNamespace` is that kustomization's `namespace:`, `namePrefix`/`nameSuffix` its
//!   affixes, `components` are added to it, relative to the path (`GenerateManifest`).
//! - After the build, every object whose kind does not opt out (label or annotation
//!   `kustomize.toolkit.fluxcd.io/substitute: disabled`) is substituted with the variables of
//!   `postBuild.substituteFrom` (ConfigMaps and Secrets in the Kustomization's namespace, in order)
//!   overridden by `postBuild.substitute` (`kustomize/kustomize_varsub.go`).
//!
//! A Kustomization nothing in the repository applies was applied by the cluster's bootstrap
//! (`flux bootstrap`'s `flux-system` Kustomization applies its own folder; Flux Operator's
//! FluxInstance syncs `spec.sync.path`): those are the roots. One whose `sourceRef` names
//! another repository's source applies nothing of this one.

use std::collections::HashSet;
use std::sync::Arc;

use super::kustomize::Kustomize;
use super::{Applier, ApplierKind, Builder, Membership, Transform, UnitKind, join, parent};
use crate::model::gitops::{ChildPatch, FluxKustomization, GitOps, PostBuild, Vars};
use crate::model::{Body, Object, Spanned, Str, Variables, labels_match};
use crate::source::Origin;

/// The source every bootstrap names the repository it was bootstrapped from.
const BOOTSTRAP_SOURCE: &str = "flux-system";
/// Kinds of Flux sources: a Kustomization naming one the repository defines under another
/// name than the bootstrap's applies another repository.
const SOURCE_KINDS: &[&str] = &["GitRepository", "OCIRepository", "Bucket", "ExternalArtifact"];
/// fluxcd/source-controller `api/v1/groupversion_info.go`.
const FLUX_SOURCE_GROUP: &str = "source.toolkit.fluxcd.io";

/// One Flux Kustomization object.
struct Ks<'a> {
    fi: usize,
    object: &'a Object,
    spec: &'a FluxKustomization,
}

/// A root: a Kustomization, or a folder the bootstrap syncs.
enum Root {
    Ks(usize),
    Sync(String),
}

/// What the Flux pass found: whether the repository is a Flux repository at all.
pub(super) struct Flux {
    pub found: bool,
}

pub(super) fn apply(b: &mut Builder, k: &Kustomize) -> Flux {
    let files = b.files;
    let mut ks: Vec<Ks> = Vec::new();
    let mut syncs: Vec<String> = Vec::new();
    let mut vars: Vec<(&str, &Object, &Vars)> = Vec::new();
    let mut foreign: HashSet<&str> = HashSet::new();
    for (fi, f) in files.iter().enumerate().filter(|(_, f)| f.origin == Origin::Workspace) {
        for o in &f.objects {
            // Whatever else a source is read as (an OCIRepository serving a chart is a chart
            // source too), one under another name than the bootstrap's is another repository.
            if o.group() == FLUX_SOURCE_GROUP && SOURCE_KINDS.contains(&o.kind()) && o.name.value != BOOTSTRAP_SOURCE {
                foreign.insert(&o.name.value);
            }
            let Body::Other(other) = &o.body else { continue };
            match other.gitops.as_deref() {
                Some(GitOps::Flux(spec)) => ks.push(Ks { fi, object: o, spec }),
                Some(GitOps::Sync(path)) => syncs.push(clean(&path.value)),
                Some(GitOps::Vars(v)) => vars.push((o.kind(), o, v)),
                _ => {}
            }
        }
    }
    // A Kustomization of this repository: the bootstrap's source, or one the repository does
    // not define (a source made by the bootstrap under its own name).
    ks.retain(|x| x.spec.source_name.is_empty() || !foreign.contains(x.spec.source_name.as_str()));
    if ks.is_empty() && syncs.is_empty() {
        return Flux { found: false };
    }
    let flux = FluxPass { k, ks: &ks, vars: &vars };

    // Roots: what no other Kustomization (nor a synced folder) reaches, read as written.
    let mut reached_by: Vec<HashSet<usize>> = vec![HashSet::new(); files.len()];
    for (i, x) in ks.iter().enumerate() {
        let t = Arc::new(Transform::default());
        let comps: Vec<String> = x.spec.components.iter().map(|c| c.value.to_string()).collect();
        for (fi, _, _) in flux.build(&clean(x.spec.path.as_ref().map_or("", |p| &p.value)), &comps, &t) {
            reached_by[fi].insert(i);
        }
    }
    let mut synced: HashSet<usize> = HashSet::new();
    for s in &syncs {
        synced.extend(flux.build(s, &[], &Arc::new(Transform::default())).into_iter().map(|(fi, _, _)| fi));
    }
    let mut roots: Vec<(Root, String)> = syncs.iter().map(|s| (Root::Sync(s.clone()), s.clone())).collect();
    // Where the bootstrap is in the files (a synced folder, a Kustomization applying its own
    // folder), it is where the cluster starts: a Kustomization nothing reaches from it is one
    // its folder's kustomization no longer lists (the usual way to disable an app), applied by
    // nothing, not a cluster of its own.
    let bootstrapped = !syncs.is_empty() || ks.iter().enumerate().any(|(i, x)| reached_by[x.fi].contains(&i));
    for (i, x) in ks.iter().enumerate() {
        let others = reached_by[x.fi].iter().any(|&j| j != i);
        if others || synced.contains(&x.fi) || (bootstrapped && !reached_by[x.fi].contains(&i)) {
            continue;
        }
        let path = clean(x.spec.path.as_ref().map_or("", |p| &p.value));
        // The cluster: the folder a bootstrap Kustomization applies itself from, else the
        // folder it lies in.
        let cluster = if reached_by[x.fi].contains(&i) { path } else { parent(&b.rel[x.fi]).to_owned() };
        roots.push((Root::Ks(i), cluster));
    }
    let mut clusters: Vec<&str> = roots.iter().map(|(_, c)| c.as_str()).collect();
    clusters.sort_unstable();
    clusters.dedup();
    let several = clusters.len() > 1;

    // Every Kustomization instance, from the roots down.
    let mut applied = 0usize;
    let mut queue: Vec<Pending> = Vec::new();
    for (root, cluster) in &roots {
        let unit = if several { b.unit(UnitKind::Cluster, cluster) } else { 0 };
        match root {
            Root::Ks(i) => queue.push(Pending { k: *i, outer: None, patches: Arc::from([]), unit, depth: 0 }),
            Root::Sync(path) => {
                for (fi, t, patch) in flux.build(path, &[], &Arc::new(Transform::default())) {
                    b.add(fi, Membership { unit, transform: Some(t.clone()), patch });
                    applied += 1;
                    flux.children(fi, &t, &Arc::from([]), unit, 0, &mut queue);
                }
            }
        }
    }
    let mut seen: HashSet<(usize, Option<Arc<Transform>>, u32)> = HashSet::new();
    while let Some(p) = queue.pop() {
        if p.depth > MAX_DEPTH || !seen.insert((p.k, p.outer.clone(), p.unit)) {
            continue;
        }
        let x = &ks[p.k];
        let (own, path, components) = flux.instance(x, p.outer.as_deref(), &p.patches, &b.rel[x.fi]);
        let own = Arc::new(own);
        let patches: Arc<[ChildPatch]> = x.spec.child_patches.clone().into();
        for (fi, t, patch) in flux.build(&path, &components, &own) {
            b.add(fi, Membership { unit: p.unit, transform: Some(t.clone()), patch });
            applied += 1;
            flux.children(fi, &t, &patches, p.unit, p.depth + 1, &mut queue);
        }
    }
    // Paths are relative to the repository's root: where none names a file, this folder is not
    // that root (a folder holding several repositories, opened whole), and nothing is said
    // about what is applied.
    Flux { found: applied > 0 }
}

/// Nested Kustomizations deeper than this are a cycle the instance keys did not catch.
const MAX_DEPTH: u32 = 32;

struct Pending {
    k: usize,
    /// The transform the Kustomization object itself is applied with (its parent's).
    outer: Option<Arc<Transform>>,
    /// Its parent's patches for the Kustomizations it applies.
    patches: Arc<[ChildPatch]>,
    unit: u32,
    depth: u32,
}

struct FluxPass<'a, 'b> {
    k: &'a Kustomize<'b>,
    ks: &'a [Ks<'a>],
    vars: &'a [(&'a str, &'a Object, &'a Vars)],
}

impl FluxPass<'_, '_> {
    /// What a Kustomization of `path` with `components` (relative to it) applies with `t`:
    /// each file with its transform (the kustomizations' below it), and whether it is a patch.
    fn build(&self, path: &str, components: &[String], t: &Arc<Transform>) -> Vec<(usize, Arc<Transform>, bool)> {
        let mut out = Vec::new();
        self.k.apply_dir(path, t, &mut out);
        for c in components {
            self.k.apply_kustomization(&join(path, c), t, &mut out);
        }
        out
    }

    /// The Kustomizations file `fi` holds, applied with `t`, queued.
    fn children(
        &self,
        fi: usize,
        t: &Arc<Transform>,
        patches: &Arc<[ChildPatch]>,
        unit: u32,
        depth: u32,
        queue: &mut Vec<Pending>,
    ) {
        for (i, _) in self.ks.iter().enumerate().filter(|(_, x)| x.fi == fi) {
            queue.push(Pending { k: i, outer: Some(t.clone()), patches: patches.clone(), unit, depth });
        }
    }

    /// The transform a Kustomization applies its files with, its path and its components:
    /// its spec as its parent applied it (substituted with the parent's variables, in the
    /// namespace the parent puts it in, with the parent's patches).
    fn instance(
        &self,
        x: &Ks,
        outer: Option<&Transform>,
        patches: &[ChildPatch],
        file: &str,
    ) -> (Transform, String, Vec<String>) {
        let parent_vars = outer.and_then(|o| o.vars.as_deref());
        let sub = |s: &str| -> String { parent_vars.and_then(|v| v.substitute(s)).unwrap_or_else(|| s.to_owned()) };
        let name = sub(&outer.and_then(|o| o.name(x.object)).unwrap_or_else(|| x.object.name.value.clone()));
        let namespace = outer
            .and_then(|o| o.replaced_namespace(x.object).map(Str::from).or_else(|| o.namespace.clone()))
            .or_else(|| x.object.namespace.as_ref().map(|n| n.value.clone()))
            .map_or_else(|| "default".to_owned(), |n| sub(&n));
        let labels: Vec<(Str, Str)> = x.object.labels.iter().map(|(k, v)| (k.clone(), Str::from(sub(v)))).collect();
        let post_build = effective_post_build(x.spec.post_build.as_ref(), patches, &name, &labels);
        let vars = post_build.map(|pb| Arc::new(self.variables(&pb, &namespace, &sub)));
        // A field a parent kustomization's `replacements` set (the namespace component's
        // Namespace name copied into every Kustomization's targetNamespace), else as written.
        let field = |path: &str, written: Option<&Spanned<Str>>| -> Option<String> {
            outer
                .and_then(|o| o.replaced(x.object, path, written.is_some()))
                .or(written.map(|w| &w.value))
                .map(|v| sub(v))
        };
        let target = field("spec.targetNamespace", x.spec.target_namespace.as_ref()).map(Str::from);
        let path = clean(&field("spec.path", x.spec.path.as_ref()).unwrap_or_default());
        let components = x.spec.components.iter().map(|c| sub(&c.value)).collect();
        let shown = if path.is_empty() { "." } else { path.as_str() };
        let applier = Applier {
            kind: ApplierKind::FluxKustomization,
            name: format!("{namespace}/{name}").into(),
            file: file.into(),
            namespace: target.clone(),
            generated_by: None,
        };
        let transform = Transform {
            namespace: target,
            default_namespace: None,
            name_prefix: x.spec.name_prefix.as_deref().map(&sub).unwrap_or_default().into(),
            name_suffix: x.spec.name_suffix.as_deref().map(&sub).unwrap_or_default().into(),
            kustomization: Some(format!("{shown} of the Flux Kustomization {namespace}/{name}").into()),
            vars,
            applied_by: Some(Arc::new(applier)),
            replacements: None,
        };
        (transform, path, components)
    }

    /// The variables of a `postBuild`: its sources in order, then `substitute`.
    fn variables(&self, pb: &PostBuild, namespace: &str, sub: &dyn Fn(&str) -> String) -> Variables {
        let mut complete = true;
        let mut pairs: Vec<(Str, Str)> = Vec::new();
        for r in &pb.from {
            let name = sub(&r.name);
            let found: Vec<&(&str, &Object, &Vars)> =
                self.vars.iter().filter(|(kind, o, _)| **kind == *r.kind && o.name.value == name).collect();
            // The Kustomization's namespace's, when the files say; else the one of that name.
            let source = found
                .iter()
                .find(|(_, o, _)| o.namespace.as_ref().is_some_and(|n| n.value == namespace))
                .or_else(|| found.first());
            match source {
                Some((_, _, v)) if !v.encrypted => pairs.extend(v.entries.iter().cloned()),
                _ => complete = false,
            }
        }
        pairs.extend(pb.substitute.iter().map(|(k, v)| (k.clone(), Str::from(sub(v)))));
        Variables::new(pairs, complete)
    }
}

/// A Kustomization's `postBuild` after its parent's patches: a patch's `substitute` entries
/// override, its `substituteFrom` replaces the list (a JSON merge of a custom resource).
fn effective_post_build(
    own: Option<&PostBuild>,
    patches: &[ChildPatch],
    name: &str,
    labels: &[(Str, Str)],
) -> Option<PostBuild> {
    let mut pb = own.cloned();
    for p in patches.iter().filter(|p| p.name.as_deref().is_none_or(|n| n == name)) {
        if p.label_selector.as_deref().is_some_and(|s| !labels_match(s, labels)) {
            continue;
        }
        let cur = pb.get_or_insert_with(PostBuild::default);
        for (k, v) in &p.post_build.substitute {
            match cur.substitute.iter_mut().find(|(ck, _)| ck == k) {
                Some(e) => e.1 = v.clone(),
                None => cur.substitute.push((k.clone(), v.clone())),
            }
        }
        if !p.post_build.from.is_empty() {
            cur.from = p.post_build.from.clone();
        }
    }
    pb
}

/// A path as written (`./kubernetes/apps`, `kubernetes/apps/`) relative to the root, clean.
fn clean(path: &str) -> String {
    join("", path)
}
