//! `policylens graph`: the topology with policies, as Graphviz dot or Mermaid.

use std::io::Write as _;
use std::process::ExitCode;

use policylens_core::topology::render;

use crate::{GraphArgs, GraphFormat, load};

pub fn run(args: GraphArgs) -> Result<ExitCode, String> {
    let loaded = load::load(&args.common)?;
    let world = loaded.snapshot.world();
    let text = match args.format {
        GraphFormat::Dot => render::dot(world),
        GraphFormat::Mermaid => render::mermaid(world),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}
