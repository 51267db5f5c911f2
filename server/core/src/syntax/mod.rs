//! YAML text → documents of span-carrying nodes. Parsing never fails: it returns what it could
//! build plus errors.

mod json;
mod line_index;
mod node;
mod packed;
mod parse;

pub use line_index::{LineIndex, Position, PositionEncoding, Range};
pub use node::{ByteEdit, Document, Entry, Node, NodeKind, ParsedFile, Scalar, ScalarStyle, Span, SyntaxError};
pub use packed::PackedNode;
pub use parse::{
    Moved, Reuse, is_templated, parse_document_at, parse_each, parse_each_after, parse_file, parse_file_by_libyaml,
};
