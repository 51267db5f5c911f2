//! The world of one snapshot: every object (each instance of an identity) with its effective
//! namespace, the catalog of policy kinds, the policies, and the indexes that find an object by
//! identity from where a reference is written. The topology is built on it, one layer up.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

mod assemble;
pub mod certainty;
pub(crate) mod cross_refs;
pub mod generators;
mod key_index;
mod rendered;
pub mod units;

pub use certainty::{Certainty, Unknown, Wanted};

use cross_refs::CrossRefs;
use key_index::KeyIndex;

use crate::catalog::{Catalog, Config, PolicyKind};
use crate::model::{Body, GroupKind, Object, ObjectKey, Str};
use crate::source::{Origin, SourceFile};
use units::{Applier, Transform, Unit, Units};

/// An object's index in [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjId(pub u32);

const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

const NO_NAMESPACE: u32 = u32::MAX;

/// Kinds that live outside namespaces (those policylens may meet in Gateway API repos).
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    (GATEWAY_GROUP, "GatewayClass"),
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("networking.k8s.io", "IngressClass"),
    ("storage.k8s.io", "StorageClass"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("gateway.envoyproxy.io", "EnvoyProxy"),
];

/// Kinds whose absence from the workspace still makes a reference to them a real error (they
/// are never virtual).
const WELL_KNOWN: &[(&str, &str)] = &[
    (GATEWAY_GROUP, "GatewayClass"),
    (GATEWAY_GROUP, "Gateway"),
    (GATEWAY_GROUP, "ListenerSet"),
    (GATEWAY_GROUP, "HTTPRoute"),
    (GATEWAY_GROUP, "GRPCRoute"),
    (GATEWAY_GROUP, "TLSRoute"),
    (GATEWAY_GROUP, "TCPRoute"),
    (GATEWAY_GROUP, "UDPRoute"),
    ("", "Service"),
];

/// The world: its objects and indexes ([`WorldCore`], read through `Deref`).
#[derive(Debug)]
pub struct World {
    /// Shared with the detached copy a language server keeps as its base, so that copy costs
    /// nothing while this world lives.
    core: Arc<WorldCore>,
    /// Set for a partial world: the full world it was cut from.
    outer: Option<Outer>,
}

