//! Policy targetRefs and targetSelectors → nodes, with the reason for every ref that does not
//! resolve.

use super::validate::{RefViolation, validate_consul_ref, validate_ref};
use super::{NodeId, Topology, backends::grant_allows, section_names};
use crate::catalog::{PolicyKind, RefType};
use crate::model::{
    Body, FromNamespaces, GATEWAY_GROUP, GroupKind, ObjectKey, PolicyFields, TargetRef, normalize_group,
};
use crate::suggest;
use crate::syntax::Span;
use crate::world::{ObjId, Unknown, Wanted, World};

/// Why a target reference does not resolve.
#[derive(Clone, Debug, PartialEq)]
pub enum RefProblem {
    /// Fields a real API server would reject.
    Invalid(Vec<RefViolation>),
    /// The policy kind cannot target this (group, kind); `allowed` lists what it can.
    KindNotAllowed {
        allowed: Vec<GroupKind>,
    },
    /// `sectionName` on a target kind that the policy kind does not let name sections.
    SectionNotSupported {
        gk: GroupKind,
    },
    /// `namespace` set where the kind forbids it.
    CrossNamespaceForbidden,
    /// A cross-namespace ref with no ReferenceGrant admitting it.
    CrossNamespaceNoGrant {
        namespace: String,
    },
    NotFound {
        key: ObjectKey,
        suggestion: Option<String>,
        elsewhere: Vec<String>,
        /// Why the world is not closed for it, when it is not (docs/semantics.md §6.1): the
        /// policy is then accepted, its effect there unknown.
        unknown: Option<Unknown>,
    },
    SectionNotFound {
        target: ObjId,
        section: String,
        available: Vec<String>,
        suggestion: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum TargetResolution {
    Resolved(NodeId),
    /// A virtual target (a kind the workspace cannot check).
    Virtual(NodeId),
    /// Boxed: most references resolve, and the problem is several times a resolution's size.
    Problem(Box<RefProblem>),
    /// Holds a template expression: not checked.
    Templated,
}

impl TargetResolution {
    fn problem(p: RefProblem) -> TargetResolution {
        TargetResolution::Problem(Box::new(p))
    }
}

/// Everything known about a policy's attachment.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PolicyResolution {
    /// One per ref of `targetRef` then `targetRefs`, in order.
    pub refs: Vec<TargetResolution>,
    /// Nodes picked by `targetSelectors`.
    pub selected: Vec<NodeId>,
    /// Rules (or routes) whose ExtensionRef filter names the policy.
    pub extension_refs: Vec<NodeId>,
    /// Problems with the reference fields themselves (both, neither, empty, too many): the
    /// span to point at and the message.
    pub field_problems: Vec<(Span, String)>,
    /// Refs that repeat an earlier one: (this ref's span, the first one's span).
    pub duplicates: Vec<(Span, Span)>,
    /// `targetSelectors` items that are malformed (the item's span and why), or that select
    /// nothing (the span, what they looked for, and why something may still match).
    pub invalid_selectors: Vec<(Span, String)>,
    pub empty_selectors: Vec<(Span, String, Option<Unknown>)>,
}

impl PolicyResolution {
    pub fn attached_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.refs
            .iter()
            .filter_map(|r| match r {
                TargetResolution::Resolved(n) | TargetResolution::Virtual(n) => Some(*n),
                _ => None,
            })
            .chain(self.selected.iter().copied())
            .chain(self.extension_refs.iter().copied())
    }

    /// The targets that name nothing in the files but that something else may supply
    /// (docs/semantics.md §6.1), with why: the policy's effect there is unknown.
    pub fn unknown_targets(&self) -> impl Iterator<Item = (&ObjectKey, &Unknown)> {
        self.refs.iter().filter_map(|r| match r {
            TargetResolution::Problem(p) => match &**p {
                RefProblem::NotFound { key, unknown: Some(u), .. } => Some((key, u)),
                _ => None,
            },
            _ => None,
        })
    }

