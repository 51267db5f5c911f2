//! The server opened on a whole repository whose folders define the same objects again (this
//! repository's `fixtures/`: the demo, the LSP fixture and conformance cases all define
//! `Gateway/infra/edge`, `HTTPRoute/shop/checkout`, ...): each file's references resolve to
//! the definitions nearest to it.

use super::support::TestServer;

#[test]
fn the_demo_inside_the_repository_resolves_to_its_own_objects() {
    let mut s = TestServer::builder().fixture("").start();
    let routes = s.open_disk("demo/shop/routes.yaml");
    // `- name: edge` under the checkout route's parentRefs.
    let line = routes.lines().position(|l| l.contains("sectionName: https      # checkout")).unwrap() as u32 - 2;
    let def = s.at("textDocument/definition", "demo/shop/routes.yaml", line, 12).unwrap();
    let target = def.as_array().map_or(&def, |a| &a[0]);
    let uri = target["uri"].as_str().or_else(|| target["targetUri"].as_str()).unwrap().to_owned();
    assert_eq!(uri, s.uri("demo/platform/gateways.yaml"), "{def}");

    // The route is defined in several folders: its hover lists every definition.
    let decl = routes.lines().position(|l| l == "  name: checkout").unwrap() as u32;
    let hover = s.at("textDocument/hover", "demo/shop/routes.yaml", decl, 9).unwrap();
    let text = hover["contents"]["value"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("**Defined 4 times** (each reference uses the nearest definition):"), "{text}");
    assert!(text.contains("demo/shop/routes.yaml:"), "{text}");
    assert!(text.contains("(this one)"), "{text}");

    // No false finding in the demo from its neighbours: exactly what `policylens check
    // fixtures/demo` reports for the file, plus notes that its objects are defined elsewhere too.
    let diags = s.diagnostics_for("demo/shop/routes.yaml");
    let mut got: Vec<(u64, String)> = diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] != "duplicate-object")
        .map(|d| (d["range"]["start"]["line"].as_u64().unwrap(), d["code"].as_str().unwrap().to_owned()))
        .collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(["check", "--format", "json", "fixtures/demo"])
        .current_dir(super::support::repo_root())
        .output()
        .unwrap();
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut want: Vec<(u64, String)> = cli["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "fixtures/demo/shop/routes.yaml")
        .map(|d| (d["range"]["start"]["line"].as_u64().unwrap(), d["code"].as_str().unwrap().to_owned()))
        .collect();
    got.sort();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}
