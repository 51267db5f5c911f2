//! `policylens graph` on the demo: exact JSON, dot and Mermaid (non-accepted policies
//! included, status-coloured), `--focus` and its errors.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// Runs the binary in the repo root: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("run policylens");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Compares with `tests/expected/NAME`; `UPDATE_EXPECT=1` rewrites the file.
fn expect_text(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, got).expect("write expected");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(got, want, "{} differs; rerun with UPDATE_EXPECT=1 and review the diff", path.display());
}

fn graph(args: &[&str]) -> String {
    let mut all = vec!["graph"];
    all.extend_from_slice(args);
    all.push("fixtures/demo");
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "");
    out
}

#[test]
fn demo_graph_json() {
    let out = graph(&["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json output");
    // Every policy of the demo is listed, the four broken ones as not accepted and unattached.
    let policies = v["policies"].as_array().expect("policies");
    assert_eq!(policies.len(), 11);
    let rejected: Vec<&str> =
        policies.iter().filter(|p| p["state"] == "notAccepted").filter_map(|p| p["key"].as_str()).collect();
    assert_eq!(
        rejected,
        [
            "AuthPolicy.kuadrant.io/shop/checkout-auth",
            "BackendTrafficPolicy.gateway.envoyproxy.io/shop/storefront-static",
            "ClientTrafficPolicy.gateway.envoyproxy.io/shop/storefront-client-timeouts",
            "RateLimitPolicy.kuadrant.io/infra/checkout-global-cap",
        ]
    );
    expect_text("demo-graph.json", &out);
}

#[test]
fn demo_graph_dot_and_mermaid() {
    expect_text("demo-graph.dot", &graph(&[]));
    expect_text("demo-graph.mmd", &graph(&["--format", "mermaid"]));
}

#[test]
fn focus_keeps_one_route_rules_neighbourhood_in_any_case() {
    let out = graph(&["--focus", "httproute/shop/checkout#pay"]);
    expect_text("demo-graph-focus.dot", &out);
    // Same node, same picture, however the kind is written.
    assert_eq!(graph(&["--focus", "HTTPRoute/shop/checkout#pay"]), out);
    let json = graph(&["--format", "json", "--focus", "HTTPRoute/shop/checkout#pay"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json output");
    let keys: Vec<&str> = v["nodes"].as_array().into_iter().flatten().filter_map(|n| n["key"].as_str()).collect();
    assert_eq!(
        keys,
        [
            "Service/payments/payments-api",
            "GatewayClass/eg",
            "Gateway/infra/edge",
            "HTTPRoute/shop/checkout",
            "Service/payments/payments-api#https",
            "Gateway/infra/edge#https",
            "HTTPRoute/shop/checkout#pay",
        ]
    );
}

#[test]
fn focus_on_nothing_says_what_was_meant() {
    let (code, out, err) = run(&["graph", "--focus", "HTTPRoute/shop/chekout", "fixtures/demo"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "policylens: `HTTPRoute/shop/chekout` is not in the workspace; did you mean `HTTPRoute/shop/checkout`?\n"
    );
    let (code, _, err) = run(&["graph", "--focus", "HTTPRoute", "fixtures/demo"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "policylens: `HTTPRoute` is not a reference; write `Kind[.group]/[namespace/]name[#section]`, e.g. `HTTPRoute/shop/checkout#pay`\n"
    );
}
