//! A declaration's world: the edited file and every namespace holding what lies above and
//! below the declaration's targets, with the policies attached there. A hover on a policy or
//! a target right after an edit reads its status and effective policies from this world
//! instead of waiting for the whole workspace's analysis; it answers as the full world does
//! because every path through the targets, and every policy that can take part in them, is in
//! it (`analysis/tests/near.rs` compares the two at every declaration of real-shaped
//! workspaces).
//!
//! Namespaces are followed, not objects: the base world has no topology. Upwards, a
//! namespace's parentRefs and the backendRefs from other namespaces into it; downwards, its
//! backendRefs and the parentRefs from other namespaces into it. A declaration under a shared
//! Gateway reaches every route below it: such a world is as large as the full one and is not
//! cut.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::partial::{MAX_CHANGED, changed_files, reached_namespaces};
use super::{Snapshot, SourceFile};
use crate::effective::EffectiveIndex;
use crate::model::Object;
use crate::topology::Linked;
use crate::world::cross_refs::{CLUSTER, Dir, object_refs, reaches_widely};
use crate::world::{Outer, World};

impl Snapshot {
    /// The partial world and effective policies that answer for `decl`, an object of `path`
    /// as it is now, or `None` when only the full analysis answers: a changed config, other
    /// changed files near it, a declaration at the top of the hierarchy, or a world that would
    /// hold half the workspace.
    pub(crate) fn declaration_world(
        &self,
        path: &str,
        base: &Snapshot,
        decl: &Object,
    ) -> Option<(Linked, EffectiveIndex)> {
        let file = self.file(path)?;
        if !Arc::ptr_eq(&self.inner.config, &base.inner.config) {
            return None;
        }
        let outer = base.world();
        let w: &World = &outer.world;
        let namespaces = closure(w, file, decl)?;

        let cross = w.cross_refs();
        let mut paths: BTreeSet<Arc<str>> = BTreeSet::new();
        paths.insert(file.path.clone());
        paths.extend(cross.wide.iter().map(|&fi| w.files[fi as usize].path.clone()));
        paths.extend(w.cluster_files().map(|f| f.path.clone()));
        for ns in &namespaces {
            paths.extend(w.files_in_namespace(ns).map(|f| f.path.clone()));
            paths.extend(w.namespace_object(ns).map(|id| w.file_of(id).path.clone()));
        }
        // Another file changed since the base: its objects and references there are not in
        // the base's indexes.
        let touches = |f: &SourceFile| {
            f.objects.iter().any(|o| {
                let own = own_namespace(w, o);
                namespaces.contains(&own)
                    || reaches_widely(o)
                    || object_refs(w, o, &own).iter().any(|(_, n)| namespaces.contains(*n))
            })
        };
        for p in changed_files(self, base, MAX_CHANGED)? {
            if *p != *path && [self.file(&p), base.file(&p)].into_iter().flatten().any(|f| touches(f)) {
                return None;
            }
        }
        let files: Vec<Arc<SourceFile>> = paths.iter().filter_map(|p| self.file(p).cloned()).collect();
        if !cfg!(test) && files.iter().map(|f| f.objects.len()).sum::<usize>() * 2 > w.object_count() {
            return None;
        }
        let held = paths.into_iter().collect();
        let world =
            Linked::build(World::partial(files, &self.config().config, Outer { world: outer.world.clone(), held }));
        // A policy's hover reads its own kind's status only (kinds never merge); a target's
        // shows every kind reaching it.
        let own = world.objects_of_file(path).find(|&id| world.object(id).span == decl.span);
        let effective = match own.and_then(|id| world.policy_kind(id)) {
            Some(kind) => EffectiveIndex::build_for_kind(&world, &kind.gk),
            None => EffectiveIndex::build(&world),
        };
        Some((world, effective))
    }
}

/// An object's references: the direction and the namespace each points into.
type Refs = Vec<(Dir, Arc<str>)>;

/// The namespace an object lives in ([`CLUSTER`] for cluster-scoped kinds).
fn own_namespace(w: &World, o: &Object) -> Arc<str> {
    if w.is_cluster_scoped(&o.group_kind()) {
        return CLUSTER.into();
    }
    match &o.namespace {
        Some(n) if !n.value.is_empty() => n.value.as_str().into(),
        _ => w.default_namespace.clone(),
    }
}

