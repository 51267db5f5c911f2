//! The walk: contexts pushed down the DAG once per kind, in topological order, over the
//! nodes that matter (or a [`Region`] of them); a mesh cycle falls back to path enumeration.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use super::super::fold::Fold;
use super::folder::{Folded, Folder, SigFold, SigFoldSet};
use super::plan::{KindPlan, Sig};
use super::scope::Scope;
use super::scratch::{Bits, Scratch};
use super::targets::{admits, direct_effective, max_rank, service_port};
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId, PathLimit, Topology};
use crate::world::ObjId;

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
