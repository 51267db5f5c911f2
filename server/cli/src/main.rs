//! The `policylens` binary: argument parsing and output formats over the core engine.

mod check;
mod explain;
mod graph;
mod heap;
mod load;
mod status;
mod style;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[global_allocator]
static ALLOC: heap::Counting = heap::Counting;

#[derive(Parser)]
#[command(name = "policylens", version, about = "See which Gateway API policies reach what, and why.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Report broken targetRefs, parentRefs, backendRefs and YAML errors.
    Check(CheckArgs),
    /// Show the effective policies at a target, per path, with the policy behind every field.
    Explain(ExplainArgs),
    /// Show the computed status of every policy (Accepted, Enforced, ...) and what it affects.
    Status(StatusArgs),
    /// Draw the topology with its policies (Graphviz dot or Mermaid).
    Graph(GraphArgs),
    /// Run the language server over stdio.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct Common {
    /// Files or directories (default: the current directory).
    paths: Vec<PathBuf>,
    /// The config file (default: the nearest .policylens.yaml above the first path).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Print timing and memory figures to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum CheckFormat {
    Human,
    Json,
    Sarif,
}

#[derive(clap::Args)]
struct CheckArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, value_enum, default_value = "human")]
    format: CheckFormat,
    /// Colour in human output: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, default_value = "auto")]
    color: style::ColorChoice,
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Accepted and ignored: stdio is the only transport (clients pass it by habit).
    #[arg(long)]
    stdio: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Human,
    Json,
}

#[derive(clap::Args)]
struct ExplainArgs {
    #[command(flatten)]
    common: Common,
    /// The target: `Kind[.group]/[namespace/]name[#section]`, e.g. `HTTPRoute/shop/checkout#pay`.
    #[arg(long)]
    target: String,
    #[arg(long, value_enum, default_value = "human")]
    format: ReportFormat,
    /// Colour in human output: auto, always, never.
    #[arg(long, value_enum, default_value = "auto")]
    color: style::ColorChoice,
}

#[derive(clap::Args)]
struct StatusArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, value_enum, default_value = "human")]
    format: ReportFormat,
    /// Colour in human output: auto, always, never.
    #[arg(long, value_enum, default_value = "auto")]
    color: style::ColorChoice,
}

#[derive(Clone, Copy, ValueEnum)]
enum GraphFormat {
    Dot,
    Mermaid,
}

#[derive(clap::Args)]
struct GraphArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, value_enum, default_value = "dot")]
    format: GraphFormat,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve(_)) {
        heap::tune_for_batch();
    }
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Status(args) => status::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Serve(_) => return policylens_lsp::serve(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("policylens: {e}");
            ExitCode::from(2)
        }
    }
}
