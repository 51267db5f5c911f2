//! Custom requests and invariant 7 (a panicking handler is answered with an error).

use serde_json::json;

use super::support::{TestServer, expect_snapshot};

#[test]
fn handler_panic_is_answered_and_the_server_keeps_running() {
    let mut s = TestServer::builder().fixture("lsp").env("POLICYLENS_TEST_PANIC", "1").start();
    let e = s.request("policylens/debugPanic", json!({})).unwrap_err();
    assert_eq!(e["code"], -32603);
    assert!(e["message"].as_str().unwrap().contains("deliberate panic"), "{e}");
    // Twice, and the next request still works.
    assert!(s.request("policylens/debugPanic", json!(null)).is_err());
    let d = s.pull("policies/policies.yaml", None);
    assert_eq!(d["items"].as_array().unwrap().len(), 1);
    s.open_disk("shop/routes.yaml");
    assert!(s.at("textDocument/hover", "shop/routes.yaml", 3, 10).is_ok());
    assert!(s.stderr().contains("policylens/debugPanic failed"), "{}", s.stderr());
    assert_eq!(s.shutdown(), 0);
}

#[test]
fn debug_requests_are_off_by_default() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let e = s.request("policylens/debugPanic", json!({})).unwrap_err();
    assert_eq!(e["code"], -32601);
}

/// What explain/status/graph answer, including their errors.
#[test]
fn explain_status_graph() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let explain = s.request("policylens/explain", json!({"target": "HTTPRoute/shop/checkout#pay"}));
    let status = s.request("policylens/status", json!({}));
    let graph = s.request("policylens/graph", json!({}));
    let bad = s.request("policylens/explain", json!({"target": ""}));
    let unknown = s.request("policylens/explain", json!({"target": "HTTPRoute/shop/chekout"}));
    let malformed = s.request("policylens/explain", json!({"target": "HTTPRoute"}));
    let missing = s.request("policylens/explain", json!({}));
    let as_json = |r: Result<serde_json::Value, serde_json::Value>| match r {
        Ok(v) => json!({"result": v}),
        Err(e) => json!({"error": e}),
    };
    expect_snapshot(
        "custom_requests",
        &s.normalize(&json!({
            "explain": as_json(explain),
            "status": as_json(status),
            "graph": as_json(graph),
            "explainEmptyTarget": as_json(bad),
            "explainNoTarget": as_json(missing),
            "explainUnknown": as_json(unknown),
            "explainMalformed": as_json(malformed),
        })),
    );
}

/// The custom requests answer exactly what `policylens explain|status --format json` print.
#[test]
fn explain_and_status_equal_the_cli_json() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let cli = |args: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_policylens"))
            .args(args)
            .current_dir(s.root.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let status_cli = cli(&["status", "--format", "json"]);
    let explain_cli = cli(&["explain", "--format", "json", "--target", "HTTPRoute/shop/checkout#pay"]);
    // The server names files by absolute path (clients open them), the CLI relative to its
    // directory: otherwise the reports are equal.
    let mut status_lsp = s.request("policylens/status", json!(null)).unwrap();
    let root = format!("{}/", s.root.path().display());
    for p in status_lsp["policies"].as_array_mut().unwrap() {
        let f = p["file"].as_str().unwrap().strip_prefix(&root).unwrap().to_owned();
        p["file"] = json!(f);
    }
    assert_eq!(status_lsp, status_cli);
    let ex = s.request("policylens/explain", json!({"target": "HTTPRoute/shop/checkout#pay"})).unwrap();
    assert_eq!(ex, explain_cli);
    assert!(!ex["policies"].as_array().unwrap().is_empty(), "{ex}");
    let graph_cli = std::process::Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(["graph", "--format", "mermaid"])
        .current_dir(s.root.path())
        .output()
        .unwrap();
    let graph = s.request("policylens/graph", json!({"format": "mermaid"})).unwrap();
    assert_eq!(graph["format"], "mermaid");
    assert_eq!(graph["graph"].as_str().unwrap(), String::from_utf8_lossy(&graph_cli.stdout));
    assert!(graph["graph"].as_str().unwrap().contains(":::enforced"), "{graph}");
    // The JSON form names the same nodes and policies as the CLI's (files are absolute here).
    let json_cli = std::process::Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(["graph", "--format", "json"])
        .current_dir(s.root.path())
        .output()
        .unwrap();
    let cli: serde_json::Value = serde_json::from_slice(&json_cli.stdout).unwrap();
    let lsp = s.request("policylens/graph", json!({"format": "json"})).unwrap();
    assert_eq!(lsp["format"], "json");
    let ids = |v: &serde_json::Value, list: &str| -> Vec<String> {
        v[list].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(ids(&lsp["graph"], "nodes"), ids(&cli, "nodes"));
    assert_eq!(ids(&lsp["graph"], "policies"), ids(&cli, "policies"));
    assert_eq!(lsp["graph"]["edges"], cli["edges"]);
}
