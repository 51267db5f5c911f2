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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::cross_refs::hierarchy_refs;
use crate::catalog::Config;
use crate::model::{Body, GroupKind, Kustomization, Object, Str, is_remote, normalize_group};
use crate::source::{Origin, SourceFile};

/// The namespace a Helm chart's objects are installed in when they name none, and what
/// `{{ .Release.Namespace }}` stands for.
pub const RELEASE_NAMESPACE: &str = "{{ .Release.Namespace }}";

/// Folder names that hold independent cases by default (docs/semantics.md §4.7).
pub const CASE_FOLDERS: &[&str] =
    &["testdata", "test", "tests", "e2e", "fixtures", "examples", "example", "samples", "golden"];

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
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            UnitKind::Workspace => return f.write_str("the workspace"),
            UnitKind::Case => "case",
            UnitKind::Kustomization => "kustomization",
            UnitKind::Chart => "chart",
            UnitKind::World => "world",
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
}

impl Transform {
    /// The name an object written as `name` gets.
    pub fn name(&self, name: &str) -> Option<Str> {
        (!self.name_prefix.is_empty() || !self.name_suffix.is_empty())
            .then(|| format!("{}{name}{}", self.name_prefix, self.name_suffix).into())
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
}

impl Default for Units {
    fn default() -> Units {
        Units {
            list: vec![Unit { kind: UnitKind::Workspace, name: "".into() }],
            by_file: HashMap::new(),
            unmatched_worlds: Vec::new(),
            in_case_folders: HashMap::new(),
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

    pub fn unit(&self, i: u32) -> &Unit {
        &self.list[(i as usize).min(self.list.len() - 1)]
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
        let by_rel: HashMap<&str, usize> = rel.iter().enumerate().map(|(i, r)| (r.as_str(), i)).collect();
        let worlds = WorldGlobs::new(config);
        let mut matched_worlds = vec![false; config.worlds.len()];
        let cases = CaseFolders::new(config);

        // Kustomizations first: they say exactly what they apply.
        let kustomize = Kustomize::read(files, &rel, &by_rel);
        for (root, group) in kustomize.roots() {
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
            } else if cases.folder_of(parent(&rel[fi])).is_some() {
                pending.push(fi);
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

    /// Splits the files of case folders into cases: a file whose reference names something
    /// defined only in another file of its folder is one case with that file, unless several
    /// files lean on it (a shared `base/`), which makes it context for all of them.
    fn cases(
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
        let identity = |o: &Object, ns: &str| -> Key {
            let gk = o.group_kind();
            let ns = (!cluster_scoped.contains(&gk)).then(|| ns.to_owned());
            (gk, ns, o.name.value.to_string())
        };
        let mut defined_in: HashMap<Key, Vec<usize>> = HashMap::new();
        let mut in_context: HashSet<Key> = HashSet::new();
        for (fi, f) in self.files.iter().enumerate() {
            let release = chart_of[fi].is_some();
            for o in &f.objects {
                let ns = own_namespace(o, release, default_ns);
                let mut keys = vec![identity(o, &ns)];
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
                for o in &self.files[fi].objects {
                    let own = own_namespace(o, release, default_ns);
                    for key in referenced(o, &own, cluster_scoped) {
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

/// An object's namespace before any kustomization (cases are not kustomized).
fn own_namespace(o: &Object, release: bool, default_ns: &str) -> String {
    match &o.namespace {
        Some(n) => n.value.to_string(),
        None if release => RELEASE_NAMESPACE.to_owned(),
        None => default_ns.to_owned(),
    }
}

/// The identities an object's references name: parents, backends, targets and its
/// GatewayClass.
fn referenced(o: &Object, own: &str, cluster_scoped: &HashSet<GroupKind>) -> Vec<Key> {
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
            Some(r.namespace.as_ref().map_or(own.to_owned(), |n| n.value.to_string()))
        };
        if let Some(other) = ns.as_deref().filter(|n| *n != own) {
            out.push(grants_in(other));
        }
        out.push((gk, ns, name.value.to_string()));
    }
    if let Body::Gateway(g) = &o.body
        && let Some(c) = &g.class_name
    {
        out.push((GroupKind::new(crate::model::GATEWAY_GROUP, "GatewayClass"), None, c.value.to_string()));
    }
    out
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

/// The directory of a relative path (`""` at the root).
fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
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

/// The folders of cases: by default those named in [`CASE_FOLDERS`], or as the config says.
struct CaseFolders {
    names: Vec<String>,
}

impl CaseFolders {
    fn new(config: &Config) -> CaseFolders {
        let names = match &config.case_folders {
            Some(n) => n.clone(),
            None => CASE_FOLDERS.iter().map(|s| (*s).to_owned()).collect(),
        };
        CaseFolders { names }
    }

    /// Whether a folder so named holds cases: one of the names, or a name made of words one of
    /// which is (`invalid-examples`, `e2e_tests`, `test-data`).
    fn is_case_folder(&self, folder: &str) -> bool {
        self.names.iter().any(|n| n == folder || folder.split(['-', '_', '.']).any(|w| w == n))
    }

    /// The innermost case folder holding directory `dir` (relative), if any.
    fn folder_of(&self, dir: &str) -> Option<String> {
        let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        (0..parts.len()).rev().find(|&i| self.is_case_folder(parts[i])).map(|i| parts[..=i].join("/"))
    }

    /// The outermost case folder holding `dir`: cases link only within it.
    fn outermost(&self, dir: &str) -> Option<String> {
        let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        (0..parts.len()).find(|&i| self.is_case_folder(parts[i])).map(|i| parts[..=i].join("/"))
    }
}

/// The config's `worlds`: folder globs (each matching folder a unit) and file globs (each
/// matching file a unit).
struct WorldGlobs {
    /// `None` for a glob that does not parse (the config reports it).
    globs: Vec<Option<globset::GlobMatcher>>,
}

impl WorldGlobs {
    fn new(config: &Config) -> WorldGlobs {
        let globs = config
            .worlds
            .iter()
            .map(|p| {
                let p = p.trim_end_matches('/');
                let p = p.strip_prefix("./").unwrap_or(p);
                globset::GlobBuilder::new(p).literal_separator(true).build().ok().map(|g| g.compile_matcher())
            })
            .collect();
        WorldGlobs { globs }
    }

    /// The world of a file (relative path): the file itself when a glob names it, else the
    /// innermost folder a glob names.
    fn world_of(&self, rel: &str, matched: &mut [bool]) -> Option<String> {
        if self.globs.is_empty() {
            return None;
        }
        let hit = |p: &str, matched: &mut [bool]| -> bool {
            let mut any = false;
            for (i, g) in self.globs.iter().enumerate() {
                if g.as_ref().is_some_and(|g| g.is_match(p)) {
                    matched[i] = true;
                    any = true;
                }
            }
            any
        };
        if hit(rel, matched) {
            return Some(rel.to_owned());
        }
        let mut dir = parent(rel);
        while !dir.is_empty() {
            if hit(dir, matched) {
                return Some(dir.to_owned());
            }
            dir = parent(dir);
        }
        None
    }
}

/// The kustomizations of a workspace and what each root applies.
struct Kustomize<'a> {
    files: &'a [Arc<SourceFile>],
    /// Kustomization file index by its directory (relative).
    by_dir: HashMap<String, usize>,
    by_rel: &'a HashMap<&'a str, usize>,
    rel: &'a [String],
}

impl<'a> Kustomize<'a> {
    fn read(files: &'a [Arc<SourceFile>], rel: &'a [String], by_rel: &'a HashMap<&'a str, usize>) -> Kustomize<'a> {
        let by_dir = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kustomization.is_some() && f.origin == Origin::Workspace)
            .map(|(i, _)| (parent(&rel[i]).to_owned(), i))
            .collect();
        Kustomize { files, by_dir, by_rel, rel }
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
    fn roots(&self) -> Vec<(usize, usize)> {
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
    fn applied(&self, root: usize) -> Vec<(usize, Arc<Transform>, bool)> {
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
            default_namespace: None,
            name_prefix: format!("{}{}", outer.name_prefix, kz.name_prefix.as_deref().unwrap_or("")).into(),
            name_suffix: format!("{}{}", kz.name_suffix.as_deref().unwrap_or(""), outer.name_suffix).into(),
            kustomization: outer.kustomization.clone(),
        };
        let shared = Arc::new(t.clone());
        let dir = parent(&self.rel[k]).to_owned();
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
        for p in &kz.patches {
            if let Some(&fi) = self.by_rel.get(join(&dir, &p.value).as_str()) {
                out.push((fi, shared.clone(), true));
            }
        }
        stack.pop();
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
mod tests {
    use crate::workspace::Workspace;

    /// Each object of the workspace as `key @ file [unit]`, sorted.
    fn instances(files: &[(&str, &str)], config: &str) -> Vec<String> {
        let mut ws = Workspace::new();
        if !config.is_empty() {
            ws.set_config(Some(".policylens.yaml"), config);
        }
        for (p, t) in files {
            ws.set_file(p, *t);
        }
        let snap = ws.snapshot();
        let w = snap.world();
        let mut out: Vec<String> =
            w.ids().map(|id| format!("{} @ {} [{}]", w.key(id), w.file_of(id).path, w.unit(w.unit_of(id)))).collect();
        out.sort();
        out
    }

    const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: written\nspec:\n  parentRefs: [{name: gw}]\n";
    const CLASS: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: eg\n";

    #[test]
    fn overlays_of_one_base_are_units_with_their_namespace_and_affixes() {
        // `kubectl kustomize overlays/prod` (kustomize v5.8): the namespace replaces the one
        // written, the prefix renames every object (a GatewayClass too), outer affixes wrap
        // inner ones; the base alone is no unit.
        let got = instances(
            &[
                ("base/kustomization.yaml", "resources: [app.yaml]\nnamePrefix: b-\n"),
                ("base/app.yaml", &format!("{ROUTE}---\n{CLASS}")),
                ("overlays/prod/kustomization.yaml", "namespace: prod\nnamePrefix: p-\nresources: [../../base]\n"),
                ("overlays/dev/kustomization.yaml", "namespace: dev\nresources: [../../base]\n"),
            ],
            "",
        );
        assert_eq!(
            got,
            [
                "GatewayClass/b-eg @ base/app.yaml [kustomization overlays/dev]",
                "GatewayClass/p-b-eg @ base/app.yaml [kustomization overlays/prod]",
                "HTTPRoute/dev/b-web @ base/app.yaml [kustomization overlays/dev]",
                "HTTPRoute/prod/p-b-web @ base/app.yaml [kustomization overlays/prod]",
            ]
        );
    }

    #[test]
    fn a_lone_kustomization_is_part_of_the_workspace_and_its_patches_are_no_objects() {
        let got = instances(
            &[
                ("app/kustomization.yaml", "namespace: shop\nresources: [route.yaml]\npatches: [{path: patch.yaml}]\n"),
                ("app/route.yaml", ROUTE),
                ("app/patch.yaml", ROUTE),
                ("other.yaml", CLASS),
            ],
            "",
        );
        assert_eq!(
            got,
            ["GatewayClass/eg @ other.yaml [the workspace]", "HTTPRoute/shop/web @ app/route.yaml [the workspace]"]
        );
    }

    #[test]
    fn a_charts_objects_are_in_the_release_namespace() {
        let got = instances(
            &[
                ("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 1.0.0\n"),
                ("chart/templates/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n"),
                (
                    "chart/templates/ns.yaml",
                    "apiVersion: v1\nkind: Service\nmetadata:\n  name: other\n  namespace: {{- .Release.Namespace }}\n",
                ),
                ("chart/values.yaml", "replicas: 1\n"),
            ],
            "",
        );
        assert_eq!(
            got,
            [
                "Service/{{ .Release.Namespace }}/api @ chart/templates/svc.yaml [the workspace]",
                "Service/{{ .Release.Namespace }}/other @ chart/templates/ns.yaml [the workspace]",
            ]
        );
    }

    #[test]
    fn files_of_a_case_folder_are_cases_linked_by_what_only_another_defines() {
        let gw = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n";
        let route = |name: &str| {
            format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\nspec:\n  parentRefs: [{{name: gw}}]\n"
            )
        };
        let policy = |target: &str| {
            format!(
                "apiVersion: example.com/v1\nkind: P\nmetadata:\n  name: p-{target}\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: HTTPRoute, name: {target}}}\n"
            )
        };
        let got = instances(
            &[
                // Leaned on by two cases: context for both.
                ("test/base/gateway.yaml", gw),
                ("test/cases/a.yaml", &route("a")),
                ("test/cases/b.yaml", &route("b")),
                // Leans on b.yaml's route, which only this file leans on: one case with it,
                // named after the file that leans.
                ("test/cases/b-policy.yaml", &policy("b")),
                // Outside every case folder: the workspace.
                ("deploy/class.yaml", CLASS),
            ],
            "",
        );
        assert_eq!(
            got,
            [
                "Gateway/default/gw @ test/base/gateway.yaml [the workspace]",
                "GatewayClass/eg @ deploy/class.yaml [the workspace]",
                "HTTPRoute/default/a @ test/cases/a.yaml [case test/cases/a.yaml]",
                "HTTPRoute/default/b @ test/cases/b.yaml [case test/cases/b-policy.yaml]",
                "P.example.com/default/p-b @ test/cases/b-policy.yaml [case test/cases/b-policy.yaml]",
            ]
        );
        // `caseFolders: []`: one workspace.
        let got =
            instances(&[("test/cases/a.yaml", &route("a")), ("test/cases/b.yaml", &route("b"))], "caseFolders: []\n");
        assert!(got.iter().all(|l| l.ends_with("[the workspace]")), "{got:?}");
    }

    #[test]
    fn a_folder_named_with_a_case_word_holds_cases() {
        let route = |name: &str| {
            format!("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n")
        };
        // Gateway API's hack/invalid-examples; a word inside a longer word (`testutils`,
        // `latest`) is not one.
        let got = instances(
            &[
                ("hack/invalid-examples/a.yaml", &route("a")),
                ("hack/e2e_tests/b.yaml", &route("b")),
                ("internal/testutils/c.yaml", &route("c")),
                ("releases/latest/d.yaml", &route("d")),
            ],
            "",
        );
        assert_eq!(
            got,
            [
                "HTTPRoute/default/a @ hack/invalid-examples/a.yaml [case hack/invalid-examples/a.yaml]",
                "HTTPRoute/default/b @ hack/e2e_tests/b.yaml [case hack/e2e_tests/b.yaml]",
                "HTTPRoute/default/c @ internal/testutils/c.yaml [the workspace]",
                "HTTPRoute/default/d @ releases/latest/d.yaml [the workspace]",
            ]
        );
    }

    #[test]
    fn worlds_name_folders_and_files_and_a_glob_matching_nothing_is_reported() {
        let got = instances(
            &[("cases/one.yaml", ROUTE), ("cases/two.yaml", CLASS), ("examples/a/x.yaml", CLASS)],
            "worlds: [\"cases/*.yaml\", \"examples/*\", \"nowhere/*\"]\ncaseFolders: []\n",
        );
        assert_eq!(
            got,
            [
                "GatewayClass/eg @ cases/two.yaml [world cases/two.yaml]",
                "GatewayClass/eg @ examples/a/x.yaml [world examples/a]",
                "HTTPRoute/written/web @ cases/one.yaml [world cases/one.yaml]",
            ]
        );
        let mut ws = Workspace::new();
        ws.set_config(Some(".policylens.yaml"), "worlds: [\"cases/*.yaml\", \"nowhere/*\"]\n");
        ws.set_file("cases/one.yaml", ROUTE);
        let snap = ws.snapshot();
        let d: Vec<String> = snap.diagnostics_for(".policylens.yaml").iter().map(|d| d.message.clone()).collect();
        assert_eq!(d, ["`nowhere/*` matches no file or folder"]);
    }
}
