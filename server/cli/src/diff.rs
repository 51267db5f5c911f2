//! `policylens diff BASE [HEAD]`: what applying a change would do. Each side is a world
//! loaded by the one loader (a directory, or `git:REV` read without a checkout) and analysed by
//! the unchanged engine; the report compares the effective policy of every affected target, the
//! status of every policy, and the diagnostics.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use policylens_core::effective::{PolicyStatusReport, explain};
use policylens_core::model::{ObjectKey, is_core_kind};
use policylens_core::syntax::PositionEncoding;
use policylens_core::topology::PathLimit;
use policylens_core::workspace::{Origin, Snapshot, Workspace};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::{DiffArgs, DiffFormat};

/// One side of the comparison.
struct Side {
    label: String,
    snap: Snapshot,
}

/// Loads one side: a directory, `git:REV`, or `cluster` (the live cluster alone). A directory or
/// revision compared with `cluster` is laid over the cluster (`under`): that side is what
/// applying its files would make of the cluster.
fn load_side(spec: &str, cwd: &Path, under: Option<&policylens_cluster::Snapshot>) -> Result<Side, String> {
    let (label, mut ws) = if let Some(rev) = spec.strip_prefix("git:") {
        (spec.to_owned(), policylens_loader::load_git(cwd, rev)?.workspace)
    } else if spec == "cluster" {
        let c = under.ok_or("`cluster` needs the live cluster")?;
        return Ok(Side { label: format!("cluster {}", c.server), snap: over_cluster(Workspace::new(), c).snapshot() });
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
    Ok(Side { label, snap: ws.snapshot() })
}

/// The cluster's objects added under the workspace's files (a file's object replaces the
/// cluster's of the same identity).
fn over_cluster(mut ws: Workspace, c: &policylens_cluster::Snapshot) -> Workspace {
    ws.set_files_with_origin(c.objects.iter().map(|o| (o.path.clone(), o.text.clone())).collect(), Origin::Cluster);
    ws
}

/// A field of an effective policy as one side has it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Held {
    value: Value,
    policy: String,
    strategy: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct FieldChange {
    target: String,
    kind: String,
    path: Vec<String>,
    /// JSON pointer into the effective policy.
    field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<Held>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<Held>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct StatusSummary {
    accepted: bool,
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    enforcement: Option<String>,
    affects: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusChange {
    policy: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<StatusSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<StatusSummary>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct Finding {
    file: String,
    /// 1-based.
    line: u32,
    severity: String,
    code: String,
    message: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Report {
    base: String,
    head: String,
    effective: Vec<FieldChange>,
    status: Vec<StatusChange>,
    introduced: Vec<Finding>,
    fixed: Vec<Finding>,
}

pub fn run(args: DiffArgs) -> Result<ExitCode, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let cluster = if args.base == "cluster" || args.head.as_deref() == Some("cluster") {
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
    let base = load_side(&args.base, &cwd, cluster.as_ref())?;
    // The working tree by default: the repository's top directory when BASE is a revision,
    // so that both sides name files alike; else the current directory.
    let head_spec = match (&args.head, args.base.starts_with("git:")) {
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
    let report = compare(&base, &head);
    let text = match args.format {
        DiffFormat::Json => serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n",
        DiffFormat::Markdown => markdown(&report),
        DiffFormat::Human => human(&report),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    let introduces_errors = report.introduced.iter().any(|f| f.severity == "error");
    Ok(if introduces_errors { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn compare(base: &Side, head: &Side) -> Report {
    let (sb, sh) = (statuses(&base.snap), statuses(&head.snap));
    let mut status = Vec::new();
    for key in sb.keys().chain(sh.keys()).collect::<BTreeSet<_>>() {
        let (b, h) = (sb.get(key).map(summary), sh.get(key).map(summary));
        if b != h {
            status.push(StatusChange { policy: key.clone(), before: b, after: h });
        }
    }
    // Every target some policy affects on either side.
    let targets: BTreeSet<String> = sb.values().chain(sh.values()).flat_map(|p| p.affects.iter().cloned()).collect();
    let mut effective = Vec::new();
    for t in &targets {
        let (fb, fh) = (fields(&base.snap, t), fields(&head.snap, t));
        for k in fb.keys().chain(fh.keys()).collect::<BTreeSet<_>>() {
            let (b, h) = (fb.get(k).cloned(), fh.get(k).cloned());
            if b != h {
                let (kind, path, field) = k.clone();
                effective.push(FieldChange { target: t.clone(), kind, path, field, before: b, after: h });
            }
        }
    }
    let (db, dh) = (findings(&base.snap), findings(&head.snap));
    // Lines move with edits: a finding is the same when file, code and message are.
    let same = |a: &Finding, b: &Finding| a.file == b.file && a.code == b.code && a.message == b.message;
    let introduced = dh.iter().filter(|h| !db.iter().any(|b| same(b, h))).cloned().collect();
    let fixed = db.iter().filter(|b| !dh.iter().any(|h| same(b, h))).cloned().collect();
    Report { base: base.label.clone(), head: head.label.clone(), effective, status, introduced, fixed }
}

/// Policy statuses by reference (and file, where a policy is defined in several files).
fn statuses(snap: &Snapshot) -> BTreeMap<String, PolicyStatusReport> {
    // Every policy, the cluster's too: with `cluster` as a side they are the subject.
    let report = snap.effective().report_every(snap.world());
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for p in &report.policies {
        *count.entry(p.policy.clone()).or_default() += 1;
    }
    report
        .policies
        .into_iter()
        .map(|p| {
            let key = if count[&p.policy] > 1 { format!("{} ({})", p.policy, p.file) } else { p.policy.clone() };
            (key, p)
        })
        .collect()
}

fn summary(p: &PolicyStatusReport) -> StatusSummary {
    StatusSummary {
        accepted: p.accepted.status,
        reason: format!("{:?}", p.accepted.reason),
        enforcement: p.enforcement.map(|e| format!("{e:?}")),
        affects: p.affects.len(),
    }
}

type FieldKey = (String, Vec<String>, String);

/// Every leaf of the effective policies at `target`: (kind, path, field) → value and winner.
fn fields(snap: &Snapshot, target: &str) -> BTreeMap<FieldKey, Held> {
    let mut out = BTreeMap::new();
    let world = snap.world();
    let Some(key) = ObjectKey::parse(target, is_core_kind) else { return out };
    let Some(node) = world.topology.find(world, &key) else { return out };
    let ex = explain(world, snap.effective(), node, PathLimit::default());
    for k in ex.policies {
        for c in k.contexts {
            for p in &c.provenance {
                let value = c.effective.pointer(&p.field).cloned().unwrap_or(Value::Null);
                let strategy = serde_json::to_value(p.strategy).ok().and_then(|v| v.as_str().map(str::to_owned));
                let held = Held {
                    value,
                    policy: p.policy.clone(),
                    strategy: strategy.unwrap_or_else(|| format!("{:?}", p.strategy)),
                };
                out.insert((k.kind.clone(), c.path.clone(), p.field.clone()), held);
            }
        }
    }
    out
}

fn findings(snap: &Snapshot) -> Vec<Finding> {
    let mut out = Vec::new();
    for (file, diags) in snap.diagnostics() {
        let Some(f) = snap.source(file) else { continue };
        for d in diags {
            out.push(Finding {
                file: file.to_string(),
                line: f.position(d.span.start, PositionEncoding::Utf16).line + 1,
                severity: d.severity.as_str().to_owned(),
                code: d.code.as_str().to_owned(),
                message: d.message.clone(),
            });
        }
    }
    out.sort();
    out
}

fn value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn held(h: &Option<Held>) -> String {
    match h {
        Some(h) => format!("{} ({})", value(&h.value), h.policy),
        None => "(unset)".to_owned(),
    }
}

/// The same in Markdown: the value as code.
fn held_md(h: &Option<Held>) -> String {
    match h {
        Some(h) => format!("`{}` ({})", value(&h.value).replace('`', "'"), h.policy),
        None => "(unset)".to_owned(),
    }
}

fn status_text(s: &Option<StatusSummary>) -> String {
    match s {
        None => "(absent)".into(),
        Some(s) if !s.accepted => format!("not accepted: {}", s.reason),
        Some(s) => format!("{}, affects {}", s.enforcement.as_deref().unwrap_or("Accepted"), s.affects),
    }
}

fn headline(r: &Report) -> String {
    let targets: BTreeSet<&str> = r.effective.iter().map(|c| c.target.as_str()).collect();
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "{} change, {} change status, {} introduced, {} fixed",
        plural(targets.len(), "target's effective policy", "targets' effective policies"),
        plural(r.status.len(), "policy", "policies"),
        plural(r.introduced.len(), "finding", "findings"),
        plural(r.fixed.len(), "finding", "findings"),
    )
}

fn human(r: &Report) -> String {
    let mut out = format!("{} → {}: {}\n", r.base, r.head, headline(r));
    let mut last = "";
    for c in &r.effective {
        if c.target != last {
            let _ = writeln!(out, "\n{}", c.target);
            last = &c.target;
        }
        let field = c.field.trim_start_matches('/').replace('/', ".");
        let _ = writeln!(out, "  {} {field}: {} → {}", c.kind, held(&c.before), held(&c.after));
    }
    if !r.status.is_empty() {
        let _ = writeln!(out, "\npolicy status");
        for s in &r.status {
            let _ = writeln!(out, "  {}: {} → {}", s.policy, status_text(&s.before), status_text(&s.after));
        }
    }
    for (title, list) in [("introduced", &r.introduced), ("fixed", &r.fixed)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title}");
            for f in list {
                let _ = writeln!(out, "  {}:{}: {}[{}]: {}", f.file, f.line, f.severity, f.code, f.message);
            }
        }
    }
    out
}

/// Written to be posted as a pull-request comment.
fn markdown(r: &Report) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = format!("### policylens: what this change does\n\n`{}` → `{}`: {}.\n", r.base, r.head, headline(r));
    if !r.effective.is_empty() {
        out.push_str(
            "\n#### Effective policies\n\n| target | policy kind | field | before | after |\n|---|---|---|---|---|\n",
        );
        for c in &r.effective {
            let field = c.field.trim_start_matches('/').replace('/', ".");
            let _ = writeln!(
                out,
                "| `{}` | {} | `{field}` | {} | {} |",
                c.target,
                c.kind,
                cell(&held_md(&c.before)),
                cell(&held_md(&c.after))
            );
        }
    }
    if !r.status.is_empty() {
        out.push_str("\n#### Policy status\n\n| policy | before | after |\n|---|---|---|\n");
        for s in &r.status {
            let _ = writeln!(out, "| `{}` | {} | {} |", s.policy, status_text(&s.before), status_text(&s.after));
        }
    }
    for (title, mark, list) in [("Introduced", "➕", &r.introduced), ("Fixed", "✔", &r.fixed)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n#### {title}\n");
            for f in list {
                let _ = writeln!(
                    out,
                    "- {mark} **{}** `{}` `{}:{}`: {}",
                    f.severity,
                    f.code,
                    f.file,
                    f.line,
                    cell(&f.message)
                );
            }
        }
    }
    out
}
