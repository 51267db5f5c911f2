//! Real outputs of the built binary validate against the committed JSON Schemas
//! (`schemas/`, generated from the types that write them): check, explain, status, graph and diff on
//! the demo, the broken fixtures and a change.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn output(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_policylens")).args(args).current_dir(dir).output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{args:?}: {e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn assert_valid(schema: &str, instance: &Value) {
    let path = repo().join("schemas").join(schema);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
}

#[test]
fn outputs_validate_against_their_schemas() {
    let demo = repo().join("fixtures/demo");
    let bad = repo().join("fixtures/bad");
    for dir in [&demo, &bad] {
        let check = output(dir, &["check", "--format", "json", "--show-suppressed", "."]);
        assert!(!check["diagnostics"].as_array().unwrap().is_empty(), "{check}");
        assert_valid("policylens-check.schema.json", &check);
        assert_valid("policylens-status.schema.json", &output(dir, &["status", "--format", "json", "."]));
    }
    let explain = output(&demo, &["explain", "--format", "json", ".", "--target", "HTTPRoute/shop/checkout#pay"]);
    assert!(!explain["policies"].as_array().unwrap().is_empty());
    assert_valid("policylens-explain.schema.json", &explain);
    let graph = output(&demo, &["graph", "--format", "json", "."]);
    assert!(!graph["policies"].as_array().unwrap().is_empty());
    assert_valid("policylens-graph.schema.json", &graph);
    // A diff with something in every section: the demo against the broken fixtures.
    let diff = output(&repo(), &["diff", "fixtures/demo", "fixtures/bad", "--format", "json"]);
    for k in ["effective", "status", "introduced", "fixed"] {
        assert!(!diff[k].as_array().unwrap().is_empty(), "{k} empty: {diff}");
    }
    assert_valid("policylens-diff.schema.json", &diff);
}

/// The schemas are not vacuous: an output with a field of the wrong type fails.
#[test]
fn a_wrong_output_fails_its_schema() {
    let path = repo().join("schemas/policylens-check.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let wrong = serde_json::json!({"diagnostics": [{"file": "a.yaml", "range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}, "severity": "error", "code": "x", "message": "m"}],
        "summary": {"files": 1, "documents": 1, "objects": 1, "policies": 0, "suppressed": 0, "elapsedMs": 3}});
    assert!(!validator.is_valid(&wrong));
    let missing = serde_json::json!({"diagnostics": []});
    assert!(!validator.is_valid(&missing));
}
