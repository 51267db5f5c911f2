//! The language server with `policylens.cluster.enabled`: the loopback API server's objects
//! complete the workspace, the log says what is connected and what was skipped, the cluster
//! is followed as it changes (watch events, `410 Gone` and a relist), and an unreachable
//! cluster leaves the workspace features running and is connected once it comes back.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::{TempDir, TestServer};
use policylens_bench::fake_api::{FakeApi, Watch, cluster, kubeconfig};

const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  parentRefs:\n  - name: edge\n    namespace: infra\n    sectionName: https\n  rules:\n  - name: pay\n    backendRefs:\n    - name: checkout\n      port: 8080\n";

/// The real kubectl, as `cluster_cli.rs` finds it (`.ci/run` installs it and requires it).
fn kubectl() -> Option<std::path::PathBuf> {
    let candidates = [
        std::env::var_os("POLICYLENS_KUBECTL").map(std::path::PathBuf::from),
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.kubectl-venv/bin/kubectl")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_file());
    assert!(
        found.is_some() || std::env::var_os("POLICYLENS_REQUIRE_KUBECTL").is_none(),
        "kubectl not found (POLICYLENS_KUBECTL or .kubectl-venv/bin/kubectl) and POLICYLENS_REQUIRE_KUBECTL is set"
    );
    found
}

/// The log line that says the cluster is read (information goes to the log, not to a message
/// box: Neovim shows those as a prompt that holds everything back until Enter is pressed).
fn connected(m: &Value) -> bool {
    m["method"] == "window/logMessage"
        && m["params"]["type"] == 3
        && m["params"]["message"].as_str().is_some_and(|t| t.starts_with("cluster `"))
}

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
    let shown = s.wait_for(connected);
    assert_eq!(
        shown["params"]["message"],
        format!(
            "cluster `fake` at {}/: 6 objects, watched; referencegrants.gateway.networking.k8s.io: not allowed to list (403); skipped",
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
    let shown = s.wait_for(connected);
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(text.starts_with(&format!("cluster `fake` at {addr}/: 6 objects, watched")), "{text}");
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
    s.wait_for(connected);
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

/// The editor over the audit cluster: hover on the route's rule lists the policies only the
/// cluster holds, marked so; go-to-definition on the parentRef opens the Gateway as the
/// read-only `policylens-cluster:` document the server serves (`workspace/textDocumentContent`,
/// registered with the client), at its name; workspace symbols include cluster objects; a
/// policy's hover says its reported status is stale.
#[test]
fn hover_and_the_cluster_objects_virtual_document() {
    let api = FakeApi::start_watching(
        policylens_bench::fake_api::serving(&policylens_bench::fake_api::audit_objects()),
        &[],
        HashMap::new(),
        true,
    );
    let dir = TempDir::new();
    let kc = kubeconfig(dir.path(), &api.addr);
    // The team's copy of the route, and of the SecurityPolicy the cluster holds at a newer
    // generation than its controller has reported on.
    let policy = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata:\n  name: checkout-cors\n  namespace: shop\nspec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: checkout\n    sectionName: pay\n  cors:\n    allowOrigins: [\"https://shop.example\"]\n";
    let mut s = TestServer::builder()
        .file("route.yaml", ROUTE)
        .file("policy.yaml", policy)
        .settings(json!({"cluster": {"enabled": true, "kubeconfig": kc.to_str().unwrap()}}))
        // `policylens/debugSettle`: the whole-workspace pass has run (stale-status is one of it).
        .env("POLICYLENS_TEST", "1")
        .start();
    s.wait_for(connected);
    // The server asks the client to fetch its cluster documents from it.
    let reg = s.wait_for(|m| {
        m["method"] == "client/registerCapability"
            && m["params"]["registrations"][0]["method"] == "workspace/textDocumentContent"
    });
    assert_eq!(reg["params"]["registrations"][0]["registerOptions"], json!({"schemes": ["policylens-cluster"]}));
    s.open_disk("route.yaml");

    // Hover on the rule `pay`: the team's policy and the cluster's, marked.
    let h = s.at("textDocument/hover", "route.yaml", 11, 12).unwrap();
    let text = h["contents"]["value"].as_str().unwrap();
    assert_eq!(
        text,
        "**rule pay of HTTPRoute shop/checkout · 1 backendRef**\n\n**BackendTrafficPolicy.gateway.envoyproxy.io** · `infra/edge-defaults` (cluster), `infra/edge-timeouts` (cluster)\n\n`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/checkout` › `HTTPRoute/shop/checkout#pay`\n```yaml\ntimeout:\n  http:\n    requestTimeout: 15s  # infra/edge-defaults · AtomicDefaults\n```\nLost: `infra/edge-timeouts` (Conflicted) to `infra/edge-defaults` — conflict\n\n**SecurityPolicy.gateway.envoyproxy.io** · `shop/checkout-cors`\n\n`GatewayClass/eg` › `Gateway/infra/edge` › `Gateway/infra/edge#https` › `HTTPRoute/shop/checkout` › `HTTPRoute/shop/checkout#pay`\n```yaml\ncors:\n  allowOrigins: [\"https://shop.example\"]  # shop/checkout-cors · AtomicDefaults\n```"
    );

    // Definition on the parentRef's name: the listener of the Gateway only the cluster holds.
    let d = s.at("textDocument/definition", "route.yaml", 7, 10).unwrap();
    let loc = &d[0];
    let uri = loc["uri"].as_str().unwrap();
    assert_eq!(uri, "policylens-cluster:/fake/infra/Gateway.gateway.networking.k8s.io/edge.yaml");
    let doc = s.request("workspace/textDocumentContent", json!({"uri": uri})).unwrap();
    let yaml = doc["text"].as_str().unwrap();
    assert_eq!(
        yaml,
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  creationTimestamp: \"2025-01-01T00:00:00Z\"\n  name: edge\n  namespace: infra\n  resourceVersion: \"4000\"\nspec:\n  gatewayClassName: eg\n  listeners:\n  - allowedRoutes:\n      namespaces:\n        from: Selector\n        selector:\n          matchLabels:\n            edge-access: \"true\"\n    name: https\n    port: 443\n    protocol: HTTPS\n"
    );
    let line = loc["range"]["start"]["line"].as_u64().unwrap() as usize;
    let (from, to) = (
        loc["range"]["start"]["character"].as_u64().unwrap() as usize,
        loc["range"]["end"]["character"].as_u64().unwrap() as usize,
    );
    // The parentRef names the listener `https` (its sectionName): the definition is its name.
    assert_eq!((line, from, to), (16, 10, 15));
    assert_eq!(&yaml.lines().nth(line).unwrap()[from..to], "https");
    // The document is what `kubectl get -o yaml` shows of the same object.
    if let Some(kubectl) = kubectl() {
        let out = std::process::Command::new(kubectl)
            .args([
                "--kubeconfig",
                kc.to_str().unwrap(),
                "get",
                "gateways.gateway.networking.k8s.io",
                "-n",
                "infra",
                "edge",
                "-o",
                "yaml",
            ])
            .env("HOME", dir.path())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), yaml, "{}", String::from_utf8_lossy(&out.stderr));
    }
    // What the cluster does not hold is an error, not an empty document.
    let missing = s.request(
        "workspace/textDocumentContent",
        json!({"uri": "policylens-cluster:/fake/infra/Gateway.gateway.networking.k8s.io/gone.yaml"}),
    );
    assert!(missing.is_err(), "{missing:?}");

    // Workspace symbols: the cluster's objects beside the files'.
    let syms = s.request("workspace/symbol", json!({"query": "edge"})).unwrap();
    assert_eq!(
        syms,
        json!([
            {"name": "edge-defaults", "kind": 11, "containerName": "live cluster", "location": {
                "uri": "policylens-cluster:/fake/infra/BackendTrafficPolicy.gateway.envoyproxy.io/edge-defaults.yaml",
                "range": {"start": {"line": 5, "character": 8}, "end": {"line": 5, "character": 21}}}},
            {"name": "edge-timeouts", "kind": 11, "containerName": "live cluster", "location": {
                "uri": "policylens-cluster:/fake/infra/BackendTrafficPolicy.gateway.envoyproxy.io/edge-timeouts.yaml",
                "range": {"start": {"line": 5, "character": 8}, "end": {"line": 5, "character": 21}}}},
            {"name": "edge", "kind": 5, "containerName": "live cluster", "location": {
                "uri": "policylens-cluster:/fake/infra/Gateway.gateway.networking.k8s.io/edge.yaml",
                "range": {"start": {"line": 4, "character": 8}, "end": {"line": 4, "character": 12}}}}
        ])
    );

    // Hover on the policy: its controller's status in the cluster is stale, not a disagreement.
    s.open_disk("policy.yaml");
    let h = s.at("textDocument/hover", "policy.yaml", 3, 9).unwrap();
    let text = h["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("\n\nLive cluster:\n- controller `gateway.envoyproxy.io/gatewayclass-controller` says Accepted=False (Invalid) for `Gateway/infra/edge` · computed: Accepted (**stale**: written for generation 2, the spec is at 3)\n\n"),
        "{text}"
    );
    // Published as information, and never as a disagreement.
    s.settle();
    assert_eq!(codes(&s.pull("policy.yaml", None)), ["stale-status"]);
    assert!(api.requests().iter().all(|(m, p)| m == "GET" && !p.contains("secrets")));
}
