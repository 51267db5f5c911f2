//! The merge operations the strategies are made of, on provenance trees:
//! - [`Patch`]: an RFC 7386 JSON merge patch (mappings merge recursively, lists and scalars are
//!   replaced, `null` deletes), merging list-maps item by item on their keys, and leaving alone
//!   the leaves a guard protects (overrides above, or the older policy at the same level);
//! - [`prune`]: drops every unprotected leaf, so that an atomic replacement is "prune, then
//!   patch the newcomer in";
//! - [`overlaps`]: whether a patch touches protected leaves (NGINX Gateway Fabric conflicts).
//!
//! Every leaf that loses is reported as a [`Displaced`] event, for status and `explain`.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::listmap::SchemaNode;
use super::provenance::{PVal, Src, Supplier, push_escaped};

/// Which subtrees the kind's semantics merge as one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    /// Every scalar, list and empty mapping is a leaf (GEP-713).
    Fields,
    /// Kuadrant: named rules (`limits.<name>`, `rules.<section>.<name>`, ...) are atomic.
    Kuadrant,
    /// Gloo / kgateway: shallow merge of `options.<field>` (or top-level fields).
    Gloo,
}

impl Units {
    /// Whether the mapping at `path` (keys from the spec proper's root) is one leaf.
    fn is_unit(self, path: &[&str]) -> bool {
        match self {
            Units::Fields => false,
            Units::Kuadrant => super::semantics::kuadrant::is_rule(path),
            Units::Gloo => super::semantics::gloo::is_unit(path),
        }
    }
}

/// The merge rule by which a leaf lost its place to another supplier. (Not a route's rule:
/// that is `model::Rule`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MergeRule {
    /// A None-strategy conflict: the established policy on the same target wins.
    Conflict,
    /// A more specific policy replaced the whole spec (atomic defaults).
    Replaced,
    /// An atomic override above keeps everything below from applying.
    Overridden,
    /// A policy on a section beats one on the whole object, for that section (GEP-2648).
    SectionWins,
    /// A more specific (or overriding) policy's patch set the field.
    Patched,
    /// An override above holds the field.
    Protected,
    /// At the same level the older policy (then the first by namespace/name) holds the field.
    OlderWins,
    /// Defaults on the same target: the older dictates the strategy, the younger's values win
    /// (GEP-713 "Conflict resolution" rule 2).
    YoungerWins,
    /// The target object sets the field itself (the most specific default).
    TargetValue,
}

impl MergeRule {
    pub fn as_str(self) -> &'static str {
        match self {
            MergeRule::Conflict => "conflict",
            MergeRule::Replaced => "replaced",
            MergeRule::Overridden => "overridden",
            MergeRule::SectionWins => "section-wins",
            MergeRule::Patched => "patched",
            MergeRule::Protected => "protected",
            MergeRule::OlderWins => "older-wins",
            MergeRule::YoungerWins => "younger-wins",
            MergeRule::TargetValue => "target-value",
        }
    }
}

/// A leaf (or a whole policy, with an empty pointer) that lost to `by`.
#[derive(Clone, Debug, PartialEq)]
pub struct Displaced {
    pub victim: Supplier,
    pub by: Supplier,
    /// Where, in the tree at the time (empty: the whole policy).
    pub pointer: Arc<str>,
    pub rule: MergeRule,
    /// Not a loss yet: the displacer set the same value. The victim is credited with the leaf
    /// while the value stands (`fold::outcomes`).
    pub same_value: bool,
}

/// One merge patch application.
pub struct Patch<'a> {
    pub src: Src,
    /// Leaves the patch may not touch.
    pub guard: &'a dyn Fn(&Src) -> bool,
    /// Why an unprotected leaf loses to this patch.
    pub rule: MergeRule,
    /// Why this patch loses where a protected leaf stands.
    pub blocked_rule: MergeRule,
    pub units: Units,
    pub events: &'a mut Vec<Displaced>,
}

