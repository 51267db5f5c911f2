//! Requests in a file edited since the last full analysis (`base`), answered from the file's
//! partial world (`Snapshot::near_world`) when their answer lies in it: what a reference names
//! (hover, definition) and what it could name (completion). A user who types and then hovers
//! or completes would otherwise wait for the whole workspace's analysis. A declaration's
//! status and effective policies come from its own partial world (`workspace/closure.rs`)
//! when that is smaller than the workspace, else from the full world.
//!
//! The partial world resolves the file's references exactly as the full world does (it holds
//! every file of the namespaces they reach); `tests/near.rs` checks these answers against the
//! full world's at every reference of real-shaped workspaces.

use super::hover::on_reference;
use super::refs::declaration_at;
use super::{CompletionItem, Hover, Location, completion, navigation};
use crate::topology::Linked;
use crate::workspace::Snapshot;
use std::sync::Arc;

/// The file's partial world, when it answers: `base` is given, the snapshot's own world is
/// not computed yet (then it answers at once), and the edit left the workspace-wide facts
/// alone.
fn near(snap: &Snapshot, base: Option<&Snapshot>, file: &str) -> Option<Arc<Linked>> {
    let base = base?;
    if snap.world_ready() || snap.same(base) {
        return None;
    }
    snap.near_world(file, base)
}

pub fn hover(snap: &Snapshot, base: Option<&Snapshot>, file: &str, offset: u32) -> Option<Hover> {
    if let Some(world) = near(snap, base, file) {
        match on_reference(&world, file, offset) {
            Some(Some(h)) => return Some(h),
            // A targetRef (what its policy contributes there) or a route's backendRef (what
            // governs the requests it sends): from the policy's or the route's world.
            Some(None) => {
                let owner = super::hover::reference_owner(&world, file, offset)?;
                if let Some(h) = in_declaration_world(snap, base, &world, owner, file, offset, true) {
                    return Some(h);
                }
            }
            None => {
                // Neither a reference nor a declaration: nothing to say, whatever the full world is.
                let (t, _) = declaration_at(&world, file, offset)?;
                if let Some(h) = in_declaration_world(snap, base, &world, t.obj, file, offset, false) {
                    return Some(h);
                }
            }
        }
    } else if let Some(b) = base.filter(|b| !snap.same(b) && snap.world_ready() && !snap.effective_ready()) {
        // The world is built but a full pass is still computing its effective policies: a hover
        // that needs them (on a targetRef or a declaration) takes the declaration's own world
        // rather than waiting for the whole workspace's.
        let world = snap.world();
        let owner = super::hover::reference_owner(world, file, offset);
        let owned_ref = super::refs::site_at(world, file, offset).map(|_| owner.is_some());
        let obj = match owned_ref {
            Some(true) => owner,
            Some(false) => None,
            None => declaration_at(world, file, offset).map(|(t, _)| t.obj),
        };
        if let Some(h) =
            obj.and_then(|o| in_declaration_world(snap, Some(b), world, o, file, offset, owned_ref == Some(true)))
        {
            return Some(h);
        }
    }
    super::hover(snap, file, offset)
}

/// The hover on a reference `obj` owns (a policy's targetRef, a route's backendRef) or on the
/// declaration `obj`, from the world of what lies above and below it; `None` when only the
/// full analysis answers.
fn in_declaration_world(
    snap: &Snapshot,
    base: Option<&Snapshot>,
    world: &Linked,
    obj: crate::world::ObjId,
    file: &str,
    offset: u32,
    reference: bool,
) -> Option<Hover> {
    let (world, effective) = snap.declaration_world(file, base?, world.object(obj))?;
    if reference {
        super::hover::with_effective(&world, &effective, file, offset)
    } else {
        super::hover::declaration(&world, &effective, file, offset)
    }
}

pub fn completions(snap: &Snapshot, base: Option<&Snapshot>, file: &str, offset: u32) -> Vec<CompletionItem> {
    match near(snap, base, file) {
        Some(world) => completion::completions_in(snap, &world, file, offset),
        None => completion::completions(snap, file, offset),
    }
}

/// The places in `file` that name what the cursor is on (an editor's highlights): its
/// declaration there (`true`) and the references to it there. The file's own references are
/// all in its partial world, so it answers right after an edit as the full world would.
pub fn highlights(
    snap: &Snapshot,
    base: Option<&Snapshot>,
    file: &str,
    offset: u32,
) -> Vec<(crate::syntax::Span, bool)> {
    let in_world = |world: &Linked| {
        let Some((target, _)) = super::refs::target_at(world, file, offset) else { return Vec::new() };
        let (decl_file, decl) = super::refs::declaration(world, target);
        let mut out: Vec<(crate::syntax::Span, bool)> = super::refs::usages(world, target)
            .into_iter()
            .filter(|u| *u.file == *file)
            .map(|u| (u.span, false))
            .collect();
        if *decl_file == *file {
            out.push((decl, true));
        }
        out.sort_by_key(|(s, _)| s.start);
        out
    };
    match near(snap, base, file) {
        Some(world) => in_world(&world),
        None => in_world(snap.world()),
    }
}

pub fn definition(snap: &Snapshot, base: Option<&Snapshot>, file: &str, offset: u32) -> Vec<Location> {
    match near(snap, base, file) {
        Some(world) => navigation::definition_in(&world, file, offset),
        None => navigation::definition(snap, file, offset),
    }
}
