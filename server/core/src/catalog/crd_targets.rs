//! What a policy CRD's schema says about the references of its kind: the (group, kind)s they may
//! name and which of them take a `sectionName` (from the CEL rules and enums on the reference
//! fields and on `spec`), whether a reference is required at all, and whether a number may name
//! a Service port.
//!
//! Each candidate (group, kind) is tried as a made-up reference (`name: x`, every other field
//! absent, as in the smallest policy a user writes) against every rule of the schema that
//! bears on it ([`cel`]); the candidates are the kinds and groups the rules and enums write,
//! plus a kind and a group no rule can name, to tell a rule that constrains them from one that
//! does not. A kind a rule keeps to one group keeps that group (`self.kind == 'XBackend' &&
//! self.group == 'x.dev'`); a rule policylens cannot follow leaves the kind's targets *open*
//! (unknown), never narrower (docs/semantics.md §4.4).

use super::TargetKind;
use super::cel::{self, Tri, Val};
use crate::model::{GroupKind, normalize_group};
use crate::syntax::Node;

/// What the schema says about a kind's references.
#[derive(Debug, Default, PartialEq)]
pub(super) struct RefSchema {
    /// Allowed targets; empty: any kind.
    pub targets: Vec<TargetKind>,
    /// Why targets beyond `targets` are not known to be refused (a rule not followed).
    pub open: Option<String>,
    /// A policy without any reference field is valid: no rule or `required` list asks for one.
    /// `None`: unknown (a rule on `spec` not followed).
    pub optional: Option<bool>,
    /// The `sectionName` pattern admits a number (`"443"`): a Service port may be named by it.
    pub numeric_sections: bool,
}

/// Where a rule sits, which decides what `self` is.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// On `spec`: `self` is the spec.
    Spec,
    /// On `targetRef`, or an item of `targetRefs`: `self` is one reference.
    Ref,
    /// On `targetRefs`: `self` is the list.
    List,
    /// On a field of a reference: `self` is its value.
    Field(&'static str),
}

/// One way of writing the references: `targetRef` or `targetRefs`.
struct Mode<'n> {
    plural: bool,
    rules: Vec<(Place, cel::Rule, &'n str)>,
    kinds: Vec<String>,
    groups: Vec<String>,
    section: bool,
}

/// A kind and a group no rule names.
const NO_KIND: &str = "PolicylensUnnamedKind";
const NO_GROUP: &str = "unnamed.policylens.invalid";

