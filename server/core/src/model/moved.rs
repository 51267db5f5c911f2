//! Moving an object read before an edit to where its text lies after it: every span shifted by
//! the bytes the edit added or removed before it, and its document index renumbered. A
//! keystroke re-parse keeps the documents after the edit this way instead of reading them again
//! (`SourceFile::reparse`).
//!
//! Every struct is taken apart field by field (no `..`), so that a span field added later does
//! not compile until it is moved too.

use super::gitops::{ArgoApp, ArgoSource, FluxKustomization, GitOps};
use super::{
    AllowedRoutes, Body, FromNamespaces, Gateway, Helm, Listener, ListenerSet, Object, Other, PolicyFields, RefFields,
    RefList, Route, Rule, SelectorList, Service, ServicePort, Spanned, TargetSelector,
};

impl Object {
    /// Whether [`Object::moved`] can move it: a CRD's schema is a shared tree, read again
    /// rather than copied to move it.
    pub fn movable(&self) -> bool {
        !matches!(self.body, Body::Crd(_))
    }

    /// This object `by` bytes later in its file, in document `doc - old_first + first`.
    /// A CRD (not [`Object::movable`]) keeps its schema's spans.
    pub fn moved(&self, by: i64, first: u32, old_first: u32) -> Object {
        let mut o = self.clone();
        let Object {
            meta: _,
            kind_span,
            name,
            namespace,
            labels: _,
            creation_timestamp: _,
            span,
            doc,
            templated: _,
            substitutable: _,
            broken: _,
            intent: _,
            body,
        } = &mut o;
        *kind_span = kind_span.shifted(by);
        name.shift(by);
        namespace.shift(by);
        *span = span.shifted(by);
        *doc = (*doc - old_first).saturating_add(first);
        match body {
            Body::GatewayClass(_) | Body::Namespace | Body::ReferenceGrant(_) | Body::Crd(_) => {}
            Body::Gateway(g) => {
                let Gateway { class_name, listeners, allowed_listeners } = &mut **g;
                class_name.shift(by);
                listeners.shift(by);
                allowed_listeners.shift(by);
            }
            Body::ListenerSet(l) => {
                let ListenerSet { parent_ref, listeners } = &mut **l;
                parent_ref.shift(by);
                listeners.shift(by);
            }
            Body::Route(r) => {
                let Route { kind: _, parent_refs, hostnames, rules } = &mut **r;
                parent_refs.shift(by);
                hostnames.shift(by);
                rules.shift(by);
            }
            Body::Service(s) => {
                let Service { ports } = s;
                ports.shift(by);
            }
            Body::Helm(h) => {
                if let Helm::Release(r) = &mut **h {
                    r.target_namespace.shift(by);
                }
            }
            Body::Other(other) => {
                let Other { policy, reported: _, server: _, delegate_options, gitops, release } = &mut **other;
                if let Some(r) = release.as_mut().and_then(|r| r.rendered.as_mut()) {
                    r.target_namespace.shift(by);
                }
                policy.shift(by);
                delegate_options.shift(by);
                if let Some(g) = gitops {
                    g.shift(by);
                }
            }
        }
        o
    }
}

/// Spans moved in place.
trait Shift {
    fn shift(&mut self, by: i64);
}

impl<T> Shift for Spanned<T> {
    fn shift(&mut self, by: i64) {
        self.span = self.span.shifted(by);
    }
}

impl<T: Shift> Shift for Option<T> {
    fn shift(&mut self, by: i64) {
        if let Some(t) = self {
            t.shift(by);
        }
    }
}

impl<T: Shift + ?Sized> Shift for Box<T> {
    fn shift(&mut self, by: i64) {
        (**self).shift(by);
    }
}

impl<T: Shift> Shift for [T] {
    fn shift(&mut self, by: i64) {
        for t in self {
            t.shift(by);
        }
    }
}

impl<T: Shift> Shift for Vec<T> {
    fn shift(&mut self, by: i64) {
        self.as_mut_slice().shift(by);
    }
}

