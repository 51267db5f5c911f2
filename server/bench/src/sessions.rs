//! Random editor sessions against the real `policylens serve` over stdio (the harness behind
//! `policylens-bench-sessions` and the short session test of the normal suite).
//!
//! A session copies a base workspace to a temp dir, starts the server on it and runs random
//! operations like an editor and a user would: incremental edits at random positions (YAML
//! fragments that matter, multi-byte text, tabs, lone CR, Unicode line separators, positions
//! past line ends and inside surrogate pairs), full replacements, saves, closes and reopens,
//! files created, changed, deleted and renamed on disk with `workspace/didChangeWatchedFiles`
//! (some invalid UTF-8), and every request the server offers at random places, some left
//! unanswered for a while, some cancelled. At the end every open buffer is written to its file
//! and the session checks: the server is alive, logged no panic, answered no request with an
//! error other than cancellation (or the documented "cannot do that here" answers), holds each
//! open document's text exactly, and its last published diagnostics for every file equal what
//! `policylens check --format json` reports on the files as they are on disk.
//!
//! Everything random comes from the session's seed, so one seed replays one session (the
//! server's timing may still differ between runs).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::lsp_client::{Client, Event, file_uri};

/// splitmix64: small, fast, and every seed (0 included) gives a good stream.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// What a session runs against.
pub struct Config {
    /// The `policylens` binary.
    pub policylens: PathBuf,
    /// The base workspace: relative path → bytes.
    pub base: BTreeMap<String, Vec<u8>>,
    /// Operations per session.
    pub ops: usize,
    /// Per wait (a request's answer, the settle).
    pub timeout: Duration,
    /// Where to copy the final files of a failing session (as `seed-S/`), for a closer look.
    pub keep: Option<PathBuf>,
}

/// A session's result: empty `failures` when it passed.
pub struct Outcome {
    pub seed: u64,
    pub failures: Vec<String>,
    /// One line per operation, for replaying by hand.
    pub log: Vec<String>,
    pub requests: usize,
    /// Error answers that were allowed, by method and code.
    pub allowed_errors: BTreeMap<String, usize>,
    pub elapsed: Duration,
}

/// The default base workspace: `fixtures/demo` and a few `fixtures/conformance` workspaces
/// (each under `conformance/`), YAML files only.
pub fn default_base(repo: &Path) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    let mut base = BTreeMap::new();
    let demo = repo.join("fixtures/demo");
    let mut files = Vec::new();
    crate::lsp_client::yaml_files(&demo, &mut files)?;
    for f in files {
        let rel = f.strip_prefix(&demo).map_err(std::io::Error::other)?.to_string_lossy().into_owned();
        base.insert(rel, std::fs::read(&f)?);
    }
    for name in ["gep713-example2-defaults-overrides", "envoy-gateway-route-over-gateway", "gep2649-listmaptype"] {
        let dir = repo.join("fixtures/conformance").join(name);
        let mut files = Vec::new();
        crate::lsp_client::yaml_files(&dir, &mut files)?;
        for f in files {
            let file = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            base.insert(format!("conformance/{name}/{file}"), std::fs::read(&f)?);
        }
    }
    Ok(base)
}

/// Every regular file under `dir` (hidden ones included): relative path → bytes.
pub fn base_from_dir(dir: &Path) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            if e.file_type()?.is_dir() {
                walk(root, &e.path(), out)?;
            } else {
                let rel = e.path().strip_prefix(root).map_err(std::io::Error::other)?.to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(e.path())?);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Text positions as the server reads them: lines end at `\n`, `\r\n` or a lone `\r`; a column
// past the line's end is its end; a column inside a character (a surrogate pair, a UTF-8
// sequence) is that character's start; a line past the last is the end of the text.

fn lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            b'\r' => {
                out.push((start, i));
                if b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, b.len()));
    out
}

fn units(s: &str, utf8: bool) -> usize {
    if utf8 { s.len() } else { s.encode_utf16().count() }
}

/// The position of byte `off` (a char boundary).
fn position_of(text: &str, off: usize, utf8: bool) -> (usize, usize) {
    let ls = lines(text);
    let line = ls.iter().rposition(|(s, _)| *s <= off).unwrap_or(0);
    let (s, e) = ls[line];
    (line, units(&text[s..off.clamp(s, e)], utf8))
}

/// The byte offset the server reads at `(line, col)`.
fn offset_of(text: &str, line: usize, col: usize, utf8: bool) -> usize {
    let ls = lines(text);
    let Some(&(s, e)) = ls.get(line) else { return text.len() };
    let mut n = 0;
    for (i, ch) in text[s..e].char_indices() {
        let w = if utf8 { ch.len_utf8() } else { ch.len_utf16() };
        if n + w > col {
            return s + i;
        }
        n += w;
    }
    e
}

fn pos(line: usize, col: usize) -> Value {
    json!({"line": line, "character": col})
}

