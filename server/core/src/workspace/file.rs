//! One source file: its text, line index, syntax errors and the objects read from it.

use std::sync::{Arc, OnceLock};

use crate::model::{Object, extract_objects};
use crate::syntax::{LineIndex, Position, PositionEncoding, Span, SyntaxError, parse_file};

#[derive(Debug)]
pub struct SourceFile {
    pub path: Arc<str>,
    pub text: Arc<str>,
    /// Built on first use: most files of a large workspace never need positions.
    line_index: OnceLock<LineIndex>,
    /// One per broken document, in order.
    pub syntax_errors: Vec<SyntaxError>,
    pub documents: u32,
    pub objects: Vec<Object>,
    /// Set when the file is not text: why it was skipped.
    pub unreadable: Option<String>,
}

impl SourceFile {
    pub fn parse(path: Arc<str>, text: Arc<str>) -> SourceFile {
        let parsed = parse_file(&text);
        let objects = extract_objects(&parsed);
        let syntax_errors = parsed.documents.iter().filter_map(|d| d.error.clone()).collect();
        SourceFile {
            path,
            line_index: OnceLock::new(),
            text,
            syntax_errors,
            documents: parsed.documents.len() as u32,
            objects,
            unreadable: None,
        }
    }

    /// A file kept only for its text and positions (the config file).
    pub fn unparsed(path: Arc<str>, text: Arc<str>) -> SourceFile {
        SourceFile {
            path,
            line_index: OnceLock::new(),
            text,
            syntax_errors: Vec::new(),
            documents: 0,
            objects: Vec::new(),
            unreadable: None,
        }
    }

    pub fn unreadable(path: Arc<str>, reason: &str) -> SourceFile {
        SourceFile {
            path,
            text: Arc::from(""),
            line_index: OnceLock::new(),
            syntax_errors: Vec::new(),
            documents: 0,
            objects: Vec::new(),
            unreadable: Some(reason.to_owned()),
        }
    }

    pub fn line_index(&self) -> &LineIndex {
        self.line_index.get_or_init(|| LineIndex::new(&self.text))
    }

    pub fn position(&self, offset: u32, enc: PositionEncoding) -> Position {
        self.line_index().position(&self.text, offset, enc)
    }

    pub fn offset(&self, pos: Position, enc: PositionEncoding) -> u32 {
        self.line_index().offset(&self.text, pos, enc)
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start as usize..span.end as usize).unwrap_or("")
    }
}
