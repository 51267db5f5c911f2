pub mod support;

mod custom;
mod diagnostics;
mod features;
mod lifecycle;
mod random;
mod sync;
mod watch;
