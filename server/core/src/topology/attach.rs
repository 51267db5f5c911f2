//! Route attachment (docs/semantics.md §4.3): which listeners a route's parentRef binds to, and why a
//! listener refuses a route.

use super::{NodeId, ParentResolution, Topology, hostnames};
use crate::model::is_placeholder;
use crate::model::{
    Body, FromNamespaces, GATEWAY_GROUP, GroupKind, Listener, ListenerSet, ParentRef, Route, normalize_group,
};
use crate::suggest;
use crate::world::{ObjId, Wanted, World};

/// Resolves one parentRef of `route` (object `route_id`).
pub(super) fn resolve_parent(
    world: &World,
    t: &Topology,
    route_id: ObjId,
    route: &Route,
    p: &ParentRef,
) -> ParentResolution {
    let Some(name) = p.name.as_ref().map(|n| n.value.as_str()).filter(|n| !n.is_empty()) else {
        return ParentResolution::Unchecked;
    };
    let group = p.group.as_ref().map(|g| normalize_group(&g.value)).unwrap_or(GATEWAY_GROUP);
    let kind = p.kind.as_ref().map(|k| k.value.as_str()).unwrap_or("Gateway");
    let gk = GroupKind::new(group, kind);
    let route_ns = world.namespace_of(route_id).unwrap_or("");
    let ns = p.namespace.as_ref().map(|n| n.value.as_str()).unwrap_or(route_ns);

    let is_gateway = gk.is(GATEWAY_GROUP, "Gateway");
    let is_listener_set = gk.kind == "ListenerSet" || gk.kind == "XListenerSet";
    let is_mesh = gk.is("", "Service");
    if !(is_gateway || is_listener_set || is_mesh) {
        return ParentResolution::Unchecked;
    }
    let candidates = world.candidates_from(route_id, &gk, Some(ns), name);
    if candidates.ids.is_empty() {
        // A placeholder names nothing until it is filled in.
        if p.templated || is_placeholder(ns) || world.is_external(&gk, Some(ns), name) {
            return ParentResolution::Unchecked;
        }
        let suggestion = suggest::closest(name, world.names_seen_from(route_id, &gk, ns)).map(str::to_owned);
        let unknown =
            world.certainty(route_id, &Wanted { gk: &gk, namespace: Some(ns), name }, suggestion.is_some()).unknown();
        return ParentResolution::NotFound { suggestion, unknown };
    }
    // The copy of the parent that admits the route, else the nearest's refusal.
    candidates.first_satisfying(
        |parent| attach_to(world, t, route_id, route, p, parent, is_mesh),
        |r| matches!(r, ParentResolution::Attached { .. }),
        ParentResolution::Unchecked,
    )
}

/// How the parentRef `p` of `route` binds to `parent`, one instance of what it names.
fn attach_to(
    world: &World,
    t: &Topology,
    route_id: ObjId,
    route: &Route,
    p: &ParentRef,
    parent: ObjId,
    is_mesh: bool,
) -> ParentResolution {
    if is_mesh {
        return super::mesh::resolve_service_parent(world, t, parent, p);
    }
    let listeners: &[Listener] = match &world.object(parent).body {
        Body::Gateway(g) => &g.listeners,
        Body::ListenerSet(ls) => &ls.listeners,
        _ => return ParentResolution::Unchecked,
    };
    let section = p.section_name.as_ref().map(|s| s.value.as_str());
    let candidates: Vec<(usize, &Listener)> =
        listeners.iter().enumerate().filter(|(_, l)| section.is_none_or(|s| l.name.value == s)).collect();
    if candidates.is_empty() {
        // A listener a kustomize patch adds, or one past a YAML error in the Gateway's
        // document, is not read: trusted, not reported.
        if world.is_incomplete(parent) {
            return ParentResolution::Unchecked;
        }
        return ParentResolution::SectionNotFound {
            parent,
            available: listeners.iter().map(|l| l.name.value.to_string()).collect(),
        };
    }
    let parent_ns = world.namespace_of(parent).unwrap_or("");
    let mut nodes = Vec::new();
    let mut reasons = Vec::new();
    for (_, l) in candidates {
        let refusal = match p.port.as_ref().map(|pp| pp.value) {
            Some(port) if l.port != Some(port) => Some(format!(
                "listener `{}` listens on port {}, not {port}",
                l.name.value,
                l.port.map_or("?".to_owned(), |p| p.to_string())
            )),
            _ => refusal(world, l, parent_ns, route_id, route),
        };
        match refusal {
            None => {
                if let Some(n) = t.section_node(world, parent, &l.name.value) {
                    nodes.push(n);
                }
            }
            Some(r) => reasons.push(r),
        }
    }
    if nodes.is_empty() {
        ParentResolution::Refused { parent, reasons }
    } else {
        ParentResolution::Attached { parent, nodes }
    }
}

