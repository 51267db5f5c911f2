//! `policylens check`: every diagnostic of the workspace, as text, JSON or SARIF.

mod human;
pub(crate) mod json;
mod sarif;

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use std::collections::HashSet;
use std::sync::Arc;

use policylens_core::analysis::diagnostics::{Code, Diagnostic, Severity, Suppressed};
use policylens_core::workspace::{Origin, Snapshot, Workspace};

use crate::{CheckArgs, CheckFormat, FailOn, load};

/// Counts the summary reports.
pub struct Summary {
    pub files: usize,
    /// Objects read from the live cluster (`--cluster`).
    pub cluster_objects: usize,
    pub documents: usize,
    pub objects: usize,
    pub policies: usize,
    /// Diagnostics that ignore comments silenced (in the reported files).
    pub suppressed: usize,
    /// Template documents that could not be read around their actions.
    pub skipped_templates: usize,
    pub elapsed_ms: f64,
}

/// Cores from which the cluster alone is analysed beside the what-if rather than after it.
const SPARE_CORES_FOR_THE_CLUSTER_ALONE: usize = 2;

/// Findings as compared between the what-if and the cluster alone: (file, code, message).
type Findings = HashSet<(Arc<str>, Code, String)>;

/// The analysis of the cluster alone, started or not yet: its findings and milliseconds.
enum Alone {
    Running(std::thread::JoinHandle<(Findings, f64)>),
    Waiting(Workspace),
}

