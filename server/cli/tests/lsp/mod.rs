pub mod support;

mod blast;
mod cluster;
mod custom;
mod diagnostics;
mod editors;
mod features;
mod hostile;
mod lifecycle;
mod random;
mod repos;
mod roots;
mod sessions;
mod sync;
mod truthful;
mod watch;
