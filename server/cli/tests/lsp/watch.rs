//! Files not open in the editor stay current through workspace/didChangeWatchedFiles.

use std::time::Duration;

use serde_json::json;

use super::support::TestServer;

const BROKEN: &str = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: new\n  namespace: shop\nspec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      name: gone\n";

fn watched(s: &mut TestServer, rel: &str, typ: u32) {
    let uri = s.uri(rel);
    s.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri, "type": typ}]}));
}

#[test]
fn created_changed_deleted_files() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    std::fs::write(s.path("policies/new.yaml"), BROKEN).unwrap();
    watched(&mut s, "policies/new.yaml", 1);
    let d = s.diagnostics_for("policies/new.yaml");
    assert_eq!(d["diagnostics"][0]["code"], "target-not-found");

    std::fs::write(s.path("policies/new.yaml"), BROKEN.replace("gone", "storefront")).unwrap();
    watched(&mut s, "policies/new.yaml", 2);
    assert_eq!(s.diagnostics_for("policies/new.yaml")["diagnostics"], json!([]));

    std::fs::write(s.path("policies/new.yaml"), BROKEN).unwrap();
    watched(&mut s, "policies/new.yaml", 2);
    assert_eq!(s.diagnostics_for("policies/new.yaml")["diagnostics"].as_array().unwrap().len(), 1);

    std::fs::remove_file(s.path("policies/new.yaml")).unwrap();
    watched(&mut s, "policies/new.yaml", 3);
    assert_eq!(s.diagnostics_for("policies/new.yaml")["diagnostics"], json!([]));
}

/// Files the walk skips are skipped when they appear later, too.
#[test]
fn ignored_excluded_and_hidden_files_stay_out() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    for rel in ["generated/late.yaml", "vendor/late.yaml", ".hidden/late.yaml", "policies/late.txt"] {
        std::fs::write(s.path(rel), BROKEN).unwrap();
        watched(&mut s, rel, 1);
    }
    let rest = s.drain(Duration::from_millis(400));
    assert!(rest.iter().all(|m| m["method"] != "textDocument/publishDiagnostics"), "{rest:#?}");
}

/// An open document's text wins over disk events for it.
#[test]
fn open_documents_ignore_disk_events() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    s.open_disk("shop/routes.yaml");
    std::fs::write(s.path("shop/routes.yaml"), "").unwrap();
    watched(&mut s, "shop/routes.yaml", 2);
    let rest = s.drain(Duration::from_millis(300));
    assert!(rest.iter().all(|m| m["method"] != "textDocument/publishDiagnostics"), "{rest:#?}");
}

/// Editing the config on disk (excludes) re-indexes the workspace.
#[test]
fn config_change_reindexes() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    let config = std::fs::read_to_string(s.path(".policylens.yaml")).unwrap();
    std::fs::write(s.path(".policylens.yaml"), config.replace("[\"vendor/**\"]", "[\"vendor/**\", \"policies/**\"]"))
        .unwrap();
    watched(&mut s, ".policylens.yaml", 2);
    assert_eq!(s.diagnostics_for("policies/policies.yaml")["diagnostics"], json!([]));
    // .gitignore changes too: un-ignore generated/.
    std::fs::write(s.path(".gitignore"), "").unwrap();
    watched(&mut s, ".gitignore", 2);
    assert_eq!(s.diagnostics_for("generated/broken.yaml")["diagnostics"][0]["code"], "target-not-found");
}

/// The config open in the editor: its unsaved text is the config in force, and its errors
/// are published.
#[test]
fn open_config_document() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    s.open(".policylens.yaml", "exclude: [\"vendor/**\"]\nbogusKey: 1\n");
    let d = s.diagnostics_for(".policylens.yaml");
    assert_eq!(d["diagnostics"][0]["code"], "config");
}

/// Deleting a directory comes as one event; the files below it go with it.
#[test]
fn deleted_directory() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.diagnostics_for("policies/policies.yaml");
    s.drain(Duration::from_millis(200));
    std::fs::remove_dir_all(s.path("policies")).unwrap();
    watched(&mut s, "policies", 3);
    assert_eq!(s.diagnostics_for("policies/policies.yaml")["diagnostics"], json!([]));
    assert_eq!(s.pull("policies/unicode.yaml", None)["items"], json!([]));
}
