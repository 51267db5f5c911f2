//! Contexts: which policies of a kind meet on the paths to each effective target.
//!
//! A path's *signature* is the list of its nodes that carry policies of the kind, least
//! specific first, with a Namespace node inserted right above the first object of the path
//! that lives in that namespace (docs/semantics.md §4.3). The fold depends on nothing else, so paths with
//! one signature share one fold, and the number of folds is the number of distinct
//! signatures, not of paths.
//!
//! Signatures are pushed down the DAG once per kind, in topological order, over the part of
//! the DAG that matters: below the policies' targets and above the kind's effective targets.
//! Each node keeps the distinct signatures that reach it (capped by [`PathLimit`](crate::topology::PathLimit)); a node
//! that adds nothing shares its parent's set.

mod folder;
mod plan;
mod scope;
mod scratch;
mod targets;
mod walk;

pub use folder::{Folder, SigFold};
pub use plan::{KindPlan, Sig};
pub use scope::Scope;
pub use scratch::Scratch;
pub use targets::{admits, is_effective, sections_of, service_port};
pub use walk::{Region, visit, visit_within};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{NodeId, PathLimit};
    use crate::workspace::Workspace;

    const CONFIG: &str = "\
policyKinds:
  - group: example.com
    kind: DeepPolicy
    class: Inherited
    targets:
      - {group: \"\", kind: Namespace}
      - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: true}
      - {group: \"\", kind: Service, sectionName: true}
    effectiveTarget: {group: \"\", kind: Service}
  - group: example.com
    kind: RoutePolicy
    class: Inherited
    targets:
      - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: true}
    effectiveTarget: {group: gateway.networking.k8s.io, kind: HTTPRoute}
";

    fn policy(kind: &str, name: &str, ns: &str, target: &str) -> String {
        let (tk, rest) = target.split_once('/').unwrap_or(("", ""));
        let (tname, section) = match rest.split_once('#') {
            Some((n, s)) => (n, format!(", sectionName: {s}")),
            None => (rest, String::new()),
        };
        let group = if matches!(tk, "Service" | "Namespace") { "\"\"" } else { "gateway.networking.k8s.io" };
        format!(
            "apiVersion: example.com/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: {ns}}}\nspec:\n  targetRefs:\n    - {{group: {group}, kind: {tk}, name: {tname}{section}}}\n  defaults: {{strategy: patch, {name}: 1}}\n"
        )
    }

    /// Contexts pushed down the DAG are exactly the signatures of the enumerated paths.
    #[test]
    fn effective_contexts_propagation_matches_paths() {
        let mut docs: Vec<String> = Vec::new();
        for g in 0..3 {
            docs.push(format!("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {{name: g{g}, namespace: infra}}\nspec:\n  gatewayClassName: c\n  listeners:\n    - {{name: a, port: 80, protocol: HTTP, allowedRoutes: {{namespaces: {{from: All}}}}}}\n    - {{name: b, port: 81, protocol: HTTP, allowedRoutes: {{namespaces: {{from: All}}}}}}\n"));
        }
        for r in 0..4 {
            let parents: Vec<String> =
                (0..3).filter(|g| (g + r) % 3 != 0).map(|g| format!("{{name: g{g}, namespace: infra}}")).collect();
            docs.push(format!(
                "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {{name: r{r}, namespace: app}}\nspec:\n  parentRefs: [{}]\n  rules:\n    - name: x\n      backendRefs: [{{name: s{}, port: 80}}, {{name: s2, port: 90}}]\n    - backendRefs: [{{name: s{}}}]\n",
                parents.join(", "),
                r % 2,
                (r + 1) % 3
            ));
        }
        // A mesh route: its parent is a Service, its backend another.
        docs.push("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: mesh, namespace: app}\nspec:\n  parentRefs: [{group: \"\", kind: Service, name: s0}]\n  rules:\n    - backendRefs: [{name: s1}]\n".into());
        // A cycle: a mesh route whose parent is also its backend.
        docs.push("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: loop, namespace: app}\nspec:\n  parentRefs: [{group: \"\", kind: Service, name: s2}]\n  rules:\n    - backendRefs: [{name: s2, port: 80}]\n".into());
        for s in 0..3 {
            docs.push(format!("apiVersion: v1\nkind: Service\nmetadata: {{name: s{s}, namespace: app}}\nspec:\n  ports: [{{name: http, port: 80}}, {{name: alt, port: 90}}]\n"));
        }
        docs.push("apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n".into());
        for (name, ns, target) in [
            ("nsapp", "app", "Namespace/app"),
            ("g0", "infra", "Gateway/g0"),
            ("g1a", "infra", "Gateway/g1#a"),
            ("r1", "app", "HTTPRoute/r1"),
            ("r2x", "app", "HTTPRoute/r2#x"),
            ("s1", "app", "Service/s1"),
            ("s2alt", "app", "Service/s2#alt"),
        ] {
            docs.push(policy("DeepPolicy", name, ns, target));
            if !target.starts_with("Service") && !target.starts_with("Namespace") {
                docs.push(policy("RoutePolicy", name, ns, target));
            }
        }
        let mut ws = Workspace::new();
        ws.set_config(Some(".policylens.yaml"), CONFIG);
        ws.set_file("a.yaml", docs.join("---\n"));
        let snap = ws.snapshot();
        let world = snap.world();
        let index = snap.effective();
        assert_eq!(index.plans.len(), 2);
        let ns_objects = super::super::namespace_objects(world, &index.plans);
        for plan in index.plans.values() {
            let specs = index.specs_at(world, plan, plan.attached.keys().copied());
            let folder = Folder::new(world, plan, &specs, None);
            let mut checked = 0;
            visit(&folder, &mut Scratch::new(world), &ns_objects, PathLimit::default(), &mut |target, ctxs| {
                let mut got: Vec<Vec<NodeId>> = ctxs.iter().map(|c| c.sig.to_vec()).collect();
                got.sort();
                let (paths, _) = world.topology.paths_to(world, target, PathLimit::default());
                let mut want: Vec<Vec<NodeId>> = paths.iter().map(|p| plan.path_signature(world, p).0).collect();
                want.sort();
                want.dedup();
                assert_eq!(got, want, "{} at {}", plan.kind.gk, world.topology.node_key(world, target));
                checked += 1;
            });
            assert!(checked >= 6, "{}: {checked} targets", plan.kind.gk);
        }
    }
}
