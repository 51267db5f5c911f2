//! Contexts: which policies of a kind meet on the paths to each effective target.
//!
//! A path's *signature* is the list of its nodes that carry policies of the kind, least
//! specific first, with a Namespace node inserted right above the first object of the path
//! that lives in that namespace (docs/semantics.md §4.3). The fold depends on nothing else, so paths with
//! one signature share one fold, and the number of folds is the number of distinct
//! signatures, not of paths.
//!
//! Signatures are pushed down the DAG once per kind, in topological order, over the part of
//! the DAG that matters: below the policies' targets and above the kind's effective targets.
//! Each node keeps the distinct signatures that reach it (capped by [`PathLimit`]); a node
//! that adds nothing shares its parent's set.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use super::fold::{self, Fold, Input, Outcome};
use super::listmap::SchemaNode;
use super::semantics::Rules;
use super::spec::PolicySpec;
use crate::catalog::{PolicyClass, PolicyKind};
use crate::model::{Body, GroupKind};
use crate::topology::Linked;
use crate::topology::{BackendResolution, DagNode, NodeId, PathLimit, Topology};
use crate::world::ObjId;

pub type Sig = Arc<[NodeId]>;

/// Which unit's world (docs/semantics.md §4.7) a walk computes: policies of two cases never
/// meet, and a case's policies meet the workspace's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every policy and node: the workspace has no units, or the kind's policies are all in
    /// the workspace's.
    #[default]
    All,
    /// One unit's world: its policies and the workspace's, over its objects, the workspace's,
    /// and those of the units its policies borrowed a target from. In a case of a folder of
    /// cases, one file's policies (`file`, an index into the world's files): two files of a case
    /// are alternatives (versions of an example, inputs of different tests), not applied
    /// together (docs/semantics.md §4.7).
    Unit { unit: u32, file: Option<u32>, borrowed: Vec<u32> },
    /// The workspace's world: its policies, over every object but those of the units that
    /// have a world of their own for the kind (`own`).
    Shared { own: Vec<u32> },
}

impl Scope {
    pub fn admits_policy(&self, world: &Linked, p: ObjId) -> bool {
        match self {
            Scope::All => true,
            Scope::Unit { unit, file, .. } => {
                let u = world.unit_of(p);
                u == 0 || (u == *unit && file.is_none_or(|f| world.file_index(p) == f))
            }
            Scope::Shared { .. } => world.unit_of(p) == 0,
        }
    }

    pub fn admits_node(&self, world: &Linked, n: NodeId) -> bool {
        if *self == Scope::All {
            return true;
        }
        let u = world.topology.node_object(n).map_or(0, |o| world.unit_of(o));
        match self {
            Scope::All => true,
            Scope::Unit { unit, borrowed, .. } => u == 0 || u == *unit || borrowed.contains(&u),
            Scope::Shared { own } => u == 0 || !own.contains(&u),
        }
    }

    /// The unit whose world this is, for labels (`None`: the workspace's).
    pub fn unit(&self) -> Option<u32> {
        match self {
            Scope::Unit { unit, .. } => Some(*unit),
            _ => None,
        }
    }

    /// The worlds to compute for policies in `units` (each policy's unit, and its file where
    /// the unit is a case: any order), and the units of the nodes each unit's policies attach
    /// to (`attached_units`, for borrowing).
    pub fn split(units: &[(u32, Option<u32>)], attached_units: &HashMap<u32, Vec<u32>>) -> Vec<Scope> {
        let mut keys: Vec<(u32, Option<u32>)> = units.iter().copied().filter(|&(u, _)| u != 0).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.is_empty() {
            return vec![Scope::All];
        }
        let mut own: Vec<u32> = keys.iter().map(|&(u, _)| u).collect();
        own.dedup();
        let mut out: Vec<Scope> = keys
            .iter()
            .map(|&(unit, file)| {
                let mut borrowed: Vec<u32> =
                    attached_units.get(&unit).into_iter().flatten().copied().filter(|&b| b != 0 && b != unit).collect();
                borrowed.sort_unstable();
                borrowed.dedup();
                Scope::Unit { unit, file, borrowed }
            })
            .collect();
        out.insert(0, Scope::Shared { own });
        out
    }
}

/// What the computation needs to know about one policy kind.
#[derive(Debug, Clone)]
pub struct KindPlan {
    pub kind: Arc<PolicyKind>,
    pub rules: Rules,
    /// Policies of the kind that take part (accepted so far), per node, in fold order.
    pub attached: HashMap<NodeId, Vec<ObjId>>,
    /// Namespaces whose Namespace node carries policies of the kind.
    pub namespaces: HashMap<Arc<str>, NodeId>,
    /// Gateway nodes whose controller ignores policies of the kind that other Gateways act on
    /// (docs/semantics.md §4.4.1), with those policies: a path through one leaves them out, so
    /// such a Gateway is a level of the signature even when nothing is attached to it.
    pub ignoring: HashMap<NodeId, Vec<ObjId>>,
    /// Whose world the plan computes.
    pub scope: Scope,
}

impl KindPlan {
    /// The scopes this plan's policies need (one unless they lie in several units).
    pub fn scopes(&self, world: &Linked) -> Vec<Scope> {
        if world.units.is_trivial() {
            return vec![Scope::All];
        }
        let mut units = Vec::new();
        let mut attached_units: HashMap<u32, Vec<u32>> = HashMap::new();
        for (&n, list) in &self.attached {
            let at = world.topology.node_object(n).map_or(0, |o| world.unit_of(o));
            for &p in list {
                let u = world.unit_of(p);
                let case = world.unit(u).kind == crate::world::units::UnitKind::Case;
                units.push((u, case.then(|| world.file_index(p))));
                attached_units.entry(u).or_default().push(at);
            }
        }
        Scope::split(&units, &attached_units)
    }

