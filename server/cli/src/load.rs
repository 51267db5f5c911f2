//! Loads the workspace the CLI analyses: config lookup, directory walk, parallel parse.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use policylens_core::workspace::{Origin, Snapshot, Workspace};

use crate::Common;

pub struct Loaded {
    pub snapshot: Snapshot,
    pub load_ms: f64,
    /// Of `load_ms`, the time spent reading the cluster (`--cluster`), `None` without it.
    pub cluster_ms: Option<f64>,
    /// The files whose diagnostics are reported (`check FILE...`); `None`: all.
    pub report_only: Option<BTreeSet<String>>,
    /// With `--cluster` and files: the live cluster alone, to tell which findings on its
    /// objects the files cause (`None` when the cluster alone is the world, or without it).
    pub cluster_alone: Option<Workspace>,
}

/// A path as the loader shows it: relative to the current directory when below it.
pub fn shown(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    policylens_loader::show(p, Some(&cwd), &cwd)
}

/// Loads the world the PATHs belong to (the one loader the language server uses too); with
/// `--cluster`, the live cluster's objects under them. With `--cluster` and no PATH the
/// cluster alone is the world, as it is where the PATHs hold no YAML.
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
    let alone = common.cluster && common.paths.is_empty();
    let (mut workspace, report_only) = if alone {
        if !common.context.is_empty() {
            return Err("--context needs a PATH: with --cluster and no PATH the live cluster alone is analysed".into());
        }
        (config_only(common.config.as_deref(), &cwd)?, None)
    } else {
        let req = policylens_loader::Request {
            paths: common.paths.clone(),
            config: common.config.clone(),
            isolated: common.isolated,
            context: common.context.clone(),
            stdin,
            relative_to: Some(cwd),
            allow_empty: common.cluster,
            empty_hint: common.paths.is_empty().then(|| "to analyse the live cluster alone, add --cluster".to_owned()),
        };
        let loaded = policylens_loader::load(&req, &mut |_, _| {})?;
        for w in &loaded.warnings {
            eprintln!("policylens: warning: {w}");
        }
        (loaded.workspace, loaded.report_only)
    };
    let mut cluster_ms = None;
    let mut cluster_alone = None;
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
        let with_files = workspace.snapshot().files().len() > 0;
        workspace.set_files_with_origin(objects, Origin::Cluster);
        if with_files {
            cluster_alone = Some(workspace.only(Origin::Cluster));
        }
    }
    let snapshot = workspace.snapshot();
    Ok(Loaded { snapshot, load_ms: start.elapsed().as_secs_f64() * 1000.0, cluster_ms, report_only, cluster_alone })
}

/// The world of the cluster alone: no file, but `--config` (policy kinds, severities).
fn config_only(config: Option<&Path>, cwd: &Path) -> Result<Workspace, String> {
    let mut ws = Workspace::new();
    if let Some(p) = config {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let abs = policylens_loader::absolute(p, cwd);
        ws.set_config(Some(&shown(&abs)), &text);
        ws.set_config_dirs(abs.parent().map(Path::to_path_buf), Some(cwd.to_path_buf()));
    }
    Ok(ws)
}

/// Peak resident set size of this process (Linux `VmHWM`).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
