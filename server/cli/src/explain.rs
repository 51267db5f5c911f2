//! `policylens explain --target REF`: the effective policies at a target, per path, with the
//! policy and strategy behind every field, and the policies that lost.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use policylens_core::effective::{Context, Explanation, Loss, explain};
use policylens_core::topology::{NodeId, PathLimit, TargetError};
use serde_json::Value;

use crate::style::Style;
use crate::{ExplainArgs, ReportFormat, load};

pub fn run(args: ExplainArgs) -> Result<ExitCode, String> {
    let loaded = load::load(&args.common)?;
    let snap = &loaded.snapshot;
    let world = snap.world();
    let node = match world.topology.resolve_target(world, &args.target) {
        Ok(node) => node,
        Err(TargetError::Malformed) => {
            eprintln!("policylens: `{}` {}", args.target, TargetError::Malformed);
            return Ok(ExitCode::from(2));
        }
        Err(e) => {
            eprintln!("policylens: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    // A target defined in several files is explained per definition (`--file` picks one).
    let mut nodes = instance_nodes(world, node);
    // `explain PATH` explains the definitions under PATH when the target has some there.
    if let Some(only) = &loaded.report_only
        && nodes.iter().any(|(file, _)| only.contains(file))
    {
        nodes.retain(|(file, _)| only.contains(file));
    }
    if let Some(f) = &args.file {
        let want = crate::load::shown(f);
        nodes.retain(|(file, _)| *file == want);
        if nodes.is_empty() {
            eprintln!("policylens: `{}` is not defined in {want}", args.target);
            return Ok(ExitCode::from(2));
        }
    }
    let index_start = Instant::now();
    let index = snap.effective();
    let index_ms = index_start.elapsed().as_secs_f64() * 1000.0;
    let start = Instant::now();
    let explained: Vec<(String, Explanation)> =
        nodes.into_iter().map(|(file, n)| (file, explain(world, index, n, PathLimit::default()))).collect();
    let explain_ms = start.elapsed().as_secs_f64() * 1000.0;
    let several = explained.len() > 1;
    let text = match args.format {
        ReportFormat::Json => {
            let with_file = |(file, ex): &(String, Explanation)| -> Result<Value, String> {
                let mut v = serde_json::to_value(ex).map_err(|e| e.to_string())?;
                if let Value::Object(m) = &mut v
                    && several
                {
                    m.insert("file".into(), Value::String(file.clone()));
                }
                Ok(v)
            };
            let v = if several {
                serde_json::json!({"instances": explained.iter().map(with_file).collect::<Result<Vec<_>, _>>()?})
            } else {
                explained.first().map(with_file).transpose()?.unwrap_or(Value::Null)
            };
            let mut s = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
            s.push('\n');
            s
        }
        ReportFormat::Human => {
            let st = Style::new(args.color);
            let mut out = String::new();
            for (file, ex) in &explained {
                if several {
                    let _ = writeln!(out, "{}", st.dim(&format!("── defined in {file} ──")));
                }
                out.push_str(&render(ex, st));
                if several {
                    out.push('\n');
                }
            }
            out
        }
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    if args.common.stats {
        eprintln!("stats: load+parse {:.1} ms, index {:.1} ms, explain {:.2} ms", loaded.load_ms, index_ms, explain_ms);
    }
    Ok(ExitCode::SUCCESS)
}

/// The node of every definition of the target's object (the same section of each), labelled
/// by file; virtual and namespace targets have one, unlabelled.
fn instance_nodes(world: &policylens_core::topology::Linked, node: NodeId) -> Vec<(String, NodeId)> {
    let t = &world.topology;
    let Some(obj) = t.node_object(node) else { return vec![(String::new(), node)] };
    let section = t.node_key(world, node).section;
    world
        .instances(obj)
        .into_iter()
        .filter_map(|o| {
            let n = match &section {
                Some(s) => t.section_node(world, o, s)?,
                None => t.object_node(o),
            };
            Some((world.file_of(o).path.to_string(), n))
        })
        .collect()
}

/// Lines of the report stay within this many characters where they can (a value, a loss's
/// reason); names and paths are never cut.
const WIDTH: usize = 100;

pub fn render(ex: &Explanation, st: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", st.bold(&ex.target));
    if ex.policies.is_empty() {
        let _ = writeln!(out, "\nno policy reaches it");
    }
    for k in &ex.policies {
        let _ = writeln!(out, "\n{}", st.bold(&k.kind));
        // Under its kind's heading a policy is `namespace/name`, as in the hover.
        let short = |label: &str| k.short(label).to_owned();
        for c in &k.contexts {
            render_context(&mut out, c, &short, st);
        }
    }
    if ex.truncated {
        let _ = writeln!(out, "\n(more paths exist than the path limit; some are not shown)");
    }
    out
}

fn render_context(out: &mut String, c: &Context, short: &dyn Fn(&str) -> String, st: Style) {
    for line in wrap_path(&fold_sections(&c.path)) {
        let _ = writeln!(out, "  {}", st.dim(&line));
    }
    if c.provenance.is_empty() {
        let _ = writeln!(out, "    {}", st.dim("(empty)"));
    }
    // The hover's renderer: one YAML for the editor and the terminal.
    let lines: Vec<(String, Option<String>)> =
        policylens_core::analysis::yaml::lines_within(&c.effective, WIDTH - 4, &|p| annotation(c, p, short))
            .into_iter()
            .map(|(l, a)| (format!("    {l}"), a))
            .collect();
    // Notes line up after the values, unless a long value would push them all far right.
    let width = lines.iter().filter(|(_, a)| a.is_some()).map(|(l, _)| l.chars().count()).max().unwrap_or(0).min(50);
    for (l, a) in lines {
        match a {
            Some(a) => {
                let pad = width.saturating_sub(l.chars().count());
                let _ = writeln!(out, "{l}{}  {}", " ".repeat(pad), st.dim(&format!("# {a}")));
            }
            None => {
                let _ = writeln!(out, "{l}");
            }
        }
    }
    if !c.lost.is_empty() {
        let _ = writeln!(out, "    {}", st.dim("lost:"));
        for l in &c.lost {
            let (what, why) = loss_line(l, short);
            if 6 + what.chars().count() + 1 + why.chars().count() <= WIDTH {
                let _ = writeln!(out, "      {what} {why}");
            } else {
                let _ = writeln!(out, "      {what}\n        {why}");
            }
        }
    }
}

/// A path with each section folded into its object (`Gateway/infra/edge#https` stands for
/// `Gateway/infra/edge > Gateway/infra/edge#https`): the same hops, half the width.
fn fold_sections(path: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::with_capacity(path.len());
    for hop in path {
        if let Some((object, _)) = hop.split_once('#')
            && out.last() == Some(&object)
        {
            out.pop();
        }
        out.push(hop);
    }
    out
}

/// `path: A > B > C`, broken before a `>` where the line would pass the width.
fn wrap_path(hops: &[&str]) -> Vec<String> {
    let mut lines = vec![String::from("path:")];
    for (i, hop) in hops.iter().enumerate() {
        let sep = if i == 0 { " " } else { " > " };
        let Some(line) = lines.last_mut() else { break };
        if i > 0 && 2 + line.chars().count() + sep.chars().count() + hop.chars().count() > WIDTH {
            lines.push(format!("    > {hop}"));
        } else {
            line.push_str(sep);
            line.push_str(hop);
        }
    }
    lines
}

fn annotation(c: &Context, pointer: &str, short: &dyn Fn(&str) -> String) -> Option<String> {
    let p = c.provenance.iter().find(|p| p.field == pointer)?;
    Some(if p.from_target {
        format!("{} (its own value; the most specific default)", p.policy)
    } else {
        format!("{} · {}", short(&p.policy), p.strategy.as_str())
    })
}

/// What happened to a losing policy, and why, for one line or two.
fn loss_line(l: &Loss, short: &dyn Fn(&str) -> String) -> (String, String) {
    let what = match l.outcome {
        "Conflicted" => "conflicted with",
        "Overridden" => "overridden by",
        _ => "partly superseded by",
    };
    let by: Vec<String> = l.by.iter().map(|b| short(b)).collect();
    let why: Vec<&str> = l.because.iter().map(|b| because_text(b)).collect();
    (format!("{}: {what} {}", short(&l.policy), by.join(", ")), format!("({})", why.join("; ")))
}

fn because_text(code: &str) -> &'static str {
    match code {
        "conflict" => "None strategy: on the same target the older policy wins and the other is rejected",
        "replaced" => "atomic defaults: a more specific policy replaced the whole spec",
        "overridden" => "atomic overrides: a less specific policy wins whole",
        "section-wins" => "a policy on the section beats the one on the whole object",
        "patched" => "a more specific or overriding policy set these fields",
        "protected" => "an override above holds these fields",
        "older-wins" => "on the same target the older policy (then the first by name) holds these fields",
        "target-value" => "the target sets these fields itself",
        _ => "superseded",
    }
}
