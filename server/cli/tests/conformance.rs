//! Conformance fixtures (`fixtures/conformance/<name>/`): the GEP-713 and GEP-2649 examples and
//! real policy kinds, run through the built binary.
//!
//! Each fixture holds a workspace (YAML and `.policylens.yaml`), `targets.txt` (one `explain`
//! target per line) and `expected/`:
//! - `explain.json`: `{target: explain --format json --target target}` for every target;
//! - `status.json`: `status --format json`;
//! - `check.json`: the `diagnostics` of `check --format json`.
//!
//! Values are compared as JSON (`serde_json::Value` equality). `UPDATE_EXPECT=1` rewrites the
//! expected files; they are acceptance tests, so every rewrite must be checked against the
//! GEP text by hand (each fixture's README.md says what it pins).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/conformance")
}

fn run(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the policylens binary runs");
    let code = out.status.code();
    // `check` exits 1 when it finds errors; the others must succeed.
    assert!(
        code == Some(0) || (args[0] == "check" && code == Some(1)),
        "{} {args:?} exited {code:?}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{} {args:?}: not JSON: {e}", dir.display()))
}

fn compare(path: &Path, got: Value, update: bool, failures: &mut Vec<String>) {
    if update {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create expected/");
        }
        let mut text = serde_json::to_string_pretty(&got).expect("serialise");
        text.push('\n');
        std::fs::write(path, text).expect("write expected file");
        return;
    }
    let want: Value = match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        Err(e) => {
            failures.push(format!("{}: {e} (run with UPDATE_EXPECT=1 to create it)", path.display()));
            return;
        }
    };
    if want != got {
        failures.push(format!(
            "{} differs; got:\n{}",
            path.display(),
            serde_json::to_string_pretty(&got).unwrap_or_default()
        ));
    }
}

#[test]
fn conformance_fixtures() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| !v.is_empty() && v != "0");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/conformance exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("targets.txt").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 10, "expected the conformance fixtures, found {}", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        let expected = dir.join("expected");
        compare(&expected.join("status.json"), run(dir, &["status", "--format", "json"]), update, &mut failures);

        let check = run(dir, &["check", "--format", "json"]);
        let diags = check.get("diagnostics").cloned().unwrap_or(Value::Null);
        compare(&expected.join("check.json"), serde_json::json!({ "diagnostics": diags }), update, &mut failures);

        let targets = std::fs::read_to_string(dir.join("targets.txt")).expect("targets.txt");
        let mut all = Map::new();
        for t in targets.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            all.insert(t.to_owned(), run(dir, &["explain", "--format", "json", "--target", t]));
        }
        compare(&expected.join("explain.json"), Value::Object(all), update, &mut failures);
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n\n"));
}

/// The GEP-2649 RetryOnPolicy tables, cell by cell, straight from the transcription in each
/// fixture's `cells.json` (independent of the expected files): the winner of `/retryOn` is the
/// cell's policy, the route's own value, or nothing ("Empty list").
#[test]
fn conformance_gep2649_retryon_cells() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("fixtures/conformance exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("cells.json").is_file())
        .collect();
    dirs.sort();
    for dir in &dirs {
        let cells: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("cells.json")).expect("cells.json")).expect("JSON");
        let Some(cells) = cells.get("cells").and_then(Value::as_object) else { panic!("{}: no cells", dir.display()) };
        for (target, cell) in cells {
            checked += 1;
            let ex = run(dir, &["explain", "--format", "json", "--target", target]);
            let winner = cell["winner"].as_str().unwrap_or_default();
            let kinds: Vec<&Value> = ex["policies"]
                .as_array()
                .map(|a| a.iter().filter(|k| k["kind"] == "RetryOnPolicy.networking.example.io").collect())
                .unwrap_or_default();
            let got = match kinds.as_slice() {
                [] => "empty".to_owned(),
                [k] => {
                    let prov: Vec<&Value> = k["contexts"][0]["provenance"]
                        .as_array()
                        .map(|a| a.iter().filter(|p| p["field"] == "/retryOn").collect())
                        .unwrap_or_default();
                    match prov.as_slice() {
                        [p] if p["fromTarget"] == true => "value".to_owned(),
                        [p] => {
                            p["policy"].as_str().unwrap_or_default().rsplit('/').next().unwrap_or_default().to_owned()
                        }
                        _ => format!("{} provenance rows", prov.len()),
                    }
                }
                _ => "several kinds".to_owned(),
            };
            if got != winner {
                failures.push(format!(
                    "{} {target} (row {}, column {}): GEP-2649 says {}, got {got}",
                    dir.display(),
                    cell["row"],
                    cell["col"],
                    cell["gep"]
                ));
            }
        }
    }
    assert_eq!(checked, 96, "every cell of the six tables");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An unknown `--target` is a usage error with a did-you-mean.
#[test]
fn conformance_unknown_target() {
    let dir = fixtures().join("gep713-example1-direct");
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(["explain", "--target", "Service/default/b3"])
        .current_dir(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("did you mean `Service/default/b1`?") || err.contains("did you mean `Service/default/b2`?"),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(["explain", "--target", "nonsense"])
        .current_dir(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
}
