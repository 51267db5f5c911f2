//! Values of reference fields and strategy fields.

use super::{CompletionInput, Fields, default_group};
use crate::analysis::cursor::Seg;
use crate::analysis::refs::{RefKind, section_indices};
use crate::analysis::summary::{object_summary, plural, section_detail};
use crate::analysis::{CompletionItem, CompletionKind};
use crate::catalog::Semantics;
use crate::model::{Body, GATEWAY_GROUP, GroupKind};
use crate::topology::section_name;
use crate::world::ObjId;
use crate::world::World;

pub(super) fn ref_value(
    input: &CompletionInput<'_>,
    kind: RefKind,
    ref_path: &[Seg],
    field: &str,
) -> Vec<CompletionItem> {
    let fields = Fields::read(input.cursor.node(ref_path), field);
    match field {
        "kind" => kinds(input, kind, &fields),
        "group" => groups(input, kind, &fields),
        "name" => names(input, kind, &fields),
        "sectionName" => sections(input, kind, &fields),
        "namespace" => namespaces(input, kind, &fields),
        "port" if kind == RefKind::Backend => ports(input, kind, &fields),
        _ => Vec::new(),
    }
}

fn item(
    input: &CompletionInput<'_>,
    label: &str,
    kind: CompletionKind,
    detail: Option<String>,
    sort: String,
) -> CompletionItem {
    CompletionItem {
        label: label.to_owned(),
        kind,
        detail,
        label_detail: None,
        documentation: None,
        insert_text: label.to_owned(),
        is_snippet: false,
        replace: input.cursor.span,
        sort_text: sort,
    }
}

/// `""` for the core group, else the group.
pub(super) fn group_text(g: &str) -> &str {
    if g.is_empty() { "\"\"" } else { g }
}

/// The (group, kind) pairs a reference of this sort may name, in catalog order.
pub(super) fn allowed(input: &CompletionInput<'_>, kind: RefKind) -> Vec<GroupKind> {
    let gw = |k: &str| GroupKind::new(GATEWAY_GROUP, k);
    match kind {
        RefKind::PolicyTarget => match &input.doc.policy {
            Some(p) if !p.targets.is_empty() => p.targets.iter().map(|t| t.gk.clone()).collect(),
            // Any kind: the usual targets.
            _ => vec![
                gw("Gateway"),
                gw("HTTPRoute"),
                gw("GRPCRoute"),
                gw("TLSRoute"),
                gw("TCPRoute"),
                gw("UDPRoute"),
                GroupKind::new("", "Service"),
                GroupKind::new("", "Namespace"),
            ],
        },
        RefKind::Parent => vec![gw("Gateway"), gw("ListenerSet"), GroupKind::new("", "Service")],
        RefKind::ListenerSetParent => vec![gw("Gateway")],
        RefKind::Backend => vec![GroupKind::new("", "Service")],
        RefKind::GatewayClass => vec![gw("GatewayClass")],
        // Completion does not offer filters' extensionRefs (no site reaches here yet).
        RefKind::Extension => input.world.catalog.iter().filter(|k| k.extension_ref).map(|k| k.gk.clone()).collect(),
    }
}

