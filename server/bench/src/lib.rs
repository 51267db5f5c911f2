//! policylens-bench: synthetic workspaces and benchmark helpers.
//!
//! [`synth`] writes deterministic Gateway API workspaces of any size (the `policylens-synth`
//! binary is a thin command line around it).

pub mod synth;
