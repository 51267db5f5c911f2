//! `policylens diff` over a real git history built here (commit, change a policy, commit) and
//! over two directories: effective-policy fields with their winners, status changes,
//! introduced and fixed findings, and the exit code.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn diff(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens")).arg("diff").args(args).current_dir(dir).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code().unwrap_or(-1), v)
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn diff_between_two_commits_and_the_working_tree() {
    let dir = std::env::temp_dir().join(format!("policylens-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&repo().join("fixtures/demo"), &dir);
    git(&dir, &["init", "-q"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-qm", "demo"]);
    // A team shortens its timeout on the `pay` rule.
    edit(&dir.join("policies/shop.yaml"), "requestTimeout: 30s", "requestTimeout: 10s");
    git(&dir, &["commit", "-qam", "shorter timeout"]);

    let (code, v) = diff(&dir, &["git:HEAD~1", "git:HEAD", "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["base"], "git:HEAD~1");
    assert_eq!(
        v["effective"],
        json!([{
            "target": "HTTPRoute/shop/checkout#pay",
            "kind": "BackendTrafficPolicy.gateway.envoyproxy.io",
            "path": ["GatewayClass/eg", "Gateway/infra/edge", "Gateway/infra/edge#https", "HTTPRoute/shop/checkout", "HTTPRoute/shop/checkout#pay"],
            "field": "/timeout/http/requestTimeout",
            "before": {"value": "30s", "policy": "BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-pay", "strategy": "AtomicDefaults"},
            "after": {"value": "10s", "policy": "BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-pay", "strategy": "AtomicDefaults"}
        }])
    );
    assert_eq!((v["status"].clone(), v["introduced"].clone(), v["fixed"].clone()), (json!([]), json!([]), json!([])));

    // In the working tree (not committed): the AuthPolicy typo is fixed, and a new typo breaks
    // the route's parentRef. The change introduces an error: exit 1.
    edit(&dir.join("policies/shop.yaml"), "name: chekout", "name: checkout");
    edit(&dir.join("shop/routes.yaml"), "sectionName: https      # checkout", "sectionName: htps      # checkout");
    let (code, v) = diff(&dir, &["git:HEAD", "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(v["head"], "working tree");
    let status: Vec<(String, Value, Value)> = v["status"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (s["policy"].as_str().unwrap().to_owned(), s["before"]["reason"].clone(), s["after"]["reason"].clone())
        })
        .collect();
    assert!(
        status.contains(&(
            "AuthPolicy.kuadrant.io/shop/checkout-auth".into(),
            json!("TargetNotFound"),
            json!("Accepted")
        )),
        "{status:?}"
    );
    let codes = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}:{} {}", f["file"].as_str().unwrap(), f["line"], f["code"].as_str().unwrap()))
            .collect()
    };
    // The route no longer attaching also ends the gateway default's partial override there.
    assert_eq!(
        codes("fixed"),
        ["policies/edge.yaml:34 partially-overridden", "policies/shop.yaml:90 target-not-found"]
    );
    assert!(
        codes("introduced").contains(&"shop/routes.yaml:43 parent-not-found".to_owned()),
        "{:?}",
        codes("introduced")
    );

    // Markdown for a pull-request comment.
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(["diff", "git:HEAD~1", "git:HEAD", "--format", "markdown"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("### policylens: what this change does\n\n`git:HEAD~1` → `git:HEAD`: 1 target's effective policy change, 0 policies change status, 0 findings introduced, 0 findings fixed.\n"), "{md}");
    assert!(md.contains("| `HTTPRoute/shop/checkout#pay` | BackendTrafficPolicy.gateway.envoyproxy.io | `timeout.http.requestTimeout` | `30s` (shop/checkout-pay) | `10s` (shop/checkout-pay) |"), "{md}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn diff_between_two_directories() {
    let root = std::env::temp_dir().join(format!("policylens-diff-dirs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    copy_dir(&repo().join("fixtures/repos/gitops"), &root.join("before"));
    copy_dir(&repo().join("fixtures/repos/gitops"), &root.join("after"));
    copy_dir(&repo().join("fixtures/repos/platform"), &root.join("platform"));
    // One repository holding both trees and the platform, as in fixtures/repos: a config's
    // `context: ["../platform"]` is read only inside its workspace (its git work tree).
    std::fs::create_dir_all(root.join(".git")).unwrap();
    edit(&root.join("after/apps/shop/policy.yaml"), "sectionName: htps", "sectionName: https");
    let (code, v) = diff(&root, &["before", "after", "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["fixed"][0]["code"], "section-not-found");
    assert_eq!(v["introduced"], json!([]));
    assert_eq!(v["status"][0]["policy"], "ClientTrafficPolicy.gateway.envoyproxy.io/infra/shop-client");
    assert_eq!(
        v["status"][0]["after"],
        json!({"accepted": true, "reason": "Accepted", "enforcement": "Enforced", "affects": 1})
    );
    std::fs::remove_dir_all(&root).ok();
}

/// One target reached by two paths (a route attached to both listeners of a Gateway). A field
/// that changes alike on both paths is one line under its target and kind; fields that change
/// differently are grouped under each path, so that two values of one field never read as a
/// contradiction. Policies are named short under their kind's heading, as `explain` does.
#[test]
fn diff_groups_a_targets_changes_by_path() {
    let root = std::env::temp_dir().join(format!("policylens-diff-paths-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let topology = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: edge, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}\n  - {name: https, port: 443, protocol: HTTPS, allowedRoutes: {namespaces: {from: All}}}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: checkout, namespace: shop}\nspec:\n  parentRefs: [{name: edge, namespace: infra}]\n  rules:\n  - name: pay\n    backendRefs: [{name: checkout, port: 8080}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: checkout, namespace: shop}\nspec:\n  ports: [{name: http, port: 8080}]\n";
    let gateway_policy = |timeout: &str| {
        format!(
            "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {{name: edge-defaults, namespace: infra}}\nspec:\n  targetRefs: [{{group: gateway.networking.k8s.io, kind: Gateway, name: edge}}]\n  timeout: {{http: {{requestTimeout: {timeout}}}}}\n"
        )
    };
    let https_policy = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: edge-https, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: edge, sectionName: https}]\n  timeout: {http: {requestTimeout: 5s}}\n";
    for (dir, policies) in [
        ("before", gateway_policy("30s")),
        ("alike", gateway_policy("20s")),
        ("apart", format!("{}---\n{https_policy}", gateway_policy("20s"))),
    ] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(root.join(dir).join("topology.yaml"), topology).unwrap();
        std::fs::write(root.join(dir).join("policies.yaml"), policies).unwrap();
    }
    let human = |head: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
            .args(["diff", "before", head])
            .current_dir(&root)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Both paths change alike: one line.
    assert_eq!(
        human("alike"),
        "before → alike: 1 target's effective policy change, 0 policies change status, 0 findings introduced, 0 findings fixed\n\nHTTPRoute/shop/checkout#pay\n  BackendTrafficPolicy.gateway.envoyproxy.io\n    timeout.http.requestTimeout: 30s (infra/edge-defaults) → 20s (infra/edge-defaults)\n"
    );
    // The https listener gets a policy of its own: each path says what it gets.
    assert_eq!(
        human("apart"),
        "before → apart: 1 target's effective policy change, 2 policies change status, 1 finding introduced, 0 findings fixed\n\nHTTPRoute/shop/checkout#pay\n  BackendTrafficPolicy.gateway.envoyproxy.io\n    via Gateway/infra/edge › Gateway/infra/edge#http › HTTPRoute/shop/checkout\n      timeout.http.requestTimeout: 30s (infra/edge-defaults) → 20s (infra/edge-defaults)\n    via Gateway/infra/edge › Gateway/infra/edge#https › HTTPRoute/shop/checkout\n      timeout.http.requestTimeout: 30s (infra/edge-defaults) → 5s (infra/edge-https)\n\npolicy status\n  BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults: Enforced, affects 1 → PartiallyEnforced, affects 1\n  BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-https: (absent) → Enforced, affects 1\n\nintroduced\n  policies.yaml:3: information[partially-overridden]: `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults` is superseded in part by `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-https`: on `HTTPRoute/shop/checkout#pay` (through `Gateway/infra/edge#https`), its whole spec; it is still in effect on the one effective target it reaches\n"
    );
    std::fs::remove_dir_all(&root).ok();
}
