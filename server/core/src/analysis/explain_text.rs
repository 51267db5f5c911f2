//! The readable `policylens explain` report: per policy kind and path, the effective spec as
//! YAML with the policy and strategy behind every field, and the policies that lost. One text
//! for the terminal (the CLI paints its headings and notes) and the editors (plain, from the
//! language server's `policylens/explain` with `format: "text"`), so both show the same.

use std::fmt::Write as _;

use crate::effective::{Context, Explanation, IgnoredPolicy, KindExplanation, Loss};

/// How headings and notes are emphasised: terminal colours in the CLI, nothing in editors.
pub trait Paint {
    fn bold(&self, s: &str) -> String;
    fn dim(&self, s: &str) -> String;
}

/// No emphasis.
pub struct Plain;

impl Paint for Plain {
    fn bold(&self, s: &str) -> String {
        s.to_owned()
    }
    fn dim(&self, s: &str) -> String {
        s.to_owned()
    }
}

/// Lines of the report stay within this many characters where they can (a value, a loss's
/// reason); names and paths are never cut.
const WIDTH: usize = 100;

pub fn render(ex: &Explanation, st: &dyn Paint) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", st.bold(&ex.target));
    if let Some(a) = &ex.applied_by {
        let _ = writeln!(out, "{}", st.dim(&format!("applied by {a}")));
    }
    let own = !ex.policies.is_empty() || !ex.ports.is_empty();
    match (own, ex.traffic.is_empty()) {
        (false, true) => {
            let _ = writeln!(out, "\nno policy reaches it");
        }
        (false, false) => {
            let _ = writeln!(out, "\nno policy is in effect at it; the routes that send it traffic carry these:");
        }
        _ => {}
    }
    kinds(&mut out, &ex.policies, &ex.ignored, st);
    for p in &ex.ports {
        let _ = writeln!(out, "\n{}", st.bold(&format!("port {}", p.target)));
        kinds(&mut out, &p.policies, &[], st);
    }
    if !ex.traffic.is_empty() && own {
        let _ = writeln!(out, "\n{}", st.dim("traffic to it, by the routes that send it:"));
    }
    for t in &ex.traffic {
        let _ = writeln!(out, "\n{}", st.bold(&format!("from {}", t.from)));
        kinds(&mut out, &t.policies, &t.ignored, st);
    }
    if ex.truncated {
        let _ = writeln!(out, "\n(more paths exist than the path limit; some are not shown)");
    }
    out
}

/// Each kind with its contexts, then the policies their controllers leave alone.
fn kinds(out: &mut String, policies: &[KindExplanation], ignored: &[IgnoredPolicy], st: &dyn Paint) {
    for k in policies {
        let _ = writeln!(out, "\n{}", st.bold(&k.kind));
        // Under its kind's heading a policy is `namespace/name`, as in the hover.
        let short = |label: &str| k.short(label).to_owned();
        for c in &k.contexts {
            render_context(out, c, &short, st);
        }
    }
    for i in ignored {
        let _ = writeln!(out, "\n{} {}: {}", st.bold(&i.policy), st.dim("(not enforced)"), i.message);
    }
}

fn render_context(out: &mut String, c: &Context, short: &dyn Fn(&str) -> String, st: &dyn Paint) {
    for line in wrap_path(&fold_sections(&c.path)) {
        let _ = writeln!(out, "  {}", st.dim(&line));
    }
    if c.provenance.is_empty() {
        let _ = writeln!(out, "    {}", st.dim("(empty)"));
    }
    // The hover's renderer: one YAML for the editor and the terminal.
    let lines: Vec<(String, Option<String>)> =
        super::yaml::lines_within(&c.effective, WIDTH - 4, &|p| annotation(c, p, short))
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
        "younger-wins" => {
            "defaults on the same target: the older dictates the strategy, so the younger policy's values win"
        }
        "target-value" => "the target sets these fields itself",
        _ => "superseded",
    }
}