    /// Malformed: bad ref fields or field combination (status reason `Invalid`).
    pub fn is_invalid(&self) -> bool {
        !self.field_problems.is_empty()
            || self
                .refs
                .iter()
                .any(|r| matches!(r, TargetResolution::Problem(p) if matches!(**p, RefProblem::Invalid(_))))
    }
}

pub(super) fn resolve_policy(world: &World, t: &mut Topology, pid: ObjId) -> PolicyResolution {
    let mut res = PolicyResolution::default();
    let (Some(kind), Body::Other(other)) = (world.policy_kind(pid), &world.object(pid).body) else {
        return res;
    };
    let fields = &other.policy;
    res.extension_refs = t.extension_nodes(pid).collect();
    let by_filter = !res.extension_refs.is_empty() || t.named_by_filter(world, pid);
    res.field_problems = field_problems(world, pid, kind, fields, by_filter);
    let mut seen: Vec<(ObjectKey, Span)> = Vec::new();
    let singular = fields.target_ref.as_ref().and_then(|(_, r)| r.as_ref()).map(|r| r.span);
    for r in fields.refs() {
        let resolution = resolve_ref(world, t, pid, kind, r);
        // Duplicates are items repeated within `targetRefs`; `targetRef` beside `targetRefs`
        // is already a field problem.
        if Some(r.span) == singular {
            res.refs.push(resolution);
            continue;
        }
        if let Some(key) = ref_key(world, pid, kind, r) {
            match seen.iter().find(|(k, _)| *k == key) {
                Some((_, first)) => res.duplicates.push((r.span, *first)),
                None => seen.push((key, r.span)),
            }
        }
        res.refs.push(resolution);
    }
    if let Some(sels) = &fields.target_selectors {
        let policy_ns = world.namespace_of(pid).unwrap_or("");
        for s in &sels.items {
            let Some(k) = s.kind.as_ref() else { continue };
            let group = s
                .group
                .as_ref()
                .map(|g| g.value.as_str())
                .unwrap_or(kind.default_ref_group.as_deref().unwrap_or(GATEWAY_GROUP));
            let gk = GroupKind::new(group, &k.value);
            let from = s.namespaces.as_ref().unwrap_or(&FromNamespaces::Same);
            if let Some(why) = selector_problem(&s.selector) {
                res.invalid_selectors.push((s.span, why));
                continue;
            }
            let candidates = match from {
                FromNamespaces::Same => world.objects_in(&gk, policy_ns),
                _ => world.objects_of(&gk),
            };
            let policy_gk = world.object(pid).group_kind();
            let mut any = false;
            // Objects that match but need a grant nobody wrote: what the finding names.
            let mut ungranted: Vec<(String, String)> = Vec::new();
            for &o in candidates.iter().filter(|&&o| world.sees(pid, o)) {
                let ns = world.namespace_of(o).unwrap_or("");
                let ns_ok = match from {
                    FromNamespaces::Same => ns == policy_ns,
                    FromNamespaces::All => true,
                    FromNamespaces::Selector(sel) => sel.matches(&world.namespace_labels(ns)),
                    FromNamespaces::None | FromNamespaces::Unknown(_) => false,
                };
                // Selecting into another namespace needs a ReferenceGrant there, as a targetRef does.
                let granted =
                    || ns == policy_ns || grant_allows(world, pid, &policy_gk, policy_ns, &gk, ns, world.name_of(o));
                if ns_ok && s.selector.matches(&world.object(o).labels) {
                    if !granted() {
                        ungranted.push((world.key(o).to_string(), ns.to_owned()));
                        continue;
                    }
                    any = true;
                    let n = t.object_node(o);
                    if !res.selected.contains(&n) {
                        res.selected.push(n);
                    }
                }
            }
            if !any && !ungranted.is_empty() {
                ungranted.sort();
                let (first, ns) = &ungranted[0];
                let (more, them) = match ungranted.len() {
                    1 => (String::new(), "it"),
                    n => (format!(" and {} more", n - 1), "them"),
                };
                res.empty_selectors.push((
                    s.span,
                    format!(
                        "{first}{more} has these labels, but no ReferenceGrant in namespace `{ns}` lets a {} from `{policy_ns}` select {them}; add one there",
                        policy_gk.kind
                    ),
                    None,
                ));
            } else if !any && world.is_checkable_kind(&gk) {
                let scope = match from {
                    FromNamespaces::Same => format!("in namespace `{policy_ns}`"),
                    _ => "in the namespaces it may reach".to_owned(),
                };
                let within = matches!(from, FromNamespaces::Same).then_some(policy_ns);
                let unknown = world.selection_certainty(pid, &gk, within).unknown();
                res.empty_selectors.push((s.span, format!("no {} {scope} has these labels", gk.kind), unknown));
            }
        }
    }
    res
}

