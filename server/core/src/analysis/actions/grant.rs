//! `backend-not-permitted`: a backendRef into another namespace that no ReferenceGrant opens.
//! A grant belongs to the namespace it opens (its owners review it, and it must live there).
//! Where a grant there already admits the backend, this kind from this namespace is added to
//! its `from`; where one already admits this kind from this namespace, the backend is added to
//! its `to`. Else a new grant goes beside that namespace's objects: at the end of the file that
//! defines the backend (a file its kustomization already lists, unlike a new file), or of
//! another file of that namespace; the referring file only when the namespace has none.

use std::sync::Arc;

use super::more::{line_end, line_start};
use crate::analysis::diagnostics::{Code, Diagnostic};
use crate::analysis::refs::{RefKind, sites};
use crate::analysis::{CodeAction, CodeActionKind, FileEdit};
use crate::model::{Body, GATEWAY_GROUP, GroupKind};
use crate::source::Origin;
use crate::syntax::{Node, Span};
use crate::topology::Linked;
use crate::world::ObjId;

/// What the backendRef needs admitted: from (group, kind, namespace) to (group, kind, name).
struct Wanted<'a> {
    from: GroupKind,
    from_ns: &'a str,
    to_ns: &'a str,
    to_group: &'a str,
    to_kind: &'a str,
    name: Option<&'a str>,
}

pub(super) fn grant_fixes(world: &Linked, file: &str, d: &Diagnostic) -> Vec<CodeAction> {
    if d.code != Code::BackendNotPermitted {
        return Vec::new();
    }
    let Some(owner) = super::owner(world, file, d) else { return Vec::new() };
    let Some(site) = sites(world, owner).into_iter().find(|s| {
        s.kind == RefKind::Backend && s.fields.is_some_and(|f| f.namespace.as_ref().is_some_and(|n| n.span == d.span))
    }) else {
        return Vec::new();
    };
    let Some(f) = site.fields else { return Vec::new() };
    let (Some(to_ns), Some(from_ns)) = (f.namespace.as_ref(), world.namespace_of(owner)) else { return Vec::new() };
    let w = Wanted {
        from: world.object(owner).group_kind(),
        from_ns,
        to_ns: to_ns.value.as_str(),
        to_group: f.group.as_ref().map_or("", |g| g.value.as_str()),
        to_kind: f.kind.as_ref().map_or("Service", |k| k.value.as_str()),
        name: f.name.as_ref().map(|n| n.value.as_str()),
    };
    let extended: Vec<CodeAction> = grants_in(world, w.to_ns).filter_map(|g| extend(world, g, &w)).collect();
    if !extended.is_empty() {
        return extended;
    }
    create(world, owner, site.object, &w).into_iter().collect()
}

/// The workspace's ReferenceGrants in `ns` (files', not the live cluster's: those cannot be
/// edited here).
fn grants_in<'w>(world: &'w Linked, ns: &'w str) -> impl Iterator<Item = ObjId> + 'w {
    world
        .objects_of(&GroupKind::new(GATEWAY_GROUP, "ReferenceGrant"))
        .iter()
        .copied()
        .filter(move |&g| world.namespace_of(g) == Some(ns) && world.file_of(g).origin == Origin::Workspace)
}

/// Adds the missing half to a grant that has the other: this kind to `from` where `to` admits
/// the backend, or the backend to `to` where `from` admits this kind.
fn extend(world: &Linked, grant: ObjId, w: &Wanted) -> Option<CodeAction> {
    let Body::ReferenceGrant(g) = &world.object(grant).body else { return None };
    let admits_to =
        g.to.iter()
            .any(|t| t.group == w.to_group && t.kind == w.to_kind && (t.name.is_none() || t.name.as_deref() == w.name));
    let admits_from =
        g.from.iter().any(|fr| fr.group == w.from.group && fr.kind == w.from.kind && fr.namespace == w.from_ns);
    let src = world.file_of(grant);
    let text = src.text();
    let obj = world.object(grant);
    let gname = format!("{}/{}", w.to_ns, obj.name.value);
    let (list, item, title) = if admits_to && !admits_from {
        let item =
            [("group", quoted(&w.from.group)), ("kind", w.from.kind.to_string()), ("namespace", w.from_ns.to_owned())];
        ("from", item.to_vec(), format!("Add {} from `{}` to ReferenceGrant {gname}", w.from.kind, w.from_ns))
    } else if admits_from && !admits_to {
        let mut item = vec![("group", quoted(w.to_group)), ("kind", w.to_kind.to_owned())];
        item.extend(w.name.map(|n| ("name", n.to_owned())));
        let what = w.name.map_or(w.to_kind.to_owned(), |n| format!("{} `{n}`", w.to_kind));
        ("to", item, format!("Add {what} to ReferenceGrant {gname}"))
    } else {
        return None;
    };
    let (at, new_text) = append_item(text, obj.span, list, &item)?;
    Some(CodeAction {
        title,
        kind: CodeActionKind::QuickFix,
        edits: vec![FileEdit { file: src.path.clone(), span: Span::new(at, at), new_text }],
        fixes: Some(Code::BackendNotPermitted),
        preferred: true,
    })
}

