//! policylens-core: the analysis engine shared by the CLI and the language server.
//!
//! Data flows one way: text → [`syntax`] documents → [`model`] objects → [`catalog`] (what
//! each policy kind is) → [`topology`] (the hierarchy DAG and resolved references) →
//! [`effective`] (merged policies, status) → [`analysis`] (diagnostics and editor features as
//! plain data). [`workspace`] owns the files and hands out immutable snapshots.
//!
//! This crate knows nothing of LSP, JSON-RPC, async runtimes or Kubernetes clients.

pub mod analysis;
pub mod catalog;
pub mod effective;
pub mod model;
pub mod suggest;
pub mod syntax;
pub mod topology;
pub mod workspace;
