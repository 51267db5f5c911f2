//! The references written in the workspace and what each one names, read from the topology's
//! resolutions; and the names that declare things (an object's `metadata.name`, a listener,
//! rule or port name). Definition, references, rename and hover all start here, so that they
//! agree on what points at what.

use std::sync::Arc;

use crate::model::{Body, GATEWAY_GROUP, GroupKind, RefFields};
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::{
    BackendResolution, DagNode, NodeId, ParentResolution, RefProblem, TargetResolution, VIRTUAL_HOST,
};
use crate::world::ObjId;

/// Something a name can denote: an object, or one of its sections (listener, rule, port; the
/// index is into the object's listeners, rules or ports, as in [`DagNode::Section`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Target {
    pub obj: ObjId,
    pub section: Option<u32>,
}

impl Target {
    pub fn object(obj: ObjId) -> Target {
        Target { obj, section: None }
    }

    /// The DAG node of the target, if it has one.
    pub fn node(self, world: &Linked) -> Option<NodeId> {
        let t = &world.topology;
        match self.section {
            // An object a controller generates a route from stands for that route.
            None => Some(t.generated_by(self.obj).unwrap_or(t.object_node(self.obj))),
            Some(i) => t.section_node(world, self.obj, crate::topology::section_name(world, self.obj, i)?),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RefKind {
    /// A policy's `targetRef` / `targetRefs[]` item.
    PolicyTarget,
    /// A route's `parentRefs[]` item.
    Parent,
    /// A rule's `backendRefs[]` item, or a backend reference inside a policy's spec
    /// (docs/semantics.md §4.8).
    Backend,
    /// A ListenerSet's `parentRef`.
    ListenerSetParent,
    /// A Gateway's `gatewayClassName`.
    GatewayClass,
    /// A rule filter's `extensionRef` naming a policy that attaches that way (Gloo
    /// RouteOption, kgateway TrafficPolicy).
    Extension,
}

/// One reference written in an object, with what it resolved to.
#[derive(Clone, Debug)]
pub(crate) struct RefSite<'w> {
    pub kind: RefKind,
    /// The reference's fields (`None` for `gatewayClassName`, a bare name).
    pub fields: Option<&'w RefFields>,
    /// The whole reference: its mapping, or the `gatewayClassName` value.
    pub span: Span,
    pub name_span: Option<Span>,
    pub section_span: Option<Span>,
    pub port_span: Option<Span>,
    /// The object it names, when that exists.
    pub object: Option<ObjId>,
    /// Sections it names (`sectionName`) or matched (a backendRef's or parentRef's `port`).
    pub sections: Vec<u32>,
    /// `sections` come from `sectionName` (true) or from a port match (false).
    pub section_named: bool,
    /// Why it names nothing (or not all it says), for hover.
    pub problem: Option<String>,
    /// What it names as written, defaults filled in: `Gateway infra/edge`.
    pub written: String,
    /// What the answer assumed, for hover (a namespace whose labels are unknown).
    pub note: Option<String>,
    /// It names a route a controller generates from `object` (which has no file of its own:
    /// never renamed from here).
    pub generated: bool,
}

impl RefSite<'_> {
    /// Whether the reference names `target` in writing: its name (for the object) or its
    /// sectionName or port (for a section).
    pub fn names(&self, target: Target) -> bool {
        self.object == Some(target.obj)
            && match target.section {
                None => true,
                Some(i) => self.sections.contains(&i),
            }
    }

    /// The span to show or edit for `target`, and whether it holds the target's name (as
    /// opposed to a port number).
    pub fn span_for(&self, target: Target) -> Option<(Span, bool)> {
        match target.section {
            None => Some((self.name_span.unwrap_or(self.span), true)),
            Some(_) if self.section_named => self.section_span.map(|s| (s, true)),
            Some(_) => self.port_span.map(|s| (s, false)),
        }
    }
}

/// Every object of `file`, in order.
pub(crate) fn objects_in(world: &Linked, file: &str) -> Vec<ObjId> {
    world.objects_of_file(file).collect()
}

/// Every reference written in `owner`.
pub(crate) fn sites(world: &Linked, owner: ObjId) -> Vec<RefSite<'_>> {
    let t = &world.topology;
    let mut out = Vec::new();
    let obj = world.object(owner);
    let own_ns = world.namespace_of(owner).unwrap_or("");
    let site = |kind, fields: &RefFields| RefSite {
        kind,
        written: written(kind, fields, own_ns),
        span: fields.span,
        name_span: fields.name.as_ref().map(|n| n.span),
        section_span: fields.section_name.as_ref().map(|s| s.span),
        port_span: fields.port.as_ref().map(|p| p.span),
        object: None,
        sections: Vec::new(),
        section_named: false,
        problem: None,
        fields: None,
        note: None,
        generated: false,
    };
    match &obj.body {
        Body::Other(other) => {
            // A Gloo VirtualService's `delegateOptions` (VirtualHostOptions it takes in).
            if !other.delegate_options.is_empty() {
                for e in t.extension_refs().iter().filter(|e| e.route == owner && e.rule == VIRTUAL_HOST) {
                    let Some(r) = other.delegate_options.get(e.filter as usize) else { continue };
                    let mut s = RefSite { fields: Some(r), ..site(RefKind::Extension, r) };
                    s.object = e.policy;
                    if e.policy.is_none() {
                        s.problem = Some("not found".into());
                    }
                    out.push(s);
                }
            }
            let Some(res) = t.policies.get(&owner) else { return out };
            for (r, resolution) in other.policy.refs().zip(&res.refs) {
                let mut s = RefSite { fields: Some(r), ..site(RefKind::PolicyTarget, r) };
                match resolution {
                    TargetResolution::Resolved(n) | TargetResolution::Virtual(n) => match t.node(*n) {
                        DagNode::Object(o) => s.object = Some(o),
                        DagNode::Section(o, i) => {
                            s.object = Some(o);
                            s.sections = vec![i];
                            s.section_named = true;
                        }
                        DagNode::Namespace(ns) => s.object = world.namespace_object(t.namespace_name(ns)),
                        DagNode::Virtual(k) => match t.generated_from(*n) {
                            // Generated by a controller: its definition is what it is made from.
                            Some(from) => {
                                s.object = Some(from);
                                s.generated = true;
                                s.note = Some(format!(
                                    "{} is generated from it by its controller (Envoy AI Gateway)",
                                    t.virtual_key(k)
                                ));
                            }
                            None => s.problem = Some(format!("{} is a virtual target (not checked)", t.virtual_key(k))),
                        },
                    },
                    TargetResolution::Problem(p) => {
                        if let RefProblem::SectionNotFound { target, .. } = &**p {
                            s.object = Some(*target);
                        }
                        s.problem = Some(problem_text(world, p));
                    }
                    TargetResolution::Templated => s.problem = Some("templated: not checked".into()),
                }
                out.push(s);
            }
            for r in t.spec_refs(owner) {
                let mut s = RefSite { fields: Some(&r.fields), ..site(RefKind::Backend, &r.fields) };
                backend_site(&mut s, &r.fields, &r.resolution);
                out.push(s);
            }
        }
        Body::Route(route) => {
            let parents = t.parent_refs(owner);
            for (p, res) in route.parent_refs.iter().zip(parents) {
                let mut s = RefSite { fields: Some(p), ..site(RefKind::Parent, p) };
                parent_site(world, &mut s, p, res, own_ns);
                out.push(s);
            }
            for (rule, results) in route.rules.iter().zip(t.backend_refs(owner)) {
                for (b, res) in rule.backend_refs.iter().zip(results) {
                    let mut s = RefSite { fields: Some(b), ..site(RefKind::Backend, b) };
                    backend_site(&mut s, b, res);
                    out.push(s);
                }
            }
            // Filters naming a policy kind that attaches by ExtensionRef; others are not modelled.
            for e in t.extension_refs().iter().filter(|e| e.route == owner) {
                let Some(r) =
                    route.rules.get(e.rule as usize).and_then(|rule| rule.extension_refs.get(e.filter as usize))
                else {
                    continue;
                };
                let mut s = RefSite { fields: Some(r), ..site(RefKind::Extension, r) };
                s.object = e.policy;
                if e.policy.is_none() {
                    s.problem = Some("not found".into());
                }
                out.push(s);
            }
        }
        Body::ListenerSet(ls) => {
            if let (Some(p), Some(res)) = (&ls.parent_ref, t.listener_set_parents.get(&owner)) {
                let mut s = RefSite { fields: Some(p), ..site(RefKind::ListenerSetParent, p) };
                parent_site(world, &mut s, p, res, own_ns);
                out.push(s);
            }
        }
        Body::Gateway(g) => {
            if let Some(c) = &g.class_name {
                let gk = GroupKind::new(GATEWAY_GROUP, "GatewayClass");
                let object = world.lookup_from(owner, &gk, None, &c.value);
                out.push(RefSite {
                    kind: RefKind::GatewayClass,
                    fields: None,
                    span: c.span,
                    name_span: Some(c.span),
                    section_span: None,
                    port_span: None,
                    object,
                    sections: Vec::new(),
                    section_named: false,
                    problem: object.is_none().then(|| "not found".to_owned()),
                    written: format!("GatewayClass {}", c.value),
                    note: None,
                    generated: false,
                });
            }
        }
        _ => {}
    }
    out
}

