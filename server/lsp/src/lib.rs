//! policylens-lsp: the language server. The only crate that knows LSP; it converts between
//! LSP and core's plain data at its edge (`to_proto`, `from_proto`).
//!
//! For clients:
//! - settings section `policylens` (by `workspace/configuration`, or as initializationOptions):
//!   `configPath`, the config file (relative to the first workspace folder); default: the
//!   nearest `.policylens.yaml` in or above it.
//! - position encoding: UTF-8 when the client offers it, else UTF-16.
//! - diagnostics are pushed for every file; clients that pull (`textDocument/diagnostic`) and
//!   can be asked to pull again (`workspace/diagnostics/refreshSupport`) get open files by pull
//!   only, with `workspace/diagnostic/refresh` when they change; others are offered no pull.
//! - requests that read the world wait until the workspace (its roots as they are) is indexed.
//! - files changed on disk: `workspace/didChangeWatchedFiles` where the client can register
//!   watchers, else the server's own scan of the roots (`disk.rs`).
//! - custom requests: `policylens/explain {target | textDocument+position, format?}` (the CLI's
//!   JSON, or with `format: "text"` the readable report; at a policy, its targets': a list of
//!   JSON, or `{target, targets, text}` with the texts one after the other), `policylens/status` and
//!   `policylens/graph {format, focus}` answer what the CLI prints; `policylens/serverStatus`
//!   says what the server reads and how it stands. Code lenses carry the command
//!   `policylens.showReferences` with `[uri, position, locations]`.
//! - the live cluster (setting `cluster.enabled`): its objects are read-only virtual
//!   documents `policylens-cluster:/CONTEXT/NAMESPACE/Kind.group/NAME.yaml` (definitions,
//!   references and workspace symbols point there); their YAML answers
//!   `workspace/textDocumentContent` (LSP 3.18), registered with the client once the cluster
//!   is read. Findings on cluster objects are not published (`policylens check --cluster`).
//! - initializationOptions: the settings, and `hoverActions: true` (hovers end in `command:`
//!   links to `policylens.explain`, `policylens.showTopology`, `policylens.findReferences`),
//!   `statusNotifications: true` (`policylens/serverStatus` notifications as it changes).
//! - environment: `POLICYLENS_LOG` filters stderr logging (tracing `EnvFilter` syntax);
//!   `POLICYLENS_TEST=1` / `POLICYLENS_TEST_PANIC=1` enable test-only requests, and with the
//!   former `POLICYLENS_TEST_INDEX_DELAY_MS` stretches indexing (to test what answers while it runs).

mod cluster;
mod cluster_doc;
mod config;
mod disk;
mod documents;
mod from_proto;
mod handlers;
mod index;
mod logging;
mod memory;
mod panics;
mod roots;
mod scan;
mod server;
mod state;
mod status;
mod to_proto;

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tower_lsp_server::Server;

/// Serves LSP over stdin/stdout until `exit`. Returns the process exit code the spec asks for:
/// 0 after `shutdown`, 1 when `exit` came without it or the client went away.
pub async fn run_stdio() -> u8 {
    let log_rx = logging::init();
    let (service, socket) = server::service();
    let shared = service.inner().shared.clone();
    tokio::spawn(logging::forward(shared.client.clone(), log_rx));
    // Handlers wait on blocking analysis (and pulls wait for the first index); more slots
    // than the default 4 keep a few slow requests from holding up edits and cancellations.
    Server::new(tokio::io::stdin(), tokio::io::stdout(), socket).concurrency_level(16).serve(service).await;
    if shared.shutdown.load(Ordering::Relaxed) { 0 } else { 1 }
}

/// `policylens serve`: runs [`run_stdio`] on its own runtime.
///
/// One async thread is enough: handlers only route messages and apply edits, and every
/// analysis runs on the blocking pool. The multi-thread scheduler cost a worker thread and,
/// through its `powf`-based statistics, all of libm's mapped pages (0.3 to 1 MB of peak RSS in
/// policylens-bench-lsp) with no latency gain.
pub fn serve() -> ExitCode {
    memory::tune_allocator();
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("policylens: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let code = rt.block_on(run_stdio());
    // The stdin reader may sit in a blocking read the client never ends; do not wait for it.
    rt.shutdown_timeout(Duration::from_millis(100));
    ExitCode::from(code)
}
