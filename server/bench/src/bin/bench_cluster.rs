//! The live-cluster benchmark: `check --cluster` over N objects served by the loopback API
//! server, against `check` of the same objects as files (goal: within 1.5×), runs taking
//! turns; wall time medians and peak RSS.
//!
//! The objects are those of the synthetic workspace `bench-data/synth-N` (generated when
//! missing). Two cluster runs: the cluster alone (`check --cluster` from an empty directory,
//! the audit: the same objects analysed once, as the files are), and the what-if, a workspace
//! of one small file laid over them (`check --cluster .`), which also analyses the cluster
//! alone, beside it, to report only the findings the files cause. Build first:
//! `cargo build --release -p policylens -p policylens-bench`.
//!
//! ```text
//! target/release/policylens-bench-cluster [--objects 10000] [--runs 5] [--policylens PATH]
//! ```
//!
//! `--serve SECS` only serves the objects that long and prints the command to check them, for
//! a profiler.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use policylens_bench::fake_api::{FakeApi, kubeconfig, serving};
use policylens_bench::synth;
use serde_json::Value;

struct Args {
    serve: Option<u64>,
    objects: usize,
    runs: usize,
    binary: PathBuf,
}

fn parse_args(root: &Path) -> Result<Args, String> {
    let mut a = Args { serve: None, objects: 10_000, runs: 5, binary: root.join("target/release/policylens") };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--objects" => a.objects = val()?.parse().map_err(|e| format!("--objects: {e}"))?,
            "--serve" => a.serve = Some(val()?.parse().map_err(|e| format!("--serve: {e}"))?),
            "--runs" => a.runs = val()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--policylens" => a.binary = val()?.into(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
}

/// Every object of the workspace as JSON.
fn objects_of(dir: &Path) -> Vec<Value> {
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        for doc in policylens_core::syntax::parse_file(&text).documents {
            let Some(root) = doc.root else { continue };
            let v = root.to_json();
            if v["apiVersion"].is_string() && v["kind"].is_string() {
                out.push(v);
            }
        }
    }
    out
}

/// One `check --stats` run: (wall ms, peak RSS KiB from its stats line, its summary line).
fn run(binary: &Path, args: &[&str], cwd: &Path) -> Result<(f64, f64, String), String> {
    let t = Instant::now();
    let out = Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env_remove("KUBECONFIG")
        .output()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!("{args:?} failed: {stderr}"));
    }
    let rss = stderr
        .lines()
        .find_map(|l| l.split("peak RSS ").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|k| k.parse().ok())
        .unwrap_or(f64::NAN);
    let stats = stderr.lines().find(|l| l.starts_with("stats: load")).unwrap_or("");
    let summary = format!("{}\n         {stats}", stdout.lines().last().unwrap_or(""));
    Ok((ms, rss, summary))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args = match parse_args(&root) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("policylens-bench-cluster: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = bench(&root, &args) {
        eprintln!("policylens-bench-cluster: {e}");
        std::process::exit(1);
    }
}

fn bench(root: &Path, args: &Args) -> Result<(), String> {
    let data = root.join(format!("bench-data/synth-{}", args.objects));
    if !data.is_dir() {
        synth::generate(&synth::Config::mixed(args.objects, &data, 1)).map_err(|e| e.to_string())?;
    }
    let objects = objects_of(&data);
    let api = FakeApi::start_watching(serving(&objects), &[], Default::default(), true);
    let tmp = std::env::temp_dir().join(format!("policylens-bench-cluster-{}", std::process::id()));
    let ws = tmp.join("repo");
    std::fs::create_dir_all(&ws).map_err(|e| e.to_string())?;
    let empty = tmp.join("empty");
    std::fs::create_dir_all(&empty).map_err(|e| e.to_string())?;
    std::fs::write(ws.join("namespace.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bench\n")
        .map_err(|e| e.to_string())?;
    let kc = kubeconfig(&tmp, &api.addr);
    let kc = kc.to_string_lossy().into_owned();
    let data_s = data.to_string_lossy().into_owned();
    if let Some(secs) = args.serve {
        println!("cd {} && {} check --stats --cluster --kubeconfig {kc} .", ws.display(), args.binary.display());
        std::thread::sleep(std::time::Duration::from_secs(secs));
        return Ok(());
    }
    let files_args = ["check", "--stats", &data_s];
    let alone_args = ["check", "--stats", "--cluster", "--kubeconfig", &kc];
    let whatif_args = ["check", "--stats", "--cluster", "--kubeconfig", &kc, "."];
    // (arguments, directory) of each side, in the order they take turns.
    let sides: [(&[&str], &Path); 3] = [(&files_args, &ws), (&alone_args, &empty), (&whatif_args, &ws)];
    let mut ms: [Vec<f64>; 3] = Default::default();
    let mut rss: [Vec<f64>; 3] = Default::default();
    let mut summaries: [String; 3] = Default::default();
    // One warm-up each, then the runs taking turns.
    for (a, dir) in sides {
        run(&args.binary, a, dir)?;
    }
    for _ in 0..args.runs {
        for (i, (a, dir)) in sides.iter().enumerate() {
            let (m, r, s) = run(&args.binary, a, dir)?;
            ms[i].push(m);
            rss[i].push(r);
            summaries[i] = s;
        }
    }
    let m: Vec<f64> = ms.into_iter().map(median).collect();
    let r: Vec<f64> = rss.into_iter().map(|v| median(v) / 1024.0).collect();
    println!(
        "{} objects ({} served by the loopback API server), {} runs each, medians:\n",
        args.objects,
        objects.len(),
        args.runs
    );
    println!("| | wall ms | peak RSS MiB |");
    println!("|---|---:|---:|");
    println!("| `check` on the files | {:.0} | {:.1} |", m[0], r[0]);
    println!("| `check --cluster`: the same objects from the API server, alone | {:.0} | {:.1} |", m[1], r[1]);
    println!(
        "| `check --cluster .`: one file laid over them (and the cluster alone beside it) | {:.0} | {:.1} |",
        m[2], r[2]
    );
    println!("\nratio cluster / files: {:.2}× (goal ≤ 1.5×); with a file laid over: {:.2}×", m[1] / m[0], m[2] / m[0]);
    println!("files:   {}\ncluster: {}\nwhat-if: {}", summaries[0], summaries[1], summaries[2]);
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}
