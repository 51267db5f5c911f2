//! Hover: on a reference, a one-line summary of what it names; on a policy, its computed
//! status; on a target, every policy kind reaching it with the effective policy per path
//! (each leaf marked with its winning policy and strategy) and the policies that lost.

mod contribution;
mod policy;
mod status;
mod target;
mod traffic;

use super::Hover;
use super::refs::{RefKind, RefSite, Target, declaration_at, objects_in, site_at};
use super::summary::{object_summary, plural, section_noun, section_summary};
use crate::effective::EffectiveIndex;
use crate::topology::Linked;
use crate::workspace::Snapshot;

/// Paths a hover enumerates per target (the target's, a policy's per target, a Service's
/// traffic); the rest are counted.
const PATH_LIMIT: usize = 256;

pub fn hover(snap: &Snapshot, file: &str, offset: u32) -> Option<Hover> {
    let world = snap.world();
    match on_reference(world, file, offset) {
        Some(Some(h)) => Some(h),
        Some(None) => with_effective(world, snap.effective(), file, offset),
        None => declaration(world, snap.effective(), file, offset),
    }
}

/// The object whose world answers the hover on a reference that needs effective policies: the
/// policy of a targetRef (what it contributes there), the route of a backendRef (what governs
/// the requests that entry sends).
pub(super) fn reference_owner(world: &Linked, file: &str, offset: u32) -> Option<crate::world::ObjId> {
    let site = site_at(world, file, offset)?;
    match site.kind {
        RefKind::PolicyTarget => policy_at(world, file, offset),
        RefKind::Backend => sender_of(world, file, &site).map(|(route, _)| route),
        _ => None,
    }
}

/// The hover on a reference [`reference_owner`] names an owner for, from `effective`.
pub(super) fn with_effective(world: &Linked, effective: &EffectiveIndex, file: &str, offset: u32) -> Option<Hover> {
    let site = site_at(world, file, offset)?;
    if site.kind == RefKind::PolicyTarget {
        return target_ref(world, effective, file, offset);
    }
    let mut h = reference(world, &site, offset);
    if let Some((_, sender)) = sender_of(world, file, &site) {
        let cluster = target::cluster_policies(world);
        let kind = |k: &crate::effective::KindExplanation| target::kind_section(k, &cluster);
        for p in traffic::at_sender(world, effective, sender, &kind) {
            h.markdown.push_str("\n\n");
            h.markdown.push_str(&p);
        }
    }
    Some(h)
}

/// The route a backendRef site is written in, and the node it sends traffic from: its rule, or
/// the route for an unnamed rule (`None` for a backend inside a policy's spec).
fn sender_of(world: &Linked, file: &str, site: &RefSite<'_>) -> Option<(crate::world::ObjId, crate::topology::NodeId)> {
    if site.kind != RefKind::Backend {
        return None;
    }
    let t = &world.topology;
    let at = site.span.start;
    let route = objects_in(world, file).into_iter().find(|&id| {
        world.object(id).span.contains_inclusive(at) && matches!(world.object(id).body, crate::model::Body::Route(_))
    })?;
    let crate::model::Body::Route(r) = &world.object(route).body else { return None };
    let rule = r.rules.iter().find(|rule| rule.span.contains_inclusive(at))?;
    let node = match &rule.name {
        Some(n) => t.section_node(world, route, &n.value)?,
        None => t.object_node(route),
    };
    Some((route, node))
}

/// The policy whose document holds `offset`.
pub(super) fn policy_at(world: &Linked, file: &str, offset: u32) -> Option<crate::world::ObjId> {
    objects_in(world, file)
        .into_iter()
        .find(|&id| world.object(id).span.contains_inclusive(offset) && world.policy_kind(id).is_some())
}

/// Hover on a policy's targetRef: what it names, then what the policy contributes there
/// (needs the policy kind's effective index: the snapshot's, or the policy's declaration
/// world's right after an edit).
fn target_ref(world: &Linked, effective: &EffectiveIndex, file: &str, offset: u32) -> Option<Hover> {
    let site = site_at(world, file, offset)?;
    let mut h = reference(world, &site, offset);
    let (Some(pid), Some(obj)) = (policy_at(world, file, offset), site.object) else { return Some(h) };
    let targets: Vec<Target> = if site.sections.is_empty() {
        vec![Target { obj, section: None }]
    } else {
        site.sections.iter().map(|&i| Target { obj, section: Some(i) }).collect()
    };
    h.markdown.push_str("\n\n");
    h.markdown.push_str(&contribution::on_target_ref(world, effective, pid, &targets));
    Some(h)
}

