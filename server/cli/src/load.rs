//! Loads the workspace the CLI analyses: config lookup, directory walk, parallel parse.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use policylens_core::workspace::Snapshot;

use crate::Common;

pub struct Loaded {
    pub snapshot: Snapshot,
    pub load_ms: f64,
    /// Of `load_ms`, the time spent reading the cluster (`--cluster`), `None` without it.
    pub cluster_ms: Option<f64>,
    /// The files whose diagnostics are reported (`check FILE...`); `None`: all.
    pub report_only: Option<BTreeSet<String>>,
}

/// A path as the loader shows it: relative to the current directory when below it.
pub fn shown(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    policylens_loader::show(p, Some(&cwd), &cwd)
}

/// Loads the world the PATHs belong to (the one loader the language server uses too).
pub fn load(common: &Common) -> Result<Loaded, String> {
    let start = Instant::now();
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let stdin = if common.paths.iter().any(|p| p.as_os_str() == "-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("standard input: {e}"))?;
        let name = common.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("stdin.yaml"));
        Some((name, text))
    } else {
        if common.stdin_filename.is_some() {
            return Err("--stdin-filename needs `-` among the PATHs (the document comes from standard input)".into());
        }
        None
    };
    let req = policylens_loader::Request {
        paths: common.paths.clone(),
        config: common.config.clone(),
        isolated: common.isolated,
        context: common.context.clone(),
        stdin,
        relative_to: Some(cwd),
        allow_empty: false,
    };
    let mut loaded = policylens_loader::load(&req, &mut |_, _| {})?;
    for w in &loaded.warnings {
        eprintln!("policylens: warning: {w}");
    }
    let mut cluster_ms = None;
    if common.cluster {
        let cluster_start = Instant::now();
        let opts = policylens_cluster::Options {
            kubeconfig: common.kubeconfig.clone(),
            context: common.kube_context.clone(),
            request_timeout: common.request_timeout,
        };
        let snap = policylens_cluster::read(&opts)?;
        cluster_ms = Some(cluster_start.elapsed().as_secs_f64() * 1000.0);
        for w in &snap.warnings {
            eprintln!("policylens: warning: cluster {}: {w}", snap.server);
        }
        let objects = snap.objects.into_iter().map(|o| (o.path, o.text)).collect();
        loaded.workspace.set_files_with_origin(objects, policylens_core::workspace::Origin::Cluster);
    }
    let snapshot = loaded.workspace.snapshot();
    Ok(Loaded {
        snapshot,
        load_ms: start.elapsed().as_secs_f64() * 1000.0,
        cluster_ms,
        report_only: loaded.report_only,
    })
}

/// Peak resident set size of this process (Linux `VmHWM`).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
