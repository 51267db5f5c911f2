//! Hostile files through the real server: a 50 MB YAML file, 200 KB of binary junk, an alias
//! bomb, 100,000 levels of nesting, 50,000 lines with an error on every line and a 10 MB
//! single-line scalar. Each goes into a workspace of its own beside a copy of
//! `fixtures/demo`, and `policylens serve` (started with `POLICYLENS_TEST=1` for its
//! `policylens/debugSettle` request) is driven over stdio like an editor:
//!
//! 1. the workspace is indexed (the hostile file is on disk: the scan reads it) and settled;
//! 2. the hostile file is opened (`didOpen` with its text; for binary junk also a run where it
//!    is only on disk), and at once a hover is sent on a targetRef of a demo policy and a pull
//!    (`textDocument/diagnostic`) for the hostile file;
//! 3. hovers on the demo policy keep being sent, one after the other, until the server has
//!    settled (its full analysis has seen the hostile file).
//!
//! Reported per file: its size; the first hover's latency (from `didOpen` sent) and the worst
//! hover latency until settled; the time from `didOpen` to the hostile file's pulled
//! diagnostics and their count; the server's peak RSS (`VmHWM`) and its ratio to the file's
//! size. Then `policylens check --stats --format json` on a directory holding only the hostile
//! file: wall time, peak RSS and diagnostics count.
//!
//! ```text
//! cargo build --release -p policylens -p policylens-bench
//! target/release/policylens-bench-hostile [--policylens target/release/policylens] [--out bench-data/hostile]
//! ```

use std::collections::HashMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use policylens_bench::lsp_client::{file_uri, read_msg, write_msg};
use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(300);

// ---------------------------------------------------------------------------------------------
// The hostile files.

struct Hostile {
    name: &'static str,
    bytes: Vec<u8>,
    /// Also run with the file only on disk, never opened.
    disk_only: bool,
}

fn hostile_files() -> Vec<Hostile> {
    let mut big = String::with_capacity(50_100_000);
    let mut i = 0;
    while big.len() < 50_000_000 {
        big.push_str(&format!(
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}\n  namespace: bulk-{}\nspec:\n  ports:\n  - {{name: http, port: 80}}\n",
            i % 50
        ));
        i += 1;
    }
    // Deterministic junk: every byte value, NULs and invalid UTF-8 among them.
    let mut x: u32 = 0x9e37_79b9;
    let junk: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect();
    let mut bomb = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
    }
    let deep = format!("{}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let errors: String = (0..25_000).map(|i| format!("key{i}: [unclosed\n---\n")).collect();
    let scalar = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  namespace: bulk\ndata:\n  x: \"{}\"\n",
        "a".repeat(10_000_000)
    );
    vec![
        Hostile { name: "50 MB of Services", bytes: big.into_bytes(), disk_only: false },
        Hostile { name: "200 KB binary junk", bytes: junk, disk_only: true },
        Hostile { name: "alias bomb (9^10)", bytes: bomb.into_bytes(), disk_only: false },
        Hostile { name: "100,000 levels of nesting", bytes: deep.into_bytes(), disk_only: false },
        Hostile { name: "50,000 lines, an error on each", bytes: errors.into_bytes(), disk_only: false },
        Hostile { name: "10 MB single-line scalar", bytes: scalar.into_bytes(), disk_only: false },
    ]
}

// ---------------------------------------------------------------------------------------------
// A minimal stdio LSP client: responses by id, with the time they arrived.

#[derive(Default)]
struct Inbox {
    responses: HashMap<u64, (Value, Instant)>,
    closed: bool,
}

struct Client {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    inbox: Arc<(Mutex<Inbox>, Condvar)>,
    next_id: u64,
}

