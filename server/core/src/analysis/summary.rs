//! One-line descriptions of objects and sections, shared by hover (on a reference) and
//! completion details so that both say the same thing: `Gateway infra/edge · 3 listeners ·
//! class eg`, `listener · HTTPS :443`.

use super::refs::Target;
use crate::effective::{PolicyStatus, field_label};
use crate::model::Body;
use crate::topology::{Linked, NodeId};
use crate::world::ObjId;
use crate::world::World;

/// `1 listener`, `3 listeners`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// `Gateway infra/edge`, `GatewayClass eg`, `ServiceImport.multicluster.x-k8s.io shop/api`.
pub(crate) fn display_name(world: &World, id: ObjId) -> String {
    let o = world.object(id);
    match world.namespace_of(id) {
        Some(ns) => format!("{} {ns}/{}", o.group_kind(), o.name.value),
        None => format!("{} {}", o.group_kind(), o.name.value),
    }
}

/// For an object a Helm chart rendered from a release's values: `Rendered by the app-template
/// chart of HelmRelease `media/sonarr` from its values (`route.app`)`.
pub(crate) fn rendered_note(world: &World, id: ObjId) -> Option<String> {
    let release = world.rendered_by(id)?;
    let o = world.object(id);
    let item = world.file_of(id).slice(o.span);
    let key = item.split(':').next().unwrap_or_default().trim().trim_matches(|c| c == '"' || c == '\'');
    let under = if o.kind() == "Service" { "service" } else { "route" };
    let r = world.object(release);
    let at =
        world.namespace_of(release).map_or_else(|| r.name.value.to_string(), |ns| format!("{ns}/{}", r.name.value));
    let by = if (r.group(), r.kind()) == crate::model::HELM_CHART_ITEM {
        format!("the `helmCharts` release `{at}` of `{}`", world.shown_path(&world.file_of(release).path))
    } else {
        format!("{} `{at}`", r.kind())
    };
    Some(format!(
        "Rendered by the {} chart of {by} from its values (`{under}.{key}`)",
        crate::model::app_template::CHART
    ))
}

pub(crate) fn object_summary(world: &World, id: ObjId) -> String {
    let mut parts = vec![display_name(world, id)];
    match &world.object(id).body {
        Body::Gateway(g) => {
            parts.push(plural(g.listeners.len(), "listener"));
            if let Some(c) = &g.class_name {
                parts.push(format!("class {}", c.value));
            }
        }
        Body::ListenerSet(ls) => {
            parts.push(plural(ls.listeners.len(), "listener"));
            if let Some(p) = ls.parent_ref.as_ref().and_then(|p| p.name.as_ref()) {
                parts.push(format!("parent {}", p.value));
            }
        }
        Body::Route(r) => {
            parts.push(plural(r.rules.len(), "rule"));
            parts.push(plural(r.parent_refs.len(), "parentRef"));
        }
        Body::Service(s) if s.ports.is_empty() => parts.push("no ports".into()),
        Body::Service(s) => {
            let ports: Vec<String> = s
                .ports
                .iter()
                .map(|p| {
                    let n = p.port.map_or("?".to_owned(), |n| n.to_string());
                    match &p.name {
                        Some(name) => format!("{}:{n}", name.value),
                        None => n,
                    }
                })
                .collect();
            parts.push(format!("ports {}", ports.join(", ")));
        }
        Body::GatewayClass(c) => {
            if let Some(ctl) = &c.controller_name {
                parts.push(format!("controller {ctl}"));
            }
        }
        _ => {}
    }
    parts.join(" · ")
}

/// What a section is called: listener, rule or port.
pub(crate) fn section_noun(world: &World, id: ObjId) -> &'static str {
    crate::model::section_noun(world.object(id).kind())
}