/// What a backendRef (a route rule's or one inside a policy's spec) names, or why nothing.
fn backend_site(s: &mut RefSite<'_>, b: &RefFields, res: &BackendResolution) {
    match res {
        BackendResolution::Found { target, port } => {
            s.object = Some(*target);
            s.sections.extend(port);
        }
        BackendResolution::PortNotFound { target, available } => {
            s.object = Some(*target);
            let ports: Vec<String> = available.iter().map(i64::to_string).collect();
            s.problem =
                Some(format!("no port {} (ports: {})", b.port.as_ref().map_or(0, |p| p.value), ports.join(", ")));
        }
        BackendResolution::NotFound(m) => {
            s.problem = Some(unknown_or(not_found("", m.suggestion.as_deref()), m.unknown.as_ref()));
        }
        BackendResolution::NotPermitted { target } => {
            s.object = *target;
            s.problem = Some("not permitted: no ReferenceGrant admits it".into());
        }
        BackendResolution::Delegated { children } => {
            // One child named: the ref points at it.
            if let [child] = children.as_slice()
                && b.name.as_ref().is_some_and(|n| n.value != "*")
            {
                s.object = Some(*child);
            }
        }
        BackendResolution::Unchecked => {}
    }
}

fn parent_site(world: &Linked, s: &mut RefSite<'_>, p: &RefFields, res: &ParentResolution, own_ns: &str) {
    let t = &world.topology;
    match res {
        ParentResolution::Attached { parent, nodes } => {
            s.object = Some(*parent);
            let selects = |n: &NodeId| match t.node(*n) {
                DagNode::Section(o, i) => match &world.object(o).body {
                    Body::Gateway(g) => g.listeners.get(i as usize).is_some_and(|l| {
                        matches!(l.allowed_routes.namespaces, crate::model::FromNamespaces::Selector(_))
                    }),
                    _ => false,
                },
                _ => false,
            };
            if !world.has_namespace_object(own_ns) && nodes.iter().any(selects) {
                s.note = Some(format!(
                    "namespace `{own_ns}` is not in the workspace, so its labels are unknown: the listener's namespace selector is assumed to admit this route"
                ));
            }
            if p.section_name.is_some() || p.port.is_some() {
                s.sections = nodes
                    .iter()
                    .filter_map(|&n| match t.node(n) {
                        DagNode::Section(o, i) if o == *parent => Some(i),
                        _ => None,
                    })
                    .collect();
                s.section_named = p.section_name.is_some();
            }
        }
        ParentResolution::NotFound { suggestion, unknown } => {
            s.problem = Some(unknown_or(not_found("", suggestion.as_deref()), unknown.as_ref()));
        }
        ParentResolution::SectionNotFound { parent, available } => {
            s.object = Some(*parent);
            let section = p.section_name.as_ref().map_or("", |n| n.value.as_str());
            let noun = crate::model::section_noun(world.object(*parent).kind());
            s.problem = Some(format!("no {noun} `{section}` ({noun}s: {})", available.join(", ")));
        }
        ParentResolution::PortNotFound { parent, available } => {
            s.object = Some(*parent);
            let port = p.port.as_ref().map_or(0, |n| n.value);
            let ports: Vec<String> = available.iter().map(i64::to_string).collect();
            s.problem = Some(format!("no port {port} (ports: {})", ports.join(", ")));
        }
        ParentResolution::Refused { parent, reasons } => {
            s.object = Some(*parent);
            // The listener named still exists: the ref points at it, refused or not.
            if let Some(name) = &p.section_name {
                let listeners = listeners(world, *parent);
                s.sections = listeners.iter().position(|l| *l == name.value).map(|i| i as u32).into_iter().collect();
                s.section_named = true;
            }
            s.problem = Some(format!("refused: {}", reasons.join("; ")));
        }
        ParentResolution::Unchecked => {}
    }
}