    /// This plan narrowed to one scope's policies.
    pub fn scoped(&self, world: &Linked, scope: Scope) -> KindPlan {
        let mut plan = self.clone();
        if scope != Scope::All {
            plan.retain(|p| scope.admits_policy(world, p));
        }
        plan.scope = scope;
        plan
    }

    pub fn is_direct(&self) -> bool {
        self.kind.class == PolicyClass::Direct
    }

    /// Keeps the policies `keep` accepts, and the nodes and namespaces still carrying one.
    pub fn retain(&mut self, keep: impl Fn(ObjId) -> bool) {
        self.attached.retain(|_, list| {
            list.retain(|&p| keep(p));
            !list.is_empty()
        });
        let attached = &self.attached;
        self.namespaces.retain(|_, n| attached.contains_key(n));
        self.ignoring.retain(|_, list| {
            list.retain(|&p| keep(p));
            !list.is_empty()
        });
    }

    /// Whether node `n` is a level of signatures: policies attach there, or its controller
    /// ignores some of them.
    fn is_level(&self, n: NodeId) -> bool {
        self.attached.contains_key(&n) || self.ignoring.contains_key(&n)
    }

    /// The policies a signature's Gateways ignore.
    fn ignored_in(&self, sig: &[NodeId]) -> Vec<ObjId> {
        if self.ignoring.is_empty() {
            return Vec::new();
        }
        sig.iter().flat_map(|n| self.ignoring.get(n).into_iter().flatten().copied()).collect()
    }

    /// The fold input of a signature. A policy attached at several nodes of one path counts
    /// once, at its most specific target.
    pub fn inputs<'a>(&self, sig: &[NodeId], specs: &'a HashMap<ObjId, PolicySpec>) -> Vec<Input<'a>> {
        let mut out: Vec<Input<'a>> = Vec::new();
        let ignored = self.ignored_in(sig);
        for (level, n) in sig.iter().enumerate() {
            for &p in self.attached.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                if ignored.contains(&p) {
                    continue;
                }
                let Some(spec) = specs.get(&p) else { continue };
                out.retain(|i| i.policy != p);
                out.push(Input { level: level as u32, policy: p, spec });
            }
        }
        out
    }

    /// Signature and displayed path (with Namespace levels) of one path.
    pub fn path_signature(&self, world: &Linked, path: &[NodeId]) -> (Vec<NodeId>, Vec<NodeId>) {
        let t = &world.topology;
        if self.is_direct() {
            let target = path.last().copied();
            let sig = target.map(|n| self.direct_signature(t, n)).unwrap_or_default();
            return (sig, path.to_vec());
        }
        let mut sig = Vec::new();
        let mut shown = Vec::with_capacity(path.len() + 1);
        for &n in path {
            if let Some(ns_node) = self.namespace_above(world, n)
                && !shown.contains(&ns_node)
            {
                shown.push(ns_node);
                sig.push(ns_node);
            }
            shown.push(n);
            if self.is_level(n) {
                sig.push(n);
            }
        }
        (sig, shown)
    }

    /// The Namespace node (with policies of the kind) of an object node's namespace.
    fn namespace_above(&self, world: &Linked, n: NodeId) -> Option<NodeId> {
        if self.namespaces.is_empty() {
            return None;
        }
        match world.topology.node(n) {
            DagNode::Object(o) => world.namespace_of(o).and_then(|ns| self.namespaces.get(ns).copied()),
            _ => None,
        }
    }

    /// Direct kinds act only where they are attached: the target's object and, for a section,
    /// the section (which beats the whole object).
    pub fn direct_signature(&self, t: &Topology, target: NodeId) -> Vec<NodeId> {
        let mut sig = Vec::new();
        if let DagNode::Section(o, _) = t.node(target) {
            let obj = t.object_node(o);
            if self.attached.contains_key(&obj) {
                sig.push(obj);
            }
        }
        if self.attached.contains_key(&target) {
            sig.push(target);
        }
        sig
    }
}

/// Whether an object's node is itself an effective target when its kind is one: routes with
/// an unnamed rule, Services with an unnamed port, objects without sections. Named sections
/// are the effective targets otherwise.
fn whole_object_counts(world: &Linked, o: ObjId) -> bool {
    let t = &world.topology;
    match &world.object(o).body {
        Body::Gateway(g) => g.listeners.is_empty(),
        Body::ListenerSet(ls) => ls.listeners.is_empty(),
        // An unnamed rule with a node of its own (a policy its filter names) is that node.
        Body::Route(r) => {
            r.rules.is_empty()
                || r.rules
                    .iter()
                    .enumerate()
                    .any(|(k, rule)| rule.name.is_none() && t.rule_node(world, o, rule, k as u32).is_none())
        }
        Body::Service(s) => s.ports.is_empty() || s.ports.iter().any(|p| p.name.is_none()),
        _ => true,
    }
}

/// The section nodes of an object, in order.
pub fn sections_of(t: &Topology, o: ObjId) -> Vec<NodeId> {
    t.children(t.object_node(o))
        .iter()
        .copied()
        .filter(|&c| matches!(t.node(c), DagNode::Section(x, _) if x == o))
        .collect()
}

