//! The core's modules form layers that only point down (ARCHITECTURE.md, "Layers"): a module
//! may name only itself and the modules below it. This fails on a new upward reference, with
//! the file and line, before it grows into a circle.

use std::path::Path;

/// Bottom first. A module may use the modules of earlier rows, never of its own row's others
/// or of later rows.
const LAYERS: &[&[&str]] = &[
    &["syntax", "suggest"],
    &["model"],
    &["source", "catalog"],
    &["world"],
    &["diagnostic", "topology"],
    &["effective"],
    &["workspace"],
    &["analysis"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&module))
}

/// `crate::NAME` references in a file's non-test code, with line numbers.
fn references(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // Unit tests at the bottom of a file may build whole workspaces.
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            // `policylens_crate::` or `$crate::` are not ours.
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let name: String =
                code[at + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push((i + 1, name));
            }
        }
    }
    out
}

fn visit(dir: &Path, module: &str, problems: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // Test directories hold fixtures that drive the whole engine.
            if path.file_name().is_some_and(|n| n != "tests") {
                visit(&path, module, problems);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs")
            || path.file_stem().is_some_and(|s| s.to_str().unwrap().ends_with("tests"))
        {
            continue;
        }
        let here = layer(module).unwrap_or_else(|| panic!("module `{module}` is in no layer: add it to LAYERS"));
        for (line, name) in references(&std::fs::read_to_string(&path).unwrap()) {
            if name == module {
                continue;
            }
            match layer(&name) {
                Some(l) if l < here => {}
                Some(_) => {
                    problems.push(format!("{}:{line}: `{module}` uses `crate::{name}`, not below it", path.display()))
                }
                None => problems.push(format!("{}:{line}: `crate::{name}` is in no layer", path.display())),
            }
        }
    }
}

#[test]
fn core_layers_only_point_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let module = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if module == "lib" {
            continue;
        }
        if path.is_dir() {
            visit(&path, &module, &mut problems);
        } else {
            let here = layer(&module).unwrap_or_else(|| panic!("module `{module}` is in no layer: add it to LAYERS"));
            for (line, name) in references(&std::fs::read_to_string(&path).unwrap()) {
                if name != module && layer(&name).is_none_or(|l| l >= here) {
                    problems.push(format!("{}:{line}: `{module}` uses `crate::{name}`, not below it", path.display()));
                }
            }
        }
    }
    assert!(problems.is_empty(), "upward references:\n{}", problems.join("\n"));
}

#[test]
fn the_check_sees_an_upward_reference() {
    let text = "use crate::model::Object;\nfn f() { crate::analysis::hover(); } // crate::workspace\n#[cfg(test)]\nuse crate::workspace::Workspace;\n";
    assert_eq!(references(text), [(1, "model".to_owned()), (2, "analysis".to_owned())]);
}