/// Whether Gateway `gw` would take route `route` on its listener named `section` (on any of its
/// listeners, when `None`): what a quick fix may point a parentRef at without a new finding.
pub(crate) fn would_admit(world: &World, gw: ObjId, section: Option<&str>, route: ObjId) -> bool {
    let (Body::Gateway(g), Body::Route(r)) = (&world.object(gw).body, &world.object(route).body) else { return false };
    let owner_ns = world.namespace_of(gw).unwrap_or("");
    g.listeners
        .iter()
        .filter(|l| section.is_none_or(|s| l.name.value == s))
        .any(|l| refusal(world, l, owner_ns, route, r).is_none())
}

/// Why listener `l` (of an object in `owner_ns`) refuses the route, or `None` if it admits it.
pub(super) fn refusal(world: &World, l: &Listener, owner_ns: &str, route_id: ObjId, route: &Route) -> Option<String> {
    let route_ns = world.namespace_of(route_id).unwrap_or("");
    let lname = &l.name.value;
    let who = Admitter { who: &format!("listener `{lname}`"), field: "allowedRoutes", what: "route" };
    if let Some(why) = namespace_refusal(world, &l.allowed_routes.namespaces, owner_ns, route_ns, &who) {
        return Some(why);
    }
    let kind = route.kind.kind();
    let route_group = world.object(route_id).group();
    if !l.allowed_routes.kinds.is_empty() {
        let ok =
            l.allowed_routes.kinds.iter().any(|k| {
                k.kind == kind && k.group.as_deref().map(normalize_group).unwrap_or(GATEWAY_GROUP) == route_group
            });
        if !ok {
            let kinds: Vec<&str> = l.allowed_routes.kinds.iter().map(|k| k.kind.as_str()).collect();
            return Some(format!("listener `{lname}` admits only {} routes, not {kind}", kinds.join(", ")));
        }
    } else if let Some(protocol) = &l.protocol {
        let supported: &[&str] = match protocol.as_str() {
            "HTTP" | "HTTPS" => &["HTTPRoute", "GRPCRoute"],
            "TLS" => &["TLSRoute", "TCPRoute"],
            "TCP" => &["TCPRoute"],
            "UDP" => &["UDPRoute"],
            _ => &[],
        };
        if !supported.is_empty() && !supported.contains(&kind) {
            return Some(format!("listener `{lname}` speaks {protocol}, which does not carry {kind}s"));
        }
    }
    if route.kind.has_hostnames()
        && !route.hostnames.is_empty()
        && let Some(h) = &l.hostname
        // A placeholder (`app.${SECRET_DOMAIN}`) may be any hostname once filled in.
        && !is_placeholder(&h.value)
        && !route.hostnames.iter().any(|rh| is_placeholder(&rh.value) || hostnames::intersect(&h.value, &rh.value))
    {
        let hs: Vec<&str> = route.hostnames.iter().map(|h| h.value.as_str()).collect();
        return Some(format!(
            "listener `{lname}` serves hostname `{}`, which matches none of the route's hostnames ({})",
            h.value,
            hs.join(", ")
        ));
    }
    None
}

