pub mod support;

mod cluster;
mod custom;
mod diagnostics;
mod features;
mod hostile;
mod lifecycle;
mod random;
mod repos;
mod sync;
mod watch;
