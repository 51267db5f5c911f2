//! Folders of independent cases (tests, examples): which files are one case.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Builder, CASE_FOLDERS, Membership, RELEASE_NAMESPACE, UnitKind, parent, release_transform};
use crate::catalog::Config;
use crate::model::{Body, GroupKind, Object, normalize_group};
use crate::world::cross_refs::hierarchy_refs;

impl Builder<'_> {
    /// Splits the files of case folders into cases: a file whose reference names something
    /// defined only in another file of its folder is one case with that file, unless several
    /// files lean on it (a shared `base/`), which makes it context for all of them.
    pub(super) fn cases(
        &mut self,
        pending: &[usize],
        chart_of: &[Option<String>],
        cases: &CaseFolders,
        cluster_scoped: &HashSet<GroupKind>,
        config: &Config,
    ) {
        if pending.is_empty() {
            return;
        }
        let default_ns = config.default_namespace.as_deref().unwrap_or("default");
        // Case nodes: a file, or every template of one chart.
        let mut node_of: HashMap<usize, usize> = HashMap::new();
        let mut nodes: Vec<Vec<usize>> = Vec::new();
        let mut chart_nodes: HashMap<&str, usize> = HashMap::new();
        for &fi in pending {
            let n = match &chart_of[fi] {
                Some(c) => *chart_nodes.entry(c.as_str()).or_insert_with(|| {
                    nodes.push(Vec::new());
                    nodes.len() - 1
                }),
                None => {
                    nodes.push(Vec::new());
                    nodes.len() - 1
                }
            };
            nodes[n].push(fi);
            node_of.insert(fi, n);
        }
        // Who defines each identity: case nodes, and whether the context does.
        let identity = |o: &Object, ns: &str, dir: &str| -> Key {
            let gk = o.group_kind();
            let ns = (!cluster_scoped.contains(&gk)).then(|| ns.to_owned());
            (gk, ns, binding_scoped(&o.name.value, dir))
        };
        let mut defined_in: HashMap<Key, Vec<usize>> = HashMap::new();
        let mut in_context: HashSet<Key> = HashSet::new();
        for (fi, f) in self.files.iter().enumerate() {
            let release = chart_of[fi].is_some();
            let dir = parent(&self.rel[fi]);
            for o in f.objects.iter().filter(|o| !self.units.is_inert(&f.path, o)) {
                let ns = own_namespace(o, release, default_ns, dir);
                let mut keys = vec![identity(o, &ns, dir)];
                // A reference across namespaces leans on the grants of the namespace it enters.
                if matches!(o.body, Body::ReferenceGrant(_)) {
                    keys.push(grants_in(&ns));
                }
                for key in keys {
                    match node_of.get(&fi) {
                        Some(&n) => defined_in.entry(key).or_default().push(n),
                        None => {
                            in_context.insert(key);
                        }
                    }
                }
            }
        }
        // Edges: node → the node its reference leans on (the nearest definer in the same
        // outermost case folder).
        let folder_of = |fi: usize| cases.outermost(parent(&self.rel[fi])).unwrap_or_default();
        let mut leans: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (n, members) in nodes.iter().enumerate() {
            for &fi in members {
                let release = chart_of[fi].is_some();
                let f = &self.files[fi];
                for o in f.objects.iter().filter(|o| !self.units.is_inert(&f.path, o)) {
                    let dir = parent(&self.rel[fi]);
                    let own = own_namespace(o, release, default_ns, dir);
                    for key in referenced(o, &own, cluster_scoped, dir) {
                        if in_context.contains(&key) {
                            continue;
                        }
                        let Some(definers) = defined_in.get(&key) else { continue };
                        if definers.contains(&n) {
                            continue;
                        }
                        // The one nearest definer in the same outermost case folder; copies
                        // as near as each other (sibling examples that each define the
                        // Gateway) leave the choice to the reference, which takes the copy
                        // that admits it.
                        let here = folder_of(fi);
                        let distinct: std::collections::BTreeSet<usize> = definers.iter().copied().collect();
                        let mut near: Vec<(bool, usize, usize)> = distinct
                            .into_iter()
                            .filter(|&d| folder_of(nodes[d][0]) == here)
                            .map(|d| {
                                let (same, common) = nearness(&self.rel[fi], &self.rel[nodes[d][0]]);
                                (same, common, d)
                            })
                            .collect();
                        near.sort_unstable_by_key(|x| std::cmp::Reverse((x.0, x.1)));
                        let unique = match near.as_slice() {
                            [one] => Some(one.2),
                            [a, b, ..] if (a.0, a.1) != (b.0, b.1) => Some(a.2),
                            _ => None,
                        };
                        if let Some(d) = unique {
                            let e = leans.entry(n).or_default();
                            if !e.contains(&d) {
                                e.push(d);
                            }
                        }
                    }
                }
            }
        }
        // Nodes several others lean on are context, with whatever they lean on.
        let mut referrers: HashMap<usize, usize> = HashMap::new();
        for targets in leans.values() {
            for &t in targets {
                *referrers.entry(t).or_default() += 1;
            }
        }
        let mut shared: HashSet<usize> = referrers.iter().filter(|&(_, &c)| c > 1).map(|(&t, _)| t).collect();
        let mut stack: Vec<usize> = shared.iter().copied().collect();
        while let Some(n) = stack.pop() {
            for &t in leans.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                if shared.insert(t) {
                    stack.push(t);
                }
            }
        }
        // The rest: linked nodes are one case.
        let mut uf: Vec<usize> = (0..nodes.len()).collect();
        fn find(uf: &mut [usize], mut x: usize) -> usize {
            while uf[x] != x {
                uf[x] = uf[uf[x]];
                x = uf[x];
            }
            x
        }
        for (&n, targets) in &leans {
            if shared.contains(&n) {
                continue;
            }
            for &t in targets {
                if !shared.contains(&t) {
                    let (a, b) = (find(&mut uf, n), find(&mut uf, t));
                    uf[a.max(b)] = a.min(b);
                }
            }
        }
        let leaned_on: HashSet<usize> = leans.values().flatten().copied().collect();
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for n in 0..nodes.len() {
            if !shared.contains(&n) {
                let r = find(&mut uf, n);
                groups.entry(r).or_default().push(n);
            }
        }
        for n in &shared {
            for &fi in &nodes[*n] {
                let transform = chart_of[fi].as_ref().map(|_| release_transform());
                self.add(fi, Membership { unit: 0, transform, patch: false });
            }
        }
        for members in groups.values() {
            // Named after the file that leans on the others (the test's own file), else the
            // first.
            let head = members.iter().copied().find(|n| !leaned_on.contains(n)).unwrap_or(members[0]);
            let fi = nodes[head][0];
            let (kind, name) = match &chart_of[fi] {
                Some(c) => (UnitKind::Chart, c.clone()),
                None => (UnitKind::Case, self.rel[fi].clone()),
            };
            let unit = self.unit(kind, &name);
            for &n in members {
                for &fi in &nodes[n] {
                    let transform = chart_of[fi].as_ref().map(|_| release_transform());
                    self.add(fi, Membership { unit, transform, patch: false });
                }
            }
        }
    }
}

