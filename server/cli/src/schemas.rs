//! JSON Schemas of the JSON outputs, generated from the types that write them and committed
//! under `schemas/` (a test fails when they are stale; `tests/schemas_cli.rs` validates real
//! outputs against them).

use serde_json::Value;

/// The schema of what `T` serialises to (fields it may leave out are not required).
fn of<T: schemars::JsonSchema>() -> Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// (file name under `schemas/`, schema) for every JSON output.
pub fn all() -> Vec<(&'static str, Value)> {
    vec![
        ("policylens-check.schema.json", of::<crate::check::json::CheckReport>()),
        ("policylens-explain.schema.json", of::<policylens_core::effective::Explanation>()),
        ("policylens-status.schema.json", of::<policylens_core::effective::StatusReport>()),
        ("policylens-diff.schema.json", of::<policylens_core::analysis::diff::Report>()),
        ("policylens-graph.schema.json", of::<policylens_core::analysis::graph::Graph>()),
    ]
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The committed schemas are the ones the types give; `UPDATE_SCHEMAS=1` rewrites them.
    #[test]
    fn output_schemas_are_current() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
        let mut stale = Vec::new();
        for (name, schema) in super::all() {
            let text = serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n";
            let path = dir.join(name);
            if std::env::var_os("UPDATE_SCHEMAS").is_some() {
                std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(name);
            }
        }
        assert!(
            stale.is_empty(),
            "stale: {stale:?}; regenerate with `UPDATE_SCHEMAS=1 cargo test -p policylens schemas`"
        );
    }
}