/// A random char boundary of `text`, not between `\r` and `\n`.
fn boundary(rng: &mut Rng, text: &str) -> usize {
    let mut o = rng.below(text.len() + 1);
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    if o > 0 && text.as_bytes()[o - 1] == b'\r' && text.as_bytes().get(o) == Some(&b'\n') {
        o -= 1;
    }
    o
}

/// A random position: mostly a real place, sometimes past a line's end, past the last line,
/// or inside a surrogate pair / UTF-8 sequence.
fn random_position(rng: &mut Rng, text: &str, utf8: bool) -> (usize, usize) {
    let (line, col) = position_of(text, boundary(rng, text), utf8);
    match rng.below(20) {
        0 => (line, col + 1 + rng.below(40)),
        1 => (lines(text).len() + rng.below(3), rng.below(5)),
        2 | 3 => {
            // Inside a multi-unit character of the line, when it has one.
            let (s, e) = lines(text)[line];
            let mut n = 0;
            for ch in text[s..e].chars() {
                let w = if utf8 { ch.len_utf8() } else { ch.len_utf16() };
                if w > 1 {
                    return (line, n + 1);
                }
                n += w;
            }
            (line, col)
        }
        _ => (line, col),
    }
}

// ---------------------------------------------------------------------------------------------
// What gets typed and written.

const NAMES: &[&str] = &["checkout", "edge", "payments", "shop", "infra", "web", "pay", "api", "gw", "https"];
const KINDS: &[&str] = &[
    "Gateway",
    "HTTPRoute",
    "GRPCRoute",
    "Service",
    "BackendTLSPolicy",
    "BackendTrafficPolicy",
    "RateLimitPolicy",
    "ClientTrafficPolicy",
    "Namespace",
    "ListenerSet",
    "ReferenceGrant",
];

fn fragment(rng: &mut Rng) -> String {
    let name = *rng.pick(NAMES);
    let kind = *rng.pick(KINDS);
    match rng.below(40) {
        0 => "é".into(),
        1 => "😀".into(),
        2 => "中文".into(),
        3 => "\r".into(),
        4 => "\r\n".into(),
        5 => "\n".into(),
        6 => "\t".into(),
        7 => "  ".into(),
        8 => "---\n".into(),
        9 => "- ".into(),
        10 => format!("name: {name}"),
        11 => format!("kind: {kind}"),
        12 => format!("sectionName: {name}"),
        13 => format!("namespace: {name}"),
        14 => format!("targetRef:\n  group: gateway.networking.k8s.io\n  kind: {kind}\n  name: {name}\n"),
        15 => format!("targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: {kind}\n      name: {name}\n"),
        16 => format!("  - name: {name}\n    port: 80\n"),
        17 => "\u{2028}".into(),
        18 => "\u{85}".into(),
        19 => "\u{feff}".into(),
        20 => "{".into(),
        21 => "}".into(),
        22 => "[".into(),
        23 => ":".into(),
        24 => "#".into(),
        25 => "\"".into(),
        26 => "'".into(),
        27 => "&a ".into(),
        28 => "*a".into(),
        29 => "...\n".into(),
        30 => "ü☕".into(),
        31 => format!("parentRefs:\n  - name: {name}\n    sectionName: {}\n", rng.pick(NAMES)),
        32 => "  ".repeat(1 + rng.below(4)),
        33 => "\u{0}".into(),
        34 => "𝕏".into(),
        35 => format!("{name}😀"),
        36 => "# policylens: ignore[target-not-found]\n".into(),
        37 => "\r\r".into(),
        _ => (*rng.pick(NAMES)).into(),
    }
}

/// A whole new file: a policy, a route or a Service, sometimes mangled.
fn new_file(rng: &mut Rng) -> Vec<u8> {
    let name = *rng.pick(NAMES);
    let ns = *rng.pick(&["shop", "payments", "infra", "default"]);
    let kind = *rng.pick(KINDS);
    let mut text = match rng.below(5) {
        0 => format!(
            "apiVersion: gateway.networking.k8s.io/v1alpha3\nkind: BackendTLSPolicy\nmetadata:\n  name: {name}-tls\n  namespace: {ns}\nspec:\n  targetRefs:\n    - group: \"\"\n      kind: Service\n      name: {}\n      sectionName: {}\n  validation:\n    hostname: {name}.example.com\n    wellKnownCACertificates: System\n",
            rng.pick(NAMES),
            rng.pick(NAMES)
        ),
        1 => format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  parentRefs:\n    - name: {}\n      namespace: infra\n      sectionName: {}\n  rules:\n    - name: {}\n      backendRefs:\n        - name: {}\n          port: 8080\n",
            rng.pick(NAMES),
            rng.pick(NAMES),
            rng.pick(NAMES),
            rng.pick(NAMES)
        ),
        2 => format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  ports:\n    - name: {}\n      port: 8080\n",
            rng.pick(NAMES)
        ),
        3 => format!(
            "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: {name}-btp\n  namespace: {ns}\nspec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: {kind}\n      name: {}\n  timeout:\n    http:\n      requestTimeout: 5s\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n",
            rng.pick(NAMES)
        ),
        _ => (0..1 + rng.below(6)).map(|_| fragment(rng)).collect(),
    }
    .into_bytes();
    if rng.chance(15) {
        // Not UTF-8: a Latin-1 byte, a lone continuation byte, a cut 4-byte sequence.
        const BAD: [&[u8]; 4] = [b"\xe9", b"\x80", b"\xf0\x9f\x98", b"\xff\xfe"];
        let bad = *rng.pick(&BAD);
        let at = rng.below(text.len() + 1);
        text.splice(at..at, bad.iter().copied());
    }
    text
}

