//! The bjw-s `app-template` chart (bjw-s-labs/helm-charts, its `common` library): the Services
//! and routes that a release's `service:` and `route:` values render, read at extraction as
//! ordinary objects whose spans are the values that made them (a Service's name is its key
//! under `service:`, a route's parentRef is the parentRef in the values). They follow their
//! release in the file's objects ([`crate::model::Release::rendered`]); the world keeps them
//! only where the release's chart is app-template (a `chartRef` names a source elsewhere).
//!
//! What is rendered, as the templates do it (paths below `charts/library/common/templates/`,
//! at 72cbacc0 (common 4.1.1) unless said; 5.x changed none of it but what is noted):
//! - `lib/service/_enabled_services.tpl`, `lib/routes/_enabled_routes.tpl`: every mapping under
//!   `service:`/`route:` whose `enabled` is not false, in key order, named by `names.rs`.
//! - `classes/_service.tpl`: the Service's ports are the enabled mappings under `ports:`, each
//!   named by its key (`lib/service/_enabled_ports.tpl`); 5.x adds `portRange` (one port per
//!   number, `<key>-<n>`). Labels: the chart's (`lib/metadata/_allLabels.tpl`), then
//!   `app.kubernetes.io/service`, then the item's own.
//! - `classes/_route.tpl`: `kind` (default HTTPRoute), `parentRefs` as written, `hostnames`
//!   through `tpl` (not for TCPRoute/UDPRoute), and each rule's `backendRefs`, `matches`,
//!   `filters`, `sessionPersistence` (HTTPRoute, GRPCRoute) and `timeouts` (HTTPRoute); nothing
//!   else of a rule (`retry` is dropped). A backendRef `name` is a Service name (through
//!   `tpl`); an `identifier` names the Service rendered from that key, its port defaulting to
//!   that Service's primary port (`lib/service/_primary_port.tpl`: the one marked `primary`,
//!   else the first by name). 5.x also passes a rule's `name` and resolves a `port` given as
//!   a port name (33bdcbed).
//! - `lib/routes/_autoDetectService.tpl`: with exactly one enabled Service, a route without
//!   rules gets one rule to it, and a backendRef naming neither `name` nor `identifier` gets
//!   that Service's key.
//! - common 3.x (245e1631, 3.7.3): a backendRef's `name` is first looked up as a Service key
//!   (`$service.name | default .name`); no automatic Service; names by `names.rs`.

mod names;
#[cfg(test)]
mod tests;
mod values;

use names::{Generation, Names, item_name};
use values::Values;

use super::{
    BackendRef, Body, GATEWAY_GROUP, Object, RefFields, Route, RouteKind, Rule, RuleFields, Service, ServicePort,
    Spanned, Str, TypeMeta, str_of,
};
use crate::syntax::{Node, Span};

/// The chart's name (`charts/other/app-template/Chart.yaml`).
pub const CHART: &str = "app-template";

/// What a release renders with: where its values are and what its objects are called.
pub(crate) struct Release<'a> {
    pub values: &'a Node,
    /// The document's root (aliases in the values point into it) and the file's text.
    pub root: &'a Node,
    pub text: &'a str,
    pub name: &'a str,
    /// The chart version the release pins, when it says.
    pub version: Option<&'a str>,
    /// The rendered objects' `metadata.namespace` (the release namespace), when known here.
    pub namespace: Option<Spanned<Str>>,
    pub doc: u32,
    /// Flux substitutes the release's values (the whole build's text) unless the release opts
    /// out: its rendered objects follow it.
    pub substitutable: bool,
}

/// A scalar of the document `root` as written, an alias followed to its anchor (the release's
/// own fields: `chartRef: {name: *app}`).
pub(crate) fn resolved(root: &Node, text: &str, n: &Node) -> Option<String> {
    Values::new(root, text, "").raw(n)
}

/// Renders the release's Services and routes into `out`; returns how many.
pub(crate) fn render(r: &Release<'_>, out: &mut Vec<Object>) -> u32 {
    let Some(generation) = Generation::of(r.version) else { return 0 };
    let v = Values::new(r.root, r.text, r.name);
    let values = v.node(r.values);
    let chart = Chart::read(&v, values, r, generation);
    let before = out.len();
    for s in &chart.services {
        out.push(chart.service(&v, s, r));
    }
    let routes = enabled(&v, v.get(values, "route"));
    for (key, key_span, item) in &routes {
        if let Some(o) = chart.route(&v, key, *key_span, item, routes.len(), r) {
            out.push(o);
        }
    }
    (out.len() - before) as u32
}