/// A world's objects and indexes.
#[derive(Debug)]
pub struct WorldCore {
    pub files: Vec<Arc<SourceFile>>,
    /// (file index, object index in file) per object; objects of one file are contiguous.
    locs: Vec<(u32, u32)>,
    /// Objects that replaced a live cluster's instance of their identity, with that
    /// instance's location: its `creationTimestamp` and controller status still apply.
    from_cluster: HashMap<ObjId, (u32, u32)>,
    /// The ids of each file's objects, `start..end`.
    file_objects: HashMap<Arc<str>, (u32, u32)>,
    /// Per object, its namespace as an index into `namespace_names` (`NO_NAMESPACE` for
    /// cluster-scoped kinds): 4 bytes an object instead of 16.
    namespaces: Vec<u32>,
    namespace_names: Vec<Arc<str>>,
    /// The kind of each of `policies`, in the same order.
    policy_kinds: Vec<Arc<PolicyKind>>,
    pub catalog: Catalog,
    /// Objects that are policies, in workspace (id) order.
    pub policies: Vec<ObjId>,
    /// Every object by a hash of (group, kind, namespace, name), sorted by (hash, id): a
    /// lookup takes the first object of the hash's run that has the key, so later duplicates
    /// are not addressable (as in a cluster, where they would conflict). Hashes rather than
    /// owned keys keep this index small; lookups verify the object.
    by_key: KeyIndex,
    by_gk: HashMap<GroupKind, Vec<ObjId>>,
    /// Objects by (kind, namespace): "did you mean" and grant checks look only here, so their
    /// cost does not grow with the whole workspace.
    by_gk_ns: HashMap<(GroupKind, Arc<str>), Vec<ObjId>>,
    /// Objects by a hash of (kind, name), for "there is one in namespace X".
    /// Sorted (one allocation instead of a vector per name).
    by_gk_name: KeyIndex,
    /// Namespaces that hold at least one object or have a Namespace object.
    known_namespaces: HashSet<Arc<str>>,
    namespace_objects: HashMap<Arc<str>, ObjId>,
    /// Kinds defined by CRDs in the workspace.
    crd_kinds: HashSet<GroupKind>,
    /// Kinds that live outside namespaces: the well-known ones and cluster-scoped CRDs.
    cluster_scoped: HashSet<GroupKind>,
    pub default_namespace: Arc<str>,
    /// Files by the namespaces their objects live in: a one-file analysis cuts its partial
    /// world along these.
    files_by_namespace: HashMap<Arc<str>, Vec<u32>>,
    /// Files holding cluster-scoped objects other than Namespaces and CRDs (whose facts a
    /// partial world asks of its outer world): the GatewayClasses every path starts at.
    cluster_files: Vec<u32>,
    /// What is applied together (docs/semantics.md §4.7); shared with partial worlds.
    pub units: Arc<Units>,
    /// The workspace roots as path prefixes (`/home/me/repo/`): messages name files below
    /// them relative to them, never by an absolute path.
    root_prefixes: Vec<String>,
    /// Per object, its unit (empty when every object is in unit 0).
    obj_units: Vec<u32>,
    /// Objects a kustomization renamed (`namePrefix`, `nameSuffix`): their names.
    renamed: HashMap<ObjId, Str>,
    /// Objects applied by a root kustomization: its path (two instances of one identity it
    /// applies make `kustomize build` fail).
    applied_by: HashMap<ObjId, Arc<str>>,
    /// Objects a Flux Kustomization or an Argo CD Application applies: which one.
    appliers: HashMap<ObjId, Arc<Applier>>,
    /// Instances whose Flux Kustomization substitutes variables in them: the object as
    /// substituted (positions are the file's).
    substituted: HashMap<ObjId, Object>,
    /// Identities a kustomize patch changes, per unit: what the patch adds (a rule, a port)
    /// is not read, so their sections are trusted rather than reported missing.
    patched: HashSet<(u32, GroupKind, Option<Str>, Str)>,
    /// Objects the config declares to exist outside the workspace (`external:`), without
    /// their sections.
    externals: HashSet<ObjectKey>,
    /// Chart sources (Flux `OCIRepository`, `HelmChart`) that serve app-template: a release
    /// whose `chartRef` names one renders (`rendered.rs`); shared with partial worlds.
    chart_sources: Arc<rendered::ChartSources>,
    /// References across namespaces, by direction, for declaration worlds
    /// (`workspace/closure.rs`): built with the language server's base (`Snapshot::as_base`),
    /// shared by every hover on it.
    cross_refs: OnceLock<CrossRefs>,
    /// What makes objects the files do not hold (`generators.rs`), built when a missing
    /// object first asks.
    generators: OnceLock<generators::Generators>,
}

impl std::ops::Deref for World {
    type Target = WorldCore;

    fn deref(&self) -> &WorldCore {
        &self.core
    }
}

/// What a partial world (one file and the namespaces its references reach) asks of the full
/// world it was cut from: workspace-wide facts such as which namespaces and kinds exist.
#[derive(Debug)]
pub(crate) struct Outer {
    pub world: Arc<World>,
    /// Files the partial world holds itself: the outer world's objects from them are stale.
    pub held: HashSet<Arc<str>>,
}

impl Outer {
    fn current(&self, id: ObjId) -> bool {
        !self.held.contains(&self.world.file_of(id).path)
    }
}

impl World {
    pub fn build(files: Vec<Arc<SourceFile>>, config: &Config) -> World {
        World::assemble(files, config, None)
    }

    /// A world of a few files cut from `outer`, whose catalog and workspace-wide facts (the
    /// namespaces and kinds that exist, namespace labels, same-named objects elsewhere) it
    /// borrows. Only valid while the files' policy kinds and CRDs are the outer world's.
    pub(crate) fn partial(files: Vec<Arc<SourceFile>>, config: &Config, outer: Outer) -> World {
        World::assemble(files, config, Some(outer))
    }

