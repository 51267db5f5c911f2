//! Object identity: (group, kind) pairs, object keys and their §2.1 display form.

use std::fmt;

use crate::syntax::Span;

pub const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// A model string. Names, kinds, namespaces and label values are nearly always 24 bytes or
/// less and are then kept inline: no allocation per field, which was most of the model's
/// allocations. Longer well-known strings (API groups and versions) are static.
pub type Str = compact_str::CompactString;

/// A [`Str`] of `s`, static when it is one of the long strings every workspace repeats.
pub fn str_of(s: &str) -> Str {
    const WELL_KNOWN: &[&str] = &[
        GATEWAY_GROUP,
        "gateway.networking.k8s.io/v1",
        "gateway.networking.k8s.io/v1beta1",
        "gateway.networking.k8s.io/v1alpha2",
        "gateway.networking.k8s.io/v1alpha3",
        "gateway.envoyproxy.io/v1alpha1",
        "kuadrant.io/v1",
        "kuadrant.io/v1beta3",
        "networking.gke.io/v1",
        "security.istio.io/v1",
        "networking.istio.io/v1",
        "apiextensions.k8s.io/v1",
        "gateway.nginx.org/v1alpha1",
        "gateway.nginx.org/v1alpha2",
        "application-networking.k8s.aws/v1alpha1",
    ];
    if s.len() > 24
        && let Some(w) = WELL_KNOWN.iter().find(|w| **w == s)
    {
        return Str::const_new(w);
    }
    Str::from(s)
}

/// A value with the span of the YAML scalar it came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// `""`, `core` and a null group all mean the core API group.
/// Kinds of the core API group that a bare `Kind/...` reference names.
pub fn is_core_kind(kind: &str) -> bool {
    matches!(kind, "Service" | "Namespace" | "Pod" | "ConfigMap" | "Secret" | "Endpoints" | "ServiceAccount" | "Node")
}

pub fn normalize_group(group: &str) -> &str {
    match group {
        "core" => "",
        g => g,
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroupKind {
    pub group: Str,
    pub kind: Str,
}

impl GroupKind {
    pub fn new(group: &str, kind: &str) -> GroupKind {
        GroupKind { group: str_of(normalize_group(group)), kind: str_of(kind) }
    }

    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.group == normalize_group(group) && self.kind == kind
    }
}

impl fmt::Display for GroupKind {
    /// `Kind[.group]`, the group left out for core and Gateway API.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if !self.group.is_empty() && self.group != GATEWAY_GROUP {
            write!(f, ".{}", self.group)?;
        }
        Ok(())
    }
}

/// The identity of an object, with an optional section (listener, rule or port name).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectKey {
    pub gk: GroupKind,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    pub name: String,
    pub section: Option<String>,
}

impl ObjectKey {
    pub fn new(gk: GroupKind, namespace: Option<&str>, name: &str) -> ObjectKey {
        ObjectKey { gk, namespace: namespace.map(str::to_owned), name: name.to_owned(), section: None }
    }

    pub fn with_section(mut self, section: Option<&str>) -> ObjectKey {
        self.section = section.map(str::to_owned);
        self
    }

    /// The key without its section.
    pub fn object(&self) -> ObjectKey {
        ObjectKey { section: None, ..self.clone() }
    }

    /// Parses `Kind[.group]/[namespace/]name[#section]`. A kind with no dot is looked up in the
    /// core group for core kinds and in Gateway API otherwise; `core_kinds` decides which.
    pub fn parse(s: &str, is_core_kind: impl Fn(&str) -> bool) -> Option<ObjectKey> {
        let (body, section) = match s.split_once('#') {
            Some((b, sec)) if !sec.is_empty() => (b, Some(sec.to_owned())),
            Some(_) => return None,
            None => (s, None),
        };
        let mut parts = body.split('/');
        let kind_group = parts.next()?;
        let a = parts.next()?;
        let b = parts.next();
        if parts.next().is_some() || kind_group.is_empty() || a.is_empty() {
            return None;
        }
        let (namespace, name) = match b {
            Some(n) if !n.is_empty() => (Some(a.to_owned()), n.to_owned()),
            Some(_) => return None,
            None => (None, a.to_owned()),
        };
        let gk = match kind_group.split_once('.') {
            Some((k, g)) => GroupKind::new(g, k),
            None if is_core_kind(kind_group) => GroupKind::new("", kind_group),
            None => GroupKind::new(GATEWAY_GROUP, kind_group),
        };
        Some(ObjectKey { gk, namespace, name, section })
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/", self.gk)?;
        if let Some(ns) = &self.namespace {
            write!(f, "{ns}/")?;
        }
        f.write_str(&self.name)?;
        if let Some(s) = &self.section {
            write!(f, "#{s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        let core = |k: &str| matches!(k, "Service" | "Namespace");
        for s in [
            "HTTPRoute/shop/checkout",
            "HTTPRoute/shop/checkout#pay",
            "GatewayClass/eg",
            "RateLimitPolicy.kuadrant.io/shop/limits",
            "Service/shop/api#https",
        ] {
            let key = ObjectKey::parse(s, core).unwrap();
            assert_eq!(key.to_string(), s);
        }
        let svc = ObjectKey::parse("Service/shop/api#https", core).unwrap();
        assert_eq!(svc.gk, GroupKind::new("", "Service"));
        assert_eq!(svc.section.as_deref(), Some("https"));
        let rt = ObjectKey::parse("HTTPRoute/shop/checkout", core).unwrap();
        assert_eq!(rt.gk.group, GATEWAY_GROUP);
        assert!(ObjectKey::parse("HTTPRoute", core).is_none());
        assert!(ObjectKey::parse("HTTPRoute/a/b/c", core).is_none());
    }
}
