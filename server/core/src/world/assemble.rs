//! Building a world: every file's objects instanced once per unit that applies them, with
//! the unit's transform; their namespaces; the catalog in force; the instances a better
//! origin replaces; and the indexes the lookups read.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use super::key_index::KeyIndex;
use super::units::{Transform, Units};
use super::{CLUSTER_SCOPED, NO_NAMESPACE, ObjId, Outer, World, WorldCore, instance_namespace, key_hash, rendered};
use crate::catalog::{Config, build_catalog};
use crate::model::{Body, CrdScope, GroupKind, Object, ObjectKey, Str};
use crate::source::{Origin, SourceFile};

impl World {
    pub(super) fn assemble(files: Vec<Arc<SourceFile>>, config: &Config, outer: Option<Outer>) -> World {
        let default_namespace: Arc<str> = config.default_namespace.as_deref().unwrap_or("default").into();
        let mut cluster_scoped: HashSet<GroupKind> = CLUSTER_SCOPED.iter().map(|(g, k)| GroupKind::new(g, k)).collect();
        let mut crd_kinds = HashSet::new();
        let outer_crds = outer.iter().flat_map(|o| {
            let crd = GroupKind::new("apiextensions.k8s.io", "CustomResourceDefinition");
            let ids: Vec<ObjId> = o.world.objects_of(&crd).iter().copied().filter(|&id| o.current(id)).collect();
            ids.into_iter().map(|id| o.world.object(id))
        });
        for o in files.iter().flat_map(|f| f.objects.iter()).chain(outer_crds) {
            if let Body::Crd(crd) = &o.body {
                let gk = GroupKind::new(&crd.group, &crd.kind);
                if crd.scope == CrdScope::Cluster {
                    cluster_scoped.insert(gk.clone());
                }
                crd_kinds.insert(gk);
            }
        }
        let units: Arc<Units> = match &outer {
            Some(o) => o.world.units.clone(),
            None => Arc::new(Units::compute(&files, config, &cluster_scoped)),
        };
        let chart_sources = match &outer {
            Some(o) => o.world.chart_sources.clone(),
            None => Arc::new(rendered::chart_sources(&files, &units)),
        };
        // Every instance: a file's objects once per unit that applies the file; what a chart
        // renders only where the chart is the one rendered (`rendered.rs`).
        let mut insts: Vec<Instance> = Vec::new();
        for (fi, f) in files.iter().enumerate() {
            for m in units.of(&f.path).iter().filter(|m| !m.patch) {
                let mut oi = 0;
                while oi < f.objects.len() {
                    let o = &f.objects[oi];
                    // Inputs meant to fail and scaffolds take part in nothing (§4.8).
                    if units.is_inert(&f.path, o) {
                        oi += 1 + o.release().map_or(0, |r| r.rendered as usize);
                        continue;
                    }
                    insts.push(Instance { fi: fi as u32, oi: oi as u32, unit: m.unit, transform: m.transform.clone() });
                    oi += 1;
                    let Some(r) = o.release().filter(|r| r.rendered > 0) else { continue };
                    let end = (oi + r.rendered as usize).min(f.objects.len());
                    if rendered::kept(r, o, m.transform.as_deref(), &chart_sources) {
                        let argo = (o.group() == "argoproj.io")
                            .then(|| units.argo_applier(&f.path, o, r.target_namespace.as_ref().map(|n| &n.value)))
                            .flatten();
                        let transform =
                            rendered::transform(o, m.transform.as_ref(), r.target_namespace.is_some(), argo);
                        for ri in oi..end {
                            insts.push(Instance {
                                fi: fi as u32,
                                oi: ri as u32,
                                unit: m.unit,
                                transform: transform.clone(),
                            });
                        }
                    }
                    oi = end;
                }
            }
        }
        let replaced = replaced_by_better_origin(&files, &insts, &cluster_scoped, &default_namespace);
        let mut patched = HashSet::new();
        for f in &files {
            for m in units.of(&f.path).iter().filter(|m| m.patch) {
                for o in f.objects.iter().filter(|o| !units.is_inert(&f.path, o)) {
                    let gk = o.group_kind();
                    let t = m.transform.as_deref();
                    let ns = (!cluster_scoped.contains(&gk))
                        .then(|| Str::from(instance_namespace(o, t).unwrap_or(&default_namespace)));
                    let name = t.and_then(|t| t.name(o)).unwrap_or_else(|| o.name.value.clone());
                    patched.insert((m.unit, gk, ns, name));
                }
            }
        }
        let mut locs = Vec::new();
        let mut obj_units: Vec<u32> = Vec::new();
        let mut transforms: Vec<Option<Arc<Transform>>> = Vec::new();
        let trivial = units.is_trivial();
        let mut file_objects = HashMap::with_capacity(files.len());
        let mut kept_inst: Vec<u32> = Vec::new();
        let mut i = 0;
        for (fi, f) in files.iter().enumerate() {
            let start = locs.len() as u32;
            while i < insts.len() && insts[i].fi == fi as u32 {
                if !replaced.contains_key(&(i as u32)) {
                    let inst = &insts[i];
                    locs.push((inst.fi, inst.oi));
                    kept_inst.push(i as u32);
                    if !trivial {
                        obj_units.push(inst.unit);
                        transforms.push(inst.transform.clone());
                    }
                }
                i += 1;
            }
            file_objects.insert(f.path.clone(), (start, locs.len() as u32));
        }
        // A file's object that replaced the live cluster's keeps what the cluster knows of it.
        let from_cluster: HashMap<ObjId, (u32, u32)> = {
            let winners: HashMap<u32, (u32, u32)> = replaced
                .iter()
                .filter(|(r, _)| files[insts[**r as usize].fi as usize].origin == Origin::Cluster)
                .map(|(&r, &w)| (w, (insts[r as usize].fi, insts[r as usize].oi)))
                .collect();
            kept_inst.iter().enumerate().filter_map(|(id, k)| winners.get(k).map(|&r| (ObjId(id as u32), r))).collect()
        };
        // The instances a Flux Kustomization's variables change (docs/semantics.md §4.7).
        let mut substituted: HashMap<ObjId, Object> = HashMap::new();
        for (i, t) in transforms.iter().enumerate() {
            if let Some(vars) = t.as_ref().and_then(|t| t.vars.as_deref()) {
                let (fi, oi) = locs[i];
                if let Some(o) = files[fi as usize].objects[oi as usize].substituted(vars) {
                    substituted.insert(ObjId(i as u32), o);
                }
            }
        }
        let obj = |i: usize| -> &Object {
            let (fi, oi) = locs[i];
            match substituted.get(&ObjId(i as u32)) {
                Some(o) => o,
                None => &files[fi as usize].objects[oi as usize],
            }
        };

        let catalog = match &outer {
            Some(o) => o.world.catalog.clone(),
            None => build_catalog(config, (0..locs.len()).map(obj)),
        };
        let mut files_by_namespace: HashMap<Arc<str>, Vec<u32>> = HashMap::new();
        let mut namespaces: Vec<u32> = Vec::with_capacity(locs.len());
        let mut namespace_names: Vec<Arc<str>> = Vec::new();
        let mut namespace_index: HashMap<Arc<str>, u32> = HashMap::new();
        let mut policy_kinds = Vec::new();
        let mut policies = Vec::new();
        let mut by_key: Vec<(u32, ObjId)> = Vec::with_capacity(locs.len());
        let mut by_gk: HashMap<GroupKind, Vec<ObjId>> = HashMap::new();
        let mut by_gk_ns: HashMap<(GroupKind, Arc<str>), Vec<ObjId>> = HashMap::new();
        let mut by_gk_name: Vec<(u32, ObjId)> = Vec::with_capacity(locs.len());
        let mut known_namespaces = HashSet::new();
        let mut namespace_objects = HashMap::new();
        let mut cluster_files = Vec::new();
        let mut renamed = HashMap::new();
        let mut applied_by = HashMap::new();
        let mut appliers = HashMap::new();
        for (i, l) in locs.iter().enumerate() {
            let id = ObjId(i as u32);
            let o = obj(i);
            let gk = o.group_kind();
            let transform = transforms.get(i).and_then(Option::as_deref);
            // One `Arc` per namespace, shared by its objects (not one allocation per object).
            let ns: Option<Arc<str>> = if cluster_scoped.contains(&gk) {
                None
            } else {
                let written = instance_namespace(o, transform);
                Some(match written {
                    Some(n) => match known_namespaces.get(n) {
                        Some(k) => Arc::clone(k),
                        None => n.into(),
                    },
                    None => default_namespace.clone(),
                })
            };
            if let Some(t) = transform {
                if let Some(name) = t.name(o) {
                    renamed.insert(id, name);
                }
                if let Some(k) = &t.kustomization {
                    applied_by.insert(id, k.clone());
                }
                if let Some(a) = &t.applied_by {
                    appliers.insert(id, a.clone());
                }
            }
            let name: &str = renamed.get(&id).map_or(o.name.value.as_str(), |n| n.as_str());
            if ns.is_none()
                && !matches!(o.body, Body::Crd(_))
                && !gk.is("", "Namespace")
                && cluster_files.last() != Some(&l.0)
            {
                cluster_files.push(l.0);
            }
            if let Some(n) = &ns {
                known_namespaces.insert(n.clone());
                let fi = l.0;
                let held = files_by_namespace.entry(n.clone()).or_default();
                if held.last() != Some(&fi) {
                    held.push(fi);
                }
            }
            if gk.is("", "Namespace") {
                let n: Arc<str> = name.into();
                known_namespaces.insert(n.clone());
                namespace_objects.entry(n).or_insert(id);
            }
            let kind = match &o.body {
                Body::Other(other) => catalog
                    .get(&gk)
                    .filter(|_| other.policy.has_ref_fields() || other.policy.spec_span.is_some())
                    .cloned(),
                _ => None,
            };
            if let Some(kind) = kind {
                policies.push(id);
                policy_kinds.push(kind);
            }
            // A placeholder name is found by the same placeholder only (never suggested).
            by_key.push((key_hash(&gk, ns.as_deref(), name), id));
            if !o.templated {
                if let Some(n) = &ns {
                    by_gk_ns.entry((gk.clone(), n.clone())).or_default().push(id);
                }
                by_gk_name.push((key_hash(&gk, None, name), id));
            }
            by_gk.entry(gk).or_default().push(id);
            namespaces.push(match ns {
                None => NO_NAMESPACE,
                Some(n) => *namespace_index.entry(n.clone()).or_insert_with(|| {
                    namespace_names.push(n);
                    namespace_names.len() as u32 - 1
                }),
            });
        }
        for ids in by_gk_ns.values_mut().chain(by_gk.values_mut()) {
            ids.shrink_to_fit();
        }
        let core = WorldCore {
            files,
            locs,
            from_cluster,
            file_objects,
            namespaces,
            namespace_names,
            policy_kinds,
            catalog,
            policies,
            by_key: KeyIndex::new(by_key),
            by_gk,
            by_gk_ns,
            by_gk_name: KeyIndex::new(by_gk_name),
            known_namespaces,
            namespace_objects,
            crd_kinds,
            cluster_scoped,
            default_namespace,
            files_by_namespace,
            cluster_files,
            units,
            root_prefixes: config
                .roots
                .iter()
                .map(|r| format!("{}/", r.to_string_lossy().trim_end_matches('/')))
                .collect(),
            obj_units,
            renamed,
            applied_by,
            appliers,
            substituted,
            patched,
            externals: config
                .external
                .iter()
                .filter_map(|e| ObjectKey::parse(e, crate::model::is_core_kind))
                .map(|k| k.object())
                .collect(),
            chart_sources,
            cross_refs: OnceLock::new(),
            generators: OnceLock::new(),
        };
        World { core: Arc::new(core), outer }
    }
}

