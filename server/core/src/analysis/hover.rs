//! Hover: on a reference, a one-line summary of what it names; on a policy, its computed
//! status; on a target, every policy kind reaching it with the effective policy per path
//! (each leaf marked with its winning policy and strategy) and the policies that lost.

mod policy;
mod target;
mod yaml;

use super::Hover;
use super::refs::{RefSite, declaration_at, site_at};
use super::summary::{object_summary, plural, section_noun, section_summary};
use crate::workspace::{Snapshot, World};

pub fn hover(snap: &Snapshot, file: &str, offset: u32) -> Option<Hover> {
    let world = snap.world();
    if let Some(site) = site_at(world, file, offset) {
        return Some(reference(world, &site, offset));
    }
    let (t, span) = declaration_at(world, file, offset)?;
    let markdown = if t.section.is_none() && world.policy_kind(t.obj).is_some() {
        policy::hover(snap, t.obj)
    } else {
        target::hover(snap, t)
    };
    Some(Hover { span, markdown })
}

/// `Gateway infra/edge · 2 listeners · class eg`, `listener https of Gateway infra/edge ·
/// HTTPS :443`, or what is wrong: `Service shop/cartt · not found; did you mean `cart`?`.
fn reference(world: &World, site: &RefSite<'_>, offset: u32) -> Hover {
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
        (None, None) => text.push_str(" · not checked"),
        (None, Some(_)) => {}
    }
    Hover { span, markdown: text }
}
