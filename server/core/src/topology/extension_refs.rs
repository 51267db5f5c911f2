//! Policies attached by a route rule's `ExtensionRef` filter (Gloo Gateway RouteOption,
//! kgateway TrafficPolicy): the filter names the policy, and the policy applies to that rule
//! (to the route, for an unnamed rule: it has no node of its own). Only kinds the catalog says
//! attach this way are read; any other extensionRef is a filter policylens does not model.
//!
//! Gloo Edge attaches VirtualHostOptions the same way from the other end: a VirtualService's
//! `spec.virtualHost.optionsConfigRefs.delegateOptions[]` names them (`name`, `namespace`), and
//! their options are merged into its virtual host (solo-io/gloo
//! `projects/gateway/pkg/translator/virtual_service_translator.go`
//! `mergeDelegatedVirtualHostOptions`; a missing one is skipped with a warning).

use super::{NodeId, Topology};
use crate::model::{ExtensionRef, GroupKind, normalize_group};
use crate::world::{ObjId, World};

/// One ExtensionRef filter naming a policy kind.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtensionAttachment {
    pub route: ObjId,
    /// Index of the rule in the route, and of the filter among the rule's ExtensionRef filters
    /// ([`VIRTUAL_HOST`] and the index in `delegateOptions` for a Gloo VirtualService).
    pub rule: u32,
    pub filter: u32,
    /// The policy named; `None` when the workspace has no such policy.
    pub policy: Option<ObjId>,
    /// The rule's node (the route's, for an unnamed rule).
    pub node: NodeId,
}

/// The `rule` of a Gloo VirtualService's `delegateOptions` attachments.
pub const VIRTUAL_HOST: u32 = u32::MAX;

const VIRTUAL_HOST_OPTION: (&str, &str) = ("gateway.solo.io", "VirtualHostOption");

/// The VirtualHostOptions a Gloo VirtualService `vs` (node `node`) names in `delegateOptions`,
/// appended to `out`. A reference without `namespace` means the VirtualService's own.
pub(super) fn resolve_delegate_options(
    world: &World,
    vs: ObjId,
    refs: &[ExtensionRef],
    node: NodeId,
    out: &mut Vec<ExtensionAttachment>,
) {
    let gk = GroupKind::new(VIRTUAL_HOST_OPTION.0, VIRTUAL_HOST_OPTION.1);
    let own = world.namespace_of(vs).unwrap_or("");
    for (i, r) in refs.iter().enumerate() {
        let Some(name) = r.name.as_ref().filter(|n| !n.value.is_empty()) else { continue };
        let ns = r.namespace.as_ref().map_or(own, |n| n.value.as_str());
        if r.templated || crate::model::is_placeholder(ns) {
            continue;
        }
        let policy = world.lookup_from(vs, &gk, Some(ns), &name.value);
        if policy.is_none() && world.is_external(&gk, Some(ns), &name.value) {
            continue;
        }
        out.push(ExtensionAttachment { route: vs, rule: VIRTUAL_HOST, filter: i as u32, policy, node });
    }
}

/// The attachments of rule `rule` of `route` (whose node is `node`), appended to `out`.
pub(super) fn resolve(
    world: &World,
    route: ObjId,
    rule: u32,
    refs: &[ExtensionRef],
    node: NodeId,
    out: &mut Vec<ExtensionAttachment>,
) {
    let ns = world.namespace_of(route).unwrap_or("");
    for (filter, r) in refs.iter().enumerate() {
        let (Some(group), Some(kind), Some(name)) = (&r.group, &r.kind, &r.name) else { continue };
        if r.templated || name.value.is_empty() {
            continue;
        }
        let gk = GroupKind::new(normalize_group(&group.value), &kind.value);
        if !world.catalog.get(&gk).is_some_and(|k| k.extension_ref) {
            continue;
        }
        // A LocalObjectReference: the policy lives in the route's namespace.
        let policy = world.lookup_from(route, &gk, Some(ns), &name.value);
        if policy.is_none() && world.is_external(&gk, Some(ns), &name.value) {
            continue;
        }
        out.push(ExtensionAttachment { route, rule, filter: filter as u32, policy, node });
    }
}

impl Topology {
    /// Every ExtensionRef filter that names a policy, by route and rule.
    pub fn extension_refs(&self) -> &[ExtensionAttachment] {
        &self.extension_refs
    }

    /// The nodes policy `pid` is attached to by ExtensionRef filters, in order.
    pub fn extension_nodes(&self, pid: ObjId) -> impl Iterator<Item = NodeId> + '_ {
        let start = self.extension_by_policy.partition_point(|&(p, _)| p < pid);
        self.extension_by_policy[start..].iter().take_while(move |&&(p, _)| p == pid).map(|&(_, n)| n)
    }

    /// Whether a route's ExtensionRef filter names policy `pid`: attaches it, or attaches
    /// another instance of its identity (a copy of the policy beside another copy of the
    /// route, docs/semantics.md §4.5). Such a policy has a target, wherever the filter is.
    pub fn named_by_filter(&self, world: &World, pid: ObjId) -> bool {
        if self.extension_nodes(pid).next().is_some() {
            return true;
        }
        let o = world.object(pid);
        let (ns, name) = (world.namespace_of(pid), world.name_of(pid));
        self.extension_refs.iter().filter_map(|e| e.policy).any(|p| {
            let q = world.object(p);
            q.kind() == o.kind() && q.group() == o.group() && world.name_of(p) == name && world.namespace_of(p) == ns
        })
    }

    /// Whether `pid` is attached to `node` by an ExtensionRef filter (it then comes before
    /// the policies attached there by targetRefs).
    pub fn is_extension_attached(&self, node: NodeId, pid: ObjId) -> bool {
        self.extension_by_policy.binary_search(&(pid, node)).is_ok()
    }
}
