//! policylens-core: the analysis engine shared by the CLI and the language server.
//!
//! Data flows one way: text → [`syntax`] documents → [`model`] objects → [`source`] files and
//! [`catalog`] (what each policy kind is) → [`world`] (instances and their indexes) →
//! [`topology`] (the hierarchy DAG and resolved references) → [`effective`] (merged policies,
//! status) → [`workspace`] (the files and immutable snapshots) → [`analysis`] (diagnostics and
//! editor features as plain data). Each module uses only those before it
//! (`tests/layers.rs`).
//!
//! This crate knows nothing of LSP, JSON-RPC, async runtimes or Kubernetes clients.

pub mod analysis;
pub mod catalog;
pub mod diagnostic;
pub mod effective;
pub mod model;
pub mod source;
pub mod suggest;
pub mod syntax;
pub mod topology;
pub mod workspace;
pub mod world;