/// Whether `n` is an effective target of an Inherited kind.
pub fn is_effective(world: &Linked, kind: &PolicyKind, n: NodeId) -> bool {
    let t = &world.topology;
    if kind.effective_targets.is_empty() && kind.effective_target.is_none() {
        return t.children(n).is_empty() && !matches!(t.node(n), DagNode::Namespace(_));
    }
    // Compared field by field: this runs for every node below every policy.
    let is = |group: &str, k: &str| {
        kind.effective_targets.iter().chain(kind.effective_target.iter()).any(|g| g.group == group && g.kind == k)
    };
    match t.node(n) {
        DagNode::Object(o) => {
            let ob = world.object(o);
            is(ob.group(), ob.kind()) && whole_object_counts(world, o)
        }
        DagNode::Section(o, _) => {
            let ob = world.object(o);
            is(ob.group(), ob.kind())
        }
        DagNode::Virtual(k) => {
            let k = world.topology.virtual_key(k);
            is(&k.gk.group, &k.gk.kind)
        }
        DagNode::Namespace(_) => false,
    }
}

/// Depth of a node's level in the hierarchy: GatewayClass 0, Gateway 1, listener 2, ListenerSet 2,
/// its listeners 3, route 4, rule 5, backend 6, port 7.
fn rank(world: &Linked, n: NodeId) -> u8 {
    let of = |o: ObjId| match &world.object(o).body {
        Body::GatewayClass(_) => 0,
        Body::Gateway(_) => 1,
        Body::ListenerSet(_) => 2,
        Body::Route(_) => 4,
        _ => 6,
    };
    match world.topology.node(n) {
        DagNode::Object(o) => of(o),
        DagNode::Section(o, _) => of(o) + 1,
        DagNode::Namespace(_) => 0,
        // A route a controller generates (or a virtual route) sits at the route level.
        DagNode::Virtual(k) if world.topology.virtual_key(k).gk.kind.ends_with("Route") => 4,
        DagNode::Virtual(_) => 6,
    }
}

/// The deepest level an effective target of the kind can be at (`u8::MAX`: any, for kinds that
/// act at the leaves).
fn max_rank(kind: &PolicyKind) -> u8 {
    let mut max = None;
    for g in kind.effective_targets.iter().chain(kind.effective_target.iter()) {
        let r = match g.kind.as_str() {
            "GatewayClass" => 0,
            "Gateway" => 2,
            "ListenerSet" | "XListenerSet" => 3,
            k if k.ends_with("Route") => 5,
            _ => 7,
        };
        max = Some(max.map_or(r, |m: u8| m.max(r)));
    }
    max.unwrap_or(u8::MAX)
}

/// The effective targets of a Direct policy attached at `n`.
pub fn direct_effective(world: &Linked, n: NodeId) -> Vec<NodeId> {
    let t = &world.topology;
    match t.node(n) {
        DagNode::Object(o) => {
            let mut v = sections_of(t, o);
            if v.is_empty() || whole_object_counts(world, o) {
                v.insert(0, n);
            }
            v
        }
        _ => vec![n],
    }
}

/// A context as computed: the signature of some paths and its fold (the report of one is
/// [`super::Context`]).
#[derive(Clone)]
pub struct SigFold {
    pub sig: Sig,
    pub folded: Arc<Folded>,
}

/// A fold and, computed on first use, what every policy got out of it.
pub struct Folded {
    pub fold: Fold,
    outcomes: OnceLock<Vec<Outcome>>,
}

/// Folds signatures for one kind, extending a prefix's fold by the policies of the next
/// nodes instead of starting over.
pub struct Folder<'a> {
    pub world: &'a Linked,
    pub plan: &'a KindPlan,
    pub specs: &'a HashMap<ObjId, PolicySpec>,
    pub schema: Option<&'a SchemaNode>,
    /// Policies attached at more than one node: a path through two of them folds the policy
    /// once, at the most specific (so it cannot be folded incrementally).
    multi: HashSet<ObjId>,
    folds: std::cell::Cell<usize>,
}

impl<'a> Folder<'a> {
    pub fn new(
        world: &'a Linked,
        plan: &'a KindPlan,
        specs: &'a HashMap<ObjId, PolicySpec>,
        schema: Option<&'a SchemaNode>,
    ) -> Self {
        let mut seen = HashSet::new();
        let mut multi = HashSet::new();
        for list in plan.attached.values() {
            for &p in list {
                if !seen.insert(p) {
                    multi.insert(p);
                }
            }
        }
        Folder { world, plan, specs, schema, multi, folds: std::cell::Cell::new(0) }
    }

    /// How many folds this folder computed.
    pub fn folds(&self) -> usize {
        self.folds.get()
    }

    pub fn full(&self, sig: &[NodeId]) -> Folded {
        self.folds.set(self.folds.get() + 1);
        let inputs = self.plan.inputs(sig, self.specs);
        let label = |id: ObjId| self.world.key(id).to_string();
        Folded { fold: fold::fold(&inputs, &self.plan.rules, self.schema, &label), outcomes: OnceLock::new() }
    }

    /// The fold of `sig`, given the fold of its first `from` nodes.
    fn extend(&self, base: &Fold, sig: &[NodeId], from: usize) -> Folded {
        // A Gateway that ignores a policy already folded in: start over without it.
        let incremental = !self.plan.rules.additive
            && !sig.iter().skip(from).any(|n| self.plan.ignoring.contains_key(n))
            && (self.multi.is_empty()
                || !sig
                    .iter()
                    .flat_map(|n| self.plan.attached.get(n).into_iter().flatten())
                    .any(|p| self.multi.contains(p)));
        if !incremental {
            return self.full(sig);
        }
        self.folds.set(self.folds.get() + 1);
        let mut f = base.fork();
        let ignored = self.plan.ignored_in(sig);
        for (level, n) in sig.iter().enumerate().skip(from) {
            for &p in self.plan.attached.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                if ignored.contains(&p) {
                    continue;
                }
                if let Some(spec) = self.specs.get(&p) {
                    f.push(&Input { level: level as u32, policy: p, spec }, &self.plan.rules, self.schema);
                }
            }
        }
        Folded { fold: f, outcomes: OnceLock::new() }
    }

    pub fn outcomes<'f>(&self, folded: &'f Folded, sig: &[NodeId]) -> &'f [Outcome] {
        folded.outcomes.get_or_init(|| {
            let inputs = self.plan.inputs(sig, self.specs);
            fold::outcomes(&folded.fold, &inputs, self.plan.rules.additive)
        })
    }
}

