//! End-to-end tests of `policylens serve`: the built binary over stdio LSP.

#[path = "fake_api/mod.rs"]
mod fake_api;
mod lsp;
