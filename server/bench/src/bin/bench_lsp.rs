//! The LSP latency benchmark: drives language servers over stdio, like an editor, on the
//! 10k-object synthetic workspace and prints a markdown table, one column per server.
//!
//! Measured per server, on one policy file of the workspace:
//! - `initialize` sent → the first `publishDiagnostics` of the file opened right after
//!   `initialized` (median of `--starts` fresh starts), and the end of the indexing progress;
//! - keystrokes: `didChange` deleting a character at the end of a targetRef `name` value, then
//!   inserting it again, alternating; each waits for the file's `publishDiagnostics` whose
//!   version is the edit's (servers that send no version: the first publish for the file after
//!   the edit). The file is opened with the character inserted, i.e. with a broken ref: the
//!   policylens push loop publishes a file only when its diagnostic set changes, so every edit
//!   must flip it, and a file with no diagnostics is never published at all;
//! - the same edits followed at once by a pull (`textDocument/diagnostic`), when the server
//!   offers pulls: the analysis without the push loop's debounce;
//! - requests sent right after each edit, from the edit to the answer (what a user who hovers
//!   or completes right after typing waits): hover and completion on the edited ref, and hover
//!   on the `kind:` of the policy holding it (a declaration: its status needs the whole world);
//! - hover, completion, definition and references on that `name` value, sequentially;
//! - peak RSS of the server process (`VmHWM` of /proc/PID/status) at the end of the run.
//!
//! p50 and p99 are nearest-rank over `--iterations` samples (default 200) after 20 warm-ups; max is
//! the slowest sample.
//! Goals: keystroke → diagnostics p99 ≤ 10 ms, requests p99 ≤ 5 ms, RSS ≤ 4× the workspace's
//! YAML bytes, and diagnostics ≥ 20× sooner than yaml-language-server.
//!
//! yaml-language-server gets a small JSON schema for Kubernetes objects with targetRefs and
//! parentRefs (written to a temp dir, associated with `*.yaml` through `workspace/configuration`)
//! so that it does its single-file schema validation on every keystroke; it reads no other file.
//!
//! Exact commands (repo root):
//!
//! ```text
//! cargo build --release -p policylens -p policylens-bench
//! mkdir -p bench-data/yls && (cd bench-data/yls && npm init -y && npm install yaml-language-server@2.0.0)
//! target/release/policylens-bench-lsp \
//!     --server "target/release/policylens serve" \
//!     --server "node bench-data/yls/node_modules/.bin/yaml-language-server --stdio"
//! ```
//!
//! (or `cargo run --release -p policylens-bench --bin policylens-bench-lsp -- --server …`).
//!
//! Options: `--workspace DIR` (default: `bench-data/lsp-synth-10000`, generated here with
//! `policylens-synth`'s mixed profile, 10 000 objects, seed 1: the same files as
//! `policylens-synth --objects 10000 --out bench-data/synth-10000`; a directory of its own so
//! that `policylens-bench-check` regenerating `synth-*` cannot race it), `--file REL` (default: the
//! largest file with a targetRef), `--iterations N` (200), `--starts N` (3), `--timeout SECS`
//! (60, per wait), `--verbose` (prints the first answer to each request). A server command
//! line is split at whitespace.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use policylens_bench::lsp_client::{Client, Event, command_line, file_uri, yaml_files};
use policylens_bench::synth;
use serde_json::{Value, json};

const WARMUP: usize = 20;

struct Args {
    servers: Vec<String>,
    workspace: Option<PathBuf>,
    file: Option<String>,
    iterations: usize,
    starts: usize,
    timeout: Duration,
    verbose: bool,
}

