//! Document and workspace symbols: objects (policies told apart) with their listeners, named
//! rules and named ports as children.

use super::refs::{objects_in, section_decl, section_indices};
use super::summary::{display_name, section_detail, section_noun};
use super::{Symbol, SymbolKind};
use crate::workspace::Snapshot;
use crate::world::ObjId;
use crate::world::World;

/// Every object of `file`, in order, each with its sections.
pub fn document_symbols(snap: &Snapshot, file: &str) -> Vec<Symbol> {
    let world = snap.world();
    objects_in(world, file)
        .into_iter()
        .map(|id| {
            let mut s = object_symbol(world, id);
            s.children = section_indices(world, id)
                .into_iter()
                .filter_map(|i| {
                    let (name, name_span, item_span) = section_decl(world, id, i)?;
                    Some(Symbol {
                        name: name.to_owned(),
                        detail: Some(section_detail(world, id, i)),
                        kind: SymbolKind::Section,
                        file: s.file.clone(),
                        span: item_span,
                        selection_span: name_span,
                        children: Vec::new(),
                    })
                })
                .collect();
            s
        })
        .collect()
}

/// Objects and sections anywhere in the workspace whose name contains the query's letters in
/// order (case-insensitive); an empty query matches everything. Flat: sections are listed
/// after their object, not inside it.
pub fn workspace_symbols(snap: &Snapshot, query: &str) -> Vec<Symbol> {
    let world = snap.world();
    let query: Vec<char> = query.chars().flat_map(char::to_lowercase).collect();
    let mut out = Vec::new();
    for id in world.ids() {
        if matches(&query, &world.object(id).name.value) {
            out.push(object_symbol(world, id));
        }
        for i in section_indices(world, id) {
            let Some((name, name_span, item_span)) = section_decl(world, id, i) else { continue };
            if matches(&query, name) {
                out.push(Symbol {
                    name: name.to_owned(),
                    detail: Some(format!("{} of {}", section_noun(world, id), display_name(world, id))),
                    kind: SymbolKind::Section,
                    file: world.file_of(id).path.clone(),
                    span: item_span,
                    selection_span: name_span,
                    children: Vec::new(),
                });
            }
        }
    }
    out
}

fn object_symbol(world: &World, id: ObjId) -> Symbol {
    let o = world.object(id);
    let detail = match world.namespace_of(id) {
        Some(ns) => format!("{} · {ns}", o.group_kind()),
        None => o.group_kind().to_string(),
    };
    Symbol {
        name: o.name.value.to_string(),
        detail: Some(detail),
        kind: if world.policy_kind(id).is_some() { SymbolKind::Policy } else { SymbolKind::Object },
        file: world.file_of(id).path.clone(),
        span: o.span,
        selection_span: o.name.span,
        children: Vec::new(),
    }
}

/// Case-insensitive subsequence match: `chk` matches `checkout`.
fn matches(query: &[char], name: &str) -> bool {
    let mut q = query.iter().peekable();
    for c in name.chars().flat_map(char::to_lowercase) {
        if q.peek() == Some(&&c) {
            q.next();
        }
    }
    q.peek().is_none()
}
