//! Randomized sessions: random incremental edits (multi-byte text, CRLF, lone CR), opens,
//! closes and requests. Nothing may panic or fail internally, the server's text must equal
//! the client's, and the final diagnostics must equal a fresh index of the final texts.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::support::{TempDir, TestServer, position_of, repo_root};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const PIECES: &[&str] = &[
    "",
    "a",
    "é",
    "😀",
    "\n",
    "\r\n",
    "\r",
    "  ",
    "- ",
    "name: ",
    "kind: Gateway",
    "sectionName: ",
    "{",
    "}",
    "[",
    "]",
    ":",
    "#",
    "\"",
    "checkout",
    "edge",
    "pay",
    "---\n",
    "\t",
    "ü☕",
    "targetRefs:\n    - ",
];

const REQUESTS: &[&str] = &[
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/documentSymbol",
    "textDocument/codeLens",
    "textDocument/codeAction",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/diagnostic",
];

/// A random byte offset of `text` that LSP can name: on a char boundary, not inside `\r\n`.
fn offset(rng: &mut Rng, text: &str) -> usize {
    let mut o = rng.below(text.len() + 1);
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    if o > 0 && text.as_bytes()[o - 1] == b'\r' && text.as_bytes().get(o) == Some(&b'\n') {
        o -= 1;
    }
    o
}

fn pos(text: &str, off: usize, utf8: bool) -> Value {
    let (line, character) = position_of(text, off, utf8);
    json!({"line": line, "character": character})
}

fn session(seed: u64, enc: &str, ops: usize) {
    let utf8 = enc == "utf-8";
    let mut rng = Rng(seed);
    let mut s = TestServer::builder().fixture("lsp").encodings(&[enc]).env("POLICYLENS_TEST", "1").start();
    let files = [
        "platform/gateway.yaml",
        "shop/routes.yaml",
        "shop/services.yaml",
        "policies/policies.yaml",
        "policies/unicode.yaml",
        "scratch.yaml",
    ];
    let mut disk: BTreeMap<&str, String> = BTreeMap::new();
    for f in files {
        if let Ok(t) = std::fs::read_to_string(s.path(f)) {
            disk.insert(f, t);
        }
    }
    let mut open: BTreeMap<&str, (String, i32)> = BTreeMap::new();
    let mut pending = Vec::new();

    for _ in 0..ops {
        let roll = rng.below(100);
        let open_names: Vec<&str> = open.keys().copied().collect();
        if roll < 15 || open_names.is_empty() {
            let f = *rng.pick(&files);
            if !open.contains_key(f) {
                let text = disk.get(f).cloned().unwrap_or_default();
                s.open(f, &text);
                open.insert(f, (text, 1));
            }
        } else if roll < 23 {
            let f = *rng.pick(&open_names);
            s.close(f);
            open.remove(f);
        } else if roll < 75 {
            let f = *rng.pick(&open_names);
            let (text, version) = open.get_mut(f).unwrap();
            let mut changes = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let a = offset(&mut rng, text);
                let b = offset(&mut rng, text);
                let (a, b) = (a.min(b), a.max(b));
                // Mostly small edits, like typing.
                let b = if rng.below(4) == 0 { b } else { a + (b - a).min(3) };
                let mut b = b.min(text.len());
                while !text.is_char_boundary(b) {
                    b += 1;
                }
                if b > 0 && text.as_bytes()[b - 1] == b'\r' && text.as_bytes().get(b) == Some(&b'\n') {
                    b += 1;
                }
                let new = format!("{}{}", rng.pick(PIECES), rng.pick(PIECES));
                changes.push(json!({"range": {"start": pos(text, a, utf8), "end": pos(text, b, utf8)}, "text": new}));
                text.replace_range(a..b, &new);
            }
            if rng.below(20) == 0 {
                *text = format!("{}{}", rng.pick(PIECES), text);
                changes.push(json!({"text": text.clone()}));
            }
            *version += 1;
            let v = *version;
            s.change(f, v, json!(changes));
        } else if roll < 95 {
            let f = *rng.pick(&open_names);
            let text = &open[f].0;
            let p = pos(text, offset(&mut rng, text), utf8);
            let method = *rng.pick(REQUESTS);
            let uri = s.uri(f);
            let params = json!({
                "textDocument": {"uri": uri}, "position": p,
                "range": {"start": p, "end": p},
                "context": {"diagnostics": [], "includeDeclaration": true},
                "newName": "renamed",
            });
            pending.push((method, s.send_request(method, params)));
        } else {
            let f = *rng.pick(&open_names);
            let got = s.server_text(f);
            assert_eq!(got["text"].as_str(), Some(open[f].0.as_str()), "server text of {f} differs (seed {seed})");
        }
    }
    for (method, id) in pending {
        if let Err(e) = s.response(id) {
            // Requests may fail (nothing to rename), never internally.
            assert_ne!(e["code"], -32603, "{method} failed internally (seed {seed}): {e}");
        }
    }
    for (f, (text, _)) in &open {
        assert_eq!(s.server_text(f)["text"].as_str(), Some(text.as_str()), "final text of {f} (seed {seed})");
    }

    // The final state: open texts over disk texts.
    let mut final_texts: BTreeMap<&str, String> = disk.clone();
    for (f, (t, _)) in &open {
        final_texts.insert(f, t.clone());
    }
    // Pulls while the full pass lags give the keystroke answer (status warnings carried from
    // the last full pass); the settled answer is the exact one.
    s.settle();
    let mut pulled: BTreeMap<&str, Value> = BTreeMap::new();
    for f in final_texts.keys() {
        let items = s.pull(f, None)["items"].clone();
        pulled.insert(f, s.normalize(&items));
    }

    // Push ends in the same state: the last publish per file equals the pull (waiting for a
    // slow machine's publisher, up to a deadline).
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        s.drain(Duration::from_millis(200));
        let mut last_push: BTreeMap<String, Value> = BTreeMap::new();
        for m in &s.wire {
            if m["method"] == "textDocument/publishDiagnostics" {
                last_push.insert(m["params"]["uri"].as_str().unwrap().to_owned(), m["params"]["diagnostics"].clone());
            }
        }
        let differs: Vec<&str> = final_texts
            .keys()
            .copied()
            .filter(|f| last_push.get(&s.uri(f)).map(|d| s.normalize(d)).unwrap_or(json!([])) != pulled[f])
            .collect();
        if differs.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "pushed diagnostics of {differs:?} differ from pulled ones (seed {seed})"
        );
    }
    assert_eq!(s.shutdown(), 0);

    // A fresh server on the final texts, nothing open.
    let dir = TempDir::new();
    for name in [".policylens.yaml", ".gitignore"] {
        std::fs::copy(repo_root().join("fixtures/lsp").join(name), dir.path().join(name)).unwrap();
    }
    for (f, t) in &final_texts {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    let mut fresh = TestServer::builder().root(dir).encodings(&[enc]).start();
    for (f, expected) in &pulled {
        let items = fresh.pull(f, None)["items"].clone();
        let got = fresh.normalize(&items);
        assert_eq!(
            &got, expected,
            "diagnostics of {f} differ from a fresh index (seed {seed})\ntext:\n{:?}",
            final_texts[f]
        );
    }
}

#[test]
fn random_sessions_utf16() {
    for seed in [0x9E37_79B9_7F4A_7C15, 42, 7] {
        session(seed, "utf-16", 150);
    }
}

#[test]
fn random_sessions_utf8() {
    for seed in [0xD1B5_4A32_D192_ED03, 1234] {
        session(seed, "utf-8", 150);
    }
}