const USAGE: &str = "usage: policylens-bench-lsp --server \"CMD ARGS\" [--server \"CMD ARGS\"]... [--workspace DIR] \
[--file REL] [--iterations N] [--starts N] [--timeout SECS] [--verbose]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        servers: Vec::new(),
        workspace: None,
        file: None,
        iterations: 200,
        starts: 3,
        timeout: Duration::from_secs(60),
        verbose: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--server" => a.servers.push(val()?),
            "--workspace" => a.workspace = Some(val()?.into()),
            "--file" => a.file = Some(val()?),
            "--iterations" => a.iterations = val()?.parse().map_err(|e| format!("--iterations: {e}"))?,
            "--starts" => a.starts = val()?.parse().map_err(|e| format!("--starts: {e}"))?,
            "--timeout" => a.timeout = Duration::from_secs(val()?.parse().map_err(|e| format!("--timeout: {e}"))?),
            "--verbose" => a.verbose = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if a.servers.is_empty() {
        return Err(USAGE.into());
    }
    // Keystrokes come in insert/delete pairs, so the file ends as it started.
    a.iterations = a.iterations.max(2).next_multiple_of(2);
    a.starts = a.starts.max(1);
    Ok(a)
}

// ---------------------------------------------------------------------------------------------
// The workspace, the file and the positions.

/// A targetRef's `name` value: line, and the UTF-16 columns where the value starts and ends.
#[derive(Clone, Copy, Debug)]
struct RefName {
    line: usize,
    start: usize,
    end: usize,
    /// Byte offset of the value's end in the file.
    end_byte: usize,
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The first `name:` under a `targetRef:`/`targetRefs:` key.
fn find_ref_name(text: &str) -> Option<RefName> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let line_start = |j: usize| lines[..j].iter().map(|l| l.len()).sum::<usize>();
    let indent = |l: &str| l.len() - l.trim_start().len();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if !(t.starts_with("targetRef:") || t.starts_with("targetRefs:")) {
            continue;
        }
        for (j, m) in lines.iter().enumerate().skip(i + 1) {
            if !m.trim().is_empty() && indent(m) <= indent(l) {
                break;
            }
            let key_at = m.len() - m.trim_start().trim_start_matches("- ").len();
            let rest = &m[key_at..];
            if let Some(after) = rest.strip_prefix("name:") {
                let value = after.trim();
                if value.is_empty() || value.contains('#') {
                    continue;
                }
                let start = key_at + "name:".len() + (after.len() - after.trim_start().len());
                return Some(RefName {
                    line: j,
                    start: utf16_len(&m[..start]),
                    end: utf16_len(&m[..start + value.len()]),
                    end_byte: line_start(j) + start + value.len(),
                });
            }
        }
    }
    None
}

/// The largest file with a targetRef (ties: the first path).
fn pick_file(files: &[PathBuf]) -> Option<PathBuf> {
    let mut best: Option<(u64, &PathBuf)> = None;
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        if find_ref_name(&text).is_none() {
            continue;
        }
        let len = text.len() as u64;
        if best.is_none_or(|(l, p)| len > l || (len == l && f < p)) {
            best = Some((len, f));
        }
    }
    best.map(|(_, p)| p.clone())
}

