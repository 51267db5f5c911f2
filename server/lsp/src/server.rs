//! The `LanguageServer` implementation: lifecycle, document sync, and dispatch to handlers.
//!
//! Notification handlers do all their work before their first `.await` (tower-lsp-server runs
//! handlers concurrently but polls each one first in the order the messages arrived), so edits
//! are applied strictly in order. Request handlers take their snapshot at the same point.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, ClientSocket, LanguageServer, LspService};

use crate::config::Settings;
use crate::handlers::{self, custom, run};
use crate::index::reindex;
use crate::roots::Roots;
use crate::state::{Caps, Parse, Shared, State};
use crate::{from_proto, to_proto};
use policylens_core::source::SourceFile;

/// How long to wait for the client's answer to a request the server cannot do without.
const CLIENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

pub struct Backend {
    pub shared: Arc<Shared>,
}

/// The service, with the custom methods. Test-only methods: `policylens/debugPanic` with
/// `POLICYLENS_TEST_PANIC=1` or `POLICYLENS_TEST=1`; `policylens/debugDocument` and
/// `policylens/debugSettle` with the latter.
pub fn service() -> (LspService<Backend>, ClientSocket) {
    let mut b = LspService::build(|client: Client| Backend { shared: Arc::new(Shared::new(client)) })
        .custom_method("policylens/explain", Backend::explain)
        .custom_method("policylens/status", Backend::status)
        .custom_method("policylens/graph", Backend::graph)
        .custom_method("policylens/without", Backend::without)
        .custom_method("policylens/serverStatus", Backend::server_status)
        .custom_method("workspace/textDocumentContent", Backend::text_document_content);
    let env_on = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    if env_on("POLICYLENS_TEST") || env_on("POLICYLENS_TEST_PANIC") {
        b = b.custom_method("policylens/debugPanic", Backend::debug_panic);
    }
    if env_on("POLICYLENS_TEST") {
        b = b.custom_method("policylens/debugDocument", Backend::debug_document);
        b = b.custom_method("policylens/debugSettle", Backend::debug_settle);
    }
    b.finish()
}

fn caps_of(params: &InitializeParams) -> Caps {
    let v = serde_json::to_value(&params.capabilities).unwrap_or_default();
    let flag = |p: &str| v.pointer(p).and_then(Value::as_bool).unwrap_or(false);
    let opt = |k: &str| {
        params.initialization_options.as_ref().and_then(|o| o.get(k)).and_then(Value::as_bool).unwrap_or(false)
    };
    let offers_utf8 = v
        .pointer("/general/positionEncodings")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|e| e.as_str() == Some("utf-8")));
    let markdown_hover = match v.pointer("/textDocument/hover/contentFormat").and_then(Value::as_array) {
        Some(formats) => formats.iter().any(|f| f.as_str() == Some("markdown")),
        None => true,
    };
    Caps {
        encoding: if offers_utf8 {
            policylens_core::syntax::PositionEncoding::Utf8
        } else {
            policylens_core::syntax::PositionEncoding::Utf16
        },
        work_done_progress: flag("/window/workDoneProgress"),
        watched_files_dynamic: flag("/workspace/didChangeWatchedFiles/dynamicRegistration"),
        watched_files_relative: flag("/workspace/didChangeWatchedFiles/relativePatternSupport"),
        configuration: flag("/workspace/configuration"),
        configuration_dynamic: flag("/workspace/didChangeConfiguration/dynamicRegistration"),
        // A client that pulls but cannot be asked to pull again (Neovim 0.11) would keep an
        // open document's diagnostics stale when another file's edit changes them: such a
        // client is offered no pull, and every file's diagnostics are pushed.
        pull_diagnostics: v.pointer("/textDocument/diagnostic").is_some_and(Value::is_object)
            && flag("/workspace/diagnostics/refreshSupport"),
        diagnostic_refresh: flag("/workspace/diagnostics/refreshSupport"),
        code_lens_refresh: flag("/workspace/codeLens/refreshSupport"),
        snippets: flag("/textDocument/completion/completionItem/snippetSupport"),
        hierarchical_symbols: flag("/textDocument/documentSymbol/hierarchicalDocumentSymbolSupport"),
        show_document: flag("/window/showDocument/support"),
        hover_actions: markdown_hover && opt("hoverActions"),
        status_notifications: opt("statusNotifications"),
        markdown_hover,
    }
}

