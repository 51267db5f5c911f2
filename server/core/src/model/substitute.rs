//! Flux's post-build variable substitution (docs/semantics.md §4.7): `${VAR}` and its forms
//! replaced by a Kustomization's variables in the objects it applies.
//!
//! The syntax is fluxcd/pkg `envsubst` (e2cfd1a, a fork of drone/envsubst): only `${...}`
//! (never a bare `$VAR`), `$$` an escaped `$`, defaults `${VAR:=d}`, `${VAR:-d}`, `${VAR=d}`,
//! `${VAR-d}` (a default may hold further `${...}`), case changes `${VAR^}`, `${VAR^^}`,
//! `${VAR,}`, `${VAR,,}`. Flux replaces a variable nobody set by `""` (its non-strict lookup);
//! policylens keeps it as written instead, a placeholder (§4.10), because a variable the
//! files do not hold may well be set where they cannot see (an encrypted Secret, a ConfigMap
//! made in the cluster). A default is taken only where every source of variables is known.
//! Other forms (substrings, pattern removal and replacement, lengths) stay as written.
//!
//! Objects are substituted value by value after extraction: every name, namespace, reference,
//! hostname, label and spec value keeps the span of the scalar it was read from, so a
//! substituted value points at the `${VAR}` text that made it.

use std::borrow::Cow;

use super::{Body, Object, RefFields, Str};
use crate::syntax::{Node, NodeKind, PackedNode};

/// The variables a Flux Kustomization substitutes in what it applies.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct Variables {
    /// Sorted by name, one value each.
    values: Vec<(Str, Str)>,
    /// Every source is known: a variable none of them sets has no value, so defaults apply.
    pub complete: bool,
}

impl Variables {
    /// Variables from `(name, value)` pairs in order of precedence, lowest first (a later
    /// pair replaces an earlier one of the same name).
    pub fn new(pairs: impl IntoIterator<Item = (Str, Str)>, complete: bool) -> Variables {
        let mut values: Vec<(Str, Str)> = Vec::new();
        for (k, v) in pairs {
            match values.iter_mut().find(|(ek, _)| *ek == k) {
                Some(e) => e.1 = v,
                None => values.push((k, v)),
            }
        }
        values.sort_by(|a, b| a.0.cmp(&b.0));
        Variables { values, complete }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.binary_search_by(|(k, _)| k.as_str().cmp(name)).ok().map(|i| self.values[i].1.as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && !self.complete
    }

    /// `text` with every expression whose value is known replaced; `None` when nothing changed.
    pub fn substitute(&self, text: &str) -> Option<String> {
        if !text.contains('$') {
            return None;
        }
        let out = self.eval(text);
        (out != text).then_some(out)
    }

    fn eval(&self, text: &str) -> String {
        let b = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < b.len() {
            match (b[i], b.get(i + 1)) {
                (b'$', Some(b'$')) => {
                    out.push('$');
                    i += 2;
                }
                (b'$', Some(b'{')) => match close_of(text, i + 2) {
                    Some(end) => {
                        out.push_str(&self.expression(&text[i..=end]));
                        i = end + 1;
                    }
                    None => {
                        out.push_str(&text[i..]);
                        i = b.len();
                    }
                },
                _ => {
                    let next = text[i..].find('$').map_or(b.len(), |n| if n == 0 { i + 1 } else { i + n });
                    out.push_str(&text[i..next]);
                    i = next;
                }
            }
        }
        out
    }

    /// One `${...}` expression (braces included): its value, or itself when unknown.
    fn expression<'a>(&self, expr: &'a str) -> Cow<'a, str> {
        let inner = &expr[2..expr.len() - 1];
        let name_len = inner.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
        let (name, op) = inner.split_at(name_len);
        if name.is_empty() {
            return Cow::Borrowed(expr);
        }
        let value = self.get(name);
        let known = |v: Option<&str>| v.map_or(Cow::Borrowed(expr), |v| Cow::Owned(v.to_owned()));
        match op {
            "" => known(value),
            "^" | "^^" | "," | ",," => match value {
                Some(v) => Cow::Owned(case(v, op)),
                None => Cow::Borrowed(expr),
            },
            _ => {
                let (unset_only, default) = if let Some(d) = op.strip_prefix(":=").or_else(|| op.strip_prefix(":-")) {
                    (false, d)
                } else if let Some(d) = op.strip_prefix('=').or_else(|| op.strip_prefix('-')) {
                    (true, d)
                } else {
                    return Cow::Borrowed(expr);
                };
                match value {
                    Some(v) if unset_only || !v.is_empty() => Cow::Owned(v.to_owned()),
                    // Flux's lookup says every variable is set (to `""` when no source has it).
                    None if unset_only && self.complete => Cow::Borrowed(""),
                    Some(_) | None if self.complete || value.is_some() => Cow::Owned(self.eval(default)),
                    _ => Cow::Borrowed(expr),
                }
            }
        }
    }
}

/// The index of the `}` closing an expression whose body starts at `from`.
fn close_of(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            b'$' if b.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 1;
            }
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

fn case(v: &str, op: &str) -> String {
    let mut chars = v.chars();
    match op {
        "^^" => v.to_uppercase(),
        ",," => v.to_lowercase(),
        "^" => chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default(),
        _ => chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default(),
    }
}