    /// This world's objects and indexes (shared, not copied): all a partial world asks of the
    /// world it is cut from (which namespaces, kinds and objects exist where). Only valid as a
    /// partial world's outer world.
    pub fn detached(&self) -> World {
        World { core: Arc::clone(&self.core), outer: None }
    }

    pub fn object_count(&self) -> usize {
        self.locs.len()
    }

    pub fn ids(&self) -> impl Iterator<Item = ObjId> + use<> {
        (0..self.locs.len() as u32).map(ObjId)
    }

    /// The files holding objects in namespace `ns`.
    pub(crate) fn files_in_namespace(&self, ns: &str) -> impl Iterator<Item = &Arc<SourceFile>> {
        let fis = self.files_by_namespace.get(ns).map(Vec::as_slice).unwrap_or(&[]);
        fis.iter().map(|&fi| &self.files[fi as usize])
    }

    /// The files holding cluster-scoped objects (GatewayClasses) but Namespaces and CRDs.
    pub(crate) fn cluster_files(&self) -> impl Iterator<Item = &Arc<SourceFile>> {
        self.cluster_files.iter().map(|&fi| &self.files[fi as usize])
    }

    /// The index of the file holding an object, in [`WorldCore::files`].
    pub(crate) fn file_index(&self, id: ObjId) -> u32 {
        self.locs[id.0 as usize].0
    }

    /// References across namespaces by direction (computed on first use).
    pub(crate) fn cross_refs(&self) -> &CrossRefs {
        self.core.cross_refs.get_or_init(|| CrossRefs::build(self))
    }

    /// The objects of one file, in order.
    pub fn objects_of_file(&self, path: &str) -> impl Iterator<Item = ObjId> + use<> {
        let (start, end) = self.file_objects.get(path).copied().unwrap_or((0, 0));
        (start..end).map(ObjId)
    }

    /// Whether release `id` has its rendered objects here (its chart is app-template,
    /// `rendered.rs`): they are instanced right after it, as they follow it in its file.
    pub fn renders_here(&self, id: ObjId) -> bool {
        let Some(&(fi, oi)) = self.locs.get(id.0 as usize) else { return false };
        self.object(id).release().is_some_and(|r| r.rendered > 0)
            && self.locs.get(id.0 as usize + 1) == Some(&(fi, oi + 1))
    }

    pub fn object(&self, id: ObjId) -> &Object {
        if !self.substituted.is_empty()
            && let Some(o) = self.substituted.get(&id)
        {
            return o;
        }
        let (fi, oi) = self.locs[id.0 as usize];
        &self.files[fi as usize].objects[oi as usize]
    }

    /// The live cluster's instance of this object that a file's replaced, if any.
    fn cluster_instance(&self, id: ObjId) -> Option<&Object> {
        let &(fi, oi) = self.from_cluster.get(&id)?;
        self.files.get(fi as usize)?.objects.get(oi as usize)
    }

    /// When the object was created: its own `creationTimestamp`, else that of the live
    /// cluster's instance it replaces (applying a file keeps the object's age).
    pub fn creation_timestamp(&self, id: ObjId) -> Option<&crate::model::Timestamp> {
        let own = self.object(id).creation_timestamp.as_deref();
        own.or_else(|| self.cluster_instance(id)?.creation_timestamp.as_deref())
    }

    /// The controllers' `status.ancestors` of a policy: the live cluster's (its own when it
    /// comes from the cluster, else that of the cluster instance it replaces). Statuses
    /// written in workspace files are not a controller's report.
    pub fn reported(&self, id: ObjId) -> Option<&[crate::model::ReportedAncestor]> {
        self.live_other(id)?.reported.as_deref()
    }

