//! Go to definition (a ref → its target or section) and find references (a target → every
//! policy and route that points at it).

use super::Location;
use super::refs::{Target, declaration, site_at, target_at, usages};
use crate::topology::Linked;
use crate::workspace::Snapshot;

/// On any field of a targetRef, parentRef or backendRef (or a `gatewayClassName`): where its
/// target is declared: the object's `metadata.name`, or the exact listener, rule or port when
/// the ref names a section or matched a port. Nothing when the target does not exist.
pub fn definition(snap: &Snapshot, file: &str, offset: u32) -> Vec<Location> {
    definition_in(snap.world(), file, offset)
}

/// [`definition`] in `world`: the snapshot's or the file's partial world.
pub(super) fn definition_in(world: &Linked, file: &str, offset: u32) -> Vec<Location> {
    let Some(site) = site_at(world, file, offset) else { return Vec::new() };
    let Some(obj) = site.object else { return Vec::new() };
    let targets: Vec<Target> = if site.sections.is_empty() {
        vec![Target::object(obj)]
    } else {
        site.sections.iter().map(|&i| Target { obj, section: Some(i) }).collect()
    };
    targets
        .into_iter()
        .map(|t| {
            let (file, span) = declaration(world, t);
            Location { file, span }
        })
        .collect()
}

/// On a target's `kind` or `metadata.name`, on a listener, rule or port name, or on a
/// reference to one of those: every policy targetRef, route parentRef and backendRef that
/// points at it (their name, sectionName or port), sorted by file and position; the
/// declaration first when asked for.
pub fn references(snap: &Snapshot, file: &str, offset: u32, include_declaration: bool) -> Vec<Location> {
    let world = snap.world();
    let Some((target, _)) = target_at(world, file, offset) else { return Vec::new() };
    let mut out = Vec::new();
    if include_declaration {
        let (file, span) = declaration(world, target);
        out.push(Location { file, span });
    }
    out.extend(usages(world, target).into_iter().map(|u| Location { file: u.file, span: u.span }));
    out
}
