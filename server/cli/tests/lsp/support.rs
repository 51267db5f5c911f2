//! `TestServer`: runs the real `policylens serve` binary over stdio with Content-Length
//! framing, answers the server's requests (configuration, registerCapability, progress
//! create, refresh) like an editor would, and records everything that goes over the wire.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "policylens-lsp-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        // Canonical, so that it matches what the server derives from URIs.
        TempDir(dir.canonicalize().unwrap())
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// `file://` URI of an absolute path, percent-encoding what RFC 3986 does not allow in paths.
pub fn file_uri(path: &Path) -> String {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

pub struct Builder {
    fixture: Option<String>,
    files: Vec<(String, String)>,
    encodings: Vec<String>,
    capabilities: Option<Value>,
    settings: Value,
    init_options: Option<Value>,
    env: Vec<(String, String)>,
    wait_index: bool,
    root: Option<TempDir>,
    folderless: bool,
    folder: Option<String>,
    cwd_in_root: bool,
    removed: Vec<String>,
}

impl Builder {
    /// Copies `fixtures/<name>` into the temp workspace.
    pub fn fixture(mut self, name: &str) -> Builder {
        self.fixture = Some(name.into());
        self
    }

    /// Writes a file (relative path) into the workspace before the server starts.
    pub fn file(mut self, rel: &str, text: &str) -> Builder {
        self.files.push((rel.into(), text.into()));
        self
    }

    /// The `general.positionEncodings` the client offers (default: `["utf-16"]`, as Neovim).
    pub fn encodings(mut self, e: &[&str]) -> Builder {
        self.encodings = e.iter().map(|s| s.to_string()).collect();
        self
    }

    /// Replaces the client capabilities wholesale.
    pub fn capabilities(mut self, c: Value) -> Builder {
        self.capabilities = Some(c);
        self
    }

    /// What the client answers to `workspace/configuration` for section `policylens`.
    pub fn settings(mut self, s: Value) -> Builder {
        self.settings = s;
        self
    }

    pub fn init_options(mut self, o: Value) -> Builder {
        self.init_options = Some(o);
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Builder {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Do not wait for the first index to finish (its progress `end`).
    pub fn no_wait(mut self) -> Builder {
        self.wait_index = false;
        self
    }

    /// Names no workspace folder and no root (an editor with a single file open).
    pub fn no_folders(mut self) -> Builder {
        self.folderless = true;
        self
    }

    /// Names this subfolder of the workspace (relative) as the client's only workspace
    /// folder and root, as an editor opened on it does.
    pub fn folder(mut self, rel: &str) -> Builder {
        self.folder = Some(rel.into());
        self
    }

    /// Deletes a file of the fixture before the server starts.
    pub fn remove(mut self, rel: &str) -> Builder {
        self.removed.push(rel.into());
        self
    }

    /// Starts the server in the workspace directory (as an editor started there does), not in
    /// the test's.
    pub fn cwd_in_root(mut self) -> Builder {
        self.cwd_in_root = true;
        self
    }

    /// Serves an existing directory instead of a fresh temp dir.
    pub fn root(mut self, dir: TempDir) -> Builder {
        self.root = Some(dir);
        self
    }

    pub fn start(self) -> TestServer {
        let root = self.root.unwrap_or_default();
        if let Some(f) = &self.fixture {
            copy_dir(&repo_root().join("fixtures").join(f), root.path());
        }
        for (rel, text) in &self.files {
            let p = root.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        for rel in &self.removed {
            std::fs::remove_file(root.path().join(rel)).unwrap();
        }
        let capabilities = self.capabilities.unwrap_or_else(|| default_capabilities(&self.encodings));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_policylens"));
        cmd.args(["serve", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("POLICYLENS_LOG", "warn,policylens=debug");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if self.cwd_in_root {
            cmd.current_dir(root.path());
        }
        let mut child = cmd.spawn().expect("spawn policylens serve");
        let stdin = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let stderr_buf = Arc::new(Mutex::new(String::new()));
        {
            let buf = stderr_buf.clone();
            std::thread::spawn(move || {
                let mut r = BufReader::new(stderr);
                let mut line = String::new();
                while r.read_line(&mut line).map(|n| n > 0).unwrap_or(false) {
                    buf.lock().unwrap().push_str(&line);
                    line.clear();
                }
            });
        }
        let (tx, rx) = channel();
        let settings = Arc::new(Mutex::new(self.settings.clone()));
        {
            let stdin = stdin.clone();
            let settings = settings.clone();
            std::thread::spawn(move || reader(stdout, stdin, settings, tx));
        }
        let mut server = TestServer {
            child,
            stdin,
            rx,
            next_id: 0,
            buffered: VecDeque::new(),
            wire: Vec::new(),
            root,
            stderr: stderr_buf,
            exited: false,
            initialize_result: None,
            settings,
        };
        let root_uri = match &self.folder {
            Some(rel) => server.uri(rel),
            None => server.root_uri(),
        };
        let mut init = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "policylens-test-client", "version": "0"},
            "rootUri": root_uri,
            "workspaceFolders": [{"uri": root_uri, "name": "root"}],
            "capabilities": capabilities,
        });
        if let Some(o) = self.init_options {
            init["initializationOptions"] = o;
        }
        if self.folderless {
            init["rootUri"] = Value::Null;
            init["workspaceFolders"] = Value::Null;
        }
        let result = server.request("initialize", init).expect("initialize");
        server.initialize_result = Some(result);
        server.notify("initialized", json!({}));
        if self.wait_index {
            server.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
        }
        server
    }
}

impl Default for TempDir {
    fn default() -> TempDir {
        TempDir::new()
    }
}

/// Neovim-like capabilities: UTF-16 by default, dynamic watchers, configuration, progress; no
/// pull diagnostics (so everything is pushed).
pub fn default_capabilities(encodings: &[String]) -> Value {
    json!({
        "general": {"positionEncodings": encodings},
        "window": {"workDoneProgress": true, "showDocument": {"support": true}},
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeWatchedFiles": {"dynamicRegistration": true},
            "didChangeConfiguration": {"dynamicRegistration": false},
        },
        "textDocument": {
            "synchronization": {"didSave": true},
            "completion": {"completionItem": {"snippetSupport": true}},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "publishDiagnostics": {"relatedInformation": true},
        },
    })
}

/// Reads framed messages; answers server→client requests at once (as an editor would) and
/// passes every message on.
fn reader(
    stdout: impl Read,
    stdin: Arc<Mutex<ChildStdin>>,
    settings: Arc<Mutex<Value>>,
    tx: std::sync::mpsc::Sender<Value>,
) {
    let mut r = BufReader::new(stdout);
    loop {
        let mut len = None;
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse::<usize>().ok();
            }
        }
        let Some(len) = len else { return };
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&body) else { return };
        if msg.get("id").is_some() && msg.get("method").is_some() {
            let result = match msg["method"].as_str().unwrap_or("") {
                "workspace/configuration" => {
                    let n = msg["params"]["items"].as_array().map_or(0, Vec::len);
                    Value::Array(vec![settings.lock().unwrap().clone(); n])
                }
                "window/showDocument" => json!({"success": true}),
                // A user picking the last choice offered.
                "window/showMessageRequest" => {
                    msg["params"]["actions"].as_array().and_then(|a| a.last()).cloned().unwrap_or(Value::Null)
                }
                _ => Value::Null,
            };
            let reply = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            write_msg(&mut *stdin.lock().unwrap(), &reply);
        }
        if tx.send(msg).is_err() {
            return;
        }
    }
}

