//! Merge-relevant facts from a policy kind's CRD schema: lists marked
//! `x-kubernetes-list-type: map` (merged item by item on their `x-kubernetes-list-map-keys`,
//! GEP-2649's listMapType) and mappings marked `x-kubernetes-map-type: atomic` (replaced
//! whole).
//!
//! Paths are those of the *spec proper*: the schema's `defaults`/`overrides` (and singular)
//! wrappers are looked through, as the effective spec never shows them.

use std::collections::HashMap;

use crate::model::{Body, Crd, GroupKind};
use crate::syntax::Node;
use crate::world::World;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaNode {
    children: HashMap<String, SchemaNode>,
    /// `additionalProperties`: the schema of every other key.
    any_key: Option<Box<SchemaNode>>,
    items: Option<Box<SchemaNode>>,
    /// Keys of a list-map. No keys: a list whose items are all distinct, kept from every
    /// policy (only built in: a CRD's list-map always names its keys).
    pub list_keys: Option<Vec<String>>,
    /// Kubernetes strategic merge patch order for this list: the patch's items first, in its
    /// order, then the base's items it does not name (GEP-2649's listMapType appends instead).
    pub patch_first: bool,
    /// A mapping replaced whole.
    pub atomic_map: bool,
}

impl SchemaNode {
    pub fn child(&self, key: &str) -> Option<&SchemaNode> {
        self.children.get(key).or(self.any_key.as_deref())
    }

    pub fn items(&self) -> Option<&SchemaNode> {
        self.items.as_deref()
    }

    /// Adds what `other` knows where this node knows nothing.
    fn join(&mut self, other: SchemaNode) {
        for (k, v) in other.children {
            match self.children.get_mut(&k) {
                Some(mine) => mine.join(v),
                None => {
                    self.children.insert(k, v);
                }
            }
        }
        if self.any_key.is_none() {
            self.any_key = other.any_key;
        }
        match (&mut self.items, other.items) {
            (Some(mine), Some(theirs)) => mine.join(*theirs),
            (None, theirs) => self.items = theirs,
            _ => {}
        }
        if self.list_keys.is_none() {
            self.list_keys = other.list_keys;
        }
        self.atomic_map |= other.atomic_map;
    }

    /// Whether anything below matters for merging (an index with nothing is dropped).
    fn is_empty(&self) -> bool {
        self.list_keys.is_none()
            && !self.atomic_map
            && self.children.is_empty()
            && self.any_key.is_none()
            && self.items.is_none()
    }

    /// Builds a node for a list-map at the root of a unit test.
    #[cfg(test)]
    pub fn with_list_map(path: &[&str], keys: &[&str]) -> SchemaNode {
        let mut root = SchemaNode::default();
        let mut n = &mut root;
        for p in path {
            n = n.children.entry((*p).to_owned()).or_default();
        }
        n.list_keys = Some(keys.iter().map(|k| (*k).to_owned()).collect());
        root
    }

    /// This schema with the mapping at `path` (below the spec proper) replaced whole.
    pub fn with_atomic(mut self, path: &[String]) -> SchemaNode {
        let mut n = &mut self;
        for p in path {
            n = n.children.entry(p.clone()).or_default();
        }
        n.atomic_map = true;
        self
    }

    /// Builds a node marking the mapping at `path` atomic, for unit tests.
    #[cfg(test)]
    pub fn with_atomic_map(path: &[&str]) -> SchemaNode {
        let mut root = SchemaNode::default();
        let mut n = &mut root;
        for p in path {
            n = n.children.entry((*p).to_owned()).or_default();
        }
        n.atomic_map = true;
        root
    }
}

const WRAPPERS: &[&str] = &["defaults", "overrides", "default", "override"];

/// The schema index of every policy kind that has a CRD in the workspace (kinds without one
/// merge by the generic rules).
pub fn schema_indexes(world: &World) -> HashMap<GroupKind, SchemaNode> {
    let mut out = strategic_merge_keys();
    let mut seen = std::collections::HashSet::new();
    // A partial world reads the CRDs of the world it was cut from too.
    let crds = world.objects_of_everywhere(&GroupKind::new("apiextensions.k8s.io", "CustomResourceDefinition"));
    for (w, id) in crds {
        let Body::Crd(crd) = &w.object(id).body else { continue };
        let gk = GroupKind::new(&crd.group, &crd.kind);
        if world.catalog.get(&gk).is_none() || seen.contains(&gk) {
            continue;
        }
        if let Some(idx) = crd_index(crd) {
            // A CRD's facts join the built-in merge keys (which CRD schemas do not carry).
            match out.get_mut(&gk) {
                Some(known) => known.join(idx),
                None => {
                    out.insert(gk.clone(), idx);
                }
            }
        }
        seen.insert(gk);
    }
    out
}

