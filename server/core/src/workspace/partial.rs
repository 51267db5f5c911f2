//! One file's world: the file, every file holding objects in the namespaces its references
//! reach, and the files changed since a base snapshot, with the base world answering
//! workspace-wide questions. Reference diagnostics of the file come out as the full world's
//! would, at a cost that follows the file's neighbourhood instead of the workspace.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, OnceLock};

use super::{Snapshot, SourceFile};
use crate::catalog::{Catalog, KindSource};
use crate::model::{Body, Object, spec_refs_at};
use crate::topology::Linked;
use crate::world::cross_refs::{hierarchy_refs, reaches_widely};
use crate::world::{Outer, World};

/// Beyond this many other changed files, a partial world is no cheaper than the full one.
pub(super) const MAX_CHANGED: usize = 32;

/// Beyond this many files asked for since the last full analysis, the oldest partial world is
/// dropped (a request for it builds it again).
const MAX_KEPT: usize = 4;

/// A partial world cut for `path` from `base` (the outer world it was cut from), built once by
/// whoever asks first; `None` inside when the file has no partial world.
#[derive(Debug)]
pub(super) struct Near {
    path: Arc<str>,
    base: Arc<Linked>,
    world: OnceLock<Option<Arc<Linked>>>,
}

impl Snapshot {
    /// [`Snapshot::partial_world`], kept for the next callers asking for the same file and
    /// base: the keystroke's diagnostics and the requests that follow it build it once.
    pub(crate) fn near_world(&self, path: &str, base: &Snapshot) -> Option<Arc<Linked>> {
        let near = {
            let mut kept = self.inner.near.lock().unwrap_or_else(|e| e.into_inner());
            kept.retain(|n| Arc::ptr_eq(&n.base, base.world()));
            match kept.iter().find(|n| *n.path == *path) {
                Some(n) => n.clone(),
                None => {
                    let n = Arc::new(Near { path: path.into(), base: base.world().clone(), world: OnceLock::new() });
                    if kept.len() >= MAX_KEPT {
                        kept.remove(0);
                    }
                    kept.push(n.clone());
                    n
                }
            }
        };
        // Built outside the list's lock: a request racing the keystroke's diagnostics on the
        // same file waits for their world instead of building a second one, and a request on
        // another file does not wait for it (the partial world of a 50 MB file just opened
        // takes seconds).
        near.world.get_or_init(|| self.partial_world(path, base).map(Arc::new)).clone()
    }

    /// The partial world of `path` cut from `base`'s world (built here if it is not yet), or
    /// `None` when the file reaches workspace-wide facts that only a full analysis settles:
    /// CRDs, policy kinds recognised from the workspace, selectors across namespaces, a
    /// changed config, or many changed files.
    pub(crate) fn partial_world(&self, path: &str, base: &Snapshot) -> Option<Linked> {
        let file = self.file(path)?;
        if !Arc::ptr_eq(&self.inner.config, &base.inner.config) {
            return None;
        }
        let outer = base.world();
        let old = base.file(path);
        let objects = file.objects.iter().chain(old.iter().flat_map(|f| f.objects.iter()));
        if objects.clone().any(|o| !self_contained(o, outer)) {
            return None;
        }

        let mut paths: BTreeSet<Arc<str>> = BTreeSet::new();
        paths.insert(file.path.clone());
        let default_ns = &outer.default_namespace;
        let reached = reached_namespaces(&file.objects, default_ns, &outer.catalog);
        // A changed file matters when it has (or had) objects where this file's references
        // reach, cluster-wide ones, or ones named as this file's references name theirs (a
        // "there is one in `payments`" hint reads every namespace); the rest (a 50 MB file of
        // other namespaces just opened) would make this world as costly as the full one.
        let names: HashSet<&str> = file
            .objects
            .iter()
            .flat_map(|o| {
                hierarchy_refs(o).into_iter().filter_map(|(_, r, _)| r.name.as_ref().map(|n| n.value.as_str()))
            })
            .collect();
        let touches = |f: Option<&Arc<SourceFile>>| {
            f.is_some_and(|f| {
                f.objects.iter().any(|o| {
                    o.namespace.as_ref().is_none_or(|n| reached.contains(n.value.as_str()))
                        || names.contains(o.name.value.as_str())
                })
            })
        };
        let changed = changed_files(self, base, MAX_CHANGED)?;
        paths.extend(changed.into_iter().filter(|p| touches(self.file(p)) || touches(base.file(p))));
        for ns in &reached {
            paths.extend(outer.files_in_namespace(ns).map(|f| f.path.clone()));
        }
        // The GatewayClasses a Gateway names, wherever they are kept.
        paths.extend(outer.cluster_files().map(|f| f.path.clone()));
        let files: Vec<Arc<SourceFile>> = paths.iter().filter_map(|p| self.file(p).cloned()).collect();
        let held: HashSet<Arc<str>> = paths.into_iter().collect();
        let world = World::partial(files, &self.config().config, Outer { world: outer.world.clone(), held });
        Some(Linked::build(world))
    }
}

/// Whether the object leaves the workspace-wide catalog as it is: not a CRD, and not a policy
/// candidate whose kind the workspace's objects define (a CRD label or shape inference reads
/// every object of the kind). Selectors across namespaces reach the whole workspace.
fn self_contained(o: &Object, outer: &World) -> bool {
    match &o.body {
        Body::Crd(_) => false,
        Body::Other(other) if other.policy.has_ref_fields() => {
            let fixed = outer
                .catalog
                .get(&o.group_kind())
                .is_some_and(|k| matches!(k.source, KindSource::Builtin | KindSource::Config));
            fixed && !reaches_widely(o)
        }
        // Route delegation reaches routes outside the namespaces a file's objects name: a
        // route without parentRefs may be a child of a route anywhere, and a label delegation
        // to namespace `all` selects routes everywhere.
        Body::Route(r) => !r.parent_refs.is_empty() && !reaches_widely(o),
        _ => true,
    }
}

/// Paths that differ between the snapshots, or `None` past `max`.
pub(super) fn changed_files(now: &Snapshot, base: &Snapshot, max: usize) -> Option<Vec<Arc<str>>> {
    let (a, b) = (&now.inner.files, &base.inner.files);
    if Arc::ptr_eq(a, b) {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    for (p, f) in a.iter() {
        if b.get(p).is_none_or(|g| !Arc::ptr_eq(f, g)) {
            out.push(p.clone());
        }
    }
    // Removed files count as held (by nobody), so the base world's objects from them are
    // ignored.
    out.extend(b.keys().filter(|p| !a.contains_key(*p)).cloned());
    (out.len() <= max + 1).then_some(out)
}

/// The namespaces the objects live in and point into (policies also through the references
/// inside their spec, docs/semantics.md §4.8).
pub(super) fn reached_namespaces(objects: &[Object], default_ns: &str, catalog: &Catalog) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for o in objects {
        let own = o.namespace.as_ref().map_or(default_ns, |n| n.value.as_str());
        out.insert(own.to_owned());
        out.extend(
            hierarchy_refs(o).into_iter().filter_map(|(_, r, _)| r.namespace.as_ref()).map(|n| n.value.to_string()),
        );
        if let Body::Other(other) = &o.body
            && let Some(spec) = &other.policy.spec
            && let Some(kind) = catalog.get(&o.group_kind()).filter(|k| !k.spec_refs.is_empty())
        {
            let spec = spec.unpack();
            for r in kind.spec_refs.iter().flat_map(|r| spec_refs_at(&spec, &r.path)) {
                out.extend(r.namespace.map(|n| n.value.to_string()));
            }
        }
    }
    out
}
