//! Lifecycle: initialize, capabilities, progress, registrations, settings, logging, exit codes.

use serde_json::{Value, json};

use super::support::{TestServer, expect_snapshot};

fn methods(wire: &[Value], method: &str) -> Vec<Value> {
    wire.iter().filter(|m| m["method"] == method).cloned().collect()
}

#[test]
fn initialize_advertises_capabilities_and_utf16_by_default() {
    let s = TestServer::builder().fixture("lsp").start();
    let mut result = s.initialize_result.clone().unwrap();
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    result["serverInfo"]["version"] = json!("VERSION");
    expect_snapshot("initialize_result", &result);
    assert_eq!(s.shutdown(), 0);
}

#[test]
fn utf8_is_chosen_when_offered() {
    let s = TestServer::builder().fixture("lsp").encodings(&["utf-8", "utf-16"]).start();
    assert_eq!(s.initialize_result.as_ref().unwrap()["capabilities"]["positionEncoding"], "utf-8");
    // No positionEncodings at all (old clients): UTF-16.
    let mut caps = super::support::default_capabilities(&[]);
    caps.as_object_mut().unwrap().remove("general");
    let s2 = TestServer::builder().fixture("lsp").capabilities(caps).start();
    assert_eq!(s2.initialize_result.as_ref().unwrap()["capabilities"]["positionEncoding"], "utf-16");
}

/// The start-up conversation: configuration is asked for, watchers are registered, indexing
/// reports progress after creating its token, and the log says what was indexed.
#[test]
fn startup_asks_configuration_registers_watchers_and_reports_progress() {
    let mut s = TestServer::builder().fixture("lsp").start();
    // Registration runs beside indexing: it may come after the progress ends.
    s.wait_for(|m| m["method"] == "client/registerCapability");
    let wire = s.wire.clone();
    let config = methods(&wire, "workspace/configuration");
    let register = methods(&wire, "client/registerCapability");
    let create = methods(&wire, "window/workDoneProgress/create");
    let progress = methods(&wire, "$/progress");
    assert_eq!(create.len(), 1);
    // Every progress message uses the created token.
    for p in &progress {
        assert_eq!(p["params"]["token"], create[0]["params"]["token"]);
    }
    let strip_ids = |v: Vec<Value>| -> Vec<Value> {
        v.into_iter()
            .map(|mut m| {
                m.as_object_mut().unwrap().remove("id");
                m
            })
            .collect()
    };
    expect_snapshot(
        "startup",
        &s.normalize(&json!({
            "workspace/configuration": strip_ids(config),
            "client/registerCapability": strip_ids(register),
            "window/workDoneProgress/create": strip_ids(create),
            "$/progress": progress,
        })),
    );
    let logs = s.drain(std::time::Duration::from_millis(200));
    let all: Vec<Value> = wire.iter().chain(&logs).cloned().collect();
    assert!(
        methods(&all, "window/logMessage")
            .iter()
            .any(|m| m["params"]["message"].as_str().unwrap().contains("indexed 5 files")),
        "no indexing log message in {all:#?}"
    );
    assert_eq!(s.shutdown(), 0);
}

#[test]
fn no_progress_without_client_support() {
    let mut caps = super::support::default_capabilities(&["utf-16".into()]);
    caps["window"]["workDoneProgress"] = json!(false);
    let mut s = TestServer::builder().fixture("lsp").capabilities(caps).no_wait().start();
    // Diagnostics still arrive once indexing is done.
    s.diagnostics_for("policies/policies.yaml");
    assert!(methods(&s.wire, "$/progress").is_empty());
    assert!(methods(&s.wire, "window/workDoneProgress/create").is_empty());
}

#[test]
fn exit_without_shutdown_is_code_1() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit(), 1);
}

#[test]
fn requests_before_initialize_are_refused() {
    // `initialize` is what the builder sends first; a second one is an error.
    let mut s = TestServer::builder().fixture("lsp").start();
    let e = s.request("initialize", json!({"capabilities": {}})).unwrap_err();
    assert_eq!(e["code"], -32600);
    let ok = s.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": s.uri("shop/routes.yaml")}, "position": {"line": 0, "character": 0}}),
    );
    assert!(ok.is_ok());
}

#[test]
fn version_flag() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_policylens")).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("policylens {}", env!("CARGO_PKG_VERSION")));
}

/// `configPath` (from workspace/configuration) selects another config; changing it with
/// didChangeConfiguration re-reads settings and re-indexes.
#[test]
fn config_path_setting_and_did_change_configuration() {
    let alt = "exclude: [\"policies/**\", \"vendor/**\"]\n";
    let mut s = TestServer::builder()
        .fixture("lsp")
        .file("alt.policylens.yaml", alt)
        .settings(json!({"configPath": "alt.policylens.yaml"}))
        .start();
    // policies/ is excluded: nothing has diagnostics, so nothing is published.
    let pushed = s.drain(std::time::Duration::from_millis(300));
    assert!(methods(&pushed, "textDocument/publishDiagnostics").is_empty(), "{pushed:#?}");
    let ex = s.pull("policies/policies.yaml", None);
    assert_eq!(ex["items"], json!([]));

    s.set_settings(json!({}));
    s.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    s.wait_for(|m| m["method"] == "workspace/configuration");
    let d = s.diagnostics_for("policies/policies.yaml");
    assert_eq!(d["diagnostics"][0]["code"], "target-not-found");
}