/// Why a label selector is malformed (the API server would reject it), if it is.
fn selector_problem(sel: &crate::model::LabelSelector) -> Option<String> {
    for e in &sel.match_expressions {
        match e.operator.as_str() {
            "In" | "NotIn" if e.values.is_empty() => {
                return Some(format!("`{}` on `{}` needs at least one value", e.operator, e.key));
            }
            "Exists" | "DoesNotExist" if !e.values.is_empty() => {
                return Some(format!("`{}` on `{}` takes no values", e.operator, e.key));
            }
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => {
                return Some(format!("`{other}` is not a selector operator: use In, NotIn, Exists or DoesNotExist"));
            }
        }
    }
    None
}

/// Problems with the combination of reference fields (docs/semantics.md §6 `target-ref-fields`).
/// `by_filter`: a route's ExtensionRef filter attaches the policy, so it needs no targetRef.
fn field_problems(
    world: &World,
    pid: ObjId,
    kind: &PolicyKind,
    f: &PolicyFields,
    by_filter: bool,
) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    let obj = world.object(pid);
    let name = obj.kind();
    let selectors = f.target_selectors.as_ref().is_some_and(|s| !s.items.is_empty());
    if let Some((span, _)) = &f.target_ref {
        if !kind.target_ref && kind.target_refs {
            out.push((*span, format!("{name} has no `targetRef` field; use `targetRefs` (a list)")));
        } else if f.target_refs.is_some() && kind.refs_exclusive {
            out.push((*span, format!("{name} takes `targetRef` or `targetRefs`, not both")));
        }
    }
    if let Some(list) = &f.target_refs {
        if !kind.target_refs && kind.target_ref {
            out.push((
                list.key_span,
                format!("{name} has no `targetRefs` field; use `targetRef` (a single reference)"),
            ));
        } else if !list.is_list {
            out.push((list.span, "`targetRefs` must be a list of references".into()));
        } else if list.len == 0 && !selectors {
            out.push((list.span, "`targetRefs` is empty: a policy needs at least one target".into()));
        } else if list.len as u32 > kind.max_refs {
            out.push((
                list.key_span,
                format!("`targetRefs` has {} items; {name} allows at most {}", list.len, kind.max_refs),
            ));
        }
    }
    if !f.has_ref_fields() && !kind.target_optional && !by_filter {
        let span = f.spec_span.map(|s| Span::new(s.start, s.start)).unwrap_or(obj.kind_span);
        let want = match (kind.target_ref, kind.target_refs) {
            (true, false) => "`targetRef`",
            _ => "`targetRefs`",
        };
        let or_filter = if kind.extension_ref { ", or name it in a route rule's ExtensionRef filter" } else { "" };
        out.push((span, format!("{name} has no target: add {want}{or_filter}")));
    }
    if let Some(sels) = &f.target_selectors
        && !kind.target_selectors
    {
        out.push((sels.key_span, format!("{name} has no `targetSelectors` field")));
    }
    out
}