pub(super) fn read<'n>(spec: &'n Node, one: Option<&'n Node>, many: Option<&'n Node>) -> RefSchema {
    let mut unparsed: Option<&'n str> = None;
    let mut parse = |rule: &'n str| {
        let r = cel::parse(rule);
        if r.is_none() && unparsed.is_none() {
            unparsed = Some(rule);
        }
        r
    };
    let mut spec_rules: Vec<(cel::Rule, &str)> = Vec::new();
    for rule in rules_of(spec) {
        // Only the rules that talk about references bear on them.
        if (rule.contains("targetRef") || rule.contains("targetSelectors"))
            && let Some(r) = parse(rule)
        {
            spec_rules.push((r, rule));
        }
    }
    let items = many.and_then(|m| m.get("items"));
    let mut modes: Vec<Mode<'_>> = Vec::new();
    for (plural, holder, reference) in [(false, one, one), (true, many, items)] {
        let Some(holder) = holder else { continue };
        let mut mode = Mode { plural, rules: Vec::new(), kinds: Vec::new(), groups: Vec::new(), section: false };
        for (r, text) in &spec_rules {
            mode.rules.push((Place::Spec, r.clone(), *text));
        }
        if plural {
            for rule in rules_of(holder) {
                mode.rules.extend(parse(rule).map(|r| (Place::List, r, rule)));
            }
        }
        if let Some(reference) = reference {
            for rule in rules_of(reference) {
                mode.rules.extend(parse(rule).map(|r| (Place::Ref, r, rule)));
            }
            let props = reference.get("properties");
            mode.section = props.and_then(|p| p.get("sectionName")).is_some();
            for field in ["group", "kind", "sectionName"] {
                let Some(f) = props.and_then(|p| p.get(field)) else { continue };
                for rule in rules_of(f) {
                    mode.rules.extend(parse(rule).map(|r| (Place::Field(field), r, rule)));
                }
                match field {
                    "group" => push_enum(f, &mut mode.groups),
                    "kind" => push_enum(f, &mut mode.kinds),
                    _ => {}
                }
            }
        }
        modes.push(mode);
    }
    let numeric_sections = [one, items]
        .into_iter()
        .flatten()
        .filter_map(|r| r.at(&["properties", "sectionName"]))
        .any(|s| s.get("pattern").and_then(Node::as_str).is_none_or(pattern_admits_number));
    let optional = optional(spec, &spec_rules);
    if modes.is_empty() {
        return RefSchema { optional, numeric_sections, ..RefSchema::default() };
    }

    // The candidates: every kind- or group-shaped literal of the rules and enums.
    let (mut kinds, mut groups): (Vec<String>, Vec<String>) = (Vec::new(), vec![String::new()]);
    for m in &modes {
        for (_, r, _) in &m.rules {
            for lit in r.literals() {
                if is_kind(lit) {
                    push_unique(&mut kinds, lit);
                } else if is_group(lit) {
                    push_unique(&mut groups, lit);
                }
            }
        }
        m.kinds.iter().for_each(|k| push_unique(&mut kinds, k));
        m.groups.iter().for_each(|g| push_unique(&mut groups, g));
    }
    let mentioned: Vec<String> = groups.clone();
    for k in &kinds {
        if let Some(g) = known_group(k) {
            push_unique(&mut groups, g);
        }
    }
    push_unique(&mut groups, "gateway.networking.k8s.io");
    push_unique(&mut groups, NO_GROUP);

    let mut first_unknown: Option<&str> = None;
    let mut check = |g: &str, k: &str, section: bool| -> Tri {
        let mut any = Tri::False;
        for m in &modes {
            let t = m.check(g, k, section, &mut first_unknown);
            any = any.or(t);
        }
        any
    };
    // A kind no rule names, in any group: allowed means the rules do not list kinds.
    let unnamed = groups.iter().fold(Tri::False, |acc, g| acc.or(check(g, NO_KIND, false)));
    let mut out = RefSchema { optional, numeric_sections, ..RefSchema::default() };
    let mut uncertain = unnamed == Tri::Unknown;
    if unnamed == Tri::True {
        // Any kind: nothing to list.
        return out;
    }
    for k in &kinds {
        let results: Vec<(&str, Tri)> = groups.iter().map(|g| (g.as_str(), check(g, k, false))).collect();
        let any_group = results.iter().any(|&(g, t)| g == NO_GROUP && t == Tri::True);
        // (the group as tried, as the catalog keys it)
        let mut allowed: Vec<(String, String)> = Vec::new();
        if any_group {
            let g = target_group(k, &mentioned);
            allowed.push((g.clone(), g));
        } else {
            for &(g, t) in &results {
                if g == NO_GROUP || t == Tri::False {
                    continue;
                }
                uncertain |= t == Tri::Unknown;
                allowed.push((g.to_owned(), normalize_group(g).to_owned()));
            }
        }
        for (tried, g) in allowed {
            let section = modes.iter().any(|m| m.section) && check(&tried, k, true) != Tri::False;
            let gk = GroupKind::new(&g, k);
            if !out.targets.iter().any(|t| t.gk == gk) {
                out.targets.push(TargetKind { gk, section_name: section });
            }
        }
    }
    if out.targets.is_empty() && !uncertain && unparsed.is_none() {
        // The rules name kinds yet allow none of them (or none at all): nothing usable.
        return RefSchema { optional, numeric_sections, ..RefSchema::default() };
    }
    if uncertain || unparsed.is_some() {
        let rule = first_unknown.or(unparsed).unwrap_or_default();
        out.open = Some(format!("its CRD's rule `{}` is not one policylens can follow", shorten(rule)));
    }
    out
}

impl<'n> Mode<'n> {
    /// What every rule of this mode says about a reference to `k` in group `g`, with a
    /// `sectionName` when `section`. Notes the first rule that cannot tell.
    fn check(&self, g: &str, k: &str, section: bool, first_unknown: &mut Option<&'n str>) -> Tri {
        if (!self.kinds.is_empty() && !self.kinds.iter().any(|x| x == k))
            || (!self.groups.is_empty() && !self.groups.iter().any(|x| normalize_group(x) == normalize_group(g)))
        {
            return Tri::False;
        }
        if section && !self.section {
            return Tri::False;
        }
        let mut fields = vec![
            ("group".to_owned(), Val::Str(g.to_owned())),
            ("kind".to_owned(), Val::Str(k.to_owned())),
            ("name".to_owned(), Val::Str("x".to_owned())),
        ];
        if section {
            fields.push(("sectionName".to_owned(), Val::Str("x".to_owned())));
        }
        let reference = Val::Obj(fields);
        let list = Val::List(vec![reference.clone()]);
        let field = if self.plural { "targetRefs" } else { "targetRef" };
        let spec = Val::Obj(vec![(field.to_owned(), if self.plural { list.clone() } else { reference.clone() })]);
        let mut all = Tri::True;
        for &(place, ref rule, text) in &self.rules {
            let value;
            let this = match place {
                Place::Spec => &spec,
                Place::Ref => &reference,
                Place::List => &list,
                Place::Field(f) => {
                    value = reference.field(f);
                    &value
                }
            };
            let t = rule.eval(this);
            if t == Tri::Unknown && first_unknown.is_none() {
                *first_unknown = Some(text);
            }
            all = all.and(t);
            if all == Tri::False {
                break;
            }
        }
        all
    }
}