/// Calls `visit` with every effective target of the kind and its distinct contexts. Returns
/// whether some node had more contexts than `limit` (the rest are left out).
pub fn visit(
    folder: &Folder<'_>,
    scratch: &mut Scratch,
    ns_objects: &HashMap<Arc<str>, Vec<ObjId>>,
    limit: PathLimit,
    visit: &mut dyn FnMut(NodeId, &[SigFold]),
) -> bool {
    visit_within(folder, scratch, ns_objects, limit, None, visit)
}

/// [`visit`] for the effective targets of a [`Region`] only, walking no more of the DAG than
/// the nodes above them: what a change at a few nodes needs recomputed.
pub fn visit_within(
    folder: &Folder<'_>,
    scratch: &mut Scratch,
    ns_objects: &HashMap<Arc<str>, Vec<ObjId>>,
    limit: PathLimit,
    region: Option<&Region>,
    visit: &mut dyn FnMut(NodeId, &[SigFold]),
) -> bool {
    let (world, plan) = (folder.world, folder.plan);
    let t = &world.topology;
    if plan.is_direct() {
        let mut seen = HashSet::new();
        let mut memo: HashMap<Sig, Arc<Folded>> = HashMap::new();
        let mut nodes: Vec<NodeId> = plan.attached.keys().copied().collect();
        nodes.sort();
        for a in nodes {
            for e in direct_effective(world, a) {
                if region.is_none_or(|r| r.targets.get(e.0 as usize)) && seen.insert(e) {
                    let sig: Sig = plan.direct_signature(t, e).into();
                    let folded = memo.entry(sig.clone()).or_insert_with(|| Arc::new(folder.full(&sig))).clone();
                    visit(e, &[SigFold { sig, folded }]);
                }
            }
        }
        return false;
    }
    Propagation::new(folder, scratch, ns_objects, limit, region).run(visit)
}

/// Effective targets of one kind, and every node above them: where a walk restricted to
/// those targets goes ([`visit_within`]).
pub struct Region {
    /// The targets and their ancestors.
    nodes: Bits,
    targets: Bits,
    /// The targets, in DAG order.
    pub list: Vec<NodeId>,
}

impl Region {
    /// The effective targets of `plan`'s kind that policies attached at `seeds` can reach (a
    /// Namespace node stands for the objects of its namespace), with the nodes above them.
    pub fn below(
        world: &Linked,
        plan: &KindPlan,
        scratch: &mut Scratch,
        ns_objects: &HashMap<Arc<str>, Vec<ObjId>>,
        seeds: &[NodeId],
    ) -> Region {
        let t = &world.topology;
        let count = t.node_count();
        let mut targets = Bits::new(count);
        let mut list = Vec::new();
        if plan.is_direct() {
            for &a in seeds {
                for e in direct_effective(world, a) {
                    if !targets.get(e.0 as usize) {
                        targets.set(e.0 as usize, true);
                        list.push(e);
                    }
                }
            }
        } else {
            let mut start: Vec<NodeId> = Vec::new();
            for &n in seeds {
                match t.node(n) {
                    DagNode::Namespace(ns) => {
                        let name = t.namespace_name(ns);
                        start.extend(ns_objects.get(&**name).into_iter().flatten().map(|&o| t.object_node(o)));
                    }
                    _ => start.push(n),
                }
            }
            let seeds = start.into_iter().filter(|&n| plan.scope.admits_node(world, n));
            let queue = mark_below(world, plan, scratch, seeds, &|_| true);
            let effective = scratch.classes.mask(&plan.kind);
            for &n in &queue {
                if scratch.classes.is_effective(world, &plan.kind, &effective, n) {
                    targets.set(n.0 as usize, true);
                    list.push(n);
                }
            }
            for &n in &queue {
                scratch.below.set(n.0 as usize, false);
            }
        }
        list.sort();
        let mut nodes = Bits::new(count);
        let mut up = list.clone();
        for &n in &up {
            nodes.set(n.0 as usize, true);
        }
        let mut i = 0;
        while i < up.len() {
            for &p in t.parents(up[i]) {
                if !nodes.get(p.0 as usize) {
                    nodes.set(p.0 as usize, true);
                    up.push(p);
                }
            }
            i += 1;
        }
        Region { nodes, targets, list }
    }

    /// Whether `n` is one of the targets or above one.
    pub fn contains(&self, n: NodeId) -> bool {
        self.nodes.get(n.0 as usize)
    }

    pub fn contains_target(&self, n: NodeId) -> bool {
        self.targets.get(n.0 as usize)
    }
}

/// Marks `below` every node at or below `seeds` that the kind's walk goes through (nothing
/// below its deepest effective level but routes under a Service, mesh), and returns them.
fn mark_below(
    world: &Linked,
    plan: &KindPlan,
    s: &mut Scratch,
    seeds: impl Iterator<Item = NodeId>,
    inside: &dyn Fn(NodeId) -> bool,
) -> Vec<NodeId> {
    let t = &world.topology;
    let scope = &plan.scope;
    let mut queue: Vec<NodeId> = Vec::new();
    for n in seeds {
        if !s.below.get(n.0 as usize) {
            s.below.set(n.0 as usize, true);
            queue.push(n);
        }
    }
    let max = max_rank(&plan.kind);
    let mut i = 0;
    while i < queue.len() {
        for &c in t.children(queue[i]) {
            if (s.rank[c.0 as usize] <= max || t.children(c).iter().any(|&g| s.rank[g.0 as usize] <= max))
                && scope.admits_node(world, c)
                && !s.below.get(c.0 as usize)
                && inside(c)
            {
                s.below.set(c.0 as usize, true);
                queue.push(c);
            }
        }
        i += 1;
    }
    queue
}