/// `listener · HTTPS :443`, `rule · 2 backendRefs`, `port · 443`.
pub(crate) fn section_detail(world: &World, id: ObjId, i: u32) -> String {
    let noun = section_noun(world, id);
    let mut parts = vec![noun.to_owned()];
    let i = i as usize;
    match &world.object(id).body {
        Body::Gateway(_) | Body::ListenerSet(_) => {
            let listeners = match &world.object(id).body {
                Body::Gateway(g) => &g.listeners,
                Body::ListenerSet(ls) => &ls.listeners,
                _ => return noun.to_owned(),
            };
            if let Some(l) = listeners.get(i) {
                let proto_port = match (&l.protocol, l.port) {
                    (Some(p), Some(n)) => Some(format!("{p} :{n}")),
                    (Some(p), None) => Some(p.clone()),
                    (None, Some(n)) => Some(format!(":{n}")),
                    (None, None) => None,
                };
                parts.extend(proto_port);
                if let Some(h) = &l.hostname {
                    parts.push(h.value.to_string());
                }
            }
        }
        Body::Route(r) => {
            if let Some(rule) = r.rules.get(i) {
                parts.push(plural(rule.backend_refs.len(), "backendRef"));
            }
        }
        Body::Service(s) => {
            if let Some(n) = s.ports.get(i).and_then(|p| p.port) {
                parts.push(n.to_string());
            }
        }
        _ => {}
    }
    parts.join(" · ")
}

/// `listener https of Gateway infra/edge · HTTPS :443`.
pub(crate) fn section_summary(world: &World, id: ObjId, i: u32) -> String {
    let name = crate::topology::section_name(world, id, i).unwrap_or_default();
    let detail = section_detail(world, id, i);
    let noun = section_noun(world, id);
    let rest = detail.strip_prefix(noun).unwrap_or("");
    format!("{noun} {name} of {}{rest}", display_name(world, id))
}

pub(crate) fn target_summary(world: &World, t: Target) -> String {
    match t.section {
        None => object_summary(world, t.obj),
        Some(i) => section_summary(world, t.obj, i),
    }
}

/// What a policy of a target-optional kind (Istio's, or one something else attaches) applies
/// to when it names no target.
pub(crate) fn untargeted_scope(world: &crate::topology::Linked, pid: ObjId) -> Option<String> {
    let kind = world.policy_kind(pid)?;
    let res = world.topology.policies.get(&pid)?;
    if !kind.target_optional || !res.refs.is_empty() || !res.selected.is_empty() {
        return None;
    }
    if let Some(how) = &kind.untargeted {
        return Some(format!("Attached without a targetRef: {how}"));
    }
    let ns = world.namespace_of(pid).unwrap_or("default");
    let selector = match &world.object(pid).body {
        crate::model::Body::Other(o) => o.policy.workload_selector,
        _ => false,
    };
    Some(if selector {
        format!("Applies to the workloads its `selector` picks in namespace `{ns}` (no targetRef)")
    } else {
        format!("Applies to every workload in namespace `{ns}` (no targetRef or selector)")
    })
}

/// `on `T`, `a` and `b`; on `U` (through `R`), its whole spec` for the first places where a
/// policy lost something while applied, and how many more effective targets; shared by the
/// `partially-overridden` message and hover.
pub(crate) fn where_lost(world: &Linked, st: &PolicyStatus) -> Option<String> {
    const SHOWN: usize = 3;
    const FIELDS: usize = 4;
    let mut places: Vec<(NodeId, NodeId)> = st.lost.iter().map(|l| (l.target, l.through)).collect();
    places.dedup();
    if places.is_empty() {
        return None;
    }
    let parts: Vec<String> = places
        .iter()
        .take(SHOWN)
        .map(|&(t, via)| {
            let mut at = format!("on `{}`", world.topology.node_key(world, t));
            if via != t {
                at.push_str(&format!(" (through `{}`)", world.topology.node_key(world, via)));
            }
            let fields: Vec<&str> =
                st.lost.iter().filter(|l| (l.target, l.through) == (t, via)).map(|l| &*l.pointer).collect();
            if fields.iter().any(|p| p.is_empty()) {
                format!("{at}, its whole spec")
            } else {
                let named: Vec<String> = fields.iter().take(FIELDS).map(|p| format!("`{}`", field_label(p))).collect();
                let more = fields.len().saturating_sub(FIELDS);
                let more = if more > 0 { format!(" and {}", plural(more, "more field")) } else { String::new() };
                format!("{at}, {}{more}", named.join(", "))
            }
        })
        .collect();
    let mut s = parts.join("; ");
    let mut shown: Vec<NodeId> = places.iter().take(SHOWN).map(|p| p.0).collect();
    shown.dedup();
    let more = st.lost_targets.saturating_sub(shown.len());
    if more > 0 {
        s.push_str(&format!("; and on {}", plural(more, "more effective target")));
    }
    Some(s)
}