/// Who admits what, for refusal messages: `listener `http`` admits routes by `allowedRoutes`,
/// a Gateway ListenerSets by `allowedListeners`.
pub(super) struct Admitter<'a> {
    pub who: &'a str,
    pub field: &'a str,
    pub what: &'a str,
}

/// Why `from` (of an object in `owner_ns`) refuses a child in `child_ns`, or `None` if it
/// admits it. A namespace whose Namespace object is not in the world has unknown labels: a
/// selector is assumed to admit it rather than report a refusal nobody can verify.
pub(super) fn namespace_refusal(
    world: &World,
    from: &FromNamespaces,
    owner_ns: &str,
    child_ns: &str,
    a: &Admitter<'_>,
) -> Option<String> {
    let Admitter { who, field, what } = a;
    match from {
        FromNamespaces::All => None,
        FromNamespaces::Same if child_ns == owner_ns => None,
        FromNamespaces::Same => Some(format!(
            "{who} only admits {what}s from its own namespace `{owner_ns}` ({field}.namespaces.from: Same), and this {what} is in `{child_ns}`"
        )),
        FromNamespaces::Selector(sel) => {
            if !world.has_namespace_object(child_ns) || sel.matches(&world.namespace_labels(child_ns)) {
                return None;
            }
            let want: Vec<String> = sel
                .match_labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .chain(
                    sel.match_expressions.iter().map(|e| format!("{} {} [{}]", e.key, e.operator, e.values.join(", "))),
                )
                .collect();
            Some(format!(
                "{who} only admits {what}s from namespaces selected by {{{}}}, and Namespace `{child_ns}` does not match",
                want.join(", ")
            ))
        }
        FromNamespaces::None => Some(format!("{who} admits no {what}s ({field}.namespaces.from: None)")),
        FromNamespaces::Unknown(v) => Some(format!("{who} has {field}.namespaces.from `{v}`, which admits nothing")),
    }
}

pub(super) fn resolve_listener_set_parent(world: &World, id: ObjId, ls: &ListenerSet) -> ParentResolution {
    let Some(p) = &ls.parent_ref else {
        return ParentResolution::Unchecked;
    };
    let Some(name) = p.name.as_ref().map(|n| n.value.as_str()) else {
        return ParentResolution::Unchecked;
    };
    let gk = GroupKind::new(
        p.group.as_ref().map(|g| g.value.as_str()).unwrap_or(GATEWAY_GROUP),
        p.kind.as_ref().map(|k| k.value.as_str()).unwrap_or("Gateway"),
    );
    let own_ns = world.namespace_of(id).unwrap_or("");
    let ns = p.namespace.as_ref().map(|n| n.value.as_str()).unwrap_or(own_ns);
    match world.lookup_from(id, &gk, Some(ns), name) {
        Some(parent) => match &world.object(parent).body {
            // gateway-api apis/v1 `AllowedListeners`: by default a Gateway admits no
            // ListenerSet; a refused one is `Accepted: False, reason: NotAllowed`.
            Body::Gateway(g) => {
                let key = world.key(parent).to_string();
                let who = Admitter { who: &key, field: "allowedListeners", what: "ListenerSet" };
                let parent_ns = world.namespace_of(parent).unwrap_or("");
                match namespace_refusal(world, &g.allowed_listeners, parent_ns, own_ns, &who) {
                    Some(why) => ParentResolution::Refused { parent, reasons: vec![why] },
                    None => ParentResolution::Attached { parent, nodes: Vec::<NodeId>::new() },
                }
            }
            _ => ParentResolution::Attached { parent, nodes: Vec::<NodeId>::new() },
        },
        None if p.templated || is_placeholder(ns) || world.is_external(&gk, Some(ns), name) => {
            ParentResolution::Unchecked
        }
        None => {
            let suggestion = suggest::closest(name, world.names_seen_from(id, &gk, ns)).map(str::to_owned);
            let unknown =
                world.certainty(id, &Wanted { gk: &gk, namespace: Some(ns), name }, suggestion.is_some()).unknown();
            ParentResolution::NotFound { suggestion, unknown }
        }
    }
}
