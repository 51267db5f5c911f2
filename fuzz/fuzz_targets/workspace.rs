//! A workspace of several files from one input: lines `--- file: NAME` start a new file (the
//! text before the first one is `a.yaml`). NAME may hold directories, so the `worlds` of a
//! config and duplicate definitions across files and worlds come into play; a file named
//! `.policylens.yaml` is the config. Then the whole engine, explain and the graph, and the
//! checks on every diagnostic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use policylens_core::workspace::Workspace;

fuzz_target!(|data: &[u8]| {
    if data.len() > policylens_fuzz::MAX_INPUT {
        return;
    }
    let Ok(input) = std::str::from_utf8(data) else { return };
    let mut ws = Workspace::new();
    let mut files: Vec<(String, String)> = Vec::new();
    let mut name = String::from("a.yaml");
    let mut text = String::new();
    for line in input.split_inclusive('\n') {
        match line.trim_end_matches(['\n', '\r']).strip_prefix("--- file: ") {
            Some(next) => {
                files.push((std::mem::take(&mut name), std::mem::take(&mut text)));
                name = clean(next, files.len());
            }
            None => text.push_str(line),
        }
    }
    files.push((name, text));
    for (name, text) in files.iter().take(16) {
        policylens_fuzz::parse_and_check(text);
        if name == ".policylens.yaml" {
            ws.set_config(Some(name), text);
        } else {
            ws.set_file(name, text.as_str());
        }
    }
    let snap = ws.snapshot();
    policylens_fuzz::analyse(&snap, 32);
});

/// A relative path of plain components, or a made-up one.
fn clean(name: &str, n: usize) -> String {
    let parts: Vec<&str> =
        name.trim().split('/').filter(|p| !p.is_empty() && *p != "." && *p != "..").take(6).collect();
    if parts.is_empty() { format!("f{n}.yaml") } else { parts.join("/") }
}
