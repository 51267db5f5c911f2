//! `docs/kinds.md`: the conformance table of the built-in kinds, generated from the catalog and
//! the merge rules so
//! that it never drifts from what the engine does (`UPDATE_DOCS=1 cargo test -p
//! policylens-core kinds_doc` rewrites it; a test fails when it is stale).

use std::fmt::Write as _;

use super::semantics::{SameLevel, rules};
use crate::catalog::controllers::{CREATED_CLASSES, IMPLEMENTATIONS};
use crate::catalog::{Catalog, Controllers, DEFAULT_MAX_REFS, PolicyClass, Semantics};

/// The fixtures that pin a kind's behaviour (test modules and `fixtures/` workspaces).
fn verified_by(group: &str, kind: &str) -> &'static str {
    match (group, kind) {
        ("gateway.envoyproxy.io", "BackendTrafficPolicy") => {
            "`fixtures/demo`, `fixtures/conformance/envoy-gateway-route-over-gateway`, `fixtures/conformance/envoy-gateway-strategic-merge-lists`, `fixtures/conformance/envoy-gateway-merge-rate-limits`, `fixtures/conformance/envoy-gateway-route-fields`, `fixtures/conformance/envoy-ai-gateway-generated-route`, `repo_tests::envoy_gateway_rejects_the_younger_of_two_policies_on_one_target`"
        }
        ("gateway.envoyproxy.io", "ClientTrafficPolicy") => {
            "`fixtures/demo` (mistake 3), `repo_tests::an_overlay_copy_takes_part_where_it_is_nearer_and_the_policies_do_not_compete`"
        }
        ("gateway.networking.k8s.io", "BackendTLSPolicy") => {
            "`fixtures/conformance/backendtlspolicy-conflicts-ports`, `fixtures/conformance/istio-serviceentry-ports`, `fixtures/conformance/envoy-gateway-backend-sections`, `repo_tests::backend_tls_policy_names_an_implementation_backend_port_as_its_section`, `repo_tests::istio_leaves_a_policy_annotated_for_another_controller_alone`"
        }
        ("kuadrant.io", "AuthPolicy" | "RateLimitPolicy") => {
            "`fixtures/conformance/kuadrant-merge-defaults-overrides`, `fixtures/demo`"
        }
        ("gateway.solo.io", "RouteOption") => "`fixtures/conformance/gloo-kgateway-extensionref`",
        ("gateway.solo.io", "VirtualHostOption") => "`fixtures/conformance/gloo-edge-delegate-options`",
        ("consul.hashicorp.com", "GatewayPolicy") => {
            "`repo_tests::consul_gateway_policy_references_are_consuls_own_type`"
        }
        ("gateway.kgateway.dev", "TrafficPolicy") => {
            "`fixtures/conformance/gloo-kgateway-extensionref`, `fixtures/conformance/kgateway-route-delegation`"
        }
        ("gateway.envoyproxy.io", "SecurityPolicy") => {
            "`fixtures/conformance/envoy-gateway-merge-rate-limits`, `fixtures/conformance/envoy-gateway-route-fields`, `spec_ref_tests::backends_in_a_policy_spec_resolve_like_route_backend_refs`, `navigation::definition_and_references_of_backends_in_a_policy_spec`, `fixtures/conformance/envoy-gateway-target-before-backend`"
        }
        ("gateway.envoyproxy.io", "EnvoyExtensionPolicy") => {
            "`spec_ref_tests::backends_in_a_policy_spec_resolve_like_route_backend_refs`, `rename::rename_a_service_edits_the_backends_in_a_policy_spec`"
        }
        ("gateway.nginx.org", "RateLimitPolicy") => {
            "`fixtures/conformance/nginx-gateway-fabric-ratelimit-additive`, `rules::nginx_rate_limits_every_surface_agree`"
        }
        ("security.istio.io", "AuthorizationPolicy") => {
            "`repo_tests::kinds_as_their_implementations_define_them`, `hover::hover_on_a_policy_without_target_says_what_it_applies_to`"
        }
        _ => "",
    }
}

fn same_target(class: PolicyClass, semantics: Semantics, same: SameLevel, additive: bool) -> &'static str {
    if additive {
        return "all apply (additive)";
    }
    match (same, semantics, class) {
        (SameLevel::YoungerConflicted, _, _) => "younger rejected (Conflicted)",
        (SameLevel::ConflictOnOverlap, _, _) => "conflict only on the same fields",
        // Gloo's semantics decide before the class: RouteOption is Direct yet shallow-merged.
        (_, Semantics::Gloo, _) => "merged, older first",
        (_, _, PolicyClass::Direct) => "younger Conflicted (None)",
        (SameLevel::OlderWins, _, _) => "merged by strategy, older first",
        // GEP-713 rule 2: the older dictates; under defaults the younger's fields win.
        _ => "older's strategy: defaults younger wins, overrides older",
    }
}

