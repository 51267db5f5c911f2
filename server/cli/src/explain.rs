//! `policylens explain --target REF`: the effective policies at a target, per path, with the
//! policy and strategy behind every field, and the policies that lost.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use policylens_core::analysis::explain_text::{Paint, render};
use policylens_core::effective::{Explanation, explain};
use policylens_core::topology::{NodeId, PathLimit, TargetError};
use policylens_core::workspace::Origin;
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
        && nodes.iter().any(|(file, _)| file.as_ref().is_some_and(|f| only.contains(f)))
    {
        nodes.retain(|(file, _)| file.as_ref().is_some_and(|f| only.contains(f)));
    }
    if let Some(f) = &args.file {
        let want = crate::load::shown(f);
        nodes.retain(|(file, _)| file.as_ref() == Some(&want));
        if nodes.is_empty() {
            eprintln!("policylens: `{}` is not defined in {want}", args.target);
            return Ok(ExitCode::from(2));
        }
    }
    let index_start = Instant::now();
    let index = snap.effective();
    let index_ms = index_start.elapsed().as_secs_f64() * 1000.0;
    let start = Instant::now();
    let explained: Vec<(Option<String>, Explanation)> =
        nodes.into_iter().map(|(file, n)| (file, explain(world, index, n, PathLimit::default()))).collect();
    let explain_ms = start.elapsed().as_secs_f64() * 1000.0;
    let several = explained.len() > 1;
    let text = match args.format {
        ReportFormat::Json => {
            let with_file = |(file, ex): &(Option<String>, Explanation)| -> Result<Value, String> {
                let mut v = serde_json::to_value(ex).map_err(|e| e.to_string())?;
                if let Value::Object(m) = &mut v
                    && several
                {
                    m.insert("file".into(), file.clone().map_or(Value::Null, Value::String));
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
                    let at = file.as_deref().unwrap_or("the cluster");
                    let _ = writeln!(out, "{}", st.dim(&format!("── defined in {at} ──")));
                }
                out.push_str(&render(ex, &st));
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
/// by file; virtual and namespace targets have one, unlabelled, and so has an object only the
/// live cluster holds (a file's copy replaces the cluster's, so it is never one of several).
fn instance_nodes(world: &policylens_core::topology::Linked, node: NodeId) -> Vec<(Option<String>, NodeId)> {
    let t = &world.topology;
    let Some(obj) = t.node_object(node) else { return vec![(None, node)] };
    let section = t.node_key(world, node).section;
    world
        .instances(obj)
        .into_iter()
        .filter_map(|o| {
            let n = match &section {
                Some(s) => t.shown_section_node(world, o, s)?,
                None => t.object_node(o),
            };
            let file = world.file_of(o);
            Some(((file.origin != Origin::Cluster).then(|| file.path.to_string()), n))
        })
        .collect()
}

impl Paint for Style {
    fn bold(&self, s: &str) -> String {
        Style::bold(*self, s)
    }
    fn dim(&self, s: &str) -> String {
        Style::dim(*self, s)
    }
}
