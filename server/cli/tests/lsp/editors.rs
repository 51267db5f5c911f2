//! What issue 39 found in the editors, pinned on the wire: the targetRef hover of a policy
//! reaching many objects (losses first, identical outcomes once, headings apart from the
//! bullets), highlights of what the cursor names (not the word), explain on a policy, the code
//! lens's list, progress until the workspace is analysed, and quick fixes that, applied, leave
//! no new finding.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::support::{TestServer, expect_snapshot};

/// Edge's BackendTrafficPolicy reaches every route of the Gateway and loses one rule
/// (`checkout#pay`, to the shop's own policy): that loss comes first, the objects where the
/// defaults win are one block, and each heading follows a blank line (VS Code otherwise reads
/// "On `…`:" as the end of the bullet above).
#[test]
fn the_target_ref_hover_puts_losses_first_and_collapses_the_rest() {
    let mut s = TestServer::builder().fixture("demo").start();
    s.open_disk("policies/edge.yaml");
    // `name: edge` of edge-backend-defaults (line 41).
    let hover = s.at("textDocument/hover", "policies/edge.yaml", 40, 12).unwrap();
    let text = hover["contents"]["value"].as_str().unwrap().to_owned();
    assert!(!text.contains("more objects below"), "{text}");
    let loss = text.find("On `HTTPRoute/shop/checkout#pay`:").expect("the loss");
    assert!(text[..loss].matches("On `").count() == 0, "the loss comes first:\n{text}");
    assert!(!text.contains("\n- ") || !text.contains("`\n- ") || text.contains("\n\nOn `"), "{text}");
    for (i, _) in text.match_indices("On `") {
        assert!(text[..i].ends_with("\n\n"), "a heading right after a line:\n{text}");
    }
    expect_snapshot("hover_target_ref_many", &json!(text.lines().collect::<Vec<_>>()));
}

/// The cursor on the targetRef `checkout` of `shop/checkout-pay`: its references in this file
/// are marked, not the word inside `checkout-pay`, `checkout-limits` or `checkout-auth`.
#[test]
fn highlights_are_the_references_not_the_word() {
    let mut s = TestServer::builder().fixture("demo").start();
    s.open_disk("policies/shop.yaml");
    let marks = s.at("textDocument/documentHighlight", "policies/shop.yaml", 13, 14).unwrap();
    assert_eq!(
        marks,
        json!([
            {"range": {"start": {"line": 13, "character": 12}, "end": {"line": 13, "character": 20}}, "kind": 2},
            {"range": {"start": {"line": 68, "character": 10}, "end": {"line": 68, "character": 18}}, "kind": 2},
        ])
    );
}

/// `policylens/explain` at a policy's name explains what the policy targets (Neovim's
/// `:PolicylensExplain`, VS Code's Show Effective Policy); before: the policy as a target,
/// which no policy reaches.
#[test]
fn explain_at_a_policy_explains_its_targets() {
    let mut s = TestServer::builder().fixture("demo").start();
    s.open_disk("policies/shop.yaml");
    let uri = s.uri("policies/shop.yaml");
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 6, "character": 9}, "format": "text"});
    let answer = s.request("policylens/explain", at).unwrap();
    assert_eq!(answer["target"], "HTTPRoute/shop/checkout#pay");
    let direct =
        s.request("policylens/explain", json!({"target": "HTTPRoute/shop/checkout#pay", "format": "text"})).unwrap();
    assert_eq!(answer["text"], direct["text"]);
}

