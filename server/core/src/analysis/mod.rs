//! Editor and CLI features as plain data over a snapshot. Positions are byte offsets into the
//! file's text; the LSP crate converts at its edge.

pub mod diagnostics;
#[cfg(test)]
pub(crate) mod fixture;

use std::sync::Arc;

use crate::syntax::Span;

/// A place in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: Arc<str>,
    pub span: Span,
}

/// A replacement of a span of one file by new text: what a rename or a code action edits
/// (converted to an LSP `TextEdit` at the server's edge).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEdit {
    pub file: Arc<str>,
    pub span: Span,
    pub new_text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Hover {
    /// The range the hover is about (highlighted by editors).
    pub span: Span,
    pub markdown: String,
    /// The §2.1 reference of the object (or section) the hover is about, when it has one:
    /// what an editor's "Explain" or "Show in topology" action asks for.
    pub target: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// An object name (Gateway, route, Service...).
    Reference,
    /// A listener, rule or port name.
    Section,
    /// A kind / group pair.
    Kind,
    Namespace,
    /// An enum value such as a strategy.
    Value,
    /// A snippet inserting a structure (a new targetRefs entry).
    Snippet,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    /// Shown right after the label, dimmed (LSP `labelDetails.detail`): e.g. the group of a
    /// kind when the reference has no `group` yet, the namespace of a name from elsewhere.
    pub label_detail: Option<String>,
    pub documentation: Option<String>,
    /// Text replacing `replace`; a snippet (`$1`, `${1:name}`) when `is_snippet`.
    pub insert_text: String,
    pub is_snippet: bool,
    pub replace: Span,
    /// Orders items (nearest first): compared as strings.
    pub sort_text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Object,
    Policy,
    Section,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    pub file: Arc<str>,
    /// The whole object or section.
    pub span: Span,
    /// The name to highlight.
    pub selection_span: Span,
    pub children: Vec<Symbol>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CodeLens {
    pub span: Span,
    pub title: String,
    /// Where the lens leads (the policies or targets it counts).
    pub locations: Vec<Location>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeActionKind {
    QuickFix,
    Refactor,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CodeAction {
    pub title: String,
    pub kind: CodeActionKind,
    pub edits: Vec<FileEdit>,
    /// The diagnostic code it fixes, when it is a quick fix.
    pub fixes: Option<diagnostics::Code>,
    pub preferred: bool,
}

mod actions;
mod completion;
mod cursor;
pub mod diff;
pub mod explain_text;
pub mod graph;
mod hover;
mod lens;
mod navigation;
pub mod near;
pub mod reach;
mod refs;
mod rename;
mod scalar;
mod summary;
mod symbols;
#[cfg(test)]
mod tests;
pub mod yaml;

pub use actions::code_actions;
pub use completion::completions;
pub use hover::hover;
pub use lens::code_lenses;
pub use navigation::{definition, references};
pub use rename::{prepare_rename, rename};
pub use symbols::{document_symbols, workspace_symbols};

/// What `explain` should be asked about at `offset`: the target a reference or declaration
/// there denotes, else the object whose document holds the offset; as nodes of the topology.
/// A policy is no target: for it, the targets it attaches to (what its author wants to see).
pub fn explain_nodes_at(snap: &crate::workspace::Snapshot, file: &str, offset: u32) -> Vec<crate::topology::NodeId> {
    let world = snap.world();
    let t = &world.topology;
    let obj = match refs::target_at(world, file, offset) {
        Some((target, _)) => match target.section {
            Some(i) => {
                let node = crate::topology::section_name(world, target.obj, i)
                    .and_then(|name| t.section_node(world, target.obj, name));
                return node.into_iter().collect();
            }
            None => target.obj,
        },
        None => {
            // The innermost: a route a chart rendered lies inside its release's document.
            let Some(id) = refs::objects_in(world, file)
                .into_iter()
                .filter(|&id| world.object(id).span.contains_inclusive(offset))
                .min_by_key(|&id| world.object(id).span.len())
            else {
                return Vec::new();
            };
            id
        }
    };
    if let Some(res) = t.policies.get(&obj) {
        let mut nodes: Vec<_> = res.attached_nodes().collect();
        nodes.dedup();
        if !nodes.is_empty() {
            return nodes;
        }
    }
    vec![t.object_node(obj)]
}
