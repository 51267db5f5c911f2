//! The loopback Kubernetes API server of the cluster tests (`fake_api::cluster()`: a Gateway
//! `infra/edge`, a Service `shop/checkout` and a BackendTrafficPolicy only the cluster holds),
//! served for a process that is not Rust: the VS Code host test starts it, points a kubeconfig
//! at it and reads the requests it logged. Serves until its standard input closes.
//!
//! ```text
//! policylens-fake-api KUBECONFIG_OUT
//! ```
//!
//! Writes the kubeconfig (current context `fake`) to KUBECONFIG_OUT, prints the address on one
//! line, and when standard input ends prints every request it served (`METHOD PATH`, a line
//! each), so that the caller can check the client only read.

use std::io::{Read, Write};
use std::path::Path;

use policylens_bench::fake_api::{FakeApi, cluster, kubeconfig};

fn main() {
    let Some(out) = std::env::args().nth(1) else {
        eprintln!("usage: policylens-fake-api KUBECONFIG_OUT");
        std::process::exit(2);
    };
    let out = Path::new(&out);
    let api = FakeApi::start_watching(cluster(), &[], Default::default(), true);
    let written = kubeconfig(out.parent().unwrap_or(Path::new(".")), &api.addr);
    if written != out
        && let Err(e) = std::fs::rename(&written, out)
    {
        eprintln!("policylens-fake-api: cannot write {}: {e}", out.display());
        std::process::exit(2);
    }
    println!("{}", api.addr);
    let _ = std::io::stdout().flush();
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    for (method, path) in api.requests() {
        println!("{method} {path}");
    }
}