#[allow(deprecated)] // root_uri and root_path are the fallbacks of old clients
fn roots_of(params: &InitializeParams) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(folders) = &params.workspace_folders {
        roots.extend(folders.iter().filter_map(|f| from_proto::path(&f.uri)).map(|p| PathBuf::from(&*p)));
    }
    if roots.is_empty() {
        if let Some(p) = params.root_uri.as_ref().and_then(from_proto::path) {
            roots.push(PathBuf::from(&*p));
        } else if let Some(p) = params.root_path.as_deref().filter(|p| !p.is_empty()) {
            roots.push(from_proto::normalize(std::path::Path::new(p)));
        }
    }
    roots.dedup();
    roots
}

fn server_capabilities(caps: &Caps) -> ServerCapabilities {
    let encoding = match caps.encoding {
        policylens_core::syntax::PositionEncoding::Utf8 => PositionEncodingKind::UTF8,
        _ => PositionEncodingKind::UTF16,
    };
    ServerCapabilities {
        position_encoding: Some(encoding),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "-".into()]),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_highlight_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::REFACTOR_REWRITE,
                CodeActionKind::new(handlers::whatif::KIND),
            ]),
            ..Default::default()
        })),
        diagnostic_provider: caps.pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("policylens".into()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                work_done_progress_options: Default::default(),
            })
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![to_proto::SHOW_REFERENCES.into()],
            ..Default::default()
        }),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    }
}

