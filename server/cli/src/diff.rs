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
    /// Defined only in the live cluster (on the side after, else the side before).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cluster: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<StatusSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<StatusSummary>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct Finding {
    /// `null` for a finding on an object of the live cluster, which `object` names.
    file: Option<String>,
    /// 1-based; absent with `file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    /// The live cluster's object the finding is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<String>,
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
            let cluster = sh.get(key).or(sb.get(key)).is_some_and(|p| p.file.is_none());
            status.push(StatusChange { policy: key.clone(), cluster, before: b, after: h });
        }
    }
    // What the change breaks in the live cluster comes first: its own policies that lose.
    status.sort_by_key(|s| !(s.cluster && loses(s)));
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
    // Lines move with edits: a finding is the same when file (or object), code and message are.
    let same = |a: &Finding, b: &Finding| {
        a.file == b.file && a.object == b.object && a.code == b.code && a.message == b.message
    };
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
            let key = match &p.file {
                Some(f) if count[&p.policy] > 1 => format!("{} ({f})", p.policy),
                None if count[&p.policy] > 1 => format!("{} (cluster)", p.policy),
                _ => p.policy.clone(),
            };
            (key, p)
        })
        .collect()
}

/// How much of a policy is in effect, worst first: not there, not accepted, overridden,
/// partially enforced, enforced.
fn rank(s: &Option<StatusSummary>) -> u8 {
    match s {
        None => 0,
        Some(s) if !s.accepted => 1,
        Some(s) => match s.enforcement.as_deref() {
            Some("Overridden") => 2,
            Some("PartiallyEnforced") => 3,
            _ => 4,
        },
    }
}

