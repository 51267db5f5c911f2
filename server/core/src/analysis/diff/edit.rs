//! What an edit of one policy changes, before it is saved: the workspace with the file as
//! saved against the workspace with the editor's text, compared by [`compare`] on the targets
//! the policy reaches on either side and the policies of its kind. The hover on a policy being
//! edited shows it.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Report, Scope, Side, compare};
use crate::diagnostic::Diagnostic;
use crate::effective::EffectiveIndex;
use crate::workspace::Snapshot;
use crate::world::ObjId;

/// The edit of `policy` (an object of `now`, in `file`) against `saved`, the same workspace
/// with `file` as it is on disk. Findings are left out (the editor shows them as they are).
/// `None` when the edit changes nothing of the kind's effective policies or statuses.
pub fn edit(saved: &Snapshot, now: &Snapshot, file: &str, policy: ObjId) -> Option<Report> {
    let (wn, ws) = (now.world(), saved.world());
    let gk = wn.policy_kind(policy)?.gk.clone();
    // The report reads the statuses and effective policies of the policy's kind only (its
    // scope), and kinds never merge: that kind's index alone answers as every kind's would,
    // for a fraction of the time and memory (at 10k objects the hover after an edit built
    // both sides' every kind, 14 of the server's 32 MB heap peak). A side whose whole index
    // is computed already (the full pass's) is read as it is.
    let (own_now, own_saved);
    let en: &EffectiveIndex = if now.effective_ready() {
        now.effective()
    } else {
        own_now = EffectiveIndex::build_for_kind(wn, &gk);
        &own_now
    };
    let es: &EffectiveIndex = if saved.effective_ready() {
        saved.effective()
    } else {
        own_saved = EffectiveIndex::build_for_kind(ws, &gk);
        &own_saved
    };
    let key = wn.key(policy);
    // The same policy in the saved world: same identity, same file.
    let before = ws.policies.iter().copied().find(|&p| ws.key(p) == key && *ws.file_of(p).path == *file);
    let mut scope = Scope { kinds: vec![gk.clone()], ..Scope::default() };
    let mut add = |world: &crate::topology::Linked, index: &crate::effective::EffectiveIndex, p: ObjId| {
        for &n in index.status(p).map(|s| s.affects.as_slice()).unwrap_or(&[]) {
            scope.targets.entry(world.topology.node_key(world, n).to_string()).or_insert_with(|| vec![gk.clone()]);
        }
    };
    add(wn, en, policy);
    if let Some(b) = before {
        add(ws, es, b);
    }
    let none: BTreeMap<Arc<str>, Vec<Diagnostic>> = BTreeMap::new();
    let (before, after) = (
        Side { label: "saved".into(), snap: saved, effective: es, diagnostics: &none },
        Side { label: "this edit".into(), snap: now, effective: en, diagnostics: &none },
    );
    let r = compare(&before, &after, Some(&scope));
    (!r.effective.is_empty() || !r.status.is_empty()).then_some(r)
}

#[cfg(test)]
mod tests {
    use crate::analysis::fixture;
    use crate::workspace::Snapshot;

    const SAVED: &str = "//- gw.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, port: 80, protocol: HTTP}
//- routes.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
//- svc.yaml
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: shop}
spec:
  ports: [{port: 80}]
//- rl.yaml
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: rl, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  limits: {global: {rates: [{limit: 5, window: 10s}]}}
//- btp.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: btp, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: a}
  timeout: {tcp: {connectTimeout: 5s}}
";

    /// The saved workspace and the one with the policy moved from route `a` to `b`, nothing
    /// computed, and the policy in the second.
    fn sides() -> (Snapshot, Snapshot, crate::world::ObjId) {
        let saved = fixture::parse(SAVED).workspace.snapshot();
        let text = saved.source("btp.yaml").map(|f| f.text().replace("name: a}", "name: b}")).unwrap_or_default();
        let now = saved.with_file("btp.yaml", text);
        let w = now.world();
        let policy = w.policies.iter().copied().find(|&p| w.object(p).name.value == "btp");
        (saved, now, policy.expect("btp is a policy"))
    }

    /// The policy's kind alone answers as the whole index does: the same report, field for
    /// field, whether or not the sides' indexes of every kind were computed first.
    #[test]
    fn one_kinds_index_reports_what_every_kinds_does() {
        let (saved, now, policy) = sides();
        let alone = super::edit(&saved, &now, "btp.yaml", policy).expect("the move changes the route's timeout");
        assert!(!saved.effective_ready() && !now.effective_ready());
        let (saved, now, policy) = sides();
        let _ = (saved.effective(), now.effective());
        let whole = super::edit(&saved, &now, "btp.yaml", policy).expect("the same with the whole indexes");
        let json = |r: &super::Report| serde_json::to_value(r).unwrap_or_default();
        assert_eq!(json(&alone), json(&whole));
        let targets: Vec<&str> = alone.effective.iter().map(|c| c.target.as_str()).collect();
        assert!(targets.iter().any(|t| t.contains("/a")) && targets.iter().any(|t| t.contains("/b")), "{targets:?}");
    }
}