impl Object {
    /// This object as a Kustomization with `vars` applies it: every value read from the file
    /// substituted (docs/semantics.md §4.7). `None` when nothing changes.
    pub fn substituted(&self, vars: &Variables) -> Option<Object> {
        if !self.substitutable {
            return None;
        }
        let mut o = self.clone();
        let changed = std::cell::Cell::new(false);
        let sub = |s: &mut Str| {
            if let Some(v) = vars.substitute(s) {
                *s = v.into();
                changed.set(true);
            }
        };
        sub(&mut o.name.value);
        if let Some(ns) = &mut o.namespace {
            sub(&mut ns.value);
        }
        let mut labels = o.labels.to_vec();
        for (_, v) in &mut labels {
            sub(v);
        }
        o.labels = labels.into();
        match &mut o.body {
            Body::Gateway(g) => {
                if let Some(c) = &mut g.class_name {
                    sub(&mut c.value);
                }
                for l in &mut g.listeners {
                    sub(&mut l.name.value);
                    if let Some(h) = &mut l.hostname {
                        sub(&mut h.value);
                    }
                }
            }
            Body::ListenerSet(ls) => {
                for l in &mut ls.listeners {
                    sub(&mut l.name.value);
                    if let Some(h) = &mut l.hostname {
                        sub(&mut h.value);
                    }
                }
            }
            Body::Route(r) => {
                for h in r.hostnames.iter_mut() {
                    sub(&mut h.value);
                }
                for rule in r.rules.iter_mut() {
                    if let Some(n) = &mut rule.name {
                        sub(&mut n.value);
                    }
                }
            }
            Body::Service(s) => {
                for p in s.ports.iter_mut() {
                    if let Some(n) = &mut p.name {
                        sub(&mut n.value);
                    }
                }
            }
            Body::Other(other) => {
                if let Some(spec) = &other.policy.spec {
                    let mut tree = spec.unpack();
                    if substitute_tree(&mut tree, vars) {
                        other.policy.spec = Some(PackedNode::pack(&tree));
                        changed.set(true);
                    }
                }
                for s in other.policy.target_selectors.iter_mut().flat_map(|l| l.items.iter_mut()) {
                    for (_, v) in &mut s.selector.match_labels {
                        sub(v);
                    }
                }
            }
            Body::GatewayClass(_) | Body::Namespace | Body::ReferenceGrant(_) | Body::Crd(_) | Body::Helm(_) => {}
        }
        o.for_each_ref_mut(|r| {
            let RefFields { group, kind, name, namespace, section_name, .. } = r;
            for f in [group.as_deref_mut(), kind.as_deref_mut(), name.as_mut(), namespace.as_deref_mut()]
                .into_iter()
                .chain([section_name.as_deref_mut()])
                .flatten()
            {
                sub(&mut f.value);
            }
        });
        if !changed.get() {
            return None;
        }
        // Placeholders are read again: a substituted name is a name.
        o.templated = false;
        o.for_each_ref_mut(|r| r.templated = false);
        o.mark_placeholders();
        Some(o)
    }
}

/// Substitutes every scalar of a tree (keys too: Flux substitutes the whole text).
fn substitute_tree(n: &mut Node, vars: &Variables) -> bool {
    match &mut n.kind {
        NodeKind::Scalar(s) => match vars.substitute(&s.value) {
            Some(v) => {
                s.value = v.into();
                true
            }
            None => false,
        },
        NodeKind::Mapping(entries) => {
            let mut changed = false;
            for e in entries {
                changed |= substitute_tree(&mut e.key, vars);
                changed |= substitute_tree(&mut e.value, vars);
            }
            changed
        }
        NodeKind::Sequence(items) => items.iter_mut().fold(false, |c, i| substitute_tree(i, vars) | c),
        NodeKind::Alias | NodeKind::Missing => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)], complete: bool) -> Variables {
        Variables::new(pairs.iter().map(|(k, v)| (Str::from(*k), Str::from(*v))), complete)
    }

    #[test]
    fn expressions_follow_fluxs_envsubst() {
        let v = vars(&[("APP", "hass"), ("EMPTY", ""), ("DOMAIN", "home.example")], true);
        let cases = [
            ("${APP}-oidc", Some("hass-oidc")),
            ("${APP}.${DOMAIN}", Some("hass.home.example")),
            ("$APP", None),
            ("$${APP}", Some("${APP}")),
            ("${MISSING}", None),
            ("${MISSING:=5Gi}", Some("5Gi")),
            ("${EMPTY:=d}", Some("d")),
            ("${EMPTY=d}", Some("")),
            ("${MISSING=d}", Some("")),
            ("${SUB:=${APP}}", Some("hass")),
            ("${APP^^}", Some("HASS")),
            ("${APP^}", Some("Hass")),
            ("${APP:0:2}", None),
            ("${APP", None),
            ("no vars", None),
        ];
        for (text, want) in cases {
            assert_eq!(v.substitute(text).as_deref(), want, "{text}");
        }
        // A source the files cannot read (an encrypted Secret) may set any variable: defaults
        // are not taken, unknown variables stay as written.
        let open = vars(&[("APP", "hass")], false);
        assert_eq!(open.substitute("${MISSING:=5Gi}"), None);
        assert_eq!(open.substitute("${APP}-${SECRET_DOMAIN}").as_deref(), Some("hass-${SECRET_DOMAIN}"));
    }
}
