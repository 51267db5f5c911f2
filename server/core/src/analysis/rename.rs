//! Rename a Gateway, ListenerSet, route, Service or GatewayClass, or a listener, rule or port,
//! with every reference to it: the declaration and every ref's `name` or `sectionName` that
//! points at it, across files. Port numbers that match a port are not names and stay.

use super::FileEdit;
use super::refs::{Target, declaration, target_at, usages};
use super::scalar::{inner, replacement};
use super::summary::{display_name, section_noun};
use crate::model::Body;
use crate::syntax::Span;
use crate::topology::Linked;
use crate::topology::{section_name, section_names};
use crate::workspace::Snapshot;

/// The span and current text of the renameable name at `offset`: an object's `metadata.name`,
/// a section's name, or a reference's `name` / `sectionName` (inside quotes, when quoted).
pub fn prepare_rename(snap: &Snapshot, file: &str, offset: u32) -> Option<(Span, String)> {
    let world = snap.world();
    // A route its controller generates has no file: rename what it is generated from instead.
    if super::refs::site_at(world, file, offset).is_some_and(|s| s.generated) {
        return None;
    }
    let (target, span) = target_at(world, file, offset)?;
    renameable(world, target)?;
    let text = snap.file(file)?.text();
    let span = inner(text, span);
    let name = current_name(world, target)?;
    // The cursor must be on the name itself (not on a `kind`, a port number, a whole ref).
    (text.get(span.start as usize..span.end as usize)? == name).then_some((span, name))
}

pub fn rename(snap: &Snapshot, file: &str, offset: u32, new_name: &str) -> Result<Vec<FileEdit>, String> {
    let world = snap.world();
    if let Some((target, _)) = target_at(world, file, offset)
        && target.section.is_none()
        && let Some(note) = super::summary::rendered_note(world, target.obj)
        && !written_exactly(snap, world, target)
    {
        return Err(format!(
            "{} is not written in a file: {}{}. Its name is computed from the release name and the key; set `forceRename` in the values to choose it",
            display_name(world, target.obj),
            note[..1].to_lowercase(),
            &note[1..]
        ));
    }
    if prepare_rename(snap, file, offset).is_none() {
        return Err("nothing to rename here: put the cursor on the name of a Gateway, route, Service, listener, rule, port or ExtensionRef-attached policy, or on a reference's name".into());
    }
    let (target, _) = target_at(world, file, offset).ok_or("nothing to rename here")?;
    let kind = renameable(world, target).ok_or("this cannot be renamed")?;
    let old = current_name(world, target).unwrap_or_default();
    validate(kind, new_name)?;
    if new_name == old {
        return Ok(Vec::new());
    }
    check_free(world, target, kind, new_name)?;

    let mut spans: Vec<(std::sync::Arc<str>, Span)> = vec![declaration(world, target)];
    spans.extend(usages(world, target).into_iter().filter(|u| u.is_name).map(|u| (u.file, u.span)));
    // A reference a chart computes (a backendRef by `identifier`, a `{{ .Release.Name }}`) does
    // not spell the name: editing it would not rename, and leaving it would break it.
    for (f, span) in &spans {
        let Some(src) = snap.source(f) else { continue };
        if src.text().get(inner(src.text(), *span).start as usize..inner(src.text(), *span).end as usize)
            != Some(old.as_str())
        {
            let line = src.line_index().line_of(span.start) + 1;
            return Err(format!(
                "`{}:{line}` names {} without spelling its name (a chart computes it): rename it there by hand",
                world.shown_path(f),
                display_name(world, target.obj)
            ));
        }
    }
    let mut edits = Vec::with_capacity(spans.len());
    for (f, span) in spans {
        let Some(src) = snap.source(&f) else { continue };
        let (span, new_text) = replacement(src.text(), span, new_name);
        edits.push(FileEdit { file: f, span, new_text });
    }
    edits.sort_by(|a, b| (&a.file, a.span.start).cmp(&(&b.file, b.span.start)));
    edits.dedup();
    Ok(edits)
}

