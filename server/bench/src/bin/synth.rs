//! `policylens-synth`: writes a deterministic synthetic Gateway API workspace.
//!
//! ```text
//! policylens-synth --objects N --out DIR [--seed S] [--profile mixed|policies|paths]
//!                  [--gateways G] [--listeners L] [--routes R] [--services S]
//!                  [--parent-refs K] [--rules U] [--backends B]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use policylens_bench::synth::{self, Config, PathsShape, Profile};

const USAGE: &str = "\
usage: policylens-synth --objects N --out DIR [--seed S] [--profile mixed|policies|paths]
       policylens-synth --profile paths --out DIR [--gateways G] [--listeners L] [--routes R]
                        [--services S] [--parent-refs K] [--rules U] [--backends B] [--seed S]

  mixed (default)  N objects (exactly) in a platform/teams layout, ~500 bytes per object,
                   10-15 % policies, ~1 % refs with deliberate typos
  policies         the mixed layout with a policy of most kinds on most routes (~half the
                   objects are policies)
  paths            G gateways x R routes with K parentRefs each, U rules x B backendRefs into
                   S shared Services, policies at every level (defaults 50/2/200/20/16/3/3);
                   --objects is ignored
  DIR must be empty, missing, or an earlier output of policylens-synth (then it is replaced).";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("policylens-synth: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut objects: Option<usize> = None;
    let mut out: Option<PathBuf> = None;
    let mut seed = 1u64;
    let mut profile = Profile::Mixed;
    let mut shape = PathsShape::default();

    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            println!("{USAGE}");
            return Ok(());
        }
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_owned(), Some(v.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = || -> Result<String, String> {
            inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{key} needs a value\n{USAGE}"))
        };
        let num = |v: String| -> Result<usize, String> {
            v.replace('_', "").parse::<usize>().map_err(|_| format!("{key}: not a number: {v}"))
        };
        match key.as_str() {
            "--objects" | "-n" => objects = Some(num(value()?)?),
            "--out" | "-o" => out = Some(PathBuf::from(value()?)),
            "--seed" => seed = num(value()?)? as u64,
            "--profile" => {
                let v = value()?;
                profile = Profile::parse(&v).ok_or_else(|| format!("unknown profile {v} (mixed|policies|paths)"))?;
            }
            "--gateways" => shape.gateways = num(value()?)?,
            "--listeners" => shape.listeners = num(value()?)?,
            "--routes" => shape.routes = num(value()?)?,
            "--services" => shape.services = num(value()?)?,
            "--parent-refs" => shape.parent_refs = num(value()?)?,
            "--rules" => shape.rules = num(value()?)?,
            "--backends" => shape.backends = num(value()?)?,
            _ => return Err(format!("unknown argument {arg}\n{USAGE}")),
        }
    }
    let out = out.ok_or_else(|| format!("--out is required\n{USAGE}"))?;
    let objects = match (profile, objects) {
        (Profile::Mixed | Profile::Policies, Some(n)) => n,
        (Profile::Mixed | Profile::Policies, None) => {
            return Err(format!("--objects is required for the {} profile\n{USAGE}", profile.name()));
        }
        (Profile::Paths, Some(_)) => {
            eprintln!("policylens-synth: note: --objects is ignored by the paths profile");
            0
        }
        (Profile::Paths, None) => 0,
    };

    let cfg = Config { objects, out: out.clone(), seed, profile, paths: shape };
    let start = Instant::now();
    let s = synth::generate(&cfg).map_err(|e| format!("{}: {e}", out.display()))?;
    let secs = start.elapsed().as_secs_f64();
    let extra = match profile {
        Profile::Mixed | Profile::Policies => format!("mistakes={}", s.mistakes),
        Profile::Paths => format!("paths={}", s.paths),
    };
    println!(
        "policylens-synth: profile={} seed={} files={} objects={} policies={} bytes={} ({:.1} MB) {} in {:.2}s -> {}",
        profile.name(),
        seed,
        s.files,
        s.objects,
        s.policies,
        s.bytes,
        s.bytes as f64 / 1e6,
        extra,
        secs,
        out.display()
    );
    Ok(())
}
