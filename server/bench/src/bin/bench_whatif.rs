//! The what-if benchmark: `diff --without` on the synthetic workspace, in process. The whole
//! analysis is computed once (what `check` and the language server hold anyway); then, for
//! policies attached at each level (Gateway, listener, route, rule), the what-if of removing
//! one (the effective index without it, its findings and the report) is timed, beside a full
//! analysis of the same files with that policy's document deleted, which gives the same
//! answer (`server/core/tests/whatif.rs`).
//!
//! ```text
//! target/release/policylens-bench-whatif [--objects 10000] [--per-level 5] [--runs 5] [--level Gateway]
//! ```
//!
//! The workspace is `bench-data/synth-N` (generated when missing). Build first:
//! `cargo build --release -p policylens-bench`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use policylens_bench::synth;
use policylens_core::analysis::diff;
use policylens_core::topology::DagNode;
use policylens_core::workspace::{Snapshot, Workspace};
use policylens_core::world::ObjId;

struct Args {
    objects: usize,
    per_level: usize,
    runs: usize,
    /// Only this level (`Gateway`, `route`, ...), for a profile.
    level: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { objects: 10_000, per_level: 5, runs: 5, level: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--objects" => a.objects = val()?.parse().map_err(|e| format!("--objects: {e}"))?,
            "--per-level" => a.per_level = val()?.parse().map_err(|e| format!("--per-level: {e}"))?,
            "--runs" => a.runs = val()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--level" => a.level = Some(val()?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn yaml_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml")
            && let (Ok(rel), Ok(text)) = (p.strip_prefix(root), std::fs::read_to_string(&p))
        {
            out.push((rel.to_string_lossy().into_owned(), text));
        }
    }
}

fn load(dir: &Path) -> (Workspace, Vec<(String, String)>) {
    let mut texts = Vec::new();
    yaml_files(dir, dir, &mut texts);
    let mut ws = Workspace::new();
    if let Some((_, c)) = texts.iter().find(|(p, _)| p == ".policylens.yaml") {
        ws.set_config(Some(".policylens.yaml"), c);
    }
    ws.set_files(texts.iter().filter(|(p, _)| p != ".policylens.yaml").cloned().collect());
    (ws, texts)
}

/// Where a policy attaches, as a level of the hierarchy.
fn level(snap: &Snapshot, p: ObjId) -> &'static str {
    let world = snap.world();
    let t = &world.topology;
    let Some(n) = t.policies.get(&p).and_then(|r| r.attached_nodes().next()) else { return "not attached" };
    let body = |o| &world.object(o).body;
    use policylens_core::model::Body;
    match t.node(n) {
        DagNode::Namespace(_) => "Namespace",
        DagNode::Object(o) => match body(o) {
            Body::Gateway(_) => "Gateway",
            Body::Route(_) => "route",
            Body::Service(_) => "Service",
            _ => "other",
        },
        DagNode::Section(o, _) => match body(o) {
            Body::Gateway(_) | Body::ListenerSet(_) => "listener",
            Body::Route(_) => "rule",
            Body::Service(_) => "port",
            _ => "other",
        },
        DagNode::Virtual(_) => "virtual",
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("policylens-bench-whatif: {e}");
            std::process::exit(2);
        }
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data: PathBuf = root.join(format!("bench-data/synth-{}", args.objects));
    if !data.exists()
        && let Err(e) = synth::generate(&synth::Config::mixed(args.objects, &data, 1))
    {
        eprintln!("policylens-bench-whatif: generating {}: {e}", data.display());
        std::process::exit(2);
    }
    let (mut ws, texts) = load(&data);
    let snap = ws.snapshot();
    let start = Instant::now();
    let _ = snap.diagnostics();
    let full_ms = ms(start);
    let world = snap.world();
    println!(
        "{}: {} objects, {} policies; full analysis {full_ms:.1} ms ({} contexts)",
        data.display(),
        world.object_count(),
        world.policies.len(),
        snap.effective().stats.contexts
    );
    // Policies by level, spread over the workspace (every k-th of each level).
    let mut by_level: BTreeMap<&str, Vec<ObjId>> = BTreeMap::new();
    for &p in &world.policies {
        if snap.effective().status(p).is_some_and(|s| s.accepted) {
            by_level.entry(level(&snap, p)).or_default().push(p);
        }
    }
    println!(
        "{:<10} {:>8} {:>14} {:>14} {:>12} {:>10} {:>10} {:>12} {:>12}",
        "level",
        "policies",
        "what-if med",
        "what-if max",
        "index med",
        "contexts",
        "recounted",
        "whole kinds",
        "deleted med"
    );
    for (lvl, all) in &by_level {
        if args.level.as_deref().is_some_and(|l| l != *lvl) {
            continue;
        }
        let step = (all.len() / args.per_level.max(1)).max(1);
        let picked: Vec<ObjId> = all.iter().copied().step_by(step).take(args.per_level).collect();
        let (mut whatif, mut index, mut deleted) = (Vec::new(), Vec::new(), Vec::new());
        let (mut contexts, mut recounted, mut whole) = (0, 0, 0);
        for &p in &picked {
            for _ in 0..args.runs {
                let t0 = Instant::now();
                let w = diff::without(&snap, &[p], "workspace");
                whatif.push(ms(t0));
                contexts = contexts.max(w.stats.contexts);
                recounted = recounted.max(w.stats.recounted);
                whole = whole.max(w.stats.whole_kinds);
                // Its incremental part alone: the effective index without the policy (the
                // rest is the findings on that index and the report).
                let t0 = Instant::now();
                let _ = snap.effective().without(world, &[p]);
                index.push(ms(t0));
            }
            // The same question answered by a full analysis of the files without the
            // policy's document (once: it is the slow way).
            let file = world.file_of(p).path.to_string();
            let span = world.object(p).span;
            if let Some((_, text)) = texts.iter().find(|(path, _)| *path == file) {
                let mut bytes = text.clone().into_bytes();
                for b in &mut bytes[span.start as usize..span.end as usize] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                let edited = snap.with_file(&file, String::from_utf8_lossy(&bytes).into_owned());
                let t0 = Instant::now();
                let _ = edited.diagnostics();
                deleted.push(ms(t0));
            }
        }
        let max = whatif.iter().copied().fold(0.0, f64::max);
        println!(
            "{lvl:<10} {:>8} {:>11.1} ms {:>11.1} ms {:>9.1} ms {contexts:>10} {recounted:>10} {whole:>12} {:>9.1} ms",
            all.len(),
            median(&mut whatif),
            max,
            median(&mut index),
            median(&mut deleted)
        );
    }
}
