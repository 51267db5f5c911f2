//! The order policies are folded in at one node (docs/semantics.md §5 item 2): older
//! `creationTimestamp` first, objects without one counting as newer than every object with
//! one (they are not applied yet), then `{namespace}/{name}`. Across nodes, the path's order
//! (least specific first) comes first.

use std::cmp::Ordering;

use crate::world::ObjId;
use crate::world::World;

pub fn compare(world: &World, a: ObjId, b: ObjId) -> Ordering {
    let (oa, ob) = (world.object(a), world.object(b));
    // A file's object that replaces the live cluster's keeps the cluster's age.
    let (ca, cb) = (world.creation_timestamp(a), world.creation_timestamp(b));
    let (ta, tb) = ((ca.is_none(), ca), (cb.is_none(), cb));
    ta.cmp(&tb)
        .then_with(|| world.namespace_of(a).unwrap_or("").cmp(world.namespace_of(b).unwrap_or("")))
        .then_with(|| oa.name.value.cmp(&ob.name.value))
        .then_with(|| a.cmp(&b))
}

/// Sorts the policies attached at one node by [`compare`], except that `first` marks the policies that
/// attachment ranks above the rest whatever their age (an ExtensionRef filter's policy over
/// targetRef ones: Gloo Gateway RouteOption, kgateway TrafficPolicy).
pub fn sort_ranked(world: &World, ids: &mut [ObjId], first: impl Fn(ObjId) -> bool) {
    ids.sort_by(|&a, &b| first(b).cmp(&first(a)).then_with(|| compare(world, a, b)));
}
