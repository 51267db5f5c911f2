//! `policylens check`: every diagnostic of the workspace, as text, JSON or SARIF.

mod human;
pub(crate) mod json;
mod sarif;

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use policylens_core::analysis::diagnostics::{Diagnostic, Severity, Suppressed};
use policylens_core::workspace::Snapshot;

use crate::{CheckArgs, CheckFormat, FailOn, load};

/// Counts the summary reports.
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub policies: usize,
    /// Diagnostics that ignore comments silenced (in the reported files).
    pub suppressed: usize,
    /// Template documents that could not be read around their actions.
    pub skipped_templates: usize,
    pub elapsed_ms: f64,
}

pub fn run(args: CheckArgs) -> Result<ExitCode, String> {
    let start = Instant::now();
    let loaded = load::load(&args.common)?;
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
    let snap = &loaded.snapshot.without_analysis();
    drop(loaded);
    // `check FILE...` analyses the FILE's workspace but reports on the FILEs only.
    let reported = |file: &str| report_only.as_ref().is_none_or(|only| only.contains(file));
    let diags: Vec<&Diagnostic> = snap.diagnostics().values().flatten().filter(|d| reported(&d.file)).collect();
    let suppressed: Vec<&Suppressed> = snap.suppressed().iter().filter(|s| reported(&s.diagnostic.file)).collect();
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
            "stats: load+parse {:.1} ms{}, analysis {:.1} ms (world {:.1}, effective {:.1}, diagnostics {:.1}), total {:.1} ms, peak RSS {} KiB",
            load_ms,
            of_it_cluster,
            analysis_ms,
            world_ms,
            effective_ms,
            analysis_ms - world_ms - effective_ms,
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
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn summary(snap: &Snapshot, elapsed_ms: f64) -> Summary {
    let world = snap.world();
    Summary {
        files: snap.files().len(),
        documents: snap.files().map(|f| f.documents as usize).sum(),
        objects: world.object_count(),
        policies: world.policies.len(),
        suppressed: 0,
        skipped_templates: snap.files().map(|f| f.skipped_templates as usize).sum(),
        elapsed_ms,
    }
}
