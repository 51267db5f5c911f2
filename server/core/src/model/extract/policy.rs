//! The attachment fields of any other kind: `spec.targetRef`, `spec.targetRefs`,
//! `spec.targetSelectors`.

use super::read::{self, CollectExact};
use crate::model::{
    PolicyFields, REF_FIELDS, RefList, ReportedAncestor, ReportedCondition, SelectorList, ServerMeta, Str,
    TargetSelector,
};
use crate::syntax::{Node, NodeKind, PackedNode};

/// `by_filter`: the kind may be attached by an ExtensionRef filter, so its spec is kept even
/// without reference fields.
pub(super) fn policy_fields(spec: Option<&Node>, by_filter: bool) -> PolicyFields {
    let Some(spec) = spec else {
        return PolicyFields::default();
    };
    let mut p = PolicyFields {
        spec_span: Some(spec.span),
        workload_selector: spec.get("selector").or_else(|| spec.get("workloadSelector")).is_some(),
        ..PolicyFields::default()
    };
    if spec.as_mapping().is_none() {
        return p;
    }
    if let Some(e) = spec.entry("targetRef") {
        let target = e.value.as_mapping().map(|_| read::ref_fields(&e.value));
        p.target_ref = Some((e.key.span, target));
    }
    if let Some(e) = spec.entry("targetRefs") {
        let items = e.value.as_sequence();
        p.target_refs = Some(RefList {
            key_span: e.key.span,
            span: e.value.span,
            items: read::mappings(Some(&e.value)).map(read::ref_fields).collect_exact(),
            is_list: items.is_some(),
            len: items.map_or(0, <[Node]>::len),
        });
    }
    if let Some(e) = spec.entry("targetSelectors") {
        p.target_selectors = Some(SelectorList {
            key_span: e.key.span,
            span: e.value.span,
            items: read::mappings(Some(&e.value)).map(target_selector).collect_exact(),
        });
    }
    // Only policies need their spec later (merging); most other objects must not pin theirs.
    if p.has_ref_fields() || by_filter {
        let entries = spec
            .as_mapping()
            .unwrap_or(&[])
            .iter()
            .filter(|e| !e.key.as_str().is_some_and(|k| REF_FIELDS.contains(&k)));
        let kept = Node { span: spec.span, kind: NodeKind::Mapping(entries.cloned().collect()) };
        p.spec = Some(PackedNode::pack(&kept));
    }
    p
}

fn target_selector(item: &Node) -> TargetSelector {
    TargetSelector {
        group: item.get("group").and_then(read::group_value),
        kind: item.get("kind").and_then(read::spanned_str),
        selector: read::label_selector(item),
        namespaces: item.get("namespaces").filter(|n| n.as_mapping().is_some()).map(read::from_namespaces),
        span: item.span,
    }
}

/// `status.ancestors` (GEP-713 `PolicyAncestorStatus`): which ancestor, which controller,
/// its conditions. `None` when there is none. An ancestor without a namespace is in the
/// policy's (`own_ns`, as written; cluster-scoped ancestors have none).
pub(super) fn reported(status: Option<&Node>, own_ns: Option<&str>) -> Option<Box<[ReportedAncestor]>> {
    let ancestors: Vec<ReportedAncestor> = read::mappings(status.and_then(|s| s.get("ancestors")))
        .map(|a| {
            let r = a.get("ancestorRef");
            let field = |k: &str| read::str_at(r, k).unwrap_or("");
            let group = field("group");
            let kind = match field("kind") {
                "" => "Gateway",
                k => k,
            };
            let kind = match group {
                "" | crate::model::GATEWAY_GROUP => kind.to_owned(),
                g => format!("{kind}.{g}"),
            };
            let ns = match (field("namespace"), own_ns) {
                ("", _) if kind == "GatewayClass" => None,
                ("", own) => own,
                (ns, _) => Some(ns),
            };
            let mut ancestor = match ns {
                None => format!("{kind}/{}", field("name")),
                Some(ns) => format!("{kind}/{ns}/{}", field("name")),
            };
            if let Some(s) = read::str_at(r, "sectionName") {
                ancestor.push('#');
                ancestor.push_str(s);
            }
            let conditions = read::mappings(a.get("conditions"))
                .map(|c| {
                    let f = |k: &str| Str::from(read::str_at(Some(c), k).unwrap_or(""));
                    ReportedCondition {
                        type_: f("type"),
                        status: f("status"),
                        reason: f("reason"),
                        message: f("message"),
                        observed_generation: c.get("observedGeneration").and_then(Node::as_i64),
                    }
                })
                .collect();
            ReportedAncestor {
                ancestor,
                controller: read::str_at(Some(a), "controllerName").unwrap_or("").into(),
                conditions,
            }
        })
        .collect();
    (!ancestors.is_empty()).then(|| ancestors.into_boxed_slice())
}

/// `metadata.generation` and `metadata.resourceVersion`; `None` when neither is written (files
/// rarely carry them).
pub(super) fn server_meta(meta: Option<&Node>) -> Option<Box<ServerMeta>> {
    let generation = meta.and_then(|m| m.get("generation")).and_then(Node::as_i64);
    let resource_version = read::str_at(meta, "resourceVersion").map(Str::from);
    (generation.is_some() || resource_version.is_some()).then(|| Box::new(ServerMeta { generation, resource_version }))
}