/// The enabled items under a key (`service:`, `route:`): mappings not `enabled: false`.
fn enabled<'a>(v: &Values<'a>, n: Option<&'a Node>) -> Vec<(String, Span, &'a Node)> {
    v.entries(n).into_iter().filter(|(_, _, item)| item.as_mapping().is_some() && v.enabled(item)).collect()
}

/// One enabled Service of the values, named.
struct ServiceItem<'a> {
    key: String,
    key_span: Span,
    item: &'a Node,
    name: String,
    name_span: Option<Span>,
    /// Enabled ports by name (key order), with their number and item.
    ports: Vec<(String, Span, Option<i64>, &'a Node)>,
}

impl ServiceItem<'_> {
    /// `lib/service/_primary_port.tpl`: the enabled port marked `primary` (the last such, as
    /// the template's loop keeps overwriting), else the first by name.
    fn primary_port(&self, v: &Values<'_>) -> Option<i64> {
        let marked = self.ports.iter().rev().find(|p| v.get(p.3, "primary").is_some_and(|x| v.truthy(x)));
        marked.or(self.ports.first()).and_then(|p| p.2)
    }
}

/// What every object of the release shares.
struct Chart<'a> {
    generation: Generation,
    fullname: String,
    always_append: bool,
    labels: Vec<(Str, Str)>,
    services: Vec<ServiceItem<'a>>,
}

