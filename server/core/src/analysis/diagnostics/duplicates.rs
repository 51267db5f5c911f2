//! `duplicate-object`: one identity defined more than once in one unit (docs/semantics.md
//! §4.5). Copies are how examples, tests and overlays are written, so this is off by default;
//! it is an error where one kustomization applies two instances of one identity (`kustomize
//! build` refuses that), and reported everywhere when the config turns the code on. Messages
//! name at most three other instances and count the rest, so the output never grows with the
//! square of the copies.

use super::{Code, Diagnostic, Severity};
use crate::source::Origin;
use crate::topology::Linked;
use crate::world::ObjId;

/// How many other instances a message names.
const NAMED: usize = 3;

/// With `only`, just the instances in that file; `enabled`: the config turned the code on.
/// The instances `removed` are not there (a what-if).
pub(super) fn check(world: &Linked, only: Option<&str>, enabled: bool, removed: &[ObjId], out: &mut Vec<Diagnostic>) {
    for group in world.duplicate_groups() {
        let group: Vec<ObjId> = group
            .into_iter()
            .filter(|&id| world.file_of(id).origin == Origin::Workspace && !removed.contains(&id))
            .collect();
        if group.len() < 2 || only.is_some_and(|p| !group.iter().any(|&id| &*world.file_of(id).path == p)) {
            continue;
        }
        // Instances one kustomization applies together.
        let mut by_root: Vec<(&str, Vec<ObjId>)> = Vec::new();
        for &id in &group {
            if let Some(root) = world.applied_by(id) {
                match by_root.iter_mut().find(|(r, _)| *r == &**root) {
                    Some((_, v)) => v.push(id),
                    None => by_root.push((root, vec![id])),
                }
            }
        }
        for (root, ids) in by_root.iter().filter(|(_, ids)| ids.len() > 1) {
            for (i, &id) in ids.iter().enumerate().skip(1) {
                let others: Vec<ObjId> = ids.iter().copied().filter(|&o| o != id).collect();
                let msg = format!(
                    "the kustomization {root} applies {} twice: {}; `kustomize build` refuses this (\"may not add resource with an already registered id\")",
                    world.key(id),
                    places(world, &others)
                );
                push(world, only, id, i, &others, msg, Severity::Error, out);
            }
        }
        if !enabled || by_root.iter().any(|(_, ids)| ids.len() > 1) {
            continue;
        }
        let hash = |id: ObjId| content_hash(world, id);
        let identical = group.iter().all(|&id| hash(id) == hash(group[0]));
        for (i, &id) in group.iter().enumerate().skip(1) {
            let others: Vec<ObjId> = group.iter().copied().filter(|&o| o != id).collect();
            let mut msg = format!("{} is also defined at {}", world.key(id), places(world, &others));
            msg.push_str(if identical {
                " (identical copies)"
            } else {
                "; each reference uses the copy nearest to it"
            });
            let severity = if identical { Severity::Information } else { Severity::Warning };
            push(world, only, id, i, &others, msg, severity, out);
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn push(
    world: &Linked,
    only: Option<&str>,
    id: ObjId,
    index: usize,
    others: &[ObjId],
    msg: String,
    severity: Severity,
    out: &mut Vec<Diagnostic>,
) {
    let file = &world.file_of(id).path;
    if only.is_some_and(|p| p != &**file) {
        return;
    }
    let mut d = Diagnostic::new(file, world.object(id).name.span, Code::DuplicateObject, msg).object(world, id);
    d.severity = severity;
    for (k, &o) in others.iter().take(NAMED).enumerate() {
        let f = world.file_of(o);
        let what = if k == 0 && index > 0 && o < id { "first definition" } else { "another definition" };
        d = d.related(&f.path, world.object(o).name.span, format!("{what} of {}", world.key(o)));
    }
    out.push(d);
}

/// `a.yaml:4, b.yaml:9, c.yaml:2 and 5 more places`.
fn places(world: &Linked, others: &[ObjId]) -> String {
    let place = |o: ObjId| {
        let f = world.file_of(o);
        format!("{}:{}", world.shown_path(&f.path), f.line_index().line_of(world.object(o).name.span.start) + 1)
    };
    let mut named: Vec<String> = others.iter().take(NAMED).map(|&o| place(o)).collect();
    named.dedup();
    let mut s = named.join(", ");
    if others.len() > NAMED {
        let more = others.len() - NAMED;
        s.push_str(&format!(" and {more} more place{}", if more == 1 { "" } else { "s" }));
    }
    s
}

fn content_hash(world: &Linked, id: ObjId) -> Option<u32> {
    let f = world.file_of(id);
    let span = world.object(id).span;
    let pos = f.objects.iter().position(|x| x.span == span)?;
    f.content_hashes.get(pos).copied()
}
