//! Code actions: replace a name or section that resolves to nothing with the closest existing
//! one (and offer every other existing choice, every kind a policy may target), remove a
//! repeated targetRef, create a missing ReferenceGrant, ignore any finding where it is
//! (`more.rs`), and convert a singular `targetRef` to a one-item `targetRefs` list.

mod more;
mod to_list;

use std::sync::Arc;

use super::diagnostics::{Code, Diagnostic};
use super::refs::{RefKind, objects_in, sites};
use super::{CodeAction, CodeActionKind, FileEdit};
use crate::model::{Body, GATEWAY_GROUP, GroupKind};
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::section_names;
use crate::workspace::Snapshot;

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
        out.extend(more::create_grant(world, file, src.text(), d));
        let fixable = matches!(
            d.code,
            Code::TargetNotFound
                | Code::SectionNotFound
                | Code::ParentNotFound
                | Code::BackendNotFound
                | Code::TargetKindNotAllowed
        );
        if fixable {
            for (i, fix) in d.fixes.iter().enumerate() {
                out.push(replace(&src.path, src.text(), d, fix, i == 0));
            }
            for choice in choices(world, file, d).into_iter().chain(more::allowed_kinds(world, file, d)) {
                if !d.fixes.contains(&choice) {
                    out.push(replace(&src.path, src.text(), d, &choice, false));
                }
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

/// Every existing value the diagnosed field could take: the sections of the target for a
/// missing section, the Gateways of the namespace for a missing parent, the Service's ports
/// for a missing port.
fn choices(world: &Linked, file: &str, d: &Diagnostic) -> Vec<String> {
    if !matches!(d.code, Code::SectionNotFound | Code::ParentNotFound | Code::BackendNotFound) {
        return Vec::new();
    }
    for id in objects_in(world, file) {
        if !world.object(id).span.contains_inclusive(d.span.start) {
            continue;
        }
        for s in sites(world, id) {
            if s.section_span == Some(d.span) {
                let Some(obj) = s.object else { continue };
                return section_names(world, obj).into_iter().take(MAX_CHOICES).collect();
            }
            if s.port_span == Some(d.span) && s.kind == RefKind::Backend {
                let Some(obj) = s.object else { continue };
                let Body::Service(svc) = &world.object(obj).body else { continue };
                return svc.ports.iter().filter_map(|p| p.port).map(|p| p.to_string()).take(MAX_CHOICES).collect();
            }
            if s.name_span == Some(d.span) && d.code == Code::ParentNotFound && s.object.is_none() {
                let Some(f) = s.fields else { continue };
                let kind = f.kind.as_ref().map_or("Gateway", |k| k.value.as_str());
                let group = f.group.as_ref().map_or(GATEWAY_GROUP, |g| g.value.as_str());
                let ns = f.namespace.as_ref().map(|n| n.value.as_str()).or(world.namespace_of(id));
                let mut names: Vec<String> = world
                    .objects_of(&GroupKind::new(group, kind))
                    .iter()
                    .filter(|&&o| world.namespace_of(o) == ns)
                    .map(|&o| world.object(o).name.value.to_string())
                    .collect();
                names.sort();
                names.truncate(MAX_CHOICES);
                return names;
            }
        }
    }
    Vec::new()
}
