//! What a caught panic said, for the log and the error answer (invariant 7): handlers, indexing
//! and the disk watch all catch theirs.

use std::any::Any;

/// The panic's message, when it was a string.
pub fn panic_message(p: Box<dyn Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_owned()
    }
}
