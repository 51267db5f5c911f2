//! Fields of a target that a policy kind shadows (GEP-2649 "value in HTTPRoute"): when the
//! target sets the field itself, its value is the most specific default. Overrides still beat
//! it; every default loses to it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::fold::Fold;
use super::listmap::SchemaNode;
use super::provenance::{Src, Supplier};
use super::semantics::Rules;
use super::strategy::{MergeRule, Patch};
use crate::catalog::{PolicyKind, Strategy};
use crate::model::{Body, RuleFields};
use crate::syntax::{Node, ParsedFile, parse_file};
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId};
use crate::world::ObjId;

/// Objects as JSON, re-read from their file's text on demand (the model keeps only what it
/// reasons about): a document's root alone, a `kind: List` item from its whole file.
#[derive(Default)]
pub struct ObjectJson {
    texts: HashMap<Arc<str>, Option<Arc<str>>>,
    files: HashMap<Arc<str>, ParsedFile>,
    /// The last object read: a route's rules are targets one after another, and each asked
    /// for the route again (parsed and converted once per rule and kind).
    last: Option<(ObjId, Option<Arc<Value>>)>,
}

impl ObjectJson {
    pub fn get(&mut self, world: &Linked, o: ObjId) -> Option<Arc<Value>> {
        if let Some((id, v)) = &self.last
            && *id == o
        {
            return v.clone();
        }
        let v = self.read(world, o).map(Arc::new);
        self.last = Some((o, v.clone()));
        v
    }

    fn read(&mut self, world: &Linked, o: ObjId) -> Option<Value> {
        let file = world.file_of(o);
        let text = self.texts.entry(file.path.clone()).or_insert_with(|| file.load_text()).clone()?;
        let obj = world.object(o);
        let start = obj.span.start as usize;
        let slice = text.get(start..obj.span.end as usize)?;
        if world.rendered_by(o).is_some() {
            let parsed = self.files.entry(file.path.clone()).or_insert_with(|| parse_file(&text));
            let root = parsed.documents.get(obj.doc as usize)?.root.as_ref()?;
            return rendered_json(root, obj);
        }
        if start == 0 || text.as_bytes().get(start - 1) == Some(&b'\n') {
            // A document's root: its text alone is the object.
            let parsed = parse_file(slice);
            return parsed.documents.first()?.root.as_ref().map(Node::to_json);
        }
        // An item of a `kind: List`, indented in its file.
        let parsed = self.files.entry(file.path.clone()).or_insert_with(|| parse_file(&text));
        let root = parsed.documents.get(obj.doc as usize)?.root.as_ref()?;
        find_span(root, obj.span).map(Node::to_json)
    }
}

/// A route a chart rendered from its values (`model::app_template`), as the chart writes it:
/// its item's rules with what the chart passes of them (matches, filters, timeouts,
/// sessionPersistence). The item is the value of the key the object's span starts at.
fn rendered_json(root: &Node, obj: &crate::model::Object) -> Option<Value> {
    fn item(n: &Node, key_start: u32) -> Option<&Node> {
        let entries = n.as_mapping()?;
        entries.iter().find_map(|e| {
            if e.key.span.start == key_start {
                Some(&e.value)
            } else if e.value.span.start <= key_start && key_start < e.value.span.end {
                item(&e.value, key_start)
            } else {
                None
            }
        })
    }
    let route = item(root, obj.span.start)?;
    const PASSED: [&str; 4] = ["matches", "filters", "sessionPersistence", "timeouts"];
    let rules: Vec<Value> = route
        .get("rules")
        .and_then(Node::as_sequence)
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let kept = r.as_mapping().unwrap_or_default().iter().filter_map(|e| {
                let k = e.key.as_str()?;
                PASSED.contains(&k).then(|| (k.to_owned(), e.value.to_json()))
            });
            Value::Object(kept.collect())
        })
        .collect();
    Some(serde_json::json!({ "spec": { "rules": rules } }))
}

/// The mapping with this span: the document's root, or a `kind: List` item.
fn find_span(root: &Node, span: crate::syntax::Span) -> Option<&Node> {
    if root.span == span {
        return Some(root);
    }
    root.get("items")?.as_sequence()?.iter().find(|n| n.span == span)
}

/// The target's own values of the shadowed fields: (policy field pointer, value).
pub fn target_values(world: &Linked, kind: &PolicyKind, target: NodeId, json: &mut ObjectJson) -> Vec<(String, Value)> {
    if kind.shadows.is_empty() {
        return Vec::new();
    }
    let (o, rule) = match world.topology.node(target) {
        DagNode::Object(o) => (o, None),
        DagNode::Section(o, i) => (o, Some(i as usize)),
        _ => return Vec::new(),
    };
    let declared = !kind.effective_targets.is_empty() || kind.effective_target.is_some();
    if declared && !kind.is_effective_target(&world.object(o).group_kind()) {
        return Vec::new();
    }
    if !may_set(world, o, rule, &kind.shadows) {
        return Vec::new();
    }
    let Some(obj) = json.get(world, o) else { return Vec::new() };
    let mut out = Vec::new();
    let at = match rule {
        Some(i) => RuleScope::One(i),
        None => RuleScope::Every,
    };
    for (field, target_field) in &kind.shadows {
        let segs: Vec<String> = target_field.split('/').skip(1).map(unescape).collect();
        if let Some(v) = resolve(&obj, &segs, at) {
            out.push((field.clone(), v.clone()));
        }
    }
    out
}

