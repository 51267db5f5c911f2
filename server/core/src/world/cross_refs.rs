//! Which files reach into a namespace from another one, by the direction of the reference:
//! what a declaration's partial world (`workspace/closure.rs`) follows to find every object
//! above and below a target without a topology. Built once per world, on first use (the
//! language server's full pass builds it with each base).

use std::collections::HashMap;
use std::sync::Arc;

use super::World;
use crate::model::{Body, FromNamespaces, Object, RefFields};

/// The namespace key of cluster-scoped objects and of references to them.
pub(crate) const CLUSTER: &str = "";

/// How a reference relates its object to the object it names in the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Dir {
    /// To a parent: a route's parentRef, a ListenerSet's Gateway.
    Up,
    /// To a child: a rule's backendRef (a Service, or a route it delegates to).
    Down,
    /// A policy's targetRef: the policy attaches there.
    Attach,
}

/// The references that place `o` in the hierarchy, by direction, each with the kind it names
/// when it names none (a parentRef a Gateway, a backendRef a Service).
pub(crate) fn hierarchy_refs(o: &Object) -> Vec<(Dir, &RefFields, &'static str)> {
    match &o.body {
        Body::Route(r) => {
            let parents = r.parent_refs.iter().map(|p| (Dir::Up, p, "Gateway"));
            let backends = r.rules.iter().flat_map(|rule| rule.backend_refs.iter()).map(|b| (Dir::Down, b, "Service"));
            parents.chain(backends).collect()
        }
        Body::ListenerSet(ls) => ls.parent_ref.iter().map(|p| (Dir::Up, p, "Gateway")).collect(),
        // A Gloo VirtualService's `delegateOptions` name the VirtualHostOptions it takes in.
        Body::Other(other) => other
            .policy
            .refs()
            .map(|t| (Dir::Attach, t, ""))
            .chain(other.delegate_options.iter().map(|r| (Dir::Down, r, "VirtualHostOption")))
            .collect(),
        _ => Vec::new(),
    }
}

/// The namespace each reference of `o` (living in `own`) points into, by direction.
/// Templated references name nothing yet.
pub(crate) fn object_refs<'a>(world: &World, o: &'a Object, own: &'a str) -> Vec<(Dir, &'a str)> {
    let ns = |r: &'a RefFields, default_kind: &str| -> Option<&'a str> {
        if r.templated {
            return None;
        }
        let kind = r.kind.as_ref().map_or(default_kind, |k| k.value.as_str());
        let group = r.group.as_ref().map_or("", |g| g.value.as_str());
        if world.is_cluster_scoped(&crate::model::GroupKind::new(group, kind)) {
            return Some(CLUSTER);
        }
        if kind == "Namespace" {
            return r.name.as_ref().map(|n| n.value.as_str());
        }
        Some(r.namespace.as_ref().map_or(own, |n| n.value.as_str()))
    };
    hierarchy_refs(o).into_iter().filter_map(|(dir, r, kind)| ns(r, kind).map(|n| (dir, n))).collect()
}

/// Whether `o` reaches namespaces no reference names: a policy selecting targets in other
/// namespaces, a route delegating by label to every namespace.
pub(crate) fn reaches_widely(o: &Object) -> bool {
    match &o.body {
        Body::Other(other) => {
            other
                .policy
                .target_selectors
                .iter()
                .flat_map(|s| s.items.iter())
                .any(|s| !matches!(s.namespaces, None | Some(FromNamespaces::Same)))
            // A VirtualHostOption taken in from another namespace is attached from here: every
            // declaration's world holds this VirtualService.
                || other.delegate_options.iter().any(|r| r.namespace.is_some())
        }
        Body::Route(r) => r.rules.iter().flat_map(|rule| rule.backend_refs.iter()).any(|b| {
            b.kind.as_ref().is_some_and(|k| k.value == "label")
                && b.namespace.as_ref().is_some_and(|n| n.value == "all")
        }),
        _ => false,
    }
}

/// The index: per (namespace, direction), the files with a reference of that direction into
/// the namespace from an object of another namespace, in file order.
#[derive(Debug, Default)]
pub(crate) struct CrossRefs {
    into: HashMap<(Arc<str>, Dir), Vec<u32>>,
    /// Files with an object that [`reaches_widely`].
    pub wide: Vec<u32>,
}

impl CrossRefs {
    pub(crate) fn build(world: &World) -> CrossRefs {
        let mut out = CrossRefs::default();
        let push = |v: &mut Vec<u32>, fi: u32| {
            if v.last() != Some(&fi) {
                v.push(fi);
            }
        };
        for id in world.ids() {
            let fi = world.file_index(id);
            let o = world.object(id);
            let own = world.namespace_of(id).unwrap_or(CLUSTER);
            if reaches_widely(o) {
                push(&mut out.wide, fi);
            }
            for (dir, ns) in object_refs(world, o, own) {
                if ns != own {
                    push(out.into.entry((ns.into(), dir)).or_default(), fi);
                }
            }
        }
        out
    }

    /// Files with a reference of direction `dir` into `ns` from another namespace.
    pub(crate) fn into(&self, ns: &str, dir: Dir) -> &[u32] {
        self.into.get(&(Arc::from(ns), dir)).map(Vec::as_slice).unwrap_or(&[])
    }
}
