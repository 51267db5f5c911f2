//! The workspace an editor's folder or lone file belongs to (issue 39 §1): the server walks up
//! as the CLI does (docs/configuration.md "What a PATH means") and says which root it chose. Before, a client rooted at
//! `demo/shop` (or a file opened alone) was analysed with that folder's files only: every
//! reference into `platform/` or `payments/` was a false `*-not-found`.

use serde_json::{Value, json};

use super::support::TestServer;

fn codes(params: &Value) -> Vec<String> {
    params["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap_or("").to_owned()).collect()
}

/// What was published per file (relative to the temp workspace), last set each, non-empty.
fn published(s: &TestServer) -> Vec<(String, Vec<String>)> {
    let mut last: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for m in s.wire.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics") {
        let uri = s.normalize(&m["params"]["uri"]);
        let rel = uri.as_str().unwrap().trim_start_matches("file:///ROOT/").to_owned();
        last.insert(rel, codes(&m["params"]));
    }
    last.into_iter().filter(|(_, c)| !c.is_empty()).collect()
}

/// VS Code opened on the demo's `shop/` folder: the whole demo is read (its `.policylens.yaml`
/// is above the folder), the findings of `shop/` alone are reported, the status says why.
#[test]
fn a_subfolder_is_read_within_its_workspace() {
    let mut s = TestServer::builder().fixture("demo").folder("shop").env("POLICYLENS_TEST", "1").start();
    s.settle();
    let status = s.request("policylens/serverStatus", json!(null)).unwrap();
    let status = s.normalize(&status);
    assert_eq!(status["roots"], json!(["/ROOT"]));
    assert_eq!(
        status["rootReasons"],
        json!(["its .policylens.yaml is the nearest above the workspace folder /ROOT/shop"])
    );
    assert_eq!(status["folders"], json!(["/ROOT/shop"]));
    assert_eq!(status["rootNote"], Value::Null);
    // The demo's one mistake in shop/ (MISTAKES.md #5), as `check fixtures/demo/shop` says.
    assert_eq!(status["diagnostics"], json!({"error": 1, "warning": 0, "information": 0, "hint": 0}));
    assert_eq!(published(&s), [("shop/routes.yaml".to_owned(), vec!["backend-not-permitted".to_owned()])]);
    // A file outside the folder is reported once opened: its own findings, none false.
    s.open_disk("policies/shop.yaml");
    let d = s.diagnostics_for("policies/shop.yaml");
    assert_eq!(codes(&d), ["section-not-found", "target-kind-not-allowed", "target-not-found"]);
    // The client watches its folder only (no watchers by base directory here): the server
    // watches the rest of the workspace itself. The payments team's grant, extended on disk,
    // admits the GRPCRoute.
    let grants = s.path("payments/reference-grants.yaml");
    let text = std::fs::read_to_string(&grants).unwrap();
    let grpc = text.replace(
        "  to:",
        "    - group: gateway.networking.k8s.io\n      kind: GRPCRoute\n      namespace: shop\n  to:",
    );
    std::fs::write(&grants, grpc).unwrap();
    let uri = s.uri("shop/routes.yaml");
    s.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"] == json!([])
    });
}

/// A client that can watch by base directory is asked to watch the workspace above its folder.
#[test]
fn the_workspace_above_a_folder_is_watched_by_its_path() {
    let mut caps = super::support::default_capabilities(&["utf-16".into()]);
    caps["workspace"]["didChangeWatchedFiles"]["relativePatternSupport"] = json!(true);
    let mut s = TestServer::builder().fixture("demo").folder("shop").capabilities(caps).start();
    let reg = s.wait_for(|m| {
        m["method"] == "client/registerCapability"
            && m["params"]["registrations"][0]["method"] == "workspace/didChangeWatchedFiles"
    });
    let watchers = s.normalize(&reg["params"]["registrations"][0]["registerOptions"]["watchers"]);
    let relative: Vec<&Value> = watchers.as_array().unwrap().iter().filter(|w| w["globPattern"].is_object()).collect();
    assert_eq!(
        relative,
        [
            &json!({"globPattern": {"baseUri": "file:///ROOT", "pattern": "**/*.{yaml,yml}"}}),
            &json!({"globPattern": {"baseUri": "file:///ROOT", "pattern": "**/.policylens.yaml"}}),
            &json!({"globPattern": {"baseUri": "file:///ROOT", "pattern": "**/.gitignore"}}),
        ]
    );
}

/// A YAML file opened with no folder at all (VS Code's "Open File…"): its workspace is the
/// demo, and the route's references resolve.
#[test]
fn a_lone_file_is_read_within_its_workspace() {
    let mut s = TestServer::builder().fixture("demo").no_folders().env("POLICYLENS_TEST", "1").start();
    s.open_disk("shop/routes.yaml");
    let d = s.diagnostics_for("shop/routes.yaml");
    assert_eq!(codes(&d), ["backend-not-permitted"]);
    s.settle();
    let status = s.request("policylens/serverStatus", json!(null)).unwrap();
    let status = s.normalize(&status);
    assert_eq!(status["roots"], json!(["/ROOT"]));
    assert_eq!(status["rootReasons"], json!(["its .policylens.yaml is the nearest above /ROOT/shop/routes.yaml"]));
    assert_eq!(status["folders"], json!([]));
    assert_eq!(status["rootNote"], Value::Null);
    // Every other file of the workspace: only the demo's deliberate mistakes.
    let all: usize = published(&s).iter().map(|(_, c)| c.len()).sum();
    assert_eq!(all, 9, "{:?}", published(&s));
}
