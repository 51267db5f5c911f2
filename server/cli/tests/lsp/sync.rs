//! Document sync: incremental edits applied exactly and in order, in UTF-16 and UTF-8.

use serde_json::json;

use super::support::TestServer;

fn server(enc: &str) -> TestServer {
    TestServer::builder().fixture("lsp").encodings(&[enc]).env("POLICYLENS_TEST", "1").start()
}

#[test]
fn incremental_edits_utf16_multibyte_and_crlf() {
    let mut s = server("utf-16");
    s.open("scratch.yaml", "a: é😀x\r\nb: 2\rc: 3\n");
    // Each edit in its own notification, sent back to back: order matters.
    s.change(
        "scratch.yaml",
        2,
        json!([{"range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}, "text": "y"}]),
    );
    s.change(
        "scratch.yaml",
        3,
        json!([{"range": {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 4}}, "text": "22"}]),
    );
    s.change("scratch.yaml", 4, json!([{"range": {"start": {"line": 2, "character": 99}, "end": {"line": 2, "character": 99}}, "text": " # ☕"}]));
    s.change("scratch.yaml", 5, json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "z: 0\r\n"}]));
    // Several changes in one notification apply one after the other.
    s.change(
        "scratch.yaml",
        6,
        json!([
            {"range": {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 4}}, "text": "ê"},
            {"range": {"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 6}}, "text": "👍"},
        ]),
    );
    let got = s.server_text("scratch.yaml");
    assert_eq!(got, json!({"text": "z: 0\r\na: ê👍y\r\nb: 22\rc: 3 # ☕\n", "version": 6}));
    // A full replacement.
    s.change("scratch.yaml", 7, json!([{"text": "kind: x\n"}]));
    assert_eq!(s.server_text("scratch.yaml")["text"], "kind: x\n");
}

#[test]
fn incremental_edits_utf8() {
    let mut s = server("utf-8");
    s.open("scratch.yaml", "a: é😀x\n");
    // UTF-8 columns: a0 :1 ' '2 é3-4 😀5-8 x9.
    s.change(
        "scratch.yaml",
        2,
        json!([{"range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 10}}, "text": "w"}]),
    );
    s.change(
        "scratch.yaml",
        3,
        json!([{"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 5}}, "text": "e"}]),
    );
    assert_eq!(s.server_text("scratch.yaml")["text"], "a: e😀w\n");
}

/// Closing a workspace file falls back to its disk text; closing a file outside the walk
/// drops it.
#[test]
fn close_reverts_to_disk() {
    let mut s = server("utf-16");
    s.open("shop/services.yaml", "edited: true\n");
    assert_eq!(s.server_text("shop/services.yaml")["text"], "edited: true\n");
    s.close("shop/services.yaml");
    let disk = std::fs::read_to_string(s.path("shop/services.yaml")).unwrap();
    assert_eq!(s.server_text("shop/services.yaml"), json!({"text": disk, "version": null}));
    s.open("scratch.yaml", "x: 1\n");
    s.close("scratch.yaml");
    assert_eq!(s.server_text("scratch.yaml")["text"], json!(null));
}

/// A request sent right after a burst of edits sees all of them.
#[test]
fn requests_see_every_earlier_edit() {
    let mut s = server("utf-16");
    s.open("scratch.yaml", "");
    let mut expected = String::new();
    let mut ids = Vec::new();
    for (i, ch) in "kind: Gateway\nname: é😀\n".chars().enumerate() {
        let (line, col) = super::support::position_of(&expected, expected.len(), false);
        s.change(
            "scratch.yaml",
            2 + i as i32,
            json!([{"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}, "text": ch.to_string()}]),
        );
        expected.push(ch);
        // Interleaved requests must not disturb the order of edits.
        ids.push(s.send_request(
            "textDocument/hover",
            json!({"textDocument": {"uri": s.uri("scratch.yaml")}, "position": {"line": line, "character": col}}),
        ));
    }
    for id in ids {
        assert!(s.response(id).is_ok());
    }
    assert_eq!(s.server_text("scratch.yaml")["text"], expected);
}

/// Hover and definition sent right after an edit to a reference answer for the edited text
/// (they come from the file's partial world while the full analysis is pending), and a hover
/// on a declaration right after it sees the edit too.
#[test]
fn requests_right_after_an_edit_answer_for_the_edited_text() {
    let mut s = server("utf-16");
    s.open_disk("policies/policies.yaml");
    // The base analysis: the misspelt `storefrnt` is reported.
    let first = s.diagnostics_for("policies/policies.yaml");
    assert!(first.to_string().contains("storefrnt"), "{first}");
    // Line 24 is `      name: storefrnt`: fix it, and ask at once.
    s.change(
        "policies/policies.yaml",
        2,
        json!([{"range": {"start": {"line": 24, "character": 19}, "end": {"line": 24, "character": 19}}, "text": "o"}]),
    );
    let hover = s.at("textDocument/hover", "policies/policies.yaml", 24, 14).unwrap();
    let definition = s.at("textDocument/definition", "policies/policies.yaml", 24, 14).unwrap();
    let kind = s.at("textDocument/hover", "policies/policies.yaml", 18, 10).unwrap();
    let text = hover["contents"]["value"].as_str().unwrap_or_default().to_owned();
    assert!(text.starts_with("HTTPRoute shop/storefront · "), "{text}");
    assert!(!text.contains("not found"), "{text}");
    assert_eq!(definition[0]["uri"], s.uri("shop/routes.yaml"), "{definition}");
    let kind = kind["contents"]["value"].as_str().unwrap_or_default().to_owned();
    assert!(kind.contains("Targets: `HTTPRoute/shop/storefront`"), "{kind}");
}
