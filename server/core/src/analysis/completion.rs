//! Completion inside targetRefs, parentRefs and backendRefs, strategy values, and a snippet
//! for a new targetRefs entry (docs/semantics.md §7).
//!
//! The cursor context comes from re-parsing the file ([`super::cursor`]), so completion works
//! while the document is half typed; what the names refer to comes from the snapshot's world.
//! Items are not filtered by what is typed (clients filter fuzzily); `replace` is the word
//! being typed, and `sort_text` orders them nearest first.

mod site;
mod snippet;
mod values;

use std::sync::Arc;

use super::CompletionItem;
pub(super) use super::cursor::column;
use super::cursor::{Cursor, Seg};
use super::refs::{RefKind, objects_in};
use crate::catalog::PolicyKind;
use crate::model::{GroupKind, RouteKind, normalize_group};
use crate::syntax::Node;
use crate::topology::Linked;
use crate::workspace::Snapshot;
use crate::world::ObjId;

pub fn completions(snap: &Snapshot, file: &str, offset: u32) -> Vec<CompletionItem> {
    completions_in(snap, snap.world(), file, offset)
}

/// Completion with `world` answering what names refer to: the snapshot's, or the file's
/// partial world (`analysis::near`).
pub(super) fn completions_in(snap: &Snapshot, world: &Linked, file: &str, offset: u32) -> Vec<CompletionItem> {
    let Some(src) = snap.file(file) else { return Vec::new() };
    // A word typed in a comment is prose: completing it would replace it with a name.
    if super::cursor::in_comment(src.text(), offset) {
        return Vec::new();
    }
    let cursor = Cursor::at(src.text(), offset);
    let Some(doc) = DocObject::read(world, file, &cursor) else { return Vec::new() };
    let input = CompletionInput { world, file, text: src.text(), cursor: &cursor, doc: &doc };
    let mut items = match site::classify(&input) {
        Some(site::Site::RefValue { kind, ref_path, field }) => values::ref_value(&input, kind, &ref_path, &field),
        Some(site::Site::NewTargetRef(form)) => snippet::new_target_ref(&input, form),
        Some(site::Site::Strategy { field, overrides }) => values::strategy(&input, &field, overrides),
        None => Vec::new(),
    };
    if cursor.needs_space {
        for i in &mut items {
            if !i.insert_text.starts_with('\n') {
                i.insert_text.insert(0, ' ');
            }
        }
    }
    // Fully ordered: a partial world lists objects in another order than the full one.
    items.sort_by(|a, b| {
        (&a.sort_text, &a.label, &a.label_detail, &a.detail).cmp(&(&b.sort_text, &b.label, &b.label_detail, &b.detail))
    });
    items
}

/// What a completion provider reads: the world, the file and its text, where the cursor is
/// and the object of its document.
pub(super) struct CompletionInput<'a> {
    pub world: &'a Linked,
    pub file: &'a str,
    pub text: &'a str,
    pub cursor: &'a Cursor,
    pub doc: &'a DocObject,
}

/// The object of the cursor's document (or `kind: List` item), read from the re-parsed tree and
/// matched with the snapshot's object when there is one.
pub(super) struct DocObject {
    /// Path segments from the document root to `root` (`items[i]` in a List).
    pub base: usize,
    pub gk: GroupKind,
    /// The object's namespace, defaulted; `None` for cluster-scoped kinds.
    pub namespace: Option<String>,
    pub id: Option<ObjId>,
    pub policy: Option<Arc<PolicyKind>>,
}

impl DocObject {
    fn read(world: &Linked, file: &str, cursor: &Cursor) -> Option<DocObject> {
        let mut root = cursor.root()?;
        let mut base = 0;
        let list_kind = root.get("kind").and_then(Node::as_str).is_some_and(|k| k.ends_with("List"));
        if let (true, [Seg::Key(items), Seg::Index(i), ..]) = (list_kind, cursor.path.as_slice())
            && items == "items"
        {
            root = root.get("items")?.as_sequence()?.get(*i)?;
            base = 2;
        }
        let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| normalize_group(g));
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        let gk = GroupKind::new(group, kind);
        let id = objects_in(world, file).into_iter().find(|&id| world.object(id).span == root.span);
        let namespace = match id {
            Some(id) => world.namespace_of(id).map(str::to_owned),
            None => Some(
                root.at(&["metadata", "namespace"])
                    .and_then(Node::as_str)
                    .filter(|n| !n.is_empty())
                    .map_or_else(|| world.default_namespace.to_string(), str::to_owned),
            ),
        };
        let policy = id.and_then(|id| world.policy_kind(id)).or_else(|| world.catalog.get(&gk)).cloned();
        Some(DocObject { base, gk, namespace, id, policy })
    }

    pub fn is_route(&self) -> bool {
        RouteKind::from_kind(&self.gk.kind).is_some() && self.gk.group.starts_with("gateway.networking")
    }

    pub fn is_listener_set(&self) -> bool {
        matches!(self.gk.kind.as_str(), "ListenerSet" | "XListenerSet")
    }
}

/// A reference's fields as typed so far (from the tree; the one under the cursor excluded by
/// the caller when it matters).
#[derive(Debug, Default)]
pub(super) struct Fields {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl Fields {
    fn read(node: Option<&Node>, skip: &str) -> Fields {
        let get = |k: &str| {
            if k == skip {
                return None;
            }
            let v = node?.get(k)?;
            // `group: ""` (or null) is the core group: present, and empty.
            if k == "group" && v.is_null() {
                return Some(String::new());
            }
            v.as_str().map(|s| if k == "group" { normalize_group(s).to_owned() } else { s.to_owned() })
        };
        Fields { group: get("group"), kind: get("kind"), name: get("name"), namespace: get("namespace") }
    }
}

/// The group a ref means when it leaves it out, as topology resolves it.
pub(super) fn default_group(kind: RefKind, policy: Option<&PolicyKind>, ref_kind: Option<&str>) -> String {
    match kind {
        RefKind::Backend => String::new(),
        RefKind::Parent | RefKind::ListenerSetParent => {
            if ref_kind == Some("Service") {
                String::new()
            } else {
                crate::model::GATEWAY_GROUP.to_owned()
            }
        }
        _ => match policy.and_then(|p| p.default_ref_group.clone()) {
            Some(g) => g,
            None => match ref_kind {
                Some("Service" | "Namespace") => String::new(),
                _ => crate::model::GATEWAY_GROUP.to_owned(),
            },
        },
    }
}