/// A JSON schema for yaml-language-server: the Kubernetes object envelope and the Gateway API
/// reference shapes, so that every keystroke gets real schema validation.
fn k8s_schema() -> Value {
    let name = json!({"type": "string", "maxLength": 253, "pattern": "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$",
        "description": "A Kubernetes object name (RFC 1123 subdomain)."});
    let section = json!({"type": "string", "maxLength": 253, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        "description": "A listener, rule or port name of the target."});
    let kind = json!({"type": "string", "maxLength": 63, "pattern": "^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$"});
    let group = json!({"type": "string", "maxLength": 253});
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Kubernetes object with Gateway API references",
        "type": "object",
        "required": ["apiVersion", "kind", "metadata"],
        "properties": {
            "apiVersion": {"type": "string", "description": "Group and version of the object's API."},
            "kind": {"type": "string", "description": "The object's kind."},
            "metadata": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": name,
                    "namespace": name,
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                    "creationTimestamp": {"type": "string", "format": "date-time"}
                }
            },
            "spec": {
                "type": "object",
                "properties": {
                    "targetRef": {"$ref": "#/definitions/targetRef"},
                    "targetRefs": {"type": "array", "maxItems": 16, "items": {"$ref": "#/definitions/targetRef"}},
                    "parentRefs": {"type": "array", "maxItems": 32, "items": {"$ref": "#/definitions/parentRef"}},
                    "hostnames": {"type": "array", "items": {"type": "string"}}
                }
            }
        },
        "definitions": {
            "targetRef": {
                "type": "object",
                "description": "The object a policy attaches to (GEP-713).",
                "required": ["group", "kind", "name"],
                "additionalProperties": false,
                "properties": {"group": group, "kind": kind, "name": name, "namespace": name, "sectionName": section}
            },
            "parentRef": {
                "type": "object",
                "required": ["name"],
                "properties": {"group": group, "kind": kind, "name": name, "namespace": name, "sectionName": section,
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535}}
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// One server.

#[derive(Default)]
struct Report {
    label: String,
    command: String,
    starts: Vec<Duration>,
    initialize: Vec<Duration>,
    index_done: Vec<Duration>,
    keystroke: Vec<Duration>,
    keystroke_unversioned: bool,
    pull: Option<Vec<Duration>>,
    /// Requests sent right after each edit (what a user who hovers or completes after typing
    /// waits), by case; empty when the server lacks the feature.
    after_edit: Vec<(&'static str, Vec<Duration>)>,
    requests: Vec<(&'static str, Vec<Duration>, usize)>,
    rss_kib: Option<u64>,
}

struct Setup {
    root: PathBuf,
    file: PathBuf,
    /// The file as on disk.
    text: String,
    /// The file as opened: with the edit's character inserted, so the ref is broken.
    open_text: String,
    at: RefName,
    /// The line of the `kind:` of the object holding the ref (a declaration: its hover is
    /// the policy's status).
    kind_line: usize,
    settings: Value,
}

fn capabilities() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {
            "synchronization": {"dynamicRegistration": false, "didSave": true},
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true, "codeDescriptionSupport": true,
                "dataSupport": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {"completionItem": {"snippetSupport": false}},
            "definition": {"linkSupport": false},
            "references": {}
        },
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": {"dynamicRegistration": true},
            "didChangeWatchedFiles": {"dynamicRegistration": true}
        },
        "window": {"workDoneProgress": true}
    })
}

/// Starts the server, opens the file, waits for its first diagnostics. Returns the client,
/// the initialize result, and (initialize latency, init → first diagnostics, init → index end).
fn start(
    cmdline: &str,
    s: &Setup,
    timeout: Duration,
) -> Result<(Client, Value, Duration, Duration, Option<Duration>), String> {
    let root_uri = file_uri(&s.root);
    let folder = json!({"uri": root_uri, "name": "workspace"});
    let mut c = Client::spawn(command_line(cmdline)?, s.settings.clone(), folder.clone(), timeout)?;
    let params = json!({
        "processId": std::process::id(),
        "clientInfo": {"name": "policylens-bench-lsp", "version": "0"},
        "rootUri": root_uri,
        "workspaceFolders": [folder],
        "capabilities": capabilities(),
    });
    let (id, t0) = c.send_request("initialize", params)?;
    let (init, init_at) = c.wait("initialize", |ev| match ev {
        Event::Response { id: got, msg, at } if *got == id => Some((msg.clone(), *at)),
        _ => None,
    })?;
    if init.get("error").is_some() {
        return Err(format!("initialize failed: {}", init["error"]));
    }
    c.notify("initialized", json!({}))?;
    c.notify("workspace/didChangeConfiguration", json!({"settings": s.settings}))?;
    let uri = file_uri(&s.file);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": s.open_text}}),
    )?;
    let mut index_end = None;
    let first = c.wait("the first diagnostics of the opened file", |ev| match ev {
        Event::Diagnostics { uri: u, at, .. } if *u == uri => Some(at.duration_since(t0)),
        Event::ProgressEnd { at } => {
            index_end.get_or_insert(at.duration_since(t0));
            None
        }
        _ => None,
    })?;
    Ok((c, init["result"]["capabilities"].clone(), init_at.duration_since(t0), first, index_end))
}

