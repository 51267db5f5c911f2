//! LSP
