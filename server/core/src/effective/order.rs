//! The order policies are folded in at one node (docs/semantics.md §5 item 2): older
//! `creationTimestamp` first, objects without one counting as newer than every object with
//! one (they are not applied yet), then `{namespace}/{name}`. Across nodes, the path's order
//! (least specific first) comes first.

use std::cmp::Ordering;

use crate::workspace::{ObjId, World};

pub fn compare(world: &World, a: ObjId, b: ObjId) -> Ordering {
    let (oa, ob) = (world.object(a), world.object(b));
    let ta = (oa.creation_timestamp.is_none(), oa.creation_timestamp.as_deref());
    let tb = (ob.creation_timestamp.is_none(), ob.creation_timestamp.as_deref());
    ta.cmp(&tb)
        .then_with(|| world.namespace_of(a).unwrap_or("").cmp(world.namespace_of(b).unwrap_or("")))
        .then_with(|| oa.name.value.cmp(&ob.name.value))
        .then_with(|| a.cmp(&b))
}

pub fn sort(world: &World, ids: &mut [ObjId]) {
    ids.sort_by(|&a, &b| compare(world, a, b));
}