fn position(s: &Setup, col: usize) -> Value {
    json!({"textDocument": {"uri": file_uri(&s.file)}, "position": {"line": s.at.line, "character": col}})
}

fn is_empty_result(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.get("items").and_then(Value::as_array).is_some_and(Vec::is_empty),
        _ => false,
    }
}

/// The edits: a character appended to the ref's name value, then removed, alternating.
struct Editor {
    uri: String,
    at: RefName,
    version: i64,
    inserted: bool,
}

impl Editor {
    /// Sends the next edit: (its version, when it was sent).
    fn edit(&mut self, c: &mut Client) -> Result<(i64, Instant), String> {
        // What arrived before this edit says nothing about it.
        c.backlog.clear();
        self.version += 1;
        let (line, col) = (self.at.line, self.at.end);
        let (end, text) = if self.inserted { (col + 1, "") } else { (col, "x") };
        self.inserted = !self.inserted;
        let change = json!({
            "range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": end}},
            "text": text,
        });
        let t0 = c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": self.uri, "version": self.version}, "contentChanges": [change]}),
        )?;
        Ok((self.version, t0))
    }
}

/// Waits for the file's diagnostics of `version` (or unversioned ones): (latency, versioned).
fn pushed(c: &mut Client, uri: &str, version: i64, t0: Instant) -> Result<(Duration, bool), String> {
    c.wait(&format!("publishDiagnostics for version {version}"), |ev| match ev {
        Event::Diagnostics { uri: u, version: v, at, .. }
            if u == uri && *at >= t0 && (v.is_none() || *v == Some(version)) =>
        {
            Some((at.duration_since(t0), v.is_some()))
        }
        _ => None,
    })
}