/// What the reference names (so far): its own group and kind, else the allowed pairs that
/// agree with what is written, else the defaults.
fn ref_gks(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<GroupKind> {
    let allowed = allowed(input, kind);
    let matching: Vec<GroupKind> = allowed
        .iter()
        .filter(|gk| f.kind.as_ref().is_none_or(|k| *k == gk.kind) && f.group.as_ref().is_none_or(|g| *g == gk.group))
        .cloned()
        .collect();
    match (&f.kind, matching.is_empty()) {
        (Some(_), false) => matching,
        (None, false) if kind == RefKind::PolicyTarget => matching,
        // Routes' refs default their kind (Gateway, Service).
        (None, false) => matching.into_iter().take(1).collect(),
        (Some(k), true) => {
            let g = f.group.clone().unwrap_or_else(|| default_group(kind, input.doc.policy.as_deref(), Some(k)));
            vec![GroupKind::new(&g, k)]
        }
        (None, true) => Vec::new(),
    }
}

fn kinds(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<CompletionItem> {
    let all = allowed(input, kind);
    // A written group narrows the choice, unless nothing allowed is in it (then it is wrong).
    let in_group: Vec<&GroupKind> = all.iter().filter(|gk| f.group.as_ref().is_none_or(|g| *g == gk.group)).collect();
    let shown = if in_group.is_empty() { all.iter().collect() } else { in_group };
    shown
        .into_iter()
        .enumerate()
        .map(|(i, gk)| {
            let group = if gk.group.is_empty() { "core".to_owned() } else { gk.group.to_string() };
            let mut it = item(input, &gk.kind, CompletionKind::Kind, Some(group.clone()), format!("{i:03}"));
            if f.group.is_none() {
                it.label_detail = Some(format!(" ({group})"));
            }
            it
        })
        .collect()
}

fn groups(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<CompletionItem> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for gk in allowed(input, kind) {
        if f.kind.as_ref().is_some_and(|k| *k != gk.kind) {
            continue;
        }
        match out.iter_mut().find(|(g, _)| *g == gk.group) {
            Some((_, kinds)) => kinds.push(gk.kind.to_string()),
            None => out.push((gk.group.to_string(), vec![gk.kind.to_string()])),
        }
    }
    out.iter()
        .enumerate()
        .map(|(i, (g, kinds))| {
            let detail = if g.is_empty() { format!("core: {}", kinds.join(", ")) } else { kinds.join(", ") };
            item(input, group_text(g), CompletionKind::Kind, Some(detail), format!("{i:03}"))
        })
        .collect()
}

/// May this reference name another namespace?
fn cross_namespace(input: &CompletionInput<'_>, kind: RefKind) -> bool {
    match kind {
        RefKind::PolicyTarget => input.doc.policy.as_ref().is_some_and(|p| p.cross_namespace),
        RefKind::GatewayClass => false,
        _ => true,
    }
}

/// The namespace a reference resolves in: its own, else its object's.
fn ref_namespace(input: &CompletionInput<'_>, f: &Fields) -> Option<String> {
    f.namespace.clone().or_else(|| input.doc.namespace.clone())
}

fn names(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<CompletionItem> {
    let w = input.world;
    let ns = ref_namespace(input, f);
    let others = cross_namespace(input, kind) && f.namespace.is_none();
    let mut out = Vec::new();
    for gk in ref_gks(input, kind, f) {
        if gk.is("", "Namespace") {
            let mut all: Vec<&str> = w.namespaces().collect();
            all.sort_unstable();
            for n in all {
                out.push(item(input, n, CompletionKind::Reference, Some("Namespace".into()), format!("1_{n}")));
            }
            continue;
        }
        for (w, id) in w.objects_of_everywhere(&gk) {
            if std::ptr::eq(w, &*input.world.world) && Some(id) == input.doc.id {
                continue;
            }
            let o = w.object(id);
            let same_ns = w.namespace_of(id).is_none_or(|n| Some(n) == ns.as_deref());
            let tier = match (same_ns, &*w.file_of(id).path == input.file) {
                (true, true) => 0,
                (true, false) => 1,
                (false, _) if others => 2,
                (false, _) => continue,
            };
            let mut it = item(
                input,
                &o.name.value,
                CompletionKind::Reference,
                Some(object_summary(w, id)),
                format!("{tier}_{}", o.name.value),
            );
            if tier == 2 {
                // Picking it also needs `namespace:`; say which.
                it.label_detail = w.namespace_of(id).map(|n| format!(" ({n})"));
            }
            out.push(it);
        }
    }
    out
}

/// The object a reference names, when it exists.
fn named_target(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Option<(GroupKind, ObjId)> {
    let name = f.name.as_deref()?;
    let ns = ref_namespace(input, f);
    ref_gks(input, kind, f).into_iter().find_map(|gk| {
        let found = match input.doc.id {
            Some(from) => input.world.lookup_from(from, &gk, ns.as_deref(), name),
            None => input.world.lookup(&gk, ns.as_deref(), name),
        };
        found.map(|id| (gk, id))
    })
}

fn sections(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<CompletionItem> {
    if kind == RefKind::Backend {
        return Vec::new();
    }
    let Some((gk, id)) = named_target(input, kind, f) else { return Vec::new() };
    if kind == RefKind::PolicyTarget {
        let supported = input.doc.policy.as_ref().is_none_or(|p| p.target(&gk).is_some_and(|t| t.section_name));
        if !supported {
            return Vec::new();
        }
    }
    let w = input.world;
    section_indices(w, id)
        .into_iter()
        .filter_map(|i| {
            let name = section_name(w, id, i)?;
            Some(item(input, name, CompletionKind::Section, Some(section_detail(w, id, i)), format!("{i:04}")))
        })
        .collect()
}

fn namespaces(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<CompletionItem> {
    if !cross_namespace(input, kind) {
        return Vec::new();
    }
    let w = input.world;
    let gks = ref_gks(input, kind, f);
    let mut all: Vec<&str> = w.namespaces().collect();
    all.sort_unstable();
    all.into_iter()
        .map(|ns| {
            let here: Vec<(&World, ObjId)> = gks
                .iter()
                .flat_map(|gk| w.objects_of_everywhere(gk))
                .filter(|&(w, id)| w.namespace_of(id) == Some(ns))
                .collect();
            let named = f.name.as_ref().and_then(|n| here.iter().find(|&&(w, id)| w.object(id).name.value == *n));
            let (tier, detail) = match (named, here.first()) {
                (Some(&(w, id)), _) => (0, Some(format!("has {}", object_summary(w, id)))),
                (None, Some(&(w, id))) => (1, Some(plural(here.len(), w.object(id).kind()))),
                (None, None) => (2, None),
            };
            item(input, ns, CompletionKind::Namespace, detail, format!("{tier}_{ns}"))
        })
        .collect()
}

fn ports(input: &CompletionInput<'_>, kind: RefKind, f: &Fields) -> Vec<CompletionItem> {
    let Some((_, id)) = named_target(input, kind, f) else { return Vec::new() };
    let Body::Service(svc) = &input.world.object(id).body else { return Vec::new() };
    svc.ports
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let n = p.port?.to_string();
            let detail = match &p.name {
                Some(name) => format!("port · {}", name.value),
                None => "port".to_owned(),
            };
            Some(item(input, &n, CompletionKind::Value, Some(detail), format!("{i:04}")))
        })
        .collect()
}

/// The values a policy kind accepts in its strategy field, each with the GEP-713 strategy it
/// means. `overrides`: the field is inside `overrides` (or `override`).
pub(super) fn strategy(input: &CompletionInput<'_>, field: &str, overrides: bool) -> Vec<CompletionItem> {
    let Some(kind) = &input.doc.policy else { return Vec::new() };
    if field != kind.strategy_field() {
        return Vec::new();
    }
    let candidates: &[&str] = match kind.semantics {
        Semantics::EnvoyGateway => &["StrategicMerge", "JSONMerge"],
        _ => &["atomic", "patch", "merge"],
    };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for v in candidates {
        let Some(s) = kind.strategy_for(v, overrides) else { continue };
        // `merge` and `patch` mean the same for GEP kinds: offer the GEP's word only. (Envoy
        // Gateway's two values are different patch flavours; both stay.)
        if seen.contains(&s) && kind.semantics != Semantics::EnvoyGateway {
            continue;
        }
        seen.push(s);
        out.push(item(input, v, CompletionKind::Value, Some(s.as_str().to_owned()), format!("{:03}", out.len())));
    }
    out
}
