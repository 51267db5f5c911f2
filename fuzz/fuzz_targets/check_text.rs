//! One file's bytes → what `policylens check FILE` computes: decode, parse, the whole engine,
//! every diagnostic; plus the editor features at a few offsets. Checks the syntax tree and
//! every diagnostic's span and positions (see `policylens_fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use policylens_core::source::{FileContent, decode};
use policylens_core::workspace::Workspace;

const PATH: &str = "deploy/fuzz.yaml";

fuzz_target!(|data: &[u8]| {
    if data.len() > policylens_fuzz::MAX_INPUT {
        return;
    }
    let mut ws = Workspace::new();
    match decode(data.to_vec()) {
        FileContent::Text(text) => {
            policylens_fuzz::parse_and_check(&text);
            ws.set_file(PATH, text);
        }
        FileContent::Unreadable(reason) => ws.set_unreadable(PATH, &reason),
    }
    let snap = ws.snapshot();
    policylens_fuzz::analyse(&snap, 8);
    if let Some(f) = snap.source(PATH) {
        let text = f.text();
        // A few char-boundary offsets spread over the file, as cursor positions.
        let offsets: Vec<u32> = [0, text.len() / 3, text.len() / 2, text.len()]
            .into_iter()
            .map(|mut o| {
                while !text.is_char_boundary(o) {
                    o -= 1;
                }
                o as u32
            })
            .collect();
        policylens_fuzz::editor_features(&snap, PATH, &offsets);
    }
});
