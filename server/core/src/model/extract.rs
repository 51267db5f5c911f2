//! Syntax tree → objects.
//!
//! Extraction is total: a value of the wrong type reads as absent, never as an error, because the
//! diagnostics about such values are computed elsewhere from the syntax tree.

mod core_kinds;
mod gateway;
mod helm;
mod policy;
mod read;
mod release;
mod route;
mod spec_refs;

pub use helm::{HELM_CHART_ITEM, helm_chart_items};
pub use spec_refs::{PathStep, spec_path_steps, spec_refs_at};

use super::refs::GATEWAY_GROUP;
use super::{Body, Intent, Object, Other, RouteKind, Str, Timestamp, TypeMeta, normalize_group};
use crate::syntax::{Document, Node, ParsedFile};

/// Experimental copies of Gateway API kinds (XListenerSet, older xRoutes) live here.
const GATEWAY_X_GROUP: &str = "gateway.networking.x-k8s.io";
const CRD_GROUP: &str = "apiextensions.k8s.io";
const ISTIO_NETWORKING_GROUP: &str = "networking.istio.io";
const ENVOY_GATEWAY_GROUP: &str = "gateway.envoyproxy.io";
const AI_GATEWAY_GROUP: &str = "aigateway.envoyproxy.io";
const GLOO_EDGE_GROUP: &str = "gateway.solo.io";

/// Every Kubernetes object of a parsed file (documents and `kind: List` items), `text` the
/// file's text (what a chart's values alias and template).
pub fn extract_objects(file: &ParsedFile, text: &str) -> Vec<Object> {
    let mut out = Vec::with_capacity(file.documents.len());
    for (i, doc) in file.documents.iter().enumerate() {
        extract_document(doc, u32::try_from(i).unwrap_or(u32::MAX), text, &mut out);
    }
    out
}

/// The objects of the document at `index` of its file (itself, or a `kind: List`'s items; a
/// Helm release is followed by what its chart renders, `helm::render`).
pub fn extract_document(doc: &Document, index: u32, text: &str, out: &mut Vec<Object>) {
    let Some(root) = &doc.root else { return };
    let from = out.len();
    if let Some(items) = list_items(root) {
        out.extend(items.iter().filter_map(|item| read_object(item, index)));
    } else if let Some(obj) = read_object(root, index) {
        let at = out.len();
        out.push(obj);
        if let Some(Body::Other(o)) = out.get_mut(at).map(|o| &mut o.body)
            && let Some(g) = o.gitops.as_deref_mut()
        {
            super::gitops::follow_aliases(g, root, text);
        }
        helm::render(root, text, at, out);
        helm::render_argo(root, text, at, out);
    }
    if doc.error.is_some() {
        for o in &mut out[from..] {
            o.broken = true;
        }
    }
}

/// The items of a `kind: List` (or `FooList`) document; `kubectl get -o yaml` writes these.
fn list_items(root: &Node) -> Option<&[Node]> {
    let kind = root.get("kind")?.as_str()?;
    if !kind.ends_with("List") {
        return None;
    }
    root.get("items")?.as_sequence()
}

fn read_object(root: &Node, doc: u32) -> Option<Object> {
    root.as_mapping()?;
    let api_version = root.get("apiVersion")?.as_str()?;
    let kind_node = root.get("kind")?;
    let kind = kind_node.as_str()?;
    let meta = root.get("metadata")?;
    let name = read::spanned_str(meta.get("name")?)?;
    // `group/version`, or a bare version for the core group.
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| normalize_group(g));
    let type_meta = TypeMeta::of(group, kind);
    // Kubernetes treats an empty namespace as unset; so does the workspace default.
    let namespace = meta.get("namespace").and_then(read::spanned_str).filter(|ns| !ns.value.is_empty());
    let labels = read::labels(meta.get("labels")).into_boxed_slice();
    let creation_timestamp =
        meta.get("creationTimestamp").and_then(Node::as_str).and_then(Timestamp::parse).map(Box::new);
    let body = read_body(root, group, kind, &labels);
    Some(Object {
        intent: intent(root),
        meta: type_meta,
        kind_span: kind_node.span,
        name,
        namespace,
        labels,
        creation_timestamp,
        span: root.span,
        doc,
        templated: false,
        substitutable: !opts_out_of_substitution(meta),
        broken: false,
        body,
    })
}

/// `kustomize.toolkit.fluxcd.io/substitute: disabled` as an annotation or a label.
fn opts_out_of_substitution(meta: &Node) -> bool {
    ["annotations", "labels"]
        .iter()
        .any(|k| meta.at(&[k, super::gitops::SUBSTITUTE_KEY]).and_then(Node::as_str) == Some("disabled"))
}

