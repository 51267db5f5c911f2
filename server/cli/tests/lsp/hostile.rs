//! Hostile files through the real server: an alias bomb, 100,000 levels of nesting, an error
//! on every line, binary junk, a 10 MB single-line scalar and 5 MB of objects, opened one after
//! the other in the editor. Each gets clear and few diagnostics (one per broken document, at
//! most 200 listed per file and a last one counting the rest), and a hover on another file is
//! still answered, correctly; a big file is parsed aside while other files are answered.
//! (Times and memory are measured by `policylens-bench-hostile`, not here.)

use serde_json::{Value, json};

use super::support::TestServer;

fn hostile() -> Vec<(&'static str, String)> {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
    }
    let deep = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let errors: String = (0..25_000).map(|i| format!("key{i}: [unclosed\n---\n")).collect();
    // Deterministic junk with NUL bytes in it.
    let junk: String = (0..200_000u32).map(|i| char::from((i.wrapping_mul(2_654_435_761) >> 25) as u8)).collect();
    let scalar = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: \"{}\"\n",
        "a".repeat(10_000_000)
    );
    let objects: String = (0..20_000)
        .map(|i| format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}\nspec:\n  ports:\n  - {{name: http, port: 80}}\n"))
        .collect();
    vec![
        ("hostile/bomb.yaml", bomb),
        ("hostile/deep.yaml", deep),
        ("hostile/errors.yaml", errors),
        ("hostile/junk.yaml", junk),
        ("hostile/scalar.yaml", scalar),
        ("hostile/objects.yaml", objects),
    ]
}

#[test]
fn hostile_files_get_few_clear_diagnostics_and_the_server_keeps_answering() {
    let mut s = TestServer::builder().fixture("lsp").start();
    let policies = s.open_disk("policies/policies.yaml");
    let line = policies.lines().position(|l| l == "      name: checkout").expect("the ref") as u32;
    let hover_text = |s: &mut TestServer| -> String {
        let h = s.at("textDocument/hover", "policies/policies.yaml", line, 12).expect("hover answered");
        h["contents"]["value"].as_str().unwrap_or_default().to_owned()
    };
    let before = hover_text(&mut s);
    assert!(before.contains("HTTPRoute shop/checkout"), "{before}");
    let mut seen = Vec::new();
    for (rel, text) in hostile() {
        s.open(rel, &text);
        // Pulled: the push loop sends nothing for a file without diagnostics.
        let d = s.pull(rel, None);
        let list = d["items"].as_array().cloned().unwrap_or_default();
        let codes: Vec<&str> = list.iter().filter_map(|x| x["code"].as_str()).collect();
        let last = list.last().map_or(Value::Null, |x| x["message"].clone());
        seen.push(json!({"file": rel, "count": list.len(), "codes": codes.iter().collect::<std::collections::BTreeSet<_>>(), "last": last}));
        // Still answering, with the same answer.
        assert_eq!(hover_text(&mut s), before, "hover after opening {rel}");
    }
    assert_eq!(
        json!(seen),
        json!([
            {"file": "hostile/bomb.yaml", "count": 0, "codes": [], "last": null},
            {"file": "hostile/deep.yaml", "count": 1, "codes": ["yaml-syntax"], "last": "nesting deeper than 200 levels"},
            {"file": "hostile/errors.yaml", "count": 201, "codes": ["too-many-problems", "yaml-syntax"], "last": "and 24800 more problems in this file, not listed (only the first 200 are): 24800 yaml-syntax"},
            {"file": "hostile/junk.yaml", "count": 1, "codes": ["yaml-syntax"], "last": "skipped: binary file (holds NUL bytes)"},
            {"file": "hostile/scalar.yaml", "count": 0, "codes": [], "last": null},
            {"file": "hostile/objects.yaml", "count": 0, "codes": [], "last": null},
        ])
    );
}

/// `n` Services, one document each, in namespace `bulk`: about 100 bytes each.
/// `n` Service documents. The anchor leaves each one to libyaml (the fast reader gives up on
/// anchors), whose pace keeps the parse of a few MB long enough to watch in a debug build.
fn services(n: usize, prefix: &str) -> String {
    (0..n)
        .map(|i| format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {prefix}-{i}\n  namespace: bulk\nspec:\n  ports:\n  - &p {{name: http, port: 80}}\n"))
        .collect()
}

#[test]
fn a_big_file_is_parsed_aside_and_other_files_are_answered_meanwhile() {
    let mut s = TestServer::builder().fixture("lsp").env("POLICYLENS_TEST", "1").start();
    let policies = s.open_disk("policies/policies.yaml");
    let line = policies.lines().position(|l| l == "      name: checkout").expect("the ref") as u32;
    let hover = |uri: String| json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 12}});
    let before = s.request("textDocument/hover", hover(s.uri("policies/policies.yaml"))).expect("hover");
    s.settle();
    // 3 MB: well above the 1 MiB from which the server parses aside, and a second or more of
    // parsing in a debug build.
    let big = services(30_000, "svc");
    let t0 = std::time::Instant::now();
    s.open("big.yaml", &big);
    let hover_id = s.send_request("textDocument/hover", hover(s.uri("policies/policies.yaml")));
    let pull_id = s.send_request("textDocument/diagnostic", json!({"textDocument": {"uri": s.uri("big.yaml")}}));
    assert_eq!(s.response(hover_id), Ok(before.clone()), "the other file's hover, unchanged");
    let hovered = t0.elapsed();
    let pulled = s.response(pull_id).expect("pull");
    let diagnosed = t0.elapsed();
    assert_eq!(pulled["items"], json!([]));
    // Answered from the previous snapshot while the big file is parsed, not after it.
    assert!(hovered * 2 < diagnosed, "hover after {hovered:?}, the big file's diagnostics after {diagnosed:?}");

    // Requests on the big file itself wait for its parse: they see the text just sent.
    s.change("big.yaml", 2, json!([{"text": format!("{}---\nkey: [unclosed\n", services(30_000, "other"))}]));
    let pulled = s.pull("big.yaml", None);
    let items = pulled["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{items:?}");
    // At the end of the unclosed line, not on the line past the end of the text.
    assert_eq!(items[0]["range"]["start"], json!({"line": 270_001, "character": 14}));
    // A small text right after a big one supersedes the big one's parse.
    s.change("big.yaml", 3, json!([{"text": services(10_000, "tail")}]));
    s.change("big.yaml", 4, json!([{"text": "key: [unclosed\n"}]));
    let pulled = s.pull("big.yaml", None);
    let messages: Vec<&str> =
        pulled["items"].as_array().expect("items").iter().filter_map(|d| d["message"].as_str()).collect();
    assert_eq!(messages, ["an unclosed `[`: expected `,` or `]`"]);
    s.settle();
    assert_eq!(s.request("textDocument/hover", hover(s.uri("policies/policies.yaml"))), Ok(before));
}