/// `Gateway infra/edge`: the kind (defaulted as the ref's field defaults), namespace and name
/// a reference spells.
fn written(kind: RefKind, f: &RefFields, own_ns: &str) -> String {
    let k = f.kind.as_ref().map(|k| k.value.as_str()).unwrap_or(match kind {
        RefKind::Backend => "Service",
        RefKind::PolicyTarget => "?",
        _ => "Gateway",
    });
    let ns = f.namespace.as_ref().map_or(own_ns, |n| n.value.as_str());
    let name = f.name.as_ref().map_or("?", |n| n.value.as_str());
    match k {
        "Namespace" | "GatewayClass" => format!("{k} {name}"),
        _ => format!("{k} {ns}/{name}"),
    }
}

fn listeners(world: &Linked, id: ObjId) -> Vec<&str> {
    match &world.object(id).body {
        Body::Gateway(g) => g.listeners.iter().map(|l| l.name.value.as_str()).collect(),
        Body::ListenerSet(ls) => ls.listeners.iter().map(|l| l.name.value.as_str()).collect(),
        _ => Vec::new(),
    }
}

/// A problem as hover says it: where the world is not closed for it, what is unknown instead.
fn unknown_or(problem: String, unknown: Option<&crate::world::Unknown>) -> String {
    match unknown {
        // Its words already say so: "not in the files; HelmRelease … may render it".
        Some(u @ crate::world::Unknown::Generated(_)) => u.words(),
        Some(u) => format!("not in the files ({})", u.words()),
        None => problem,
    }
}

