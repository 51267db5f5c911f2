//! `policylens status`: the computed status of every policy, as a controller would report it.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use policylens_core::effective::{Enforcement, Reason, StatusReport};

use crate::style::Style;
use crate::{ReportFormat, StatusArgs, load};

pub fn run(args: StatusArgs) -> Result<ExitCode, String> {
    let loaded = load::load(&args.common)?;
    let snap = &loaded.snapshot;
    let world = snap.world();
    let start = Instant::now();
    let index = snap.effective();
    let report = index.report(world);
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
    for p in &r.policies {
        let accepted = match p.accepted.reason {
            Reason::Accepted => st.severity("information", "Accepted"),
            other => st.severity("error", &format!("Not accepted ({other:?})")),
        };
        let enforcement = match p.enforcement {
            Some(Enforcement::Enforced) => format!("  {}", st.severity("information", "Enforced")),
            Some(Enforcement::PartiallyEnforced) => format!("  {}", st.severity("warning", "PartiallyEnforced")),
            Some(Enforcement::Overridden) => format!("  {}", st.severity("warning", "Overridden")),
            None => String::new(),
        };
        let _ = writeln!(out, "{}  {accepted}{enforcement}", st.bold(&p.policy));
        if !p.superseded_by.is_empty() {
            let _ = writeln!(out, "    superseded by: {}", p.superseded_by.join(", "));
        }
        if p.accepted.status {
            match p.affects.len() {
                0 => {
                    let _ = writeln!(out, "    affects: nothing");
                }
                n if n <= 8 => {
                    let _ = writeln!(out, "    affects: {}", p.affects.join(", "));
                }
                n => {
                    let _ = writeln!(out, "    affects {n} targets: {}, ...", p.affects[..5].join(", "));
                }
            }
        }
    }
    let count = |f: &dyn Fn(&policylens_core::effective::PolicyStatusReport) -> bool| {
        r.policies.iter().filter(|p| f(p)).count()
    };
    let _ = writeln!(
        out,
        "\n{} policies: {} enforced, {} partially enforced, {} overridden, {} not accepted",
        r.policies.len(),
        count(&|p| p.enforcement == Some(Enforcement::Enforced)),
        count(&|p| p.enforcement == Some(Enforcement::PartiallyEnforced)),
        count(&|p| p.enforcement == Some(Enforcement::Overridden)),
        count(&|p| !p.accepted.status),
    );
    if r.truncated {
        let _ = writeln!(out, "(some targets had more paths than the path limit; their status counts the first ones)");
    }
    out
}
