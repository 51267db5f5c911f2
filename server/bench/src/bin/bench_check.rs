//! The `check` benchmark (issue: 10k objects in ≤ 0.4× PyYAML's C-loader parse time; 100k ≤
//! 12× the 10k time; peak RSS ≤ 4× the YAML bytes).
//!
//! Generates mixed synthetic workspaces, runs the release `policylens check --stats` on each
//! several times (the sizes taking turns), runs `tests/bench/pyyaml_parse.py` on the same files
//! in the same run, and prints medians and ratios. Build first: `cargo build --release -p policylens`.
//!
//! ```text
//! cargo run --release -p policylens-bench --bin policylens-bench-check -- [--sizes 1000,10000,100000] [--runs 5]
//!     [--profile mixed|policies]
//! ```
//!
//! `--profile policies` writes a policy on most routes (about half the objects are policies):
//! where the effective-policy computation, not the parse, costs most.

use std::path::{Path, PathBuf};
use std::process::Command;

use policylens_bench::synth;

struct Args {
    sizes: Vec<usize>,
    profile: synth::Profile,
    runs: usize,
    data: PathBuf,
    binary: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut a = Args {
        sizes: vec![1000, 10_000, 100_000],
        profile: synth::Profile::Mixed,
        runs: 5,
        data: root.join("bench-data"),
        binary: root.join("target/release/policylens"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--sizes" => {
                a.sizes = val()?
                    .split(',')
                    .map(|s| s.parse().map_err(|e| format!("--sizes: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--profile" => {
                let v = val()?;
                a.profile = match synth::Profile::parse(&v) {
                    Some(p @ (synth::Profile::Mixed | synth::Profile::Policies)) => p,
                    _ => return Err(format!("--profile: {v} is not mixed or policies")),
                };
            }
            "--runs" => a.runs = val()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--data" => a.data = val()?.into(),
            "--policylens" => a.binary = val()?.into(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[v.len() / 2]
}

/// One `policylens check --stats` run: (total ms, peak RSS KiB).
fn run_check(binary: &Path, dir: &Path) -> Result<(f64, f64), String> {
    let out = Command::new(binary)
        .args(["check", "--format", "json", "--stats"])
        .arg(dir)
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!("check failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr.lines().find(|l| l.starts_with("stats:")).ok_or("no stats line")?;
    let field = |name: &str| -> Option<f64> {
        let rest = &line[line.find(name)? + name.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    Ok((field("total ").ok_or("no total")?, field("peak RSS ").ok_or("no RSS")?))
}

fn pyyaml(dir: &Path, runs: usize) -> Result<(f64, u64), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bench/pyyaml_parse.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(dir)
        .args(["--repeat", &runs.to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let secs = v["median_seconds"].as_f64().ok_or("no median_seconds")?;
    Ok((secs * 1000.0, v["bytes"].as_u64().unwrap_or(0)))
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("bench-check: {e}");
        std::process::exit(2);
    }
}

fn real_main() -> Result<(), String> {
    let args = parse_args()?;
    if !args.binary.is_file() {
        return Err(format!("{} missing: run `cargo build --release -p policylens` first", args.binary.display()));
    }
    println!(
        "| objects | bytes | check median ms | PyYAML C parse median ms | check / PyYAML | peak RSS MiB | RSS / bytes |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut workspaces = Vec::new();
    for &n in &args.sizes {
        let (dir, cfg) = match args.profile {
            synth::Profile::Mixed => {
                let dir = args.data.join(format!("synth-{n}"));
                (dir.clone(), synth::Config::mixed(n, dir, 1))
            }
            profile => {
                let dir = args.data.join(format!("synth-{}-{n}", profile.name()));
                (dir.clone(), synth::Config { profile, ..synth::Config::mixed(n, dir, 1) })
            }
        };
        let summary = synth::generate(&cfg).map_err(|e| e.to_string())?;
        // One warm-up run so every measured run sees the same page cache.
        run_check(&args.binary, &dir)?;
        workspaces.push((n, dir, summary, Vec::new(), Vec::new()));
    }
    // Sizes take turns, so that the machine's load over the minutes a run takes weighs on
    // every size alike (ratios between sizes compared blocks measured minutes apart before).
    for _ in 0..args.runs {
        for (_, dir, _, times, rss) in &mut workspaces {
            let (t, r) = run_check(&args.binary, dir)?;
            times.push(t);
            rss.push(r);
        }
    }
    let mut medians = Vec::new();
    let mut py_medians = Vec::new();
    for (n, dir, summary, times, rss) in workspaces {
        let (py_ms, _) = pyyaml(&dir, args.runs)?;
        py_medians.push((n, py_ms));
        let t = median(times);
        let r = median(rss) * 1024.0;
        let bytes = summary.bytes as f64;
        println!(
            "| {n} | {} | {t:.1} | {py_ms:.1} | {:.2} | {:.1} | {:.2} |",
            summary.bytes,
            t / py_ms,
            r / 1048576.0,
            r / bytes
        );
        medians.push((n, t));
    }
    let ratio = |ms: &[(usize, f64)]| {
        let a = ms.iter().find(|m| m.0 == 10_000)?;
        let b = ms.iter().find(|m| m.0 == 100_000)?;
        Some(b.1 / a.1)
    };
    if let (Some(ours), Some(py)) = (ratio(&medians), ratio(&py_medians)) {
        println!("\n100k / 10k check time: {ours:.2}× (PyYAML's own parse: {py:.2}×)");
    }
    Ok(())
}
