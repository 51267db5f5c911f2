//! What a what-if changes at one effective target, without explaining the target on each side:
//! only the paths whose signature holds a node where a removed policy took part can have
//! another context (every other node keeps its policies), so only those are folded, once per
//! distinct signature and side. The leaves are those `explain` shows for the path (the same
//! fold, the target's own values applied the same way), so a report made from them equals
//! one made by explaining the target twice (`server/core/tests/whatif.rs` compares them).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::contexts::KindPlan;
use super::explain::{below_effective, is_route};
use super::listmap::SchemaNode;
use super::provenance::leaf_rows;
use super::spec::PolicySpec;
use super::status::supplier_label;
use super::{EffectiveIndex, extract_spec, fold, shadow};
use crate::model::GroupKind;
use crate::topology::{Linked, NodeId, PathLimit};
use crate::world::ObjId;

/// One leaf of an effective policy on one path, as `explain` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    /// JSON pointer into the effective policy.
    pub field: String,
    pub value: Value,
    /// Who supplied it (a policy, or the target's own value).
    pub policy: String,
    pub strategy: &'static str,
}

/// The leaves of one context.
type Leaves = Arc<Vec<Leaf>>;

/// One path to a target whose context the change may alter, on each side (before, after).
pub struct ChangedPath {
    /// The path as each side shows it (with Namespace levels where the kind has policies on
    /// Namespaces).
    pub shown: [Vec<NodeId>; 2],
    /// Its leaves on each side; none on a side where the path has no context.
    pub leaves: [Arc<Vec<Leaf>>; 2],
}

/// One policy kind of a what-if, before and after: [`Sides::at`] answers per target.
pub struct Sides<'a> {
    world: &'a Linked,
    /// Before, and after (absent: no policy of the kind is left).
    before: &'a KindPlan,
    after: Option<&'a KindPlan>,
    schema: Option<&'a SchemaNode>,
    /// Nodes where the change took place, sorted.
    seeds: Vec<NodeId>,
    limit: PathLimit,
    specs: RefCell<HashMap<ObjId, PolicySpec>>,
    /// Leaves per side and signature, at targets without values of their own.
    memo: RefCell<HashMap<(usize, Vec<NodeId>), Leaves>>,
}

impl EffectiveIndex {
    /// Kind `gk` of this index (before) against `after`, which differs only at `seeds` (nodes
    /// where policies of the kind were taken out, or Gateways that ignored them). `None` when
    /// the kind is walked in several worlds (units) or had no plan.
    pub fn sides<'a>(
        &'a self,
        after: &'a EffectiveIndex,
        world: &'a Linked,
        gk: &GroupKind,
        seeds: &[NodeId],
    ) -> Option<Sides<'a>> {
        let before = self.plans.get(gk)?;
        if !world.units.is_trivial() {
            return None;
        }
        let mut seeds = seeds.to_vec();
        seeds.sort_unstable();
        seeds.dedup();
        Some(Sides {
            world,
            before,
            after: after.plans.get(gk),
            schema: self.schemas.get(gk),
            seeds,
            limit: self.limit,
            specs: RefCell::default(),
            memo: RefCell::default(),
        })
    }
}

impl Sides<'_> {
    /// The paths to effective target `target` whose context may differ, with their leaves on
    /// each side (paths `explain` would show on neither side are left out).
    pub fn at(&self, target: NodeId) -> Vec<ChangedPath> {
        let world = self.world;
        let (paths, _) = world.topology.paths_to(world, target, self.limit);
        let target_is_route = is_route(world, target);
        let mut json = shadow::ObjectJson::default();
        // The target's own values: a property of the kind, the same on both sides.
        let values = shadow::target_values(world, &self.before.kind, target, &mut json);
        let mut effective = HashMap::new();
        let mut out = Vec::new();
        for path in paths {
            if below_effective(world, self.before, target_is_route, &path, &mut effective) {
                continue;
            }
            let (sig, shown) = self.before.path_signature(world, &path);
            if !sig.iter().any(|n| self.seeds.binary_search(n).is_ok()) {
                continue;
            }
            let before = self.leaves(0, self.before, &sig, target, &values);
            let (after, shown_after) = match self.after {
                Some(plan) => {
                    let (sig, shown) = plan.path_signature(world, &path);
                    (self.leaves(1, plan, &sig, target, &values), shown)
                }
                None => (Arc::default(), shown.clone()),
            };
            if before.is_empty() && after.is_empty() {
                continue;
            }
            out.push(ChangedPath { shown: [shown, shown_after], leaves: [before, after] });
        }
        out
    }

    /// The leaves of signature `sig` at `target` on one side, as `explain` folds them.
    fn leaves(
        &self,
        side: usize,
        plan: &KindPlan,
        sig: &[NodeId],
        target: NodeId,
        values: &[(String, Value)],
    ) -> Arc<Vec<Leaf>> {
        // A direct kind shows nothing where nothing is attached, its target's values aside.
        if plan.is_direct() && sig.is_empty() {
            return Arc::default();
        }
        let key = (side, sig.to_vec());
        if values.is_empty()
            && let Some(l) = self.memo.borrow().get(&key)
        {
            return l.clone();
        }
        let world = self.world;
        let mut specs = self.specs.borrow_mut();
        for n in sig {
            for &p in plan.attached.get(n).map(Vec::as_slice).unwrap_or(&[]) {
                if !specs.contains_key(&p)
                    && let Some(s) = extract_spec(world, p, self.schema)
                {
                    specs.insert(p, s);
                }
            }
        }
        let inputs = plan.inputs(sig, &specs);
        if values.is_empty() && inputs.is_empty() {
            return Arc::default();
        }
        let label = |id: ObjId| world.key(id).to_string();
        let mut f = fold::fold(&inputs, &plan.rules, self.schema, &label);
        if !values.is_empty()
            && let Some(o) = shadow::target_object(world, target)
        {
            shadow::apply(&mut f, o, values, &plan.rules, self.schema);
        }
        let effective = f.tree.to_json();
        let leaves: Arc<Vec<Leaf>> = Arc::new(
            leaf_rows(&f.tree)
                .into_iter()
                .map(|r| Leaf {
                    value: effective.pointer(&r.pointer).cloned().unwrap_or(Value::Null),
                    field: r.pointer,
                    policy: supplier_label(world, r.src.origin),
                    strategy: r.src.strategy.as_str(),
                })
                .collect(),
        );
        if values.is_empty() {
            self.memo.borrow_mut().insert(key, leaves.clone());
        }
        leaves
    }
}
