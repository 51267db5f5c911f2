//! The fold (docs/semantics.md §5 items 2-4): policies ordered least specific first are combined one by
//! one, the established effective spec's strategy deciding how the next policy (the
//! challenger) combines with it.
//!
//! Leaves remember whether an override supplied them, so the fold keeps GEP-2649's precedence
//! "A override > B override > C override > C default > B default > A default" across more than
//! two levels (the GEP-713 flowchart alone would let a default two levels down undo an
//! override once the override's strategy has been handed on):
//! - an atomic override, once applied, keeps everything below it out;
//! - an atomic default (established) lets the challenger replace the whole spec, except
//!   leaves that came from overrides;
//! - a patch strategy (established) patches the challenger in, except over override leaves;
//! - None: the challenger on the same target is Conflicted; on a more specific one (a section
//!   of the established target, GEP-2648) it replaces it.
//!
//! At the same level the older policy (then the first by `namespace/name`) dictates the
//! strategy (GEP-713 "Conflict resolution" rule 2): under defaults the younger's values win
//! (whole for atomic, field by field for patch and merge), under overrides the older's, under
//! None the younger is Conflicted. Kinds whose implementation documents older-wins at the same
//! level (Gloo, kgateway: [`SameLevel::OlderWins`]) keep the older's fields under every
//! strategy.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::listmap::SchemaNode;
use super::provenance::{PVal, Src, Supplier};
use super::semantics::{Dictates, Rules, SameLevel};
use super::spec::PolicySpec;
use super::strategy::{Displaced, MergeRule, Patch, prune};
use crate::catalog::Strategy;
use crate::world::ObjId;

/// One policy in a context, in fold order.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Position of the policy's target on the path (larger: more specific).
    pub level: u32,
    pub policy: ObjId,
    pub spec: &'a PolicySpec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Applied,
    /// Lost a None-strategy conflict (or an NGINX Gateway Fabric overlap) to this policy.
    Conflicted(ObjId),
    /// Taken out whole before contributing anything.
    Discarded(Supplier, MergeRule),
}

#[derive(Clone, Debug)]
pub struct Participant {
    pub policy: ObjId,
    pub level: u32,
    pub fate: Fate,
}

#[derive(Debug)]
pub struct Fold {
    pub tree: PVal,
    pub participants: Vec<Participant>,
    /// Displacements since this fold was forked; older ones are shared with the fold it
    /// extends (`older`), so that extending a fold does not copy them.
    pub events: Vec<Displaced>,
    older: Option<Arc<EventChunk>>,
    frozen: OnceLock<Option<Arc<EventChunk>>>,
    /// The atomic override that keeps everything below it out, and its level.
    pub locked_by: Option<ObjId>,
    locked_at: u32,
    /// The established strategy and the level of the last policy folded in.
    established: Option<(Strategy, u32)>,
}

/// What one policy got out of one context.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub policy: ObjId,
    pub level: u32,
    pub contributed: u32,
    pub kept: u32,
    pub fate: Fate,
    /// Who holds what it lost.
    pub by: Vec<Supplier>,
    pub rules: Vec<MergeRule>,
    /// Where it lost something (JSON pointers into its spec; empty: the whole spec).
    pub lost: Vec<Arc<str>>,
}

impl Outcome {
    pub fn kept_all(&self) -> bool {
        self.fate == Fate::Applied && self.kept >= self.contributed && (self.contributed > 0 || self.by.is_empty())
    }

    pub fn kept_any(&self) -> bool {
        self.fate == Fate::Applied && (self.kept > 0 || (self.contributed == 0 && self.by.is_empty()))
    }
}

