//! Every editor feature over the wire, at the places docs/semantics.md §7 names. The analysis behind
//! them lives in core; these snapshots pin the conversion and the wiring.

use serde_json::{Value, json};

use super::support::{TestServer, expect_snapshot};

fn result(r: Result<Value, Value>) -> Value {
    match r {
        Ok(v) => v,
        Err(e) => json!({"error": e}),
    }
}

/// Line and UTF-16 column of the first `needle` in `text`, plus `delta` columns.
fn find(text: &str, needle: &str, delta: usize) -> (u32, u32) {
    let off = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in text")) + delta;
    super::support::position_of(text, off, false)
}

#[test]
fn features_on_the_fixture() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let policies = s.open_disk("policies/policies.yaml");
    let routes = s.open_disk("shop/routes.yaml");
    let p = "policies/policies.yaml";
    let mut out = serde_json::Map::new();

    let (l, c) = find(&policies, "      name: checkout\n", 12);
    out.insert("hover_ref".into(), result(s.at("textDocument/hover", p, l, c)));
    out.insert("definition_ref".into(), result(s.at("textDocument/definition", p, l, c)));
    let (l2, c2) = find(&routes, "name: checkout", 8);
    let uri = s.uri("shop/routes.yaml");
    out.insert(
        "references_route".into(),
        result(s.request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": l2, "character": c2}, "context": {"includeDeclaration": true}}),
        )),
    );
    out.insert("hover_route".into(), result(s.at("textDocument/hover", "shop/routes.yaml", l2, c2)));
    out.insert("prepare_rename_route".into(), result(s.at("textDocument/prepareRename", "shop/routes.yaml", l2, c2)));
    out.insert(
        "rename_route".into(),
        result(s.request(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": {"line": l2, "character": c2}, "newName": "checkout-v2"}),
        )),
    );
    let puri = s.uri(p);
    out.insert(
        "document_symbols".into(),
        result(s.request("textDocument/documentSymbol", json!({"textDocument": {"uri": puri}}))),
    );
    out.insert("workspace_symbols".into(), result(s.request("workspace/symbol", json!({"query": "check"}))));
    out.insert(
        "code_lens_routes".into(),
        result(s.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}))),
    );
    out.insert(
        "code_lens_policies".into(),
        result(s.request("textDocument/codeLens", json!({"textDocument": {"uri": puri}}))),
    );

    // Quick fix on the misspelt target: it carries the diagnostic it fixes.
    let (l3, c3) = find(&policies, "storefrnt", 2);
    let diag = s.pull(p, None)["items"][0].clone();
    out.insert(
        "code_actions_typo".into(),
        result(s.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": puri}, "range": {"start": {"line": l3, "character": c3}, "end": {"line": l3, "character": c3}}, "context": {"diagnostics": [diag]}}),
        )),
    );
    out.insert(
        "code_actions_only_refactor".into(),
        result(s.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": puri}, "range": {"start": {"line": l3, "character": c3}, "end": {"line": l3, "character": c3}}, "context": {"diagnostics": [], "only": ["refactor"]}}),
        )),
    );
    expect_snapshot("features", &s.normalize(&Value::Object(out)));
}

/// Completion while typing (docs/semantics.md §7, issue: "typing is the normal state"): every request
/// is made right after the edit, at the cursor, in a document that is partly invalid.
#[test]
fn completion_while_typing() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let f = "policies/typing.yaml";
    let head = "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: typing\n  namespace: shop\nspec:\n  targetRefs:\n";
    s.open(f, head);
    let mut text = head.to_owned();
    let mut version = 1;
    let mut out = serde_json::Map::new();
    let mut type_and_complete = |s: &mut TestServer, text: &mut String, label: &str, insert: &str| {
        let (l, c) = super::support::position_of(text, text.len(), false);
        version += 1;
        s.change(f, version, json!([{"range": {"start": {"line": l, "character": c}, "end": {"line": l, "character": c}}, "text": insert}]));
        text.push_str(insert);
        let (l, c) = super::support::position_of(text, text.len(), false);
        let r = result(s.at("textDocument/completion", f, l, c));
        out.insert(label.into(), r);
    };
    type_and_complete(&mut s, &mut text, "new_list_item", "    - ");
    type_and_complete(&mut s, &mut text, "kind_value", "group: gateway.networking.k8s.io\n      kind: ");
    type_and_complete(&mut s, &mut text, "name_prefix", "HTTPRoute\n      name: che");
    type_and_complete(&mut s, &mut text, "section_empty", "ckout\n      sectionName: ");
    type_and_complete(&mut s, &mut text, "flow_mapping", "\n    - {kind: Gateway, name: ");
    // The rest of the document is broken (an unclosed flow mapping) and completion still
    // answers.
    assert!(s.pull(f, None)["items"].as_array().is_some());
    expect_snapshot("completion_while_typing", &s.normalize(&Value::Object(out)));
}
