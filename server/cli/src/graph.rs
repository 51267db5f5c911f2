//! `policylens graph`: the topology with every policy and its status, as Graphviz dot, Mermaid
//! or JSON (docs/json.md); `--focus REF` keeps one node's neighbourhood.

use std::io::Write as _;
use std::process::ExitCode;

use policylens_core::analysis::graph;

use crate::{GraphArgs, GraphFormat, load};

pub fn run(args: GraphArgs) -> Result<ExitCode, String> {
    let loaded = load::load(&args.common)?;
    let snap = &loaded.snapshot;
    let world = snap.world();
    let focus = match &args.focus {
        None => None,
        // Same reading as `explain --target`: any case for kinds, a did-you-mean on a miss.
        Some(text) => match world.topology.resolve_target(world, text) {
            Ok(node) => Some(node),
            Err(e @ policylens_core::topology::TargetError::Malformed) => {
                eprintln!("policylens: `{text}` {e}");
                return Ok(ExitCode::from(2));
            }
            Err(e) => {
                eprintln!("policylens: {e}");
                return Ok(ExitCode::from(2));
            }
        },
    };
    let g = graph::build(world, snap.effective(), focus);
    let text = match args.format {
        GraphFormat::Dot => graph::dot(&g),
        GraphFormat::Mermaid => graph::mermaid(&g),
        GraphFormat::Json => {
            let mut s = serde_json::to_string_pretty(&g).map_err(|e| e.to_string())?;
            s.push('\n');
            s
        }
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
