//! The real-editor test: headless Neovim 0.11+ runs `tests/nvim/e2e.lua`, which loads the
//! documented configuration (`editors/neovim/policylens.lua`) unchanged and checks diagnostics,
//! hover, definition, completion and an edit against a copy of `fixtures/demo`. The built
//! binary is put first on PATH, so Neovim starts it as `policylens serve`, as a user's would.
//!
//! Neovim comes from `POLICYLENS_NVIM`, else `.nvim-venv/bin/nvim` at the repo root (see
//! `.ci/run`), else `nvim` on PATH when it is 0.11 or newer. Without one the test is skipped,
//! unless `POLICYLENS_REQUIRE_NVIM=1` (CI), which makes it fail.
//!
//! Run it alone: `cargo test -p policylens --test neovim -- --nocapture`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Only a guard against a hung editor; every wait inside the script has its own bound.
const HANG_GUARD: Duration = Duration::from_secs(300);

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// `(major, minor)` from the first line of `nvim --version` ("NVIM v0.11.4", "NVIM v0.12.0-dev-…").
fn nvim_version(nvim: &Path) -> Option<(u32, u32)> {
    let out = Command::new(nvim).arg("--version").stdin(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text.lines().next()?.strip_prefix("NVIM v")?;
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn modern(nvim: &Path) -> bool {
    nvim_version(nvim).is_some_and(|v| v >= (0, 11))
}

/// The Neovim to use, or why there is none.
fn find_nvim() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("POLICYLENS_NVIM") {
        let p = PathBuf::from(p);
        return match nvim_version(&p) {
            Some(v) if v >= (0, 11) => Ok(p),
            Some((major, minor)) => Err(format!("POLICYLENS_NVIM={} is Neovim {major}.{minor}", p.display())),
            None => Err(format!("POLICYLENS_NVIM={} does not run as Neovim", p.display())),
        };
    }
    let venv = repo_root().join(".nvim-venv/bin/nvim");
    if venv.is_file() && modern(&venv) {
        return Ok(venv);
    }
    let on_path = PathBuf::from("nvim");
    if modern(&on_path) {
        return Ok(on_path);
    }
    Err("neither POLICYLENS_NVIM, .nvim-venv/bin/nvim nor an nvim on PATH".into())
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> TempDir {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("policylens-nvim-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create the temp dir");
    TempDir(dir.canonicalize().expect("canonical temp dir"))
}

/// Runs `tests/nvim/<script>` in headless Neovim with the built binary first on PATH, in
/// `cwd` (the temp dir when `None`), on a workspace at `<tmp>/demo`; returns what it wrote to
/// OUT.json, or `None` when no Neovim is there (skipped).
fn run_script(script: &str, in_workspace: bool, env: &[(&str, &str)]) -> Option<Value> {
    let nvim = match find_nvim() {
        Ok(p) => p,
        Err(why) => {
            if std::env::var("POLICYLENS_REQUIRE_NVIM").is_ok_and(|v| v == "1") {
                panic!("POLICYLENS_REQUIRE_NVIM=1 but no Neovim >= 0.11: {why}");
            }
            println!("skipped: no Neovim >= 0.11 ({why}); set POLICYLENS_NVIM or see .ci/run");
            return None;
        }
    };

    let root = repo_root();
    let tmp = temp_dir();
    let workspace = tmp.0.join("demo");
    let out = tmp.0.join("result.json");
    let home = tmp.0.join("home");
    std::fs::create_dir_all(&workspace).expect("workspace dir");

    // The built binary first on PATH: the snippet says `cmd = { 'policylens', 'serve' }`.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_policylens")).parent().expect("binary dir").to_path_buf();
    let mut path = vec![bin_dir];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    let path = std::env::join_paths(path).expect("PATH");

    let mut cmd = Command::new(&nvim);
    cmd.args(["--headless", "--clean", "-n", "-i", "NONE", "-l"])
        .arg(root.join("tests/nvim").join(script))
        .arg(&out)
        .arg(&workspace)
        .current_dir(if in_workspace { &workspace } else { &tmp.0 })
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(tmp.0.join("stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(tmp.0.join("stderr")).expect("stderr file"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    // Keep Neovim's state (lsp.log, shada, swap) out of the user's home.
    for (var, sub) in [
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ] {
        cmd.env(var, home.join(sub));
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", nvim.display()));

    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for nvim") {
            break status;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nvim did not exit within {HANG_GUARD:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(tmp.0.join("stdout")).unwrap_or_default();
    let stderr = std::fs::read_to_string(tmp.0.join("stderr")).unwrap_or_default();
    let result: Option<Value> = std::fs::read_to_string(&out).ok().and_then(|s| serde_json::from_str(&s).ok());

    if !status.success() || result.as_ref().and_then(|r| r["ok"].as_bool()) != Some(true) {
        let lsp_log = std::fs::read_to_string(home.join("state/nvim/lsp.log")).unwrap_or_default();
        panic!(
            "the Neovim test {script} failed ({status})\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n--- result.json\n{}\n--- lsp.log\n{lsp_log}",
            result.map(|r| serde_json::to_string_pretty(&r).unwrap_or_default()).unwrap_or_else(|| "(none)".into())
        );
    }
    let result = result.expect("result.json");
    println!("{} ({}): {}{}", nvim.display(), result["nvim"], stdout.trim(), stderr.trim());
    Some(result)
}

#[test]
fn documented_neovim_config_end_to_end() {
    let Some(result) = run_script("e2e.lua", false, &[]) else { return };
    // The script asserts everything; pin the headline facts here too, so a weakened script shows.
    let steps = &result["steps"];
    let diags: Vec<(u64, &str)> = steps["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| (d["line"].as_u64().unwrap_or(0), d["code"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(diags, [(34, "section-not-found"), (51, "target-kind-not-allowed"), (90, "target-not-found")]);
    assert_eq!(steps["diagnostics"][2]["text"], "chekout");
    assert!(steps["hover_ref"].as_str().is_some_and(|h| h.contains("HTTPRoute shop/checkout")));
    assert!(steps["hover_target"].as_str().is_some_and(|h| h.contains("infra/edge-auth")));
    assert_eq!(steps["definition"], serde_json::json!({"file": "shop/routes.yaml", "line": 55, "col": 13}));
    assert_eq!(steps["completion"], serde_json::json!(["http", "https", "admin"]));
    assert_eq!(steps["after_edit"].as_array().map(Vec::len), Some(2));
    // :PolicylensWithout's report buffer (the script compares it with the CLI line by line).
    assert_eq!(
        steps["without"][0],
        "workspace → without BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-backend-defaults: 3 targets' \
         effective policies change, 1 policy change status, 0 findings introduced, 1 finding fixed"
    );
}

/// Issue 33 in the real editor: no wrong answer while indexing, other buffers' diagnostics
/// current, files written on disk seen, the root of a copied example without `.git`, no
/// completion in comments, `:checkhealth policylens`, lenses refreshed by the plugin.
#[test]
fn neovim_never_shows_a_wrong_answer() {
    let env = [("POLICYLENS_TEST", "1"), ("POLICYLENS_TEST_INDEX_DELAY_MS", "1500")];
    let Some(result) = run_script("truthful.lua", true, &env) else { return };
    let steps = &result["steps"];
    assert!(steps["hover_while_indexing"].as_str().is_some_and(|h| h.contains("infra/edge-auth")));
    assert_eq!(
        steps["diagnostics"],
        serde_json::json!(["section-not-found", "target-kind-not-allowed", "target-not-found"])
    );
    assert_eq!(steps["completion_in_comment"], 0);
    assert!(steps["health"].as_str().is_some_and(|h| h.contains("root chosen as a fallback")));
}

/// Issue 39 in Neovim with a screen: no hit-enter prompt from startup until the diagnostics
/// are shown (a UI attached to an embedded Neovim, its mode polled), the guessed root said on
/// one line, virtual text, the progress drawn; and a client rooted at `shop/` gets the demo's
/// world (no false `target-not-found`), with the root and why in `:checkhealth policylens`.
#[test]
fn neovim_starts_without_a_prompt_and_finds_the_workspace() {
    let env = [("POLICYLENS_TEST", "1"), ("POLICYLENS_TEST_INDEX_DELAY_MS", "1500")];
    let Some(result) = run_script("startup.lua", true, &env) else { return };
    let steps = &result["steps"];
    assert_eq!(steps["guessed_root"]["virtual"], 3);
    assert_eq!(steps["subfolder"]["codes"], serde_json::json!(["backend-not-permitted"]));
}
