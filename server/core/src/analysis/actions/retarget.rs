//! A targetRef whose kind the policy may not target (`target-kind-not-allowed`): the objects it
//! may target instead that stand for what it names, each written whole (group, kind, name and
//! `sectionName` at once). For a route, the Gateways (or listeners, or ListenerSets) the route
//! attaches to, in the policy's own namespace; for any object, an object of an allowed kind
//! with the same name. Nothing else: a kind alone swapped in names an object that does not
//! exist (`Gateway/shop/storefront`), a new finding instead of a fix.

use std::sync::Arc;

use super::more::{line_end, line_start};
use crate::analysis::diagnostics::{Code, Diagnostic};
use crate::analysis::refs::sites;
use crate::analysis::{CodeAction, CodeActionKind, FileEdit};
use crate::catalog::PolicyKind;
use crate::model::{Body, GATEWAY_GROUP, GroupKind, RefFields, normalize_group};
use crate::syntax::Span;
use crate::topology::{Linked, ParentResolution};
use crate::world::ObjId;

/// An object the ref could name instead, and the section (listener) to name.
struct Choice {
    obj: ObjId,
    section: Option<String>,
    /// Why it is offered, for the title: "where HTTPRoute `storefront` attaches".
    why: Option<String>,
}

pub(super) fn retarget(world: &Linked, file: &str, text: &str, d: &Diagnostic) -> Vec<CodeAction> {
    if d.code != Code::TargetKindNotAllowed {
        return Vec::new();
    }
    let Some(owner) = super::owner(world, file, d) else { return Vec::new() };
    let Some(kind) = world.policy_kind(owner) else { return Vec::new() };
    let Some(f) = sites(world, owner)
        .into_iter()
        .filter_map(|s| s.fields)
        .find(|f| f.kind.as_ref().is_some_and(|k| k.span == d.span))
    else {
        return Vec::new();
    };
    let Some(name) = f.name.as_ref().map(|n| n.value.as_str()) else { return Vec::new() };
    let own_ns = world.namespace_of(owner);
    let ns = f.namespace.as_ref().map(|n| n.value.as_str()).or(own_ns);
    let choices = choices(world, owner, kind, f, name, ns);
    let single = choices.len() == 1;
    choices
        .into_iter()
        .filter_map(|c| {
            let edits = rewrite(text, f, kind, world, &c)?;
            let obj = world.object(c.obj);
            let mut title = format!("Target {} `{}`", obj.kind(), obj.name.value);
            if let Some(s) = &c.section {
                title.push_str(&format!(", listener `{s}`"));
            }
            if let Some(why) = &c.why {
                title.push_str(&format!(" ({why})"));
            }
            let path: Arc<str> = world.file_of(owner).path.clone();
            Some(CodeAction {
                title,
                kind: CodeActionKind::QuickFix,
                edits: edits
                    .into_iter()
                    .map(|(span, new_text)| FileEdit { file: path.clone(), span, new_text })
                    .collect(),
                fixes: Some(Code::TargetKindNotAllowed),
                preferred: single,
            })
        })
        .collect()
}

/// What the ref could name instead, in the policy's namespace: an object of an allowed kind with
/// the same name, and the parents the named route attaches to.
fn choices(
    world: &Linked,
    owner: ObjId,
    kind: &PolicyKind,
    f: &RefFields,
    name: &str,
    ns: Option<&str>,
) -> Vec<Choice> {
    let own_ns = world.namespace_of(owner);
    let written = f.kind.as_ref().map_or("", |k| k.value.as_str());
    let mut out: Vec<Choice> = Vec::new();
    for t in &kind.targets {
        if t.gk.kind == written {
            continue;
        }
        if let Some(obj) = world.lookup_from(owner, &t.gk, own_ns, name)
            && world.namespace_of(obj) == own_ns
        {
            out.push(Choice { obj, section: None, why: None });
        }
    }
    // The route it names, in whatever group the ref says (or the Gateway API's).
    let group = f.group.as_ref().map_or(GATEWAY_GROUP, |g| normalize_group(&g.value));
    let Some(route) = world.lookup_from(owner, &GroupKind::new(group, written), ns, name) else { return out };
    let Body::Route(r) = &world.object(route).body else { return out };
    for (p, res) in r.parent_refs.iter().zip(world.topology.parent_refs(route)) {
        let ParentResolution::Attached { parent, .. } = res else { continue };
        let Some(target) = kind.target(&world.object(*parent).group_kind()) else { continue };
        // Policies of a kind that may not cross namespaces cannot reach a Gateway in another
        // (the demo's `shop` policy and `infra/edge`): nothing to offer there.
        if world.namespace_of(*parent) != own_ns {
            continue;
        }
        let section = p.section_name.as_ref().filter(|_| target.section_name).map(|s| s.value.to_string());
        if out.iter().any(|c| c.obj == *parent && c.section == section) {
            continue;
        }
        let why = format!("where {} `{}` attaches", written, name);
        out.push(Choice { obj: *parent, section, why: Some(why) });
    }
    out
}

/// The ref rewritten to name `c`: (span, new text) edits, ordered; `None` where a field would
/// have to be added to a flow mapping (`{kind: …, name: …}`), which is left to the user.
fn rewrite(text: &str, f: &RefFields, kind: &PolicyKind, world: &Linked, c: &Choice) -> Option<Vec<(Span, String)>> {
    let obj = world.object(c.obj);
    let flow = text.get(f.span.start as usize..)?.starts_with('{');
    let mut edits: Vec<(Span, String)> = Vec::new();
    // The group: written when the ref has one, or when the default would be another.
    let default_group = kind.default_ref_group.as_deref().unwrap_or(GATEWAY_GROUP);
    let group = obj.group();
    match &f.group {
        Some(g) if normalize_group(&g.value) != group => {
            edits.push((g.span, if group.is_empty() { "\"\"".to_owned() } else { group.to_owned() }))
        }
        None if group != default_group => return None,
        _ => {}
    }
    edits.push((f.kind.as_ref()?.span, obj.kind().to_owned()));
    let name = f.name.as_ref()?;
    edits.push((name.span, obj.name.value.to_string()));
    if let Some(n) = &f.namespace
        && world.namespace_of(c.obj).is_some_and(|ns| ns != n.value.as_str())
    {
        edits.push((n.span, world.namespace_of(c.obj)?.to_owned()));
    }
    match (&f.section_name, &c.section) {
        (Some(s), Some(new)) => edits.push((s.span, new.clone())),
        (Some(s), None) if !flow => {
            // The whole `sectionName: …` line goes.
            let start = line_start(text, s.span.start as usize);
            let end = line_end(text, s.span.end as usize);
            if !text.get(start..s.span.start as usize)?.trim_start().starts_with("sectionName") {
                return None;
            }
            edits.push((Span::new(start as u32, end as u32), String::new()));
        }
        (None, Some(new)) if !flow => {
            // A line below `name`, at its key's column.
            let start = line_start(text, name.span.start as usize);
            let line = text.get(start..name.span.start as usize)?;
            let key = line.find("name")?;
            let at = line_end(text, name.span.end as usize);
            let sep = if at == text.len() && !text.ends_with('\n') { "\n" } else { "" };
            edits.push((Span::new(at as u32, at as u32), format!("{sep}{}sectionName: {new}\n", " ".repeat(key))));
        }
        (None, None) => {}
        _ => return None,
    }
    edits.sort_by_key(|(s, _)| s.start);
    Some(edits)
}
