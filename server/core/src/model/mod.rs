//! Typed views of the Kubernetes objects found in a file: just what policylens reasons about,
//! each field with the span that diagnostics point at. Secrets are never read beyond metadata.

pub mod app_template;
mod extract;
pub mod gitops;
mod kustomize;
mod labels;
mod moved;
mod placeholder;
mod refs;
mod substitute;
#[cfg(test)]
mod tests;
mod time;
mod type_meta;

pub use extract::{
    HELM_CHART_ITEM, PathStep, extract_document, extract_objects, helm_chart_items, spec_path_steps, spec_refs_at,
};
pub use kustomize::{
    HelmChart, Kustomization, Replacement, ReplacementEntry, ReplacementSource, ReplacementTarget, ResSelector,
    is_kustomization_file, is_remote, labels_match,
};
pub use labels::{LabelExpr, LabelSelector};
pub use placeholder::{is_binding, is_placeholder, normalize_placeholder};
pub use refs::{GATEWAY_GROUP, GroupKind, ObjectKey, Spanned, Str, is_core_kind, normalize_group, str_of};
pub use substitute::Variables;
pub use time::Timestamp;
pub use type_meta::TypeMeta;

use std::sync::Arc;

use crate::syntax::{Node, PackedNode, Span};

/// A Kubernetes object read from one YAML document (or one item of a `kind: List`).
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// The API group (from `apiVersion`) and kind, shared by every object of the pair.
    pub meta: &'static TypeMeta,
    /// The span of the `kind` value.
    pub kind_span: Span,
    pub name: Spanned<Str>,
    /// `metadata.namespace` as written; the workspace supplies the default.
    pub namespace: Option<Spanned<Str>>,
    /// `metadata.labels`, sorted by key.
    pub labels: Box<[(Str, Str)]>,
    /// Boxed: rare in workspace files (the API server sets it), and 24 bytes inline.
    pub creation_timestamp: Option<Box<Timestamp>>,
    /// The object's whole mapping.
    pub span: Span,
    /// Index of the document in its file.
    pub doc: u32,
    /// The name or namespace is a placeholder (docs/semantics.md §4.10: a template action,
    /// an envsubst variable, ...), held as written: it matches only the same placeholder.
    pub templated: bool,
    /// The document holds `${` and does not opt out of Flux's substitution
    /// (`kustomize.toolkit.fluxcd.io/substitute: disabled`): a Flux Kustomization with
    /// variables gives its instance substituted values (`Object::substituted`).
    pub substitutable: bool,
    /// Its document has a YAML syntax error: what it seems to lack may lie past the break,
    /// and nothing is reported on it but the `yaml-syntax` error (docs/semantics.md §4.1).
    pub broken: bool,
    /// What the document says of whether it is meant to be applied (docs/semantics.md §4.8).
    pub intent: Intent,
    pub body: Body,
}

/// Whether a document is meant to be applied, as it says itself (docs/semantics.md §4.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Intent {
    #[default]
    Applied,
    /// A top-level key no API server accepts (a test harness's `_err:`, `_expected:`): an input
    /// meant to fail.
    MeantToFail,
    /// An empty `spec:` or a `TODO(user)` comment: a scaffold (kubebuilder's `config/samples`)
    /// when it lies where scaffolds are written.
    ScaffoldLike,
}

impl Object {
    /// The API group from `apiVersion` (`""` for the core group).
    pub fn group(&self) -> &'static str {
        &self.meta.group
    }

    pub fn kind(&self) -> &'static str {
        &self.meta.kind
    }

    pub fn group_kind(&self) -> GroupKind {
        GroupKind::new(self.group(), self.kind())
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok().map(|i| self.labels[i].1.as_str())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    // Every variant bigger than a Service's is boxed: Services are most of a workspace's
    // objects, and each object is as big as the biggest variant.
    GatewayClass(Box<GatewayClass>),
    Gateway(Box<Gateway>),
    ListenerSet(Box<ListenerSet>),
    Route(Box<Route>),
    Service(Service),
    Namespace,
    ReferenceGrant(Box<ReferenceGrant>),
    Crd(Box<Crd>),
    /// A Helm release (Flux HelmRelease) or a Flux chart source: what renders objects the
    /// files do not hold (`model::app_template` renders the app-template chart's).
    Helm(Box<Helm>),
    /// Any other kind: a policy candidate when it has reference fields or its kind is in the
    /// catalog.
    Other(Box<Other>),
}