/// Hover on a declaration, from a world and its effective policies: the snapshot's, or a
/// declaration's partial world (`analysis::near`) holding everything above and below it.
pub(super) fn declaration(world: &Linked, effective: &EffectiveIndex, file: &str, offset: u32) -> Option<Hover> {
    let (t, span) = declaration_at(world, file, offset)?;
    let mut markdown = if t.section.is_none() && world.policy_kind(t.obj).is_some() {
        policy::hover(world, effective, t.obj)
    } else {
        target::hover(world, effective, t)
    };
    if t.section.is_none()
        && let Some(note) = super::summary::rendered_note(world, t.obj)
    {
        markdown.push_str(&format!("\n\n{note}."));
    }
    markdown.push_str(&instances(world, t.obj));
    markdown.push_str(&applied(world, t.obj));
    let target = t.node(world).map(|n| world.topology.node_key(world, n).to_string());
    Some(Hover { span, markdown, target })
}

/// Hover on the reference at `offset` in `world` (the snapshot's or the file's partial
/// world): `None` when there is none, `Some(None)` for a policy's targetRef or a route's
/// backendRef, whose hover needs the effective policies ([`with_effective`]).
pub(super) fn on_reference(world: &Linked, file: &str, offset: u32) -> Option<Option<Hover>> {
    let site = site_at(world, file, offset)?;
    let owned = site.kind == RefKind::PolicyTarget || sender_of(world, file, &site).is_some();
    Some((!owned).then(|| reference(world, &site, offset)))
}

/// `Gateway infra/edge · 2 listeners · class eg`, `listener https of Gateway infra/edge ·
/// HTTPS :443`, or what is wrong: `Service shop/cartt · not found; did you mean `cart`?`.
fn reference(world: &Linked, site: &RefSite<'_>, offset: u32) -> Hover {
    let span = [site.name_span, site.section_span, site.port_span]
        .into_iter()
        .flatten()
        .find(|s| s.contains_inclusive(offset))
        .unwrap_or(site.span);
    let mut text = match (site.object, site.sections.as_slice()) {
        (Some(obj), [i]) => section_summary(world, obj, *i),
        (Some(obj), []) => object_summary(world, obj),
        (Some(obj), many) => {
            let names: Vec<&str> = many.iter().filter_map(|&i| crate::topology::section_name(world, obj, i)).collect();
            let noun = section_noun(world, obj);
            format!("{} · {} {}", object_summary(world, obj), plural(names.len(), noun), names.join(", "))
        }
        (None, _) => site.written.clone(),
    };
    match (&site.problem, site.object) {
        (Some(p), _) => text.push_str(&format!(" · {p}")),
        (None, None) if is_external(world, &site.written) => text.push_str(" · declared external in .policylens.yaml"),
        (None, None) => text.push_str(" · not checked"),
        (None, Some(_)) => {}
    }
    if let Some(n) = &site.note {
        text.push_str(&format!(" · {n}"));
    }
    let target = site.object.and_then(|obj| {
        let section = match site.sections.as_slice() {
            [i] => Some(*i),
            _ => None,
        };
        Target { obj, section }.node(world).map(|n| world.topology.node_key(world, n).to_string())
    });
    Hover { span, markdown: text, target }
}

/// Whether a reference, as written (`Gateway infra/edge`), names an object the config
/// declares external.
fn is_external(world: &Linked, written: &str) -> bool {
    world.externals().any(|k| {
        let name = match &k.namespace {
            Some(ns) => format!("{} {ns}/{}", k.gk.kind, k.name),
            None => format!("{} {}", k.gk.kind, k.name),
        };
        written == name || written.starts_with(&format!("{name} "))
    })
}

/// What applies the object in a GitOps repository (docs/semantics.md §4.7).
fn applied(world: &Linked, id: crate::world::ObjId) -> String {
    match world.applier(id) {
        Some(a) => format!("\n\nApplied by {a}."),
        None if world.units.not_applied(&world.file_of(id).path) => {
            "\n\nApplied by no Flux Kustomization or Argo CD Application of this repository: analysed alone.".to_owned()
        }
        None => String::new(),
    }
}

/// For an identity defined more than once, where each definition is.
fn instances(world: &Linked, id: crate::world::ObjId) -> String {
    let all = world.instances(id);
    if all.len() < 2 {
        return String::new();
    }
    const SHOWN: usize = 5;
    let mut out = format!("\n\n**Defined {} times** (each reference uses the nearest definition):", all.len());
    // In path order, each with its unit where it is not the workspace's; this one always.
    let mut order: Vec<crate::world::ObjId> = all.iter().copied().take(SHOWN).collect();
    if !order.contains(&id) {
        order.push(id);
    }
    for &o in &order {
        let f = world.file_of(o);
        let line = f.line_index().line_of(world.object(o).name.span.start) + 1;
        let this = if o == id { " (this one)" } else { "" };
        let unit = match world.unit_of(o) {
            0 => String::new(),
            u => format!(" · {}", world.unit(u)),
        };
        out.push_str(&format!("\n- `{}:{line}`{unit}{this}", world.shown_path(&f.path)));
    }
    if all.len() > order.len() {
        out.push_str(&format!("\n- and {} more", all.len() - order.len()));
    }
    out
}