/// Whether the target may set one of the shadowed fields, from the model alone: a route whose
/// rules (the one the path goes through, or any) set none of the rule fields named is skipped
/// without reading its text again. Anything the model does not track may.
fn may_set(world: &Linked, o: ObjId, rule: Option<usize>, shadows: &[(String, String)]) -> bool {
    let Body::Route(route) = &world.object(o).body else { return true };
    let mut wanted = RuleFields::default();
    for (_, target_field) in shadows {
        match target_field.strip_prefix("/spec/rules/*/").and_then(RuleFields::bit) {
            Some(bit) => wanted = wanted.with(bit),
            None => return true,
        }
    }
    match rule {
        Some(i) => route.rules.get(i).is_some_and(|r| r.fields.has(wanted)),
        None => route.rules.iter().any(|r| r.fields.has(wanted)),
    }
}

/// Which items the first `*` of a target field (a route's rules) stands for.
#[derive(Clone, Copy, Debug)]
enum RuleScope {
    /// The rule the path goes through.
    One(usize),
    /// The whole route: the value is the route's only when every rule sets it alike (a rule
    /// that does not leaves the policy's value in effect there).
    Every,
    /// Past the first `*`: the first item that sets it (a rule's filters).
    Any,
}

fn unescape(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// Follows a pointer; the first `*` stands for the route's rules as `at` says, any later one
/// takes the first item that sets the value. Unset: absent, null, `""`, `[]`, `{}` (Go zero
/// values).
fn resolve<'v>(v: &'v Value, segs: &[String], at: RuleScope) -> Option<&'v Value> {
    let Some((seg, rest)) = segs.split_first() else {
        return (!is_unset(v)).then_some(v);
    };
    match v {
        Value::Array(items) if seg == "*" => match at {
            RuleScope::One(i) => items.get(i).and_then(|item| resolve(item, rest, RuleScope::Any)),
            RuleScope::Every => {
                let first = resolve(items.first()?, rest, RuleScope::Any)?;
                items[1..].iter().all(|it| resolve(it, rest, RuleScope::Any) == Some(first)).then_some(first)
            }
            RuleScope::Any => items.iter().find_map(|it| resolve(it, rest, RuleScope::Any)),
        },
        Value::Array(items) => {
            seg.parse::<usize>().ok().and_then(|i| items.get(i)).and_then(|it| resolve(it, rest, at))
        }
        Value::Object(m) => m.get(seg).and_then(|c| resolve(c, rest, at)),
        _ => None,
    }
}

fn is_unset(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// Applies the target's own values to a finished fold: patched over defaults, never over an
/// override, and not at all below an atomic override.
pub fn apply(
    fold: &mut Fold,
    target_obj: ObjId,
    values: &[(String, Value)],
    rules: &Rules,
    schema: Option<&SchemaNode>,
) {
    if fold.locked_by.is_some() {
        return;
    }
    for (field, value) in values {
        let path: Vec<String> = field.split('/').skip(1).map(unescape).collect();
        let mut patch = value.clone();
        for seg in path.iter().rev() {
            let mut m = Map::new();
            m.insert(seg.clone(), patch);
            patch = Value::Object(m);
        }
        // The target's value replaces the policy's whole, a mapping included (a route's
        // `retry` or CORS filter is not merged field by field into the policy's).
        let whole = schema.cloned().unwrap_or_default().with_atomic(&path);
        Patch {
            src: Src { origin: Supplier::Target(target_obj), strategy: Strategy::PatchDefaults, strong: false },
            guard: &|s: &Src| s.strong,
            rule: MergeRule::TargetValue,
            blocked_rule: MergeRule::Protected,
            units: rules.units,
            events: &mut fold.events,
        }
        .apply(&mut fold.tree, &patch, Some(&whole));
    }
}

/// The object a target node belongs to.
pub fn target_object(world: &Linked, target: NodeId) -> Option<ObjId> {
    world.topology.node_object(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn effective_shadow_resolve() {
        let v = json!({"spec": {"retryOn": ["500"], "rules": [{"retry": {"codes": []}}, {"retry": {"codes": [503]}}]}});
        let segs = |p: &str| p.split('/').skip(1).map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(resolve(&v, &segs("/spec/retryOn"), RuleScope::Every), Some(&json!(["500"])));
        // The rules disagree: no one value for the whole route; each rule has its own.
        assert_eq!(resolve(&v, &segs("/spec/rules/*/retry/codes"), RuleScope::Every), None);
        assert_eq!(resolve(&v, &segs("/spec/rules/*/retry/codes"), RuleScope::One(1)), Some(&json!([503])));
        assert_eq!(resolve(&v, &segs("/spec/rules/*/retry/codes"), RuleScope::One(0)), None);
        assert_eq!(resolve(&json!({"spec": {"retryOn": []}}), &segs("/spec/retryOn"), RuleScope::Every), None);
        let cors = json!({"spec": {"rules": [
            {"filters": [{"type": "RequestHeaderModifier"}, {"type": "CORS", "cors": {"allowOrigins": ["a"]}}]},
            {"filters": [{"type": "CORS", "cors": {"allowOrigins": ["a"]}}]}
        ]}});
        assert_eq!(
            resolve(&cors, &segs("/spec/rules/*/filters/*/cors"), RuleScope::Every),
            Some(&json!({"allowOrigins": ["a"]})),
            "any filter of a rule; every rule alike"
        );
    }
}