impl Client {
    fn spawn(cmd: &Path, folder: Value) -> Result<Client, String> {
        let mut child = Command::new(cmd)
            .arg("serve")
            .env("POLICYLENS_TEST", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {} serve: {e}", cmd.display()))?;
        let stdin = Arc::new(Mutex::new(child.stdin.take().ok_or("no stdin")?));
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let inbox: Arc<(Mutex<Inbox>, Condvar)> = Arc::default();
        {
            let (stdin, inbox) = (stdin.clone(), inbox.clone());
            std::thread::spawn(move || {
                let mut r = BufReader::with_capacity(1 << 16, stdout);
                while let Some(msg) = read_msg(&mut r) {
                    let at = Instant::now();
                    match (msg["method"].as_str(), msg.get("id")) {
                        // The server's own requests (configuration, registrations, progress).
                        (Some(m), Some(id)) => {
                            let result = match m {
                                "workspace/configuration" => json!([{}]),
                                "workspace/workspaceFolders" => json!([folder]),
                                _ => Value::Null,
                            };
                            if write_msg(&stdin, &json!({"jsonrpc": "2.0", "id": id, "result": result})).is_err() {
                                break;
                            }
                        }
                        (None, Some(id)) => {
                            if let (Some(id), Ok(mut b)) = (id.as_u64(), inbox.0.lock()) {
                                b.responses.insert(id, (msg, at));
                                inbox.1.notify_all();
                            }
                        }
                        _ => {}
                    }
                }
                if let Ok(mut b) = inbox.0.lock() {
                    b.closed = true;
                }
                inbox.1.notify_all();
            });
        }
        Ok(Client { child, stdin, inbox, next_id: 0 })
    }

    fn notify(&self, method: &str, params: Value) -> Result<Instant, String> {
        let t = Instant::now();
        write_msg(&self.stdin, &json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .map_err(|e| format!("{method}: {e}"))?;
        Ok(t)
    }

    fn send(&mut self, method: &str, params: Value) -> Result<(u64, Instant), String> {
        self.next_id += 1;
        let t = Instant::now();
        write_msg(&self.stdin, &json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
            .map_err(|e| format!("{method}: {e}"))?;
        Ok((self.next_id, t))
    }

    /// The response to `id` if it came (`block`: waits for it).
    fn take(&self, id: u64, block: bool) -> Result<Option<(Value, Instant)>, String> {
        let deadline = Instant::now() + TIMEOUT;
        let (lock, cv) = &*self.inbox;
        let mut b = lock.lock().map_err(|_| "inbox poisoned")?;
        loop {
            if let Some(r) = b.responses.remove(&id) {
                return Ok(Some(r));
            }
            if b.closed {
                return Err("the server closed its output".into());
            }
            if !block {
                return Ok(None);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!("no answer to request {id} after {TIMEOUT:?}"));
            }
            b = cv.wait_timeout(b, left).map_err(|_| "inbox poisoned")?.0;
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Result<(Value, Duration), String> {
        let (id, t0) = self.send(method, params)?;
        let (v, at) = self.take(id, true)?.ok_or("no answer")?;
        Ok((v, at.duration_since(t0)))
    }

    fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn shutdown(mut self) {
        let _ = self.request("shutdown", Value::Null);
        let _ = self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), target)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// One run.

struct Row {
    name: String,
    size: usize,
    index: Duration,
    first_hover: Duration,
    worst_hover: Duration,
    hovers: usize,
    hover_ok: bool,
    diagnostics_after: Duration,
    diagnostics: usize,
    last_message: String,
    settled: Duration,
    rss_kib: u64,
}

/// The demo policy file and the position of its first targetRef name's value.
fn hover_target(root: &Path) -> Result<(PathBuf, u32, u32), String> {
    let file = root.join("policies/shop.yaml");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut in_refs = false;
    for (i, line) in text.lines().enumerate() {
        if line.contains("targetRef") {
            in_refs = true;
        } else if in_refs && let Some(col) = line.find("name: ") {
            return Ok((file, i as u32, (col + 6) as u32));
        }
    }
    Err("no targetRef name in policies/shop.yaml".into())
}

fn run_one(policylens: &Path, root: &Path, h: &Hostile, open: bool) -> Result<Row, String> {
    let hostile = root.join("hostile.yaml");
    let folder = json!({"uri": file_uri(root), "name": "hostile"});
    let mut c = Client::spawn(policylens, folder.clone())?;
    let t_init = Instant::now();
    let caps = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "textDocument": {"hover": {"contentFormat": ["markdown"]}, "diagnostic": {"dynamicRegistration": false}},
        "workspace": {"configuration": true, "workspaceFolders": true}
    });
    let init = json!({"processId": std::process::id(), "rootUri": file_uri(root), "workspaceFolders": [folder], "capabilities": caps});
    c.request("initialize", init)?;
    c.notify("initialized", json!({}))?;
    let (policy, line, col) = hover_target(root)?;
    let policy_text = std::fs::read_to_string(&policy).map_err(|e| e.to_string())?;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": file_uri(&policy), "languageId": "yaml", "version": 1, "text": policy_text}}),
    )?;
    c.request("policylens/debugSettle", Value::Null)?;
    let index = t_init.elapsed();
    let hover = json!({"textDocument": {"uri": file_uri(&policy)}, "position": {"line": line, "character": col}});
    let (expected, _) = c.request("textDocument/hover", hover.clone())?;
    let expected = expected["result"]["contents"]["value"].as_str().unwrap_or_default().to_owned();
    if expected.is_empty() {
        return Err("the demo hover is empty before the hostile file is opened".into());
    }

    let t0 = if open {
        // An editor's buffer is text: binary junk arrives decoded, invalid bytes replaced.
        let text = String::from_utf8_lossy(&h.bytes).into_owned();
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": file_uri(&hostile), "languageId": "yaml", "version": 1, "text": text}}),
        )?
    } else {
        Instant::now()
    };
    let (hover_id, _) = c.send("textDocument/hover", hover.clone())?;
    let (pull_id, _) = c.send("textDocument/diagnostic", json!({"textDocument": {"uri": file_uri(&hostile)}}))?;
    let (settle_id, _) = c.send("policylens/debugSettle", Value::Null)?;
    let (first, first_at) = c.take(hover_id, true)?.ok_or("no hover answer")?;
    let first_hover = first_at.duration_since(t0);
    let mut hover_ok = first["result"]["contents"]["value"].as_str() == Some(&expected);
    let mut worst_hover = first_hover;
    let mut hovers = 1;
    let settled_at = loop {
        if let Some((_, at)) = c.take(settle_id, false)? {
            break at;
        }
        let (h, took) = c.request("textDocument/hover", hover.clone())?;
        hover_ok &= h["result"]["contents"]["value"].as_str() == Some(&expected);
        worst_hover = worst_hover.max(took);
        hovers += 1;
        std::thread::sleep(Duration::from_millis(20));
    };
    let (pulled, pulled_at) = c.take(pull_id, true)?.ok_or("no pull answer")?;
    let items = pulled["result"]["items"].as_array().cloned().unwrap_or_default();
    let rss_kib = c.peak_rss_kib().unwrap_or(0);
    c.shutdown();
    Ok(Row {
        name: format!("{}{}", h.name, if open { "" } else { " (on disk only)" }),
        size: h.bytes.len(),
        index,
        first_hover,
        worst_hover,
        hovers,
        hover_ok,
        diagnostics_after: pulled_at.duration_since(t0),
        diagnostics: items.len(),
        last_message: items.last().and_then(|d| d["message"].as_str()).unwrap_or("").chars().take(70).collect(),
        settled: settled_at.duration_since(t0),
        rss_kib,
    })
}

