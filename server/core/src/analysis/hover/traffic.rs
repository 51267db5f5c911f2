//! Hover from a backend back: on a Service (or a port of one), the policies of the routes that
//! send it traffic, per route and rule; on a route's backendRefs entry, the policies in effect
//! where that entry is written. The same answer as `explain --target Service/…` (its
//! `traffic`), shown as the target hover shows a kind.

use crate::effective::{EffectiveIndex, Explanation, KindExplanation, explain};
use crate::topology::{Linked, NodeId, PathLimit};

/// Senders named in one hover; the rest are counted.
const MAX_SENDERS: usize = 4;

/// The paragraphs for `ex.traffic`: a heading per sender, then its kinds as `kind` renders
/// them.
pub(super) fn parts(ex: &Explanation, kind: &dyn Fn(&KindExplanation) -> String) -> Vec<String> {
    let mut out = Vec::new();
    if ex.traffic.is_empty() {
        return out;
    }
    out.push("**Traffic to it**: the policies on each route (or rule) that sends it requests".to_owned());
    for t in ex.traffic.iter().take(MAX_SENDERS) {
        out.push(format!("**From `{}`**", t.from));
        out.extend(t.policies.iter().map(kind));
        for i in &t.ignored {
            out.push(format!("`{}` is not enforced: {}", i.policy, i.message));
        }
    }
    if ex.traffic.len() > MAX_SENDERS {
        out.push(format!("… and {} more routes or rules", ex.traffic.len() - MAX_SENDERS));
    }
    out
}

/// What is in effect where a backendRef is written (its rule, or its route for an unnamed
/// rule): the traffic this entry sends. Nothing when no policy is.
pub(super) fn at_sender(
    world: &Linked,
    effective: &EffectiveIndex,
    sender: NodeId,
    kind: &dyn Fn(&KindExplanation) -> String,
) -> Vec<String> {
    let ex = explain(world, effective, sender, PathLimit(super::PATH_LIMIT));
    // Nothing governs them: the reference's own line says all there is.
    if ex.policies.is_empty() {
        return Vec::new();
    }
    let mut out = vec![format!("**Requests sent here** are governed by the policies on `{}`:", ex.target)];
    out.extend(ex.policies.iter().map(kind));
    out
}