pub fn run(args: CheckArgs) -> Result<ExitCode, String> {
    let start = Instant::now();
    let mut loaded = load::load(&args.common)?;
    // With files laid over the cluster, a finding on a cluster object is the files' doing only
    // when the cluster alone does not have it (the what-if). With a core to spare, the cluster
    // alone is analysed on a thread of its own while the world with the files is (one after
    // the other took 1.9x of files on the 2-core bench machine, beside each other 1.4x when
    // quiet); on a single core it runs only once the what-if finds something on a cluster
    // object, which most what-ifs do not.
    let analyse_alone = |mut ws: Workspace| {
        let start = Instant::now();
        let snap = ws.snapshot();
        let findings = cluster_findings(&snap);
        // Freeing a world of 10k objects takes a tenth of analysing it, and the process ends
        // once the report is written: its memory goes with it.
        std::mem::forget((snap, ws));
        (findings, start.elapsed().as_secs_f64() * 1000.0)
    };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let cluster_alone = loaded.cluster_alone.take().map(|ws| {
        if cores >= SPARE_CORES_FOR_THE_CLUSTER_ALONE {
            Alone::Running(std::thread::spawn(move || analyse_alone(ws)))
        } else {
            Alone::Waiting(ws)
        }
    });
    let snap = &loaded.snapshot;
    let load_ms = loaded.load_ms;
    let of_it_cluster = loaded.cluster_ms.map_or(String::new(), |ms| format!(" (of it cluster read {ms:.1})"));
    #[cfg(feature = "heap-stats")]
    let heap_files = crate::heap::live();
    let analysis_start = Instant::now();
    // Forced one by one so --stats can say where the time and memory go.
    let _ = snap.world();
    let world_ms = analysis_start.elapsed().as_secs_f64() * 1000.0;
    #[cfg(feature = "heap-stats")]
    let heap_world = crate::heap::live();
    let _ = snap.effective();
    let effective_ms = analysis_start.elapsed().as_secs_f64() * 1000.0 - world_ms;
    #[cfg(feature = "heap-stats")]
    let (heap_effective, blocks_effective) = (crate::heap::live(), crate::heap::blocks());
    let _ = snap.diagnostics();
    #[cfg(feature = "heap-stats")]
    let heap_diags = crate::heap::live();
    let analysis_ms = analysis_start.elapsed().as_secs_f64() * 1000.0;
    let mut summary = summary(snap, start.elapsed().as_secs_f64() * 1000.0);
    // The report needs the files and diagnostics only: the world and effective index go
    // before rendering adds its own memory.
    let report_only = loaded.report_only.clone();
    let reporting = loaded.snapshot.without_analysis();
    let snap = &reporting;
    drop(loaded);
    let from_cluster = |file: &str| snap.file(file).is_some_and(|f| f.origin == Origin::Cluster);
    // Without a finding on a cluster object there is nothing to compare: the thread is left
    // to end with the process.
    let any_on_cluster = snap.diagnostics().keys().any(|f| from_cluster(f));
    let mut cluster_alone_ms = None;
    let before: Option<Findings> = match cluster_alone.filter(|_| any_on_cluster) {
        Some(alone) => {
            let (findings, ms) = match alone {
                Alone::Running(thread) => {
                    thread.join().map_err(|_| "the analysis of the cluster alone failed".to_owned())?
                }
                Alone::Waiting(ws) => analyse_alone(ws),
            };
            cluster_alone_ms = Some(ms);
            summary.elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
            Some(findings)
        }
        None => None,
    };
    // `check FILE...` analyses the FILE's workspace but reports on the FILEs only.
    let reported = |d: &Diagnostic| match (from_cluster(&d.file), &before) {
        (false, _) => report_only.as_ref().is_none_or(|only| only.contains(&*d.file)),
        (true, None) => true,
        (true, Some(before)) => !before.contains(&(d.file.clone(), d.code, d.message.clone())),
    };
    // The files' findings first, then those on the cluster's objects.
    let (on_files, on_cluster): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        snap.diagnostics().values().flatten().filter(|d| reported(d)).partition(|d| !from_cluster(&d.file));
    let diags: Vec<&Diagnostic> = on_files.into_iter().chain(on_cluster).collect();
    let suppressed: Vec<&Suppressed> = snap.suppressed().iter().filter(|s| reported(&s.diagnostic)).collect();
    summary.suppressed = suppressed.len();
    let shown_suppressed: &[&Suppressed] = if args.show_suppressed { &suppressed } else { &[] };
    let mut out = std::io::stdout().lock();
    let text = match args.format {
        CheckFormat::Human => {
            human::render(snap, &diags, shown_suppressed, &summary, crate::style::Style::new(args.color))
        }
        CheckFormat::Json => json::render(snap, &diags, shown_suppressed, &summary),
        CheckFormat::Sarif => sarif::render(snap, &diags, &suppressed),
    };
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    if args.common.stats {
        eprintln!(
            "stats: load+parse {:.1} ms{}, analysis {:.1} ms (world {:.1}, effective {:.1}, diagnostics {:.1}){}, total {:.1} ms, peak RSS {} KiB",
            load_ms,
            of_it_cluster,
            analysis_ms,
            world_ms,
            effective_ms,
            analysis_ms - world_ms - effective_ms,
            cluster_alone_ms.map_or(String::new(), |ms| format!(", the cluster alone beside it {ms:.1} ms")),
            start.elapsed().as_secs_f64() * 1000.0,
            crate::load::peak_rss_kib().map_or("?".into(), |k| k.to_string())
        );
        #[cfg(feature = "heap-stats")]
        eprintln!(
            "stats: heap live after files {}, +world {}, +effective {} ({} blocks), +diagnostics {}; heap peak {}",
            crate::heap::mib(heap_files),
            crate::heap::mib(heap_world.saturating_sub(heap_files)),
            crate::heap::mib(heap_effective.saturating_sub(heap_world)),
            blocks_effective,
            crate::heap::mib(heap_diags.saturating_sub(heap_effective)),
            crate::heap::mib(crate::heap::peak()),
        );
    }
    let fails = |s: Severity| match args.fail_on {
        FailOn::Error => s == Severity::Error,
        FailOn::Warning => s <= Severity::Warning,
        FailOn::Information => s <= Severity::Information,
    };
    let failed = diags.iter().any(|d| fails(d.severity));
    // The process ends with the report: freeing the files one by one first (10k of them from
    // a cluster, each with its text and objects) only delays the exit.
    drop(diags);
    std::mem::forget(reporting);
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The findings on the live cluster's objects of a world (the cluster alone): what files laid
/// over it do not cause.
fn cluster_findings(snap: &Snapshot) -> Findings {
    snap.diagnostics().values().flatten().map(|d| (d.file.clone(), d.code, d.message.clone())).collect()
}

/// A finding's object when it is one of the live cluster's: its §2.1 reference.
pub fn cluster_object(snap: &Snapshot, file: &str) -> Option<String> {
    policylens_core::analysis::diff::cluster_object(snap, file)
}

fn summary(snap: &Snapshot, elapsed_ms: f64) -> Summary {
    let world = snap.world();
    let files = || snap.files().filter(|f| f.origin != Origin::Cluster);
    Summary {
        files: files().count(),
        cluster_objects: snap.files().len() - files().count(),
        documents: files().map(|f| f.documents as usize).sum(),
        objects: world.object_count(),
        policies: world.policies.len(),
        suppressed: 0,
        skipped_templates: snap.files().map(|f| f.skipped_templates as usize).sum(),
        elapsed_ms,
    }
}
