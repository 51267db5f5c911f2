//! Hostile files through the real server: an alias bomb, 100,000 levels of nesting, an error
//! on every line, binary junk, a 10 MB single-line scalar and 5 MB of objects, opened one after
//! the other in the editor. Each gets clear and few diagnostics (one per broken document, at
//! most 200 per file with a last one saying how many more), and a hover on another file is
//! still answered, correctly. (Times and memory are measured by the benchmarks, not here.)

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
            {"file": "hostile/errors.yaml", "count": 200, "codes": ["yaml-syntax"], "last": "… and 24801 more problems in this file, not shown (the first 199 are)"},
            {"file": "hostile/junk.yaml", "count": 1, "codes": ["yaml-syntax"], "last": "skipped: binary file (holds NUL bytes)"},
            {"file": "hostile/scalar.yaml", "count": 0, "codes": [], "last": null},
            {"file": "hostile/objects.yaml", "count": 0, "codes": [], "last": null},
        ])
    );
}
