//! policylens-bench: synthetic workspaces and benchmark helpers.
//!
//! [`synth`] writes deterministic Gateway API workspaces of any size (the `policylens-synth`
//! binary is a thin command line around it). [`fake_api`] is a loopback Kubernetes API server
//! for the live-cluster tests and benchmark.

pub mod fake_api;
pub mod lsp_client;
pub mod sessions;
pub mod synth;
