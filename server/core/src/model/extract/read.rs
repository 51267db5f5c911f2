//! Small readers shared by the kind-specific extractors: scalars, reference fields, label
//! selectors. Each reads a wrong-typed value as absent.

use crate::model::{FromNamespaces, LabelExpr, LabelSelector, RefFields, Spanned, Str, str_of};
use crate::syntax::{Node, NodeKind, ScalarStyle};

/// `collect()` into a vector of exactly the items' size. Most lists of a manifest hold one or
/// two items, and a filtered iterator's collect reserves room for four: with reference
/// structs of a few hundred bytes, the slack was most of a route's memory.
pub(super) trait CollectExact: Iterator + Sized {
    fn collect_exact(self) -> Vec<Self::Item> {
        let mut v: Vec<Self::Item> = self.collect();
        v.shrink_to_fit();
        v
    }
}

impl<I: Iterator> CollectExact for I {}

/// A non-null scalar's text with the scalar's span. Numbers and booleans read as their text.
pub(super) fn spanned_str(node: &Node) -> Option<Spanned<Str>> {
    node.as_str().map(|s| Spanned::new(str_of(s), node.span))
}

/// `node[key]` as a non-null scalar's text.
pub(super) fn str_at<'a>(node: Option<&'a Node>, key: &str) -> Option<&'a str> {
    node?.get(key)?.as_str()
}

/// A scalar's text where null reads as `""` (label values, selector values); `None` for
/// collections and aliases.
pub(super) fn scalar_text(node: &Node) -> Option<&str> {
    match &node.kind {
        NodeKind::Scalar(_) if node.is_null() => Some(""),
        NodeKind::Scalar(s) => Some(&s.value),
        NodeKind::Missing => Some(""),
        _ => None,
    }
}

/// A plain `true`/`false` (YAML 1.2 core schema); quoted text is not a boolean.
pub(super) fn as_bool(node: &Node) -> Option<bool> {
    let s = node.as_scalar()?;
    if s.style != ScalarStyle::Plain {
        return None;
    }
    match &*s.value {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// The items of a sequence (none when `node` is absent or not a sequence).
pub(super) fn seq(node: Option<&Node>) -> &[Node] {
    node.and_then(Node::as_sequence).unwrap_or_default()
}

/// The items of a sequence that are mappings.
pub(super) fn mappings(node: Option<&Node>) -> impl Iterator<Item = &Node> {
    seq(node).iter().filter(|n| n.as_mapping().is_some())
}

/// A reference's `group`: `""`, null and `core` all read as `""` (the core group), with the
/// value's span (empty for a value the parser never saw).
pub(super) fn group_value(node: &Node) -> Option<Spanned<Str>> {
    match &node.kind {
        NodeKind::Scalar(s) if s.templated => Some(Spanned::new(str_of(&s.value), node.span)),
        NodeKind::Scalar(_) | NodeKind::Missing if node.is_null() => Some(Spanned::new(Str::default(), node.span)),
        NodeKind::Scalar(s) if &*s.value == "core" => Some(Spanned::new(Str::default(), node.span)),
        NodeKind::Scalar(s) => Some(Spanned::new(str_of(&s.value), node.span)),
        _ => None,
    }
}

/// A `parentRefs[]` (or ListenerSet `parentRef`) item. Unlike other references, a null
/// `group` is not core: the API server drops the null and defaults the field to the Gateway
/// API group.
pub(super) fn parent_ref(node: &Node) -> RefFields {
    let mut r = ref_fields(node);
    if node.get("group").is_some_and(|g| g.is_null() && !g.is_templated()) {
        r.group = None;
    }
    r
}

/// `parentRefs[]`, `backendRefs[]`, `targetRef(s)` items as written.
pub(super) fn ref_fields(node: &Node) -> RefFields {
    let mut templated = false;
    let mut text = |key: &str, group: bool| {
        let v = node.get(key)?;
        templated |= v.is_templated();
        if group { group_value(v) } else { spanned_str(v) }
    };
    let group = text("group", true).map(Box::new);
    let kind = text("kind", false).map(Box::new);
    let name = text("name", false);
    let namespace = text("namespace", false).map(Box::new);
    let section_name = text("sectionName", false).map(Box::new);
    let port = node.get("port").and_then(|v| {
        templated |= v.is_templated();
        v.as_i64().map(|p| Spanned::new(p, v.span))
    });
    RefFields { group, kind, name, namespace, section_name, port, span: node.span, templated }
}

/// A label selector's `matchLabels` and `matchExpressions` read from `node` (a mapping that
/// holds them, e.g. `selector:` or an Envoy Gateway `targetSelectors[]` item).
pub(super) fn label_selector(node: &Node) -> LabelSelector {
    let match_labels = node
        .get("matchLabels")
        .and_then(Node::as_mapping)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| {
            let k = e.key.as_scalar()?;
            Some((str_of(&k.value), str_of(scalar_text(&e.value)?)))
        })
        .collect_exact();
    let match_expressions = mappings(node.get("matchExpressions"))
        .filter_map(|e| {
            let key = e.get("key")?.as_str()?.to_owned();
            // A missing operator stays "", which matches nothing: safer than dropping the term.
            let operator = str_at(Some(e), "operator").unwrap_or_default().to_owned();
            let values = seq(e.get("values")).iter().filter_map(|v| scalar_text(v).map(str::to_owned)).collect_exact();
            Some(LabelExpr { key, operator, values })
        })
        .collect_exact();
    LabelSelector { match_labels, match_expressions }
}

/// A `namespaces:` stanza (`allowedRoutes.namespaces`, Envoy Gateway's
/// `targetSelectors[].namespaces`): `from` defaults to `Same`.
pub(super) fn from_namespaces(namespaces: &Node) -> FromNamespaces {
    let Some(from) = namespaces.get("from").filter(|f| !f.is_null()) else {
        return FromNamespaces::Same;
    };
    match from.as_str() {
        Some("Same") => FromNamespaces::Same,
        Some("All") => FromNamespaces::All,
        Some("None") => FromNamespaces::None,
        Some("Selector") => {
            FromNamespaces::Selector(namespaces.get("selector").map(label_selector).unwrap_or_default())
        }
        Some(other) => FromNamespaces::Unknown(other.to_owned()),
        None => FromNamespaces::Unknown(String::new()),
    }
}

/// `metadata.labels`, sorted by key; for a repeated key the last one wins, as in Kubernetes.
pub(super) fn labels(node: Option<&Node>) -> Vec<(Str, Str)> {
    let Some(entries) = node.and_then(Node::as_mapping) else {
        return Vec::new();
    };
    let mut out: Vec<(Str, Str)> = entries
        .iter()
        .filter_map(|e| {
            let k = e.key.as_scalar()?;
            Some((str_of(&k.value), str_of(scalar_text(&e.value)?)))
        })
        .collect_exact();
    // Stable sort keeps duplicates in source order, so the last of a run is the winner.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            std::mem::swap(&mut later.1, &mut kept.1);
            true
        } else {
            false
        }
    });
    out
}