    /// The API server's `metadata` (generation, resourceVersion) of the live cluster's object
    /// that [`World::reported`] reads: its generation tells a stale status from a fresh one.
    pub fn server_meta(&self, id: ObjId) -> Option<&crate::model::ServerMeta> {
        self.live_other(id)?.server.as_deref()
    }

    /// The live cluster's copy of a policy: itself when it comes from the cluster, else the
    /// cluster instance it replaces.
    fn live_other(&self, id: ObjId) -> Option<&crate::model::Other> {
        let o = if self.file_of(id).origin == Origin::Cluster { self.object(id) } else { self.cluster_instance(id)? };
        match &o.body {
            Body::Other(other) => Some(other),
            _ => None,
        }
    }

    /// The Helm release whose chart rendered the object (its instance in the same unit), when
    /// a chart did: the object lives in the release's values, not in a document of its own.
    pub fn rendered_by(&self, id: ObjId) -> Option<ObjId> {
        let (fi, oi) = self.locs[id.0 as usize];
        let g = crate::model::rendered_by(&self.files[fi as usize].objects, oi as usize)? as u32;
        let unit = self.unit_of(id);
        let (start, end) = self.file_objects.get(&self.files[fi as usize].path).copied()?;
        (start..end).map(ObjId).find(|&r| self.locs[r.0 as usize] == (fi, g) && self.unit_of(r) == unit)
    }

    pub fn file_of(&self, id: ObjId) -> &Arc<SourceFile> {
        &self.files[self.locs[id.0 as usize].0 as usize]
    }

    /// The object's namespace (`None` for cluster-scoped kinds), defaulted.
    pub fn namespace_of(&self, id: ObjId) -> Option<&str> {
        let i = self.namespaces[id.0 as usize];
        self.namespace_names.get(i as usize).map(|n| &**n)
    }

    pub fn key(&self, id: ObjId) -> ObjectKey {
        let o = self.object(id);
        ObjectKey::new(o.group_kind(), self.namespace_of(id), self.name_of(id))
    }

    /// The policy kind of a policy object.
    pub fn policy_kind(&self, id: ObjId) -> Option<&Arc<PolicyKind>> {
        self.policies.binary_search(&id).ok().map(|i| &self.policy_kinds[i])
    }

    /// The object with this key, for a question asked from nowhere in particular (a
    /// `--target`): the first instance by path order.
    pub fn lookup(&self, gk: &GroupKind, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        self.lookup_near(None, gk, namespace, name)
    }

    /// The instance of this key that a reference written in object `from` means: in `from`'s
    /// world, the nearest to it (same file, same directory, longest common directory, then
    /// path order).
    pub fn lookup_from(&self, from: ObjId, gk: &GroupKind, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        self.lookup_near(Some(from), gk, namespace, name)
    }

    fn lookup_near(&self, from: Option<ObjId>, gk: &GroupKind, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        self.lookup_exact(from, gk, namespace, name).or_else(|| {
            // A namespaced lookup of a cluster-scoped kind (or the reverse) still finds it.
            let other = if namespace.is_some() { None } else { Some(self.default_namespace.as_ref()) };
            self.lookup_exact(from, gk, other, name)
        })
    }

    fn lookup_exact(&self, from: Option<ObjId>, gk: &GroupKind, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        let mut found = self.matching(gk, namespace, name);
        let first = found.next()?;
        let Some(second) = found.next() else {
            return match from {
                Some(f) if !self.sees(f, first) && !self.may_borrow(f, first) => None,
                _ => Some(first),
            };
        };
        let all: Vec<ObjId> = [first, second].into_iter().chain(found).collect();
        let Some(from) = from else {
            // Asked from nowhere: the workspace's own instance, else the first by path order.
            return all.iter().copied().filter(|&id| self.unit_of(id) == 0).min().or(all.iter().copied().min());
        };
        self.best_of(from, all)
    }