struct CheckRow {
    wall: Duration,
    rss_kib: u64,
    diagnostics: usize,
}

fn check_one(policylens: &Path, dir: &Path) -> Result<CheckRow, String> {
    let t0 = Instant::now();
    let out = Command::new(policylens)
        .args(["check", "--stats", "--format", "json", "."])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("check: {e}"))?;
    let wall = t0.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss_kib = stderr
        .split("peak RSS ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no peak RSS in check's stats: {stderr}"))?;
    let json: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("check JSON: {e}"))?;
    let diagnostics = json["diagnostics"].as_array().map_or(0, Vec::len);
    Ok(CheckRow { wall, rss_kib, diagnostics })
}

fn ms(d: Duration) -> String {
    format!("{:.0}", d.as_secs_f64() * 1000.0)
}

fn mb(bytes: f64) -> String {
    format!("{:.1}", bytes / 1e6)
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("policylens-bench-hostile: {e}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<(), String> {
    let mut policylens = PathBuf::from("target/release/policylens");
    let mut out = PathBuf::from("bench-data/hostile");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--policylens" => policylens = args.next().ok_or("--policylens PATH")?.into(),
            "--out" => out = args.next().ok_or("--out DIR")?.into(),
            _ => return Err(format!("unknown argument {a}; see the file's header")),
        }
    }
    let policylens = std::fs::canonicalize(&policylens).map_err(|e| format!("{}: {e}", policylens.display()))?;
    let demo = Path::new("fixtures/demo");
    let mut rows = Vec::new();
    let mut checks = Vec::new();
    for (i, h) in hostile_files().into_iter().enumerate() {
        let root = out.join(format!("ws-{i}"));
        let _ = std::fs::remove_dir_all(&root);
        copy_dir(demo, &root).map_err(|e| format!("copying the demo: {e}"))?;
        std::fs::write(root.join("hostile.yaml"), &h.bytes).map_err(|e| e.to_string())?;
        let root = std::fs::canonicalize(&root).map_err(|e| e.to_string())?;
        for open in [true, false] {
            if !open && !h.disk_only {
                continue;
            }
            eprintln!("{}{}", h.name, if open { "" } else { " (on disk)" });
            rows.push(run_one(&policylens, &root, &h, open)?);
        }
        let alone = out.join(format!("alone-{i}"));
        let _ = std::fs::remove_dir_all(&alone);
        std::fs::create_dir_all(&alone).map_err(|e| e.to_string())?;
        std::fs::write(alone.join("hostile.yaml"), &h.bytes).map_err(|e| e.to_string())?;
        checks.push((h.name, h.bytes.len(), check_one(&policylens, &alone)?));
    }
    println!("### `policylens serve`: the hostile file opened beside the demo\n");
    println!(
        "| file | size (MB) | index (ms) | hover after didOpen (ms) | worst hover until settled (ms, n) | hover right | didOpen → diagnostics (ms) | diagnostics | last one | settled (ms) | peak RSS (MiB) | RSS / size |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {} | {:.1} | {:.1} |",
            r.name,
            mb(r.size as f64),
            ms(r.index),
            ms(r.first_hover),
            ms(r.worst_hover),
            r.hovers,
            if r.hover_ok { "yes" } else { "NO" },
            ms(r.diagnostics_after),
            r.diagnostics,
            r.last_message.replace('|', "\\|"),
            ms(r.settled),
            r.rss_kib as f64 / 1024.0,
            r.rss_kib as f64 * 1024.0 / r.size as f64,
        );
    }
    println!("\n### `policylens check --stats --format json` on the hostile file alone\n");
    println!("| file | size (MB) | wall (ms) | peak RSS (MiB) | RSS / size | diagnostics |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, size, c) in &checks {
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {} |",
            name,
            mb(*size as f64),
            ms(c.wall),
            c.rss_kib as f64 / 1024.0,
            c.rss_kib as f64 * 1024.0 / *size as f64,
            c.diagnostics
        );
    }
    Ok(())
}
