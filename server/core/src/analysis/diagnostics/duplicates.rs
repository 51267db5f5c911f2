//! `duplicate-object`: one identity defined more than once in a world. Reported on every
//! instance after the first (path order), naming the others; information only when the copies
//! are identical or live in independent sibling folders (examples no reference crosses).

use std::collections::HashSet;

use super::{Code, Diagnostic, Severity};
use crate::source::Origin;
use crate::topology::Linked;
use crate::world::ObjId;

/// With `only`, just the instances in that file.
pub(super) fn check(world: &Linked, only: Option<&str>, out: &mut Vec<Diagnostic>) {
    let groups: Vec<Vec<ObjId>> = world
        .duplicate_groups()
        .into_iter()
        .map(|g| g.into_iter().filter(|&id| world.file_of(id).origin == Origin::Workspace).collect::<Vec<_>>())
        .filter(|g| g.len() > 1)
        .filter(|g| only.is_none_or(|p| g.iter().any(|&id| &*world.file_of(id).path == p)))
        .collect();
    if groups.is_empty() {
        return;
    }
    let crossings = crossings(world);
    for group in groups {
        let hash = |id: ObjId| content_hash(world, id);
        let identical = group.iter().all(|&id| hash(id) == hash(group[0]));
        for (i, &id) in group.iter().enumerate().skip(1) {
            let file = &world.file_of(id).path;
            if only.is_some_and(|p| p != &**file) {
                continue;
            }
            let others: Vec<ObjId> = group.iter().copied().filter(|&o| o != id).collect();
            let independent = others.iter().all(|&o| independent(world, &crossings, id, o));
            let first = group[0];
            let place = |o: ObjId| {
                let f = world.file_of(o);
                format!("{}:{}", f.path, f.line_index().line_of(world.object(o).name.span.start) + 1)
            };
            let mut msg = format!("{} is also defined at {}", world.key(id), place(first));
            if others.len() > 1 {
                msg.push_str(&format!(
                    " and {} more place{}",
                    others.len() - 1,
                    if others.len() == 2 { "" } else { "s" }
                ));
            }
            msg.push_str(if identical {
                " (identical copies)"
            } else if independent {
                " (independent folders: each reference uses the copy nearest to it)"
            } else {
                "; references use the copy nearest to them, and only one takes part where both would"
            });
            let mut d = Diagnostic::new(file, world.object(id).name.span, Code::DuplicateObject, msg).object(world, id);
            if identical || independent {
                d.severity = Severity::Information;
            }
            for &o in &others {
                let f = world.file_of(o);
                let what = if o == group[0] && i > 0 { "first definition" } else { "another definition" };
                d = d.related(&f.path, world.object(o).name.span, format!("{what} of {}", world.key(o)));
            }
            out.push(d);
        }
    }
}

fn content_hash(world: &Linked, id: ObjId) -> Option<u32> {
    let f = world.file_of(id);
    let span = world.object(id).span;
    let pos = f.objects.iter().position(|x| x.span == span)?;
    f.content_hashes.get(pos).copied()
}

/// The directory of a path (`""` at the root).
fn dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Directory pairs (referrer's, target's) of every reference between files in different
/// directories.
fn crossings(world: &Linked) -> HashSet<(String, String)> {
    world
        .topology
        .referrer_pairs()
        .filter_map(|(target, from)| {
            let (a, b) = (dir(&world.file_of(from).path), dir(&world.file_of(target).path));
            (a != b).then(|| (a.to_owned(), b.to_owned()))
        })
        .collect()
}

/// Whether two instances live in sibling folders that no reference crosses.
fn independent(world: &Linked, crossings: &HashSet<(String, String)>, a: ObjId, b: ObjId) -> bool {
    let (da, db) = (dir(&world.file_of(a).path), dir(&world.file_of(b).path));
    let common: Vec<&str> = da.split('/').zip(db.split('/')).take_while(|(x, y)| x == y).map(|(x, _)| x).collect();
    let depth = common.len();
    let top = |d: &str| -> Option<String> {
        let parts: Vec<&str> = d.split('/').collect();
        (parts.len() > depth && !d.is_empty()).then(|| parts[..=depth].join("/"))
    };
    let (Some(ta), Some(tb)) = (top(da), top(db)) else { return false };
    let under = |d: &str, t: &str| d == t || d.starts_with(&format!("{t}/"));
    !crossings.iter().any(|(f, t)| (under(f, &ta) && under(t, &tb)) || (under(f, &tb) && under(t, &ta)))
}