    /// The instances of a key, in id order.
    fn matching<'a>(
        &'a self,
        gk: &'a GroupKind,
        namespace: Option<&'a str>,
        name: &'a str,
    ) -> impl Iterator<Item = ObjId> + 'a {
        let h = key_hash(gk, namespace, name);
        self.by_key.get(h).filter(move |&id| {
            self.name_of(id) == name && self.namespace_of(id) == namespace && is_kind(self.object(id), gk)
        })
    }

    /// Of several instances, the one a reference in `from` means: the nearest its unit sees,
    /// else the nearest it may borrow.
    fn best_of(&self, from: ObjId, all: Vec<ObjId>) -> Option<ObjId> {
        let near = |&id: &ObjId| (self.nearness(from, id), std::cmp::Reverse(id));
        let seen = all.iter().copied().filter(|&id| self.sees(from, id)).max_by_key(near);
        seen.or_else(|| all.iter().copied().filter(|&id| self.may_borrow(from, id)).max_by_key(near))
    }

    /// Whether a reference in `from`, whose unit sees no instance of what it names, may use
    /// `to` from another unit: a file of a folder of cases (where units are a guess, not the
    /// repository's word) may lean on a copy elsewhere in the same outermost folder of cases
    /// (sibling examples that each define the Gateway the others use; the application a
    /// sample's routes are written for), never on a placeholder; explicit worlds,
    /// kustomizations and the workspace stay within what they see.
    fn may_borrow(&self, from: ObjId, to: ObjId) -> bool {
        if self.object(to).templated {
            return false;
        }
        let Some(folder) = self.units.case_folder(&self.file_of(from).path) else { return false };
        let to_path = &self.file_of(to).path;
        let within = |p: &str| self.units.case_folder(p) == Some(folder);
        within(to_path) || (folder.is_empty() && !self.units.in_case_folder(to_path))
    }

    /// Every instance of this key a reference written in `from` could mean, the one
    /// [`World::lookup_from`] picks first: those its unit sees, nearest first, then those it
    /// may borrow from other cases of its folder (`borrowed` when there are only those). A
    /// reference is broken only when none of them satisfies it (docs/semantics.md §4.5, §4.7):
    /// a test harness may pair a route with another case's copy of its Service (one with the
    /// port the route names). One that only borrowed copies could satisfy is a guess either
    /// way, and is not reported.
    pub fn candidates_from(&self, from: ObjId, gk: &GroupKind, namespace: Option<&str>, name: &str) -> Candidates {
        let near = |&id: &ObjId| std::cmp::Reverse((self.nearness(from, id), std::cmp::Reverse(id)));
        let (mut seen, mut others): (Vec<ObjId>, Vec<ObjId>) =
            self.matching(gk, namespace, name).partition(|&id| self.sees(from, id));
        others.retain(|&id| self.may_borrow(from, id));
        seen.sort_by_key(near);
        others.sort_by_key(near);
        let borrowed = seen.is_empty() && !others.is_empty();
        seen.extend(others);
        Candidates { ids: seen, borrowed }
    }

    /// An object's name: as written, or as its kustomization renamed it.
    pub fn name_of(&self, id: ObjId) -> &str {
        if !self.renamed.is_empty()
            && let Some(n) = self.renamed.get(&id)
        {
            return n;
        }
        &self.object(id).name.value
    }

    /// Whether a reference in `from` may resolve to `to` without leaving its unit: `to` is in
    /// the same unit or in the workspace every unit sees.
    pub fn sees(&self, from: ObjId, to: ObjId) -> bool {
        self.units.sees(self.unit_of(from), self.unit_of(to))
    }

    /// The unit of an object's instance (docs/semantics.md §4.7); 0: the workspace.
    pub fn unit_of(&self, id: ObjId) -> u32 {
        self.obj_units.get(id.0 as usize).copied().unwrap_or(0)
    }

    /// A file's path as messages name it: relative to the workspace root it lies under.
    pub fn shown_path<'a>(&self, path: &'a str) -> &'a str {
        self.root_prefixes.iter().find_map(|r| path.strip_prefix(r.as_str())).unwrap_or(path)
    }

    /// The unit itself, for messages.
    pub fn unit(&self, index: u32) -> &Unit {
        self.units.unit(index)
    }

    /// Whether what the object seems to lack (a listener, a port, a rule) may be there after
    /// all: a kustomize patch in its unit changes it, or its document broke (a YAML error)
    /// before the rest of it could be read. Its sections are then not all known.
    pub fn is_incomplete(&self, id: ObjId) -> bool {
        self.object(id).broken || self.is_patched(id)
    }

    /// Whether a kustomize patch in the object's unit changes it (its sections are then not
    /// all known: a patch may add a rule or a port).
    pub fn is_patched(&self, id: ObjId) -> bool {
        if self.patched.is_empty() {
            return false;
        }
        let o = self.object(id);
        let key = (self.unit_of(id), o.group_kind(), self.namespace_of(id).map(Str::from), Str::from(self.name_of(id)));
        self.patched.contains(&key)
    }

    /// The Flux Kustomization or Argo CD Application that applies the object, if any.
    pub fn applier(&self, id: ObjId) -> Option<&Applier> {
        self.appliers.get(&id).map(|a| &**a)
    }

    /// The root kustomization that applies the object, if any.
    pub fn applied_by(&self, id: ObjId) -> Option<&Arc<str>> {
        self.applied_by.get(&id)
    }

    /// How near `to`'s definition is to `from`'s: same file, then same directory, then the
    /// number of leading directories they share.
    pub fn nearness_to(&self, from: ObjId, to: ObjId) -> (bool, bool, usize) {
        self.nearness(from, to)
    }

    fn nearness(&self, from: ObjId, to: ObjId) -> (bool, bool, usize) {
        let (a, b) = (&*self.file_of(from).path, &*self.file_of(to).path);
        if a == b {
            return (true, true, usize::MAX);
        }
        let dir = |p: &'_ str| -> Vec<String> {
            let mut parts: Vec<String> = p.split('/').map(str::to_owned).collect();
            parts.pop();
            parts
        };
        let (da, db) = (dir(a), dir(b));
        let common = da.iter().zip(&db).take_while(|(x, y)| x == y).count();
        (false, da == db, common)
    }

    /// Identities defined more than once in one unit: each group's instances in path order.
    pub fn duplicate_groups(&self) -> Vec<Vec<ObjId>> {
        let mut out = Vec::new();
        for run in self.by_key.shared_runs() {
            let mut rest = run;
            while let Some(&first) = rest.first() {
                let (same, other): (Vec<ObjId>, Vec<ObjId>) = rest
                    .iter()
                    .partition(|&&id| self.same_identity(first, id) && self.unit_of(first) == self.unit_of(id));
                if same.len() > 1 {
                    let mut same = same;
                    same.sort_unstable();
                    out.push(same);
                }
                rest = other;
            }
        }
        out.sort_unstable();
        out
    }

    /// Whether two instances are of one identity (group, kind, namespace, name).
    pub fn same_identity(&self, a: ObjId, b: ObjId) -> bool {
        let (x, y) = (self.object(a), self.object(b));
        self.name_of(a) == self.name_of(b)
            && x.kind() == y.kind()
            && x.group() == y.group()
            && self.namespace_of(a) == self.namespace_of(b)
    }

    /// Whether the config declares this object external (it exists outside the workspace).
    pub fn is_external(&self, gk: &GroupKind, namespace: Option<&str>, name: &str) -> bool {
        !self.externals.is_empty()
            && (self.externals.contains(&ObjectKey::new(gk.clone(), namespace, name))
                || self.externals.contains(&ObjectKey::new(gk.clone(), None, name)))
    }

    /// The objects the config declares external.
    pub fn externals(&self) -> impl Iterator<Item = &ObjectKey> {
        self.externals.iter()
    }

    /// Whether namespace `ns` has a Namespace object (its labels are known).
    pub fn has_namespace_object(&self, ns: &str) -> bool {
        self.namespace_objects.contains_key(ns)
            || self.outer.as_ref().is_some_and(|o| o.world.namespace_objects.get(ns).is_some_and(|&id| o.current(id)))
    }

    /// Every instance of `id`'s identity, in any unit (itself included), in path order.
    pub fn instances(&self, id: ObjId) -> Vec<ObjId> {
        let o = self.object(id);
        let gk = o.group_kind();
        let mut out: Vec<ObjId> = self.matching(&gk, self.namespace_of(id), self.name_of(id)).collect();
        out.sort_unstable();
        out
    }

    pub fn objects_of(&self, gk: &GroupKind) -> &[ObjId] {
        self.by_gk.get(gk).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every object of a kind with the world holding it: for a partial world, its own and the
    /// current ones of the world it was cut from (the namespaces it does not hold).
    pub fn objects_of_everywhere(&self, gk: &GroupKind) -> Vec<(&World, ObjId)> {
        let mut out: Vec<(&World, ObjId)> = self.objects_of(gk).iter().map(|&id| (self, id)).collect();
        if let Some(o) = &self.outer {
            out.extend(o.world.objects_of(gk).iter().filter(|&&id| o.current(id)).map(|&id| (&*o.world, id)));
        }
        out
    }

    /// Objects of a kind in one namespace.
    pub fn objects_in(&self, gk: &GroupKind, namespace: &str) -> &[ObjId] {
        // The key needs owned parts; lookups are rare enough (errors, completion) for this.
        self.by_gk_ns.get(&(gk.clone(), Arc::from(namespace))).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Objects of a kind with this name, in any namespace.
    pub fn objects_named<'a>(&'a self, gk: &'a GroupKind, name: &'a str) -> impl Iterator<Item = ObjId> + 'a {
        let h = key_hash(gk, None, name);
        self.by_gk_name.get(h).filter(move |&id| is_kind(self.object(id), gk) && self.name_of(id) == name)
    }

    /// Whether references to `gk` can be checked for existence: a kind policylens models, or
    /// one with objects or a CRD in the workspace. Others are virtual (GEP-713 "virtual
    /// types"): they may name things outside the API server.
    pub fn is_checkable_kind(&self, gk: &GroupKind) -> bool {
        WELL_KNOWN.iter().any(|(g, k)| gk.is(g, k))
            || gk.is("", "Namespace")
            || self.by_gk.contains_key(gk)
            || self.crd_kinds.contains(gk)
            || self.outer.as_ref().is_some_and(|o| o.world.by_gk.contains_key(gk))
    }

    /// Whether objects of the kind live outside namespaces (a reference to one never shows a
    /// namespace: `GatewayClass/eg`).
    pub fn is_cluster_scoped(&self, gk: &GroupKind) -> bool {
        self.cluster_scoped.contains(gk)
    }

    pub fn namespace_exists(&self, ns: &str) -> bool {
        self.known_namespaces.contains(ns) || self.outer.as_ref().is_some_and(|o| o.world.known_namespaces.contains(ns))
    }

    pub fn namespaces(&self) -> impl Iterator<Item = &str> {
        let outer = self.outer.iter().flat_map(|o| o.world.known_namespaces.iter());
        let outer = outer.filter(|n| !self.known_namespaces.contains(*n));
        self.known_namespaces.iter().chain(outer).map(|s| &**s)
    }

    /// The names of the objects of a kind in a namespace that a reference in `from` may name:
    /// what a did-you-mean suggests from (never another unit's, never a placeholder).
    pub fn names_seen_from<'a>(&'a self, from: ObjId, gk: &GroupKind, ns: &str) -> impl Iterator<Item = &'a str> + 'a {
        self.objects_in(gk, ns).iter().copied().filter(move |&o| self.sees(from, o)).map(|o| self.name_of(o))
    }

    /// [`World::namespaces_holding`], of the objects a reference in `from` may name.
    pub fn namespaces_holding_from(&self, from: ObjId, gk: &GroupKind, name: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .objects_named(gk, name)
            .filter(|&o| self.sees(from, o))
            .filter_map(|o| self.namespace_of(o).map(str::to_owned))
            .collect();
        if let Some(o) = &self.outer {
            let w = &o.world;
            out.extend(
                w.objects_named(gk, name)
                    .filter(|&id| o.current(id) && w.unit_of(id) == 0)
                    .filter_map(|id| w.namespace_of(id))
                    .map(str::to_owned),
            );
        }
        out.sort();
        out.dedup();
        out
    }

    /// The namespaces holding an object of this kind and name, sorted.
    pub fn namespaces_holding(&self, gk: &GroupKind, name: &str) -> Vec<String> {
        let mut out: Vec<String> =
            self.objects_named(gk, name).filter_map(|o| self.namespace_of(o).map(str::to_owned)).collect();
        if let Some(o) = &self.outer {
            let w = &o.world;
            out.extend(
                w.objects_named(gk, name)
                    .filter(|&id| o.current(id))
                    .filter_map(|id| w.namespace_of(id))
                    .map(str::to_owned),
            );
        }
        out.sort();
        out.dedup();
        out
    }

    /// Labels of namespace `ns`: its Namespace object's, plus the
    /// `kubernetes.io/metadata.name` label the API server always sets.
    pub fn namespace_labels(&self, ns: &str) -> Vec<(Str, Str)> {
        let own = self.namespace_objects.get(ns).map(|&id| self.object(id).labels.to_vec());
        let outer = || {
            let o = self.outer.as_ref()?;
            let id = o.world.namespace_objects.get(ns).copied().filter(|&id| o.current(id))?;
            Some(o.world.object(id).labels.to_vec())
        };
        let mut labels = own.or_else(outer).unwrap_or_default();
        let k = "kubernetes.io/metadata.name";
        if !labels.iter().any(|(lk, _)| lk == k) {
            labels.push((k.into(), ns.into()));
            labels.sort();
        }
        labels
    }

    pub fn namespace_object(&self, ns: &str) -> Option<ObjId> {
        self.namespace_objects.get(ns).copied()
    }
}

