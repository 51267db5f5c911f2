//! The language server with `policylens.cluster.enabled`: the loopback API server's objects
//! complete the workspace, a message says what is connected and what was skipped, and an
//! unreachable cluster leaves the workspace features running.

use serde_json::json;

use super::support::{TempDir, TestServer};
use crate::fake_api::{FakeApi, cluster, kubeconfig};

const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  parentRefs:\n  - name: edge\n    namespace: infra\n    sectionName: https\n  rules:\n  - name: pay\n    backendRefs:\n    - name: checkout\n      port: 8080\n";

fn codes(items: &serde_json::Value) -> Vec<String> {
    items["items"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap_or("").to_owned()).collect()
}

#[test]
fn the_cluster_completes_the_workspace_and_says_so() {
    let api = FakeApi::start(cluster(), &[]);
    let dir = TempDir::new();
    let kc = kubeconfig(dir.path(), &api.addr);
    let mut s = TestServer::builder()
        .file("route.yaml", ROUTE)
        .settings(json!({"cluster": {"enabled": true, "kubeconfig": kc.to_str().unwrap()}}))
        .start();
    let shown = s.wait_for(|m| m["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 3, "{shown}");
    assert_eq!(
        shown["params"]["message"],
        format!(
            "policylens: cluster `fake` at {}/: 6 objects; referencegrants.gateway.networking.k8s.io: not allowed to list (403); skipped",
            api.addr
        )
    );
    s.open_disk("route.yaml");
    assert_eq!(codes(&s.pull("route.yaml", None)), Vec::<String>::new());
    // Hover on the parentRef: the Gateway from the cluster.
    let h = s.at("textDocument/hover", "route.yaml", 7, 10).unwrap();
    assert_eq!(h["contents"]["value"], "listener https of Gateway infra/edge · HTTPS :443");
    assert!(api.requests().iter().all(|(m, p)| m == "GET" && !p.contains("secrets")));
}

#[test]
fn an_unreachable_cluster_leaves_the_files_analysed() {
    let addr = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let dir = TempDir::new();
    let kc = kubeconfig(dir.path(), &addr);
    let mut s = TestServer::builder()
        .file("route.yaml", ROUTE)
        .settings(json!({"cluster": {"enabled": true, "kubeconfig": kc.to_str().unwrap()}}))
        .start();
    let shown = s.wait_for(|m| m["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 2, "a warning: {shown}");
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(text.starts_with(&format!("policylens: cannot reach the cluster at {addr}/")), "{text}");
    assert!(text.ends_with("; analysing the workspace files alone"), "{text}");
    s.open_disk("route.yaml");
    assert_eq!(codes(&s.pull("route.yaml", None)), ["parent-not-found", "backend-not-found"]);
}