fn bench_server(cmdline: &str, s: &Setup, args: &Args) -> Result<Report, String> {
    let mut words = cmdline.split_whitespace().filter(|w| *w != "node");
    let label = words.next().map(|w| Path::new(w).file_name().map_or(w.into(), |f| f.to_string_lossy().into_owned()));
    let mut r = Report { label: label.unwrap_or_default(), command: cmdline.into(), ..Report::default() };
    eprintln!("== {cmdline}");

    // Fresh starts: initialize → first diagnostics of the opened file.
    for _ in 1..args.starts {
        let (c, _, init, first, index) = start(cmdline, s, args.timeout)?;
        r.initialize.push(init);
        r.starts.push(first);
        r.index_done.extend(index);
        c.shutdown();
    }
    let (mut c, caps, init, first, index) = start(cmdline, s, args.timeout)?;
    r.initialize.push(init);
    r.starts.push(first);
    r.index_done.extend(index);
    eprintln!("   started: initialize {init:?}, first diagnostics {first:?}");

    // The file was opened with the character already inserted (a broken ref, so that a server
    // that publishes only non-empty sets has something to say); edits start with its removal.
    let uri = file_uri(&s.file);
    let mut ed = Editor { uri: uri.clone(), at: s.at, version: 1, inserted: true };

    // Keystrokes → pushed diagnostics.
    for i in 0..WARMUP + args.iterations {
        let (v, t0) = ed.edit(&mut c)?;
        let (d, versioned) = pushed(&mut c, &uri, v, t0)?;
        r.keystroke_unversioned |= !versioned;
        if i >= WARMUP {
            r.keystroke.push(d);
        }
    }
    eprintln!("   keystrokes done");

    // Keystrokes → pulled diagnostics (the analysis without the push loop's debounce). Each
    // edit's push is awaited too, so pushes and edits stay in step.
    if caps.get("diagnosticProvider").is_some_and(|p| !p.is_null()) {
        let mut pulls = Vec::new();
        for i in 0..WARMUP + args.iterations {
            let (v, t0) = ed.edit(&mut c)?;
            let (id, _) = c.send_request("textDocument/diagnostic", json!({"textDocument": {"uri": uri}}))?;
            let (msg, at) = c.wait("textDocument/diagnostic", |ev| match ev {
                Event::Response { id: got, msg, at } if *got == id => Some((msg.clone(), *at)),
                _ => None,
            })?;
            if msg.get("error").is_some() {
                return Err(format!("textDocument/diagnostic failed: {}", msg["error"]));
            }
            let d = at.duration_since(t0);
            pushed(&mut c, &uri, v, t0)?;
            if i >= WARMUP {
                pulls.push(d);
            }
        }
        r.pull = Some(pulls);
    }

    // Requests right after each edit, as a user hovers or completes right after typing: from
    // the edit sent to the answer. Each edit's push is awaited afterwards, so edits stay in step.
    let mid = (s.at.start + s.at.end) / 2;
    let kind = json!({"textDocument": {"uri": file_uri(&s.file)}, "position": {"line": s.kind_line, "character": 7}});
    let after: Vec<(&'static str, &'static str, &'static str, Value)> = vec![
        ("hover on the edited ref", "hoverProvider", "textDocument/hover", position(s, mid)),
        ("completion at the edited ref", "completionProvider", "textDocument/completion", position(s, s.at.end)),
        ("hover on the policy's kind", "hoverProvider", "textDocument/hover", kind),
    ];
    for (name, cap, method, params) in after {
        if caps.get(cap).is_none_or(|v| v.is_null() || *v == Value::Bool(false)) {
            r.after_edit.push((name, Vec::new()));
            continue;
        }
        let mut times = Vec::new();
        for i in 0..WARMUP + args.iterations {
            let (v, t0) = ed.edit(&mut c)?;
            let (id, _) = c.send_request(method, params.clone())?;
            let at = c.wait(&format!("{method} after an edit"), |ev| match ev {
                Event::Response { id: got, at, .. } if *got == id => Some(*at),
                _ => None,
            })?;
            pushed(&mut c, &uri, v, t0)?;
            if i >= WARMUP {
                times.push(at.duration_since(t0));
            }
        }
        r.after_edit.push((name, times));
    }

    // Back to the file as on disk for the requests.
    if ed.inserted {
        let (v, t0) = ed.edit(&mut c)?;
        pushed(&mut c, &uri, v, t0)?;
    }
    debug_assert!(!ed.inserted);

    // Requests on the ref's name value: hover and definition in its middle, completion at its
    // end (where the cursor is after typing it), references on it. Skipped when the server
    // does not offer the feature.
    let mid = (s.at.start + s.at.end) / 2;
    let mut refs = position(s, mid);
    refs["context"] = json!({"includeDeclaration": true});
    let cases: Vec<(&'static str, &'static str, &'static str, Value)> = vec![
        ("hover", "hoverProvider", "textDocument/hover", position(s, mid)),
        ("completion", "completionProvider", "textDocument/completion", position(s, s.at.end)),
        ("definition", "definitionProvider", "textDocument/definition", position(s, mid)),
        ("references", "referencesProvider", "textDocument/references", refs),
    ];
    for (name, cap, method, params) in cases {
        if caps.get(cap).is_none_or(|v| v.is_null() || *v == Value::Bool(false)) {
            r.requests.push((name, Vec::new(), 0));
            continue;
        }
        let mut times = Vec::new();
        let mut non_empty = 0;
        for i in 0..WARMUP + args.iterations {
            let (msg, d) = c.request(method, params.clone())?;
            if i == 0 && args.verbose {
                let text = msg.to_string();
                let cut = text.char_indices().nth(400).map_or(text.len(), |(b, _)| b);
                eprintln!("   {method}: {}", &text[..cut]);
            }
            if i >= WARMUP {
                times.push(d);
                if msg.get("error").is_none() && !is_empty_result(&msg["result"]) {
                    non_empty += 1;
                }
            }
        }
        r.requests.push((name, times, non_empty));
    }
    r.rss_kib = c.peak_rss_kib();
    c.shutdown();
    Ok(r)
}

