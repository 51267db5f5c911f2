//! Effective specs as trees whose every leaf remembers where it came from.
//!
//! A leaf is a scalar, a whole list, an empty mapping, or a unit the kind's semantics treat as
//! atomic (a Kuadrant rule, a Gloo option). Mappings merge key by key; lists marked as list-maps
//! in the kind's CRD schema keep one item per key, and their items' fields are leaves.

use std::sync::Arc;

use serde_json::Value;

use crate::catalog::Strategy;
use crate::world::ObjId;

/// Who supplied a leaf: a policy, or the target itself. (Where a *file* came from is
/// `source::Origin`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Supplier {
    Policy(ObjId),
    /// The target object's own value of a field the kind shadows (GEP-2649 "value in
    /// HTTPRoute"): the most specific default.
    Target(ObjId),
}

/// A leaf's provenance: its origin, the strategy of the part that supplied it, and whether it
/// came from an override (less specific beats more specific) and so survives later
/// challengers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Src {
    pub origin: Supplier,
    pub strategy: Strategy,
    pub strong: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PVal {
    /// Shared: folds that extend one another clone trees, and a clone must stay cheap.
    Leaf(Arc<Value>, Src),
    /// A non-empty mapping, in insertion order; shared until written (copy on write).
    Map(Arc<Vec<(Arc<str>, PVal)>>),
    /// A list merged by its list-map keys (the second field); every item is a `Map`.
    Items(Vec<PVal>, Arc<[String]>),
}

impl PVal {
    pub fn empty_map() -> PVal {
        PVal::Map(Arc::new(Vec::new()))
    }

    pub fn map(entries: Vec<(Arc<str>, PVal)>) -> PVal {
        PVal::Map(Arc::new(entries))
    }

    pub fn leaf(v: Value, src: Src) -> PVal {
        PVal::Leaf(Arc::new(v), src)
    }

    pub fn to_json(&self) -> Value {
        match self {
            PVal::Leaf(v, _) => (**v).clone(),
            PVal::Map(entries) => Value::Object(entries.iter().map(|(k, v)| (k.to_string(), v.to_json())).collect()),
            PVal::Items(items, _) => Value::Array(items.iter().map(PVal::to_json).collect()),
        }
    }

    /// Visits every leaf with its JSON pointer, depth first in document order.
    pub fn for_each_leaf<'a>(&'a self, pointer: &mut String, f: &mut dyn FnMut(&str, &'a Value, &'a Src)) {
        match self {
            PVal::Leaf(v, s) => f(pointer, v, s),
            PVal::Map(entries) => {
                for (k, v) in entries.iter() {
                    let len = pointer.len();
                    pointer.push('/');
                    push_escaped(pointer, k);
                    v.for_each_leaf(pointer, f);
                    pointer.truncate(len);
                }
            }
            PVal::Items(items, _) => {
                for (i, v) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    v.for_each_leaf(pointer, f);
                    pointer.truncate(len);
                }
            }
        }
    }

    /// Every leaf's source, without building pointers.
    pub fn for_each_src(&self, f: &mut dyn FnMut(&Src)) {
        match self {
            PVal::Leaf(_, s) => f(s),
            PVal::Map(entries) => entries.iter().for_each(|(_, v)| v.for_each_src(f)),
            PVal::Items(items, _) => items.iter().for_each(|v| v.for_each_src(f)),
        }
    }

    pub fn any_src(&self, pred: &dyn Fn(&Src) -> bool) -> bool {
        match self {
            PVal::Leaf(_, s) => pred(s),
            PVal::Map(entries) => entries.iter().any(|(_, v)| v.any_src(pred)),
            PVal::Items(items, _) => items.iter().any(|v| v.any_src(pred)),
        }
    }

    pub fn leaf_count(&self) -> u32 {
        let mut n = 0;
        self.for_each_src(&mut |_| n += 1);
        n
    }

    /// The origins of the leaves at, below or directly above `pointer` (the leaf that would
    /// hold it): who holds that place in this tree.
    pub fn owners_at(&self, pointer: &str) -> Vec<Supplier> {
        let mut node = self;
        for seg in pointer.split('/').skip(1) {
            let next = match node {
                PVal::Leaf(_, s) => return vec![s.origin],
                PVal::Map(entries) => entries.iter().find(|(k, _)| token_is(seg, k)).map(|(_, v)| v),
                PVal::Items(items, _) => seg.parse::<usize>().ok().and_then(|i| items.get(i)),
            };
            match next {
                Some(n) => node = n,
                None => return Vec::new(),
            }
        }
        let mut out = Vec::new();
        node.for_each_src(&mut |s| {
            if !out.contains(&s.origin) {
                out.push(s.origin);
            }
        });
        out
    }
}

/// Appends a JSON pointer reference token (RFC 6901: `~` → `~0`, `/` → `~1`).
pub fn push_escaped(out: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Whether an escaped reference token names `key` (without allocating).
/// A JSON pointer as people write a field: `/timeout/http/requestTimeout` is
/// `timeout.http.requestTimeout`, list items are `[i]`; the empty pointer is the whole spec.
pub fn field_label(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    out
}

fn token_is(token: &str, key: &str) -> bool {
    if !token.contains('~') {
        return token == key;
    }
    token.replace("~1", "/").replace("~0", "~") == key
}

/// One provenance row: a leaf's pointer, value and source.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafRow {
    pub pointer: String,
    pub value: Value,
    pub src: Src,
}

pub fn leaf_rows(tree: &PVal) -> Vec<LeafRow> {
    let mut rows = Vec::new();
    tree.for_each_leaf(&mut String::new(), &mut |p, v, s| {
        rows.push(LeafRow { pointer: p.to_owned(), value: v.clone(), src: *s });
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn src(n: u32) -> Src {
        Src { origin: Supplier::Policy(ObjId(n)), strategy: Strategy::AtomicDefaults, strong: false }
    }

    #[test]
    fn field_labels_read_as_written() {
        assert_eq!(field_label("/timeout/http/requestTimeout"), "timeout.http.requestTimeout");
        assert_eq!(field_label("/limits/per~1user/rates/0"), "limits.per/user.rates[0]");
        assert_eq!(field_label(""), "");
    }

    #[test]
    fn effective_pointers_escape_and_owners() {
        let t = PVal::map(vec![
            ("a/b".into(), PVal::leaf(json!(1), src(1))),
            ("m".into(), PVal::map(vec![("x~y".into(), PVal::leaf(json!([1, 2]), src(2)))])),
        ]);
        let rows = leaf_rows(&t);
        let ptrs: Vec<&str> = rows.iter().map(|r| r.pointer.as_str()).collect();
        assert_eq!(ptrs, vec!["/a~1b", "/m/x~0y"]);
        assert_eq!(t.to_json(), json!({"a/b": 1, "m": {"x~y": [1, 2]}}));
        assert_eq!(t.owners_at("/m"), vec![Supplier::Policy(ObjId(2))]);
        assert_eq!(t.owners_at("/m/x~0y/3"), vec![Supplier::Policy(ObjId(2))]);
        assert_eq!(t.owners_at("/a~1b"), vec![Supplier::Policy(ObjId(1))]);
        assert_eq!(t.owners_at("/zzz"), vec![]);
        assert_eq!(t.leaf_count(), 2);
    }
}