pub fn fold(inputs: &[Input<'_>], rules: &Rules, schema: Option<&SchemaNode>, label: &dyn Fn(ObjId) -> String) -> Fold {
    let mut f = Fold::new();
    if rules.additive {
        additive(&mut f, inputs, label);
        return f;
    }
    for inp in inputs {
        f.push(inp, rules, schema);
    }
    f
}

impl Fold {
    pub fn new() -> Fold {
        Fold {
            tree: PVal::empty_map(),
            participants: Vec::new(),
            events: Vec::new(),
            older: None,
            frozen: OnceLock::new(),
            locked_by: None,
            locked_at: 0,
            established: None,
        }
    }

    /// Folds in the next policy (more specific, or newer at the same level, than all before).
    pub fn push(&mut self, inp: &Input<'_>, rules: &Rules, schema: Option<&SchemaNode>) {
        let f = self;
        let origin = Supplier::Policy(inp.policy);
        let mut fate = Fate::Applied;
        if let Some(lock) = f.locked_by {
            // On the override's own target the older policy wins; below it, the override.
            let rule = if inp.level == f.locked_at { MergeRule::OlderWins } else { MergeRule::Overridden };
            fate = Fate::Discarded(Supplier::Policy(lock), rule);
        } else if let Some((est, level)) = f.established {
            let same = inp.level == level;
            let weak = inp.spec.parts.iter().all(|p| !p.strong);
            if same && weak {
                fate = same_level(f, inp, est, rules, schema);
                // The older policy keeps dictating at its level.
            } else {
                let mode = match rules.dictates {
                    Dictates::Established => est,
                    Dictates::Challenger => inp.spec.strategy,
                };
                apply(f, inp, mode, rules, schema, None);
                f.established = Some((inp.spec.strategy, inp.level));
            }
        } else {
            apply(f, inp, Strategy::PatchDefaults, rules, schema, None);
            f.established = Some((inp.spec.strategy, inp.level));
        }
        if fate == Fate::Applied && inp.spec.locks {
            f.locked_by = Some(inp.policy);
            f.locked_at = inp.level;
        }
        if let Fate::Discarded(by, rule) = fate {
            f.events.push(Displaced { victim: origin, by, pointer: "".into(), rule, same_value: false });
        }
        if let Fate::Conflicted(w) = fate {
            f.events.push(Displaced {
                victim: origin,
                by: Supplier::Policy(w),
                pointer: "".into(),
                rule: MergeRule::Conflict,
                same_value: false,
            });
        }
        f.participants.push(Participant { policy: inp.policy, level: inp.level, fate });
    }
}

impl Fold {
    /// A copy to extend, with room for the next policies (extended folds are the common case).
    pub fn fork(&self) -> Fold {
        let mut participants = Vec::with_capacity(self.participants.len() + 4);
        participants.extend_from_slice(&self.participants);
        let older = self
            .frozen
            .get_or_init(|| {
                if self.events.is_empty() {
                    self.older.clone()
                } else {
                    Some(Arc::new(EventChunk { events: self.events.clone(), prev: self.older.clone() }))
                }
            })
            .clone();
        Fold {
            tree: self.tree.clone(),
            participants,
            events: Vec::new(),
            older,
            frozen: OnceLock::new(),
            locked_by: self.locked_by,
            locked_at: self.locked_at,
            established: self.established,
        }
    }
}

impl Clone for Fold {
    fn clone(&self) -> Fold {
        Fold {
            tree: self.tree.clone(),
            participants: self.participants.clone(),
            events: self.events.clone(),
            older: self.older.clone(),
            // A clone may get events of its own: it freezes its own chain when forked.
            frozen: OnceLock::new(),
            locked_by: self.locked_by,
            locked_at: self.locked_at,
            established: self.established,
        }
    }
}

/// A run of displacements shared by the folds that extend it.
#[derive(Debug)]
struct EventChunk {
    events: Vec<Displaced>,
    prev: Option<Arc<EventChunk>>,
}

impl Fold {
    /// Every displacement, oldest first.
    pub fn all_events(&self) -> Vec<Displaced> {
        let mut chunks = Vec::new();
        let mut c = self.older.as_deref();
        while let Some(ch) = c {
            chunks.push(&ch.events);
            c = ch.prev.as_deref();
        }
        let mut out = Vec::with_capacity(chunks.iter().map(|c| c.len()).sum::<usize>() + self.events.len());
        for ch in chunks.into_iter().rev() {
            out.extend_from_slice(ch);
        }
        out.extend_from_slice(&self.events);
        out
    }

    fn any_event(&self, pred: &dyn Fn(&Displaced) -> bool) -> bool {
        if self.events.iter().any(pred) {
            return true;
        }
        let mut c = self.older.as_deref();
        while let Some(ch) = c {
            if ch.events.iter().any(pred) {
                return true;
            }
            c = ch.prev.as_deref();
        }
        false
    }
}

impl Default for Fold {
    fn default() -> Self {
        Fold::new()
    }
}

/// A challenger on the same target as the established policy, not an override.
fn same_level(f: &mut Fold, inp: &Input<'_>, est: Strategy, rules: &Rules, schema: Option<&SchemaNode>) -> Fate {
    let holders = holders_at(f, inp.level);
    if rules.same_level == SameLevel::YoungerConflicted {
        return Fate::Conflicted(holders.first().copied().unwrap_or(inp.policy));
    }
    if rules.same_level == SameLevel::ConflictOnOverlap {
        let same = |s: &Src| matches!(s.origin, Supplier::Policy(p) if holders.contains(&p));
        if let Some(w) = inp.spec.parts.iter().find_map(|p| first_overlap(&f.tree, &p.value, &same, rules)) {
            return Fate::Conflicted(w);
        }
        patch_parts(f, inp, &|_| true, MergeRule::Patched, MergeRule::OlderWins, rules, schema);
        return Fate::Applied;
    }
    if rules.same_level == SameLevel::OlderDictates
        && matches!(est, Strategy::AtomicDefaults | Strategy::PatchDefaults | Strategy::Custom)
    {
        // GEP-713 rule 2: the older policy dictates the strategy, and under defaults the
        // challenger (the younger) is the one whose values win: it replaces the older's spec
        // whole (atomic) or field by field (patch, merge), except what overrides hold.
        apply(f, inp, est, rules, schema, Some(MergeRule::YoungerWins));
        return Fate::Applied;
    }
    match est {
        Strategy::None => Fate::Conflicted(holders.first().copied().unwrap_or(inp.policy)),
        Strategy::AtomicDefaults | Strategy::AtomicOverrides => {
            let by = holders.first().map_or(Supplier::Policy(inp.policy), |h| Supplier::Policy(*h));
            Fate::Discarded(by, MergeRule::OlderWins)
        }
        Strategy::PatchDefaults | Strategy::PatchOverrides | Strategy::Custom => {
            patch_parts(f, inp, &|_| true, MergeRule::Patched, MergeRule::OlderWins, rules, schema);
            Fate::Applied
        }
    }
}

/// The policies already folded in at `level`, oldest first.
fn holders_at(f: &Fold, level: u32) -> Vec<ObjId> {
    f.participants.iter().filter(|p| p.level == level && p.fate == Fate::Applied).map(|p| p.policy).collect()
}

fn first_overlap(tree: &PVal, patch: &Value, hit: &dyn Fn(&Src) -> bool, rules: &Rules) -> Option<ObjId> {
    // The policy that set the field both set (NGINX Gateway Fabric's `Conflicts` compares
    // fields: the holder of another field of the same object is not the one in the way).
    match super::strategy::first_overlap(tree, patch, hit, rules.units)?.origin {
        Supplier::Policy(p) => Some(p),
        _ => None,
    }
}

/// Combines a challenger at a more specific level (or an override at the same level).
/// `same`: the rule the losers get instead, for a younger default on the same target.
fn apply(
    f: &mut Fold,
    inp: &Input<'_>,
    mode: Strategy,
    rules: &Rules,
    schema: Option<&SchemaNode>,
    same: Option<MergeRule>,
) {
    let strong = |s: &Src| s.strong;
    match mode {
        Strategy::None | Strategy::AtomicDefaults | Strategy::AtomicOverrides => {
            // Atomic: the challenger replaces everything that overrides do not hold.
            let by = Supplier::Policy(inp.policy);
            let rule = if mode == Strategy::None { MergeRule::SectionWins } else { MergeRule::Replaced };
            let rule = same.unwrap_or(rule);
            let events = &mut f.events;
            prune(&mut f.tree, &strong, &mut |p, s| {
                if s.origin != by {
                    events.push(Displaced { victim: s.origin, by, pointer: p.into(), rule, same_value: false });
                }
            });
            // Policies that contributed nothing are replaced too.
            for p in &f.participants {
                if p.fate == Fate::Applied
                    && p.policy != inp.policy
                    && !f.tree.any_src(&|s| s.origin == Supplier::Policy(p.policy))
                {
                    let already = f.any_event(&|e| e.victim == Supplier::Policy(p.policy) && !e.same_value);
                    if !already {
                        f.events.push(Displaced {
                            victim: Supplier::Policy(p.policy),
                            by,
                            pointer: "".into(),
                            rule,
                            same_value: false,
                        });
                    }
                }
            }
            patch_parts(f, inp, &strong, rule, MergeRule::Protected, rules, schema);
        }
        Strategy::PatchDefaults | Strategy::PatchOverrides | Strategy::Custom => {
            let rule = same.unwrap_or(MergeRule::Patched);
            patch_parts(f, inp, &strong, rule, MergeRule::Protected, rules, schema);
        }
    }
}

/// Patches a policy's parts in, in order; its own overrides part may overwrite its defaults.
fn patch_parts(
    f: &mut Fold,
    inp: &Input<'_>,
    guard: &dyn Fn(&Src) -> bool,
    rule: MergeRule,
    blocked_rule: MergeRule,
    rules: &Rules,
    schema: Option<&SchemaNode>,
) {
    let me = Supplier::Policy(inp.policy);
    for part in &inp.spec.parts {
        let g = |s: &Src| s.origin != me && guard(s);
        Patch {
            src: Src { origin: me, strategy: part.strategy, strong: part.strong },
            guard: &g,
            rule,
            blocked_rule,
            units: rules.units,
            events: &mut f.events,
        }
        .apply(&mut f.tree, &part.value, schema.filter(|_| !inp.spec.json_merge));
    }
}

/// Istio/Linkerd: each policy applies as written, under its own name.
fn additive(f: &mut Fold, inputs: &[Input<'_>], label: &dyn Fn(ObjId) -> String) {
    let mut entries = Vec::new();
    for inp in inputs {
        let src = Src { origin: Supplier::Policy(inp.policy), strategy: Strategy::Custom, strong: false };
        let mut value = serde_json::Map::new();
        for p in &inp.spec.parts {
            if let Value::Object(m) = &p.value {
                value.extend(m.clone());
            }
        }
        entries.push((label(inp.policy).into(), PVal::leaf(Value::Object(value), src)));
        f.participants.push(Participant { policy: inp.policy, level: inp.level, fate: Fate::Applied });
    }
    f.tree = PVal::map(entries);
}

/// Per-policy outcomes of a finished fold.
pub fn outcomes(f: &Fold, inputs: &[Input<'_>], additive: bool) -> Vec<Outcome> {
    // One pass over the tree and one over the events, whatever the number of policies.
    let mut kept: Vec<(Supplier, u32)> = Vec::with_capacity(f.participants.len());
    f.tree.for_each_src(&mut |s| match kept.iter_mut().find(|(o, _)| *o == s.origin) {
        Some((_, n)) => *n += 1,
        None => kept.push((s.origin, 1)),
    });
    let mut out: Vec<Outcome> = f
        .participants
        .iter()
        .map(|p| {
            let me = Supplier::Policy(p.policy);
            let contributed =
                if additive { 1 } else { inputs.iter().find(|i| i.policy == p.policy).map_or(0, |i| i.spec.leaves) };
            let k = kept.iter().find(|(o, _)| *o == me).map_or(0, |(_, n)| *n);
            Outcome {
                policy: p.policy,
                level: p.level,
                contributed,
                kept: k.min(contributed),
                fate: p.fate,
                by: Vec::new(),
                rules: Vec::new(),
                lost: Vec::new(),
            }
        })
        .collect();
    let events = f.all_events();
    for (i, e) in events.iter().enumerate() {
        let Supplier::Policy(victim) = e.victim else { continue };
        let Some(o) = out.iter_mut().find(|o| o.policy == victim) else { continue };
        let mut rule = e.rule;
        if e.same_value {
            // Credited while the equal value stands and the victim keeps something else there
            // (an equal `type` alone does not put a policy in effect); else a loss like any,
            // to whoever displaced the equal value (`last_displacer` follows it).
            let later = (i + 1..events.len()).find(|&j| {
                !events[j].same_value && events[j].victim == e.by && overlap(&events[j].pointer, &e.pointer)
            });
            match later {
                None if o.kept > 0 => {
                    o.kept = (o.kept + 1).min(o.contributed);
                    continue;
                }
                None => {}
                Some(j) => rule = events[j].rule,
            }
        }
        let now: Vec<Supplier> = if e.pointer.is_empty() {
            Vec::new()
        } else {
            f.tree.owners_at(&e.pointer).into_iter().filter(|x| *x != e.victim).collect()
        };
        if now.is_empty() {
            let w = last_displacer(&events, i);
            if !o.by.contains(&w) {
                o.by.push(w);
            }
        } else {
            for w in now {
                if !o.by.contains(&w) {
                    o.by.push(w);
                }
            }
        }
        if !o.rules.contains(&rule) {
            o.rules.push(rule);
        }
        if !o.lost.contains(&e.pointer) {
            o.lost.push(e.pointer.clone());
        }
    }
    out
}

/// Who finally took a place: the displacer of event `i`, or whoever later displaced it there
/// in turn (a field patched by one policy and then replaced whole by the next).
fn last_displacer(events: &[Displaced], i: usize) -> Supplier {
    let (mut by, ptr, mut at) = (events[i].by, &*events[i].pointer, i);
    while let Some(j) = (at + 1..events.len()).find(|&j| events[j].victim == by && overlap(&events[j].pointer, ptr)) {
        by = events[j].by;
        at = j;
    }
    by
}

/// Whether two JSON pointers name the same place, one inside the other, or the whole spec.
fn overlap(a: &str, b: &str) -> bool {
    let inside = |x: &str, y: &str| x == y || (x.starts_with(y) && x[y.len()..].starts_with('/'));
    a.is_empty() || b.is_empty() || inside(a, b) || inside(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{KindSource, PolicyClass, PolicyKind, Semantics};
    use crate::effective::spec::{Part, own_tree};
    use crate::model::GroupKind;
    use serde_json::json;

    fn kind(semantics: Semantics, class: PolicyClass) -> (PolicyKind, Rules) {
        let mut k = PolicyKind::new(GroupKind::new("example.com", "TestPolicy"), class, KindSource::Config);
        k.semantics = semantics;
        let r = super::super::semantics::rules(&k);
        (k, r)
    }

    fn spec(id: u32, rules: &Rules, parts: Vec<(Value, Strategy, bool)>) -> PolicySpec {
        let parts: Vec<Part> =
            parts.into_iter().map(|(value, strategy, strong)| Part { value, strategy, strong }).collect();
        let has_defaults = parts.iter().any(|p| !p.strong);
        let strategy = parts.first().map_or(Strategy::AtomicDefaults, |p| p.strategy);
        let locks = !has_defaults && parts.iter().any(|p| p.strategy == Strategy::AtomicOverrides);
        let leaves = own_tree(ObjId(id), &parts, rules, None).leaf_count();
        PolicySpec { parts, strategy, locks, unknown_strategy: None, leaves, json_merge: false }
    }

    fn run(rules: &Rules, specs: &[(u32, u32, &PolicySpec)]) -> (Value, Vec<Outcome>) {
        let inputs: Vec<Input<'_>> =
            specs.iter().map(|&(level, id, spec)| Input { level, policy: ObjId(id), spec }).collect();
        let f = fold(&inputs, rules, None, &|id| format!("p{}", id.0));
        let outs = outcomes(&f, &inputs, rules.additive);
        (f.tree.to_json(), outs)
    }

    fn fate(outs: &[Outcome], id: u32) -> (Fate, bool, bool) {
        let o = outs.iter().find(|o| o.policy == ObjId(id)).map(|o| (o.fate, o.kept_all(), o.kept_any()));
        o.unwrap_or((Fate::Applied, false, false))
    }

    const AD: Strategy = Strategy::AtomicDefaults;
    const AO: Strategy = Strategy::AtomicOverrides;
    const PD: Strategy = Strategy::PatchDefaults;
    const PO: Strategy = Strategy::PatchOverrides;

    #[test]
    fn effective_fold_the_same_value_patched_again_is_not_a_loss() {
        // A patch setting what the established policy set changes nothing it wanted, as long
        // as something else of it stands; alone, or displaced later, the equal value is lost.
        let (_, r) = kind(Semantics::Gep713, PolicyClass::Inherited);
        let gw = spec(1, &r, vec![(json!({"type": "Global", "rules": [1]}), PD, false)]);
        let rt = spec(2, &r, vec![(json!({"type": "Global", "extra": 1}), PD, false)]);
        let (v, outs) = run(&r, &[(0, 1, &gw), (1, 2, &rt)]);
        assert_eq!(v, json!({"type": "Global", "rules": [1], "extra": 1}));
        assert_eq!(fate(&outs, 1), (Fate::Applied, true, true), "the Gateway's is kept whole");

        let gw = spec(1, &r, vec![(json!({"type": "Global", "rules": [1]}), PD, false)]);
        let rt = spec(2, &r, vec![(json!({"type": "Global", "rules": [2]}), PD, false)]);
        let (_, outs) = run(&r, &[(0, 1, &gw), (1, 2, &rt)]);
        assert_eq!(fate(&outs, 1), (Fate::Applied, false, false), "an equal `type` alone is not in effect");

        let rule = spec(3, &r, vec![(json!({"type": "Local"}), PD, false)]);
        let gw = spec(1, &r, vec![(json!({"type": "Global", "rules": [1]}), PD, false)]);
        let rt = spec(2, &r, vec![(json!({"type": "Global"}), PD, false)]);
        let (v, outs) = run(&r, &[(0, 1, &gw), (1, 2, &rt), (2, 3, &rule)]);
        assert_eq!(v, json!({"type": "Local", "rules": [1]}));
        let gw_out = outs.iter().find(|o| o.policy == ObjId(1)).map(|o| (o.kept, o.by.clone()));
        assert_eq!(gw_out, Some((1, vec![Supplier::Policy(ObjId(3))])), "lost with the equal value, to its displacer");
    }

    #[test]
    fn effective_fold_override_survives_two_levels_of_defaults() {
        // GEP-2649: A override > ... > C default > B default: a default two levels below an
        // override cannot undo it, atomic or patch.
        let (_, r) = kind(Semantics::Gep713, PolicyClass::Inherited);
        let ns = spec(1, &r, vec![(json!({"a": 1}), PO, true)]);
        let gw = spec(2, &r, vec![(json!({"a": 2, "b": 2}), AD, false)]);
        let rt = spec(3, &r, vec![(json!({"a": 3, "c": 3}), AD, false)]);
        let (v, outs) = run(&r, &[(0, 1, &ns), (1, 2, &gw), (2, 3, &rt)]);
        assert_eq!(v, json!({"a": 1, "c": 3}));
        assert_eq!(fate(&outs, 2), (Fate::Applied, false, false), "the Gateway default is replaced whole");
        assert_eq!(fate(&outs, 3), (Fate::Applied, false, true));

        let ns = spec(1, &r, vec![(json!({"a": 1}), AO, true)]);
        let (v, outs) = run(&r, &[(0, 1, &ns), (1, 2, &gw), (2, 3, &rt)]);
        assert_eq!(v, json!({"a": 1}));
        assert_eq!(fate(&outs, 3).0, Fate::Discarded(Supplier::Policy(ObjId(1)), MergeRule::Overridden));
    }

    #[test]
    fn effective_fold_established_dictates_patch_or_atomic() {
        let (_, r) = kind(Semantics::Gep713, PolicyClass::Inherited);
        // Established PatchDefaults: the more specific atomic default is patched in.
        let gw = spec(1, &r, vec![(json!({"a": 1, "b": 1}), PD, false)]);
        let rt = spec(2, &r, vec![(json!({"b": 2}), AD, false)]);
        assert_eq!(run(&r, &[(0, 1, &gw), (1, 2, &rt)]).0, json!({"a": 1, "b": 2}));
        // Established AtomicDefaults: the more specific patch default replaces the whole.
        let gw = spec(1, &r, vec![(json!({"a": 1, "b": 1}), AD, false)]);
        let rt = spec(2, &r, vec![(json!({"b": 2}), PD, false)]);
        assert_eq!(run(&r, &[(0, 1, &gw), (1, 2, &rt)]).0, json!({"b": 2}));
        // PatchDefaults with null deletes.
        let gw = spec(1, &r, vec![(json!({"a": 1, "b": 1}), PD, false)]);
        let rt = spec(2, &r, vec![(json!({"b": null, "c": 3}), PD, false)]);
        assert_eq!(run(&r, &[(0, 1, &gw), (1, 2, &rt)]).0, json!({"a": 1, "c": 3}));
    }

    #[test]
    fn effective_fold_same_level_older_dictates() {
        let (_, r) = kind(Semantics::Gep713, PolicyClass::Inherited);
        // Atomic defaults: the older dictates atomic, so the younger replaces it whole.
        let old = spec(1, &r, vec![(json!({"a": 1}), AD, false)]);
        let new = spec(2, &r, vec![(json!({"a": 2, "b": 2}), AD, false)]);
        let (v, outs) = run(&r, &[(0, 1, &old), (0, 2, &new)]);
        assert_eq!(v, json!({"a": 2, "b": 2}));
        assert_eq!(fate(&outs, 2), (Fate::Applied, true, true));
        let older = outs.iter().find(|o| o.policy == ObjId(1)).expect("older");
        assert_eq!((older.kept, older.rules.clone()), (0, vec![MergeRule::YoungerWins]));
        // Patch defaults: the younger's value wins where both set a field; the older keeps the rest.
        let old = spec(1, &r, vec![(json!({"a": 1, "c": 1}), PD, false)]);
        let new = spec(2, &r, vec![(json!({"a": 2, "b": 2}), PD, false)]);
        assert_eq!(run(&r, &[(0, 1, &old), (0, 2, &new)]).0, json!({"a": 2, "b": 2, "c": 1}));
        // The older dictates: an older patch default lets a younger atomic default patch in.
        let new = spec(2, &r, vec![(json!({"a": 2}), AD, false)]);
        assert_eq!(run(&r, &[(0, 1, &old), (0, 2, &new)]).0, json!({"a": 2, "c": 1}));
        // Overrides: the older holds.
        let old = spec(1, &r, vec![(json!({"a": 1}), AO, true)]);
        let new = spec(2, &r, vec![(json!({"a": 2}), AO, true)]);
        let (v, outs) = run(&r, &[(0, 1, &old), (0, 2, &new)]);
        assert_eq!(v, json!({"a": 1}));
        assert_eq!(fate(&outs, 2).0, Fate::Discarded(Supplier::Policy(ObjId(1)), MergeRule::OlderWins));
        // An override beats a default on the same target whatever their age.
        let old = spec(1, &r, vec![(json!({"a": 1}), AD, false)]);
        let new = spec(2, &r, vec![(json!({"a": 2}), AO, true)]);
        assert_eq!(run(&r, &[(0, 1, &old), (0, 2, &new)]).0, json!({"a": 2}));
        let old = spec(1, &r, vec![(json!({"a": 1}), AO, true)]);
        let new = spec(2, &r, vec![(json!({"a": 2}), AD, false)]);
        assert_eq!(run(&r, &[(0, 1, &old), (0, 2, &new)]).0, json!({"a": 1}));
    }

    #[test]
    fn effective_fold_same_level_gloo_older_wins() {
        // Gloo and kgateway: the oldest takes precedence on one target, whatever the strategy.
        let (_, r) = kind(Semantics::Gloo, PolicyClass::Inherited);
        let c = Strategy::Custom;
        let old = spec(1, &r, vec![(json!({"options": {"a": 1}}), c, false)]);
        let new = spec(2, &r, vec![(json!({"options": {"a": 2, "b": 2}}), c, false)]);
        assert_eq!(run(&r, &[(0, 1, &old), (0, 2, &new)]).0, json!({"options": {"a": 1, "b": 2}}));
    }

    #[test]
    fn effective_fold_direct_none_section_beats_whole() {
        let (_, r) = kind(Semantics::Gep713, PolicyClass::Direct);
        let whole = spec(1, &r, vec![(json!({"x": 1}), Strategy::None, false)]);
        let dup = spec(2, &r, vec![(json!({"x": 2}), Strategy::None, false)]);
        let section = spec(3, &r, vec![(json!({"y": 3}), Strategy::None, false)]);
        let (v, outs) = run(&r, &[(0, 1, &whole), (0, 2, &dup), (1, 3, &section)]);
        assert_eq!(v, json!({"y": 3}));
        assert_eq!(fate(&outs, 2).0, Fate::Conflicted(ObjId(1)));
        assert_eq!(
            outs.iter().find(|o| o.policy == ObjId(1)).map(|o| o.rules.clone()),
            Some(vec![MergeRule::SectionWins])
        );
    }

    #[test]
    fn effective_fold_envoy_gateway_child_dictates() {
        let (_, r) = kind(Semantics::EnvoyGateway, PolicyClass::Inherited);
        let gw = spec(1, &r, vec![(json!({"timeout": {"tcp": "3s", "http": "15s"}}), AD, false)]);
        let merge = spec(2, &r, vec![(json!({"timeout": {"http": "30s"}}), PD, false)]);
        let replace = spec(3, &r, vec![(json!({"retry": 0}), AD, false)]);
        assert_eq!(run(&r, &[(0, 1, &gw), (1, 2, &merge)]).0, json!({"timeout": {"tcp": "3s", "http": "30s"}}));
        assert_eq!(run(&r, &[(0, 1, &gw), (1, 3, &replace)]).0, json!({"retry": 0}));
        // The generic rule would let the Gateway's atomic default dictate a replacement.
        let (_, g) = kind(Semantics::Gep713, PolicyClass::Inherited);
        assert_eq!(run(&g, &[(0, 1, &gw), (1, 2, &merge)]).0, json!({"timeout": {"http": "30s"}}));
    }

    #[test]
    fn effective_fold_kuadrant_merges_named_rules() {
        let (_, r) = kind(Semantics::Kuadrant, PolicyClass::Inherited);
        let c = Strategy::Custom;
        let gw =
            spec(1, &r, vec![(json!({"limits": {"a": {"rates": [1]}, "b": {"rates": [1], "when": ["x"]}}}), c, false)]);
        let ov = spec(2, &r, vec![(json!({"limits": {"b": {"rates": [9]}}}), c, true)]);
        let rt = spec(
            3,
            &r,
            vec![(json!({"limits": {"a": {"rates": [2]}, "b": {"rates": [3]}, "d": {"rates": [4]}}}), AD, false)],
        );
        let (v, outs) = run(&r, &[(0, 1, &gw), (0, 2, &ov), (1, 3, &rt)]);
        // A rule is one unit: the override's `b` replaces the default's whole, `when` included.
        assert_eq!(v, json!({"limits": {"a": {"rates": [2]}, "b": {"rates": [9]}, "d": {"rates": [4]}}}));
        assert_eq!(fate(&outs, 1), (Fate::Applied, false, false));
        assert_eq!(fate(&outs, 3), (Fate::Applied, false, true));
        assert_eq!(gw.leaves, 2);
    }

    #[test]
    fn effective_fold_nginx_conflicts_only_on_overlap() {
        let (_, r) = kind(Semantics::NginxGatewayFabric, PolicyClass::Inherited);
        let a = spec(1, &r, vec![(json!({"body": {"maxSize": "10m"}}), PD, false)]);
        let b = spec(2, &r, vec![(json!({"keepAlive": {"requests": 5}}), PD, false)]);
        let c = spec(3, &r, vec![(json!({"body": {"maxSize": "1m"}}), PD, false)]);
        let (v, outs) = run(&r, &[(0, 1, &a), (0, 2, &b), (0, 3, &c)]);
        assert_eq!(v, json!({"body": {"maxSize": "10m"}, "keepAlive": {"requests": 5}}));
        assert_eq!(fate(&outs, 2).0, Fate::Applied);
        assert_eq!(fate(&outs, 3).0, Fate::Conflicted(ObjId(1)));
        // Across levels the route's setting wins field by field.
        let (v, _) = run(&r, &[(0, 1, &a), (1, 3, &c), (1, 2, &b)]);
        assert_eq!(v, json!({"body": {"maxSize": "1m"}, "keepAlive": {"requests": 5}}));
    }

    #[test]
    fn effective_fold_gloo_shallow_merge() {
        let (_, r) = kind(Semantics::Gloo, PolicyClass::Direct);
        let c = Strategy::Custom;
        let old = spec(
            1,
            &r,
            vec![(json!({"options": {"timeout": "5s", "retries": {"attempts": 3, "perTry": "1s"}}}), c, false)],
        );
        let new =
            spec(2, &r, vec![(json!({"options": {"retries": {"attempts": 9}, "cors": {"allow": ["*"]}}}), c, false)]);
        // Same target: the older keeps `retries` whole; the newer adds `cors`.
        assert_eq!(
            run(&r, &[(0, 1, &old), (0, 2, &new)]).0,
            json!({"options": {"timeout": "5s", "retries": {"attempts": 3, "perTry": "1s"}, "cors": {"allow": ["*"]}}})
        );
        // A section-level policy's field wins whole.
        assert_eq!(
            run(&r, &[(0, 1, &old), (1, 2, &new)]).0,
            json!({"options": {"timeout": "5s", "retries": {"attempts": 9}, "cors": {"allow": ["*"]}}})
        );
    }

    #[test]
    fn effective_fold_additive_keeps_every_policy() {
        let (_, r) = kind(Semantics::Additive, PolicyClass::Inherited);
        let a = spec(1, &r, vec![(json!({"action": "DENY"}), Strategy::Custom, false)]);
        let b = spec(2, &r, vec![(json!({"action": "ALLOW"}), Strategy::Custom, false)]);
        let (v, outs) = run(&r, &[(0, 1, &a), (1, 2, &b)]);
        assert_eq!(v, json!({"p1": {"action": "DENY"}, "p2": {"action": "ALLOW"}}));
        assert!(outs.iter().all(|o| o.kept_all()));
    }
}
