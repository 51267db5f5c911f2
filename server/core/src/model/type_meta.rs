//! Interned (group, kind) pairs: what each object is.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// An object's API group (from `apiVersion`) and kind.
///
/// Interned ([`TypeMeta::of`]): a workspace holds a handful of distinct pairs, so each object
/// points at a shared one instead of keeping both strings (64 bytes an object). Pairs are
/// never freed; there are a few per kind ever read, typing included.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TypeMeta {
    pub group: Box<str>,
    pub kind: Box<str>,
}

/// Every pair so far, by kind (a kind has one or two groups).
static INTERNED: Mutex<Option<HashMap<Box<str>, Vec<&'static TypeMeta>>>> = Mutex::new(None);

impl TypeMeta {
    /// The shared pair of a (normalised) group and kind.
    pub fn of(group: &str, kind: &str) -> &'static TypeMeta {
        // A panic while holding the lock leaves the map whole (inserts are single calls).
        let mut guard = INTERNED.lock().unwrap_or_else(PoisonError::into_inner);
        let by_kind = guard.get_or_insert_with(HashMap::new);
        if let Some(pairs) = by_kind.get(kind)
            && let Some(meta) = pairs.iter().find(|m| &*m.group == group)
        {
            return meta;
        }
        let meta: &'static TypeMeta = Box::leak(Box::new(TypeMeta { group: group.into(), kind: kind.into() }));
        by_kind.entry(kind.into()).or_default().push(meta);
        meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_pairs_are_one() {
        let a = TypeMeta::of("gateway.networking.k8s.io", "HTTPRoute");
        let b = TypeMeta::of("gateway.networking.k8s.io", "HTTPRoute");
        assert!(std::ptr::eq(a, b));
        let c = TypeMeta::of("gateway.networking.x-k8s.io", "HTTPRoute");
        assert!(!std::ptr::eq(a, c));
        assert_eq!((&*c.group, &*c.kind), ("gateway.networking.x-k8s.io", "HTTPRoute"));
        assert!(std::ptr::eq(TypeMeta::of("", "Service"), TypeMeta::of("", "Service")));
    }
}