/// A policy the change leaves with less in effect (or none of it, or affecting fewer targets).
fn loses(s: &StatusChange) -> bool {
    let (b, a) = (rank(&s.before), rank(&s.after));
    a < b || (a == b && s.after.as_ref().map(|x| x.affects) < s.before.as_ref().map(|x| x.affects))
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
        // A finding on a live cluster's object is named by the object (`check` does the same).
        let object = crate::check::cluster_object(snap, file);
        for d in diags {
            out.push(Finding {
                file: object.is_none().then(|| file.to_string()),
                line: object.is_none().then(|| f.position(d.span.start, PositionEncoding::Utf16).line + 1),
                object: object.clone(),
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

/// `value (policy)`, the policy named short under its kind's heading (as `explain` does).
fn held(h: &Option<Held>, kind: &str, code: bool) -> String {
    match h {
        Some(h) if code => format!("`{}` ({})", value(&h.value).replace('`', "'"), short(kind, &h.policy)),
        Some(h) => format!("{} ({})", value(&h.value), short(kind, &h.policy)),
        None => "(unset)".to_owned(),
    }
}

/// `ns/name` for `Kind.group/ns/name` under the heading of `Kind.group`.
fn short<'a>(kind: &str, policy: &'a str) -> &'a str {
    policy.strip_prefix(kind).and_then(|r| r.strip_prefix('/')).unwrap_or(policy)
}

fn status_text(s: &Option<StatusSummary>) -> String {
    match s {
        None => "(absent)".into(),
        Some(s) if !s.accepted => format!("not accepted: {}", s.reason),
        Some(s) => format!("{}, affects {}", s.enforcement.as_deref().unwrap_or("Accepted"), s.affects),
    }
}

fn finding_at(f: &Finding) -> String {
    match (&f.file, f.line, &f.object) {
        (Some(file), Some(line), _) => format!("{file}:{line}"),
        (Some(file), None, _) => file.clone(),
        (None, _, Some(object)) => format!("cluster: {object}"),
        (None, _, None) => "cluster".to_owned(),
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

/// The changed fields of one target and kind, grouped by the paths they change on: paths with
/// the same changes share a group, so one field changing alike on two paths reads once, and
/// changing differently reads under each path.
struct PathGroup<'a> {
    paths: Vec<&'a [String]>,
    changes: Vec<&'a FieldChange>,
}

/// `(target, kind) → groups`, in the report's order.
fn grouped(r: &Report) -> Vec<(&str, &str, Vec<PathGroup<'_>>)> {
    let mut out: Vec<(&str, &str, Vec<PathGroup<'_>>)> = Vec::new();
    let mut i = 0;
    while i < r.effective.len() {
        let (target, kind) = (r.effective[i].target.as_str(), r.effective[i].kind.as_str());
        let mut by_path: Vec<(&[String], Vec<&FieldChange>)> = Vec::new();
        while i < r.effective.len() && r.effective[i].target == target && r.effective[i].kind == kind {
            let c = &r.effective[i];
            match by_path.iter_mut().find(|(p, _)| *p == c.path.as_slice()) {
                Some((_, v)) => v.push(c),
                None => by_path.push((c.path.as_slice(), vec![c])),
            }
            i += 1;
        }
        let same = |a: &[&FieldChange], b: &[&FieldChange]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| x.field == y.field && x.before == y.before && x.after == y.after)
        };
        let mut groups: Vec<PathGroup<'_>> = Vec::new();
        for (path, changes) in by_path {
            match groups.iter_mut().find(|g| same(&g.changes, &changes)) {
                Some(g) => g.paths.push(path),
                None => groups.push(PathGroup { paths: vec![path], changes }),
            }
        }
        out.push((target, kind, groups));
    }
    out
}

/// A path from its root, without the target it ends at (the heading names it).
fn via(path: &[String]) -> String {
    path[..path.len().saturating_sub(1)].join(" › ")
}

fn human(r: &Report) -> String {
    let mut out = format!("{} → {}: {}\n", r.base, r.head, headline(r));
    let mut last = "";
    for (target, kind, groups) in grouped(r) {
        if target != last {
            let _ = writeln!(out, "\n{target}");
            last = target;
        }
        let _ = writeln!(out, "  {kind}");
        let several = groups.len() > 1;
        for g in &groups {
            let mut indent = "    ";
            if several {
                let more = match g.paths.len() {
                    1 => String::new(),
                    n => format!(" (and {} more paths alike)", n - 1),
                };
                let _ = writeln!(out, "    via {}{more}", via(g.paths[0]));
                indent = "      ";
            }
            for c in &g.changes {
                let field = c.field.trim_start_matches('/').replace('/', ".");
                let _ = writeln!(
                    out,
                    "{indent}{field}: {} → {}",
                    held(&c.before, kind, false),
                    held(&c.after, kind, false)
                );
            }
        }
    }
    if !r.status.is_empty() {
        let _ = writeln!(out, "\npolicy status");
        for s in &r.status {
            let from = if s.cluster { " (cluster)" } else { "" };
            let _ = writeln!(out, "  {}{from}: {} → {}", s.policy, status_text(&s.before), status_text(&s.after));
        }
    }
    for (title, list) in [("introduced", &r.introduced), ("fixed", &r.fixed)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title}");
            for f in list {
                let _ = writeln!(out, "  {}: {}[{}]: {}", finding_at(f), f.severity, f.code, f.message);
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
        for (target, kind, groups) in grouped(r) {
            let several = groups.len() > 1;
            for g in &groups {
                // Where one target's paths change differently, each row says which path.
                let on = if several { format!(" via `{}`", via(g.paths[0])) } else { String::new() };
                for c in &g.changes {
                    let field = c.field.trim_start_matches('/').replace('/', ".");
                    let _ = writeln!(
                        out,
                        "| `{target}` | {kind} | `{field}`{} | {} | {} |",
                        cell(&on),
                        cell(&held(&c.before, kind, true)),
                        cell(&held(&c.after, kind, true))
                    );
                }
            }
        }
    }
    if !r.status.is_empty() {
        out.push_str("\n#### Policy status\n\n| policy | before | after |\n|---|---|---|\n");
        for s in &r.status {
            let from = if s.cluster { " (cluster)" } else { "" };
            let _ = writeln!(out, "| `{}`{from} | {} | {} |", s.policy, status_text(&s.before), status_text(&s.after));
        }
    }
    for (title, mark, list) in [("Introduced", "➕", &r.introduced), ("Fixed", "✔", &r.fixed)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n#### {title}\n");
            for f in list {
                let _ =
                    writeln!(out, "- {mark} **{}** `{}` `{}`: {}", f.severity, f.code, finding_at(f), cell(&f.message));
            }
        }
    }
    out
}