/// 32 bits: the indexes hold one per object, and every lookup verifies the objects of a
/// hash's run anyway, so a rare collision costs one more comparison.
fn key_hash(gk: &GroupKind, namespace: Option<&str>, name: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&gk.group, &gk.kind, namespace, name).hash(&mut h);
    let h = h.finish();
    (h ^ (h >> 32)) as u32
}

/// `o.group_kind() == *gk`, without allocating.
fn is_kind(o: &Object, gk: &GroupKind) -> bool {
    o.kind() == gk.kind && o.group() == gk.group
}

/// The instances a reference could mean ([`World::candidates_from`]), best first.
#[derive(Debug, Default)]
pub struct Candidates {
    pub ids: Vec<ObjId>,
    /// None is in the referrer's unit or the workspace: they are copies in other cases.
    pub borrowed: bool,
}

impl Candidates {
    /// The answer for the first instance that satisfies the reference (`ok`), else the nearest
    /// one's: a reference is broken only when no instance it could mean satisfies it
    /// (docs/semantics.md §4.5). One only borrowed copies could satisfy is a guess either way,
    /// and answers `unchecked`.
    pub fn first_satisfying<R>(&self, mut resolve: impl FnMut(ObjId) -> R, ok: impl Fn(&R) -> bool, unchecked: R) -> R {
        let mut first = None;
        for &id in &self.ids {
            let r = resolve(id);
            if ok(&r) {
                return r;
            }
            first.get_or_insert(r);
        }
        if self.borrowed {
            return unchecked;
        }
        first.unwrap_or(unchecked)
    }
}

/// The namespace an instance's object is in, when it or its unit says (`None`: the
/// workspace's default).
fn instance_namespace<'a>(o: &'a Object, t: Option<&'a Transform>) -> Option<&'a str> {
    if let Some(ns) = t.and_then(|t| t.replaced_namespace(o).or(t.namespace.as_deref())) {
        return Some(ns);
    }
    match &o.namespace {
        Some(n) if !n.value.is_empty() => Some(&n.value),
        _ => t.and_then(|t| t.default_namespace.as_deref()),
    }
}
