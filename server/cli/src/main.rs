//! The `policylens` binary: argument parsing and output formats over the core engine.

mod check;
mod load;
mod style;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("policylens: {e}");
            ExitCode::from(2)
        }
    }
}
