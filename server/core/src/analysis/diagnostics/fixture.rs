//! Multi-file inline fixtures for tests: `//- path` starts a file; `$0` pairs mark the exact
//! ranges diagnostics must cover.

use crate::syntax::Span;
use crate::workspace::Workspace;

pub(crate) struct Fixture {
    pub workspace: Workspace,
    /// (file, marked span), in order of appearance.
    pub marks: Vec<(String, Span)>,
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
        let mut open: Option<u32> = None;
        let mut rest = raw.as_str();
        while let Some(i) = rest.find("$0") {
            text.push_str(&rest[..i]);
            let here = text.len() as u32;
            match open.take() {
                None => open = Some(here),
                Some(start) => marks.push((path.clone(), Span::new(start, here))),
            }
            rest = &rest[i + 2..];
        }
        text.push_str(rest);
        if path.ends_with(".policylens.yaml") {
            workspace.set_config(Some(&path), &text);
        } else {
            workspace.set_file(&path, text);
        }
    }
    Fixture { workspace, marks }
}