/// Each node's (group, kind), and whether its object counts as a whole, as an index into a
/// small table: every kind's walk asks [`is_effective`] of each node in its region, and
/// reading the objects for it cost a cache miss per node once a workspace outgrows the cache.
struct Classes {
    of: Vec<u16>,
    table: Vec<(GroupKind, bool)>,
}

/// Namespace nodes: never an effective target.
const NO_CLASS: u16 = u16::MAX;
/// The table is full (tens of thousands of kinds): ask [`is_effective`].
const UNCLASSED: u16 = u16::MAX - 1;

impl Classes {
    fn new(world: &Linked) -> Classes {
        let t = &world.topology;
        let mut index: HashMap<(&str, &str, bool), u16> = HashMap::new();
        let mut table: Vec<(GroupKind, bool)> = Vec::new();
        let of = (0..t.node_count() as u32)
            .map(|i| {
                let (group, kind, whole) = match t.node(NodeId(i)) {
                    DagNode::Object(o) => {
                        let ob = world.object(o);
                        (ob.group(), ob.kind(), whole_object_counts(world, o))
                    }
                    DagNode::Section(o, _) => {
                        let ob = world.object(o);
                        (ob.group(), ob.kind(), true)
                    }
                    DagNode::Virtual(k) => {
                        let gk = &t.virtual_key(k).gk;
                        (gk.group.as_str(), gk.kind.as_str(), true)
                    }
                    DagNode::Namespace(_) => return NO_CLASS,
                };
                if let Some(&c) = index.get(&(group, kind, whole)) {
                    return c;
                }
                if table.len() >= UNCLASSED as usize {
                    return UNCLASSED;
                }
                let c = table.len() as u16;
                table.push((GroupKind::new(group, kind), whole));
                index.insert((group, kind, whole), c);
                c
            })
            .collect();
        Classes { of, table }
    }

    /// Per class: whether its nodes are effective targets of `kind` (kinds that declare them).
    fn mask(&self, kind: &PolicyKind) -> Vec<bool> {
        let declared = |gk: &GroupKind| {
            kind.effective_targets
                .iter()
                .chain(kind.effective_target.iter())
                .any(|g| g.group == gk.group && g.kind == gk.kind)
        };
        self.table.iter().map(|(gk, whole)| *whole && declared(gk)).collect()
    }

    fn is_effective(&self, world: &Linked, kind: &PolicyKind, mask: &[bool], n: NodeId) -> bool {
        if kind.effective_targets.is_empty() && kind.effective_target.is_none() {
            return is_effective(world, kind, n);
        }
        match self.of.get(n.0 as usize).copied() {
            Some(NO_CLASS) => false,
            Some(c) if c != UNCLASSED => mask.get(c as usize).copied().unwrap_or(false),
            _ => is_effective(world, kind, n),
        }
    }
}

/// One flag per node, a bit each (there are tens of thousands of nodes).
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn of(flags: impl Iterator<Item = bool>, len: usize) -> Bits {
        let mut b = Bits::new(len);
        for (i, f) in flags.enumerate() {
            b.set(i, f);
        }
        b
    }

    fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    fn set(&mut self, i: usize, on: bool) {
        if let Some(w) = self.0.get_mut(i / 64) {
            if on {
                *w |= 1 << (i % 64);
            } else {
                *w &= !(1 << (i % 64));
            }
        }
    }
}

/// Per-node working memory shared by every kind of one build: reset only where a kind wrote,
/// so that a kind with a few policies costs what its region costs, not the whole DAG.
pub struct Scratch {
    rank: Vec<u8>,
    classes: Classes,
    is_port: Bits,
    below: Bits,
    needed: Bits,
    effective: Bits,
    done: Bits,
    remaining: Vec<u32>,
    indeg: Vec<u32>,
    /// The contexts of done nodes that still have readers: few at a time (the walk is depth
    /// first), so a map rather than a slot per node.
    sets: HashMap<NodeId, SigFoldSet>,
}

impl Scratch {
    pub fn new(world: &Linked) -> Scratch {
        let count = world.topology.node_count();
        let ids = (0..count as u32).map(NodeId);
        Scratch {
            rank: ids.clone().map(|n| rank(world, n)).collect(),
            classes: Classes::new(world),
            is_port: Bits::of(ids.map(|n| service_port(world, n).is_some()), count),
            below: Bits::new(count),
            needed: Bits::new(count),
            effective: Bits::new(count),
            done: Bits::new(count),
            remaining: vec![0; count],
            indeg: vec![0; count],
            sets: HashMap::new(),
        }
    }

    fn reset(&mut self, touched: &[NodeId]) {
        for n in touched {
            let i = n.0 as usize;
            self.below.set(i, false);
            self.needed.set(i, false);
            self.effective.set(i, false);
            self.done.set(i, false);
            self.remaining[i] = 0;
            self.indeg[i] = 0;
            self.sets.remove(n);
        }
    }
}