pub fn kinds_markdown() -> String {
    let catalog = Catalog::builtin();
    let mut kinds: Vec<_> = catalog.iter().collect();
    kinds.sort_by(|a, b| (&a.project, &a.gk.group, &a.gk.kind).cmp(&(&b.project, &b.gk.group, &b.gk.kind)));
    let mut out = String::from(
        "# Policy kinds\n\n\
         The built-in catalog, generated from the code (`server/core/src/effective/kinds_doc.rs`; a test\n\
         fails when this page is stale). A `.policylens.yaml` `policyKinds` entry adds kinds or corrects\n\
         these field by field; kinds not listed are read from CRDs labelled\n\
         `gateway.networking.k8s.io/policy` or, failing that, from their shape.\n\n\
         - **targets**: `§` marks targets whose sections (`sectionName`) the kind may name.\n\
         - **same target**: what happens to two policies of the kind on one target and section.\n\
         - **controllers**: the Gateway controllers that act on the kind (`docs/semantics.md` §4.4.1); a policy\n  \
         whose every Gateway is served by another known controller is `unsupported-by-controller`. A\n  \
         controller policylens does not know is assumed to implement every kind.\n\
         - **refs**: the reference fields, and the most `targetRefs` items where the project's CRD sets a limit;\n  \
         *backends* the paths inside the spec whose references are resolved like a route's backendRefs\n  \
         (`docs/semantics.md` §4.8; `[]`: every item of a list); *the target's own* the target's fields\n  \
         whose value, where the target sets it, replaces the policy's (JSON pointers, `*`: the route's rules\n  \
         alike, or the rule the path goes through; `docs/semantics.md` §5 step 9).\n\n\
         | kind | project | class | targets | same target | strategies | controllers | refs | verified by |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for k in kinds {
        let mut targets: Vec<String> = if k.targets.is_empty() {
            vec!["any".into()]
        } else {
            k.targets.iter().map(|t| format!("{}{}", t.gk, if t.section_name { "§" } else { "" })).collect()
        };
        match &k.open_targets {
            Some(crate::catalog::OpenTargets::Implementations(_)) => {
                targets.push("an implementation's own kinds".into());
            }
            Some(crate::catalog::OpenTargets::Any(_)) => targets.push("any (a CRD rule not followed)".into()),
            None => {}
        }
        let r = rules(k);
        let class = match k.class {
            PolicyClass::Direct => "Direct",
            PolicyClass::Inherited => "Inherited",
        };
        let strategies: Vec<String> = k.strategies.iter().map(|s| format!("{s:?}")).collect();
        let mut refs: Vec<String> = Vec::new();
        if k.target_ref {
            refs.push("targetRef".into());
        }
        if k.target_refs {
            refs.push(if k.max_refs == DEFAULT_MAX_REFS {
                "targetRefs".into()
            } else {
                format!("targetRefs ≤{}", k.max_refs)
            });
        }
        if k.target_selectors {
            refs.push("targetSelectors".into());
        }
        if k.target_optional {
            refs.push("optional (selector or namespace-wide)".into());
        }
        if k.extension_ref {
            refs.push("route rule ExtensionRef filter (first at its rule)".into());
        }
        if !k.spec_refs.is_empty() {
            let paths: Vec<String> = k.spec_refs.iter().map(|r| format!("`{}`", r.path)).collect();
            refs.push(format!("*backends*: {}", paths.join(", ")));
        }
        if !k.shadows.is_empty() {
            let pairs: Vec<String> = k.shadows.iter().map(|(f, t)| format!("`{t}` over `{f}`")).collect();
            refs.push(format!("*the target's own*: {}", pairs.join(", ")));
        }
        let _ = writeln!(
            out,
            "| {} | {} | {class} | {} | {} | {} | {} | {} | {} |",
            k.gk,
            k.project,
            targets.join(", "),
            same_target(k.class, k.semantics, r.same_level, r.additive),
            if strategies.is_empty() { "-".to_owned() } else { strategies.join(", ") },
            controllers(&k.controllers),
            refs.join(", "),
            verified_by(&k.gk.group, &k.gk.kind)
        );
    }
    implementations(&mut out);
    out
}

fn controllers(c: &Controllers) -> String {
    match c {
        Controllers::Any => "any".to_owned(),
        Controllers::Only(_) => c.names().join(", "),
        Controllers::AllBut(_) => format!("any but {}", c.names().join(", ")),
    }
}

/// The implementations policylens recognises and the GatewayClasses they create themselves.
fn implementations(out: &mut String) {
    out.push_str(
        "\n## Controllers\n\n\
         A Gateway's controller is its GatewayClass's `controllerName`; `id` is how `.policylens.yaml`\n\
         (`policyKinds[].controllers`) names the implementation.\n\n\
         | id | implementation | controllerName | source |\n\
         |---|---|---|---|\n",
    );
    for i in IMPLEMENTATIONS {
        let names: Vec<String> = i
            .controller_names
            .iter()
            .map(|n| if n.ends_with('/') { format!("`{n}*`") } else { format!("`{n}`") })
            .collect();
        let _ = writeln!(out, "| `{}` | {} | {} | {} |", i.id, i.name, names.join(", "), i.source);
    }
    out.push_str(
        "\n## GatewayClasses implementations create\n\n\
         A Gateway naming one of these classes with no GatewayClass in its files is served by the\n\
         class's controller, and never `gateway-class-not-found`.\n\n\
         | class | controllerName | when it exists | source |\n\
         |---|---|---|---|\n",
    );
    for c in CREATED_CLASSES {
        let _ = writeln!(out, "| `{}` | `{}` | {} | {} |", c.name, c.controller_name, c.how, c.source);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_doc_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/kinds.md");
        let fresh = super::kinds_markdown();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "docs/kinds.md is stale (the catalog changed); regenerate it with `UPDATE_DOCS=1 cargo test -p policylens-core kinds_doc`"
        );
    }
}