/// Settings can come as initializationOptions from clients that do not answer
/// workspace/configuration.
#[test]
fn settings_from_initialization_options() {
    let mut caps = super::support::default_capabilities(&["utf-16".into()]);
    caps["workspace"]["configuration"] = json!(false);
    let mut s = TestServer::builder()
        .fixture("lsp")
        .file("alt.policylens.yaml", "exclude: [\"policies/**\", \"vendor/**\"]\n")
        .capabilities(caps)
        .init_options(json!({"configPath": "alt.policylens.yaml"}))
        .start();
    assert!(methods(&s.wire, "workspace/configuration").is_empty());
    assert_eq!(s.pull("policies/policies.yaml", None)["items"], json!([]));
}

/// A `configPath` that names nothing and a workspace folder that is gone are said in a
/// warning, and the rest is read; when nothing can be read, an error says why and the
/// workspace read before stays (an empty one would show every target as missing).
#[test]
fn what_cannot_be_read_is_said_and_the_rest_is_kept() {
    let mut s = TestServer::builder().fixture("lsp").settings(json!({"configPath": "gone.policylens.yaml"})).start();
    let warned = |m: &Value, typ: i64| m["method"] == "window/showMessage" && m["params"]["type"] == typ;
    let shown = s.wait_for(|m| warned(m, 2));
    let config = s.path("gone.policylens.yaml");
    assert_eq!(
        shown["params"]["message"],
        format!("policylens: configPath {} is not a file; analysing without a config", config.display())
    );
    let codes = |s: &mut TestServer| -> Vec<Value> {
        let items = s.pull("policies/policies.yaml", None)["items"].clone();
        items.as_array().unwrap().iter().map(|d| d["code"].clone()).collect()
    };
    let read = codes(&mut s);
    assert!(read.contains(&json!("target-not-found")), "{read:?}");

    let gone = s.path("").parent().unwrap().join(format!("policylens-gone-{}", std::process::id()));
    let gone_uri = super::support::file_uri(&gone);
    let added = json!({"event": {"added": [{"uri": gone_uri, "name": "gone"}], "removed": []}});
    s.notify("workspace/didChangeWorkspaceFolders", added);
    let shown = s.wait_for(|m| warned(m, 2) && m["params"]["message"].as_str().unwrap().contains("folder"));
    let gone_shown = gone.display();
    assert_eq!(
        shown["params"]["message"],
        format!(
            "policylens: workspace folder {gone_shown} is not a directory; skipped; configPath {} is not a file; analysing without a config",
            config.display()
        )
    );
    assert_eq!(codes(&mut s), read);

    // Only the missing folder left: nothing to read.
    let removed = json!({"event": {"added": [], "removed": [{"uri": s.root_uri(), "name": "root"}]}});
    s.notify("workspace/didChangeWorkspaceFolders", removed);
    let shown = s.wait_for(|m| warned(m, 1));
    assert_eq!(
        shown["params"]["message"],
        format!("policylens: cannot read the workspace: workspace folder {gone_shown} is not a directory; skipped")
    );
    assert_eq!(codes(&mut s), read);
}

/// An editor with a single file open names no folder: the server reads no directory of its
/// own (its working directory may be the home directory), and the first document opened
/// brings its repository as the root, as `check FILE` reads it.
#[test]
fn without_folders_an_opened_file_brings_its_repository() {
    const GATEWAY: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: edge\n  namespace: infra\nspec:\n  gatewayClassName: eg\n  listeners:\n  - name: https\n    port: 443\n    protocol: HTTPS\n";
    const ROUTE: &str = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: infra\nspec:\n  parentRefs:\n  - name: edge\n    sectionName: https\n";
    let mut s = TestServer::builder()
        .no_folders()
        .file(".git/HEAD", "ref: refs/heads/main\n")
        .file("infra/gateway.yaml", GATEWAY)
        .file("apps/route.yaml", ROUTE)
        .start();
    let ends = |s: &TestServer| -> Vec<Value> {
        s.wire
            .iter()
            .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
            .map(|m| m["params"]["value"]["message"].clone())
            .collect()
    };
    assert_eq!(ends(&s), [json!("0 files")]);
    s.open_disk("apps/route.yaml");
    s.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    assert_eq!(ends(&s), [json!("0 files"), json!("2 files")]);
    let hover = s.at("textDocument/hover", "apps/route.yaml", 7, 11).unwrap();
    assert!(hover["contents"]["value"].as_str().unwrap().contains("of Gateway infra/edge"), "{hover}");
}
