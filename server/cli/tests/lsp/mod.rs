pub mod support;

mod blast;
mod cluster;
mod custom;
mod diagnostics;
mod features;
mod hostile;
mod lifecycle;
mod random;
mod repos;
mod sessions;
mod sync;
mod truthful;
mod watch;