impl Patch<'_> {
    /// Applies a mapping patch to a mapping tree (the root of a spec is always a mapping).
    pub fn apply(&mut self, base: &mut PVal, patch: &Value, schema: Option<&SchemaNode>) {
        let Value::Object(m) = patch else { return };
        if !matches!(base, PVal::Map(_)) {
            *base = PVal::empty_map();
        }
        self.map(base, m, schema, &mut Vec::new(), &mut String::new());
    }

    fn map<'p>(
        &mut self,
        base: &mut PVal,
        patch: &'p Map<String, Value>,
        schema: Option<&SchemaNode>,
        path: &mut Vec<&'p str>,
        ptr: &mut String,
    ) {
        let PVal::Map(shared) = base else { return };
        if Arc::get_mut(shared).is_none() {
            // Shared with the fold this one extends: copy, with room for the new keys.
            let mut v = Vec::with_capacity(shared.len() + patch.len());
            v.extend(shared.iter().cloned());
            *shared = Arc::new(v);
        }
        let entries = Arc::make_mut(shared);
        for (k, pv) in patch {
            path.push(k);
            let len = ptr.len();
            ptr.push('/');
            push_escaped(ptr, k);
            self.entry(entries, k, pv, schema.and_then(|s| s.child(k)), path, ptr);
            path.pop();
            ptr.truncate(len);
        }
    }

    fn entry<'p>(
        &mut self,
        entries: &mut Vec<(Arc<str>, PVal)>,
        key: &str,
        pv: &'p Value,
        schema: Option<&SchemaNode>,
        path: &mut Vec<&'p str>,
        ptr: &mut String,
    ) {
        let idx = entries.iter().position(|(k, _)| &**k == key);
        if pv.is_null() {
            if let Some(i) = idx {
                if self.guarded(&entries[i].1) {
                    self.blocked(&entries[i].1, ptr);
                } else {
                    let (_, old) = entries.remove(i);
                    self.displace(&old, ptr);
                }
            }
            return;
        }
        if let Value::Object(m) = pv
            && !m.is_empty()
            && !self.is_unit(path, schema)
        {
            match idx {
                Some(i) => {
                    if matches!(entries[i].1, PVal::Map(_)) {
                        self.map(&mut entries[i].1, m, schema, path, ptr);
                    } else if self.guarded(&entries[i].1) {
                        self.blocked(&entries[i].1, ptr);
                    } else {
                        let mut fresh = PVal::empty_map();
                        self.map(&mut fresh, m, schema, path, ptr);
                        let fresh = self.finish(fresh);
                        let old = std::mem::replace(&mut entries[i].1, fresh);
                        self.displace(&old, ptr);
                    }
                }
                None => {
                    let mut fresh = PVal::empty_map();
                    self.map(&mut fresh, m, schema, path, ptr);
                    entries.push((Arc::from(key), self.finish(fresh)));
                }
            }
            return;
        }
        if let (Value::Array(items), Some(keys), Some(i)) = (pv, list_keys(schema), idx)
            && matches!(entries[i].1, PVal::Items(..))
            && well_formed(items, keys)
        {
            self.items(&mut entries[i].1, items, keys, schema, path, ptr);
            return;
        }
        let Some(new) = build(pv, self.src, self.units, schema, path) else { return };
        match idx {
            None => entries.push((Arc::from(key), new)),
            Some(i) => {
                let old = &entries[i].1;
                let empty_onto_map = matches!(old, PVal::Map(_)) && pv.as_object().is_some_and(Map::is_empty);
                if empty_onto_map {
                    // RFC 7386: merging `{}` into a mapping changes nothing.
                } else if self.guarded(old) {
                    self.blocked(old, ptr);
                } else {
                    let old = std::mem::replace(&mut entries[i].1, new);
                    match (&old, &entries[i].1) {
                        // The same value set again changes nothing of what the established
                        // supplier wanted (a route's `type: Global` beside the Gateway's).
                        (PVal::Leaf(a, s), PVal::Leaf(b, _)) if a == b && s.origin != self.src.origin => {
                            self.events.push(Displaced {
                                victim: s.origin,
                                by: self.src.origin,
                                pointer: Arc::from(ptr.as_str()),
                                rule: self.rule,
                                same_value: true,
                            });
                        }
                        _ => self.displace(&old, ptr),
                    }
                }
            }
        }
    }

    /// Merges list-map items by their keys: a matching item is patched, a new one appended
    /// (or, in strategic merge patch order, the patch's items first).
    fn items<'p>(
        &mut self,
        base: &mut PVal,
        patch: &'p [Value],
        keys: &[String],
        list_schema: Option<&SchemaNode>,
        path: &mut Vec<&'p str>,
        ptr: &mut String,
    ) {
        let PVal::Items(items, _) = base else { return };
        let schema = list_schema.and_then(SchemaNode::items);
        let patch_first = list_schema.is_some_and(|s| s.patch_first);
        // Where each patch item ended up, for the strategic merge patch order.
        let mut named: Vec<usize> = Vec::new();
        path.push("*");
        for pv in patch {
            let Value::Object(m) = pv else { continue };
            let found = items.iter().position(|it| same_keys(it, m, keys));
            match found {
                Some(i) => {
                    let len = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    self.map(&mut items[i], m, schema, path, ptr);
                    ptr.truncate(len);
                    named.push(i);
                }
                None => {
                    if let Some(item) = build(pv, self.src, self.units, schema, path) {
                        items.push(item);
                        named.push(items.len() - 1);
                    }
                }
            }
        }
        path.pop();
        if patch_first {
            // The patch's items in its order, then the base's others.
            let mut slots: Vec<Option<PVal>> = std::mem::take(items).into_iter().map(Some).collect();
            let mut ordered: Vec<PVal> =
                named.iter().filter_map(|&i| slots.get_mut(i).and_then(Option::take)).collect();
            ordered.extend(slots.into_iter().flatten());
            *items = ordered;
        }
    }

    fn is_unit(&self, path: &[&str], schema: Option<&SchemaNode>) -> bool {
        schema.is_some_and(|s| s.atomic_map) || self.units.is_unit(path)
    }

    /// An empty mapping built by a patch is itself a leaf (`{}` is a value).
    fn finish(&self, v: PVal) -> PVal {
        match v {
            PVal::Map(e) if e.is_empty() => PVal::leaf(Value::Object(Map::new()), self.src),
            v => v,
        }
    }

    fn guarded(&self, v: &PVal) -> bool {
        v.any_src(self.guard)
    }

    fn displace(&mut self, old: &PVal, ptr: &str) {
        let (by, rule) = (self.src.origin, self.rule);
        let mut p = ptr.to_owned();
        let events = &mut *self.events;
        old.for_each_leaf(&mut p, &mut |lp, _, s| {
            if s.origin != by {
                events.push(Displaced { victim: s.origin, by, pointer: lp.into(), rule, same_value: false });
            }
        });
    }

    fn blocked(&mut self, holder: &PVal, ptr: &str) {
        let victim = self.src.origin;
        let guard = self.guard;
        let mut owners: Vec<Supplier> = Vec::new();
        holder.for_each_src(&mut |s| {
            if guard(s) && !owners.contains(&s.origin) {
                owners.push(s.origin);
            }
        });
        for by in owners.into_iter().filter(|o| *o != victim) {
            self.events.push(Displaced { victim, by, pointer: ptr.into(), rule: self.blocked_rule, same_value: false });
        }
    }
}

