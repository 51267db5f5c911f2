//! What `policylens-bench-sessions` (random editor sessions compared with `policylens check`)
//! found, pinned; and a short run of the harness itself so that it keeps working.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::{TestServer, repo_root};

const POLICY: &str = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: new\n  namespace: shop\nspec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      name: gone\n";

fn watched(s: &mut TestServer, rel: &str, typ: u32) {
    let uri = s.uri(rel);
    s.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri, "type": typ}]}));
}

/// Code and message of each pulled diagnostic, with its range.
fn pulled(s: &mut TestServer, rel: &str) -> Vec<Value> {
    s.settle();
    let items = s.pull(rel, None)["items"].clone();
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|d| json!({"range": d["range"], "code": d["code"], "message": d["message"]}))
        .collect()
}

fn binary_file_diagnostic() -> Value {
    json!({
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "code": "yaml-syntax",
        "message": "skipped: binary file (holds NUL bytes)",
    })
}

/// A new document saved to disk (the watcher's Created event arrives while it is open) and
/// then closed stays in the workspace as on disk; it used to be dropped, because the event
/// was ignored for open documents and the server did not know the file existed.
#[test]
fn a_document_saved_while_open_stays_after_closing() {
    let mut s = TestServer::builder().fixture("lsp").env("POLICYLENS_TEST", "1").start();
    s.drain(Duration::from_millis(100));
    s.open("policies/new.yaml", POLICY);
    std::fs::write(s.path("policies/new.yaml"), POLICY).unwrap();
    watched(&mut s, "policies/new.yaml", 1);
    s.close("policies/new.yaml");
    // The event's read of the file runs off the ordered writer and may land after the close:
    // what counts is that the file is there once both are applied.
    let start = std::time::Instant::now();
    while s.server_text("policies/new.yaml")["text"].is_null() {
        assert!(start.elapsed() < Duration::from_secs(10), "the saved document never came back after closing");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(s.server_text("policies/new.yaml")["text"], json!(POLICY));
    let d = pulled(&mut s, "policies/new.yaml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["code"], "target-not-found");
    assert_eq!(d[0]["message"], "HTTPRoute/shop/gone does not exist");
}

/// Closing a document whose file on disk is binary reports the file as `check` does; it used
/// to vanish from the workspace.
#[test]
fn closing_a_document_of_a_binary_file_reports_it() {
    let mut s = TestServer::builder()
        .fixture("lsp")
        .env("POLICYLENS_TEST", "1")
        .file("policies/bin.yaml", "kind: Gate\0way\n")
        .start();
    s.drain(Duration::from_millis(100));
    assert_eq!(pulled(&mut s, "policies/bin.yaml"), vec![binary_file_diagnostic()]);
    s.open("policies/bin.yaml", "kind: Gateway\n");
    s.close("policies/bin.yaml");
    assert_eq!(pulled(&mut s, "policies/bin.yaml"), vec![binary_file_diagnostic()]);
}

/// An editor buffer holding a NUL gets the answer `check` gives once it is saved (a binary
/// file), not YAML parse errors.
#[test]
fn an_open_document_with_a_nul_is_a_binary_file() {
    let mut s = TestServer::builder().fixture("lsp").env("POLICYLENS_TEST", "1").start();
    s.drain(Duration::from_millis(100));
    s.open("policies/new.yaml", "kind: Gate\0way\n");
    assert_eq!(pulled(&mut s, "policies/new.yaml"), vec![binary_file_diagnostic()]);
    s.change("policies/new.yaml", 2, json!([{"text": POLICY}]));
    let d = pulled(&mut s, "policies/new.yaml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0]["code"], "target-not-found");
}

/// The harness: a few short random sessions against the debug binary pass.
#[test]
fn random_editor_sessions_agree_with_check() {
    use policylens_bench::sessions::{Config, default_base, run_session};
    let cfg = Config {
        policylens: env!("CARGO_BIN_EXE_policylens").into(),
        base: default_base(&repo_root()).unwrap(),
        ops: 50,
        timeout: Duration::from_secs(30),
        keep: None,
    };
    for seed in [1, 2, 3] {
        let out = run_session(&cfg, seed);
        assert!(out.failures.is_empty(), "seed {seed}:\n{}\n{}", out.failures.join("\n"), out.log.join("\n"));
        assert!(out.requests > 0);
    }
}