// ---------------------------------------------------------------------------------------------
// Output.

fn pct(v: &[Duration], p: f64) -> f64 {
    let mut ms: Vec<f64> = v.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    if ms.is_empty() {
        return f64::NAN;
    }
    let rank = ((p * ms.len() as f64).ceil() as usize).clamp(1, ms.len());
    ms[rank - 1]
}

fn fmt_ms(x: f64) -> String {
    if x.is_nan() {
        "–".into()
    } else if x < 10.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.1}")
    }
}

/// p50 / p99 / max: a tail goal is about the worst answer, not only the 99th percentile.
fn p50_p99(v: &[Duration]) -> String {
    if v.is_empty() {
        "–".into()
    } else {
        let max = v.iter().max().copied().unwrap_or_default();
        format!("{} / {} / {}", fmt_ms(pct(v, 0.5)), fmt_ms(pct(v, 0.99)), fmt_ms(max.as_secs_f64() * 1000.0))
    }
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("policylens-bench-lsp: {e}");
        std::process::exit(2);
    }
}

fn real_main() -> Result<(), String> {
    let args = parse_args()?;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = match &args.workspace {
        Some(w) => w.clone(),
        None => {
            let dir = repo.join("bench-data/lsp-synth-10000");
            synth::generate(&synth::Config::mixed(10_000, &dir, 1)).map_err(|e| format!("{}: {e}", dir.display()))?;
            dir
        }
    };
    let root = root.canonicalize().map_err(|e| format!("{}: {e}", root.display()))?;
    let mut files = Vec::new();
    yaml_files(&root, &mut files).map_err(|e| format!("{}: {e}", root.display()))?;
    files.sort();
    let yaml_bytes: u64 = files.iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum();
    let file = match &args.file {
        Some(rel) => root.join(rel),
        None => pick_file(&files).ok_or("no file with a targetRef in the workspace")?,
    };
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let at = find_ref_name(&text).ok_or_else(|| format!("{}: no targetRef name", file.display()))?;
    let rel = file.strip_prefix(&root).unwrap_or(&file).display().to_string();

    let schema_dir = std::env::temp_dir().join(format!("policylens-bench-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&schema_dir).map_err(|e| e.to_string())?;
    let schema = schema_dir.join("k8s-gateway-refs.schema.json");
    std::fs::write(&schema, serde_json::to_vec_pretty(&k8s_schema()).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let settings = json!({
        "policylens": {},
        "yaml": {
            "validate": true, "hover": true, "completion": true, "format": {"enable": false},
            "schemaStore": {"enable": false},
            "schemas": {file_uri(&schema): ["*.yaml", "**/*.yaml"]}
        },
        "http": {"proxyStrictSSL": true},
        "[yaml]": {},
        "editor": {"tabSize": 2},
        "files": {"associations": {}}
    });
    let mut open_text = text.clone();
    open_text.insert(at.end_byte, 'x');
    let kind_line =
        text.lines().take(at.line).enumerate().filter(|(_, l)| l.starts_with("kind:")).last().map_or(0, |(i, _)| i);
    let setup = Setup { root: root.clone(), file, text, open_text, at, kind_line, settings };
    let line_text = setup.text.lines().nth(at.line).unwrap_or_default().trim().to_string();
    eprintln!("workspace {} ({} YAML files, {yaml_bytes} bytes)", root.display(), files.len());
    eprintln!("file {rel} ({} bytes), ref `{line_text}` at line {}", setup.text.len(), at.line + 1);

    let mut reports = Vec::new();
    for server in &args.servers {
        reports.push(bench_server(server, &setup, &args)?);
    }
    let _ = std::fs::remove_dir_all(&schema_dir);

    // The table.
    let n = args.iterations;
    println!(
        "Workspace `{}`: {} YAML files, {:.1} MB. File `{rel}` ({} bytes); edits and requests on line {} `{line_text}`.",
        root.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        files.len(),
        yaml_bytes as f64 / 1e6,
        setup.text.len(),
        at.line + 1
    );
    println!(
        "Latencies in ms, p50 / p99 / max over {n} samples each (after {WARMUP} warm-ups); starts: median of {}.\n",
        args.starts
    );
    let mut header = String::from("| metric |");
    let mut rule = String::from("|---|");
    for r in &reports {
        header.push_str(&format!(" {} |", r.label));
        rule.push_str("---:|");
    }
    println!("{header} goal |\n{rule}---|");
    let row = |name: &str, cells: Vec<String>, goal: &str| {
        println!("| {name} | {} | {goal} |", cells.join(" | "));
    };
    row("initialize (request → response)", reports.iter().map(|r| fmt_ms(pct(&r.initialize, 0.5))).collect(), "");
    row(
        "initialize → first diagnostics of the opened file",
        reports.iter().map(|r| fmt_ms(pct(&r.starts, 0.5))).collect(),
        "",
    );
    row(
        "initialize → indexing progress end",
        reports
            .iter()
            .map(|r| if r.index_done.is_empty() { "–".into() } else { fmt_ms(pct(&r.index_done, 0.5)) })
            .collect(),
        "",
    );
    row(
        "keystroke → publishDiagnostics",
        reports
            .iter()
            .map(|r| format!("{}{}", p50_p99(&r.keystroke), if r.keystroke_unversioned { " ¹" } else { "" }))
            .collect(),
        "p99 ≤ 10",
    );
    row(
        "keystroke → pulled diagnostics",
        reports.iter().map(|r| r.pull.as_deref().map_or("–".into(), p50_p99)).collect(),
        "",
    );
    for (i, name) in
        ["hover on the edited ref", "completion at the edited ref", "hover on the policy's kind"].iter().enumerate()
    {
        row(
            &format!("edit → {name}, sent right after it"),
            reports
                .iter()
                .map(|r| r.after_edit.get(i).filter(|(_, t)| !t.is_empty()).map_or("–".into(), |(_, t)| p50_p99(t)))
                .collect(),
            "p99 ≤ 10",
        );
    }
    for (i, name) in ["hover", "completion", "definition", "references"].iter().enumerate() {
        row(
            name,
            reports
                .iter()
                .map(|r| {
                    r.requests
                        .get(i)
                        .map_or("–".into(), |(_, t, non_empty)| format!("{} ({non_empty}/{n} non-empty)", p50_p99(t)))
                })
                .collect(),
            "p99 ≤ 5",
        );
    }
    row(
        "peak RSS (VmHWM), MB",
        reports
            .iter()
            .map(|r| {
                r.rss_kib.map_or("–".into(), |k| {
                    format!("{:.1} ({:.2}× YAML)", k as f64 * 1024.0 / 1e6, k as f64 * 1024.0 / yaml_bytes as f64)
                })
            })
            .collect(),
        "≤ 4× YAML",
    );
    if reports.iter().any(|r| r.keystroke_unversioned) {
        println!(
            "\n¹ the server sends no version with its diagnostics: the first publish for the file after the edit counts."
        );
    }
    if let [ours, theirs, ..] = &reports[..] {
        let k = pct(&theirs.keystroke, 0.5) / pct(&ours.keystroke, 0.5);
        let s = pct(&theirs.starts, 0.5) / pct(&ours.starts, 0.5);
        println!(
            "\n{} / {}: keystroke → diagnostics p50 ratio {k:.1}×; start → first diagnostics ratio {s:.2}×.",
            theirs.label, ours.label
        );
        if let Some(pull) = &ours.pull {
            let kp = pct(&theirs.keystroke, 0.5) / pct(pull, 0.5);
            println!("{} pushed vs {} pulled diagnostics p50 ratio {kp:.1}×.", theirs.label, ours.label);
        }
    }
    for r in &reports {
        println!("\n`{}`: `{}`", r.label, r.command);
    }
    Ok(())
}