impl Shift for RefFields {
    fn shift(&mut self, by: i64) {
        let RefFields { group, kind, name, namespace, section_name, port, span, templated: _ } = self;
        group.shift(by);
        kind.shift(by);
        name.shift(by);
        namespace.shift(by);
        section_name.shift(by);
        port.shift(by);
        *span = span.shifted(by);
    }
}

impl Shift for Listener {
    fn shift(&mut self, by: i64) {
        let Listener { name, port: _, protocol: _, hostname, allowed_routes, span } = self;
        name.shift(by);
        hostname.shift(by);
        let AllowedRoutes { namespaces, kinds: _, span: routes_span } = allowed_routes;
        namespaces.shift(by);
        *routes_span = routes_span.map(|s| s.shifted(by));
        *span = span.shifted(by);
    }
}

/// No spans today; listed so that one added to a label selector is not forgotten here.
impl Shift for FromNamespaces {
    fn shift(&mut self, _by: i64) {
        match self {
            FromNamespaces::Same | FromNamespaces::All | FromNamespaces::None | FromNamespaces::Unknown(_) => {}
            FromNamespaces::Selector(super::LabelSelector { match_labels: _, match_expressions: _ }) => {}
        }
    }
}

impl Shift for Rule {
    fn shift(&mut self, by: i64) {
        let Rule { name, backend_refs, extension_refs, fields: _, span } = self;
        name.shift(by);
        backend_refs.shift(by);
        extension_refs.shift(by);
        *span = span.shifted(by);
    }
}

impl Shift for ServicePort {
    fn shift(&mut self, by: i64) {
        let ServicePort { name, port: _, span } = self;
        name.shift(by);
        *span = span.shifted(by);
    }
}

impl Shift for PolicyFields {
    fn shift(&mut self, by: i64) {
        let PolicyFields {
            spec,
            spec_span,
            target_ref,
            target_refs,
            target_selectors,
            workload_selector: _,
            istio_opt_out: _,
        } = self;
        *spec = spec.as_ref().map(|s| s.shifted(by));
        *spec_span = spec_span.map(|s| s.shifted(by));
        if let Some((key, r)) = target_ref {
            *key = key.shifted(by);
            r.shift(by);
        }
        if let Some(RefList { key_span, span, items, is_list: _, len: _ }) = target_refs {
            *key_span = key_span.shifted(by);
            *span = span.shifted(by);
            items.shift(by);
        }
        if let Some(SelectorList { key_span, span, items }) = target_selectors {
            *key_span = key_span.shifted(by);
            *span = span.shifted(by);
            items.shift(by);
        }
    }
}

impl Shift for TargetSelector {
    fn shift(&mut self, by: i64) {
        let TargetSelector { group, kind, selector: _, namespaces, span } = self;
        group.shift(by);
        kind.shift(by);
        namespaces.shift(by);
        *span = span.shifted(by);
    }
}

impl Shift for GitOps {
    fn shift(&mut self, by: i64) {
        match self {
            GitOps::Flux(FluxKustomization {
                path,
                source_kind: _,
                source_name: _,
                target_namespace,
                name_prefix: _,
                name_suffix: _,
                components,
                post_build: _,
                child_patches: _,
            }) => {
                path.shift(by);
                target_namespace.shift(by);
                components.shift(by);
            }
            GitOps::Argo(ArgoApp { name, sources, namespace, generators: _, is_set: _, go_template: _ }) => {
                name.shift(by);
                namespace.shift(by);
                for ArgoSource {
                    repo_url: _,
                    path,
                    chart: _,
                    explicit: _,
                    recurse: _,
                    include: _,
                    exclude: _,
                    kustomize_namespace,
                    name_prefix,
                    name_suffix,
                } in sources
                {
                    name_prefix.shift(by);
                    name_suffix.shift(by);
                    path.shift(by);
                    kustomize_namespace.shift(by);
                }
            }
            GitOps::Vars(_) => {}
            GitOps::Sync(path) => path.shift(by),
        }
    }
}
