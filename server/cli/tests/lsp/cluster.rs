//! The language server with `policylens.cluster.enabled`: the loopback API server's objects
//! complete the workspace, a message says what is connected and what was skipped, the cluster
//! is followed as it changes (watch events, `410 Gone` and a relist), and an unreachable
//! cluster leaves the workspace features running and is connected once it comes back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::{TempDir, TestServer};
use policylens_bench::fake_api::{FakeApi, Watch, cluster, kubeconfig};

const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  parentRefs:\n  - name: edge\n    namespace: infra\n    sectionName: https\n  rules:\n  - name: pay\n    backendRefs:\n    - name: checkout\n      port: 8080\n";

fn codes(items: &serde_json::Value) -> Vec<String> {
    items["items"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap_or("").to_owned()).collect()
}

#[test]
fn the_cluster_completes_the_workspace_and_says_so() {
    let api = FakeApi::start_watching(cluster(), &[], HashMap::new(), true);
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
            "policylens: cluster `fake` at {}/: 6 objects, watched; referencegrants.gateway.networking.k8s.io: not allowed to list (403); skipped",
            api.addr
        )
    );
    // The progress says when the files are read and the cluster is being read, and what came.
    let progress: Vec<Value> = s
        .wire
        .iter()
        .filter(|m| m["method"] == "$/progress")
        .map(|m| m["params"]["value"].clone())
        .filter(|v| v["kind"] != "report" || v["percentage"].is_null())
        .collect();
    assert_eq!(
        progress,
        [
            json!({"kind": "begin", "title": "policylens: indexing", "cancellable": false, "percentage": 0}),
            json!({"kind": "report", "cancellable": false, "message": "reading the cluster (the current context)"}),
            json!({"kind": "end", "message": "1 file, 6 cluster objects"}),
        ]
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

    // The cluster comes back: the server tries again by itself and connects.
    let api = FakeApi::start_at(&addr, cluster());
    let shown = s.wait_for(|m| m["method"] == "window/showMessage" && m["params"]["type"] == 3);
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(text.starts_with(&format!("policylens: cluster `fake` at {addr}/: 6 objects, watched")), "{text}");
    let start = Instant::now();
    while !codes(&s.pull("route.yaml", None)).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(20), "the cluster's Gateway and Service never arrived");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(api.requests().iter().all(|(m, p)| m == "GET" && !p.contains("secrets")));
}

const POLICIES: &str = "/apis/gateway.envoyproxy.io/v1alpha1/backendtrafficpolicies";

/// Asks `explain` for the route's rule until `done` holds (the watch works in the background).
fn explain_until(s: &mut TestServer, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let ex = s.request("policylens/explain", json!({"target": "HTTPRoute/shop/checkout#pay"})).unwrap();
        if done(&ex) {
            return ex;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "{what}: {ex}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn timeout(ex: &Value) -> Option<&str> {
    ex["policies"][0]["contexts"][0]["effective"]["timeout"]["http"]["requestTimeout"].as_str()
}

#[test]
fn the_cluster_is_followed_as_it_changes() {
    // The platform's policy is changed in the cluster; later the watch's version is too old
    // (410 Gone), and by then the policy has been deleted: the relist must notice.
    let mut changed = cluster()[POLICIES].1["items"][0].clone();
    changed["apiVersion"] = json!("gateway.envoyproxy.io/v1alpha1");
    changed["kind"] = json!("BackendTrafficPolicy");
    changed["metadata"]["resourceVersion"] = json!("4720");
    changed["spec"]["timeout"]["http"]["requestTimeout"] = json!("25s");
    let scripts = HashMap::from([(
        POLICIES.to_owned(),
        vec![
            Watch::Events { events: vec![json!({"type": "MODIFIED", "object": changed})], hold_ms: 1500 },
            Watch::Gone,
        ],
    )]);
    let api = FakeApi::start_watching(cluster(), &[], scripts, true);
    let dir = TempDir::new();
    let kc = kubeconfig(dir.path(), &api.addr);
    let mut s = TestServer::builder()
        .file("route.yaml", ROUTE)
        .settings(json!({"cluster": {"enabled": true, "kubeconfig": kc.to_str().unwrap()}}))
        .start();
    s.wait_for(|m| m["method"] == "window/showMessage");
    s.open_disk("route.yaml");

    let ex = explain_until(&mut s, "the watched change", |ex| timeout(ex) == Some("25s"));
    assert_eq!(
        ex["policies"][0]["contexts"][0]["provenance"][0]["policy"],
        "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults"
    );
    // Deleted while the watch's version expires.
    let mut empty = cluster()[POLICIES].1.clone();
    empty["items"] = json!([]);
    api.set_route(POLICIES, 200, empty);
    explain_until(&mut s, "the relist after 410 Gone", |ex| ex["policies"] == json!([]));

    let requests = api.requests();
    assert!(requests.iter().all(|(m, p)| m == "GET" && !p.contains("secrets")), "{requests:?}");
    let policy_requests: Vec<&str> =
        requests.iter().map(|(_, p)| p.as_str()).filter(|p| p.starts_with(POLICIES)).collect();
    let lists = policy_requests.iter().filter(|p| !p.contains("watch=true")).count();
    let watches = policy_requests.iter().filter(|p| p.contains("watch=true")).count();
    assert_eq!(lists, 2, "the first list and the relist: {policy_requests:?}");
    assert!(watches >= 2, "a watch, and one after it ended: {policy_requests:?}");
    // Watches resume from the last version seen.
    assert!(
        policy_requests.iter().any(|p| p.contains("watch=true") && p.contains("resourceVersion=4720")),
        "{policy_requests:?}"
    );
}
