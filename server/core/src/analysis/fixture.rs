//! Inline multi-file fixtures for tests: `//- path` starts a file; `$0` marks a cursor, and
//! two marks in one file a range. A `.policylens.yaml` file is loaded as the config, and a
//! `cluster://` path as an object read from a live cluster.

use crate::syntax::Span;
use crate::workspace::Workspace;

pub(crate) struct Fixture {
    pub workspace: Workspace,
    /// Every `$0` as (file, offset), in order of appearance.
    pub marks: Vec<(String, u32)>,
}

impl Fixture {
    /// The marks paired into ranges, per file, in order.
    pub fn ranges(&self) -> Vec<(String, Span)> {
        self.marks.chunks(2).filter(|p| p.len() == 2).map(|p| (p[0].0.clone(), Span::new(p[0].1, p[1].1))).collect()
    }
}

pub(crate) fn parse(fixture: &str) -> Fixture {
    let mut workspace = Workspace::new();
    let mut marks = Vec::new();
    let mut files: Vec<(String, String)> = Vec::new();
    for line in fixture.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix("//- ") {
            files.push((path.trim().to_owned(), String::new()));
        } else if let Some((_, text)) = files.last_mut() {
            text.push_str(line);
        }
    }
    for (path, raw) in files {
        let mut text = String::with_capacity(raw.len());
        let mut rest = raw.as_str();
        while let Some(i) = rest.find("$0") {
            text.push_str(&rest[..i]);
            marks.push((path.clone(), text.len() as u32));
            rest = &rest[i + 2..];
        }
        text.push_str(rest);
        if path.ends_with(".policylens.yaml") {
            workspace.set_config(Some(&path), &text);
        } else if path.starts_with("cluster://") {
            // As the live-cluster reader names what it read.
            workspace.set_file_with_origin(&path, text, crate::source::Origin::Cluster);
        } else {
            workspace.set_file(&path, text);
        }
    }
    Fixture { workspace, marks }
}