/// One instance of a file's object: in which unit, changed how.
struct Instance {
    fi: u32,
    oi: u32,
    unit: u32,
    transform: Option<Arc<Transform>>,
}

/// Instances of context and cluster files whose identity a better origin (workspace files,
/// then context directories) also defines in the same unit: they are replaced, as applying the
/// files would. Maps each replaced instance to the instance replacing it (indexes into
/// `insts`).
fn replaced_by_better_origin(
    files: &[Arc<SourceFile>],
    insts: &[Instance],
    cluster_scoped: &HashSet<GroupKind>,
    default_namespace: &Arc<str>,
) -> HashMap<u32, u32> {
    let mut out = HashMap::new();
    // Nothing is replaced where every file has one origin (files alone, or the live cluster
    // alone, which `check --cluster PATH` analyses beside the files).
    let Some(worst) = files.iter().map(|f| f.origin).max() else { return out };
    if files.iter().all(|f| f.origin == worst) {
        return out;
    }
    type Identity = (u32, GroupKind, Option<Str>, Str);
    let name = |inst: &Instance| -> Str {
        let o = &files[inst.fi as usize].objects[inst.oi as usize];
        inst.transform.as_deref().and_then(|t| t.name(o)).unwrap_or_else(|| o.name.value.clone())
    };
    let identity = |inst: &Instance| -> Option<Identity> {
        let o = &files[inst.fi as usize].objects[inst.oi as usize];
        if o.templated {
            return None;
        }
        let gk = o.group_kind();
        let t = inst.transform.as_deref();
        let ns =
            (!cluster_scoped.contains(&gk)).then(|| Str::from(instance_namespace(o, t).unwrap_or(default_namespace)));
        Some((inst.unit, gk, ns, name(inst)))
    };
    let origin = |inst: &Instance| files[inst.fi as usize].origin;
    // The first instance of the best origin per identity, among the better origins: an
    // instance of the worst origin never replaces another. Those are the many (10k objects
    // of a cluster under a few files), so only theirs named like a better one are keyed.
    let mut best: HashMap<Identity, (Origin, u32)> = HashMap::new();
    for (i, inst) in insts.iter().enumerate().filter(|(_, inst)| origin(inst) != worst) {
        let Some(key) = identity(inst) else { continue };
        let here = (origin(inst), i as u32);
        let e = best.entry(key).or_insert(here);
        if here.0 < e.0 {
            *e = here;
        }
    }
    let names: HashSet<Str> = best.keys().map(|k| k.3.clone()).collect();
    for (i, inst) in insts.iter().enumerate().filter(|(_, inst)| origin(inst) != Origin::Workspace) {
        if (origin(inst) != worst || names.contains(&name(inst)))
            && let Some(key) = identity(inst)
            && let Some(&(b, winner)) = best.get(&key)
            && b < origin(inst)
        {
            out.insert(i as u32, winner);
        }
    }
    out
}