type Key = (GroupKind, Option<String>, String);

/// An object's namespace before any kustomization (cases are not kustomized), in a file of
/// directory `dir`.
fn own_namespace(o: &Object, release: bool, default_ns: &str, dir: &str) -> String {
    match &o.namespace {
        Some(n) => binding_scoped(&n.value, dir),
        None if release => RELEASE_NAMESPACE.to_owned(),
        None => default_ns.to_owned(),
    }
}

/// The identities an object's references name: parents, backends, targets and its
/// GatewayClass.
fn referenced(o: &Object, own: &str, cluster_scoped: &HashSet<GroupKind>, dir: &str) -> Vec<Key> {
    let mut out = Vec::new();
    for (_, r, default_kind) in hierarchy_refs(o) {
        let Some(name) = &r.name else { continue };
        let kind = r.kind.as_ref().map_or(default_kind, |k| k.value.as_str());
        if kind.is_empty() {
            continue;
        }
        let group = match (&r.group, kind) {
            (Some(g), _) => normalize_group(&g.value).to_owned(),
            (None, "Service" | "Namespace") => String::new(),
            (None, _) if default_kind == "Service" => String::new(),
            (None, _) => crate::model::GATEWAY_GROUP.to_owned(),
        };
        let gk = GroupKind::new(&group, kind);
        let ns = if cluster_scoped.contains(&gk) {
            None
        } else {
            Some(r.namespace.as_ref().map_or(own.to_owned(), |n| binding_scoped(&n.value, dir)))
        };
        if let Some(other) = ns.as_deref().filter(|n| *n != own) {
            out.push(grants_in(other));
        }
        out.push((gk, ns, binding_scoped(&name.value, dir)));
    }
    if let Body::Gateway(g) = &o.body
        && let Some(c) = &g.class_name
    {
        out.push((GroupKind::new(crate::model::GATEWAY_GROUP, "GatewayClass"), None, c.value.to_string()));
    }
    out
}

