//! Random editor sessions against the real language server (`policylens_bench::sessions`):
//! runs `--sessions N` sessions of `--ops N` operations each, session `i` with seed
//! `--seed S` + `i`, and prints each failing session's seed, failures and operation log, so
//! that `--seed <that seed> --sessions 1` replays it.
//!
//! ```text
//! cargo build --release -p policylens -p policylens-bench
//! target/release/policylens-bench-sessions --sessions 1000 --ops 200 --seed 1
//! ```
//!
//! Options: `--policylens PATH` (default `target/release/policylens`), `--workspace DIR` (the
//! base workspace copied for each session; default `fixtures/demo` plus three
//! `fixtures/conformance` workspaces), `--timeout SECS` (20, per wait), `--quiet` (no op logs),
//! `--keep DIR` (copies a failing session's final files to `DIR/seed-S/`).
//! Exit code 1 when a session failed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use policylens_bench::sessions::{Config, base_from_dir, default_base, run_session};

const USAGE: &str = "usage: policylens-bench-sessions [--sessions N] [--ops N] [--seed S] [--policylens PATH] \
[--workspace DIR] [--timeout SECS] [--quiet] [--keep DIR]";

fn main() {
    match real_main() {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("policylens-bench-sessions: {e}");
            std::process::exit(2);
        }
    }
}

fn real_main() -> Result<bool, String> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (mut sessions, mut ops, mut seed, mut timeout, mut quiet) = (20u64, 200usize, 1u64, 20u64, false);
    let mut policylens: PathBuf = repo.join("target/release/policylens");
    let mut workspace: Option<PathBuf> = None;
    let mut keep: Option<PathBuf> = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--sessions" => sessions = val()?.parse().map_err(|e| format!("--sessions: {e}"))?,
            "--ops" => ops = val()?.parse().map_err(|e| format!("--ops: {e}"))?,
            "--seed" => seed = val()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--timeout" => timeout = val()?.parse().map_err(|e| format!("--timeout: {e}"))?,
            "--policylens" => policylens = val()?.into(),
            "--workspace" => workspace = Some(val()?.into()),
            "--quiet" => quiet = true,
            "--keep" => keep = Some(val()?.into()),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    let base = match &workspace {
        Some(w) => base_from_dir(w).map_err(|e| format!("{}: {e}", w.display()))?,
        None => default_base(&repo).map_err(|e| format!("the default workspace: {e}"))?,
    };
    let cfg = Config { policylens, base, ops, timeout: Duration::from_secs(timeout), keep };
    eprintln!(
        "{sessions} sessions × {ops} ops, seeds {seed}..{}, {} base files, server {}",
        seed + sessions,
        cfg.base.len(),
        cfg.policylens.display()
    );
    let t0 = Instant::now();
    let (mut failed, mut requests) = (Vec::new(), 0usize);
    let mut allowed = std::collections::BTreeMap::new();
    for i in 0..sessions {
        let s = seed + i;
        let out = run_session(&cfg, s);
        requests += out.requests;
        for (k, n) in out.allowed_errors {
            *allowed.entry(k).or_insert(0usize) += n;
        }
        if !out.failures.is_empty() {
            println!("== session FAILED, seed {s} ({:?})", out.elapsed);
            for f in &out.failures {
                println!("{f}");
            }
            if !quiet {
                println!("-- op log (replay: --seed {s} --sessions 1 --ops {ops}):");
                for l in &out.log {
                    println!("  {l}");
                }
            }
            failed.push(s);
        }
        if (i + 1) % 20 == 0 || i + 1 == sessions {
            eprintln!("{} sessions, {} failed, {:.1} s", i + 1, failed.len(), t0.elapsed().as_secs_f64());
        }
    }
    println!(
        "{sessions} sessions × {ops} ops (seeds {seed}..{}): {} failed {failed:?}; {requests} requests; {:.1} s",
        seed + sessions,
        failed.len(),
        t0.elapsed().as_secs_f64()
    );
    println!("allowed error answers: {allowed:?}");
    Ok(failed.is_empty())
}