fn quoted(s: &str) -> String {
    if s.is_empty() { "\"\"".to_owned() } else { s.to_owned() }
}

/// Where to insert one more item of the block sequence `spec.<list>` of the object whose
/// mapping is `object`, and the item's text, indented as the last item is. `None` for a flow
/// sequence or an unexpected shape.
fn append_item(text: &str, object: Span, list: &str, fields: &[(&str, String)]) -> Option<(u32, String)> {
    let parsed = crate::syntax::parse_file(text);
    let root = parsed.documents.iter().filter_map(|d| d.root.as_ref()).find(|r| r.span == object)?;
    let items: &[Node] = root.at(&["spec", list])?.as_sequence()?;
    let last = items.last()?;
    last.as_mapping()?;
    let start = line_start(text, last.span.start as usize);
    let lead = text.get(start..last.span.start as usize)?;
    // `    - group: …`: the dash and the blanks before the first key.
    let dash = lead.find('-').filter(|&i| lead[..i].bytes().all(|b| b == b' ') && lead[i + 1..].trim().is_empty())?;
    let mut out = format!("{}-{}", " ".repeat(dash), " ".repeat(lead.len() - dash - 1));
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(&" ".repeat(lead.len()));
        }
        out.push_str(&format!("{k}: {v}\n"));
    }
    let at = line_end(text, last.span.end.saturating_sub(1) as usize);
    let sep = if at == text.len() && !text.ends_with('\n') { "\n" } else { "" };
    Some((at as u32, format!("{sep}{out}")))
}

/// `HTTPRoutes` → `httproutes`, for a grant's name.
fn plural_lower(kind: &str) -> String {
    let k = kind.to_ascii_lowercase();
    match k.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'o', 'u']) => format!("{stem}ies"),
        _ => format!("{k}s"),
    }
}

/// A new grant, written beside the namespace's objects.
fn create(world: &Linked, owner: ObjId, backend: Option<ObjId>, w: &Wanted) -> Option<CodeAction> {
    let grant = format!("allow-{}-{}", w.from_ns, plural_lower(&w.from.kind));
    let mut doc = format!(
        "---\napiVersion: {GATEWAY_GROUP}/v1beta1\nkind: ReferenceGrant\nmetadata:\n  name: {grant}\n  namespace: {}\nspec:\n  from:\n    - group: {}\n      kind: {}\n      namespace: {}\n  to:\n    - group: {}\n      kind: {}\n",
        w.to_ns,
        quoted(&w.from.group),
        w.from.kind,
        w.from_ns,
        quoted(w.to_group),
        w.to_kind,
    );
    if let Some(n) = w.name {
        doc.push_str(&format!("      name: {n}\n"));
    }
    let editable = |id: &ObjId| world.file_of(*id).origin == Origin::Workspace;
    // The backend's own file, else the first file with an object of that namespace.
    let home = backend.filter(editable).or_else(|| {
        let mut others: Vec<ObjId> =
            world.ids().filter(|&id| world.namespace_of(id) == Some(w.to_ns) && editable(&id)).collect();
        others.sort_by(|a, b| world.file_of(*a).path.cmp(&world.file_of(*b).path));
        others.first().copied()
    });
    let src = world.file_of(home.unwrap_or(owner));
    let text = src.text();
    let end = text.len() as u32;
    let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
    let short = src.path.rsplit('/').next().unwrap_or(&src.path);
    let place = if home.is_some() {
        format!("at the end of {short}, beside namespace `{}`'s objects", w.to_ns)
    } else {
        "at the end of this file: no file of the namespace here".to_owned()
    };
    let path: Arc<str> = src.path.clone();
    Some(CodeAction {
        title: format!("Create ReferenceGrant {}/{grant} ({place})", w.to_ns),
        kind: CodeActionKind::QuickFix,
        edits: vec![FileEdit { file: path, span: Span::new(end, end), new_text: format!("{sep}{doc}") }],
        fixes: Some(Code::BackendNotPermitted),
        preferred: true,
    })
}
