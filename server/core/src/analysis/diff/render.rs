//! The report as text: `human` for the terminal and the editors' what-if document,
//! `markdown` for a pull-request comment.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::{FieldChange, Finding, Held, Report, StatusSummary};

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

/// A value in one line, as YAML's flow style writes it: `[500, 502, 503]`, `{timeout: 2s}`.
fn flow(v: &Value) -> String {
    match v {
        Value::String(s) if plain(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            format!("{{{}}}", m.iter().map(|(k, x)| format!("{k}: {}", flow(x))).collect::<Vec<_>>().join(", "))
        }
        other => other.to_string(),
    }
}

/// A string YAML reads back as the same string without quotes.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || "-_./:".contains(c))
        && !s.starts_with(['-', ':', '.'])
        && !matches!(s, "true" | "false" | "null" | "yes" | "no" | "on" | "off")
        && s.parse::<f64>().is_err()
}

/// A field's leaves in one line: `numRetries: 3, perRetry.timeout: 2s, retryOn.triggers:
/// [connect-failure]`; a scalar field as its value.
fn leaves(v: &Value) -> String {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, x) in m {
                    let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    walk(&p, x, out);
                }
            }
            other if prefix.is_empty() => out.push(flow(other)),
            other => out.push(format!("{prefix}: {}", flow(other))),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out.join(", ")
}

/// A JSON pointer under a top-level field, dotted from below it: `/retry/perRetry/timeout`
/// under `/retry` is `perRetry.timeout`.
fn below(field: &str, top: &str) -> String {
    let rest = field.strip_prefix(top).unwrap_or(field).trim_start_matches('/');
    if rest.is_empty() { top.trim_start_matches('/').to_owned() } else { rest.replace('/', ".") }
}

/// What a removed policy's fields were, where they stop applying, and what happens there
/// instead: a line per field, then who takes over and what is left unset.
fn gone_lines(g: &super::Gone) -> (String, Vec<String>) {
    let field = g.field.trim_start_matches('/');
    let head = format!("{field}: {}", leaves(&g.value));
    let mut lines = vec![format!("gone on {}: {}", g.reach, some_of(&g.targets))];
    for i in &g.instead {
        let there = if i.targets == g.targets { "there".to_owned() } else { format!("on {}", some_of(&i.targets)) };
        lines.push(format!("{} applies {there} instead: {}", short(&g.kind, &i.policy), leaves(&i.value)));
    }
    // Unset leaves with the same targets read as one line.
    let mut unset: Vec<(&[String], Vec<String>)> = Vec::new();
    for u in &g.unset {
        let name = below(&u.field, &g.field);
        match unset.iter_mut().find(|(t, _)| *t == u.targets.as_slice()) {
            Some((_, names)) => names.push(name),
            None => unset.push((&u.targets, vec![name])),
        }
    }
    for (targets, names) in unset {
        let there =
            if targets == g.targets.as_slice() { "there".to_owned() } else { format!("on {}", some_of(targets)) };
        if g.instead.is_empty() {
            // Nothing takes over anywhere: every leaf is unset where the field applied.
            lines.push(format!("nothing applies {there} instead"));
        } else {
            lines.push(format!("left unset {there}: {}", names.join(", ")));
        }
    }
    (head, lines)
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

/// Targets named in a line: up to three, then a count.
fn some_of(targets: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut s = targets.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if targets.len() > SHOWN {
        let _ = write!(s, " and {} more", targets.len() - SHOWN);
    }
    s
}

pub fn human(r: &Report) -> String {
    let mut out = format!("{} → {}: {}\n", r.base, r.head, headline(r));
    if !r.without.is_empty() {
        out.push_str("\nwhat stops applying\n");
        if r.gone.is_empty() {
            out.push_str("  nothing: no field of these policies is in effect anywhere\n");
        }
        let mut last = "";
        for g in &r.gone {
            if g.policy != last {
                let _ = writeln!(out, "  {}", g.policy);
                last = &g.policy;
            }
            let (head, lines) = gone_lines(g);
            let _ = writeln!(out, "    {head}");
            for l in lines {
                let _ = writeln!(out, "      {l}");
            }
        }
    }
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
pub fn markdown(r: &Report) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let title = if r.without.is_empty() { "what this change does" } else { "what removing it would do" };
    let mut out = format!("### policylens: {title}\n\n`{}` → `{}`: {}.\n", r.base, r.head, headline(r));
    if !r.without.is_empty() {
        out.push_str("\n#### What stops applying\n\n");
        if r.gone.is_empty() {
            out.push_str("Nothing: no field of these policies is in effect anywhere.\n");
        } else {
            out.push_str("| policy | field | where, and what instead |\n|---|---|---|\n");
        }
        for g in &r.gone {
            let (head, lines) = gone_lines(g);
            let _ = writeln!(out, "| `{}` | {} | {} |", g.policy, cell(&head), cell(&lines.join("; ")));
        }
    }
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

/// Fields changed per target, at most this many lines in a hover.
const HOVER_LINES: usize = 12;

/// An edit's report (`diff::edit`) as a hover paragraph: what the edit changes against the
/// saved file, field by field where it takes effect, then the statuses that change.
pub fn edit_markdown(r: &Report) -> String {
    let mut lines = Vec::new();
    for c in &r.effective {
        let field = c.field.trim_start_matches('/').replace('/', ".");
        lines.push(format!(
            "- `{}` `{field}`: {} → {}",
            c.target,
            held(&c.before, &c.kind, true),
            held(&c.after, &c.kind, true)
        ));
    }
    // Paths alike give the same line.
    lines.dedup();
    let total = lines.len();
    lines.truncate(HOVER_LINES);
    if total > HOVER_LINES {
        lines.push(format!("- … {} more", total - HOVER_LINES));
    }
    for s in &r.status {
        lines.push(format!("- `{}`: {} → {}", s.policy, status_text(&s.before), status_text(&s.after)));
    }
    format!("**This edit, against the saved file:**\n{}", lines.join("\n"))
}