/// A chainsaw binding (`($namespace)`, `($name)`: a JMESPath expression in parentheses) as the
/// value it stands for in one test: chainsaw runs every test in an ephemeral namespace of its
/// own and evaluates bindings per test (kyverno/chainsaw `625077865`
/// `testdata/e2e/examples/bindings/chainsaw-test.yaml`; `$namespace` is the test's namespace),
/// so the same words in two tests' folders name different objects, and never link them.
fn binding_scoped(value: &str, dir: &str) -> String {
    if crate::model::is_binding(value) { format!("{value}@{dir}") } else { value.to_owned() }
}

/// What a reference into namespace `ns` from another leans on: the ReferenceGrants there.
fn grants_in(ns: &str) -> Key {
    (GroupKind::new(crate::model::GATEWAY_GROUP, "ReferenceGrant"), Some(ns.to_owned()), "*".to_owned())
}

/// How near two files are: same directory first, then the directories they share.
fn nearness(a: &str, b: &str) -> (bool, usize) {
    let (da, db) = (parent(a), parent(b));
    let common = da.split('/').zip(db.split('/')).take_while(|(x, y)| x == y).count();
    (da == db, common)
}

/// The folders of cases: by default those named in [`CASE_FOLDERS`], or as the config says.
pub(super) struct CaseFolders {
    names: Vec<String>,
}

impl CaseFolders {
    pub(super) fn new(config: &Config) -> CaseFolders {
        let names = match &config.case_folders {
            Some(n) => n.clone(),
            None => CASE_FOLDERS.iter().map(|s| (*s).to_owned()).collect(),
        };
        CaseFolders { names }
    }

    /// Whether a folder so named holds cases: one of the names, or a name made of words one of
    /// which is (`more-examples`, `e2e_tests`, `test-data`).
    fn is_case_folder(&self, folder: &str) -> bool {
        self.names.iter().any(|n| n == folder || folder.split(['-', '_', '.']).any(|w| w == n))
    }

    /// The innermost case folder holding directory `dir` (relative), if any.
    pub(super) fn folder_of(&self, dir: &str) -> Option<String> {
        let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        (0..parts.len()).rev().find(|&i| self.is_case_folder(parts[i])).map(|i| parts[..=i].join("/"))
    }

    /// The outermost case folder holding `dir`: cases link only within it.
    pub(super) fn outermost(&self, dir: &str) -> Option<String> {
        let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        (0..parts.len()).find(|&i| self.is_case_folder(parts[i])).map(|i| parts[..=i].join("/"))
    }
}
