//! Push and pull diagnostics: closed files published, no flicker, result ids, encodings.

use std::time::Duration;

use serde_json::{Value, json};

use super::support::{TestServer, expect_snapshot};

fn published(wire: &[Value]) -> Vec<Value> {
    wire.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics").map(|m| m["params"].clone()).collect()
}

fn sorted_by_uri(mut v: Vec<Value>) -> Vec<Value> {
    v.sort_by(|a, b| a["uri"].as_str().cmp(&b["uri"].as_str()));
    v
}

/// After indexing, every file with diagnostics is published (none of them is open), and the
/// skipped files (git-ignored, excluded, hidden) are not read at all.
#[test]
fn initial_diagnostics_of_closed_files() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.diagnostics_for("policies/unicode.yaml");
    let all =
        sorted_by_uri(published(&s.drain(Duration::from_millis(300))).into_iter().chain(published(&s.wire)).collect());
    let mut seen = std::collections::BTreeMap::new();
    for p in all {
        seen.insert(p["uri"].as_str().unwrap().to_owned(), p);
    }
    let all: Vec<Value> = seen.into_values().collect();
    assert_eq!(all.len(), 2, "{all:#?}");
    expect_snapshot("initial_diagnostics_utf16", &s.normalize(&json!(all)));
}

#[test]
fn utf8_positions_when_negotiated() {
    let mut s = TestServer::builder().fixture("lsp").encodings(&["utf-8"]).start();
    let d = s.diagnostics_for("policies/unicode.yaml");
    // `"édge"`: 6 UTF-16 units, 7 UTF-8 bytes.
    assert_eq!(
        d["diagnostics"][0]["range"],
        json!({"start": {"line": 7, "character": 69}, "end": {"line": 7, "character": 76}})
    );
}

/// Fixing a typo clears its diagnostic; the other files are not republished; keystrokes in
/// an unrelated document publish nothing.
#[test]
fn fix_clears_and_unrelated_edits_publish_nothing() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    let text = s.open_disk("policies/policies.yaml");
    // Opening changes nothing: no republish.
    assert!(published(&s.drain(Duration::from_millis(200))).is_empty());
    let line = text.lines().position(|l| l.contains("storefrnt")).unwrap() as u32;
    // "storefrnt" -> "storefront": insert "o" after "storefr".
    s.change("policies/policies.yaml", 2, json!([{"range": {"start": {"line": line, "character": 19}, "end": {"line": line, "character": 19}}, "text": "o"}]));
    let d = s.diagnostics_for("policies/policies.yaml");
    assert_eq!(d, json!({"uri": s.uri("policies/policies.yaml"), "diagnostics": [], "version": 2}));
    let rest = s.drain(Duration::from_millis(300));
    assert!(published(&rest).is_empty(), "unexpected republish: {rest:#?}");

    // Typing in another document that changes no diagnostic publishes nothing.
    s.open_disk("shop/services.yaml");
    // A new first line, then a comment typed into it key by key.
    s.change(
        "shop/services.yaml",
        2,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "\n"}]),
    );
    for (i, ch) in "# note".chars().enumerate() {
        s.change(
            "shop/services.yaml",
            3 + i as i32,
            json!([{"range": {"start": {"line": 0, "character": i}, "end": {"line": 0, "character": i}}, "text": ch.to_string()}]),
        );
        std::thread::sleep(Duration::from_millis(15));
    }
    let rest = s.drain(Duration::from_millis(300));
    assert!(published(&rest).is_empty(), "unexpected publish: {rest:#?}");
}

/// An edit in one file changes the diagnostics of another, closed file; it is published.
#[test]
fn cross_file_change_publishes_closed_file() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    s.open_disk("shop/routes.yaml");
    // metadata.name: checkout -> checkout2 (line 3 is "  name: checkout").
    s.change(
        "shop/routes.yaml",
        2,
        json!([{"range": {"start": {"line": 3, "character": 16}, "end": {"line": 3, "character": 16}}, "text": "2"}]),
    );
    let d = s.diagnostics_for("policies/policies.yaml");
    let codes: Vec<&str> = d["diagnostics"].as_array().unwrap().iter().map(|x| x["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["target-not-found", "target-not-found"]);
    assert!(d.get("version").is_none(), "closed files carry no version: {d}");
    // Undo: back to one diagnostic.
    s.change(
        "shop/routes.yaml",
        3,
        json!([{"range": {"start": {"line": 3, "character": 16}, "end": {"line": 3, "character": 17}}, "text": ""}]),
    );
    let d = s.diagnostics_for("policies/policies.yaml");
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 1);
    // Closing the edited file goes back to its disk text, which changes nothing.
    s.close("shop/routes.yaml");
    let rest = s.drain(Duration::from_millis(300));
    assert!(published(&rest).is_empty(), "unexpected publish: {rest:#?}");
}