fn not_found(what: &str, suggestion: Option<&str>) -> String {
    let mut s = format!("{what}not found");
    if let Some(x) = suggestion {
        s.push_str(&format!("; did you mean `{x}`?"));
    }
    s
}

/// A short account of why a policy's ref resolves to nothing.
fn problem_text(world: &Linked, p: &RefProblem) -> String {
    match p {
        RefProblem::Invalid(vs) => {
            let first = vs.first().map_or("malformed", |v| v.message.as_str());
            format!("invalid: {first}")
        }
        RefProblem::KindNotAllowed { allowed } => {
            let a: Vec<String> = allowed.iter().map(GroupKind::to_string).collect();
            format!("kind not allowed (allowed: {})", a.join(", "))
        }
        RefProblem::SectionNotSupported { gk } => format!("{} sections cannot be targeted", gk.kind),
        RefProblem::CrossNamespaceForbidden => "cross-namespace reference not allowed".into(),
        RefProblem::CrossNamespaceNoGrant { namespace } => format!("no ReferenceGrant in `{namespace}` admits it"),
        RefProblem::NotFound { suggestion, elsewhere, unknown, .. } => {
            let mut s = not_found("", suggestion.as_deref());
            if suggestion.is_none() && !elsewhere.is_empty() {
                s.push_str(&format!(" (one exists in {})", elsewhere.join(", ")));
            }
            unknown_or(s, unknown.as_ref())
        }
        RefProblem::SectionNotFound { target, section, suggestion, .. } => {
            let noun = crate::model::section_noun(world.object(*target).kind());
            let mut s = format!("no {noun} `{section}`");
            if let Some(x) = suggestion {
                s.push_str(&format!("; did you mean `{x}`?"));
            }
            s
        }
    }
}

/// The reference written at `offset` in `file`, if any.
pub(crate) fn site_at<'w>(world: &'w Linked, file: &str, offset: u32) -> Option<RefSite<'w>> {
    objects_in(world, file)
        .into_iter()
        .filter(|&id| world.object(id).span.contains_inclusive(offset))
        .flat_map(|id| sites(world, id))
        .find(|s| s.span.contains_inclusive(offset))
}