/// The group a ref means: its own, else the kind's default, else inferred from the kind.
/// Consul keys a GatewayPolicy by kind, name, namespace and section only (hashicorp/consul-k8s
/// `control-plane/api-gateway-custom/common/resources.go` `AddGatewayPolicy`): its `group` is
/// required but never read (its own tests write `gateway.networking.k8s.io/v1`).
fn ref_group<'a>(kind: &'a PolicyKind, r: &'a TargetRef) -> &'a str {
    let group = match kind.ref_type {
        RefType::Consul => &None,
        RefType::GatewayApi => &r.group,
    };
    match (group, &kind.default_ref_group) {
        (Some(g), _) => normalize_group(&g.value),
        (None, Some(d)) => d,
        (None, None) => match r.kind.as_ref().map(|k| k.value.as_str()) {
            Some("Service" | "Namespace") => "",
            _ => GATEWAY_GROUP,
        },
    }
}

/// The identity of what a ref names, for duplicate detection.
fn ref_key(world: &World, pid: ObjId, kind: &PolicyKind, r: &TargetRef) -> Option<ObjectKey> {
    if r.templated {
        return None;
    }
    let k = r.kind.as_ref()?;
    let n = r.name.as_ref()?;
    let ns = r.namespace.as_ref().map(|n| n.value.as_str()).or(world.namespace_of(pid));
    Some(
        ObjectKey::new(GroupKind::new(ref_group(kind, r), &k.value), ns, &n.value)
            .with_section(r.section_name.as_ref().map(|s| s.value.as_str())),
    )
}

