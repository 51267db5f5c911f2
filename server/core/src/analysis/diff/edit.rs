//! What an edit of one policy changes, before it is saved: the workspace with the file as
//! saved against the workspace with the editor's text, compared by [`compare`] on the targets
//! the policy reaches on either side and the policies of its kind. The hover on a policy being
//! edited shows it.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Report, Scope, Side, compare};
use crate::diagnostic::Diagnostic;
use crate::workspace::Snapshot;
use crate::world::ObjId;

/// The edit of `policy` (an object of `now`, in `file`) against `saved`, the same workspace
/// with `file` as it is on disk. Findings are left out (the editor shows them as they are).
/// `None` when the edit changes nothing of the kind's effective policies or statuses.
pub fn edit(saved: &Snapshot, now: &Snapshot, file: &str, policy: ObjId) -> Option<Report> {
    let (wn, ws) = (now.world(), saved.world());
    let gk = wn.policy_kind(policy)?.gk.clone();
    let key = wn.key(policy);
    // The same policy in the saved world: same identity, same file.
    let before = ws.policies.iter().copied().find(|&p| ws.key(p) == key && *ws.file_of(p).path == *file);
    let mut scope = Scope { kinds: vec![gk.clone()], ..Scope::default() };
    let mut add = |world: &crate::topology::Linked, index: &crate::effective::EffectiveIndex, p: ObjId| {
        for &n in index.status(p).map(|s| s.affects.as_slice()).unwrap_or(&[]) {
            scope.targets.entry(world.topology.node_key(world, n).to_string()).or_insert_with(|| vec![gk.clone()]);
        }
    };
    add(wn, now.effective(), policy);
    if let Some(b) = before {
        add(ws, saved.effective(), b);
    }
    let none: BTreeMap<Arc<str>, Vec<Diagnostic>> = BTreeMap::new();
    let (before, after) = (
        Side { label: "saved".into(), snap: saved, effective: saved.effective(), diagnostics: &none },
        Side { label: "this edit".into(), snap: now, effective: now.effective(), diagnostics: &none },
    );
    let r = compare(&before, &after, Some(&scope));
    (!r.effective.is_empty() || !r.status.is_empty()).then_some(r)
}
