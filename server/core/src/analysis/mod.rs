//! Editor and CLI features as plain data over a snapshot: diagnostics now; hover, completion,
//! definition, references and the rest build on the same world.

pub mod diagnostics;