fn resolve_ref(world: &World, t: &mut Topology, pid: ObjId, kind: &PolicyKind, r: &TargetRef) -> TargetResolution {
    use RefProblem::*;
    if r.templated {
        // A placeholder names only the same placeholder (docs/semantics.md §4.10).
        return templated_ref(world, t, pid, kind, r);
    }
    let mut violations = match kind.ref_type {
        RefType::GatewayApi => validate_ref(r),
        RefType::Consul => validate_consul_ref(r),
    };
    if r.kind.is_none() {
        violations.push(RefViolation { span: r.span, message: "the reference has no `kind`".into() });
    }
    let nameless = r.kind.as_ref().is_some_and(|k| kind.nameless_targets.iter().any(|n| *n == k.value));
    if r.name.is_none() && !nameless {
        violations.push(RefViolation { span: r.span, message: "the reference has no `name`".into() });
    }
    if r.group.is_none() && kind.default_ref_group.is_none() && is_strict(kind) {
        let hint = match r.kind.as_ref().map(|k| k.value.as_str()) {
            Some("Service") => "`group: \"\"`".to_owned(),
            _ => format!("`group: {GATEWAY_GROUP}`"),
        };
        violations.push(RefViolation {
            span: r.kind.as_ref().map_or(r.span, |k| k.span),
            message: format!("the reference has no `group` (required by {}); add {hint}", kind.gk.kind),
        });
    }
    if !violations.is_empty() {
        return TargetResolution::problem(Invalid(violations));
    }
    if let (Some(k), None, true) = (&r.kind, &r.name, nameless) {
        // The policy's own mesh (or the proxies its labels select): nothing to look up.
        let gk = GroupKind::new(ref_group(kind, r), &k.value);
        let key = ObjectKey::new(gk, world.namespace_of(pid), "*");
        return TargetResolution::Virtual(t.ensure_virtual_node(key));
    }
    let (Some(k), Some(n)) = (&r.kind, &r.name) else {
        return TargetResolution::problem(Invalid(Vec::new()));
    };
    let gk = GroupKind::new(ref_group(kind, r), &k.value);
    let Some(target_kind) = kind.target(&gk) else {
        return TargetResolution::problem(KindNotAllowed {
            allowed: kind.targets.iter().map(|t| t.gk.clone()).collect(),
        });
    };
    if r.section_name.is_some() && !target_kind.section_name {
        return TargetResolution::problem(SectionNotSupported { gk });
    }
    let policy_ns = world.namespace_of(pid).unwrap_or("");
    if let Some(ns) = r.namespace.as_ref().filter(|ns| ns.value != policy_ns) {
        if !kind.cross_namespace {
            return TargetResolution::problem(CrossNamespaceForbidden);
        }
        let from = world.object(pid).group_kind();
        if !grant_allows(world, pid, &from, policy_ns, &gk, &ns.value, &n.value) {
            return TargetResolution::problem(CrossNamespaceNoGrant { namespace: ns.value.to_string() });
        }
    }
    let ns = r.namespace.as_ref().map(|n| n.value.as_str()).unwrap_or(policy_ns);
    // How the reference is shown: a cluster-scoped kind has no namespace (`GatewayClass/eg`).
    let key_ns = (!world.is_cluster_scoped(&gk)).then_some(ns);
    if gk.is("", "Namespace") {
        if world.namespace_exists(&n.value) {
            return TargetResolution::Resolved(t.ensure_namespace_node(&n.value));
        }
        let suggestion = suggest::closest(&n.value, world.namespaces()).map(str::to_owned);
        let wanted = Wanted { gk: &gk, namespace: None, name: &n.value };
        let unknown = world.certainty(pid, &wanted, suggestion.is_some()).unknown();
        let key = ObjectKey::new(gk, None, &n.value);
        return TargetResolution::problem(NotFound { suggestion, key, elsewhere: Vec::new(), unknown });
    }
    // A cluster-scoped target (a GatewayClass) is looked up without the policy's namespace.
    let candidates = world.candidates_from(pid, &gk, key_ns, &n.value);
    if candidates.ids.is_empty()
        && let Some(node) = t.generated_node(&ObjectKey::new(gk.clone(), key_ns, &n.value))
    {
        // A route its controller generates: its rules are not read, so a sectionName is trusted.
        return TargetResolution::Resolved(node);
    }
    match candidates.ids.first() {
        Some(&target) => match &r.section_name {
            None => TargetResolution::Resolved(t.object_node(target)),
            Some(s) => {
                // Broken only when no instance it could mean has the section (§4.5).
                let numeric = kind.numeric_sections;
                if let Some(node) = candidates.ids.iter().find_map(|&c| section_target(world, t, c, &s.value, numeric))
                {
                    return TargetResolution::Resolved(node);
                }
                if candidates.borrowed {
                    return TargetResolution::Templated;
                }
                let available = section_names(world, target);
                let suggestion = suggest::closest(&s.value, available.iter().map(String::as_str)).map(str::to_owned);
                TargetResolution::problem(SectionNotFound {
                    target,
                    section: s.value.to_string(),
                    available,
                    suggestion,
                })
            }
        },
        // What lies in a namespace that is a placeholder cannot be known.
        None if crate::model::is_placeholder(ns) => TargetResolution::Templated,
        // Declared in the config to exist outside the workspace: resolved, sections trusted.
        None if world.is_external(&gk, key_ns, &n.value) => {
            let key =
                ObjectKey::new(gk, key_ns, &n.value).with_section(r.section_name.as_ref().map(|s| s.value.as_str()));
            TargetResolution::Virtual(t.ensure_virtual_node(key))
        }
        None if world.is_checkable_kind(&gk) => {
            let names: Vec<&str> = if key_ns.is_some() {
                world.names_seen_from(pid, &gk, ns).collect()
            } else {
                world
                    .objects_of(&gk)
                    .iter()
                    .copied()
                    .filter(|&o| world.sees(pid, o) && !world.object(o).templated)
                    .map(|o| world.name_of(o))
                    .collect()
            };
            let suggestion = suggest::closest(&n.value, names).map(str::to_owned);
            let elsewhere = world.namespaces_holding_from(pid, &gk, &n.value);
            let wanted = Wanted { gk: &gk, namespace: key_ns, name: &n.value };
            // A near name, or the same name in another namespace, says what was meant.
            let near = suggestion.is_some() || !elsewhere.is_empty();
            let unknown = world.certainty(pid, &wanted, near).unknown();
            let key = ObjectKey::new(gk, key_ns, &n.value);
            TargetResolution::problem(NotFound { key, suggestion, elsewhere, unknown })
        }
        None => {
            let key =
                ObjectKey::new(gk, key_ns, &n.value).with_section(r.section_name.as_ref().map(|s| s.value.as_str()));
            TargetResolution::Virtual(t.ensure_virtual_node(key))
        }
    }
}

