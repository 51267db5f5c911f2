//! What a deletion takes away, said first: each top-level field a removed policy supplied,
//! where it stops applying ("gone on 47 routes in 12 namespaces"), and who supplies it there
//! instead ("`infra/edge-defaults` applies there instead"). Made from the field changes, so it
//! says nothing the detailed report does not.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::FieldChange;
use crate::analysis::reach::Reach;
use crate::model::{ObjectKey, is_core_kind};

/// One top-level field of one removed policy's spec, where it no longer applies.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Gone {
    /// The removed policy.
    pub policy: String,
    pub kind: String,
    /// JSON pointer of the top-level field (`/retry`).
    pub field: String,
    /// The part of the field the policy supplied there (its leaves, as they applied).
    pub value: Value,
    /// The effective targets where it applied, sorted.
    pub targets: Vec<String>,
    /// Those targets counted: `47 routes in 12 namespaces`.
    pub reach: String,
    /// Who supplies the field where it is gone, and where; sorted by policy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instead: Vec<Instead>,
    /// Its leaves that nothing supplies any more, and where.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unset: Vec<Unset>,
}

/// A leaf of a gone field left unset.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Unset {
    /// JSON pointer into the effective policy (`/retry/perRetry/timeout`).
    pub field: String,
    pub targets: Vec<String>,
}

/// A policy that supplies a gone field instead.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Instead {
    pub policy: String,
    /// What it supplies there (its leaves of the field).
    pub value: Value,
    pub targets: Vec<String>,
    pub reach: String,
}

/// The gone fields of the `removed` policies, from the report's field changes.
pub(super) fn gone(changes: &[FieldChange], removed: &[String]) -> Vec<Gone> {
    #[derive(Default)]
    struct Acc {
        value: Map<String, Value>,
        targets: Vec<String>,
        instead: BTreeMap<String, (Map<String, Value>, Vec<String>)>,
        unset: BTreeMap<String, Vec<String>>,
    }
    let mut by: BTreeMap<(String, String, String), Acc> = BTreeMap::new();
    for c in changes {
        let Some(before) = &c.before else { continue };
        if !removed.contains(&before.policy) {
            continue;
        }
        let (top, rest) = split_top(&c.field);
        let acc = by.entry((before.policy.clone(), c.kind.clone(), top.to_owned())).or_default();
        put(&mut acc.value, rest, before.value.clone());
        push_once(&mut acc.targets, &c.target);
        match &c.after {
            Some(after) if !removed.contains(&after.policy) => {
                let (value, targets) = acc.instead.entry(after.policy.clone()).or_default();
                put(value, rest, after.value.clone());
                push_once(targets, &c.target);
            }
            Some(_) => {}
            None => push_once(acc.unset.entry(c.field.clone()).or_default(), &c.target),
        }
    }
    by.into_iter()
        .map(|((policy, kind, field), mut acc)| {
            acc.targets.sort();
            Gone {
                reach: reach(&acc.targets),
                policy,
                kind,
                field,
                value: unwrap(acc.value),
                targets: acc.targets,
                instead: acc
                    .instead
                    .into_iter()
                    .map(|(policy, (value, mut targets))| {
                        targets.sort();
                        Instead { policy, value: unwrap(value), reach: reach(&targets), targets }
                    })
                    .collect(),
                unset: acc
                    .unset
                    .into_iter()
                    .map(|(field, mut targets)| {
                        targets.sort();
                        Unset { field, targets }
                    })
                    .collect(),
            }
        })
        .collect()
}

/// `/retry/numRetries` → (`/retry`, `/numRetries`); a top-level leaf has an empty rest.
fn split_top(pointer: &str) -> (&str, &str) {
    let body = pointer.strip_prefix('/').unwrap_or(pointer);
    match body.find('/') {
        Some(i) => pointer.split_at(i + 1),
        None => (pointer, ""),
    }
}

/// Sets `value` at JSON pointer `rest` in `map` (objects made on the way; a leaf met on the
/// way stays: the first value of a leaf wins).
fn put(map: &mut Map<String, Value>, rest: &str, value: Value) {
    if rest.is_empty() {
        map.entry(String::new()).or_insert(value);
        return;
    }
    let mut keys = rest.trim_start_matches('/').split('/').map(|k| k.replace("~1", "/").replace("~0", "~")).peekable();
    let mut here = map;
    while let Some(k) = keys.next() {
        if keys.peek().is_none() {
            here.entry(k).or_insert(value);
            return;
        }
        let next = here.entry(k).or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(m) = next else { return };
        here = m;
    }
}

/// A field that is itself a leaf was stored under the empty key.
fn unwrap(mut map: Map<String, Value>) -> Value {
    match map.remove("") {
        Some(v) if map.is_empty() => v,
        Some(v) => {
            map.insert(String::new(), v);
            Value::Object(map)
        }
        None => Value::Object(map),
    }
}

fn push_once(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x == item) {
        list.push(item.to_owned());
    }
}

fn reach(targets: &[String]) -> String {
    let keys: Vec<ObjectKey> = targets.iter().filter_map(|t| ObjectKey::parse(t, is_core_kind)).collect();
    Reach::of(&keys).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gone_splits_pointers_and_builds_values() {
        assert_eq!(split_top("/retry/numRetries"), ("/retry", "/numRetries"));
        assert_eq!(split_top("/timeout"), ("/timeout", ""));
        let mut m = Map::new();
        put(&mut m, "/numRetries", Value::from(2));
        put(&mut m, "/perRetry/timeout", Value::from("5s"));
        put(&mut m, "/numRetries", Value::from(9));
        assert_eq!(unwrap(m), serde_json::json!({"numRetries": 2, "perRetry": {"timeout": "5s"}}));
        let mut leaf = Map::new();
        put(&mut leaf, "", Value::from("30s"));
        assert_eq!(unwrap(leaf), Value::from("30s"));
    }
}