struct Propagation<'a, 'f> {
    folder: &'a Folder<'f>,
    world: &'a Linked,
    t: &'a Topology,
    plan: &'a KindPlan,
    limit: usize,
    /// `below`: below a policy's target (or in a policy's namespace); `needed`: also above (or
    /// at) an effective target; `sets`: the contexts reaching a node, kept until every node
    /// that reads them is done (`remaining` readers).
    s: &'a mut Scratch,
    /// Every node marked `below` (the nodes to reset).
    touched: Vec<NodeId>,
    empty: SigFoldSet,
    truncated: bool,
}

type SigFoldSet = Arc<Vec<SigFold>>;

impl<'a, 'f> Propagation<'a, 'f> {
    fn new(
        folder: &'a Folder<'f>,
        s: &'a mut Scratch,
        ns_objects: &HashMap<Arc<str>, Vec<ObjId>>,
        limit: PathLimit,
        region: Option<&Region>,
    ) -> Self {
        let (world, plan) = (folder.world, folder.plan);
        let t = &world.topology;
        let scope = &plan.scope;
        // Restricted to a region, only its nodes are walked.
        let inside = |n: NodeId| region.is_none_or(|r| r.nodes.get(n.0 as usize));
        let mut seeds: Vec<NodeId> = Vec::new();
        for &n in plan.attached.keys().chain(plan.ignoring.keys()) {
            if !matches!(t.node(n), DagNode::Namespace(_)) && scope.admits_node(world, n) && inside(n) {
                seeds.push(n);
            }
        }
        for ns in plan.namespaces.keys() {
            for &o in ns_objects.get(ns).map(Vec::as_slice).unwrap_or(&[]) {
                let n = t.object_node(o);
                if scope.admits_node(world, n) && inside(n) {
                    seeds.push(n);
                }
            }
        }
        // Nothing below the deepest effective level matters (a route policy's walk stops at
        // the routes' backends), except routes under a Service (mesh).
        let queue = mark_below(world, plan, s, seeds.into_iter(), &inside);
        let effective = s.classes.mask(&plan.kind);
        let mut up: Vec<NodeId> = Vec::new();
        for &n in &queue {
            if s.classes.is_effective(world, &plan.kind, &effective, n)
                && region.is_none_or(|r| r.targets.get(n.0 as usize))
            {
                s.effective.set(n.0 as usize, true);
                s.needed.set(n.0 as usize, true);
                up.push(n);
            }
        }
        let mut i = 0;
        while i < up.len() {
            for &p in t.parents(up[i]) {
                if s.below.get(p.0 as usize) && !s.needed.get(p.0 as usize) {
                    s.needed.set(p.0 as usize, true);
                    up.push(p);
                }
            }
            i += 1;
        }
        // Who reads each node's contexts: its needed children and, for a Service's needed
        // ports, the ports too (they read the Service's parents directly).
        for &n in &up {
            if s.is_port.get(n.0 as usize)
                && let Some(&svc) = t.parents(n).first()
            {
                for &q in t.parents(svc) {
                    if s.needed.get(q.0 as usize) {
                        s.remaining[q.0 as usize] += 1;
                    }
                }
            }
            for &p in t.parents(n) {
                if s.needed.get(p.0 as usize) {
                    s.remaining[p.0 as usize] += 1;
                }
            }
        }
        let empty = Arc::new(vec![SigFold {
            sig: Sig::from(Vec::new()),
            folded: Arc::new(Folded { fold: Fold::new(), outcomes: OnceLock::new() }),
        }]);
        Propagation { folder, world, t, plan, limit: limit.0.max(1), s, touched: queue, empty, truncated: false }
    }

    fn run(mut self, visit: &mut dyn FnMut(NodeId, &[SigFold])) -> bool {
        let t = self.t;
        let mut ready = Vec::new();
        for &n in &self.touched {
            let i = n.0 as usize;
            if self.s.needed.get(i) {
                self.s.indeg[i] = t.parents(n).iter().filter(|p| self.s.needed.get(p.0 as usize)).count() as u32;
                if self.s.indeg[i] == 0 {
                    ready.push(n);
                }
            }
        }
        // Depth first (a stack), so that contexts are freed soon after they are made.
        while let Some(n) = ready.pop() {
            let i = n.0 as usize;
            let set = self.node_set(n);
            if self.s.effective.get(i) {
                visit(n, &set);
            }
            self.s.done.set(i, true);
            if self.s.remaining[i] > 0 {
                self.s.sets.insert(n, set);
            }
            self.release_readers_of(n);
            for &c in t.children(n) {
                let ci = c.0 as usize;
                if self.s.needed.get(ci) {
                    self.s.indeg[ci] -= 1;
                    if self.s.indeg[ci] == 0 {
                        ready.push(c);
                    }
                }
            }
        }
        // On a cycle (a mesh route whose backend is its parent): enumerate paths.
        let pending: Vec<NodeId> = self
            .touched
            .iter()
            .copied()
            .filter(|n| {
                let i = n.0 as usize;
                self.s.needed.get(i) && self.s.effective.get(i) && !self.s.done.get(i)
            })
            .collect();
        for n in pending {
            let set = self.by_paths(n);
            visit(n, &set);
        }
        let touched = std::mem::take(&mut self.touched);
        self.s.reset(&touched);
        self.truncated
    }

    /// `n` is done: the nodes whose contexts it read may be freed once all their readers are.
    fn release_readers_of(&mut self, n: NodeId) {
        let t = self.t;
        let release = |p: NodeId, s: &mut Scratch| {
            let i = p.0 as usize;
            if s.needed.get(i) {
                s.remaining[i] = s.remaining[i].saturating_sub(1);
                if s.remaining[i] == 0 {
                    s.sets.remove(&p);
                }
            }
        };
        if self.s.is_port.get(n.0 as usize)
            && let Some(&svc) = t.parents(n).first()
        {
            for &q in t.parents(svc) {
                release(q, self.s);
            }
        }
        for &p in t.parents(n) {
            release(p, self.s);
        }
    }

