//! A small stdio LSP client for the benchmarks and the random-session harness: Content-Length
//! framing, a reader thread that timestamps what arrives and answers the server's requests
//! (`workspace/configuration` from the given settings, `workspace/workspaceFolders`, the rest
//! with `null`), and a stderr reader that keeps the tail and notes any panic.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub enum Event {
    Response { id: u64, msg: Value, at: Instant },
    Diagnostics { uri: String, version: Option<i64>, diagnostics: Value, at: Instant },
    ProgressEnd { at: Instant },
    Closed,
}

pub struct Client {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    rx: Receiver<Event>,
    next_id: u64,
    timeout: Duration,
    stderr: Arc<Mutex<VecDeque<String>>>,
    panicked: Arc<AtomicBool>,
    /// Notifications a wait passed over, for the next wait.
    pub backlog: VecDeque<Event>,
}

/// Writes one framed message.
pub fn write_msg(stdin: &Mutex<ChildStdin>, msg: &Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    let mut w = stdin.lock().map_err(|_| std::io::Error::other("stdin lock poisoned"))?;
    write!(w, "Content-Length: {}\r\n\r\n", body.len())?;
    w.write_all(&body)?;
    w.flush()
}

/// Reads one framed message; `None` at end of stream.
pub fn read_msg(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// What an editor answers to a server's request.
fn answer(method: &str, params: &Value, settings: &Value, folder: &Value) -> Value {
    match method {
        "workspace/configuration" => {
            let items = params["items"].as_array().map_or(&[][..], Vec::as_slice);
            Value::Array(
                items
                    .iter()
                    .map(|i| i["section"].as_str().and_then(|s| settings.get(s)).cloned().unwrap_or(Value::Null))
                    .collect(),
            )
        }
        "workspace/workspaceFolders" => json!([folder]),
        // registerCapability, workDoneProgress/create, the refreshes, showMessageRequest, ...
        _ => Value::Null,
    }
}

fn reader(stdout: impl Read, stdin: Arc<Mutex<ChildStdin>>, tx: Sender<Event>, settings: Value, folder: Value) {
    let mut r = BufReader::with_capacity(1 << 16, stdout);
    while let Some(mut msg) = read_msg(&mut r) {
        let at = Instant::now();
        let method = msg["method"].as_str();
        let event = match (method, msg.get("id")) {
            (Some(m), Some(id)) => {
                let reply =
                    json!({"jsonrpc": "2.0", "id": id, "result": answer(m, &msg["params"], &settings, &folder)});
                if write_msg(&stdin, &reply).is_err() {
                    break;
                }
                continue;
            }
            (Some("textDocument/publishDiagnostics"), None) => Event::Diagnostics {
                uri: msg["params"]["uri"].as_str().unwrap_or_default().to_string(),
                version: msg["params"]["version"].as_i64(),
                diagnostics: msg["params"]["diagnostics"].take(),
                at,
            },
            (Some("$/progress"), None) if msg["params"]["value"]["kind"] == "end" => Event::ProgressEnd { at },
            (Some(_), None) => continue,
            (None, Some(id)) => match id.as_u64() {
                Some(id) => Event::Response { id, msg, at },
                None => continue,
            },
            (None, None) => continue,
        };
        if tx.send(event).is_err() {
            return;
        }
    }
    let _ = tx.send(Event::Closed);
}

/// A command line split at whitespace.
pub fn command_line(cmdline: &str) -> Result<Command, String> {
    let mut words = cmdline.split_whitespace();
    let program = words.next().ok_or("empty server command")?;
    let mut cmd = Command::new(program);
    cmd.args(words);
    Ok(cmd)
}

impl Client {
    /// Starts `cmd` with piped stdio. `settings` answers `workspace/configuration` by section.
    pub fn spawn(mut cmd: Command, settings: Value, folder: Value, timeout: Duration) -> Result<Client, String> {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {what}: {e}"))?;
        let stdin = Arc::new(Mutex::new(child.stdin.take().ok_or("no stdin")?));
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr_pipe = child.stderr.take().ok_or("no stderr")?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let panicked = Arc::new(AtomicBool::new(false));
        {
            let (stderr, panicked) = (stderr.clone(), panicked.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                    if line.contains("panicked") {
                        panicked.store(true, Ordering::Relaxed);
                    }
                    if let Ok(mut s) = stderr.lock() {
                        if s.len() == 40 {
                            s.pop_front();
                        }
                        s.push_back(line);
                    }
                }
            });
        }
        let (tx, rx) = channel();
        {
            let stdin = stdin.clone();
            std::thread::spawn(move || reader(stdout, stdin, tx, settings, folder));
        }
        Ok(Client { child, stdin, rx, next_id: 0, timeout, stderr, panicked, backlog: VecDeque::new() })
    }

    /// The last 40 lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|s| s.iter().cloned().collect::<Vec<_>>().join("\n")).unwrap_or_default()
    }

    /// Whether any stderr line so far said "panicked".
    pub fn panicked(&self) -> bool {
        self.panicked.load(Ordering::Relaxed)
    }

    /// Whether the server process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub fn notify(&self, method: &str, params: Value) -> Result<Instant, String> {
        let t0 = Instant::now();
        write_msg(&self.stdin, &json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .map_err(|e| format!("{method}: {e}"))?;
        Ok(t0)
    }

    pub fn send_request(&mut self, method: &str, params: Value) -> Result<(u64, Instant), String> {
        self.next_id += 1;
        let id = self.next_id;
        let t0 = Instant::now();
        write_msg(&self.stdin, &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .map_err(|e| format!("{method}: {e}"))?;
        Ok((id, t0))
    }

    /// The next event from the backlog, then as they arrive; `None` after `timeout`.
    pub fn next_event(&mut self, timeout: Duration) -> Option<Event> {
        if let Some(ev) = self.backlog.pop_front() {
            return Some(ev);
        }
        match self.rx.recv_timeout(timeout) {
            Ok(ev) => Some(ev),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Event::Closed),
        }
    }

    /// The first event `pick` takes, from the backlog and then as they arrive; notifications
    /// passed over go to the backlog, responses passed over are dropped. Fails after the
    /// timeout or at the end of the server's output.
    pub fn wait<T>(&mut self, what: &str, mut pick: impl FnMut(&Event) -> Option<T>) -> Result<T, String> {
        if let Some((i, t)) = self.backlog.iter().enumerate().find_map(|(i, ev)| pick(ev).map(|t| (i, t))) {
            self.backlog.remove(i);
            return Ok(t);
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the server closed its output while waiting for {what}\n{}",
                        self.stderr_tail()
                    ));
                }
                Ok(ev) => {
                    if let Some(t) = pick(&ev) {
                        return Ok(t);
                    }
                    if !matches!(ev, Event::Response { .. }) {
                        self.backlog.push_back(ev);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("timed out after {:?} waiting for {what}", self.timeout));
                }
            }
        }
    }

    /// A request and its answer: (response message, latency).
    pub fn request(&mut self, method: &str, params: Value) -> Result<(Value, Duration), String> {
        let (id, t0) = self.send_request(method, params)?;
        self.wait(method, |ev| match ev {
            Event::Response { id: got, msg, at } if *got == id => Some((msg.clone(), at.duration_since(t0))),
            _ => None,
        })
    }

    /// Peak RSS of the server process (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// `shutdown`, `exit`, and a kill when the server is not gone within 5 s. Returns the
    /// exit status when the server exited by itself.
    pub fn shutdown(mut self) -> Option<std::process::ExitStatus> {
        let _ = self.request("shutdown", Value::Null);
        let _ = self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
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

/// The `.yaml`/`.yml` files under `dir`, hidden entries skipped.
pub fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if e.file_type()?.is_dir() {
            yaml_files(&p, out)?;
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml")) {
            out.push(p);
        }
    }
    Ok(())
}