/// The code lens of a route several policies reach, run on a client without its own references
/// view: the server asks which one (`window/showMessageRequest`, a choice per policy, named)
/// and shows the one picked; before, it jumped to the first.
#[test]
fn the_code_lens_command_offers_every_policy() {
    let mut s = TestServer::builder().fixture("demo").start();
    s.open_disk("shop/routes.yaml");
    let lenses =
        s.request("textDocument/codeLens", json!({"textDocument": {"uri": s.uri("shop/routes.yaml")}})).unwrap();
    // HTTPRoute checkout (its document starts on line 34).
    let lens = lenses.as_array().unwrap().iter().find(|l| l["range"]["start"]["line"] == 33).unwrap().clone();
    let command = &lens["command"];
    assert_eq!(command["title"], "6 policies affect this");
    s.request("workspace/executeCommand", json!({"command": command["command"], "arguments": command["arguments"]}))
        .unwrap();
    let asked = s.wait_for(|m| m["method"] == "window/showMessageRequest");
    let choices: Vec<&str> =
        asked["params"]["actions"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(choices.len(), 6, "{choices:?}");
    assert!(choices.iter().all(|c| c.contains('/')), "{choices:?}");
    let shown = s.wait_for(|m| m["method"] == "window/showDocument");
    let last = command["arguments"][2].as_array().unwrap().last().unwrap().clone();
    assert_eq!(shown["params"]["uri"], last["uri"]);
    assert_eq!(shown["params"]["selection"], last["range"]);
}

/// The lens on a Service counts the policies `explain --target Service/...` shows for it: on the
/// demo's storefront, the three Gateway-level defaults its route carries (auth, backend
/// defaults, rate limits), not the listener's ClientTrafficPolicy, which governs no request to
/// the Service (issue 41). Its locations are those three policies' documents.
#[test]
fn a_service_lens_counts_what_explain_shows_for_it() {
    let mut s = TestServer::builder().fixture("demo").start();
    s.open_disk("shop/services.yaml");
    let lenses =
        s.request("textDocument/codeLens", json!({"textDocument": {"uri": s.uri("shop/services.yaml")}})).unwrap();
    // Service storefront: its document starts on line 2 (after the file's comment).
    let lens = lenses.as_array().unwrap().iter().find(|l| l["range"]["start"]["line"] == 1).unwrap().clone();
    assert_eq!(lens["command"]["title"], "3 policies affect this");
    let lines: Vec<(String, u64)> = lens["command"]["arguments"][2]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let uri = l["uri"].as_str().unwrap();
            (uri[uri.rfind("/policies/").unwrap()..].to_owned(), l["range"]["start"]["line"].as_u64().unwrap())
        })
        .collect();
    // edge-backend-defaults, edge-ratelimits, edge-auth: the documents of `name:` lines 34, 60
    // and 83 of policies/edge.yaml.
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines.iter().all(|(f, _)| f == "/policies/edge.yaml"), "{lines:?}");
    let explained =
        s.request("policylens/explain", json!({"target": "Service/shop/storefront", "format": "text"})).unwrap();
    let text = explained["text"].as_str().unwrap();
    for kind in ["AuthPolicy.kuadrant.io", "BackendTrafficPolicy.gateway.envoyproxy.io", "RateLimitPolicy.kuadrant.io"]
    {
        assert!(text.contains(&format!("\n{kind}\n")), "{kind} in:\n{text}");
    }
    assert!(!text.contains("ClientTrafficPolicy"), "{text}");
}

/// The indexing progress lasts until the files read are analysed (a hover waits for that
/// analysis, seconds at 100k objects): its last report says so, and the status says
/// `analysing` in between.
#[test]
fn progress_covers_the_first_analysis() {
    let s = TestServer::builder().fixture("demo").start();
    let progress: Vec<Value> = s
        .wire
        .iter()
        .filter(|m| m["method"] == "$/progress")
        .map(|m| m["params"]["value"].clone())
        .filter(|v| v["kind"] != "report" || v["message"] == "analysing")
        .collect();
    assert_eq!(
        progress,
        [
            json!({"kind": "begin", "title": "policylens: indexing", "cancellable": false, "percentage": 0}),
            json!({"kind": "report", "cancellable": false, "message": "analysing", "percentage": 100}),
            json!({"kind": "end", "message": "11 files"}),
        ]
    );
}

