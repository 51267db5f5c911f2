//! Folds of signatures: a prefix's fold extended by the next nodes' policies, and what every
//! policy got out of each.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use super::super::fold::{self, Fold, Input, Outcome};
use super::super::listmap::SchemaNode;
use super::super::spec::PolicySpec;
use super::plan::{KindPlan, Sig};
use crate::topology::Linked;
use crate::topology::NodeId;
use crate::world::ObjId;

/// A context as computed: the signature of some paths and its fold (the report of one is
/// [`Context`](super::super::Context)).
#[derive(Clone)]
pub struct SigFold {
    pub sig: Sig,
    pub folded: Arc<Folded>,
}

/// A fold and, computed on first use, what every policy got out of it.
pub struct Folded {
    pub fold: Fold,
    pub(super) outcomes: OnceLock<Vec<Outcome>>,
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
    pub(super) fn extend(&self, base: &Fold, sig: &[NodeId], from: usize) -> Folded {
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

/// The distinct contexts reaching one node.
pub type SigFoldSet = Arc<Vec<SigFold>>;