    fn set_of(&self, p: NodeId) -> SigFoldSet {
        if self.s.needed.get(p.0 as usize) {
            self.s.sets.get(&p).cloned().unwrap_or_else(|| self.empty.clone())
        } else {
            self.empty.clone()
        }
    }

    fn node_set(&mut self, n: NodeId) -> SigFoldSet {
        let t = self.t;
        // A Service port: only the paths whose backendRef uses the port (as `paths_to`).
        if let Some((svc, port)) = self.s.is_port.get(n.0 as usize).then(|| service_port(self.world, n)).flatten() {
            let s_node = t.object_node(svc);
            let scope = &self.plan.scope;
            let admitted: Vec<NodeId> = t
                .parents(s_node)
                .iter()
                .copied()
                .filter(|&q| scope.admits_node(self.world, q) && admits(self.world, q, svc, port))
                .collect();
            let mut sets: Vec<SigFoldSet> = admitted.iter().map(|&q| self.set_of(q)).collect();
            if sets.is_empty() {
                sets.push(self.empty.clone());
            }
            let above = self.union(sets);
            let at_service = self.extend(&above, s_node);
            return self.extend(&at_service, n);
        }
        // A parent outside this scope's world is not there (a case's Gateway seen from
        // another case).
        let scope = &self.plan.scope;
        let filtered: Vec<NodeId>;
        let parents: &[NodeId] = if *scope == Scope::All {
            t.parents(n)
        } else {
            filtered = t.parents(n).iter().copied().filter(|&p| scope.admits_node(self.world, p)).collect();
            &filtered
        };
        let mut sets: Vec<SigFoldSet> =
            parents.iter().filter(|p| self.s.needed.get(p.0 as usize)).map(|&p| self.set_of(p)).collect();
        if parents.iter().any(|p| !self.s.needed.get(p.0 as usize)) || parents.is_empty() {
            sets.push(self.empty.clone());
        }
        let merged = self.union(sets);
        self.extend(&merged, n)
    }

    fn union(&mut self, mut sets: Vec<SigFoldSet>) -> SigFoldSet {
        if sets.len() == 1 {
            return sets.pop().unwrap_or_else(|| self.empty.clone());
        }
        let total: usize = sets.iter().map(|s| s.len()).sum::<usize>().min(self.limit);
        let mut seen: HashSet<Sig> = HashSet::with_capacity(total);
        let mut out = Vec::with_capacity(total);
        for s in &sets {
            for ctx in s.iter() {
                if seen.contains(&ctx.sig) {
                    continue;
                }
                if out.len() >= self.limit {
                    self.truncated = true;
                    break;
                }
                seen.insert(ctx.sig.clone());
                out.push(ctx.clone());
            }
        }
        Arc::new(out)
    }

    /// Adds what node `n` contributes to every context (its Namespace level, itself).
    fn extend(&self, set: &SigFoldSet, n: NodeId) -> SigFoldSet {
        let ns = self.plan.namespace_above(self.world, n);
        let here = self.plan.is_level(n);
        if ns.is_none() && !here {
            return set.clone();
        }
        let mut seen: HashSet<Sig> = HashSet::new();
        let mut out = Vec::with_capacity(set.len());
        for ctx in set.iter() {
            let mut v: Vec<NodeId> = Vec::with_capacity(ctx.sig.len() + 2);
            v.extend_from_slice(&ctx.sig);
            if let Some(ns) = ns
                && !v.contains(&ns)
            {
                v.push(ns);
            }
            if here {
                v.push(n);
            }
            if v.len() == ctx.sig.len() {
                out.push(ctx.clone());
                continue;
            }
            let sig: Sig = v.into();
            if seen.insert(sig.clone()) {
                let folded = Arc::new(self.folder.extend(&ctx.folded.fold, &sig, ctx.sig.len()));
                out.push(SigFold { sig, folded });
            }
        }
        Arc::new(out)
    }

    fn by_paths(&mut self, n: NodeId) -> Vec<SigFold> {
        let (paths, truncated) = self.t.paths_to(self.world, n, PathLimit(self.limit));
        self.truncated |= truncated;
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for p in paths {
            let (sig, _) = self.plan.path_signature(self.world, &p);
            let s: Sig = sig.into();
            if seen.insert(s.clone()) {
                let folded = Arc::new(self.folder.full(&s));
                out.push(SigFold { sig: s, folded });
            }
        }
        out
    }
}