/// Whether a rendered object's name is written as it is (a `forceRename` value): then renaming
/// edits that value.
fn written_exactly(snap: &Snapshot, world: &Linked, t: Target) -> bool {
    let (f, span) = declaration(world, t);
    // The item's key names it only through the chart's rules.
    if span.start == world.object(t.obj).span.start {
        return false;
    }
    let Some(src) = snap.source(&f) else { return false };
    let i = inner(src.text(), span);
    src.text().get(i.start as usize..i.end as usize) == current_name(world, t).as_deref()
}

/// What is being renamed, for validation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Renamed {
    /// A Service: its name is a DNS label (RFC 1035).
    Service,
    /// Other objects: DNS subdomain names.
    Object,
    /// A listener or a rule: Gateway API `SectionName`.
    Section,
    /// A Service port: an IANA service name.
    Port,
}

fn renameable(world: &Linked, t: Target) -> Option<Renamed> {
    let body = &world.object(t.obj).body;
    match (body, t.section) {
        // An Envoy Gateway Backend's sections are its port numbers: nothing to rename.
        (Body::Service(_), _) if world.object(t.obj).kind() == "Backend" => None,
        (Body::Service(_), None) if world.object(t.obj).kind() == "ServiceEntry" => Some(Renamed::Object),
        (Body::Service(_), None) => Some(Renamed::Service),
        (Body::Service(_), Some(_)) => Some(Renamed::Port),
        (Body::Gateway(_) | Body::ListenerSet(_) | Body::Route(_), Some(_)) => Some(Renamed::Section),
        (Body::Gateway(_) | Body::ListenerSet(_) | Body::Route(_) | Body::GatewayClass(_), None) => {
            Some(Renamed::Object)
        }
        // Routes' ExtensionRef filters name these policies (Gloo RouteOption, kgateway
        // TrafficPolicy), so their names have references to keep in step.
        (Body::Other(_), None) if world.policy_kind(t.obj).is_some_and(|k| k.extension_ref) => Some(Renamed::Object),
        _ => None,
    }
}

fn current_name(world: &Linked, t: Target) -> Option<String> {
    match t.section {
        None => Some(world.object(t.obj).name.value.to_string()),
        Some(i) => section_name(world, t.obj, i).map(str::to_owned),
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter().all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Dot-separated DNS labels.
fn is_subdomain(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_label)
}

fn validate(kind: Renamed, name: &str) -> Result<(), String> {
    let ok = match kind {
        Renamed::Service => name.len() <= 63 && is_label(name) && name.starts_with(|c: char| c.is_ascii_lowercase()),
        Renamed::Object | Renamed::Section => name.len() <= 253 && is_subdomain(name),
        Renamed::Port => {
            name.len() <= 15
                && is_label(name)
                && name.contains(|c: char| c.is_ascii_lowercase())
                && !name.contains("--")
        }
    };
    if ok {
        return Ok(());
    }
    Err(match kind {
        Renamed::Service => format!(
            "`{name}` is not a valid Service name: lowercase letters, digits and `-`, starting with a letter and ending with a letter or digit, at most 63 characters"
        ),
        Renamed::Object => format!(
            "`{name}` is not a valid name: lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit, at most 253 characters"
        ),
        Renamed::Section => format!(
            "`{name}` is not a valid section name: lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit"
        ),
        Renamed::Port => format!(
            "`{name}` is not a valid port name: at most 15 lowercase letters, digits and `-`, with at least one letter, no `--`, not starting or ending with `-`"
        ),
    })
}

/// Refuses a name that is already taken: by an object of the same kind in the same namespace,
/// or by another section of the same object.
fn check_free(world: &Linked, t: Target, kind: Renamed, name: &str) -> Result<(), String> {
    let o = world.object(t.obj);
    match kind {
        Renamed::Service | Renamed::Object => {
            if let Some(other) = world.lookup(&o.group_kind(), world.namespace_of(t.obj), name) {
                return Err(format!("{} already exists", display_name(world, other)));
            }
        }
        Renamed::Section | Renamed::Port => {
            if section_names(world, t.obj).iter().any(|s| s == name) {
                return Err(format!(
                    "{} already has a {} named `{name}`",
                    display_name(world, t.obj),
                    section_noun(world, t.obj)
                ));
            }
        }
    }
    Ok(())
}
