//! Route diagnostics: parentRefs (backendRefs are `backends.rs`'s).

use super::{Code, Diagnostic, list, section_noun};
use crate::model::{Body, GroupKind};
use crate::topology::Linked;
use crate::topology::ParentResolution;
use crate::world::{ObjId, Wanted};

/// `removed`: the policies a what-if takes out (an ExtensionRef naming one names nothing).
pub(super) fn check(world: &Linked, removed: &[ObjId], out: &mut Vec<Diagnostic>) {
    let t = &world.topology;
    gateway_classes(world, out);
    for rid in t.routes() {
        let Body::Route(route) = &world.object(rid).body else { continue };
        let parents = t.parent_refs(rid);
        let file = &world.file_of(rid).path;
        let o = world.object(rid);
        // A delegated child route takes its requests from its parent route.
        if route.parent_refs.is_empty() && !o.templated && !t.is_delegated(rid) {
            out.push(
                Diagnostic::new(
                    file,
                    o.name.span,
                    Code::RouteWithoutParent,
                    format!(
                        "{} has no parentRefs: it attaches to no Gateway and no policy reaches it through one",
                        world.key(rid)
                    ),
                )
                .object(world, rid),
            );
        }
        for (p, res) in route.parent_refs.iter().zip(parents) {
            let name_span = p.name.as_ref().map_or(p.span, |n| n.span);
            let d = match res {
                ParentResolution::Attached { .. } | ParentResolution::Unchecked => continue,
                ParentResolution::NotFound { suggestion, unknown } => {
                    let kind = p.kind.as_ref().map_or("Gateway", |k| k.value.as_str());
                    let ns = p.namespace.as_ref().map(|n| n.value.as_str()).or(world.namespace_of(rid)).unwrap_or("");
                    let name = p.name.as_ref().map_or("", |n| n.value.as_str());
                    let default_group = if kind == "Service" { "" } else { "gateway.networking.k8s.io" };
                    let gk = GroupKind::new(p.group.as_ref().map_or(default_group, |g| g.value.as_str()), kind);
                    let mut msg = format!("{gk}/{ns}/{name} does not exist");
                    if let Some(s) = suggestion {
                        msg.push_str(&format!("; did you mean `{s}`?"));
                    }
                    Diagnostic::new(file, name_span, Code::ParentNotFound, msg)
                        .fix(suggestion.clone())
                        .unknown(unknown.clone())
                }
                ParentResolution::SectionNotFound { parent, available } => {
                    let span = p.section_name.as_ref().map_or(name_span, |s| s.span);
                    let section = p.section_name.as_ref().map_or("", |s| s.value.as_str());
                    let suggestion =
                        crate::suggest::closest(section, available.iter().map(String::as_str)).map(str::to_owned);
                    let noun = section_noun(world.object(*parent).kind());
                    // No sectionName: the parent has no listener at all to attach to.
                    let mut msg = match &p.section_name {
                        Some(_) => format!("{} has no {noun} `{section}`", world.key(*parent)),
                        None => format!("{} has no {noun}s: nothing to attach to", world.key(*parent)),
                    };
                    if let Some(s) = &suggestion {
                        msg.push_str(&format!("; did you mean `{s}`?"));
                    }
                    if p.section_name.is_some() {
                        msg.push_str(&format!(" ({noun}s: {})", list(available)));
                    }
                    let pf = &world.file_of(*parent).path;
                    Diagnostic::new(file, span, Code::ParentNotFound, msg)
                        .related(pf, world.object(*parent).name.span, "the parent")
                        .fix(suggestion)
                }
                ParentResolution::PortNotFound { parent, available } => {
                    let span = p.port.as_ref().map_or(name_span, |n| n.span);
                    let port = p.port.as_ref().map_or(0, |n| n.value);
                    let ports: Vec<String> = available.iter().map(i64::to_string).collect();
                    let msg = match &p.section_name {
                        Some(s) if !ports.is_empty() => {
                            format!("port `{}` of {} is {}, not {port}", s.value, world.key(*parent), list(&ports))
                        }
                        _ => format!("{} has no port {port} (ports: {})", world.key(*parent), list(&ports)),
                    };
                    let fix = (available.len() == 1).then(|| available[0].to_string());
                    Diagnostic::new(file, span, Code::ParentNotFound, msg)
                        .related(&world.file_of(*parent).path, world.object(*parent).name.span, "the parent")
                        .fix(fix)
                }
                ParentResolution::Refused { parent, reasons } => {
                    let msg = format!("{} does not admit this route: {}", world.key(*parent), reasons.join("; "));
                    let mut d = Diagnostic::new(file, name_span, Code::RouteNotAllowed, msg);
                    d = with_listener_locations(world, *parent, p.section_name.as_ref().map(|s| s.value.as_str()), d);
                    d
                }
            };
            out.push(d.object(world, rid));
        }
    }
    extension_refs(world, removed, out);
    for (&lid, res) in &t.listener_set_parents {
        let Body::ListenerSet(ls) = &world.object(lid).body else { continue };
        let Some(p) = &ls.parent_ref else { continue };
        let span = p.name.as_ref().map_or(p.span, |n| n.span);
        let file = &world.file_of(lid).path;
        let d = match res {
            ParentResolution::NotFound { suggestion, unknown } => {
                // Spelled as every other reference: `Gateway/infra/edge`.
                let spelled = p.spelled("Gateway", world.namespace_of(lid).unwrap_or(""));
                let mut msg = format!("{spelled} does not exist");
                if let Some(s) = suggestion {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                Diagnostic::new(file, span, Code::ParentNotFound, msg).fix(suggestion.clone()).unknown(unknown.clone())
            }
            // The ListenerSet counterpart of a listener refusing a route (both are the
            // parent's `*.namespaces.from` saying no; upstream reason `NotAllowed`).
            ParentResolution::Refused { parent, reasons } => {
                let msg = format!(
                    "{} does not admit this ListenerSet: {}; its listeners and their routes are not attached",
                    world.key(*parent),
                    reasons.join("; ")
                );
                Diagnostic::new(file, span, Code::RouteNotAllowed, msg).related(
                    &world.file_of(*parent).path,
                    world.object(*parent).name.span,
                    "the Gateway",
                )
            }
            _ => continue,
        };
        out.push(d.object(world, lid));
    }
}

/// Points related information at the listeners that refused.
fn with_listener_locations(world: &Linked, parent: ObjId, section: Option<&str>, mut d: Diagnostic) -> Diagnostic {
    let listeners = match &world.object(parent).body {
        Body::Gateway(g) => &g.listeners,
        Body::ListenerSet(ls) => &ls.listeners,
        _ => return d,
    };
    let kind = world.object(parent).kind();
    let file = &world.file_of(parent).path;
    for l in listeners.iter().filter(|l| section.is_none_or(|s| l.name.value == s)) {
        let span = l.allowed_routes.span.unwrap_or(l.name.span);
        d = d.related(file, span, format!("{} `{}`", section_noun(kind), l.name.value));
    }
    d
}

/// `gateway-class-not-found`: a Gateway whose class is neither in the world, nor declared
/// external, nor one an implementation creates itself, where its unit keeps GatewayClasses. One that keeps none gets its classes from
/// the cluster (the platform installs them), so nothing can be said there.
fn gateway_classes(world: &Linked, out: &mut Vec<Diagnostic>) {
    let gc = GroupKind::new(crate::model::GATEWAY_GROUP, "GatewayClass");
    let gw = GroupKind::new(crate::model::GATEWAY_GROUP, "Gateway");
    if world.objects_of(&gc).is_empty() {
        return;
    }
    for &id in world.objects_of(&gw) {
        let Body::Gateway(g) = &world.object(id).body else { continue };
        let Some(class) = &g.class_name else { continue };
        // `_` is no character of a Kubernetes name: it is a template placeholder.
        if class.value.is_empty()
            || class.value.contains('_')
            || crate::model::is_placeholder(&class.value)
            || world.lookup_from(id, &gc, None, &class.value).is_some()
            || world.is_external(&gc, None, &class.value)
            // A class an implementation creates itself (docs/semantics.md §4.4.1).
            || crate::catalog::controllers::created_class(&class.value).is_some()
        {
            continue;
        }
        let seen: Vec<&str> = world
            .objects_of(&gc)
            .iter()
            .copied()
            .filter(|&c| world.sees(id, c) && !world.object(c).templated)
            .map(|c| world.name_of(c))
            .collect();
        if seen.is_empty() {
            continue;
        }
        let suggestion = crate::suggest::closest(&class.value, seen).map(str::to_owned);
        let mut msg = format!(
            "GatewayClass/{} does not exist in the workspace; declare it in `external` if the cluster provides it",
            class.value
        );
        if let Some(s) = &suggestion {
            msg = format!("GatewayClass/{} does not exist; did you mean `{s}`?", class.value);
        }
        let wanted = Wanted { gk: &gc, namespace: None, name: &class.value };
        let unknown = world.certainty(id, &wanted, suggestion.is_some()).unknown();
        let d = Diagnostic::new(&world.file_of(id).path, class.span, Code::GatewayClassNotFound, msg)
            .object(world, id)
            .fix(suggestion)
            .unknown(unknown);
        out.push(d);
    }
}

/// `target-not-found` on an ExtensionRef filter naming a policy (of a kind that attaches this
/// way) that does not exist. Gateway API (HTTPRoute filters): a filter that does not resolve is
/// never skipped; the requests it would have handled get an HTTP error.
fn extension_refs(world: &Linked, removed: &[ObjId], out: &mut Vec<Diagnostic>) {
    let gone = |p: Option<ObjId>| p.is_none_or(|p| removed.contains(&p));
    for e in world.topology.extension_refs().iter().filter(|e| gone(e.policy)) {
        out.extend(missing_extension(world, e, removed));
    }
}

/// The finding of an ExtensionRef that names nothing (or only policies `removed`, in a
/// what-if: they are not suggested either).
fn missing_extension(
    world: &Linked,
    e: &crate::topology::ExtensionAttachment,
    removed: &[ObjId],
) -> Option<Diagnostic> {
    {
        if e.rule == crate::topology::VIRTUAL_HOST {
            return missing_delegate_option(world, e.route, e.filter, removed);
        }
        let Body::Route(route) = &world.object(e.route).body else { return None };
        let r = route.rules.get(e.rule as usize).and_then(|rule| rule.extension_refs.get(e.filter as usize))?;
        let (Some(group), Some(kind), Some(name)) = (&r.group, &r.kind, &r.name) else { return None };
        let gk = GroupKind::new(crate::model::normalize_group(&group.value), &kind.value);
        let ns = world.namespace_of(e.route).unwrap_or("");
        let suggestion =
            crate::suggest::closest(&name.value, names_left(world, e.route, &gk, ns, removed)).map(str::to_owned);
        let wanted = Wanted { gk: &gk, namespace: Some(ns), name: &name.value };
        let unknown = world.certainty(e.route, &wanted, suggestion.is_some()).unknown();
        // What requests meet is a claim about the filter being missing: unsaid where it is unknown.
        let mut msg = match unknown {
            None => format!(
                "{gk}/{ns}/{} does not exist: requests this rule handles get an HTTP error (an ExtensionRef filter that does not resolve is never skipped)",
                name.value
            ),
            Some(_) => format!("{gk}/{ns}/{} does not exist", name.value),
        };
        if let Some(s) = &suggestion {
            msg.push_str(&format!("; did you mean `{s}`?"));
        }
        Some(
            Diagnostic::new(&world.file_of(e.route).path, name.span, Code::TargetNotFound, msg)
                .fix(suggestion)
                .object(world, e.route)
                .unknown(unknown),
        )
    }
}

/// `target-not-found` on a Gloo VirtualService's `delegateOptions` item naming no
/// VirtualHostOption: Gloo reports a warning on the VirtualService and skips it (solo-io/gloo
/// `projects/gateway/pkg/translator/virtual_service_translator.go`).
/// The names of `gk` in `ns` that `from` sees, but those of objects `removed`.
fn names_left<'a>(
    world: &'a Linked,
    from: ObjId,
    gk: &GroupKind,
    ns: &str,
    removed: &'a [ObjId],
) -> impl Iterator<Item = &'a str> + 'a {
    world
        .objects_in(gk, ns)
        .iter()
        .copied()
        .filter(move |&o| world.sees(from, o) && !removed.contains(&o))
        .map(|o| world.name_of(o))
}