impl Backend {
    /// Parses a big editor text on a blocking thread and installs it when done, unless a
    /// later text superseded it meanwhile (see `state::Parse`).
    fn parse_aside(&self, parse: Option<Parse>) {
        let Some(parse) = parse else { return };
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let (path, generation) = (parse.path.clone(), parse.generation);
            let check = shared.clone();
            let work = tokio::task::spawn_blocking(move || {
                // A keystroke since may have superseded it before it started.
                if !check.lock().wanted(&parse.path, parse.generation) {
                    return None;
                }
                let file = SourceFile::parse(parse.path.clone(), parse.text.clone());
                Some((parse, file))
            });
            let landed = match work.await {
                Ok(Some((parse, file))) => shared.lock().land(parse, file),
                Ok(None) => false,
                Err(e) => {
                    tracing::error!(target: "policylens", "parsing {path} failed: {e}");
                    shared.lock().abandon(&path, generation);
                    false
                }
            };
            if landed {
                shared.changed();
            }
            shared.parsed.send_modify(|g| *g += 1);
        });
    }

    /// Runs a state mutation; a panic in it is logged and the server goes on (invariant 7).
    fn mutate(&self, what: &str, f: impl FnOnce(&mut State) -> bool) {
        let r = catch_unwind(AssertUnwindSafe(|| {
            let mut st = self.shared.lock();
            f(&mut st)
        }));
        match r {
            Ok(true) => self.shared.changed(),
            Ok(false) => {}
            Err(p) => {
                tracing::error!(target: "policylens", "{what} panicked: {}", crate::panics::panic_message(p));
                self.shared.changed();
            }
        }
    }

    /// Asks the client for the `policylens` settings section, when it answers such requests.
    async fn fetch_settings(&self) -> Option<Settings> {
        if !self.shared.caps().configuration {
            return None;
        }
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("policylens".into()) }];
        // A client that never answers must not hold up indexing.
        match tokio::time::timeout(CLIENT_TIMEOUT, self.shared.client.configuration(items)).await {
            Ok(Ok(values)) => Some(values.first().map(Settings::from_value).unwrap_or_default()),
            Ok(Err(e)) => {
                tracing::warn!(target: "policylens", "workspace/configuration failed: {e}");
                None
            }
            Err(_) => {
                tracing::warn!(target: "policylens", "workspace/configuration got no answer; using defaults");
                None
            }
        }
    }

    async fn register_watchers(&self) {
        let caps = self.shared.caps();
        let mut registrations = Vec::new();
        if caps.watched_files_dynamic {
            let mut globs =
                vec!["**/*.{yaml,yml}".to_owned(), "**/.policylens.yaml".to_owned(), "**/.gitignore".to_owned()];
            // A configPath outside the folders is watched by its own path.
            let config = self.shared.lock().settings.config_path.clone();
            if let Some(c) = config.filter(|c| std::path::Path::new(c).is_absolute()) {
                globs.push(c);
            }
            // A folder's workspace above it (roots.rs) is outside what the client watches for
            // `**` globs: watched by its own path.
            let outside = self.shared.lock().roots.outside_folders();
            let relative: Vec<FileSystemWatcher> = outside
                .iter()
                .filter(|_| caps.watched_files_relative)
                .filter_map(Uri::from_file_path)
                .flat_map(|base| {
                    ["**/*.{yaml,yml}", "**/.policylens.yaml", "**/.gitignore"].map(|g| FileSystemWatcher {
                        glob_pattern: GlobPattern::Relative(RelativePattern {
                            base_uri: OneOf::Right(base.clone()),
                            pattern: g.to_owned(),
                        }),
                        kind: None,
                    })
                })
                .collect();
            let watchers = globs
                .into_iter()
                .map(|g| FileSystemWatcher { glob_pattern: GlobPattern::String(g), kind: None })
                .chain(relative)
                .collect();
            let opts = DidChangeWatchedFilesRegistrationOptions { watchers };
            registrations.push(Registration {
                id: "policylens/watchedFiles".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(opts).ok(),
            });
        }
        if caps.configuration_dynamic {
            registrations.push(Registration {
                id: "policylens/configuration".into(),
                method: "workspace/didChangeConfiguration".into(),
                register_options: Some(serde_json::json!({ "section": "policylens" })),
            });
        }
        if !registrations.is_empty()
            && let Err(e) = self.shared.client.register_capability(registrations).await
        {
            tracing::warn!(target: "policylens", "client/registerCapability failed: {e}");
        }
    }

    async fn explain(&self, params: custom::ExplainParams) -> Result<Value> {
        let view = self.shared.world_view_for(None).await;
        run("policylens/explain", move || custom::explain(&view, params)).await
    }

    async fn status(&self, _params: Option<Value>) -> Result<Value> {
        let view = self.shared.world_view_for(None).await;
        run("policylens/status", move || custom::status(&view)).await
    }

    async fn graph(&self, params: Option<Value>) -> Result<Value> {
        let view = self.shared.world_view_for(None).await;
        // Params are optional: `{}` or nothing means dot.
        let params: custom::GraphParams = params.and_then(|p| serde_json::from_value(p).ok()).unwrap_or_default();
        run("policylens/graph", move || custom::graph(&view, params)).await
    }

    /// What deleting policies would do (`policylens diff --without`), for the editors'
    /// "Preview removing this policy".
    async fn without(&self, params: handlers::whatif::WithoutParams) -> Result<Value> {
        let view = self.shared.world_view_for(None).await;
        run("policylens/without", move || handlers::whatif::without(&view, params)).await
    }

    /// The text of a `policylens-cluster:` virtual document: the live cluster's object as
    /// YAML (LSP 3.18 `workspace/textDocumentContent`).
    async fn text_document_content(&self, params: custom::ContentParams) -> Result<Value> {
        let view = self.shared.world_view_for(None).await;
        run("workspace/textDocumentContent", move || custom::text_document_content(&view, params)).await
    }

    /// What the server reads and how it stands, for status surfaces (VS Code's status item,
    /// `:checkhealth policylens`). Answers at once, also while indexing.
    async fn server_status(&self, _params: Option<Value>) -> Result<Value> {
        let shared = self.shared.clone();
        run("policylens/serverStatus", move || Ok(crate::status::gather(&shared))).await
    }

    async fn debug_document(&self, params: custom::DocumentParams) -> Result<Value> {
        let view = self.shared.view_for(None).await;
        run("policylens/debugDocument", move || custom::debug_document(&view, params)).await
    }

    /// Test-only: answers once the full diagnostics pass has analysed the current state, so
    /// that tests can compare settled diagnostics without guessing at timing.
    async fn debug_settle(&self, _params: Option<Value>) -> Result<Value> {
        let mut bases = self.shared.base_changed.subscribe();
        loop {
            let now = self.shared.view_for(None).await;
            if self.shared.base().is_some_and(|b| b.snap.same(&now.snap)) {
                return Ok(Value::Bool(true));
            }
            if bases.changed().await.is_err() {
                return Ok(Value::Bool(false));
            }
        }
    }

    async fn debug_panic(&self, _params: Option<Value>) -> Result<Value> {
        run("policylens/debugPanic", custom::debug_panic).await
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = caps_of(&params);
        let roots = roots_of(&params);
        tracing::info!(
            target: "policylens",
            "policylens {} starting; roots: {:?}; position encoding: {:?}",
            env!("CARGO_PKG_VERSION"),
            roots,
            caps.encoding
        );
        let result = InitializeResult {
            capabilities: server_capabilities(&caps),
            server_info: Some(ServerInfo {
                name: "policylens".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..Default::default()
        };
        {
            let mut st = self.shared.lock();
            st.encoding = caps.encoding;
            st.roots = Roots::new(roots);
            for r in st.roots.chosen() {
                tracing::info!(target: "policylens", "reading {}: {}", r.dir.display(), r.why);
            }
            // Settings may come as initializationOptions too (clients without
            // workspace/configuration).
            if let Some(opts) = &params.initialization_options {
                st.settings = Settings::from_value(opts);
            }
        }
        let _ = self.shared.caps.set(Arc::new(caps));
        Ok(result)
    }

    async fn initialized(&self, _: InitializedParams) {
        tokio::spawn(handlers::diagnostics::publisher(self.shared.clone()));
        tokio::spawn(handlers::diagnostics::open_files(self.shared.clone()));
        if self.shared.polls_disk() {
            tokio::spawn(crate::disk::poll(self.shared.clone()));
        }
        let this = Backend { shared: self.shared.clone() };
        tokio::spawn(async move {
            if let Some(s) = this.fetch_settings().await {
                this.shared.lock().settings = s;
            }
            let registering = Backend { shared: this.shared.clone() };
            tokio::spawn(async move { registering.register_watchers().await });
            reindex(this.shared.clone()).await;
        });
    }

    async fn shutdown(&self) -> Result<()> {
        self.shared.shutdown.store(true, Ordering::Relaxed);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let d = params.text_document;
        let Some(path) = from_proto::path(&d.uri) else { return };
        let (mut aside, mut new_root) = (None, None);
        self.mutate("textDocument/didOpen", |st| {
            new_root = st.roots.for_document(std::path::Path::new(&*path));
            aside = st.did_open(path, d.uri, d.version, &d.text);
            aside.is_none()
        });
        self.parse_aside(aside);
        if let Some(new) = new_root {
            // A note, not a message box: Neovim shows `window/showMessage` as a prompt that
            // holds back everything until Enter. The guess is in `policylens/serverStatus`
            // (`:checkhealth policylens`, VS Code's status item) and in the log.
            match new.note {
                Some(note) => tracing::info!(target: "policylens", "{note}"),
                None => tracing::info!(target: "policylens", "no workspace folder: reading {}", new.root.display()),
            }
            tokio::spawn(reindex(self.shared.clone()));
        }
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(path) = from_proto::path(&params.text_document.uri) else { return };
        let version = params.text_document.version;
        let mut aside = None;
        self.mutate("textDocument/didChange", |st| match st.did_change(&path, version, params.content_changes) {
            Ok(parse) => {
                aside = parse;
                aside.is_none()
            }
            Err(_) => {
                tracing::warn!(target: "policylens", "didChange for {path}, which is not open; ignored");
                false
            }
        });
        self.parse_aside(aside);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let Some(path) = from_proto::path(&params.text_document.uri) else { return };
        let mut config_closed = false;
        self.mutate("textDocument/didClose", |st| {
            config_closed = st.did_close(&path);
            true
        });
        if config_closed {
            tokio::spawn(reindex(self.shared.clone()));
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let events = params.changes.into_iter().filter_map(|ev| Some((from_proto::path(&ev.uri)?, ev.typ))).collect();
        crate::disk::apply_events(self.shared.clone(), events).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let settings = match self.fetch_settings().await {
            Some(s) => s,
            None => Settings::from_value(&params.settings),
        };
        let changed = {
            let mut st = self.shared.lock();
            let changed = st.settings != settings;
            st.settings = settings;
            changed
        };
        if changed {
            tracing::info!(target: "policylens", "settings changed; re-indexing");
            tokio::spawn(reindex(self.shared.clone()));
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        {
            let folders = |list: &[WorkspaceFolder]| -> Vec<PathBuf> {
                list.iter().filter_map(|f| from_proto::path(&f.uri)).map(|p| PathBuf::from(&*p)).collect()
            };
            let (added, removed) = (folders(&params.event.added), folders(&params.event.removed));
            self.shared.lock().roots.change_folders(added, &removed);
        }
        tokio::spawn(reindex(self.shared.clone()));
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let view = self.shared.world_view_for_uri(&params.text_document_position_params.text_document.uri).await;
        run("textDocument/hover", move || handlers::hover::hover(&view, params)).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let view = self.shared.world_view_for_uri(&params.text_document_position.text_document.uri).await;
        run("textDocument/completion", move || handlers::completion::completion(&view, params)).await
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let view = self.shared.world_view_for_uri(&params.text_document_position_params.text_document.uri).await;
        run("textDocument/definition", move || handlers::navigation::definition(&view, params)).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let view = self.shared.world_view_for_uri(&params.text_document_position.text_document.uri).await;
        run("textDocument/references", move || handlers::navigation::references(&view, params)).await
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        let view = self.shared.world_view_for_uri(&params.text_document_position_params.text_document.uri).await;
        run("textDocument/documentHighlight", move || handlers::navigation::highlights(&view, params)).await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let view = self.shared.view_for_uri(&params.text_document.uri).await;
        run("textDocument/documentSymbol", move || handlers::symbols::document_symbols(&view, params)).await
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        let view = self.shared.world_view_for(None).await;
        run("workspace/symbol", move || handlers::symbols::workspace_symbols(&view, params)).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let view = self.shared.world_view_for_uri(&params.text_document.uri).await;
        run("textDocument/codeLens", move || handlers::lens::code_lens(&view, params)).await
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        let view = self.shared.world_view_for_uri(&params.text_document.uri).await;
        run("textDocument/prepareRename", move || handlers::rename::prepare_rename(&view, params)).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let view = self.shared.world_view_for(None).await;
        run("textDocument/rename", move || handlers::rename::rename(&view, params)).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let view = self.shared.world_view_for_uri(&params.text_document.uri).await;
        run("textDocument/codeAction", move || handlers::actions::code_actions(&view, params)).await
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
        handlers::diagnostics::pull(self.shared.clone(), params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command == handlers::whatif::PREVIEW_WITHOUT {
            let view = self.shared.world_view_for(None).await;
            let args = params.arguments;
            return run(handlers::whatif::PREVIEW_WITHOUT, move || handlers::whatif::execute(&view, &args).map(Some))
                .await;
        }
        if params.command != to_proto::SHOW_REFERENCES {
            return Err(handlers::failed(format!("unknown command {}", params.command)));
        }
        // Editors with their own references view handle this command client-side (VS Code,
        // the Neovim plugin); the rest are shown the one place, or asked which of several.
        let locations: Vec<Location> = params
            .arguments
            .get(2)
            .and_then(|v| serde_json::from_value::<Vec<Location>>(v.clone()).ok())
            .unwrap_or_default();
        if !self.shared.caps().show_document || locations.is_empty() {
            return Ok(None);
        }
        let chosen = if let [only] = locations.as_slice() {
            Some(only.clone())
        } else {
            let view = self.shared.view();
            let labels: Vec<String> = locations.iter().map(|l| custom::label_at(&view, l)).collect();
            let actions = labels.iter().map(|t| MessageActionItem { title: t.clone(), properties: Default::default() });
            let asked = self
                .shared
                .client
                .show_message_request(MessageType::INFO, "policylens: go to", Some(actions.collect()))
                .await;
            let pick = asked.ok().flatten().and_then(|a| labels.iter().position(|t| *t == a.title));
            pick.map(|i| locations[i].clone())
        };
        if let Some(loc) = chosen {
            let params =
                ShowDocumentParams { uri: loc.uri, external: None, take_focus: Some(true), selection: Some(loc.range) };
            let _ = self.shared.client.show_document(params).await;
        }
        Ok(None)
    }
}
