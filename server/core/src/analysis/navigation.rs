//! Go to definition (a ref → its target or section) and find references (a target → every
//! policy and route that points at it).

use super::Location;
use crate::workspace::Snapshot;

pub fn definition(_snap: &Snapshot, _file: &str, _offset: u32) -> Vec<Location> {
    Vec::new()
}

pub fn references(_snap: &Snapshot, _file: &str, _offset: u32, _include_declaration: bool) -> Vec<Location> {
    Vec::new()
}