fn list_keys(schema: Option<&SchemaNode>) -> Option<&[String]> {
    schema.and_then(|s| s.list_keys.as_deref())
}

/// Every item is a mapping that has every key.
fn well_formed(items: &[Value], keys: &[String]) -> bool {
    items.iter().all(|it| it.as_object().is_some_and(|m| keys.iter().all(|k| m.get(k).is_some_and(|v| !v.is_null()))))
}

fn same_keys(item: &PVal, m: &Map<String, Value>, keys: &[String]) -> bool {
    let PVal::Map(entries) = item else { return false };
    // No keys: every item is its own (`SchemaNode::list_keys`).
    !keys.is_empty()
        && keys.iter().all(|k| {
            let mine = entries.iter().find(|(ek, _)| &**ek == k.as_str()).map(|(_, v)| v);
            matches!((mine, m.get(k)), (Some(PVal::Leaf(a, _)), Some(b)) if **a == *b)
        })
}

/// A value as a tree whose leaves all come from `src`; `None` for null. Nulls inside mappings
/// are dropped (merging a patch into nothing leaves no nulls).
pub fn build<'p>(
    v: &'p Value,
    src: Src,
    units: Units,
    schema: Option<&SchemaNode>,
    path: &mut Vec<&'p str>,
) -> Option<PVal> {
    match v {
        Value::Null => None,
        Value::Object(m) if m.is_empty() || schema.is_some_and(|s| s.atomic_map) || units.is_unit(path) => {
            Some(PVal::leaf(strip_nulls(v), src))
        }
        Value::Object(m) => {
            let mut entries = Vec::with_capacity(m.len());
            for (k, cv) in m {
                path.push(k);
                if let Some(c) = build(cv, src, units, schema.and_then(|s| s.child(k)), path) {
                    entries.push((Arc::from(k.as_str()), c));
                }
                path.pop();
            }
            Some(if entries.is_empty() { PVal::leaf(Value::Object(Map::new()), src) } else { PVal::map(entries) })
        }
        Value::Array(items) => match list_keys(schema) {
            Some(keys) if well_formed(items, keys) => {
                let item_schema = schema.and_then(SchemaNode::items);
                path.push("*");
                let mut out: Vec<PVal> = Vec::with_capacity(items.len());
                for it in items {
                    let Value::Object(m) = it else { continue };
                    // A repeated key: the later item is merged into the first (the API server
                    // would reject the list; this keeps one item per key).
                    match out.iter().position(|o| same_keys(o, m, keys)) {
                        Some(i) => {
                            let mut scratch = Vec::new();
                            let mut p = Patch {
                                src,
                                guard: &|_| false,
                                rule: MergeRule::Patched,
                                blocked_rule: MergeRule::Protected,
                                units,
                                events: &mut scratch,
                            };
                            p.map(&mut out[i], m, item_schema, path, &mut String::new());
                        }
                        None => out.extend(build(it, src, units, item_schema, path)),
                    }
                }
                path.pop();
                Some(PVal::Items(out, keys.into()))
            }
            _ => Some(PVal::leaf(v.clone(), src)),
        },
        _ => Some(PVal::leaf(v.clone(), src)),
    }
}

fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), strip_nulls(v))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(strip_nulls).collect()),
        v => v.clone(),
    }
}

/// Removes every leaf `keep` does not protect, reporting each as displaced by `by`. A list-map
/// item that keeps any field keeps its key fields. Returns whether anything is left.
pub fn prune(tree: &mut PVal, keep: &dyn Fn(&Src) -> bool, on_drop: &mut dyn FnMut(&str, &Src)) -> bool {
    fn go(t: &mut PVal, keep: &dyn Fn(&Src) -> bool, ptr: &mut String, on_drop: &mut dyn FnMut(&str, &Src)) -> bool {
        match t {
            PVal::Leaf(_, s) => {
                if keep(s) {
                    true
                } else {
                    on_drop(ptr, s);
                    false
                }
            }
            PVal::Map(entries) => {
                let entries = Arc::make_mut(entries);
                entries.retain_mut(|(k, v)| {
                    let len = ptr.len();
                    ptr.push('/');
                    push_escaped(ptr, k);
                    let kept = go(v, keep, ptr, on_drop);
                    ptr.truncate(len);
                    kept
                });
                !entries.is_empty()
            }
            PVal::Items(items, keys) => {
                let mut i = 0;
                items.retain_mut(|item| {
                    let len = ptr.len();
                    ptr.push('/');
                    ptr.push_str(&i.to_string());
                    i += 1;
                    let kept = item.any_src(keep);
                    if kept {
                        // The item stays addressable: its key fields stay with what is kept.
                        if let PVal::Map(entries) = item {
                            Arc::make_mut(entries).retain_mut(|(k, v)| {
                                let l2 = ptr.len();
                                ptr.push('/');
                                push_escaped(ptr, k);
                                let keep_it = keys.iter().any(|x| x.as_str() == &**k) || go(v, keep, ptr, on_drop);
                                ptr.truncate(l2);
                                keep_it
                            });
                        }
                    } else {
                        go(item, keep, ptr, on_drop);
                    }
                    ptr.truncate(len);
                    kept
                });
                !items.is_empty()
            }
        }
    }
    go(tree, keep, &mut String::new(), on_drop)
}