/// Whether a policy may have no reference field: `spec.required` names none, and no rule on
/// `spec` about references refuses a spec without them.
fn optional(spec: &Node, rules: &[(cel::Rule, &str)]) -> Option<bool> {
    let required = spec.get("required").and_then(Node::as_sequence).into_iter().flatten().filter_map(Node::as_str);
    if required.into_iter().any(|f| matches!(f, "targetRef" | "targetRefs" | "targetSelectors")) {
        return Some(false);
    }
    let empty = Val::Obj(Vec::new());
    match rules.iter().fold(Tri::True, |acc, (r, _)| acc.and(r.eval(&empty))) {
        Tri::True => Some(true),
        Tri::False => Some(false),
        Tri::Unknown => None,
    }
}

/// `x-kubernetes-validations[].rule` of a schema node.
fn rules_of(node: &Node) -> impl Iterator<Item = &str> + '_ {
    node.get("x-kubernetes-validations")
        .and_then(Node::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(|item| item.get("rule").and_then(Node::as_str))
}

/// Adds each string of `node`'s `enum` to `out`, once.
pub(super) fn push_enum(node: &Node, out: &mut Vec<String>) {
    for v in node.get("enum").and_then(Node::as_sequence).into_iter().flatten() {
        if let Some(s) = v.as_scalar() {
            push_unique(out, &s.value);
        }
    }
}

fn push_unique(out: &mut Vec<String>, v: &str) {
    if !out.iter().any(|x| x == v) {
        out.push(v.to_owned());
    }
}

/// A Kubernetes kind: `HTTPRoute`, `Service`.
fn is_kind(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// An API group: `core`, or a DNS subdomain with a dot.
fn is_group(s: &str) -> bool {
    s == "core"
        || (s.contains('.') && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-'))
}

/// Whether a `sectionName` pattern (Gateway API's `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, or one of
/// the CRD's own) admits a port number such as `443`. Only the shapes CRDs write are read: a
/// pattern whose first class admits a digit.
fn pattern_admits_number(p: &str) -> bool {
    let p = p.trim_start_matches('^');
    if p.starts_with("\\d") {
        return true;
    }
    match p.strip_prefix('[').and_then(|r| r.split_once(']')) {
        Some((class, _)) => class.contains("0-9") || class.contains("\\d"),
        None => false,
    }
}

/// The group a well-known kind lives in.
fn known_group(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "Gateway" | "GatewayClass" | "HTTPRoute" | "GRPCRoute" | "TCPRoute" | "TLSRoute" | "UDPRoute"
        | "ListenerSet" => "gateway.networking.k8s.io",
        "XListenerSet" | "XBackendTrafficPolicy" => "gateway.networking.x-k8s.io",
        "Service" | "Namespace" => "",
        "ServiceImport" => "multicluster.x-k8s.io",
        "ServiceEntry" => "networking.istio.io",
        "InferencePool" => "inference.networking.k8s.io",
        _ => return None,
    })
}

/// The group of a kind the rules name without keeping it to a group: the one non-core group
/// they mention, else the group the kind is known in, else Gateway API's.
fn target_group(kind: &str, mentioned: &[String]) -> String {
    if let Some(g) = known_group(kind) {
        return g.to_owned();
    }
    let others: Vec<&String> =
        mentioned.iter().filter(|g| !matches!(g.as_str(), "" | "core" | "gateway.networking.k8s.io")).collect();
    match others.as_slice() {
        [one] => (*one).clone(),
        _ => "gateway.networking.k8s.io".to_owned(),
    }
}

/// A rule as messages quote it: its first 80 characters.
fn shorten(rule: &str) -> String {
    let one_line: String = rule.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}
