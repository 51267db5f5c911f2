//! Placeholders (docs/semantics.md §4.10): a name, namespace or section written as something a
//! tool fills in before the YAML is applied — a Helm or Hugo action (`{{ .Release.Namespace }}`,
//! `{{< param >}}`), an envsubst variable (`${NS}`, `$NS`), a test harness's `{GATEWAY_NAME}`
//! or a document's `<my-listener>`, a chainsaw test's `($namespace)`. None of these can be a Kubernetes name, so policylens never
//! reports one missing or invalid and never suggests one; it matches only the same placeholder.

/// Whether `value` is a placeholder rather than a name.
pub fn is_placeholder(value: &str) -> bool {
    let b = value.as_bytes();
    if value.contains("{{") {
        return true;
    }
    // `${VAR}` and `$VAR`: `$` is never part of a Kubernetes name.
    if b.windows(2).any(|w| w[0] == b'$' && (w[1] == b'{' || w[1] == b'_' || w[1].is_ascii_alphabetic())) {
        return true;
    }
    enclosed(value, '{', '}') || enclosed(value, '<', '>') || is_binding(value)
}

/// A chainsaw binding: a JMESPath expression in parentheses (`($namespace)`,
/// `(join('-', [$name, 'gw']))`), which chainsaw evaluates per test before applying the
/// resource (kyverno/chainsaw docs, "Bindings"). A Kubernetes name has no parentheses.
pub fn is_binding(value: &str) -> bool {
    let v = value.trim();
    v.len() > 2 && v.starts_with('(') && v.ends_with(')')
}

/// `{NAME}` or `<name>` somewhere in the value, with something between the brackets.
fn enclosed(value: &str, open: char, close: char) -> bool {
    value.find(open).is_some_and(|s| value[s + 1..].find(close).is_some_and(|e| e > 0))
}

/// The form two spellings of one placeholder share: Helm's whitespace-trimming markers and the
/// spacing inside an action do not change what it stands for (`{{- .Release.Namespace -}}` is
/// `{{ .Release.Namespace }}`); quotes around the whole value are not part of it.
pub fn normalize_placeholder(value: &str) -> String {
    let v = value.trim().trim_matches(|c| c == '"' || c == '\'');
    if !v.contains("{{") {
        return v.to_owned();
    }
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(s) = rest.find("{{") {
        out.push_str(&rest[..s]);
        let after = &rest[s + 2..];
        let Some(e) = after.find("}}") else {
            out.push_str(&rest[s..]);
            rest = "";
            break;
        };
        let inner = after[..e].trim();
        let inner = inner.strip_prefix('-').unwrap_or(inner);
        let inner = inner.strip_suffix('-').unwrap_or(inner);
        let words: Vec<&str> = inner.split_whitespace().collect();
        out.push_str("{{ ");
        out.push_str(&words.join(" "));
        out.push_str(" }}");
        rest = &after[e + 2..];
    }
    out.push_str(rest);
    out
}

use super::{Body, Object, RefFields, Spanned, Str};

impl Object {
    /// Every reference the object writes (parentRefs, backendRefs, ExtensionRef filters,
    /// targetRef(s)), to rewrite in place.
    pub(crate) fn for_each_ref_mut(&mut self, mut f: impl FnMut(&mut RefFields)) {
        match &mut self.body {
            Body::Route(r) => {
                r.parent_refs.iter_mut().for_each(&mut f);
                for rule in r.rules.iter_mut() {
                    rule.backend_refs.iter_mut().for_each(&mut f);
                    rule.extension_refs.iter_mut().for_each(&mut f);
                }
            }
            Body::ListenerSet(ls) => ls.parent_ref.iter_mut().for_each(&mut f),
            Body::Other(other) => {
                let p = &mut other.policy;
                if let Some((_, Some(r))) = &mut p.target_ref {
                    f(r);
                }
                if let Some(list) = &mut p.target_refs {
                    list.items.iter_mut().for_each(&mut f);
                }
                other.delegate_options.iter_mut().for_each(&mut f);
            }
            _ => {}
        }
    }

    /// Marks the object and its references that hold a placeholder (written outside a
    /// template file: `${NS}`, `{GATEWAY}`, `<listener>`), which then match only the same
    /// placeholder.
    pub(crate) fn mark_placeholders(&mut self) {
        if is_placeholder(&self.name.value) || self.namespace.as_ref().is_some_and(|n| is_placeholder(&n.value)) {
            self.templated = true;
        }
        self.for_each_ref_mut(|r| {
            let fields = [
                r.group.as_deref(),
                r.kind.as_deref(),
                r.name.as_ref(),
                r.namespace.as_deref(),
                r.section_name.as_deref(),
            ];
            if fields.into_iter().flatten().any(|v| is_placeholder(&v.value)) {
                r.templated = true;
            }
        });
    }

    /// In a template file, the names, namespaces and references the parser read with
    /// stand-ins for the template actions get the text as written (normalized), so that they
    /// show as written and match the same action elsewhere.
    pub(crate) fn show_written(&mut self, text: &str) {
        let written = |s: &mut Spanned<Str>| -> bool {
            let w = text.get(s.span.start as usize..s.span.end as usize).unwrap_or("");
            if !w.contains("{{") {
                return false;
            }
            s.value = normalize_placeholder(w).into();
            true
        };
        let mut templated = written(&mut self.name);
        if let Some(ns) = &mut self.namespace {
            templated |= written(ns);
        }
        self.templated |= templated;
        if let Body::Gateway(g) = &mut self.body
            && let Some(c) = &mut g.class_name
        {
            written(c);
        }
        if let Body::Other(other) = &mut self.body
            && let Some(super::gitops::GitOps::Argo(app)) = other.gitops.as_deref_mut()
        {
            app.show_written(text);
        }
        self.for_each_ref_mut(|r| {
            if !r.templated {
                return;
            }
            for v in [
                r.group.as_deref_mut(),
                r.kind.as_deref_mut(),
                r.namespace.as_deref_mut(),
                r.section_name.as_deref_mut(),
            ]
            .into_iter()
            .flatten()
            {
                written(v);
            }
            if let Some(n) = &mut r.name {
                written(n);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_what_no_name_can_be() {
        for p in [
            "{{ .Release.Namespace }}",
            "{{ include \"x.fullname\" . }}-server",
            "{{< param ns >}}",
            "${DNSPOLICY_NAMESPACE}",
            "my-route-${NS}",
            "$GATEWAY",
            "{REF_GATEWAY_NAME}",
            "<myListenerName>",
            "<gateway-name>",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        for n in ["checkout", "edge-gw.v1", "a", "", "$", "{}", "<>", "1.2.3"] {
            assert!(!is_placeholder(n), "{n}");
        }
    }

    #[test]
    fn spellings_of_one_action_are_one_placeholder() {
        let want = "{{ .Release.Namespace }}";
        for s in [
            "{{ .Release.Namespace }}",
            "{{.Release.Namespace}}",
            "{{- .Release.Namespace -}}",
            "\"{{ .Release.Namespace }}\"",
        ] {
            assert_eq!(normalize_placeholder(s), want, "{s}");
        }
        assert_eq!(normalize_placeholder("{{ include  \"a\" . }}-srv"), "{{ include \"a\" . }}-srv");
        assert_eq!(normalize_placeholder("${NS}"), "${NS}");
    }
}
