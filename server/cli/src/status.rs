//! `policylens status`: the computed status of every policy, as a controller would report it.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use policylens_core::effective::{Enforcement, PolicyStatusReport, Reason, StatusReport};

use crate::style::Style;
use crate::{ReportFormat, StatusArgs, load};

pub fn run(args: StatusArgs) -> Result<ExitCode, String> {
    let loaded = load::load(&args.common)?;
    let snap = &loaded.snapshot;
    let world = snap.world();
    let start = Instant::now();
    let index = snap.effective();
    let mut report = index.report(world);
    // `status PATH` analyses PATH's workspace and lists the policies under PATH, and every
    // policy of the live cluster (`--cluster`; a file's policy replaces the cluster's own).
    if let Some(only) = &loaded.report_only {
        report.policies.retain(|p| p.file.as_ref().is_none_or(|f| only.contains(f)));
    }
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let text = match args.format {
        ReportFormat::Json => {
            let mut s = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
            s.push('\n');
            s
        }
        ReportFormat::Human => render(&report, Style::new(args.color)),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    if args.common.stats {
        let s = index.stats;
        eprintln!(
            "stats: load+parse {:.1} ms, status {:.1} ms ({} effective targets, {} contexts, {} folds)",
            loaded.load_ms, ms, s.targets, s.contexts, s.folds
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn render(r: &StatusReport, st: Style) -> String {
    let mut out = String::new();
    // One row per policy: policy, where, accepted (or why not), enforcement, how much it
    // affects; then, indented, who supersedes it and why it is not accepted, in words.
    let rows: Vec<[String; 5]> = r
        .policies
        .iter()
        .map(|p| {
            let accepted = match p.accepted.reason {
                Reason::Accepted => "Accepted".to_owned(),
                other => format!("Not accepted: {other:?}"),
            };
            let enforcement = match p.enforcement {
                Some(Enforcement::Enforced) => "Enforced",
                Some(Enforcement::PartiallyEnforced) => "PartiallyEnforced",
                Some(Enforcement::Overridden) => "Overridden",
                Some(Enforcement::NotEnforced) => "NotEnforced",
                Some(Enforcement::Unknown) => "Unknown",
                None => "-",
            };
            let affects = if p.accepted.status { p.affects.len().to_string() } else { String::new() };
            let at = match (&p.file, &p.range) {
                (Some(f), Some(r)) => format!("{f}:{}", r.start.line + 1),
                (Some(f), None) => f.clone(),
                (None, _) => "cluster".to_owned(),
            };
            [p.policy.clone(), at, accepted, enforcement.to_owned(), affects]
        })
        .collect();
    let header = ["POLICY", "DEFINED AT", "ACCEPTED", "ENFORCEMENT", "AFFECTS"].map(str::to_owned);
    let mut widths = [0usize; 5];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())));
    if !rows.is_empty() {
        let cells: Vec<String> = header.iter().zip(widths).map(|(h, w)| pad(h, w)).collect();
        let _ = writeln!(out, "{}", st.dim(cells.join("  ").trim_end()));
    }
    for (p, row) in r.policies.iter().zip(&rows) {
        let accepted = if p.accepted.status {
            st.severity("information", &pad(&row[2], widths[2]))
        } else {
            st.severity("error", &pad(&row[2], widths[2]))
        };
        let enforcement = match p.enforcement {
            Some(Enforcement::Enforced) => st.severity("information", &pad(&row[3], widths[3])),
            Some(_) => st.severity("warning", &pad(&row[3], widths[3])),
            None => pad(&row[3], widths[3]),
        };
        let line = format!(
            "{}  {}  {accepted}  {enforcement}  {}",
            st.bold(&pad(&row[0], widths[0])),
            st.dim(&pad(&row[1], widths[1])),
            row[4]
        );
        let _ = writeln!(out, "{}", line.trim_end());
        if let Some(why) = &p.accepted.message {
            let _ = writeln!(out, "    why: {why}");
        }
        if let Some(ignored) = &p.ignored {
            let _ = writeln!(out, "    not enforced: {}", ignored.message);
        }
        for u in &p.unknown {
            let _ = writeln!(out, "    effect unknown on {}: {}", u.reference, u.message);
        }
        if !p.superseded_by.is_empty() {
            let _ = writeln!(out, "    superseded by: {}", p.superseded_by.join(", "));
        }
        for line in reported_lines(p) {
            let _ = writeln!(out, "    {line}");
        }
    }
    let count = |f: &dyn Fn(&PolicyStatusReport) -> bool| r.policies.iter().filter(|p| f(p)).count();
    let _ = writeln!(
        out,
        "\n{}: {} enforced, {} partially enforced, {} overridden, {}{} not accepted",
        if r.policies.len() == 1 { "1 policy".to_owned() } else { format!("{} policies", r.policies.len()) },
        count(&|p| p.enforcement == Some(Enforcement::Enforced)),
        count(&|p| p.enforcement == Some(Enforcement::PartiallyEnforced)),
        count(&|p| p.enforcement == Some(Enforcement::Overridden)),
        // Said only when some controller ignores a policy, so the usual line stays short.
        match count(&|p| p.enforcement == Some(Enforcement::NotEnforced)) {
            0 => String::new(),
            n => format!("{n} not enforced (unsupported by their controller), "),
        },
        count(&|p| !p.accepted.status),
    );
    let (disagree, stale) = (count(&|p| p.agrees == Some(false)), count(&|p| p.reported.iter().any(|a| a.stale)));
    if disagree + stale > 0 {
        let _ = writeln!(
            out,
            "live cluster: {} whose controllers report another Accepted, {} whose reported status is stale",
            if disagree == 1 { "1 policy".to_owned() } else { format!("{disagree} policies") },
            stale
        );
    }
    if r.truncated {
        let _ = writeln!(out, "(some targets had more paths than the path limit; their status counts the first ones)");
    }
    out
}

/// What the live cluster's controllers say of a policy, when it is worth a line: a stale
/// status (written for an older spec, not compared) or one that disagrees with the computed.
fn reported_lines(p: &PolicyStatusReport) -> Vec<String> {
    let mut out = Vec::new();
    for a in &p.reported {
        let Some(c) = a.conditions.iter().find(|c| c.type_ == "Accepted") else { continue };
        let said =
            if c.status == "True" { "Accepted".to_owned() } else { format!("Accepted={} ({})", c.status, c.reason) };
        if a.stale {
            let seen = c.observed_generation.map_or(String::new(), |g| format!(" (generation {g})"));
            let now = p
                .cluster
                .as_ref()
                .and_then(|s| s.generation)
                .map_or(String::new(), |g| format!("; the spec is at generation {g}"));
            out.push(format!(
                "stale: controller `{}` says {said} for `{}` of an older spec{seen}{now}",
                a.controller, a.ancestor
            ));
        } else if (c.status == "True") != p.accepted.status {
            out.push(format!("disagrees: controller `{}` says {said} for `{}`", a.controller, a.ancestor));
        }
    }
    out
}