// ---------------------------------------------------------------------------------------------
// The session.

struct Doc {
    text: String,
    version: i32,
}

struct Pending {
    method: String,
    op: usize,
}

struct Session<'a> {
    cfg: &'a Config,
    rng: Rng,
    root: PathBuf,
    utf8: bool,
    c: Client,
    /// The files as on disk (what this session wrote).
    disk: BTreeMap<String, Vec<u8>>,
    open: BTreeMap<String, Doc>,
    /// Watched-file events not sent yet (editors batch them).
    events: Vec<(String, u8)>,
    pending: HashMap<u64, Pending>,
    /// The last diagnostics published per URI.
    published: BTreeMap<String, Value>,
    failures: Vec<String>,
    log: Vec<String>,
    op: usize,
    requests: usize,
    allowed_errors: BTreeMap<String, usize>,
    closed: bool,
}

/// Names new files get (some in a directory that can be deleted as a whole).
const NEW_NAMES: &[&str] = &[
    "new.yaml",
    "scratch.yml",
    "extra/one.yaml",
    "extra/two.yaml",
    "extra/deep/three.yaml",
    "shop/more.yaml",
    "policies/added.yaml",
    "payments/renamed.yaml",
];

impl Session<'_> {
    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn uri(&self, rel: &str) -> String {
        file_uri(&self.path(rel))
    }

    fn fail(&mut self, what: String) {
        self.failures.push(format!("op {}: {what}", self.op));
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::Response { id, msg, .. } => {
                let Some(p) = self.pending.remove(&id) else { return };
                if let Some(err) = msg.get("error") {
                    let code = err["code"].as_i64().unwrap_or(0);
                    let allowed = match code {
                        // RequestCancelled, ContentModified.
                        -32800 | -32801 => true,
                        // RequestFailed where the server documents it: nothing to rename here,
                        // no object at this place, a target or focus that does not exist.
                        -32803 => matches!(
                            p.method.as_str(),
                            "textDocument/rename" | "policylens/explain" | "policylens/graph"
                        ),
                        // A malformed explain target.
                        -32602 => p.method == "policylens/explain",
                        _ => false,
                    };
                    if allowed {
                        *self.allowed_errors.entry(format!("{} {code}", p.method)).or_default() += 1;
                    } else {
                        let m = format!("{} (sent at op {}) answered with an error: {err}", p.method, p.op);
                        self.fail(m);
                    }
                }
            }
            Event::Diagnostics { uri, diagnostics, .. } => {
                self.published.insert(uri, diagnostics);
            }
            Event::ProgressEnd { .. } => {}
            Event::Closed => {
                if !self.closed {
                    self.closed = true;
                    let m = format!("the server closed its output\n{}", self.c.stderr_tail());
                    self.fail(m);
                }
            }
        }
    }

    /// Handles what has arrived, waiting at most `wait`.
    fn pump(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.c.next_event(left) {
                Some(ev) => self.handle(ev),
                None => return,
            }
            if self.closed {
                return;
            }
        }
    }

    /// Handles events until the answer to `id` arrived (or the timeout).
    fn answered(&mut self, id: u64) -> bool {
        let deadline = Instant::now() + self.cfg.timeout;
        while self.pending.contains_key(&id) && !self.closed {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            if let Some(ev) = self.c.next_event(left) {
                self.handle(ev);
            }
        }
        !self.closed
    }

    fn notify(&mut self, method: &str, params: Value) {
        if let Err(e) = self.c.notify(method, params) {
            self.fail(format!("cannot send {method}: {e}"));
            self.closed = true;
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Option<u64> {
        match self.c.send_request(method, params) {
            Ok((id, _)) => {
                self.requests += 1;
                self.pending.insert(id, Pending { method: method.into(), op: self.op });
                Some(id)
            }
            Err(e) => {
                self.fail(format!("cannot send {method}: {e}"));
                self.closed = true;
                None
            }
        }
    }

    fn write_disk(&mut self, rel: &str, bytes: Vec<u8>) {
        let p = self.path(rel);
        if let Some(dir) = p.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(&p, &bytes) {
            self.fail(format!("cannot write {}: {e}", p.display()));
        }
        let typ = if self.disk.contains_key(rel) { 2 } else { 1 };
        self.disk.insert(rel.into(), bytes);
        self.event(rel, typ);
    }

    fn event(&mut self, rel: &str, typ: u8) {
        self.events.push((rel.into(), typ));
    }

    fn flush_events(&mut self) {
        if self.events.is_empty() {
            return;
        }
        let changes: Vec<Value> =
            self.events.iter().map(|(rel, typ)| json!({"uri": self.uri(rel), "type": typ})).collect();
        self.events.clear();
        self.notify("workspace/didChangeWatchedFiles", json!({"changes": changes}));
    }

    fn did_open(&mut self, rel: &str, text: String) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
        self.open.insert(rel.into(), Doc { text, version: 1 });
    }

    fn did_close(&mut self, rel: &str) {
        let uri = self.uri(rel);
        self.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
        self.open.remove(rel);
    }

    // ------------------------------------------------------------------ operations

    fn op_edit(&mut self) {
        let Some(rel) = self.pick_open() else { return self.op_open() };
        let utf8 = self.utf8;
        let n = 1 + self.rng.below(3);
        let mut changes = Vec::new();
        let mut text = self.open[&rel].text.clone();
        let mut what = Vec::new();
        for _ in 0..n {
            let (l1, c1) = random_position(&mut self.rng, &text, utf8);
            let (l2, c2) = if self.rng.chance(60) {
                (l1, c1)
            } else if self.rng.chance(70) {
                (l1, c1 + 1 + self.rng.below(4))
            } else {
                random_position(&mut self.rng, &text, utf8)
            };
            let new = if self.rng.chance(25) { String::new() } else { fragment(&mut self.rng) };
            let a = offset_of(&text, l1, c1, utf8);
            let b = offset_of(&text, l2, c2, utf8);
            let (a, b) = (a.min(b), a.max(b));
            text.replace_range(a..b, &new);
            what.push(format!("{l1}:{c1}-{l2}:{c2} {new:?}"));
            changes.push(json!({"range": {"start": pos(l1, c1), "end": pos(l2, c2)}, "text": new}));
        }
        self.log.push(format!("edit {rel}: {}", what.join("; ")));
        self.send_change(&rel, text, changes);
    }

    fn op_replace(&mut self) {
        let Some(rel) = self.pick_open() else { return self.op_open() };
        let text = if self.rng.chance(50) {
            String::from_utf8_lossy(&new_file(&mut self.rng)).into_owned()
        } else {
            // Another file's text, as a paste over everything.
            let other = self.pick_disk().and_then(|r| self.disk.get(&r).cloned()).unwrap_or_default();
            String::from_utf8_lossy(&other).into_owned()
        };
        self.log.push(format!("replace {rel} ({} bytes)", text.len()));
        let changes = vec![json!({"text": text})];
        self.send_change(&rel, text, changes);
    }

    fn send_change(&mut self, rel: &str, text: String, changes: Vec<Value>) {
        let uri = self.uri(rel);
        let Some(doc) = self.open.get_mut(rel) else { return };
        doc.version += 1 + (self.rng.below(4) == 0) as i32;
        doc.text = text;
        let version = doc.version;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
    }

    fn op_save(&mut self) {
        let Some(rel) = self.pick_open() else { return };
        let bytes = self.open[&rel].text.clone().into_bytes();
        self.log.push(format!("save {rel}"));
        self.write_disk(&rel, bytes);
        let uri = self.uri(&rel);
        self.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
        if self.rng.chance(70) {
            self.flush_events();
        }
    }

    fn op_open(&mut self) {
        let closed: Vec<String> = self.disk.keys().filter(|r| !self.open.contains_key(*r)).cloned().collect();
        if closed.is_empty() || self.rng.chance(10) {
            // A new, unsaved document.
            let rel = (*self.rng.pick(NEW_NAMES)).to_owned();
            if self.open.contains_key(&rel) || self.disk.contains_key(&rel) {
                return;
            }
            let text = String::from_utf8_lossy(&new_file(&mut self.rng)).into_owned();
            self.log.push(format!("open new {rel}"));
            self.did_open(&rel, text);
            return;
        }
        let rel = self.rng.pick(&closed).clone();
        let text = String::from_utf8_lossy(&self.disk[&rel]).into_owned();
        self.log.push(format!("open {rel}"));
        self.did_open(&rel, text);
    }

    fn op_close(&mut self) {
        let Some(rel) = self.pick_open() else { return };
        self.log.push(format!("close {rel}"));
        self.did_close(&rel);
    }

    fn op_disk(&mut self) {
        match self.rng.below(10) {
            0..=3 => {
                let rel = (*self.rng.pick(NEW_NAMES)).to_owned();
                let bytes = new_file(&mut self.rng);
                self.log.push(format!("disk write {rel} ({} bytes)", bytes.len()));
                self.write_disk(&rel, bytes);
            }
            4..=6 => {
                let Some(rel) = self.pick_disk() else { return };
                let mut text = String::from_utf8_lossy(&self.disk[&rel]).into_owned();
                let a = boundary(&mut self.rng, &text);
                let b = boundary(&mut self.rng, &text).max(a).min(a + 20);
                let mut b = b.min(text.len());
                while !text.is_char_boundary(b) {
                    b += 1;
                }
                let new = fragment(&mut self.rng);
                text.replace_range(a..b, &new);
                self.log.push(format!("disk edit {rel} {a}..{b} {new:?}"));
                self.write_disk(&rel, text.into_bytes());
            }
            7 | 8 => {
                let Some(rel) = self.pick_disk() else { return };
                self.log.push(format!("disk delete {rel}"));
                let _ = std::fs::remove_file(self.path(&rel));
                self.disk.remove(&rel);
                self.event(&rel, 3);
            }
            _ => {
                // A directory deleted as a whole: one event for the directory.
                if !self.disk.keys().any(|r| r.starts_with("extra/")) {
                    return;
                }
                self.log.push("disk delete extra/".into());
                let _ = std::fs::remove_dir_all(self.path("extra"));
                self.disk.retain(|r, _| !r.starts_with("extra/"));
                self.event("extra", 3);
            }
        }
        if self.rng.chance(75) {
            self.flush_events();
        }
    }

    fn op_rename(&mut self) {
        let Some(from) = self.pick_disk() else { return };
        let to = (*self.rng.pick(NEW_NAMES)).to_owned();
        if self.disk.contains_key(&to) || self.open.contains_key(&to) || to == from {
            return;
        }
        self.log.push(format!("rename {from} -> {to}"));
        let (pf, pt) = (self.path(&from), self.path(&to));
        if let Some(dir) = pt.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::rename(&pf, &pt) {
            self.fail(format!("cannot rename {}: {e}", pf.display()));
            return;
        }
        if let Some(bytes) = self.disk.remove(&from) {
            self.disk.insert(to.clone(), bytes);
        }
        // The server offers no file operations: the editor moves an open buffer by closing
        // the old document and opening the new one with the buffer's text.
        if let Some(doc) = self.open.get(&from) {
            let text = doc.text.clone();
            self.did_close(&from);
            self.did_open(&to, text);
        }
        self.event(&from, 3);
        self.event(&to, 1);
        self.flush_events();
    }

    fn op_request(&mut self) {
        let target_rel = if self.rng.chance(85) { self.pick_open() } else { self.pick_disk() };
        let Some(rel) = target_rel else { return };
        let text = match self.open.get(&rel) {
            Some(d) => d.text.clone(),
            None => String::from_utf8_lossy(self.disk.get(&rel).map_or(&[][..], Vec::as_slice)).into_owned(),
        };
        let utf8 = self.utf8;
        let (l, c) = random_position(&mut self.rng, &text, utf8);
        let (l2, c2) = if self.rng.chance(50) { (l, c) } else { random_position(&mut self.rng, &text, utf8) };
        let uri = self.uri(&rel);
        let td = json!({"uri": uri});
        let p = pos(l, c);
        let methods = [
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
            "workspace/symbol",
            "workspace/executeCommand",
            "policylens/explain",
            "policylens/status",
            "policylens/graph",
            "policylens/debugDocument",
        ];
        let method = *self.rng.pick(&methods);
        let params = match method {
            "textDocument/references" => {
                json!({"textDocument": td, "position": p, "context": {"includeDeclaration": self.rng.chance(50)}})
            }
            "textDocument/documentSymbol" | "textDocument/codeLens" | "textDocument/diagnostic" => {
                json!({"textDocument": td})
            }
            "textDocument/codeAction" => {
                // Sometimes with the diagnostics the client last got for the file.
                let ds = if self.rng.chance(50) { self.published.get(&uri).cloned() } else { None };
                json!({"textDocument": td, "range": {"start": p, "end": pos(l2, c2)},
                       "context": {"diagnostics": ds.unwrap_or_else(|| json!([]))}})
            }
            "textDocument/rename" => {
                let name = *self.rng.pick(&["renamed", "checkout", "edge-2", "é", "", "a b"]);
                json!({"textDocument": td, "position": p, "newName": name})
            }
            "workspace/symbol" => json!({"query": *self.rng.pick(&["", "check", "Gate", "😀", "x"])}),
            "workspace/executeCommand" => json!({"command": "policylens.showReferences",
                "arguments": [uri, p, [{"uri": uri, "range": {"start": p, "end": p}}]]}),
            "policylens/explain" => {
                if self.rng.chance(50) {
                    json!({"textDocument": td, "position": p})
                } else {
                    let t = format!("{}/{}/{}", self.rng.pick(KINDS), self.rng.pick(NAMES), self.rng.pick(NAMES));
                    json!({"target": t})
                }
            }
            "policylens/status" => json!({}),
            "policylens/graph" => {
                let format = *self.rng.pick(&["json", "dot", "mermaid"]);
                if self.rng.chance(50) {
                    json!({"format": format})
                } else {
                    json!({"format": format, "focus": format!("Gateway/{}/{}", self.rng.pick(NAMES), self.rng.pick(NAMES))})
                }
            }
            "policylens/debugDocument" => json!({"uri": uri}),
            _ => json!({"textDocument": td, "position": p}),
        };
        self.log.push(format!("request {method} {rel} {l}:{c}"));
        let Some(id) = self.request(method, params) else { return };
        match self.rng.below(10) {
            0..=4 if !self.answered(id) && !self.closed => {
                self.fail(format!("{method} got no answer in {:?}", self.cfg.timeout));
            }
            5 => {
                self.notify("$/cancelRequest", json!({"id": id}));
            }
            _ => {}
        }
    }

    fn op_pause(&mut self) {
        // Lets the debounced full pass run in the middle of the session.
        let ms = 20 + self.rng.below(80) as u64;
        self.log.push(format!("pause {ms} ms"));
        self.pump(Duration::from_millis(ms));
    }

    fn pick_open(&mut self) -> Option<String> {
        let names: Vec<String> = self.open.keys().cloned().collect();
        (!names.is_empty()).then(|| self.rng.pick(&names).clone())
    }

    fn pick_disk(&mut self) -> Option<String> {
        let names: Vec<String> = self.disk.keys().cloned().collect();
        (!names.is_empty()).then(|| self.rng.pick(&names).clone())
    }

    // ------------------------------------------------------------------ the end

    /// Writes the open buffers to disk, waits for the server to settle, and compares.
    fn finish(&mut self) {
        self.op = self.cfg.ops;
        let open: Vec<(String, String)> = self.open.iter().map(|(r, d)| (r.clone(), d.text.clone())).collect();
        for (rel, text) in open {
            self.write_disk(&rel, text.into_bytes());
        }
        self.flush_events();
        if self.closed {
            return;
        }
        // Every request answered.
        let deadline = Instant::now() + self.cfg.timeout;
        while !self.pending.is_empty() && !self.closed && Instant::now() < deadline {
            self.pump(Duration::from_millis(50));
        }
        if !self.pending.is_empty() {
            let methods: Vec<&str> = self.pending.values().map(|p| p.method.as_str()).collect();
            self.fail(format!("requests never answered: {methods:?}"));
            return;
        }
        // The server's texts of the open documents equal the editor's.
        let open: Vec<(String, String, i32)> =
            self.open.iter().map(|(r, d)| (r.clone(), d.text.clone(), d.version)).collect();
        for (rel, text, version) in open {
            let uri = self.uri(&rel);
            let got = match self.c.request("policylens/debugDocument", json!({"uri": uri})) {
                Ok((msg, _)) => msg,
                Err(e) => {
                    self.fail(format!("policylens/debugDocument: {e}"));
                    return;
                }
            };
            // A buffer the loader would take for a binary file is held as typed (its one
            // diagnostic needs positions in it), not analysed.
            if got["result"]["text"].as_str() != Some(text.as_str()) || got["result"]["version"] != json!(version) {
                self.fail(format!(
                    "the server's text of {rel} differs from the editor's (version {version}):\nserver: {:?}\neditor: {:?}",
                    got["result"], text
                ));
            }
        }
        if !self.settle() {
            return;
        }
        if self.c.panicked() {
            let m = format!("the server logged a panic:\n{}", self.c.stderr_tail());
            self.fail(m);
        }
        if !self.c.alive() {
            self.fail("the server exited".into());
        }
        self.compare();
    }

    /// Until the full pass has analysed the last state and what it publishes has arrived.
    fn settle(&mut self) -> bool {
        for _ in 0..2 {
            match self.c.request("policylens/debugSettle", json!({})) {
                Ok((msg, _)) if msg["result"] == json!(true) => {}
                Ok((msg, _)) => {
                    self.fail(format!("policylens/debugSettle: {msg}"));
                    return false;
                }
                Err(e) => {
                    self.fail(format!("policylens/debugSettle: {e}"));
                    return false;
                }
            }
            // `request` sets notifications aside in the backlog: take them, then wait until
            // nothing has been published for a while.
            loop {
                let before = self.published.clone();
                self.pump(Duration::from_millis(150));
                if before == self.published || self.closed {
                    break;
                }
            }
        }
        !self.closed
    }

    fn compare(&mut self) {
        let out = Command::new(&self.cfg.policylens)
            .args(["check", "--format", "json", "."])
            .current_dir(&self.root)
            .output();
        let out = match out {
            Ok(o) => o,
            Err(e) => return self.fail(format!("cannot run policylens check: {e}")),
        };
        let report: Value = match serde_json::from_slice(&out.stdout) {
            Ok(v) => v,
            Err(e) => {
                return self
                    .fail(format!("policylens check gave no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
            }
        };
        let mut expected: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for d in report["diagnostics"].as_array().map_or(&[][..], Vec::as_slice) {
            let file = d["file"].as_str().unwrap_or_default().trim_start_matches("./").to_owned();
            expected.entry(file).or_default().push(key(&d["range"], &d["severity"], &d["code"], &d["message"]));
        }
        let prefix = file_uri(&self.root) + "/";
        let root_prefix = format!("{}/", self.root.display());
        let mut got: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let published = self.published.clone();
        for (uri, ds) in &published {
            let Some(rel) = uri.strip_prefix(&prefix).map(percent_decode) else {
                self.fail(format!("diagnostics for a URI outside the workspace: {uri}"));
                continue;
            };
            let text = self.disk.get(&rel).map(|b| String::from_utf8_lossy(b).into_owned()).unwrap_or_default();
            let keys: Vec<String> = ds
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|d| {
                    let range = if self.utf8 { to_utf16(&text, &d["range"]) } else { d["range"].clone() };
                    let sev = match d["severity"].as_i64() {
                        Some(1) => "error",
                        Some(2) => "warning",
                        Some(3) => "information",
                        _ => "hint",
                    };
                    // The server names other files by absolute path, `check` relative to the
                    // directory it runs in (docs/json.md).
                    let message = d["message"].as_str().unwrap_or_default().replace(&root_prefix, "");
                    key(&range, &json!(sev), &d["code"], &json!(message))
                })
                .collect();
            if !keys.is_empty() {
                got.insert(rel, keys);
            }
        }
        for v in expected.values_mut().chain(got.values_mut()) {
            v.sort();
        }
        let files: BTreeSet<&String> = expected.keys().chain(got.keys()).collect();
        let mut diffs = Vec::new();
        for f in files {
            let (e, g) = (expected.get(f).cloned().unwrap_or_default(), got.get(f).cloned().unwrap_or_default());
            if e != g {
                let only_check: Vec<&String> = e.iter().filter(|x| !g.contains(x)).collect();
                let only_server: Vec<&String> = g.iter().filter(|x| !e.contains(x)).collect();
                // What the server answers now tells a publishing race (the pull agrees with
                // `check`) from a workspace that went astray (it does not).
                let uri = self.uri(f);
                let pulled = match self.c.request("textDocument/diagnostic", json!({"textDocument": {"uri": &uri}})) {
                    Ok((msg, _)) => msg["result"]["items"].as_array().map_or(0, Vec::len).to_string(),
                    Err(e) => format!("no answer ({e})"),
                };
                let held = match self.c.request("policylens/debugDocument", json!({"uri": uri})) {
                    Ok((msg, _)) => match msg["result"]["text"].as_str() {
                        None => "no text".to_owned(),
                        Some(t) if self.disk.get(f).is_some_and(|d| d == t.as_bytes()) => "the disk's text".to_owned(),
                        Some(t) => format!("another text ({} bytes)", t.len()),
                    },
                    Err(e) => format!("no answer ({e})"),
                };
                diffs.push(format!(
                    "{f}{}:\n  only in check:  {only_check:?}\n  only in server: {only_server:?}\n  now: pulled {pulled} diagnostics; the server holds {held}",
                    if self.open.contains_key(f) { " (open)" } else { "" }
                ));
            }
        }
        if !diffs.is_empty() {
            self.fail(format!("published diagnostics differ from `policylens check`:\n{}", diffs.join("\n")));
        }
    }
}

fn key(range: &Value, severity: &Value, code: &Value, message: &Value) -> String {
    let p = |v: &Value| format!("{}:{}", v["line"], v["character"]);
    format!(
        "{}-{} {} {} {}",
        p(&range["start"]),
        p(&range["end"]),
        severity.as_str().unwrap_or_default(),
        code.as_str().unwrap_or_default(),
        message.as_str().unwrap_or_default()
    )
}

/// A UTF-8 (byte) range of `text` in UTF-16 units. A leading byte-order mark is not a column
/// in the positions the server and `check` report.
fn to_utf16(text: &str, range: &Value) -> Value {
    let conv = |p: &Value| {
        let line = p["line"].as_u64().unwrap_or(0) as usize;
        let col = p["character"].as_u64().unwrap_or(0) as usize;
        let bom = if line == 0 && text.starts_with('\u{feff}') { 3 } else { 0 };
        let body = &text[bom..];
        let off = offset_of(body, line, col, true);
        let (l, c) = position_of(body, off, false);
        pos(l, c)
    };
    json!({"start": conv(&range["start"]), "end": conv(&range["end"])})
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn capabilities(utf8: bool) -> Value {
    let encodings = if utf8 { json!(["utf-8", "utf-16"]) } else { json!(["utf-16"]) };
    json!({
        "general": {"positionEncodings": encodings},
        "textDocument": {
            "synchronization": {"dynamicRegistration": false, "didSave": true},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {"completionItem": {"snippetSupport": true}},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "rename": {"prepareSupport": true}
        },
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeWatchedFiles": {"dynamicRegistration": true}
        },
        "window": {"workDoneProgress": true, "showDocument": {"support": true}}
    })
}

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs one session.
pub fn run_session(cfg: &Config, seed: u64) -> Outcome {
    let t0 = Instant::now();
    let mut outcome = Outcome {
        seed,
        failures: Vec::new(),
        log: Vec::new(),
        requests: 0,
        allowed_errors: BTreeMap::new(),
        elapsed: Duration::ZERO,
    };
    let mut setup = Vec::new();
    let mut fail = |m: String| setup.push(m);
    let dir = std::env::temp_dir().join(format!("policylens-sessions-{}-{seed:016x}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (rel, bytes) in &cfg.base {
        let p = dir.join(rel);
        if let Some(parent) = p.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
        {
            fail(format!("{}: {e}", parent.display()));
        }
        if let Err(e) = std::fs::write(&p, bytes) {
            fail(format!("{}: {e}", p.display()));
        }
    }
    let _guard = TempDir(dir.clone());
    let root = dir.canonicalize();
    if let Err(e) = &root {
        fail(format!("{}: {e}", dir.display()));
    }
    let root = match root {
        Ok(r) if setup.is_empty() => r,
        _ => {
            outcome.failures = setup;
            return outcome;
        }
    };
    let mut rng = Rng::new(seed);
    let utf8 = rng.chance(25);
    let settings = json!({"policylens": {}});
    let folder = json!({"uri": file_uri(&root), "name": "workspace"});
    let mut cmd = Command::new(&cfg.policylens);
    cmd.arg("serve").env("POLICYLENS_TEST", "1").env("POLICYLENS_LOG", "warn");
    let c = match Client::spawn(cmd, settings.clone(), folder.clone(), cfg.timeout) {
        Ok(c) => c,
        Err(e) => {
            outcome.failures.push(e);
            return outcome;
        }
    };
    let mut s = Session {
        cfg,
        rng,
        root: root.clone(),
        utf8,
        c,
        disk: cfg.base.clone(),
        open: BTreeMap::new(),
        events: Vec::new(),
        pending: HashMap::new(),
        published: BTreeMap::new(),
        failures: Vec::new(),
        log: vec![format!("session {seed} ({})", if utf8 { "utf-8" } else { "utf-16" })],
        op: 0,
        requests: 0,
        allowed_errors: BTreeMap::new(),
        closed: false,
    };
    let init = json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "policylens-bench-sessions", "version": "0"},
        "rootUri": file_uri(&root),
        "workspaceFolders": [folder],
        "capabilities": capabilities(utf8),
    });
    match s.c.request("initialize", init) {
        Ok((msg, _)) if msg.get("error").is_none() => {
            let want = if utf8 { "utf-8" } else { "utf-16" };
            if msg["result"]["capabilities"]["positionEncoding"] != json!(want) {
                s.fail(format!("the server negotiated {} instead of {want}", msg["result"]["capabilities"]));
            }
        }
        Ok((msg, _)) => s.fail(format!("initialize failed: {msg}")),
        Err(e) => s.fail(e),
    }
    s.notify("initialized", json!({}));
    // A few documents open from the start.
    for _ in 0..1 + s.rng.below(3) {
        s.op_open();
    }
    for i in 0..cfg.ops {
        if s.closed {
            break;
        }
        s.op = i;
        match s.rng.below(100) {
            0..=37 => s.op_edit(),
            38..=40 => s.op_replace(),
            41..=44 => s.op_save(),
            45..=50 => s.op_open(),
            51..=54 => s.op_close(),
            55..=62 => s.op_disk(),
            63..=65 => s.op_rename(),
            66..=67 => s.flush_events(),
            68..=70 => s.op_pause(),
            _ => s.op_request(),
        }
        s.pump(Duration::ZERO);
    }
    s.finish();
    if !s.failures.is_empty()
        && let Some(keep) = &cfg.keep
    {
        let to = keep.join(format!("seed-{seed}"));
        let _ = std::fs::remove_dir_all(&to);
        for (rel, bytes) in &s.disk {
            let p = to.join(rel);
            let _ = p.parent().map(std::fs::create_dir_all);
            let _ = std::fs::write(p, bytes);
        }
    }
    let Session { c, failures, log, requests, allowed_errors, .. } = s;
    if c.shutdown().is_none_or(|st| !st.success()) {
        outcome.failures.push("the server did not exit cleanly after shutdown/exit".into());
    }
    outcome.failures.splice(0..0, failures);
    outcome.log = log;
    outcome.requests = requests;
    outcome.allowed_errors = allowed_errors;
    outcome.elapsed = t0.elapsed();
    outcome
}