/// Envoy Gateway merges a route policy with `mergeType: StrategicMerge` onto its parent's
/// as a Kubernetes strategic merge patch, whose list merge keys come from the Go types'
/// `patchMergeKey` tags, not from the CRD schemas (envoyproxy/gateway `api/v1alpha1`:
/// `backendtrafficpolicy_types.go` compression, compressor and httpUpgrade keyed by `type`;
/// `ext_auth_types.go` contextExtensions keyed by `name`; merged in `internal/utils/merge.go`).
fn strategic_merge_keys() -> HashMap<GroupKind, SchemaNode> {
    const EG: &str = "gateway.envoyproxy.io";
    // An empty key: the items are never the same across policies. Rate-limit rules are merged
    // on the IR, where each is named `<policy namespace>/<policy name>/rule/<index>` (`ir.
    // GlobalRateLimit`/`LocalRateLimit` `patchMergeKey:"name"`; `internal/gatewayapi/
    // backendtrafficpolicy.go` `translateBackendTrafficPolicyForRouteWithMerge`), so a route's
    // StrategicMerge keeps the Gateway's rules beside its own (its e2e `RateLimitGlobalMergeTest`).
    let lists: &[(&str, &[&str], &str)] = &[
        ("BackendTrafficPolicy", &["compression"], "type"),
        ("BackendTrafficPolicy", &["compressor"], "type"),
        ("BackendTrafficPolicy", &["httpUpgrade"], "type"),
        ("BackendTrafficPolicy", &["rateLimit", "global", "rules"], ""),
        ("BackendTrafficPolicy", &["rateLimit", "local", "rules"], ""),
        ("SecurityPolicy", &["extAuth", "contextExtensions"], "name"),
    ];
    let mut out: HashMap<GroupKind, SchemaNode> = HashMap::new();
    for (kind, path, key) in lists {
        let mut n = out.entry(GroupKind::new(EG, kind)).or_default();
        for p in *path {
            n = n.children.entry((*p).to_owned()).or_default();
        }
        n.list_keys = Some(if key.is_empty() { Vec::new() } else { vec![(*key).to_owned()] });
        n.patch_first = true;
    }
    out
}

/// The storage version's schema (else the first served, else the first).
fn crd_index(crd: &Crd) -> Option<SchemaNode> {
    let v = crd
        .versions
        .iter()
        .find(|v| v.storage)
        .or_else(|| crd.versions.iter().find(|v| v.served))
        .or_else(|| crd.versions.first())?;
    let spec = v.schema.as_deref()?.at(&["properties", "spec"])?;
    let mut root = SchemaNode::default();
    if let Some(props) = spec.get("properties").and_then(Node::as_mapping) {
        for e in props {
            let Some(k) = e.key.as_str() else { continue };
            if WRAPPERS.contains(&k) {
                // The wrapper's content is the spec proper.
                walk(&e.value, &mut root);
            } else {
                let mut child = SchemaNode::default();
                walk(&e.value, &mut child);
                if !child.is_empty() {
                    root.children.insert(k.to_owned(), child);
                }
            }
        }
    }
    (!root.is_empty()).then_some(root)
}

/// Reads one schema node into `into` (merging, so the wrappers can share the root).
fn walk(schema: &Node, into: &mut SchemaNode) {
    if schema.get("x-kubernetes-list-type").and_then(Node::as_str) == Some("map") {
        let keys: Vec<String> = schema
            .get("x-kubernetes-list-map-keys")
            .and_then(Node::as_sequence)
            .map(|s| s.iter().filter_map(Node::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        if !keys.is_empty() {
            into.list_keys = Some(keys);
        }
    }
    if schema.get("x-kubernetes-map-type").and_then(Node::as_str) == Some("atomic") {
        into.atomic_map = true;
    }
    if let Some(props) = schema.get("properties").and_then(Node::as_mapping) {
        for e in props {
            let Some(k) = e.key.as_str() else { continue };
            let mut child = into.children.remove(k).unwrap_or_default();
            walk(&e.value, &mut child);
            if !child.is_empty() {
                into.children.insert(k.to_owned(), child);
            }
        }
    }
    if let Some(ap) = schema.get("additionalProperties").filter(|n| n.as_mapping().is_some()) {
        let mut child = into.any_key.take().map(|b| *b).unwrap_or_default();
        walk(ap, &mut child);
        if !child.is_empty() {
            into.any_key = Some(Box::new(child));
        }
    }
    if let Some(items) = schema.get("items").filter(|n| n.as_mapping().is_some()) {
        let mut child = into.items.take().map(|b| *b).unwrap_or_default();
        walk(items, &mut child);
        if !child.is_empty() {
            into.items = Some(Box::new(child));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_file;

    #[test]
    fn effective_listmap_schema_index() {
        let text = "\
properties:
  spec:
    properties:
      targetRef: {type: object}
      defaults:
        properties:
          listMaps:
            type: array
            x-kubernetes-list-type: map
            x-kubernetes-list-map-keys: [name]
            items:
              properties:
                name: {type: string}
                tags:
                  type: object
                  x-kubernetes-map-type: atomic
      overrides:
        properties:
          plain: {type: array, items: {type: string}}
";
        let parsed = parse_file(text);
        let Some(root) = parsed.documents.first().and_then(|d| d.root.clone()) else {
            panic!("no document");
        };
        let crd = Crd {
            group: "g".into(),
            kind: "K".into(),
            versions: vec![crate::model::CrdVersion {
                name: "v1".into(),
                served: true,
                storage: true,
                schema: Some(std::sync::Arc::new(root)),
            }],
            ..Crd::default()
        };
        let Some(idx) = crd_index(&crd) else { panic!("no index") };
        let lm = idx.child("listMaps").map(|n| n.list_keys.clone());
        assert_eq!(lm, Some(Some(vec!["name".to_owned()])));
        let tags = idx.child("listMaps").and_then(SchemaNode::items).and_then(|n| n.child("tags"));
        assert_eq!(tags.map(|t| t.atomic_map), Some(true));
        assert!(idx.child("plain").is_none(), "nothing merge-relevant below `plain`");
        assert!(idx.child("targetRef").is_none());
    }
}