fn missing_delegate_option(world: &Linked, vs: ObjId, index: u32, removed: &[ObjId]) -> Option<Diagnostic> {
    let Body::Other(o) = &world.object(vs).body else { return None };
    let r = o.delegate_options.get(index as usize)?;
    let name = r.name.as_ref()?;
    let gk = GroupKind::new("gateway.solo.io", "VirtualHostOption");
    let ns = r.namespace.as_ref().map(|n| n.value.as_str()).or(world.namespace_of(vs)).unwrap_or("");
    let suggestion = crate::suggest::closest(&name.value, names_left(world, vs, &gk, ns, removed)).map(str::to_owned);
    let unknown = world
        .certainty(vs, &Wanted { gk: &gk, namespace: Some(ns), name: &name.value }, suggestion.is_some())
        .unknown();
    let mut msg = format!(
        "{gk}/{ns}/{} does not exist: Gloo skips it with a warning, and its options do not reach this virtual host",
        name.value
    );
    if let Some(s) = &suggestion {
        msg.push_str(&format!("; did you mean `{s}`?"));
    }
    Some(
        Diagnostic::new(&world.file_of(vs).path, name.span, Code::TargetNotFound, msg)
            .fix(suggestion)
            .object(world, vs)
            .unknown(unknown),
    )
}
