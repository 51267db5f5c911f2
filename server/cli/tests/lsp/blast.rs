//! `fixtures/blast-radius` (issue 41's story: a Namespace-wide RetryPolicy nobody sees from the
//! routes, a Gateway default under it, three Services behind routes in two namespaces, a route
//! with its own policy) through every surface: `diff --without` in its three formats and with
//! `--without-file`, `explain --target` of each Service, and in the language server the code
//! action "Preview removing this policy", the document it opens (`policylens/without`, the
//! same report as the CLI's) and the code lens counts. Pinned in
//! `tests/expected/blast-radius.txt` (`UPDATE_EXPECT=1` rewrites it).

use std::fmt::Write as _;
use std::process::Command;

use serde_json::{Value, json};

use super::support::{TestServer, repo_root};

const NAMESPACE_RETRIES: &str = "RetryPolicy/baker/namespace-retries";

/// The CLI run in the fixture's directory: its standard output.
fn cli(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(repo_root().join("fixtures/blast-radius"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run policylens");
    assert!(out.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A report without its first line (which names the side compared: the CLI's path, the
/// editor's workspace).
fn body(report: &str) -> &str {
    report.split_once('\n').map_or("", |(_, rest)| rest)
}

#[test]
fn blast_radius_every_surface_agrees() {
    let mut got = String::new();
    let human = cli(&["diff", "--without", NAMESPACE_RETRIES]);
    let _ = writeln!(got, "# diff --without {NAMESPACE_RETRIES}\n{human}");
    let markdown = cli(&["diff", "--without", NAMESPACE_RETRIES, "--format", "markdown"]);
    let _ = writeln!(got, "# diff --without {NAMESPACE_RETRIES} --format markdown\n{markdown}");
    let json_text = cli(&["diff", "--without", NAMESPACE_RETRIES, "--format", "json"]);
    let _ = writeln!(got, "# diff --without {NAMESPACE_RETRIES} --format json\n{json_text}");
    let edge = cli(&["diff", "--without", "RetryPolicy/infra/edge-retries"]);
    let _ = writeln!(got, "# diff --without RetryPolicy/infra/edge-retries\n{edge}");
    let file = cli(&["diff", "--without-file", "apps/baker/retries.yaml"]);
    let _ = writeln!(got, "# diff --without-file apps/baker/retries.yaml\n{file}");
    for svc in ["Service/baker/baker", "Service/baker/frosting", "Service/storefront/shop"] {
        let _ = writeln!(got, "# explain --target {svc}\n{}", cli(&["explain", "--target", svc]));
    }

    // The JSON leads with what users fear: the fields that stop applying, where, and who
    // takes over.
    let report: Value = serde_json::from_str(&json_text).expect("diff JSON");
    assert_eq!(report["gone"][0]["reach"], "1 route", "{report:#}");
    assert_eq!(report["gone"][0]["instead"][0]["policy"], "RetryPolicy.resilience.cupcakes.example/infra/edge-retries");

    // The editor: on the policy's name, the code action; its command's arguments asked of
    // `policylens/without` give the CLI's report.
    let mut s = TestServer::builder().fixture("blast-radius").start();
    let uri = s.uri("apps/baker/retries.yaml");
    let at = json!({"start": {"line": 5, "character": 10}, "end": {"line": 5, "character": 10}});
    let actions = s
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": at, "context": {"diagnostics": []}}),
        )
        .expect("codeAction");
    let preview = actions
        .as_array()
        .and_then(|a| a.iter().find(|x| x["title"] == "Preview removing this policy"))
        .cloned()
        .unwrap_or_else(|| panic!("no preview action: {actions:#}"));
    let _ = writeln!(got, "# code action\n{}", s.normalize(&preview));
    let mut args = preview["command"]["arguments"][0].clone();
    args["format"] = json!("human");
    let doc = s.request("policylens/without", args).expect("policylens/without");
    // The server names files by their absolute paths; the CLI run in the root, relative ones.
    let text = s.normalize(&doc["text"]).as_str().unwrap_or_default().replace("/ROOT/", "");
    let _ = writeln!(got, "# its document: {}\n{}", doc["title"], text.lines().next().unwrap_or_default());
    assert_eq!(body(&text), body(&human), "the preview says what `diff --without` says");

    // The code lens on each policy: the Gateway's and the Namespace's count routes by
    // namespace.
    got.push_str("# code lens\n");
    for rel in ["platform/retry-defaults.yaml", "apps/baker/retries.yaml", "apps/storefront/service.yaml"] {
        let uri = s.uri(rel);
        let lenses = s.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}})).expect("codeLens");
        for l in lenses.as_array().into_iter().flatten() {
            let peek: Vec<String> = l["command"]["arguments"][2]
                .as_array()
                .into_iter()
                .flatten()
                .map(|loc| {
                    let uri = s.normalize(&loc["uri"]);
                    let file = uri.as_str().unwrap_or_default().trim_start_matches("file:///ROOT/");
                    format!("{file}:{}", loc["range"]["start"]["line"])
                })
                .collect();
            let _ = writeln!(got, "{rel}:{} {} -> {peek:?}", l["range"]["start"]["line"], l["command"]["title"]);
        }
    }
    assert_eq!(s.shutdown(), 0);

    let path = repo_root().join("server/cli/tests/expected/blast-radius.txt");
    if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &got).expect("write expected");
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(want == got, "blast-radius.txt differs (UPDATE_EXPECT=1 rewrites it); got:\n{got}");
}

/// A change to a policy's spec while editing: its hover says what the edit changes against
/// the saved file (the what-if's engine, the buffer against the disk), and nothing once the
/// buffer is the file again.
#[test]
fn hover_on_an_unsaved_policy_edit_compares_it_with_the_disk() {
    let mut s = TestServer::builder().fixture("blast-radius").start();
    let saved = s.open_disk("apps/baker/retries.yaml");
    // The NOC halves the namespace's retries in the editor, without saving.
    let edited = saved.replacen("numRetries: 3", "numRetries: 1", 1);
    s.change("apps/baker/retries.yaml", 2, json!([{"text": edited}]));
    let on_spec = |s: &mut TestServer| {
        let h = s.at("textDocument/hover", "apps/baker/retries.yaml", 14, 8).expect("hover");
        h["contents"]["value"].as_str().unwrap_or_default().to_owned()
    };
    let text = on_spec(&mut s);
    let edit = text.split_once("**This edit, against the saved file:**").map(|(_, e)| e.trim()).unwrap_or_default();
    assert_eq!(
        edit,
        "- `HTTPRoute/baker/baker#orders` `retry.numRetries`: `3` (baker/namespace-retries) → `1` (baker/namespace-retries)\n\
         - `HTTPRoute/baker/baker#status` `retry.numRetries`: `3` (baker/namespace-retries) → `1` (baker/namespace-retries)",
        "{text}"
    );
    s.change("apps/baker/retries.yaml", 3, json!([{"text": saved}]));
    let text = on_spec(&mut s);
    assert!(!text.contains("This edit"), "{text}");
    assert_eq!(s.shutdown(), 0);
}
