//! The `policylens` binary: argument parsing and output formats over the core engine.

mod check;
mod diff;
mod explain;
mod graph;
mod heap;
mod load;
#[cfg(test)]
mod schemas;
mod status;
mod style;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[cfg(feature = "heap-stats")]
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
    /// Draw the topology with its policies and their status (Graphviz dot, Mermaid or JSON).
    Graph(GraphArgs),
    /// Run the language server over stdio.
    Serve(ServeArgs),
    /// Explain a diagnostic code: what it means, why it matters, how to fix it.
    ExplainCode(ExplainCodeArgs),
    /// List what `explain --target` can be asked: every object and section, with how many
    /// policy kinds reach it.
    Targets(TargetsArgs),
    /// What a change does: effective policies, policy status and findings, BASE against HEAD.
    Diff(DiffArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    Human,
    Json,
    Markdown,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// The world before: a directory, `git:REV` (a revision of the repository holding the
    /// current directory, read without a checkout), or `cluster` (the live cluster; the other
    /// side is then laid over it: what applying it would do). With --without: the PATH whose
    /// workspace is compared with itself (default: the current directory).
    base: Option<String>,
    /// The world after (default: the working tree).
    head: Option<String>,
    /// What deleting a policy would do: the workspace against itself without it (every
    /// definition). `Kind[.group]/namespace/name`; repeat for several.
    #[arg(long, value_name = "REF")]
    without: Vec<String>,
    /// As --without, for every policy defined in this file.
    #[arg(long, value_name = "FILE")]
    without_file: Vec<PathBuf>,
    /// With --without: the files laid over the live cluster, or the cluster alone without a
    /// PATH (what deleting it from the cluster would do).
    #[arg(long)]
    cluster: bool,
    /// With --without: print timing figures to stderr.
    #[arg(long)]
    stats: bool,
    #[arg(long, value_enum, default_value = "human")]
    format: DiffFormat,
    /// The kubeconfig for a `cluster` side (default: KUBECONFIG, else ~/.kube/config).
    #[arg(long)]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context for a `cluster` side (default: its current context).
    #[arg(long)]
    kube_context: Option<String>,
    /// How long one request to the cluster may take before it is tried again: `30s`, `500ms`,
    /// `2m` (default 30s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    request_timeout: Option<std::time::Duration>,
}

#[derive(clap::Args)]
struct TargetsArgs {
    #[command(flatten)]
    common: Common,
    /// Only targets some policy reaches.
    #[arg(long)]
    reached: bool,
}

#[derive(clap::Args)]
struct ExplainCodeArgs {
    /// A code such as `target-not-found` (as `check` prints it).
    code: String,
}

#[derive(clap::Args)]
struct Common {
    /// Files or directories (default: the current directory); `-` reads one document stream
    /// from standard input. A file is analysed within its workspace (the nearest directory
    /// with .policylens.yaml, else its git work tree) and only its own findings are reported.
    paths: Vec<PathBuf>,
    /// The config file (default: the nearest .policylens.yaml above the first path).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Analyse exactly the PATHs given, not the workspace around a file.
    #[arg(long)]
    isolated: bool,
    /// A directory whose objects take part in the world but are never reported on (a platform
    /// repository's Gateways). Repeatable; adds to the config's `context`.
    #[arg(long, value_name = "DIR")]
    context: Vec<PathBuf>,
    /// The path standard input stands for (with `-`), default `stdin.yaml`.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    /// Read the live cluster too (read-only): the files are laid over it, as applying them
    /// would; objects only in the cluster take part; findings are reported on the files.
    #[arg(long)]
    cluster: bool,
    /// The kubeconfig for --cluster (default: KUBECONFIG, else ~/.kube/config).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context for --cluster (default: its current context).
    #[arg(long, value_name = "NAME")]
    kube_context: Option<String>,
    /// How long one request to the cluster may take before it is tried again: `30s`, `500ms`,
    /// `2m` (default 30s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    request_timeout: Option<std::time::Duration>,
    /// Print timing and memory figures to stderr.
    #[arg(long)]
    stats: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum CheckFormat {
    /// `file:line:column`, both from 1, the column counted in characters (code points)
    Human,
    /// Ranges from 0, characters counted in UTF-16 code units, as in LSP (docs/json.md)
    Json,
    /// SARIF 2.1.0; columns from 1 in UTF-16 code units (the run says `columnKind: utf16CodeUnits`)
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
    /// The least severity that makes the exit code 1.
    #[arg(long, value_enum, default_value = "error")]
    fail_on: FailOn,
    /// Also list the diagnostics that ignore comments suppressed.
    #[arg(long)]
    show_suppressed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Information,
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
    /// For a target defined in several files, explain the definition in this file only.
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
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
    Json,
}

#[derive(clap::Args)]
struct GraphArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, value_enum, default_value = "dot")]
    format: GraphFormat,
    /// Keep only this node, its ancestors and descendants, and their policies:
    /// `Kind[.group]/[namespace/]name[#section]`, as `explain --target` takes it.
    #[arg(long, value_name = "REF")]
    focus: Option<String>,
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
        Command::ExplainCode(args) => explain_code(&args.code),
        Command::Targets(args) => targets(args),
        Command::Diff(args) => diff::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("policylens: {e}");
            ExitCode::from(2)
        }
    }
}

/// `policylens explain-code CODE`: the code's page of docs/diagnostics.md.
fn explain_code(code: &str) -> Result<ExitCode, String> {
    use policylens_core::analysis::diagnostics::Code;
    let wanted = code.trim().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    let Some(c) = Code::ALL.iter().find(|c| c.as_str() == wanted) else {
        let names = Code::ALL.iter().map(|c| c.as_str());
        let hint = policylens_core::suggest::closest(&wanted, names)
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_else(|| {
                let all: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
                format!(" (codes: {})", all.join(", "))
            });
        return Err(format!("`{code}` is not a policylens diagnostic code{hint}"));
    };
    println!("{}\n\n{}\n\n{}", c.as_str(), c.help(), c.help_uri());
    Ok(ExitCode::SUCCESS)
}

/// `policylens targets`: every node of the topology, as `explain --target` takes it, with the
/// policy kinds that reach it.
fn targets(args: TargetsArgs) -> Result<ExitCode, String> {
    use std::collections::BTreeMap;
    use std::io::Write as _;
    let loaded = load::load(&args.common)?;
    let snap = &loaded.snapshot;
    let world = snap.world();
    let report = snap.effective().report(world);
    // Targets some policy affects, and by which kinds.
    let mut kinds: BTreeMap<&str, std::collections::BTreeSet<&str>> = BTreeMap::new();
    for p in &report.policies {
        let kind = p.policy.split('/').next().unwrap_or("");
        for a in &p.affects {
            kinds.entry(a.as_str()).or_default().insert(kind);
        }
    }
    let mut keys = world.topology.target_keys(world);
    keys.sort();
    keys.dedup();
    let mut out = String::new();
    for k in &keys {
        let reached = kinds.get(k.as_str());
        if args.reached && reached.is_none() {
            continue;
        }
        match reached {
            Some(ks) => out.push_str(&format!("{k}  ({})\n", ks.iter().copied().collect::<Vec<_>>().join(", "))),
            None => out.push_str(&format!("{k}\n")),
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes()).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// A duration as kubectl's `--request-timeout` takes it: a number with `ms`, `s`, `m` or `h`, or
/// a bare number of seconds.
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let n: f64 = number.parse().map_err(|_| format!("`{text}` is not a duration such as 30s, 500ms or 2m"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{text}`: the unit must be ms, s, m or h")),
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|_| format!("`{text}` is not a duration"))
}