fn write_msg(w: &mut impl Write, msg: &Value) {
    let body = serde_json::to_string(msg).unwrap();
    let _ = write!(w, "Content-Length: {}\r\n\r\n{}", body.len(), body);
    let _ = w.flush();
}

pub struct TestServer {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Messages received but not yet consumed by a `wait_for`.
    buffered: VecDeque<Value>,
    /// Every message received, in order.
    pub wire: Vec<Value>,
    pub root: TempDir,
    stderr: Arc<Mutex<String>>,
    exited: bool,
    pub initialize_result: Option<Value>,
    settings: Arc<Mutex<Value>>,
}

impl TestServer {
    pub fn builder() -> Builder {
        Builder {
            fixture: None,
            files: Vec::new(),
            encodings: vec!["utf-16".into()],
            capabilities: None,
            settings: Value::Null,
            init_options: None,
            env: Vec::new(),
            wait_index: true,
            root: None,
            folderless: false,
            folder: None,
            cwd_in_root: false,
            removed: Vec::new(),
        }
    }

    pub fn root_uri(&self) -> String {
        file_uri(self.root.path())
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    pub fn uri(&self, rel: &str) -> String {
        file_uri(&self.path(rel))
    }

    /// What the client answers to later `workspace/configuration` requests.
    pub fn set_settings(&self, s: Value) {
        *self.settings.lock().unwrap() = s;
    }

    /// The text the server's analysis sees for a file (needs `POLICYLENS_TEST=1`).
    pub fn server_text(&mut self, rel: &str) -> Value {
        let uri = self.uri(rel);
        self.request("policylens/debugDocument", json!({"uri": uri})).expect("debugDocument")
    }

    /// Waits until the server's full diagnostics pass has caught up with every edit sent.
    pub fn settle(&mut self) {
        let settled = self.request("policylens/debugSettle", json!({})).expect("debugSettle");
        assert_eq!(settled, json!(true));
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn send(&mut self, msg: &Value) {
        write_msg(&mut *self.stdin.lock().unwrap(), msg);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the response to request `id`: `Ok(result)` or `Err(error)`.
    pub fn response(&mut self, id: i64) -> Result<Value, Value> {
        let msg = self.wait_for(|m| m["id"] == id && m.get("method").is_none());
        match msg.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(msg["result"].clone()),
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send_request(method, params);
        self.response(id)
    }

    fn recv(&mut self, deadline: Instant) -> Option<Value> {
        let now = Instant::now();
        let wait = deadline.saturating_duration_since(now);
        match self.rx.recv_timeout(wait) {
            Ok(m) => {
                self.wire.push(m.clone());
                Some(m)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                if now < deadline {
                    std::thread::sleep(Duration::from_millis(5));
                }
                None
            }
        }
    }

    /// The first message (buffered or new) that `pred` accepts; earlier others stay buffered.
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        self.try_wait_for(TIMEOUT, pred).unwrap_or_else(|| {
            panic!(
                "timed out waiting for a message; received:\n{}\nstderr:\n{}",
                self.wire.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n"),
                self.stderr()
            )
        })
    }

    pub fn try_wait_for(&mut self, timeout: Duration, pred: impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(i) = self.buffered.iter().position(&pred) {
            return self.buffered.remove(i);
        }
        let deadline = Instant::now() + timeout;
        while let Some(m) = self.recv(deadline) {
            if pred(&m) {
                return Some(m);
            }
            self.buffered.push_back(m);
        }
        None
    }

    /// Every message that arrives until the wire has been quiet for `quiet`; they are
    /// consumed (not buffered).
    pub fn drain(&mut self, quiet: Duration) -> Vec<Value> {
        let mut out: Vec<Value> = self.buffered.drain(..).collect();
        while let Some(m) = self.recv(Instant::now() + quiet) {
            out.push(m);
        }
        out
    }

    /// The next `publishDiagnostics` for `rel`; returns its params.
    pub fn diagnostics_for(&mut self, rel: &str) -> Value {
        let uri = self.uri(rel);
        self.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)["params"]
            .clone()
    }

    pub fn open(&mut self, rel: &str, text: &str) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    /// Opens a workspace file with its text from disk.
    pub fn open_disk(&mut self, rel: &str) -> String {
        let text = std::fs::read_to_string(self.path(rel)).unwrap();
        self.open(rel, &text);
        text
    }

    pub fn change(&mut self, rel: &str, version: i32, changes: Value) {
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
    }

    pub fn close(&mut self, rel: &str) {
        let uri = self.uri(rel);
        self.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    }

    /// A position request (`textDocument/*` with `textDocument` + `position`).
    pub fn at(&mut self, method: &str, rel: &str, line: u32, character: u32) -> Result<Value, Value> {
        let uri = self.uri(rel);
        self.request(method, json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}))
    }

    /// Pulls the diagnostics of one file.
    pub fn pull(&mut self, rel: &str, previous: Option<&str>) -> Value {
        let uri = self.uri(rel);
        let mut params = json!({"textDocument": {"uri": uri}});
        if let Some(p) = previous {
            params["previousResultId"] = json!(p);
        }
        self.request("textDocument/diagnostic", params).expect("textDocument/diagnostic")
    }

    /// Replaces the temp root in URIs and paths with `ROOT`, so snapshots are stable.
    pub fn normalize(&self, v: &Value) -> Value {
        normalize(
            v,
            &[(self.root_uri(), "file:///ROOT".into()), (self.root.path().display().to_string(), "/ROOT".into())],
        )
    }

    /// shutdown + exit; returns the exit code.
    pub fn shutdown(mut self) -> i32 {
        self.request("shutdown", Value::Null).expect("shutdown");
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    pub fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                self.exited = true;
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "server did not exit; stderr:\n{}", self.stderr());
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if !self.exited {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn normalize(v: &Value, subs: &[(String, String)]) -> Value {
    match v {
        Value::String(s) => {
            let mut s = s.clone();
            for (from, to) in subs {
                s = s.replace(from.as_str(), to);
            }
            Value::String(s)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| normalize(x, subs)).collect()),
        Value::Object(o) => {
            // Keys too (WorkspaceEdit.changes is keyed by URI), sorted: the server's maps have
            // no stable order.
            let mut entries: Vec<(String, Value)> = o
                .iter()
                .map(|(k, x)| (normalize(&Value::String(k.clone()), subs), normalize(x, subs)))
                .map(|(k, x)| (k.as_str().unwrap_or_default().to_owned(), x))
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        other => other.clone(),
    }
}

/// Compares `actual` with `server/cli/tests/lsp/snapshots/<name>.json`; `UPDATE_EXPECT=1`
/// (re)writes the file instead.
pub fn expect_snapshot(name: &str, actual: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp/snapshots").join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing snapshot {}; run with UPDATE_EXPECT=1", path.display()));
    if expected != text {
        panic!("snapshot {name} differs (UPDATE_EXPECT=1 rewrites it)\n--- expected\n{expected}\n--- actual\n{text}");
    }
}

/// LSP positions over a Rust string: lines end at `\n`, `\r\n` or `\r`; columns in UTF-16
/// code units or UTF-8 bytes.
pub fn position_of(text: &str, offset: usize, utf8: bool) -> (u32, u32) {
    let mut line = 0;
    let mut line_start = 0;
    let b = text.as_bytes();
    let mut i = 0;
    while i < offset {
        match b[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'\r' => {
                if b.get(i + 1) == Some(&b'\n') {
                    if i + 1 >= offset {
                        break;
                    }
                    i += 1;
                }
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let col = &text[line_start..offset];
    let character = if utf8 { col.len() } else { col.encode_utf16().count() };
    (line, character as u32)
}
