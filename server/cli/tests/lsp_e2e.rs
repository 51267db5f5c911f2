//! End-to-end tests of `policylens serve`: the built binary over stdio LSP.

mod lsp;