/// The source of the first leaf applying `patch` would touch for which `hit` holds: who set
/// the field both set.
pub fn first_overlap(tree: &PVal, patch: &Value, hit: &dyn Fn(&Src) -> bool, units: Units) -> Option<Src> {
    fn at(t: &PVal, hit: &dyn Fn(&Src) -> bool) -> Option<Src> {
        let mut found = None;
        t.for_each_src(&mut |s| {
            if found.is_none() && hit(s) {
                found = Some(*s);
            }
        });
        found
    }
    fn go<'p>(
        t: &PVal,
        p: &'p Value,
        hit: &dyn Fn(&Src) -> bool,
        units: Units,
        path: &mut Vec<&'p str>,
    ) -> Option<Src> {
        let (PVal::Map(entries), Value::Object(m)) = (t, p) else {
            return at(t, hit);
        };
        m.iter().find_map(|(k, pv)| {
            let (_, ev) = entries.iter().find(|(ek, _)| &**ek == k.as_str())?;
            path.push(k);
            let r = match (ev, pv) {
                (PVal::Map(_), Value::Object(pm)) if !pm.is_empty() && !units.is_unit(path) => {
                    go(ev, pv, hit, units, path)
                }
                _ => at(ev, hit),
            };
            path.pop();
            r
        })
    }
    go(tree, patch, hit, units, &mut Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Strategy;
    use crate::effective::provenance::leaf_rows;
    use crate::world::ObjId;
    use serde_json::json;

    fn src(n: u32, strong: bool) -> Src {
        Src { origin: Supplier::Policy(ObjId(n)), strategy: Strategy::PatchDefaults, strong }
    }

    fn tree(v: &Value, s: Src, schema: Option<&SchemaNode>) -> PVal {
        build(v, s, Units::Fields, schema, &mut Vec::new()).unwrap_or_else(PVal::empty_map)
    }

    /// RFC 7386 MergePatch(target, patch) on trees, with nothing protected.
    fn merge(target: Value, patch: Value) -> Value {
        merge_with(target, patch, None).0
    }

    fn merge_with(target: Value, patch: Value, schema: Option<&SchemaNode>) -> (Value, Vec<Displaced>) {
        let mut t = tree(&target, src(1, false), schema);
        let mut events = Vec::new();
        Patch {
            src: src(2, false),
            guard: &|_| false,
            rule: MergeRule::Patched,
            blocked_rule: MergeRule::Protected,
            units: Units::Fields,
            events: &mut events,
        }
        .apply(&mut t, &patch, schema);
        (t.to_json(), events)
    }

    #[test]
    fn effective_strategy_rfc7386_examples() {
        // RFC 7386 appendix A, the cases whose target and patch are mappings.
        assert_eq!(merge(json!({"a":"b"}), json!({"a":"c"})), json!({"a":"c"}));
        assert_eq!(merge(json!({"a":"b"}), json!({"b":"c"})), json!({"a":"b","b":"c"}));
        assert_eq!(merge(json!({"a":"b"}), json!({"a":null})), json!({}));
        assert_eq!(merge(json!({"a":"b","b":"c"}), json!({"a":null})), json!({"b":"c"}));
        assert_eq!(merge(json!({"a":["b"]}), json!({"a":"c"})), json!({"a":"c"}));
        assert_eq!(merge(json!({"a":"c"}), json!({"a":["b"]})), json!({"a":["b"]}));
        assert_eq!(merge(json!({"a":{"b":"c"}}), json!({"a":{"b":"d","c":null}})), json!({"a":{"b":"d"}}));
        assert_eq!(merge(json!({"a":[{"b":"c"}]}), json!({"a":[1]})), json!({"a":[1]}));
        assert_eq!(merge(json!({}), json!({"a":{"bb":{"ccc":null}}})), json!({"a":{"bb":{}}}));
        // A target's nulls are dropped when it becomes a spec (Kubernetes reads them as unset).
        assert_eq!(merge(json!({"e":null}), json!({"a":1})), json!({"a":1}));
    }

    #[test]
    fn effective_strategy_lists_replace_maps_merge_null_deletes() {
        assert_eq!(
            merge(
                json!({"key":"foo","list":["a","b"],"m":{"foo":"a","bar":"b"}}),
                json!({"key":"bar","list":["c","d"],"m":{"foo":"c","bar":null,"baz":"e"}})
            ),
            json!({"key":"bar","list":["c","d"],"m":{"foo":"c","baz":"e"}})
        );
        // `{}` merged into a mapping changes nothing; into a scalar it replaces it.
        assert_eq!(merge(json!({"a":{"x":1},"b":2}), json!({"a":{},"b":{}})), json!({"a":{"x":1},"b":{}}));
    }

    #[test]
    fn effective_strategy_provenance_per_leaf() {
        let mut t = tree(&json!({"colors":{"dark":"brown","light":"red"}}), src(1, false), None);
        let mut events = Vec::new();
        Patch {
            src: src(2, false),
            guard: &|_| false,
            rule: MergeRule::Patched,
            blocked_rule: MergeRule::Protected,
            units: Units::Fields,
            events: &mut events,
        }
        .apply(&mut t, &json!({"colors":{"light":"blue"}}), None);
        let rows: Vec<(String, Value, Supplier)> =
            leaf_rows(&t).into_iter().map(|r| (r.pointer, r.value, r.src.origin)).collect();
        assert_eq!(
            rows,
            vec![
                ("/colors/dark".to_owned(), json!("brown"), Supplier::Policy(ObjId(1))),
                ("/colors/light".to_owned(), json!("blue"), Supplier::Policy(ObjId(2))),
            ]
        );
        assert_eq!(
            events,
            vec![Displaced {
                victim: Supplier::Policy(ObjId(1)),
                by: Supplier::Policy(ObjId(2)),
                pointer: "/colors/light".into(),
                rule: MergeRule::Patched,
                same_value: false
            }]
        );
    }

    #[test]
    fn effective_strategy_list_map_merge_gep2649_table() {
        // GEP-2649 listMapType row: the override's item o1 merges into o1, o2 stays.
        let schema = SchemaNode::with_list_map(&["listMaps"], &["name"]);
        let (out, _) = merge_with(
            json!({"listMaps":[{"name":"o1","foo":"a","bar":"b"},{"name":"o2","foo":"c","bar":"d"}]}),
            json!({"listMaps":[{"name":"o1","foo":"e","bar":"f","baz":"g"}]}),
            Some(&schema),
        );
        assert_eq!(
            out,
            json!({"listMaps":[{"name":"o1","foo":"e","bar":"f","baz":"g"},{"name":"o2","foo":"c","bar":"d"}]})
        );
        // A new key is appended; without the schema the list is replaced whole.
        let (out, _) = merge_with(
            json!({"listMaps":[{"name":"o1","foo":"a"}]}),
            json!({"listMaps":[{"name":"o3","foo":"z"}]}),
            Some(&schema),
        );
        assert_eq!(out, json!({"listMaps":[{"name":"o1","foo":"a"},{"name":"o3","foo":"z"}]}));
        assert_eq!(
            merge(json!({"listMaps":[{"name":"o1","foo":"a"}]}), json!({"listMaps":[{"name":"o3"}]})),
            json!({"listMaps":[{"name":"o3"}]})
        );
        // Items' fields are leaves of their own.
        let t = tree(&json!({"listMaps":[{"name":"o1","foo":"a"}]}), src(1, false), Some(&schema));
        let ptrs: Vec<String> = leaf_rows(&t).into_iter().map(|r| r.pointer).collect();
        assert_eq!(ptrs, vec!["/listMaps/0/name", "/listMaps/0/foo"]);
    }

    #[test]
    fn effective_strategy_guard_protects_overrides() {
        // An override's leaf survives a later patch; the patch still fills other fields.
        let mut t = tree(&json!({"colors":{"light":"yellow"}}), src(1, true), None);
        let mut events = Vec::new();
        Patch {
            src: src(2, false),
            guard: &|s: &Src| s.strong,
            rule: MergeRule::Patched,
            blocked_rule: MergeRule::Protected,
            units: Units::Fields,
            events: &mut events,
        }
        .apply(&mut t, &json!({"colors":{"dark":"olive","light":"green"}}), None);
        assert_eq!(t.to_json(), json!({"colors":{"light":"yellow","dark":"olive"}}));
        assert_eq!(events.len(), 1);
        assert_eq!(
            (events[0].victim, events[0].by, events[0].rule),
            (Supplier::Policy(ObjId(2)), Supplier::Policy(ObjId(1)), MergeRule::Protected)
        );
    }

    #[test]
    fn effective_strategy_prune_keeps_protected() {
        let mut t = PVal::map(vec![
            ("a".into(), PVal::leaf(json!(1), src(1, true))),
            ("b".into(), PVal::map(vec![("c".into(), PVal::leaf(json!(2), src(2, false)))])),
        ]);
        let mut dropped = Vec::new();
        prune(&mut t, &|s| s.strong, &mut |p, s| dropped.push((p.to_owned(), s.origin)));
        assert_eq!(t.to_json(), json!({"a":1}));
        assert_eq!(dropped, vec![("/b/c".to_owned(), Supplier::Policy(ObjId(2)))]);
    }

    #[test]
    fn effective_strategy_atomic_map_and_overlap() {
        let schema = SchemaNode::with_atomic_map(&["labels"]);
        let (out, _) = merge_with(json!({"labels":{"a":"1","b":"2"}}), json!({"labels":{"c":"3"}}), Some(&schema));
        assert_eq!(out, json!({"labels":{"c":"3"}}), "an atomic map is replaced whole");

        let t = tree(&json!({"a":{"x":1},"b":2}), src(1, false), None);
        let same = |s: &Src| s.origin == Supplier::Policy(ObjId(1));
        assert!(first_overlap(&t, &json!({"a":{"x":5}}), &same, Units::Fields).is_some());
        assert!(first_overlap(&t, &json!({"a":{"y":5},"c":1}), &same, Units::Fields).is_none());
    }
}
