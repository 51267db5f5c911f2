//! Gateway API validation of reference fields (the CRD patterns and lengths), so that a ref a
//! real API server would reject is reported as such rather than as "not found".

use crate::model::{Spanned, Str, TargetRef};
use crate::syntax::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct RefViolation {
    pub span: Span,
    pub message: String,
}

/// Checks the fields of one target reference. `kind` and `name` are required; `group` is
/// checked when present.
pub fn validate_ref(r: &TargetRef) -> Vec<RefViolation> {
    let mut out = Vec::new();
    let mut bad = |s: &Spanned<Str>, message: String| out.push(RefViolation { span: s.span, message });
    if let Some(g) = &r.group {
        if g.value.len() > 253 {
            bad(g, "`group` is longer than 253 characters".into());
        } else if let Some((group, _version)) = g.value.split_once('/') {
            bad(g, format!("`group` must not include a version: write `{group}`"));
        } else if !g.value.is_empty() && !is_dns_subdomain(&g.value) {
            bad(g, format!("`group` `{}` is not a valid API group (lowercase DNS subdomain)", g.value));
        }
    }
    if let Some(k) = &r.kind
        && (k.value.is_empty() || k.value.len() > 63 || !is_kind(&k.value))
    {
        bad(
            k,
            format!(
                "`kind` `{}` is not a valid kind (letters, digits and `-`, starting with a letter, at most 63)",
                k.value
            ),
        );
    }
    if let Some(n) = &r.name {
        if n.value.is_empty() {
            bad(n, "`name` is empty".into());
        } else if n.value.len() > 253 {
            bad(n, "`name` is longer than 253 characters".into());
        }
    }
    if let Some(ns) = &r.namespace
        && (ns.value.len() > 63 || !is_dns_label(&ns.value))
    {
        bad(ns, format!("`namespace` `{}` is not a valid namespace name (lowercase DNS label)", ns.value));
    }
    if let Some(s) = &r.section_name
        && (s.value.len() > 253 || !is_dns_subdomain(&s.value))
    {
        bad(s, format!("`sectionName` `{}` is not a valid section name (lowercase DNS subdomain)", s.value));
    }
    out
}

/// Checks the fields of one Consul `PolicyTargetReference` (hashicorp/consul-k8s
/// `control-plane/api/v1alpha1/gatewaypolicy_types.go` and its CRD): `group`, `kind`, `name`
/// and `namespace` are 1 to 253 characters of any text; only `sectionName` keeps Gateway API's
/// pattern (it is a Gateway API `SectionName`).
pub fn validate_consul_ref(r: &TargetRef) -> Vec<RefViolation> {
    let mut out = Vec::new();
    let fields = [("group", &r.group), ("kind", &r.kind), ("namespace", &r.namespace)];
    let fields =
        fields.into_iter().filter_map(|(f, v)| Some((f, &**v.as_ref()?))).chain(r.name.as_ref().map(|n| ("name", n)));
    for (field, v) in fields {
        if v.value.is_empty() {
            out.push(RefViolation {
                span: v.span,
                message: format!("`{field}` is empty (Consul requires at least 1 character)"),
            });
        } else if v.value.len() > 253 {
            out.push(RefViolation { span: v.span, message: format!("`{field}` is longer than 253 characters") });
        }
    }
    if let Some(s) = &r.section_name
        && (s.value.len() > 253 || !is_dns_subdomain(&s.value))
    {
        out.push(RefViolation {
            span: s.span,
            message: format!("`sectionName` `{}` is not a valid section name (lowercase DNS subdomain)", s.value),
        });
    }
    out
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
pub fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Dot-separated DNS labels.
pub fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_dns_label)
}

/// `[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?`
fn is_kind(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphabetic()
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
        && b[b.len() - 1] != b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(is_dns_subdomain("gateway.networking.k8s.io"));
        assert!(!is_dns_subdomain("Gateway.io"));
        assert!(is_kind("HTTPRoute"));
        assert!(!is_kind("HTTPRoute / Gateway"));
        assert!(!is_kind("1Route"));
        assert!(is_dns_label("shop-1"));
        assert!(!is_dns_label("-shop"));
    }
}
