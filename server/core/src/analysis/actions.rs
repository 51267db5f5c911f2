//! Code actions: replace a name or section that resolves to nothing with the closest existing
//! one (and offer every other existing choice), point a targetRef of a kind the policy may not
//! target at what it may (`retarget.rs`), remove a repeated targetRef, open a namespace to a
//! backendRef with a ReferenceGrant (`grant.rs`), ignore any finding where it is (`more.rs`),
//! and convert a singular `targetRef` to a one-item `targetRefs` list. Every quick fix, applied,
//! leaves no new finding (`analysis/tests/actions.rs` applies each one on the demo).

mod grant;
mod more;
mod retarget;
mod to_list;

use std::sync::Arc;

use super::diagnostics::{Code, Diagnostic};
use super::refs::{RefKind, objects_in, sites};
use super::{CodeAction, CodeActionKind, FileEdit};
use crate::model::{Body, GATEWAY_GROUP, GroupKind};
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::{section_names, would_admit};
use crate::workspace::Snapshot;
use crate::world::ObjId;

/// Extra choices offered beyond the diagnostic's own suggestion, at most.
const MAX_CHOICES: usize = 20;

pub fn code_actions(snap: &Snapshot, file: &str, span: Span) -> Vec<CodeAction> {
    let Some(src) = snap.file(file) else { return Vec::new() };
    let world = snap.world();
    let mut out = Vec::new();
    for d in snap.diagnostics_for(file) {
        if d.span.start > span.end || span.start > d.span.end {
            continue;
        }
        out.extend(more::remove_duplicate(&src.path, src.text(), d));
        out.extend(grant::grant_fixes(world, file, d));
        // The kind alone is never swapped: the object to target instead is named whole.
        if d.code == Code::TargetKindNotAllowed {
            out.extend(retarget::retarget(world, file, src.text(), d));
            continue;
        }
        // Where the choices are known, the diagnostic's own suggestion is offered only if it is
        // one of them (a closest name that would not resolve either is no fix).
        let choices = choices(world, file, d);
        let fixes = d.fixes.iter().filter(|f| choices.as_ref().is_none_or(|c| c.contains(f)));
        for (i, fix) in fixes.enumerate() {
            out.push(replace(&src.path, src.text(), d, fix, i == 0));
        }
        for choice in choices.unwrap_or_default() {
            if !d.fixes.contains(&choice) {
                out.push(replace(&src.path, src.text(), d, &choice, false));
            }
        }
    }
    out.extend(to_list::target_ref_to_list(snap, file, span));
    // Silencing comes after every real fix.
    for d in snap.diagnostics_for(file) {
        if d.span.start <= span.end && span.start <= d.span.end {
            out.extend(more::ignore_here(&src.path, src.text(), d));
        }
    }
    out
}

/// The object of `file` whose document holds the diagnostic.
fn owner(world: &Linked, file: &str, d: &Diagnostic) -> Option<ObjId> {
    objects_in(world, file).into_iter().find(|&id| world.object(id).span.contains_inclusive(d.span.start))
}

/// "Replace with `x`" for the diagnostic's span; the replacement keeps the value's quotes.
fn replace(path: &Arc<str>, text: &str, d: &Diagnostic, with: &str, preferred: bool) -> CodeAction {
    let written = text.get(d.span.start as usize..d.span.end as usize).unwrap_or("");
    let quote =
        written.chars().next().filter(|c| matches!(c, '"' | '\'') && written.len() >= 2 && written.ends_with(*c));
    let new_text = match quote {
        Some(q) => format!("{q}{with}{q}"),
        // A name that would read as a number or boolean is quoted; a port number replacing
        // a port number is not.
        None if super::scalar::looks_typed(with) && !super::scalar::looks_typed(written) => format!("\"{with}\""),
        None => with.to_owned(),
    };
    CodeAction {
        title: format!("Replace with `{with}`"),
        kind: CodeActionKind::QuickFix,
        edits: vec![FileEdit { file: path.clone(), span: d.span, new_text }],
        fixes: Some(d.code),
        preferred,
    }
}

/// Every existing value the diagnosed field could take (`None` where that is not known): the
/// sections of the target for a missing section, the Gateways of the namespace for a missing
/// parent, the Service's ports for a missing port. For a route's parentRef, only what would
/// take the route (a Gateway without the listener named, or whose listeners refuse the route,
/// would be a new finding).
fn choices(world: &Linked, file: &str, d: &Diagnostic) -> Option<Vec<String>> {
    if !matches!(d.code, Code::SectionNotFound | Code::ParentNotFound | Code::BackendNotFound) {
        return None;
    }
    for id in objects_in(world, file) {
        if !world.object(id).span.contains_inclusive(d.span.start) {
            continue;
        }
        let route = matches!(world.object(id).body, Body::Route(_)).then_some(id);
        // A Gateway parent that would not take the route on that listener is no choice.
        let takes = |parent: ObjId, section: Option<&str>| match (route, &world.object(parent).body) {
            (Some(r), Body::Gateway(_)) => would_admit(world, parent, section, r),
            _ => true,
        };
        for s in sites(world, id) {
            if s.section_span == Some(d.span) {
                let Some(obj) = s.object else { continue };
                let parent = s.kind == RefKind::Parent;
                let names = section_names(world, obj).into_iter().filter(|n| !parent || takes(obj, Some(n)));
                return Some(names.take(MAX_CHOICES).collect());
            }
            if s.port_span == Some(d.span) && s.kind == RefKind::Backend {
                let Some(obj) = s.object else { continue };
                let Body::Service(svc) = &world.object(obj).body else { continue };
                return Some(
                    svc.ports.iter().filter_map(|p| p.port).map(|p| p.to_string()).take(MAX_CHOICES).collect(),
                );
            }
            if s.name_span == Some(d.span) && d.code == Code::ParentNotFound && s.object.is_none() {
                let Some(f) = s.fields else { continue };
                let kind = f.kind.as_ref().map_or("Gateway", |k| k.value.as_str());
                let group = f.group.as_ref().map_or(GATEWAY_GROUP, |g| g.value.as_str());
                let ns = f.namespace.as_ref().map(|n| n.value.as_str()).or(world.namespace_of(id));
                let section = f.section_name.as_ref().map(|n| n.value.as_str());
                let mut names: Vec<String> = world
                    .objects_of(&GroupKind::new(group, kind))
                    .iter()
                    .filter(|&&o| world.namespace_of(o) == ns && takes(o, section))
                    .map(|&o| world.object(o).name.value.to_string())
                    .collect();
                names.sort();
                names.truncate(MAX_CHOICES);
                return Some(names);
            }
        }
    }
    None
}
