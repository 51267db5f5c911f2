//! `policylens diff BASE [HEAD]`: what applying a change would do. Each side is a world
//! loaded by the one loader (a directory, or `git:REV` read without a checkout) and analysed by
//! the unchanged engine; the report (core's `analysis::diff`) compares the effective policy of
//! every affected target, the status of every policy, and the diagnostics.
//! `policylens diff --without REF [PATH]`: the workspace against itself without some
//! policies, the what-if of deleting them.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use policylens_core::analysis::diff::{self, Report, Side, compare};
use policylens_core::workspace::{Origin, Snapshot, Workspace};

use crate::{Common, DiffArgs, DiffFormat};

/// One side of the comparison, loaded.
struct Loaded {
    label: String,
    snap: Snapshot,
}

/// Loads one side: a directory, `git:REV`, or `cluster` (the live cluster alone). A directory or
/// revision compared with `cluster` is laid over the cluster (`under`): that side is what
/// applying its files would make of the cluster.
fn load_side(spec: &str, cwd: &Path, under: Option<&policylens_cluster::Snapshot>) -> Result<Loaded, String> {
    let (label, mut ws) = if let Some(rev) = spec.strip_prefix("git:") {
        (spec.to_owned(), policylens_loader::load_git(cwd, rev)?.workspace)
    } else if spec == "cluster" {
        let c = under.ok_or("`cluster` needs the live cluster")?;
        return Ok(Loaded {
            label: format!("cluster {}", c.server),
            snap: over_cluster(Workspace::new(), c).snapshot(),
        });
    } else {
        let dir = PathBuf::from(spec);
        if !dir.is_dir() {
            return Err(format!("{spec}: not a directory, `git:REV` or `cluster`"));
        }
        let abs = policylens_loader::absolute(&dir, cwd);
        let req = policylens_loader::Request {
            paths: vec![abs.clone()],
            isolated: true,
            relative_to: Some(abs),
            allow_empty: true,
            ..Default::default()
        };
        (spec.to_owned(), policylens_loader::load(&req, &mut |_, _| {})?.workspace)
    };
    let label = match under {
        Some(c) => format!("{label} applied to cluster {}", c.server),
        None => label,
    };
    if let Some(c) = under {
        ws = over_cluster(ws, c);
    }
    Ok(Loaded { label, snap: ws.snapshot() })
}

/// The cluster's objects added under the workspace's files (a file's object replaces the
/// cluster's of the same identity).
fn over_cluster(mut ws: Workspace, c: &policylens_cluster::Snapshot) -> Workspace {
    ws.set_files_with_origin(c.objects.iter().map(|o| (o.path.clone(), o.text.clone())).collect(), Origin::Cluster);
    ws
}

pub fn run(args: DiffArgs) -> Result<ExitCode, String> {
    if !args.without.is_empty() || !args.without_file.is_empty() {
        return run_without(args);
    }
    if args.cluster || args.stats {
        return Err(
            "--cluster and --stats go with --without; compare with the cluster as a side: `diff cluster [HEAD]`".into(),
        );
    }
    let Some(base_spec) = args.base.clone() else {
        return Err("give BASE (a directory, `git:REV` or `cluster`), or --without REF".into());
    };
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let cluster = if base_spec == "cluster" || args.head.as_deref() == Some("cluster") {
        let opts = policylens_cluster::Options {
            kubeconfig: args.kubeconfig.clone(),
            context: args.kube_context.clone(),
            request_timeout: args.request_timeout,
        };
        let snap = policylens_cluster::read(&opts)?;
        for w in &snap.warnings {
            eprintln!("policylens: warning: cluster {}: {w}", snap.server);
        }
        Some(snap)
    } else {
        None
    };
    // The side that is not `cluster` is laid over it.
    let base = load_side(&base_spec, &cwd, cluster.as_ref())?;
    // The working tree by default: the repository's top directory when BASE is a revision,
    // so that both sides name files alike; else the current directory.
    let head_spec = match (&args.head, base_spec.starts_with("git:")) {
        (Some(h), _) => h.clone(),
        (None, true) => policylens_loader::git_top(&cwd)?.to_string_lossy().into_owned(),
        (None, false) => ".".to_owned(),
    };
    let mut head = load_side(&head_spec, &cwd, cluster.as_ref())?;
    if args.head.is_none() {
        head.label = match &cluster {
            Some(c) => format!("working tree applied to cluster {}", c.server),
            None => "working tree".into(),
        };
    }
    let report = compare(&Side::of(base.label, &base.snap), &Side::of(head.label, &head.snap), None);
    print(&report, args.format)
}

fn print(report: &Report, format: DiffFormat) -> Result<ExitCode, String> {
    let text = match format {
        DiffFormat::Json => serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n",
        DiffFormat::Markdown => diff::markdown(report),
        DiffFormat::Human => diff::human(report),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(if report.introduces_errors() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `diff --without REF... [PATH]`: the workspace PATH belongs to (with `--cluster`, laid over
/// the live cluster, or the cluster alone) against itself without those policies.
fn run_without(args: DiffArgs) -> Result<ExitCode, String> {
    if args.head.is_some() {
        return Err(
            "with --without, give at most one PATH (the workspace); the other side is it without the policies".into()
        );
    }
    let common = Common {
        paths: args.base.iter().map(PathBuf::from).collect(),
        config: None,
        isolated: false,
        context: Vec::new(),
        stdin_filename: None,
        cluster: args.cluster,
        kubeconfig: args.kubeconfig.clone(),
        kube_context: args.kube_context.clone(),
        request_timeout: args.request_timeout,
        stats: args.stats,
    };
    let loaded = crate::load::load(&common)?;
    let snap = &loaded.snapshot;
    let index_start = Instant::now();
    let _ = snap.diagnostics();
    let index_ms = index_start.elapsed().as_secs_f64() * 1000.0;
    let mut removed = match diff::resolve_policies(snap, &args.without) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("policylens: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    for f in &args.without_file {
        let shown = crate::load::shown(&policylens_loader::absolute(f, &std::env::current_dir().unwrap_or_default()));
        let world = snap.world();
        let in_file: Vec<_> = world.policies.iter().copied().filter(|&p| *world.file_of(p).path == *shown).collect();
        if in_file.is_empty() {
            eprintln!("policylens: {shown} defines no policy of the workspace");
            return Ok(ExitCode::from(2));
        }
        removed.extend(in_file);
    }
    removed.sort_unstable();
    removed.dedup();
    let label = match (args.base.as_deref(), args.cluster) {
        (None, true) => "the live cluster".to_owned(),
        (Some(p), true) => format!("{p} applied to the live cluster"),
        (Some(p), false) => p.to_owned(),
        (None, false) => "working tree".to_owned(),
    };
    let start = Instant::now();
    let what = diff::without(snap, &removed, &label);
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let code = print(&what.report, args.format)?;
    if args.stats {
        eprintln!(
            "stats: load+parse {:.1} ms, analysis {index_ms:.1} ms, what-if {ms:.1} ms ({} targets, {} contexts walked, {} statuses patched, {} kinds whole)",
            loaded.load_ms, what.targets, what.stats.contexts, what.stats.patched, what.stats.whole_kinds
        );
    }
    Ok(code)
}