/// A Service port section: the Service and the port number.
pub fn service_port(world: &Linked, n: NodeId) -> Option<(ObjId, Option<i64>)> {
    match world.topology.node(n) {
        DagNode::Section(o, i) => match &world.object(o).body {
            Body::Service(s) => Some((o, s.ports.get(i as usize).and_then(|p| p.port))),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the edge from `q` into Service `svc` carries `port` (a backendRef naming that port
/// or none), as `Topology::paths_to` filters them. Parents that are not routes always pass.
pub fn admits(world: &Linked, q: NodeId, svc: ObjId, port: Option<i64>) -> bool {
    let t = &world.topology;
    let Some(want) = port else { return true };
    let (route, section) = match t.node(q) {
        DagNode::Object(r) => (r, None),
        DagNode::Section(r, i) => (r, Some(i)),
        _ => return true,
    };
    let Body::Route(r) = &world.object(route).body else {
        return true;
    };
    for (k, (rule, results)) in r.rules.iter().zip(t.backend_refs(route)).enumerate() {
        // The node the rule's backend edges start from (as the topology builds them).
        let from = t.rule_node(world, route, rule, k as u32);
        let rule_is_q = match section {
            Some(_) => from == Some(q),
            None => from.is_none(),
        };
        if !rule_is_q {
            continue;
        }
        for (br, res) in rule.backend_refs.iter().zip(results) {
            if matches!(res, BackendResolution::Found { target, .. } if *target == svc) {
                let p = br.port.as_ref().map(|p| p.value);
                if p.is_none() || p == Some(want) {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::Workspace;

    const CONFIG: &str = "\
policyKinds:
  - group: example.com
    kind: DeepPolicy
    class: Inherited
    targets:
      - {group: \"\", kind: Namespace}
      - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: true}
      - {group: \"\", kind: Service, sectionName: true}
    effectiveTarget: {group: \"\", kind: Service}
  - group: example.com
    kind: RoutePolicy
    class: Inherited
    targets:
      - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: true}
    effectiveTarget: {group: gateway.networking.k8s.io, kind: HTTPRoute}
";

    fn policy(kind: &str, name: &str, ns: &str, target: &str) -> String {
        let (tk, rest) = target.split_once('/').unwrap_or(("", ""));
        let (tname, section) = match rest.split_once('#') {
            Some((n, s)) => (n, format!(", sectionName: {s}")),
            None => (rest, String::new()),
        };
        let group = if matches!(tk, "Service" | "Namespace") { "\"\"" } else { "gateway.networking.k8s.io" };
        format!(
            "apiVersion: example.com/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: {ns}}}\nspec:\n  targetRefs:\n    - {{group: {group}, kind: {tk}, name: {tname}{section}}}\n  defaults: {{strategy: patch, {name}: 1}}\n"
        )
    }

    /// Contexts pushed down the DAG are exactly the signatures of the enumerated paths.
    #[test]
    fn effective_contexts_propagation_matches_paths() {
        let mut docs: Vec<String> = Vec::new();
        for g in 0..3 {
            docs.push(format!("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {{name: g{g}, namespace: infra}}\nspec:\n  gatewayClassName: c\n  listeners:\n    - {{name: a, port: 80, protocol: HTTP, allowedRoutes: {{namespaces: {{from: All}}}}}}\n    - {{name: b, port: 81, protocol: HTTP, allowedRoutes: {{namespaces: {{from: All}}}}}}\n"));
        }
        for r in 0..4 {
            let parents: Vec<String> =
                (0..3).filter(|g| (g + r) % 3 != 0).map(|g| format!("{{name: g{g}, namespace: infra}}")).collect();
            docs.push(format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: r{r}, namespace: app}}\nspec:\n  parentRefs: [{}]\n  rules:\n    - name: x\n      backendRefs: [{{name: s{}, port: 80}}, {{name: s2, port: 90}}]\n    - backendRefs: [{{name: s{}}}]\n",
                parents.join(", "),
                r % 2,
                (r + 1) % 3
            ));
        }
        // A mesh route: its parent is a Service, its backend another.
        docs.push("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: mesh, namespace: app}\nspec:\n  parentRefs: [{group: \"\", kind: Service, name: s0}]\n  rules:\n    - backendRefs: [{name: s1}]\n".into());
        // A cycle: a mesh route whose parent is also its backend.
        docs.push("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: loop, namespace: app}\nspec:\n  parentRefs: [{group: \"\", kind: Service, name: s2}]\n  rules:\n    - backendRefs: [{name: s2, port: 80}]\n".into());
        for s in 0..3 {
            docs.push(format!("apiVersion: v1\nkind: Service\nmetadata: {{name: s{s}, namespace: app}}\nspec:\n  ports: [{{name: http, port: 80}}, {{name: alt, port: 90}}]\n"));
        }
        docs.push("apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n".into());
        for (name, ns, target) in [
            ("nsapp", "app", "Namespace/app"),
            ("g0", "infra", "Gateway/g0"),
            ("g1a", "infra", "Gateway/g1#a"),
            ("r1", "app", "HTTPRoute/r1"),
            ("r2x", "app", "HTTPRoute/r2#x"),
            ("s1", "app", "Service/s1"),
            ("s2alt", "app", "Service/s2#alt"),
        ] {
            docs.push(policy("DeepPolicy", name, ns, target));
            if !target.starts_with("Service") && !target.starts_with("Namespace") {
                docs.push(policy("RoutePolicy", name, ns, target));
            }
        }
        let mut ws = Workspace::new();
        ws.set_config(Some(".policylens.yaml"), CONFIG);
        ws.set_file("a.yaml", docs.join("---\n"));
        let snap = ws.snapshot();
        let world = snap.world();
        let index = snap.effective();
        assert_eq!(index.plans.len(), 2);
        let ns_objects = super::super::namespace_objects(world, &index.plans);
        for plan in index.plans.values() {
            let specs = index.specs_at(world, plan, plan.attached.keys().copied());
            let folder = Folder::new(world, plan, &specs, None);
            let mut checked = 0;
            visit(&folder, &mut Scratch::new(world), &ns_objects, PathLimit::default(), &mut |target, ctxs| {
                let mut got: Vec<Vec<NodeId>> = ctxs.iter().map(|c| c.sig.to_vec()).collect();
                got.sort();
                let (paths, _) = world.topology.paths_to(world, target, PathLimit::default());
                let mut want: Vec<Vec<NodeId>> = paths.iter().map(|p| plan.path_signature(world, p).0).collect();
                want.sort();
                want.dedup();
                assert_eq!(got, want, "{} at {}", plan.kind.gk, world.topology.node_key(world, target));
                checked += 1;
            });
            assert!(checked >= 6, "{}: {checked} targets", plan.kind.gk);
        }
    }
}