/// Every quick fix the server offers on the demo's findings, applied as the client would (the
/// workspace edit's files opened with their new text): the finding it fixes is gone and no
/// new error or warning appears (a repaired targetRef lets its policy take effect, which may
/// supersede another in part: information, and right). Before: "Replace with `Gateway`" named
/// a Gateway that does not exist, "Replace with `edge`" a Gateway without the listener asked
/// for, and the ReferenceGrant went into the referring team's file.
#[test]
fn every_quick_fix_on_the_demo_fixes_without_a_new_finding() {
    let mut s = TestServer::builder().fixture("demo").env("POLICYLENS_TEST", "1").start();
    s.settle();
    let files = demo_files(&s);
    let before = findings(&mut s, &files);
    let mut actions: Vec<(String, Value, Value)> = Vec::new();
    for (f, diags) in &before {
        for d in diags {
            let params =
                json!({"textDocument": {"uri": s.uri(f)}, "range": d["range"], "context": {"diagnostics": [d]}});
            let answer = s.request("textDocument/codeAction", params).unwrap();
            for a in answer.as_array().unwrap() {
                if a["kind"] == "quickfix" && !a["title"].as_str().unwrap().starts_with("Ignore `") {
                    // Each is applied in a server of its own, on a copy elsewhere.
                    actions.push((f.clone(), d.clone(), s.normalize(a)));
                }
            }
        }
    }
    drop(s);
    let mut tried = Vec::new();
    for (file, diag, action) in actions {
        let mut s = TestServer::builder().fixture("demo").env("POLICYLENS_TEST", "1").start();
        let title = action["title"].as_str().unwrap().to_owned();
        let edited = apply(&mut s, &action["edit"]);
        s.settle();
        let after = findings(&mut s, &files);
        let code = diag["code"].as_str().unwrap();
        let count = |m: &BTreeMap<String, Vec<Value>>, f: &str, c: &str| {
            m.get(f).map_or(0, |ds| ds.iter().filter(|d| d["code"] == c).count())
        };
        assert!(
            count(&after, &file, code) < count(&before, &file, code),
            "`{title}` left {code} in {file}: {after:#?}"
        );
        for (f, ds) in &after {
            for d in ds.iter().filter(|d| d["severity"].as_u64().is_some_and(|s| s <= 2)) {
                let c = d["code"].as_str().unwrap();
                assert!(count(&after, f, c) <= count(&before, f, c), "`{title}` brought {c} in {f}: {d}");
            }
        }
        tried.push(json!({"on": format!("{file}: {code}"), "fix": title, "edits": edited}));
    }
    expect_snapshot("demo_quick_fixes", &json!(tried));
}

/// The demo's YAML files, relative.
fn demo_files(s: &TestServer) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["payments", "platform", "policies", "shop"] {
        let mut names: Vec<String> = std::fs::read_dir(s.path(dir))
            .unwrap()
            .flatten()
            .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
            .collect();
        names.sort();
        out.extend(names);
    }
    out
}

/// Each file's diagnostics, pulled.
fn findings(s: &mut TestServer, files: &[String]) -> BTreeMap<String, Vec<Value>> {
    let mut out = BTreeMap::new();
    for f in files {
        let items = s.pull(f, None)["items"].as_array().cloned().unwrap_or_default();
        if !items.is_empty() {
            out.insert(f.clone(), items);
        }
    }
    out
}

/// Applies a workspace edit as an editor does (each file opened with its new text); returns
/// the files edited and what was inserted or replaced, for the snapshot.
fn apply(s: &mut TestServer, edit: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for (uri, edits) in edit["changes"].as_object().unwrap() {
        let rel = uri.strip_prefix("file:///ROOT/").unwrap().to_owned();
        let mut text = std::fs::read_to_string(s.path(&rel)).unwrap();
        let mut edits: Vec<&Value> = edits.as_array().unwrap().iter().collect();
        edits.sort_by_key(|e| {
            std::cmp::Reverse((e["range"]["start"]["line"].as_u64(), e["range"]["start"]["character"].as_u64()))
        });
        for e in edits {
            let start = offset(&text, &e["range"]["start"]);
            let end = offset(&text, &e["range"]["end"]);
            out.push(json!({"file": rel, "line": e["range"]["start"]["line"], "old": &text[start..end], "new": e["newText"]}));
            text.replace_range(start..end, e["newText"].as_str().unwrap());
        }
        s.open(&rel, &text);
    }
    out
}
/// A byte offset of an LSP position (UTF-16 columns; the demo is ASCII).
fn offset(text: &str, pos: &Value) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let character = pos["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    start + character
}