/// A Helm release or a Flux source of charts.
#[derive(Clone, Debug, PartialEq)]
pub enum Helm {
    Release(Release),
    /// A Flux `OCIRepository` or `HelmChart`: the chart it serves (the last segment of an
    /// OCI `spec.url`, a HelmChart's `spec.chart`).
    Source {
        chart: Option<Str>,
    },
}

/// A Flux `HelmRelease`: which chart it installs, whether its values are all in the file, and
/// how many objects the chart renders from them right after it in its file's objects (the
/// app-template chart's Services and routes, `model::app_template`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Release {
    pub chart: ChartRef,
    /// The release name (Flux: `spec.releaseName`, else `<spec.targetNamespace>-<name>`,
    /// else `metadata.name`).
    pub release_name: Str,
    /// `spec.targetNamespace`: the rendered objects' namespace, whatever applies the release.
    pub target_namespace: Option<Spanned<Str>>,
    /// `spec.valuesFrom` or `spec.postRenderers`: values or output the file does not hold.
    pub open: bool,
    /// The objects rendered from the values, which follow the release in its file.
    pub rendered: u32,
}

/// The chart a release installs.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum ChartRef {
    /// `spec.chart.spec.chart`, with `spec.chart.spec.version` when set.
    Named { chart: Str, version: Option<Str> },
    /// `spec.chartRef`: a source object (`OCIRepository`, `HelmChart`) serving the chart.
    Source { kind: Str, name: Str, namespace: Option<Str> },
    #[default]
    Unknown,
}

impl Object {
    /// The release of `self`'s Helm document, when `self` is one.
    pub fn release(&self) -> Option<&Release> {
        match &self.body {
            Body::Helm(h) => match &**h {
                Helm::Release(r) => Some(r),
                Helm::Source { .. } => None,
            },
            Body::Other(o) => o.release.as_ref()?.rendered.as_deref(),
            _ => None,
        }
    }
}

/// The index of the release that rendered `objects[i]` (objects a chart renders follow their
/// release in its file, `Release::rendered`), when a release did.
pub fn rendered_by(objects: &[Object], i: usize) -> Option<usize> {
    let doc = objects.get(i)?.doc;
    (0..i).rev().take_while(|&g| objects[g].doc == doc).find_map(|g| {
        let r = objects[g].release()?;
        (i <= g + r.rendered as usize).then_some(g)
    })
}