/// The node of section `section` of `target`; implementation-specific targets whose ports
/// policylens does not read (kgateway `Backend`, `ServiceImport`) define their own sections:
/// trusted, the policy attaches to the object. Istio `ServiceEntry` and Envoy Gateway
/// `Backend` ports are read as a Service's (`model::extract`), so theirs are checked. Where
/// the policy kind lets a number name a core Service's port (`numeric`), `"443"` names the
/// port numbered 443: its section when it has a name, else the Service.
fn section_target(world: &World, t: &Topology, target: ObjId, section: &str, numeric: bool) -> Option<NodeId> {
    match t.section_node(world, target, section) {
        Some(node) => Some(node),
        None if !has_modelled_sections(world, target) => Some(t.object_node(target)),
        None if numeric => port_by_number(world, t, target, section),
        None => None,
    }
}

/// The node of the core Service port `section` numbers.
fn port_by_number(world: &World, t: &Topology, target: ObjId, section: &str) -> Option<NodeId> {
    let number: i64 = section.parse().ok()?;
    let o = world.object(target);
    let Body::Service(svc) = &o.body else { return None };
    if !o.group_kind().is("", "Service") {
        return None;
    }
    let port = svc.ports.iter().find(|p| p.port == Some(number))?;
    match &port.name {
        Some(name) => t.section_node(world, target, &name.value),
        None => Some(t.object_node(target)),
    }
}

/// A reference holding a placeholder: resolved to an object with the same placeholders in its
/// unit, else not checked.
fn templated_ref(world: &World, t: &mut Topology, pid: ObjId, kind: &PolicyKind, r: &TargetRef) -> TargetResolution {
    let (Some(k), Some(n)) = (&r.kind, &r.name) else { return TargetResolution::Templated };
    let gk = GroupKind::new(ref_group(kind, r), &k.value);
    let policy_ns = world.namespace_of(pid).unwrap_or("");
    let ns = r.namespace.as_ref().map(|n| n.value.as_str()).unwrap_or(policy_ns);
    let Some(target) = world.lookup_from(pid, &gk, Some(ns), &n.value) else {
        return TargetResolution::Templated;
    };
    match &r.section_name {
        None => TargetResolution::Resolved(t.object_node(target)),
        Some(s) => match section_target(world, t, target, &s.value, kind.numeric_sections) {
            Some(node) => TargetResolution::Resolved(node),
            None if crate::model::is_placeholder(&s.value) || s.value.contains('_') => TargetResolution::Templated,
            // The placeholder found its object; the section is a real name, and missing.
            None => {
                let available = section_names(world, target);
                let suggestion = suggest::closest(&s.value, available.iter().map(String::as_str)).map(str::to_owned);
                TargetResolution::problem(RefProblem::SectionNotFound {
                    target,
                    section: s.value.to_string(),
                    available,
                    suggestion,
                })
            }
        },
    }
}

/// Whether policylens knows the sections of the object's kind (listeners, rules, ports; the
/// ports of a ServiceEntry or an Envoy Gateway Backend, read as a Service's).
/// A kustomize patch may add sections the object as read lacks: then they are trusted too.
fn has_modelled_sections(world: &World, id: ObjId) -> bool {
    matches!(world.object(id).body, Body::Gateway(_) | Body::ListenerSet(_) | Body::Route(_) | Body::Service(_))
        && !world.is_incomplete(id)
}

/// Kinds whose CRD requires `group` (built-in or configured kinds with no default group);
/// kinds known only from a label or their shape get the benefit of the doubt.
fn is_strict(kind: &PolicyKind) -> bool {
    matches!(kind.source, crate::catalog::KindSource::Builtin | crate::catalog::KindSource::Config)
}
