//! A policy's status and name in words, as every hover on a policy says them: its own hover
//! and what it contributes at each target.

use crate::effective::{Enforcement, PolicyStatus, Reason};
use crate::topology::Linked;
use crate::world::ObjId;

/// `("Accepted", "Enforced")`, `("Not accepted", "TargetNotFound")`; `None` when unknown.
pub(super) fn status_parts(status: Option<&PolicyStatus>) -> Option<(&'static str, &'static str)> {
    let s = status?;
    Some(if s.accepted {
        let e = match s.enforcement {
            Some(Enforcement::Enforced) | None => "Enforced",
            Some(Enforcement::PartiallyEnforced) => "PartiallyEnforced",
            Some(Enforcement::Overridden) => "Overridden",
            Some(Enforcement::NotEnforced) => "NotEnforced",
            Some(Enforcement::Unknown) => "effect unknown",
        };
        ("Accepted", e)
    } else {
        ("Not accepted", reason(s.reason))
    })
}

pub(super) fn reason(r: Reason) -> &'static str {
    match r {
        Reason::Accepted => "Accepted",
        Reason::Conflicted => "Conflicted",
        Reason::Invalid => "Invalid",
        Reason::TargetNotFound => "TargetNotFound",
    }
}

/// `ns/name`, or `name` for cluster-scoped objects.
pub(super) fn short_name(world: &Linked, id: ObjId) -> String {
    let name = &world.object(id).name.value;
    match world.namespace_of(id) {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

/// The policy's status in a few words: `Accepted · Enforced`, `Not accepted (TargetNotFound)`.
pub(super) fn status_words(status: Option<&PolicyStatus>) -> String {
    match status_parts(status) {
        Some(("Accepted", e)) => format!("Accepted · {e}"),
        Some((head, why)) => format!("{head} ({why})"),
        None => "Status unknown".to_owned(),
    }
}
