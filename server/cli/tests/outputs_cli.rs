//! The JSON of `check`, `status` and `explain` on every fixture workspace, pinned whole: a
//! change that alters any output on the fixtures fails here, so a refactoring that means to
//! change nothing (a module split, a faster computation) can show that it changed nothing.
//! `explain` is asked at every target that `targets` says some policy kind reaches.
//!
//! After an intended change of output: `UPDATE_EXPECT=1 cargo test -p policylens --test
//! outputs_cli`, and review the diff of `tests/expected/outputs/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};

/// The fixture workspaces, from the repository root: each is read as one workspace.
const WORKSPACES: &[&str] = &[
    "fixtures/demo",
    "fixtures/bad",
    "fixtures/blast-radius",
    "fixtures/conformance",
    "fixtures/lsp",
    "fixtures/repos/app-template",
    "fixtures/repos/argocd",
    "fixtures/repos/docs-snippets",
    "fixtures/repos/e2e",
    "fixtures/repos/flux",
    "fixtures/repos/gitops",
    "fixtures/repos/monorepo",
    "fixtures/repos/platform",
    "fixtures/repos/teams",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// Runs the binary in the repository root: its standard output, when it exited as `check`
/// (0 or 1, findings) or the others (0) do.
fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens"))
        .args(args)
        .current_dir(repo())
        .env("NO_COLOR", "1")
        .output()
        .expect("the policylens binary runs");
    let code = out.status.code();
    assert!(
        code == Some(0) || (args[0] == "check" && code == Some(1)),
        "{args:?} exited {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn json(args: &[&str]) -> Value {
    let mut v: Value = serde_json::from_str(&run(args)).unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"));
    // The one figure that differs between two runs.
    if let Some(summary) = v.get_mut("summary").and_then(Value::as_object_mut) {
        summary.remove("elapsedMs");
    }
    v
}

/// The targets some policy kind reaches: `targets` lists them with the kinds in parentheses.
fn reached_targets(ws: &str) -> Vec<String> {
    run(&["targets", ws]).lines().filter_map(|l| l.split_once("  (").map(|(target, _)| target.to_owned())).collect()
}

/// Every output of one workspace, as one JSON object.
fn outputs(ws: &str) -> Value {
    let targets = reached_targets(ws);
    // Two at a time: each explain is a process of its own.
    let explained: Vec<(String, Value)> = std::thread::scope(|s| {
        let halves: Vec<_> = targets
            .chunks(targets.len().div_ceil(2).max(1))
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|t| (t.clone(), json(&["explain", "--format", "json", "--target", t, ws])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves.into_iter().flat_map(|h| h.join().expect("explain thread")).collect()
    });
    let mut explain = Map::new();
    for (t, v) in explained {
        explain.insert(t, v);
    }
    let mut all = Map::new();
    all.insert("check".into(), json(&["check", "--format", "json", ws]));
    all.insert("status".into(), json(&["status", "--format", "json", ws]));
    all.insert("explain".into(), Value::Object(explain));
    Value::Object(all)
}

#[test]
fn outputs_on_every_fixture_are_pinned() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| !v.is_empty() && v != "0");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected/outputs");
    // Every fixture workspace is here: a new one must be added to WORKSPACES.
    let root = repo();
    for parent in ["fixtures", "fixtures/repos"] {
        for entry in std::fs::read_dir(root.join(parent)).expect("fixtures") {
            let path = entry.expect("entry").path();
            let rel = format!("{parent}/{}", path.file_name().and_then(|n| n.to_str()).unwrap_or(""));
            if path.is_dir() && rel != "fixtures/repos" {
                assert!(WORKSPACES.contains(&rel.as_str()), "{rel} is not in WORKSPACES");
            }
        }
    }
    let mut failures = Vec::new();
    for ws in WORKSPACES {
        let got = outputs(ws);
        let path = dir.join(format!("{}.json", ws.trim_start_matches("fixtures/").replace('/', "-")));
        if update {
            std::fs::create_dir_all(&dir).expect("create expected/outputs");
            let mut text = serde_json::to_string_pretty(&got).expect("serialise");
            text.push('\n');
            std::fs::write(&path, text).expect("write expected file");
            continue;
        }
        let want: Value = match std::fs::read_to_string(&path) {
            Ok(t) => serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            Err(e) => {
                failures.push(format!("{}: {e} (run with UPDATE_EXPECT=1 to create it)", path.display()));
                continue;
            }
        };
        if want != got {
            failures.push(format!("{ws}: outputs differ from {}:\n{}", path.display(), differences(&want, &got, "")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Where two JSON values differ, as `pointer: want → got` lines (the first few).
fn differences(want: &Value, got: &Value, at: &str) -> String {
    let mut out = Vec::new();
    diff(want, got, at, &mut out);
    let n = out.len();
    out.truncate(20);
    if n > 20 {
        out.push(format!("… {} more", n - 20));
    }
    out.join("\n")
}

fn diff(want: &Value, got: &Value, at: &str, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let here = format!("{at}/{k}");
                match b.get(k) {
                    Some(w) => diff(v, w, &here, out),
                    None => out.push(format!("{here}: missing")),
                }
            }
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                out.push(format!("{at}/{k}: new"));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                diff(v, w, &format!("{at}/{i}"), out);
            }
        }
        _ if want != got => out.push(format!("{at}: {want} → {got}")),
        _ => {}
    }
}
