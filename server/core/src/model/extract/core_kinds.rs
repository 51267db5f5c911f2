//! Service (and the implementations' port-bearing backends read as one), ReferenceGrant,
//! CustomResourceDefinition.

use std::sync::Arc;

use super::read::{self, CollectExact};
use crate::model::{
    Crd, CrdScope, CrdVersion, GrantFrom, GrantTo, ReferenceGrant, Service, ServicePort, Spanned, str_of,
};
use crate::syntax::Node;

const POLICY_LABEL: &str = "gateway.networking.k8s.io/policy";

pub(super) fn service(spec: Option<&Node>) -> Service {
    Service {
        ports: read::mappings(spec.and_then(|s| s.get("ports")))
            .map(|p| ServicePort {
                name: p.get("name").and_then(read::spanned_str),
                port: p.get("port").and_then(Node::as_i64),
                span: p.span,
            })
            .collect(),
    }
}

/// An Istio ServiceEntry's `spec.ports[]` (`number`, `name`): Istio matches a policy's
/// `sectionName` against a port's `name` (istio/istio `pilot/pkg/config/kube/gateway/backend_policies.go`).
pub(super) fn service_entry(spec: Option<&Node>) -> Service {
    Service {
        ports: read::mappings(spec.and_then(|s| s.get("ports")))
            .map(|p| ServicePort {
                name: p.get("name").and_then(read::spanned_str),
                port: p.get("number").and_then(Node::as_i64),
                span: p.span,
            })
            .collect(),
    }
}

/// An Envoy Gateway `Backend`'s endpoint ports, each named by its number: Envoy Gateway
/// matches a BackendTLSPolicy's `sectionName` against the decimal port of the backendRef
/// (envoyproxy/gateway `internal/gatewayapi/route.go` `getTargetBackendReference`), and a
/// Backend's traffic goes to its endpoints' ports. Unix-socket endpoints have none.
pub(super) fn envoy_gateway_backend(spec: Option<&Node>) -> Service {
    let mut ports: Vec<ServicePort> = Vec::new();
    for e in read::mappings(spec.and_then(|s| s.get("endpoints"))) {
        let Some(port) = ["fqdn", "ip"].iter().find_map(|k| e.get(k)?.get("port")) else { continue };
        let Some(number) = port.as_i64() else { continue };
        if ports.iter().any(|p| p.port == Some(number)) {
            continue;
        }
        let name = Some(Spanned::new(str_of(&number.to_string()), port.span));
        ports.push(ServicePort { name, port: Some(number), span: e.span });
    }
    Service { ports: ports.into_boxed_slice() }
}

/// A grant's `group` as the core-normalised text (absent, null, `""` and `core` are all core).
fn group(item: &Node) -> String {
    item.get("group").and_then(read::group_value).map(|g| g.value).unwrap_or_default().to_string()
}

/// `from[]` and `to[]` items missing their required `kind` (or `from[].namespace`) are left out:
/// such an entry grants nothing.
pub(super) fn reference_grant(spec: Option<&Node>) -> ReferenceGrant {
    let list = |key: &str| read::mappings(spec.and_then(|s| s.get(key)));
    ReferenceGrant {
        from: list("from")
            .filter_map(|f| {
                Some(GrantFrom {
                    group: group(f),
                    kind: read::str_at(Some(f), "kind")?.to_owned(),
                    namespace: read::str_at(Some(f), "namespace")?.to_owned(),
                })
            })
            .collect_exact(),
        to: list("to")
            .filter_map(|t| {
                Some(GrantTo {
                    group: group(t),
                    kind: read::str_at(Some(t), "kind")?.to_owned(),
                    name: read::str_at(Some(t), "name").map(str::to_owned),
                })
            })
            .collect_exact(),
    }
}

pub(super) fn crd(spec: Option<&Node>, labels: &[(crate::model::Str, crate::model::Str)]) -> Crd {
    let text =
        |path: &[&str]| spec.and_then(|s| s.at(path)).and_then(Node::as_str).map(str::to_owned).unwrap_or_default();
    let policy_label =
        labels.binary_search_by(|(k, _)| k.as_str().cmp(POLICY_LABEL)).ok().map(|i| labels[i].1.to_string());
    let scope = match spec.and_then(|s| s.get("scope")).and_then(Node::as_str) {
        Some("Cluster") => CrdScope::Cluster,
        _ => CrdScope::Namespaced,
    };
    // apiextensions v1beta1 kept one schema for all versions in `spec.validation`.
    let shared_schema = spec.and_then(|s| s.at(&["validation", "openAPIV3Schema"])).map(|n| Arc::new(n.clone()));
    let mut versions: Vec<CrdVersion> = read::mappings(spec.and_then(|s| s.get("versions")))
        .filter_map(|v| {
            Some(CrdVersion {
                name: v.get("name")?.as_str()?.to_owned(),
                served: v.get("served").and_then(read::as_bool).unwrap_or(false),
                storage: v.get("storage").and_then(read::as_bool).unwrap_or(false),
                schema: v
                    .at(&["schema", "openAPIV3Schema"])
                    .map(|n| Arc::new(n.clone()))
                    .or_else(|| shared_schema.clone()),
            })
        })
        .collect_exact();
    if versions.is_empty() {
        // v1beta1 also allowed a lone `spec.version`.
        if let Some(name) = spec.and_then(|s| s.get("version")).and_then(Node::as_str) {
            versions.push(CrdVersion { name: name.to_owned(), served: true, storage: true, schema: shared_schema });
        }
    }
    Crd {
        group: text(&["group"]),
        kind: text(&["names", "kind"]),
        plural: text(&["names", "plural"]),
        scope,
        policy_label,
        versions,
    }
}