#[test]
fn pull_with_result_ids() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let full = s.pull("policies/policies.yaml", None);
    assert_eq!(full["kind"], "full");
    let id = full["resultId"].as_str().unwrap().to_owned();
    // The id hashes the items, which hold the temp dir's URIs.
    let mut shown = s.normalize(&full);
    shown["resultId"] = json!("ID");
    expect_snapshot("pull_full", &shown);
    let again = s.pull("policies/policies.yaml", Some(&id));
    assert_eq!(again, json!({"kind": "unchanged", "resultId": id}));
    // A file without diagnostics, and one the server does not know.
    assert_eq!(s.pull("shop/routes.yaml", None)["items"], json!([]));
    assert_eq!(s.pull("nowhere.yaml", None)["items"], json!([]));
    // After an edit that changes them, a full report with a new id.
    s.open_disk("policies/policies.yaml");
    s.change(
        "policies/policies.yaml",
        2,
        json!([{"range": {"start": {"line": 24, "character": 19}, "end": {"line": 24, "character": 19}}, "text": "o"}]),
    );
    let after = s.pull("policies/policies.yaml", Some(&id));
    assert_eq!(after["kind"], "full");
    assert_eq!(after["items"], json!([]));
    assert_ne!(after["resultId"].as_str().unwrap(), id);
}

/// A client that pulls gets open files by pull only (pushing too would show them twice) and
/// a refresh request when another file's edit changes them; closed files are still pushed.
#[test]
fn pull_clients_get_open_files_by_pull_and_refresh() {
    let mut caps = super::support::default_capabilities(&["utf-16".into()]);
    caps["textDocument"]["diagnostic"] = json!({"dynamicRegistration": false, "relatedDocumentSupport": false});
    caps["workspace"]["diagnostics"] = json!({"refreshSupport": true});
    let mut s = TestServer::builder().fixture("lsp").capabilities(caps).start();
    s.diagnostics_for("policies/policies.yaml");
    s.drain(Duration::from_millis(200));
    s.open_disk("policies/policies.yaml");
    // The pushed set is withdrawn: the client pulls it from now on.
    let d = s.diagnostics_for("policies/policies.yaml");
    assert_eq!(d["diagnostics"], json!([]));
    assert_eq!(s.pull("policies/policies.yaml", None)["items"].as_array().unwrap().len(), 1);
    // Renaming the route changes the open file's diagnostics: refresh.
    s.open_disk("shop/routes.yaml");
    s.change(
        "shop/routes.yaml",
        2,
        json!([{"range": {"start": {"line": 3, "character": 16}, "end": {"line": 3, "character": 16}}, "text": "2"}]),
    );
    s.wait_for(|m| m["method"] == "workspace/diagnostic/refresh");
    assert_eq!(s.pull("policies/policies.yaml", None)["items"].as_array().unwrap().len(), 2);
    let rest = s.drain(Duration::from_millis(300));
    assert!(
        published(&rest).iter().all(|p| p["uri"] != s.uri("policies/policies.yaml")),
        "open file pushed to a pull client: {rest:#?}"
    );
    // Closed again: pushed again.
    s.close("policies/policies.yaml");
    let d = s.diagnostics_for("policies/policies.yaml");
    assert_eq!(d["diagnostics"].as_array().unwrap().len(), 2);
}

/// A burst of edits is debounced, and the last state always wins.
#[test]
fn burst_of_edits_ends_in_the_last_state() {
    let mut s = TestServer::builder().fixture("lsp").start();
    s.drain(Duration::from_millis(200));
    let text = s.open_disk("policies/policies.yaml");
    let line = text.lines().position(|l| l.contains("storefrnt")).unwrap() as u32;
    let before = s.wire.len();
    // Toggle the typo 21 times without pausing: fixed, broken, fixed, ... ends fixed.
    for v in 0..21 {
        let change = if v % 2 == 0 {
            json!({"range": {"start": {"line": line, "character": 19}, "end": {"line": line, "character": 19}}, "text": "o"})
        } else {
            json!({"range": {"start": {"line": line, "character": 19}, "end": {"line": line, "character": 20}}, "text": ""})
        };
        s.change("policies/policies.yaml", 2 + v, json!([change]));
    }
    s.diagnostics_for("policies/policies.yaml");
    s.drain(Duration::from_millis(400));
    let rest = s.wire[before..].to_vec();
    let mine: Vec<Value> =
        published(&rest).into_iter().filter(|p| p["uri"] == s.uri("policies/policies.yaml")).collect();
    assert!(!mine.is_empty() && mine.len() < 21, "debounce: {} publishes", mine.len());
    assert_eq!(mine.last().unwrap()["diagnostics"], json!([]));
}

/// Code lenses count what the whole workspace attaches, so a client that can refresh them is
/// asked to after each full pass: an editor that asked while the workspace was indexed (no
/// lenses yet) or before another file's edit gets them. Found by the VS Code host test: the
/// route's "1 policy affects this" never showed when the editor asked early. A client that
/// cannot refresh is never asked.
#[test]
fn code_lens_refresh_after_each_full_pass() {
    let mut caps = super::support::default_capabilities(&["utf-16".into()]);
    caps["workspace"]["codeLens"] = json!({"refreshSupport": true});
    let mut s = TestServer::builder().fixture("lsp").capabilities(caps).start();
    s.wait_for(|m| m["method"] == "workspace/codeLens/refresh");
    s.drain(Duration::from_millis(200));
    s.open_disk("shop/routes.yaml");
    s.change(
        "shop/routes.yaml",
        2,
        json!([{"range": {"start": {"line": 3, "character": 16}, "end": {"line": 3, "character": 16}}, "text": "2"}]),
    );
    s.wait_for(|m| m["method"] == "workspace/codeLens/refresh");

    let mut plain = TestServer::builder().fixture("lsp").start();
    plain.diagnostics_for("policies/policies.yaml");
    let rest = plain.drain(Duration::from_millis(300));
    assert!(plain.wire.iter().chain(&rest).all(|m| m["method"] != "workspace/codeLens/refresh"));
}
