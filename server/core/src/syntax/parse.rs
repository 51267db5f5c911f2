//! The YAML parser front: splits a file into documents and builds span-carrying trees from
//! saphyr-parser events.

use super::ParsedFile;

pub fn parse_file(_text: &str) -> ParsedFile {
    ParsedFile::default()
}