/// What the document says of being applied (docs/semantics.md §4.8): a top-level key that
/// starts with `_` is no field of any Kubernetes kind (test harnesses write `_err:` beside an
/// input their test expects the API server to reject); an empty `spec:` is how kubebuilder
/// scaffolds a sample (`config/samples`, with a `TODO(user)` comment the parser drops).
fn intent(root: &Node) -> Intent {
    let entries = root.as_mapping().unwrap_or_default();
    if entries.iter().any(|e| e.key.as_str().is_some_and(|k| k.starts_with('_'))) {
        return Intent::MeantToFail;
    }
    match root.get("spec") {
        Some(spec) if spec.is_null() || spec.as_mapping().is_some_and(<[_]>::is_empty) => Intent::ScaffoldLike,
        _ => Intent::Applied,
    }
}

/// Istio leaves a policy carrying this annotation (set to `"true"`) to other controllers
/// (Istio release notes, istio/istio issue 60122: on BackendTLSPolicy and XBackendTrafficPolicy).
pub const ISTIO_OPT_OUT: &str = "istio.io/ignore-policy-attachment";

fn read_body(root: &Node, group: &str, kind: &str, labels: &[(Str, Str)]) -> Body {
    let spec = || root.get("spec");
    if matches!(group, GATEWAY_GROUP | GATEWAY_X_GROUP)
        && let Some(rk) = RouteKind::from_kind(kind)
    {
        return Body::Route(Box::new(route::route(rk, spec())));
    }
    match (group, kind) {
        (GATEWAY_GROUP, "GatewayClass") => Body::GatewayClass(Box::new(gateway::gateway_class(spec()))),
        (GATEWAY_GROUP, "Gateway") => Body::Gateway(Box::new(gateway::gateway(spec()))),
        (GATEWAY_GROUP | GATEWAY_X_GROUP, "ListenerSet" | "XListenerSet") => {
            Body::ListenerSet(Box::new(gateway::listener_set(spec())))
        }
        ("", "Service") => Body::Service(core_kinds::service(spec())),
        // Backends whose ports are targetable sections, read as a Service's (docs/kinds.md).
        (ISTIO_NETWORKING_GROUP, "ServiceEntry") => Body::Service(core_kinds::service_entry(spec())),
        (ENVOY_GATEWAY_GROUP, "Backend") => Body::Service(core_kinds::envoy_gateway_backend(spec())),
        // Envoy AI Gateway makes an HTTPRoute of each with its parentRefs and hostnames
        // (`topology::generated`); its rules name AIServiceBackends, not Services.
        (AI_GATEWAY_GROUP, "AIGatewayRoute") => Body::Route(Box::new(route::generating_route(spec()))),
        (helm::FLUX_HELM_GROUP, "HelmRelease") => Body::Helm(Box::new(helm::release(root))),
        (helm::FLUX_SOURCE_GROUP, "OCIRepository" | "HelmChart") => Body::Helm(Box::new(helm::source(kind, spec()))),
        ("", "Namespace") => Body::Namespace,
        // ARCHITECTURE.md invariant 6: nothing below a Secret's metadata is read but the
        // variables a Flux Kustomization may substitute from it (`model/gitops.rs`).
        ("", "Secret") => {
            let gitops = super::gitops::read(root, group, kind).map(Box::new);
            Body::Other(Box::new(Other { gitops, ..Other::default() }))
        }
        (GATEWAY_GROUP, "ReferenceGrant") => Body::ReferenceGrant(Box::new(core_kinds::reference_grant(spec()))),
        (CRD_GROUP, "CustomResourceDefinition") => Body::Crd(Box::new(core_kinds::crd(spec(), labels))),
        _ => {
            // Kinds attached from the other end (a route's ExtensionRef filter, a Gloo Edge
            // VirtualService's `delegateOptions`) keep their spec without targetRefs.
            let by_filter = super::EXTENSION_REF_KINDS.contains(&(group, kind))
                || (group, kind) == (GLOO_EDGE_GROUP, "VirtualHostOption");
            let mut policy = policy::policy_fields(spec(), by_filter);
            policy.istio_opt_out =
                root.at(&["metadata", "annotations", ISTIO_OPT_OUT]).and_then(Node::as_str) == Some("true");
            let (reported, server) = if policy.has_ref_fields() {
                let own_ns = root.at(&["metadata", "namespace"]).and_then(Node::as_str);
                (policy::reported(root.get("status"), own_ns), policy::server_meta(root.get("metadata")))
            } else {
                (None, None)
            };
            let delegate_options = match (group, kind) {
                (GLOO_EDGE_GROUP, "VirtualService") => {
                    read::mappings(root.at(&["spec", "virtualHost", "optionsConfigRefs", "delegateOptions"]))
                        .map(read::ref_fields)
                        .collect()
                }
                _ => Box::default(),
            };
            let gitops = super::gitops::read(root, group, kind).map(Box::new);
            let release = release::helm_release(root, group, kind).map(Box::new);
            Body::Other(Box::new(Other { policy, reported, server, delegate_options, gitops, release }))
        }
    }
}
