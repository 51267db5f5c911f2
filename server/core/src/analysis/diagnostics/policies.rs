//! Policy reference diagnostics: targetRef(s) that point at nothing, at the wrong kind, across
//! namespaces, or are malformed.

use super::{Code, Diagnostic, list, section_noun};
use crate::model::{Body, GroupKind};
use crate::topology::Linked;
use crate::topology::{RefProblem, TargetResolution};
use crate::world::ObjId;

pub(super) fn check(world: &Linked, out: &mut Vec<Diagnostic>) {
    let t = &world.topology;
    for &pid in &world.policies {
        let Some(res) = t.policies.get(&pid) else { continue };
        let (Some(kind), Body::Other(other)) = (world.policy_kind(pid), &world.object(pid).body) else {
            continue;
        };
        let file = &world.file_of(pid).path;
        let policy_ns = world.namespace_of(pid).unwrap_or("");
        for (span, msg) in &res.field_problems {
            out.push(Diagnostic::new(file, *span, Code::TargetRefFields, msg.clone()).object(world, pid));
        }
        for (span, why) in &res.invalid_selectors {
            out.push(Diagnostic::new(file, *span, Code::InvalidSelector, why.clone()).object(world, pid));
        }
        for (span, what, unknown) in &res.empty_selectors {
            out.push(
                Diagnostic::new(file, *span, Code::SelectorMatchesNothing, what.clone())
                    .object(world, pid)
                    .unknown(unknown.clone()),
            );
        }
        for (dup, first) in &res.duplicates {
            out.push(
                Diagnostic::new(
                    file,
                    *dup,
                    Code::DuplicateTargetRef,
                    "this reference repeats an earlier one; remove it",
                )
                .related(file, *first, "the first reference")
                .object(world, pid),
            );
        }
        for (r, resolution) in other.policy.refs().zip(&res.refs) {
            let TargetResolution::Problem(problem) = resolution else { continue };
            let name_span = r.name.as_ref().map_or(r.span, |n| n.span);
            let ds: Vec<Diagnostic> = match &**problem {
                RefProblem::Invalid(vs) => vs
                    .iter()
                    .map(|v| Diagnostic::new(file, v.span, Code::InvalidTargetRef, v.message.clone()))
                    .collect(),
                RefProblem::KindNotAllowed { allowed } => {
                    let span = r.kind.as_ref().map_or(r.span, |k| k.span);
                    let wanted = r.kind.as_ref().map_or("", |k| k.value.as_str());
                    let allowed_s: Vec<String> = allowed.iter().map(GroupKind::to_string).collect();
                    let fix =
                        crate::suggest::closest(wanted, allowed.iter().map(|g| g.kind.as_str())).map(str::to_owned);
                    let group = r.group.as_ref().map_or("", |g| g.value.as_str());
                    let written = if allowed.iter().any(|a| a.kind == wanted) {
                        format!("{wanted} in group `{group}`")
                    } else {
                        wanted.to_owned()
                    };
                    vec![
                        Diagnostic::new(
                            file,
                            span,
                            Code::TargetKindNotAllowed,
                            format!("{} cannot target {written}; it can target {}", kind.gk, list(&allowed_s)),
                        )
                        .fix(fix),
                    ]
                }
                RefProblem::SectionNotSupported { gk } => {
                    let span = r.section_name.as_ref().map_or(r.span, |s| s.span);
                    vec![Diagnostic::new(
                        file,
                        span,
                        Code::InvalidTargetRef,
                        format!("{} cannot name a section of a {}; remove `sectionName`", kind.gk, gk.kind),
                    )]
                }
                RefProblem::CrossNamespaceForbidden => {
                    let span = r.namespace.as_ref().map_or(r.span, |n| n.span);
                    vec![Diagnostic::new(
                        file,
                        span,
                        Code::CrossNamespaceTarget,
                        format!(
                            "{} can only target objects in its own namespace `{policy_ns}`; remove `namespace` or move the policy",
                            kind.gk
                        ),
                    )]
                }
                RefProblem::CrossNamespaceNoGrant { namespace } => {
                    let span = r.namespace.as_ref().map_or(r.span, |n| n.span);
                    vec![Diagnostic::new(
                        file,
                        span,
                        Code::CrossNamespaceTarget,
                        format!(
                            "no ReferenceGrant in namespace `{namespace}` lets `{}` policies from `{policy_ns}` target it; add one to `{namespace}`",
                            kind.gk
                        ),
                    )]
                }
                RefProblem::NotFound { key, suggestion, elsewhere, unknown } => {
                    let mut msg = format!("{key} does not exist");
                    if let Some(s) = suggestion {
                        msg.push_str(&format!("; did you mean `{s}`?"));
                    } else if !elsewhere.is_empty() {
                        msg.push_str(&format!(
                            " in namespace `{}` (there is one in {})",
                            key.namespace.as_deref().unwrap_or(""),
                            list(elsewhere)
                        ));
                    }
                    let mut d = Diagnostic::new(file, name_span, Code::TargetNotFound, msg)
                        .fix(suggestion.clone())
                        .unknown(unknown.clone());
                    if let Some(s) = suggestion
                        && let Some(o) = world.lookup(&key.gk, key.namespace.as_deref(), s)
                    {
                        d = d.related(
                            &world.file_of(o).path,
                            world.object(o).name.span,
                            format!("`{s}` is defined here"),
                        );
                    }
                    vec![d]
                }
                RefProblem::SectionNotFound { target, section, available, suggestion } => {
                    let span = r.section_name.as_ref().map_or(name_span, |s| s.span);
                    let tkind = world.object(*target).kind();
                    let noun = section_noun(tkind);
                    let mut msg = format!("{} has no {noun} named `{section}`", world.key(*target));
                    if let Some(s) = suggestion {
                        msg.push_str(&format!("; did you mean `{s}`?"));
                    }
                    msg.push_str(&format!(" ({})", available_sections(world, *target, noun, available)));
                    vec![
                        Diagnostic::new(file, span, Code::SectionNotFound, msg)
                            .related(&world.file_of(*target).path, world.object(*target).name.span, "the target")
                            .fix(suggestion.clone()),
                    ]
                }
            };
            out.extend(ds.into_iter().map(|d| d.object(world, pid)));
        }
    }
}

/// `ports: `http`, `https``, or, for a Service whose ports have no names (a sectionName names
/// a port by its name): `its only port, 8080, has no name; name it to target it`.
fn available_sections(world: &Linked, target: ObjId, noun: &str, available: &[String]) -> String {
    let obj = world.object(target);
    if obj.group() == "gateway.envoyproxy.io" && obj.kind() == "Backend" {
        // Envoy Gateway compares sectionName with the backendRef's port number, so a name
        // never matches (envoyproxy/gateway `internal/gatewayapi/route.go`).
        return format!("Envoy Gateway names a Backend's sections by port number: {}", list(available));
    }
    if let Body::Service(s) = &world.object(target).body
        && !s.ports.is_empty()
    {
        let unnamed: Vec<String> =
            s.ports.iter().filter(|p| p.name.is_none()).map(|p| p.port.map_or("?".into(), |n| n.to_string())).collect();
        match (available.is_empty(), unnamed.as_slice()) {
            (true, [one]) => return format!("its only port, {one}, has no name; name it to target it"),
            (true, _) => {
                return format!("none of its ports ({}) has a name; name one to target it", unnamed.join(", "));
            }
            _ => {}
        }
    }
    format!("{noun}s: {}", list(available))
}
