//! backendRef diagnostics: a route rule's backendRefs and the references inside a policy's
//! spec proper (docs/semantics.md §4.8), judged alike.

use super::{Code, Diagnostic, list};
use crate::effective::broken_backend_outcome;
use crate::model::{Body, RefFields};
use crate::topology::{BackendResolution, Linked};
use crate::world::ObjId;

pub(super) fn check(world: &Linked, out: &mut Vec<Diagnostic>) {
    let t = &world.topology;
    for rid in t.routes() {
        let Body::Route(route) = &world.object(rid).body else { continue };
        for (rule, results) in route.rules.iter().zip(t.backend_refs(rid)) {
            for (b, res) in rule.backend_refs.iter().zip(results) {
                out.extend(diagnostic(world, rid, b, res));
            }
        }
    }
    for &pid in &world.policies {
        for r in t.spec_refs(pid) {
            out.extend(diagnostic(world, pid, &r.fields, &r.resolution));
        }
    }
}

/// What is wrong with backendRef `b` written in `owner`, if anything: on the `name:` value
/// (the `port` value for a port the Service lacks, the `namespace` value for a namespace no
/// ReferenceGrant opens).
fn diagnostic(world: &Linked, owner: ObjId, b: &RefFields, res: &BackendResolution) -> Option<Diagnostic> {
    let file = &world.file_of(owner).path;
    let own_ns = world.namespace_of(owner).unwrap_or("");
    let name_span = b.name.as_ref().map_or(b.span, |n| n.span);
    let name = b.name.as_ref().map_or("", |n| n.value.as_str());
    let ns = b.namespace.as_ref().map_or(own_ns, |n| n.value.as_str());
    // Envoy Gateway rejects a policy whose spec names a backend it cannot use, and answers its
    // targets with 500 unless the broken part fails open (envoyproxy/gateway#3869). Asked only
    // of broken references: most references are a route's, and resolve.
    let consequence = |sep: &str| {
        broken_backend_outcome(world, owner)
            .map_or_else(String::new, |o| format!("{sep}Envoy Gateway rejects the policy and {}", o.words()))
    };
    let d = match res {
        BackendResolution::Found { .. } | BackendResolution::Unchecked | BackendResolution::Delegated { .. } => {
            return None;
        }
        BackendResolution::NotFound(missing) => {
            let suggestion = &missing.suggestion;
            let mut msg = format!("{} does not exist", b.spelled("Service", own_ns));
            // What requests meet is said only where the backend is certainly missing.
            let certain = missing.unknown.is_none();
            if certain && b.kind.as_ref().is_some_and(|k| k.value == "HTTPRoute") {
                // kgateway route delegation (docs "Automatic route replacement").
                msg.push_str(": requests this rule delegates get an HTTP 500");
            }
            if let Some(s) = suggestion {
                msg.push_str(&format!("; did you mean `{s}`?"));
            }
            if certain {
                msg.push_str(&consequence(if suggestion.is_some() { " " } else { ": " }));
            }
            Diagnostic::new(file, name_span, Code::BackendNotFound, msg)
                .fix(suggestion.clone())
                .unknown(missing.unknown.clone())
        }
        BackendResolution::PortNotFound { target, available } => {
            let span = b.port.as_ref().map_or(name_span, |p| p.span);
            let port = b.port.as_ref().map_or(0, |p| p.value);
            let ports: Vec<String> = available.iter().map(i64::to_string).collect();
            let fix = (available.len() == 1).then(|| available[0].to_string());
            Diagnostic::new(
                file,
                span,
                Code::BackendNotFound,
                format!("{} has no port {port} (ports: {}){}", world.key(*target), list(&ports), consequence(": ")),
            )
            .related(&world.file_of(*target).path, world.object(*target).name.span, "the Service")
            .fix(fix)
        }
        BackendResolution::NotPermitted { target } => {
            let span = b.namespace.as_ref().map_or(name_span, |n| n.span);
            let kinds = plural_kind(world.object(owner).kind());
            let what = target.map_or_else(|| format!("Service/{ns}/{name}"), |t| world.key(t).to_string());
            Diagnostic::new(
                file,
                span,
                Code::BackendNotPermitted,
                format!(
                    "{} may not refer to {what}: no ReferenceGrant in namespace `{ns}` allows {kinds} from namespace `{own_ns}`; add one to `{ns}`{}",
                    world.key(owner),
                    consequence("; until then, ")
                ),
            )
        }
    };
    Some(d.object(world, owner))
}

/// `HTTPRoutes`, `SecurityPolicies`.
fn plural_kind(kind: &str) -> String {
    match kind.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'o', 'u']) => format!("{stem}ies"),
        _ => format!("{kind}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_read_as_plurals() {
        assert_eq!(super::plural_kind("HTTPRoute"), "HTTPRoutes");
        assert_eq!(super::plural_kind("SecurityPolicy"), "SecurityPolicies");
        assert_eq!(super::plural_kind("Gateway"), "Gateways");
    }
}