impl ChartRef {
    /// The chart is app-template by its own name (a `chartRef` is checked against its source).
    pub fn names_app_template(&self) -> bool {
        matches!(self, ChartRef::Named { chart, .. } if chart == app_template::CHART)
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct GatewayClass {
    pub controller_name: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Gateway {
    pub class_name: Option<Spanned<Str>>,
    pub listeners: Vec<Listener>,
    /// `spec.allowedListeners.namespaces.from`: which ListenerSets may attach (`None`, the
    /// default, admits none).
    pub allowed_listeners: FromNamespaces,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Listener {
    pub name: Spanned<Str>,
    pub port: Option<i64>,
    pub protocol: Option<String>,
    pub hostname: Option<Spanned<Str>>,
    pub allowed_routes: AllowedRoutes,
    /// The listener's list item.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct AllowedRoutes {
    pub namespaces: FromNamespaces,
    /// Empty: the kinds the listener's protocol supports.
    pub kinds: Vec<RouteGroupKind>,
    pub span: Option<Span>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub enum FromNamespaces {
    #[default]
    Same,
    All,
    Selector(LabelSelector),
    /// Admits nothing (the default of a Gateway's `allowedListeners`).
    None,
    /// A value the API does not define; admits nothing.
    Unknown(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct RouteGroupKind {
    /// `None` when absent: defaults to `gateway.networking.k8s.io`.
    pub group: Option<String>,
    pub kind: String,
}

/// `ListenerSet` / `XListenerSet`: listeners attached to a parent Gateway.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ListenerSet {
    pub parent_ref: Option<ParentRef>,
    pub listeners: Vec<Listener>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RouteKind {
    Http,
    Grpc,
    Tls,
    Tcp,
    Udp,
}

impl RouteKind {
    pub fn from_kind(kind: &str) -> Option<RouteKind> {
        Some(match kind {
            "HTTPRoute" => RouteKind::Http,
            "GRPCRoute" => RouteKind::Grpc,
            "TLSRoute" => RouteKind::Tls,
            "TCPRoute" => RouteKind::Tcp,
            "UDPRoute" => RouteKind::Udp,
            _ => return None,
        })
    }

    pub fn kind(self) -> &'static str {
        match self {
            RouteKind::Http => "HTTPRoute",
            RouteKind::Grpc => "GRPCRoute",
            RouteKind::Tls => "TLSRoute",
            RouteKind::Tcp => "TCPRoute",
            RouteKind::Udp => "UDPRoute",
        }
    }

    /// Whether the route kind carries `spec.hostnames`.
    pub fn has_hostnames(self) -> bool {
        matches!(self, RouteKind::Http | RouteKind::Grpc | RouteKind::Tls)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Route {
    pub kind: RouteKind,
    // Boxed slices: read once, never grown, and 8 bytes smaller than vectors.
    pub parent_refs: Box<[ParentRef]>,
    pub hostnames: Box<[Spanned<Str>]>,
    pub rules: Box<[Rule]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// Only named rules are targetable (GEP-995).
    pub name: Option<Spanned<Str>>,
    pub backend_refs: Box<[BackendRef]>,
    /// The `extensionRef` of each `filters[]` item of `type: ExtensionRef` (a local object
    /// reference: group, kind, name), in order.
    pub extension_refs: Box<[ExtensionRef]>,
    /// Which of the rule's fields that policies may defer to it sets (`RuleFields::of`):
    /// whether a kind's shadowed target field can be set here, without reading the text again.
    pub fields: RuleFields,
    pub span: Span,
}

/// A rule's own fields a policy kind may defer to (`timeouts`, `retry`, a filter's `cors`), as
/// bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleFields(u8);

impl RuleFields {
    /// Paths below a rule (`*`: every item), each a bit.
    const PATHS: [&'static [&'static str]; 3] = [&["timeouts"], &["retry"], &["filters", "*", "cors"]];

    /// The bit of the field at `path` below a rule (`/`-separated, as in a JSON pointer), `None`
    /// for a field not tracked (then the text must be read).
    pub fn bit(path: &str) -> Option<RuleFields> {
        let segs: Vec<&str> = path.split('/').collect();
        Self::PATHS.iter().position(|p| segs.starts_with(p)).map(|i| RuleFields(1 << i))
    }

    pub fn read(rule: &crate::syntax::Node) -> RuleFields {
        fn set(n: &crate::syntax::Node, path: &[&str]) -> bool {
            match path.split_first() {
                None => !n.is_null(),
                Some((&"*", rest)) => n.as_sequence().unwrap_or_default().iter().any(|i| set(i, rest)),
                Some((key, rest)) => n.get(key).is_some_and(|c| set(c, rest)),
            }
        }
        let mut bits = 0;
        for (i, p) in Self::PATHS.iter().enumerate() {
            if set(rule, p) {
                bits |= 1 << i;
            }
        }
        RuleFields(bits)
    }

    pub fn has(self, other: RuleFields) -> bool {
        self.0 & other.0 != 0
    }

    pub fn with(self, other: RuleFields) -> RuleFields {
        RuleFields(self.0 | other.0)
    }
}

/// A reference field as written. Absent fields are `None`; `group: ""`, `group:` (null) and
/// `group: core` all read as `Some("")` with the value's span, except a null parentRef group,
/// which the API server defaults like an absent one (`None`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RefFields {
    // Every field but `name` is boxed: most references leave them out (a backendRef is
    // usually a name and a port), and an absent boxed field costs 8 bytes instead of 32.
    pub group: Option<Box<Spanned<Str>>>,
    pub kind: Option<Box<Spanned<Str>>>,
    pub name: Option<Spanned<Str>>,
    pub namespace: Option<Box<Spanned<Str>>>,
    pub section_name: Option<Box<Spanned<Str>>>,
    pub port: Option<Spanned<i64>>,
    /// The whole reference (its mapping).
    pub span: Span,
    /// A field holds a placeholder (held as written): the reference resolves only to an object
    /// with the same placeholder, and is never reported when none has it.
    pub templated: bool,
}

impl RefFields {
    /// `Service/shop/api`: the kind (`default_kind` when the reference leaves it out),
    /// namespace (`own_ns`, the referrer's, when it leaves it out) and name it spells.
    pub fn spelled(&self, default_kind: &str, own_ns: &str) -> String {
        let kind = self.kind.as_ref().map_or(default_kind, |k| k.value.as_str());
        let ns = self.namespace.as_ref().map_or(own_ns, |n| n.value.as_str());
        let name = self.name.as_ref().map_or("", |n| n.value.as_str());
        format!("{kind}/{ns}/{name}")
    }
}

/// A route's `parentRefs[]` item (defaults: group `gateway.networking.k8s.io`, kind `Gateway`).
pub type ParentRef = RefFields;
/// A rule's `backendRefs[]` item (defaults: group core, kind `Service`).
pub type BackendRef = RefFields;
/// A policy's `targetRef` or `targetRefs[]` item.
pub type TargetRef = RefFields;
/// A route rule filter's `extensionRef` (group, kind and name; always in the route's namespace).
pub type ExtensionRef = RefFields;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Service {
    pub ports: Box<[ServicePort]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ServicePort {
    pub name: Option<Spanned<Str>>,
    pub port: Option<i64>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct ReferenceGrant {
    pub from: Vec<GrantFrom>,
    pub to: Vec<GrantTo>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GrantFrom {
    pub group: String,
    pub kind: String,
    pub namespace: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GrantTo {
    pub group: String,
    pub kind: String,
    pub name: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CrdScope {
    #[default]
    Namespaced,
    Cluster,
}

/// A CustomResourceDefinition: what kind it defines and whether it is labelled as a policy.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Crd {
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub scope: CrdScope,
    /// The value of the `gateway.networking.k8s.io/policy` label, as written.
    pub policy_label: Option<String>,
    pub versions: Vec<CrdVersion>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CrdVersion {
    pub name: String,
    pub served: bool,
    pub storage: bool,
    /// `schema.openAPIV3Schema`, kept for list-map merge keys and field docs.
    pub schema: Option<Arc<Node>>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Other {
    pub policy: PolicyFields,
    /// `status.ancestors` as a controller wrote them, read for objects with reference
    /// fields (policies): a live cluster's objects carry them.
    pub reported: Option<Box<[ReportedAncestor]>>,
    /// What the API server set in `metadata` (read, like `reported`, for objects with
    /// reference fields): a live cluster's policies carry it.
    pub server: Option<Box<ServerMeta>>,
    /// A Gloo Edge VirtualService's `spec.virtualHost.optionsConfigRefs.delegateOptions[]`
    /// (`name`, `namespace`): the VirtualHostOptions merged into its virtual host.
    pub delegate_options: Box<[ExtensionRef]>,
    /// What a Flux Kustomization, an Argo CD Application or a variables' ConfigMap says about
    /// what is applied (docs/semantics.md §4.7).
    pub gitops: Option<Box<gitops::GitOps>>,
    /// A Helm release (a Flux HelmRelease, an Argo CD Application with a Helm source): what it
    /// renders is not in the files (docs/semantics.md §4.11).
    pub release: Option<Box<HelmRelease>>,
}

/// What policylens reads of a Helm release: where its objects go and which chart it installs.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct HelmRelease {
    /// The namespace its objects are installed in when it names one (Flux
    /// `spec.targetNamespace`, Argo CD `spec.destination.namespace`); else the release's own.
    pub namespace: Option<Str>,
    /// The chart's name (Flux `spec.chart.spec.chart` or `spec.chartRef.name`, Argo CD
    /// `spec.source.chart`), when written.
    pub chart: Option<Str>,
    /// An Argo CD Helm source of the app-template chart with its values in the file: the
    /// release its objects are rendered from, which follow the Application in its file.
    pub rendered: Option<Box<Release>>,
}

/// `metadata` fields only the API server writes.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ServerMeta {
    /// `metadata.generation`: bumped by every change of the spec.
    pub generation: Option<i64>,
    /// `metadata.resourceVersion`: which version of the object was read.
    pub resource_version: Option<Str>,
}

/// One entry of a policy's `status.ancestors` (GEP-713 `PolicyAncestorStatus`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ReportedAncestor {
    /// `ancestorRef` in the §2.1 form (`Gateway/infra/edge#https`); the namespace defaults
    /// to the policy's.
    pub ancestor: String,
    pub controller: Str,
    pub conditions: Box<[ReportedCondition]>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct ReportedCondition {
    pub type_: Str,
    /// `True`, `False` or `Unknown`.
    pub status: Str,
    pub reason: Str,
    pub message: Str,
    /// The `metadata.generation` the controller had read when it wrote the condition.
    pub observed_generation: Option<i64>,
}

impl ReportedCondition {
    /// Written before the spec's last change: the controller had not seen generation
    /// `generation` yet.
    pub fn is_stale(&self, generation: Option<i64>) -> bool {
        matches!((self.observed_generation, generation), (Some(seen), Some(now)) if seen < now)
    }
}

impl ReportedAncestor {
    /// The `Accepted` condition's status, when the controller wrote one.
    pub fn accepted(&self) -> Option<bool> {
        self.accepted_condition().map(|c| c.status == "True")
    }

    pub fn accepted_condition(&self) -> Option<&ReportedCondition> {
        self.conditions.iter().find(|c| c.type_ == "Accepted")
    }

    /// [`ReportedAncestor::accepted`] unless the condition is stale for `generation`: a
    /// status written before the spec changed says nothing about the spec as it is.
    pub fn fresh_accepted(&self, generation: Option<i64>) -> Option<bool> {
        self.accepted_condition().filter(|c| !c.is_stale(generation)).map(|c| c.status == "True")
    }
}

/// Policy kinds a route rule may attach with an `ExtensionRef` filter naming them, so that they
/// need no reference field (Gloo Gateway RouteOption, kgateway TrafficPolicy). The catalog's
/// `extension_ref` flag comes from here: extraction keeps these kinds' specs without targetRefs.
pub const EXTENSION_REF_KINDS: &[(&str, &str)] =
    &[("gateway.solo.io", "RouteOption"), ("gateway.kgateway.dev", "TrafficPolicy")];

/// The spec fields read as references (into [`PolicyFields`]), never as policy content.
pub const REF_FIELDS: &[&str] = &["targetRef", "targetRefs", "targetSelectors"];

/// The attachment fields of a (candidate) policy.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PolicyFields {
    /// `spec` without its reference fields (read above), kept when the object has any
    /// reference field: the effective-policy computation merges it. Packed: it is read once
    /// per analysis and a tree is several times its text.
    pub spec: Option<PackedNode>,
    pub spec_span: Option<Span>,
    /// `spec.targetRef`: the key's span and the reference (`None` when not a mapping).
    pub target_ref: Option<(Span, Option<TargetRef>)>,
    /// `spec.targetRefs`: the key's span and the items that are mappings.
    pub target_refs: Option<RefList>,
    /// `spec.targetSelectors`.
    pub target_selectors: Option<SelectorList>,
    /// `spec.selector` or `spec.workloadSelector` (Istio's workload selectors) is set.
    pub workload_selector: bool,
    /// `metadata.annotations` has `istio.io/ignore-policy-attachment: "true"`: Istio leaves
    /// the policy to another controller (BackendTLSPolicy, XBackendTrafficPolicy).
    pub istio_opt_out: bool,
}

impl PolicyFields {
    pub fn has_ref_fields(&self) -> bool {
        self.target_ref.is_some() || self.target_refs.is_some() || self.target_selectors.is_some()
    }

    /// Every reference of `targetRef` and `targetRefs`, in order of appearance.
    pub fn refs(&self) -> impl Iterator<Item = &TargetRef> {
        let one = self.target_ref.as_ref().and_then(|(_, r)| r.as_ref());
        let many = self.target_refs.iter().flat_map(|l| l.items.iter());
        one.into_iter().chain(many)
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct RefList {
    pub key_span: Span,
    /// The value's span (the list, or the wrong-typed value).
    pub span: Span,
    pub items: Vec<TargetRef>,
    /// The value is a sequence (an empty list is `is_list && items.is_empty()`).
    pub is_list: bool,
    /// Count of sequence items, including non-mapping ones.
    pub len: usize,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct SelectorList {
    pub key_span: Span,
    pub span: Span,
    pub items: Vec<TargetSelector>,
}

/// A `targetSelectors[]` item (Envoy Gateway, kgateway, GEP-713).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TargetSelector {
    pub group: Option<Spanned<Str>>,
    pub kind: Option<Spanned<Str>>,
    pub selector: LabelSelector,
    /// `namespaces.from` (Envoy Gateway); `None` means the policy's own namespace.
    pub namespaces: Option<FromNamespaces>,
    pub span: Span,
}

/// What a section of a kind is called in messages.
pub fn section_noun(kind: &str) -> &'static str {
    match kind {
        "Gateway" | "ListenerSet" | "XListenerSet" => "listener",
        // Istio ServiceEntry and Envoy Gateway Backend ports are sections too.
        "Service" | "ServiceEntry" | "Backend" => "port",
        k if k.ends_with("Route") => "rule",
        _ => "section",
    }
}