/// A section's declared name and the span of its whole item.
pub(crate) fn section_decl(world: &Linked, obj: ObjId, i: u32) -> Option<(&str, Span, Span)> {
    let i = i as usize;
    match &world.object(obj).body {
        Body::Gateway(g) => g.listeners.get(i).map(|l| (l.name.value.as_str(), l.name.span, l.span)),
        Body::ListenerSet(ls) => ls.listeners.get(i).map(|l| (l.name.value.as_str(), l.name.span, l.span)),
        Body::Route(r) => r.rules.get(i).and_then(|r| r.name.as_ref().map(|n| (n.value.as_str(), n.span, r.span))),
        Body::Service(s) => s.ports.get(i).and_then(|p| p.name.as_ref().map(|n| (n.value.as_str(), n.span, p.span))),
        _ => None,
    }
}

/// Indices of an object's sections (only named rules and ports are sections).
pub(crate) fn section_indices(world: &Linked, obj: ObjId) -> Vec<u32> {
    let n = match &world.object(obj).body {
        Body::Gateway(g) => g.listeners.len(),
        Body::ListenerSet(ls) => ls.listeners.len(),
        Body::Route(r) => r.rules.len(),
        Body::Service(s) => s.ports.len(),
        _ => 0,
    };
    (0..n as u32).filter(|&i| section_decl(world, obj, i).is_some()).collect()
}

/// Where a target is declared: its `metadata.name`, or its section's name (the whole item when
/// a port has no name).
pub(crate) fn declaration(world: &Linked, target: Target) -> (Arc<str>, Span) {
    let file = world.file_of(target.obj).path.clone();
    let obj = world.object(target.obj);
    let span = match target.section {
        None => obj.name.span,
        Some(i) => match section_decl(world, target.obj, i) {
            Some((_, name, _)) => name,
            None => match &obj.body {
                Body::Service(s) => s.ports.get(i as usize).map_or(obj.name.span, |p| p.span),
                _ => obj.name.span,
            },
        },
    };
    (file, span)
}

/// The declaration at `offset`: an object's `kind` or `metadata.name`, or a section's name.
/// Returns the target and the span of the name (or kind) under the cursor.
pub(crate) fn declaration_at(world: &Linked, file: &str, offset: u32) -> Option<(Target, Span)> {
    for id in objects_in(world, file) {
        let obj = world.object(id);
        if !obj.span.contains_inclusive(offset) {
            continue;
        }
        if obj.name.span.contains_inclusive(offset) {
            return Some((Target::object(id), obj.name.span));
        }
        if obj.kind_span.contains_inclusive(offset) {
            return Some((Target::object(id), obj.kind_span));
        }
        for i in section_indices(world, id) {
            if let Some((_, name, _)) = section_decl(world, id, i)
                && name.contains_inclusive(offset)
            {
                return Some((Target { obj: id, section: Some(i) }, name));
            }
        }
    }
    None
}

/// What the reference or declaration at `offset` denotes, with the span under the cursor. On a
/// reference, the section when the cursor is on its `sectionName` (or `port`), else the object.
pub(crate) fn target_at(world: &Linked, file: &str, offset: u32) -> Option<(Target, Span)> {
    if let Some(s) = site_at(world, file, offset) {
        let obj = s.object?;
        let on = |sp: Option<Span>| sp.filter(|x| x.contains_inclusive(offset));
        if let (Some(span), Some(&i)) = (on(s.section_span).or(on(s.port_span)), s.sections.first()) {
            return Some((Target { obj, section: Some(i) }, span));
        }
        return Some((Target::object(obj), on(s.name_span).unwrap_or(s.span)));
    }
    declaration_at(world, file, offset)
}

/// A place that refers to a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Usage {
    pub file: Arc<str>,
    pub span: Span,
    /// The span holds the target's name (a rename edits it); false for a port number.
    pub is_name: bool,
}

/// Every reference in the workspace that names `target`, sorted by file and position.
pub(crate) fn usages(world: &Linked, target: Target) -> Vec<Usage> {
    let mut out = Vec::new();
    for &id in world.topology.referrers(target.obj) {
        for s in sites(world, id) {
            if !s.names(target) {
                continue;
            }
            if let Some((span, is_name)) = s.span_for(target) {
                out.push(Usage { file: world.file_of(id).path.clone(), span, is_name });
            }
        }
    }
    out.sort_by(|a, b| (&a.file, a.span.start).cmp(&(&b.file, b.span.start)));
    out.dedup();
    out
}
