//! `policylens check` as a user runs it: exact JSON on the demo and on nasty inputs, SARIF
//! structure, compiler-style text, exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// Runs the binary in the repo root: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("run policylens");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Compares with `tests/expected/NAME`, ignoring `summary.elapsedMs`; `UPDATE_EXPECT=1`
/// rewrites the file.
fn expect_json(name: &str, mut got: Value) {
    if let Some(s) = got.get_mut("summary").and_then(Value::as_object_mut) {
        s.remove("elapsedMs");
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected").join(name);
    let text = serde_json::to_string_pretty(&got).expect("json") + "\n";
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &text).expect("write expected");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(text, want, "{} differs; rerun with UPDATE_EXPECT=1 and review the diff", path.display());
}

#[test]
fn demo_reports_exactly_the_deliberate_mistakes() {
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/demo"]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json output");
    expect_json("demo-check.json", v);
}

#[test]
fn nasty_inputs_get_one_clear_diagnostic_each_and_nothing_breaks() {
    let (code, out, err) = run(&["check", "--format", "json", "fixtures/bad"]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json output");
    expect_json("bad-check.json", v);
}

#[test]
fn human_output_is_compiler_style() {
    let (code, out, _) = run(&["check", "--isolated", "fixtures/bad/bom.yaml"]);
    assert_eq!(code, 1);
    let want = "\
fixtures/bad/bom.yaml:14:13: error[target-not-found]: Service/default/paiements does not exist
   |
14 |       name: paiements
   |             ^^^^^^^^^
";
    assert!(out.starts_with(want), "got:\n{out}");
    assert!(out.trim_end().ends_with("ms"), "summary line: {out}");
    assert!(out.contains("1 error, 0 warnings, 0 notes in 1 file"), "{out}");
}

#[test]
fn sarif_is_2_1_0_with_a_rule_per_code() {
    let (code, out, _) = run(&["check", "--format", "sarif", "fixtures/demo"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("sarif json");
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert!(ids.contains(&"target-not-found") && ids.contains(&"backend-not-permitted"));
    let results = run["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        let idx = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().unwrap_or(0) >= 1);
        assert!(region["startColumn"].as_u64().unwrap_or(0) >= 1);
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap_or("");
        assert!(uri.starts_with("fixtures/demo/"), "{uri}");
    }
}

#[test]
fn exit_codes() {
    let clean = tempdir("clean");
    std::fs::write(
        clean.join("svc.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  ports: [{name: http, port: 80}]\n",
    )
    .expect("write");
    let (code, out, _) = run(&["check", clean.to_str().unwrap_or_default()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("no problems in 1 file"), "{out}");
    let (code, _, err) = run(&["check", "fixtures/does-not-exist"]);
    assert_eq!(code, 2);
    assert!(err.contains("fixtures/does-not-exist: no such file or directory"), "{err}");
    let (code, _, _) = run(&["check", "--format", "yaml", "fixtures/demo"]);
    assert_eq!(code, 2);
}

#[test]
fn gitignored_and_hidden_files_are_skipped_and_config_excludes_apply() {
    let dir = tempdir("walk");
    let bad = "apiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p}\nspec:\n  targetRefs: [{group: \"\", kind: Service, name: nope}]\n";
    for sub in ["ignored", ".hidden", "charts/x", "kept"] {
        std::fs::create_dir_all(dir.join(sub)).expect("mkdir");
        std::fs::write(dir.join(sub).join("p.yaml"), bad).expect("write");
    }
    std::fs::write(dir.join(".gitignore"), "ignored/\n").expect("write");
    std::fs::write(dir.join(".policylens.yaml"), "exclude: [\"charts/**\"]\n").expect("write");
    let (code, out, err) = run(&["check", "--format", "json", dir.to_str().unwrap_or_default()]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    let files: Vec<&str> =
        v["diagnostics"].as_array().expect("list").iter().filter_map(|d| d["file"].as_str()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].ends_with("kept/p.yaml"), "{files:?}");
    assert_eq!(v["summary"]["files"], 1);
}

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("policylens-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("mkdir");
    d
}

#[test]
fn hostile_files_get_few_clear_diagnostics_in_check_too() {
    // The same outcomes as the language server's (`tests/lsp/hostile.rs`): one engine.
    let dir = tempdir("hostile");
    let errors: String = (0..25_000).map(|i| format!("key{i}: [unclosed\n---\n")).collect();
    std::fs::write(dir.join("errors.yaml"), errors).expect("write");
    let mut junk: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    junk[100] = 0;
    std::fs::write(dir.join("junk.yaml"), &junk).expect("write");
    // Not UTF-8, and no NUL in it.
    std::fs::write(dir.join("latin1.yaml"), b"metadata:\n  name: caf\xe9\n").expect("write");
    std::fs::write(dir.join("deep.yaml"), format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000))).expect("write");
    let (code, out, err) = run(&["check", "--format", "json", dir.to_str().unwrap_or_default()]);
    assert_eq!(code, 1, "{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    let list = v["diagnostics"].as_array().expect("list");
    let of = |name: &str| -> Vec<String> {
        list.iter()
            .filter(|d| d["file"].as_str().is_some_and(|f| f.ends_with(name)))
            .map(|d| {
                let at = &d["range"]["start"];
                format!(
                    "{}:{} {}[{}] {}",
                    at["line"],
                    at["character"],
                    d["severity"].as_str().unwrap_or(""),
                    d["code"].as_str().unwrap_or(""),
                    d["message"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    let errors = of("/errors.yaml");
    assert_eq!(errors.len(), 201);
    assert_eq!(
        errors[200],
        "400:17 error[too-many-problems] and 24800 more problems in this file, not listed (only the first 200 are): 24800 yaml-syntax"
    );
    assert_eq!(of("/junk.yaml"), ["0:0 error[yaml-syntax] skipped: binary file (holds NUL bytes)"]);
    assert_eq!(of("/latin1.yaml"), ["0:0 error[yaml-syntax] skipped: not UTF-8 text (invalid byte at offset 21)"]);
    assert_eq!(of("/deep.yaml"), ["0:200 error[yaml-syntax] nesting deeper than 200 levels"]);
    // Human output: the count is the last line of the file's list.
    let (_, human, _) = run(&["check", dir.to_str().unwrap_or_default()]);
    assert!(
        human.contains("and 24800 more problems in this file, not listed"),
        "{}",
        &human[human.len().saturating_sub(2000)..]
    );
}

/// Compares with `tests/expected/NAME` as text; `UPDATE_EXPECT=1` rewrites the file.
fn expect_text(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, got).expect("write expected");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(got, want, "{} differs; rerun with UPDATE_EXPECT=1 and review the diff", path.display());
}

#[test]
fn status_is_a_table_and_every_policy_not_accepted_says_why() {
    let (code, out, err) = run(&["status", "fixtures/demo"]);
    assert_eq!(code, 0, "{err}");
    expect_text("demo-status.txt", &out);
    // The same words as the JSON's `accepted.message`, row by row.
    let (_, json, _) = run(&["status", "--format", "json", "fixtures/demo"]);
    let v: Value = serde_json::from_str(&json).expect("json output");
    for p in v["policies"].as_array().into_iter().flatten() {
        if p["accepted"]["status"] == Value::Bool(false) {
            let why = p["accepted"]["message"].as_str().expect("a reason in words");
            assert!(out.contains(&format!("    why: {why}\n")), "{why}");
        }
    }
}

/// `explain`'s human report of the demo's `pay` rule: sections folded into their objects on
/// the path, policies named as `namespace/name` under their kind's heading, long values as
/// blocks, a loss's reason on its own line; and every target of the demo explained in lines of
/// at most 100 characters.
#[test]
fn explain_reads_as_a_short_tree() {
    let (code, out, err) =
        run(&["explain", "--color", "never", "--target", "HTTPRoute/shop/checkout#pay", "fixtures/demo"]);
    assert_eq!(code, 0, "{err}");
    expect_text("demo-explain-pay.txt", &out);
    let (_, targets, _) = run(&["targets", "fixtures/demo"]);
    let refs: Vec<&str> = targets.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(refs.len() > 20, "{targets}");
    for t in refs {
        let (code, out, err) = run(&["explain", "--color", "never", "--target", t, "fixtures/demo"]);
        assert_eq!(code, 0, "{t}: {err}");
        let long: Vec<&str> = out.lines().filter(|l| l.chars().count() > 100).collect();
        assert!(long.is_empty(), "{t}: {long:#?}");
    }
}