impl<'a> Chart<'a> {
    fn read(v: &Values<'a>, values: &'a Node, r: &Release<'_>, generation: Generation) -> Chart<'a> {
        let names = Names::of(v, values, r.name);
        let global = v.get(values, "global");
        let always_append =
            global.and_then(|g| v.get(g, "alwaysAppendIdentifierToResourceName")).is_some_and(|a| v.truthy(a));
        let mut labels: Vec<(Str, Str)> = vec![
            ("app.kubernetes.io/name".into(), names.name.as_str().into()),
            ("app.kubernetes.io/instance".into(), r.name.into()),
            ("app.kubernetes.io/managed-by".into(), "Helm".into()),
        ];
        if let Some(version) =
            r.version.filter(|s| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        {
            labels.push(("helm.sh/chart".into(), format!("{CHART}-{version}").into()));
        }
        for (k, _, val) in v.entries(global.and_then(|g| v.get(g, "labels"))) {
            labels.push((k.into(), v.tpl(val).unwrap_or_default().into()));
        }
        let services = enabled(v, v.get(values, "service"));
        let count = services.len();
        let services = services
            .into_iter()
            .map(|(key, key_span, item)| {
                let (name, name_span) = item_name(v, generation, &names.fullname, &key, item, count, always_append);
                let ports = enabled(v, v.get(item, "ports"))
                    .into_iter()
                    .map(|(p, span, port)| {
                        let number = v.get(port, "port").and_then(|n| v.int(n));
                        (p, span, number, port)
                    })
                    .collect();
                ServiceItem { key, key_span, item, name, name_span, ports }
            })
            .collect();
        Chart { generation, fullname: names.fullname, always_append, labels, services }
    }

    fn service_by_key(&self, key: &str) -> Option<&ServiceItem<'a>> {
        self.services.iter().find(|s| s.key == key)
    }

    /// An object of the item `item` under its key at `key_span`.
    fn object(
        &self,
        meta: &'static TypeMeta,
        name: Spanned<Str>,
        (key_span, item): (Span, &Node),
        own: Vec<(Str, Str)>,
        r: &Release<'_>,
        body: Body,
    ) -> Object {
        let mut labels = self.labels.clone();
        labels.extend(own);
        Object {
            meta,
            kind_span: key_span,
            name,
            namespace: r.namespace.clone(),
            labels: sorted_labels(labels),
            creation_timestamp: None,
            span: Span::new(key_span.start, item.span.end.max(key_span.end)),
            doc: r.doc,
            templated: false,
            substitutable: r.substitutable,
            // Rendered only from a document that parsed, for the cluster.
            broken: false,
            intent: super::Intent::Applied,
            body,
        }
    }

    fn service(&self, v: &Values<'a>, s: &ServiceItem<'a>, r: &Release<'_>) -> Object {
        let mut ports = Vec::new();
        for (name, span, number, item) in &s.ports {
            if number.is_some() || v.get(item, "portRange").is_none() {
                ports.push(ServicePort {
                    name: Some(Spanned::new(name.as_str().into(), *span)),
                    port: *number,
                    span: item.span,
                });
                continue;
            }
            // 5.x: a range is one port per number, `<key>-<n>` (bounded: a typo's range is not
            // worth a million ports).
            let range = v.get(item, "portRange");
            let bound = |k: &str| range.and_then(|g| v.get(g, k)).and_then(|n| v.int(n));
            if let (Some(from), Some(to)) = (bound("start"), bound("end")) {
                for n in from..=to.min(from.saturating_add(1024)) {
                    ports.push(ServicePort {
                        name: Some(Spanned::new(format!("{name}-{n}").into(), *span)),
                        port: Some(n),
                        span: item.span,
                    });
                }
            }
        }
        let mut own = vec![("app.kubernetes.io/service".into(), s.name.as_str().into())];
        own.extend(self.item_labels(v, s.item));
        let name = Spanned::new(s.name.as_str().into(), s.name_span.unwrap_or(s.key_span));
        let body = Body::Service(Service { ports: ports.into_boxed_slice() });
        self.object(TypeMeta::of("", "Service"), name, (s.key_span, s.item), own, r, body)
    }

    fn item_labels(&self, v: &Values<'a>, item: &'a Node) -> Vec<(Str, Str)> {
        v.entries(v.get(item, "labels"))
            .into_iter()
            .map(|(k, _, val)| (k.into(), v.tpl(val).unwrap_or_default().into()))
            .collect()
    }

    fn route(
        &self,
        v: &Values<'a>,
        key: &str,
        key_span: Span,
        item: &'a Node,
        count: usize,
        r: &Release<'_>,
    ) -> Option<Object> {
        let kind_node = v.get(item, "kind");
        let kind_name = kind_node.and_then(|k| v.raw(k)).unwrap_or_else(|| "HTTPRoute".into());
        // `lib/routes/_validate.tpl` fails on any other kind: nothing is rendered for it.
        let kind = RouteKind::from_kind(&kind_name)?;
        let (name, name_span) = item_name(v, self.generation, &self.fullname, key, item, count, self.always_append);
        let parent_refs = v
            .items(v.get(item, "parentRefs"))
            .into_iter()
            .filter(|p| p.as_mapping().is_some())
            .map(|p| self.reference(v, p, false))
            .collect();
        let hostnames = if kind.has_hostnames() {
            v.items(v.get(item, "hostnames")).into_iter().filter_map(|h| v.spanned(h, true)).collect()
        } else {
            Box::default()
        };
        let mut rules: Vec<Rule> = Vec::new();
        let written = v.items(v.get(item, "rules"));
        let single = (self.generation == Generation::V4 && self.services.len() == 1).then(|| &self.services[0]);
        if written.is_empty()
            && let Some(s) = single
        {
            // `_autoDetectService.tpl`: one rule to the only Service, at its primary port.
            let to = self.backend_to(v, s, item.span, key_span);
            rules.push(Rule {
                name: None,
                backend_refs: vec![to].into_boxed_slice(),
                extension_refs: Box::default(),
                fields: RuleFields::default(),
                span: item.span,
            });
        }
        for rule in written.into_iter().filter(|r| r.as_mapping().is_some()) {
            rules.push(self.rule(v, kind, rule, single));
        }
        let body = Body::Route(Box::new(Route { kind, parent_refs, hostnames, rules: rules.into_boxed_slice() }));
        let own = self.item_labels(v, item);
        let kind_span = kind_node.map_or(key_span, |k| k.span);
        let mut o = self.object(
            TypeMeta::of(GATEWAY_GROUP, kind.kind()),
            Spanned::new(name.into(), name_span.unwrap_or(key_span)),
            (key_span, item),
            own,
            r,
            body,
        );
        o.kind_span = kind_span;
        Some(o)
    }

    fn rule(&self, v: &Values<'a>, kind: RouteKind, rule: &'a Node, single: Option<&ServiceItem<'a>>) -> Rule {
        let mut backend_refs = Vec::new();
        for b in v.items(v.get(rule, "backendRefs")).into_iter().filter(|b| b.as_mapping().is_some()) {
            if let Some(to) = self.backend(v, b, single) {
                backend_refs.push(to);
            }
        }
        let http_or_grpc = matches!(kind, RouteKind::Http | RouteKind::Grpc);
        let extension_refs = if http_or_grpc {
            v.items(v.get(rule, "filters"))
                .into_iter()
                .filter(|f| v.get(f, "type").and_then(|t| v.raw(t)).as_deref() == Some("ExtensionRef"))
                .filter_map(|f| v.get(f, "extensionRef").filter(|e| e.as_mapping().is_some()))
                .map(|e| self.reference(v, e, false))
                .collect()
        } else {
            Box::default()
        };
        // What the chart passes of a rule's own fields: `timeouts` (HTTPRoute) and `filters`
        // (HTTPRoute, GRPCRoute); never `retry`.
        let read = RuleFields::read(rule);
        let mut fields = RuleFields::default();
        for (path, passed) in [("timeouts", kind == RouteKind::Http), ("filters/*/cors", http_or_grpc)] {
            if let Some(bit) = RuleFields::bit(path).filter(|b| passed && read.has(*b)) {
                fields = fields.with(bit);
            }
        }
        let name = match self.generation {
            Generation::V4 => v.get(rule, "name").and_then(|n| v.spanned(n, true)),
            Generation::V3 => None,
        };
        Rule { name, backend_refs: backend_refs.into_boxed_slice(), extension_refs, fields, span: rule.span }
    }

    /// A backendRef of the values as `classes/_route.tpl` renders it.
    fn backend(&self, v: &Values<'a>, b: &'a Node, single: Option<&ServiceItem<'a>>) -> Option<BackendRef> {
        let name = v.get(b, "name").filter(|n| v.truthy(n));
        let identifier = v.get(b, "identifier").filter(|n| v.truthy(n));
        let port = v.get(b, "port").filter(|n| v.truthy(n));
        let mut out = self.reference(v, b, true);
        let service = match (self.generation, name, identifier) {
            (Generation::V4, Some(_), _) => None,
            (Generation::V4, None, Some(id)) => {
                let key = v.raw(id).unwrap_or_default();
                match self.service_by_key(&key) {
                    Some(s) => Some((s, id.span)),
                    // The chart fails ("No enabled Service found with this identifier"): the
                    // key is shown as the name, reported as not found where it is written.
                    None => {
                        out.name = Some(Spanned::new(key.into(), id.span));
                        None
                    }
                }
            }
            (Generation::V4, None, None) => Some((single?, b.span)),
            // 3.x: `name` is a Service key first, else a Service name as written.
            (Generation::V3, Some(n), _) => v.raw(n).and_then(|k| self.service_by_key(&k)).map(|s| (s, n.span)),
            (Generation::V3, None, _) => return None,
        };
        if let Some((s, span)) = service {
            out.name = Some(Spanned::new(s.name.as_str().into(), span));
            out.port = match port {
                Some(p) => self.port_of(v, s, p),
                None => s.primary_port(v).map(|n| Spanned::new(n, span)),
            };
        }
        Some(out)
    }

    /// A backendRef to Service `s`, as the automatic Service detection writes it.
    fn backend_to(&self, v: &Values<'a>, s: &ServiceItem<'a>, span: Span, name_span: Span) -> BackendRef {
        let port = s.primary_port(v).map(|n| Spanned::new(n, name_span));
        RefFields { name: Some(Spanned::new(s.name.as_str().into(), name_span)), port, span, ..RefFields::default() }
    }

    /// A backendRef's `port` to Service `s`: a number, or (5.x) the number of the port so named.
    fn port_of(&self, v: &Values<'a>, s: &ServiceItem<'a>, p: &'a Node) -> Option<Spanned<i64>> {
        if let Some(n) = v.int(p) {
            return Some(Spanned::new(n, v.node(p).span));
        }
        let wanted = v.raw(p)?;
        let number = s.ports.iter().find(|(name, ..)| *name == wanted).and_then(|q| q.2)?;
        Some(Spanned::new(number, v.node(p).span))
    }

    /// A reference as the values write it (`group`, `kind`, `name`, `namespace`,
    /// `sectionName`, `port`); a backendRef's `name` through `tpl`.
    fn reference(&self, v: &Values<'a>, n: &'a Node, backend: bool) -> RefFields {
        let text = |k: &str, tpl: bool| v.get(n, k).and_then(|x| v.spanned(x, tpl));
        let group = v.get(n, "group").map(|g| match v.raw(g) {
            Some(s) if s != "core" => Spanned::new(str_of(&s), g.span),
            _ => Spanned::new(Str::default(), g.span),
        });
        RefFields {
            group: group.map(Box::new),
            kind: text("kind", false).map(Box::new),
            name: text("name", backend),
            namespace: text("namespace", false).map(Box::new),
            section_name: if backend { None } else { text("sectionName", false).map(Box::new) },
            port: v.get(n, "port").and_then(|p| v.int(p).map(|x| Spanned::new(x, p.span))),
            span: n.span,
            templated: false,
        }
    }
}

/// Labels sorted by key, the last of a repeated key winning (the item's own over the chart's).
fn sorted_labels(mut labels: Vec<(Str, Str)>) -> Box<[(Str, Str)]> {
    labels.reverse();
    labels.sort_by(|a, b| a.0.cmp(&b.0));
    labels.dedup_by(|later, kept| later.0 == kept.0);
    labels.into_boxed_slice()
}
