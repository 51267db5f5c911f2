//! No wrong answer in the situations where a naive server gives one (issue 33): requests sent
//! while the workspace is still being indexed, an open document whose diagnostics another
//! file's edit changed in a client that pulls but cannot be asked to pull again, and
//! completion inside a comment.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::TestServer;

fn progress_end(m: &Value) -> bool {
    m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
}

/// Indexing is stretched to 1.5 s; hover on a route, definition on a targetRef and the
/// completion of a name, sent before it ends, answer after it and exactly as a settled
/// server does. Before, the hover said that no policy reaches the route and the definition
/// was empty: only the open documents were analysed.
#[test]
fn requests_sent_while_indexing_wait_for_the_index() {
    let mut s = TestServer::builder()
        .fixture("demo")
        .env("POLICYLENS_TEST", "1")
        .env("POLICYLENS_TEST_INDEX_DELAY_MS", "1500")
        .no_wait()
        .start();
    s.open_disk("shop/routes.yaml");
    s.open_disk("policies/shop.yaml");
    let routes = s.uri("shop/routes.yaml");
    let policies = s.uri("policies/shop.yaml");
    let at = |uri: &str, line: u32, character: u32| json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    // `metadata.name: checkout` of the route; the targetRef's `name: checkout`; its value.
    let hover = s.send_request("textDocument/hover", at(&routes, 36, 9));
    let definition = s.send_request("textDocument/definition", at(&policies, 13, 12));
    let completion = s.send_request("textDocument/completion", at(&policies, 13, 12));
    // (Their answers and the progress end travel by separate queues to the wire, so the order
    // there proves nothing; the answers themselves do: from the open files alone they differ.)
    let early = [s.response(hover).unwrap(), s.response(definition).unwrap(), s.response(completion).unwrap()];
    s.wait_for(progress_end);
    s.settle();
    let settled = [
        s.at("textDocument/hover", "shop/routes.yaml", 36, 9).unwrap(),
        s.at("textDocument/definition", "policies/shop.yaml", 13, 12).unwrap(),
        s.at("textDocument/completion", "policies/shop.yaml", 13, 12).unwrap(),
    ];
    assert_eq!(early, settled);
    let hover = early[0]["contents"]["value"].as_str().unwrap();
    assert!(hover.contains("infra/edge-auth") && !hover.contains("No polic"), "{hover}");
    assert_eq!(s.normalize(&early[1])[0]["uri"], "file:///ROOT/shop/routes.yaml");
}

/// The capabilities Neovim 0.11 sends: it pulls diagnostics but has no
/// `workspace/diagnostics/refreshSupport`.
fn neovim_like() -> Value {
    let mut caps = super::support::default_capabilities(&["utf-16".into()]);
    caps["textDocument"]["diagnostic"] = json!({"dynamicRegistration": false});
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": false});
    caps
}

/// Such a client is offered no pull, so it shows what is pushed: after a route is renamed in
/// another file, the open policy file gets its new diagnostics at once, without an edit of
/// its own (before: the pulled set stayed stale until that buffer was edited).
#[test]
fn a_client_that_cannot_refresh_is_pushed_open_documents() {
    let mut s = TestServer::builder().fixture("lsp").capabilities(neovim_like()).start();
    let init = s.initialize_result.clone().unwrap();
    assert_eq!(init["capabilities"].get("diagnosticProvider"), None, "{init}");
    s.open_disk("policies/policies.yaml");
    let d = s.diagnostics_for("policies/policies.yaml");
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 1, "{d}");
    s.open_disk("shop/routes.yaml");
    s.change(
        "shop/routes.yaml",
        2,
        json!([{"range": {"start": {"line": 3, "character": 16}, "end": {"line": 3, "character": 16}}, "text": "2"}]),
    );
    let d = s.diagnostics_for("policies/policies.yaml");
    let codes: Vec<&str> = d["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["target-not-found", "target-not-found"], "{d}");
    assert_eq!(d["version"], 1);
    assert!(s.drain(Duration::from_millis(200)).iter().all(|m| m["method"] != "workspace/diagnostic/refresh"));
}

/// A client that cannot register watchers (Neovim on Linux) gets the server's own watch: a
/// file written from a shell, changed and deleted is seen without an event from the client.
#[test]
fn the_server_watches_the_disk_when_the_client_cannot() {
    let mut s = TestServer::builder().fixture("lsp").capabilities(neovim_like()).env("POLICYLENS_TEST", "1").start();
    assert_eq!(s.diagnostics_for("policies/policies.yaml")["diagnostics"].as_array().unwrap().len(), 1);
    let route =
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: storefrnt\n  namespace: shop\n";
    std::fs::write(s.path("shop/late.yaml"), route).unwrap();
    assert_eq!(s.diagnostics_for("policies/policies.yaml")["diagnostics"], json!([]));
    std::fs::write(s.path("shop/late.yaml"), route.replace("storefrnt", "other")).unwrap();
    assert_eq!(s.diagnostics_for("policies/policies.yaml")["diagnostics"].as_array().unwrap().len(), 1);
    std::fs::write(s.path("policies/new.yaml"), route.replace("HTTPRoute", "Service")).unwrap();
    std::fs::remove_file(s.path("shop/late.yaml")).unwrap();
    s.settle();
    // Ignored and excluded files stay out, as the walk leaves them out.
    std::fs::write(s.path("generated/late.yaml"), route.replace("storefrnt", "x").replace("name: x", "name: x\n  bad"))
        .unwrap();
    let rest = s.drain(Duration::from_millis(2500));
    assert!(rest.iter().all(|m| m["params"]["uri"] != s.uri("generated/late.yaml")), "{rest:#?}");
    assert!(
        s.wire.iter().all(|m| m["method"] != "client/registerCapability"
            || m["params"]["registrations"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["method"] != "workspace/didChangeWatchedFiles")),
        "no watcher registration without dynamic registration"
    );
}

/// A folder-less client (Neovim finding no root marker) on a copied example without `.git`
/// or `.policylens.yaml`: the root is the editor's working directory, above the opened file,
/// and the user is told so. Before, only the file's directory was read: every target in
/// another directory was reported missing.
#[test]
fn a_bare_directory_is_read_from_the_editor_working_directory() {
    // The demo without its config: a copied example with no root marker at all.
    let mut s = TestServer::builder().fixture("demo").remove(".policylens.yaml").no_folders().cwd_in_root().start();
    s.open_disk("policies/shop.yaml");
    // Said in the log and the status, never in a message box (a prompt in Neovim).
    let note = s.wait_for(|m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"].as_str().is_some_and(|t| t.starts_with("no .policylens.yaml"))
    });
    assert_eq!(
        s.normalize(&note["params"]),
        json!({"type": 3, "message": "no .policylens.yaml or .git above /ROOT/policies/shop.yaml: reading /ROOT (the editor's working directory) as the workspace root"})
    );
    let d = s.diagnostics_for("policies/shop.yaml");
    let codes: Vec<&str> = d["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["section-not-found", "target-kind-not-allowed", "target-not-found"]);
    let status = s.request("policylens/serverStatus", json!(null)).unwrap();
    let status = s.normalize(&status);
    assert_eq!(status["roots"], json!(["/ROOT"]));
    assert_eq!(status["rootReasons"], json!(["the editor's working directory"]));
    assert_eq!(status["state"], "ready");
    assert!(status["rootNote"].as_str().unwrap().starts_with("no .policylens.yaml or .git above"));
    assert!(s.wire.iter().all(|m| m["method"] != "window/showMessage"), "no message box");
}