/// The namespaces `decl`'s world holds, or `None` when that is the whole hierarchy.
fn closure(w: &World, file: &SourceFile, decl: &Object) -> Option<BTreeSet<Arc<str>>> {
    let own = own_namespace(w, decl);
    let mut seeds = vec![own.clone()];
    seeds.extend(object_refs(w, decl, &own).into_iter().filter(|(d, _)| *d == Dir::Attach).map(|(_, n)| n.into()));
    // Every path starts at a GatewayClass: what is declared or attached there reaches all.
    if seeds.iter().any(|n| **n == *CLUSTER) {
        return None;
    }
    // Half the workspace costs about what the whole does: stop counting there. (Unit tests
    // cut every world, to compare it with the full one at every declaration.)
    let mut budget = if cfg!(test) { usize::MAX } else { w.object_count() / 2 };
    let mut all = follow(w, file, &seeds, Dir::Up, Dir::Down, &mut budget)?;
    all.extend(follow(w, file, &seeds, Dir::Down, Dir::Up, &mut budget)?);
    // Policies attached from other namespaces (and to the GatewayClasses above everything).
    let cross = w.cross_refs();
    let attached: Vec<u32> =
        all.iter().chain([&Arc::from(CLUSTER)]).flat_map(|ns| cross.into(ns, Dir::Attach)).copied().collect();
    for fi in attached {
        let f = &w.files[fi as usize];
        all.extend(w.objects_of_file(&f.path).filter_map(|id| w.namespace_of(id)).map(Arc::from));
    }
    // Where the file's own references point, so that they resolve as in the full world.
    all.extend(reached_namespaces(&file.objects, &w.default_namespace, &w.catalog).into_iter().map(Arc::from));
    all.remove(CLUSTER);
    Some(all)
}

/// The namespaces reached from `seeds` along references of direction `forward` and against
/// references of direction `reverse` (the file's objects as they are now, the rest as in the
/// base world).
fn follow(
    w: &World,
    file: &SourceFile,
    seeds: &[Arc<str>],
    forward: Dir,
    reverse: Dir,
    budget: &mut usize,
) -> Option<BTreeSet<Arc<str>>> {
    let cross = w.cross_refs();
    let mut seen: BTreeSet<Arc<str>> = seeds.iter().cloned().collect();
    let mut queue: Vec<Arc<str>> = seeds.to_vec();
    // The file's objects as they are now: their namespace and references.
    let now: Vec<(Arc<str>, Refs)> = file
        .objects
        .iter()
        .map(|o| {
            let own = own_namespace(w, o);
            let refs = object_refs(w, o, &own).into_iter().map(|(d, n)| (d, Arc::from(n))).collect();
            (own, refs)
        })
        .collect();
    while let Some(ns) = queue.pop() {
        let objects: usize = w.files_in_namespace(&ns).map(|f| f.objects.len()).sum();
        *budget = budget.checked_sub(objects)?;
        let mut found: Vec<Arc<str>> = Vec::new();
        for f in w.files_in_namespace(&ns).filter(|f| f.path != file.path) {
            for id in w.objects_of_file(&f.path).filter(|&id| w.namespace_of(id) == Some(&*ns)) {
                let refs = object_refs(w, w.object(id), &ns);
                found.extend(refs.into_iter().filter(|(d, _)| *d == forward).map(|(_, n)| Arc::from(n)));
            }
        }
        for &fi in cross.into(&ns, reverse) {
            let f = &w.files[fi as usize];
            if f.path != file.path {
                found.extend(w.objects_of_file(&f.path).filter_map(|id| w.namespace_of(id)).map(Arc::from));
            }
        }
        for (own, refs) in &now {
            if **own == *ns {
                found.extend(refs.iter().filter(|(d, _)| *d == forward).map(|(_, n)| n.clone()));
            }
            if refs.iter().any(|(d, n)| *d == reverse && **n == *ns) {
                found.push(own.clone());
            }
        }
        for n in found {
            if seen.insert(n.clone()) {
                queue.push(n);
            }
        }
    }
    Some(seen)
}
