//! The spec proper of a policy (docs/semantics.md §5 item 8) and its strategy (item 5).
//!
//! A policy is one or two *parts*: its defaults (a `defaults`/`default` stanza, or the bare
//! spec as implicit defaults) and its overrides. Each part is the stanza's content without the
//! strategy field; the spec proper never shows `targetRef`, `targetRefs`, `targetSelectors`,
//! the wrappers or `strategy`.

use serde_json::{Map, Value};

use super::listmap::SchemaNode;
use super::provenance::{PVal, Src, Supplier};
use super::semantics::Rules;
use super::strategy::{MergeRule, Patch};
use crate::catalog::{PolicyKind, Semantics, Stanza, Strategy};
use crate::model::REF_FIELDS;
use crate::syntax::{Node, Span};
use crate::world::ObjId;

#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// A JSON mapping.
    pub value: Value,
    pub strategy: Strategy,
    /// From `overrides`: its leaves hold against every more specific policy.
    pub strong: bool,
}

/// A strategy value the kind does not support (status Invalid, `unknown-strategy`).
#[derive(Clone, Debug, PartialEq)]
pub struct UnknownStrategy {
    pub span: Span,
    pub value: String,
    pub overrides: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// Defaults first, then overrides.
    pub parts: Vec<Part>,
    /// The strategy this policy dictates when it is the established one.
    pub strategy: Strategy,
    /// An atomic override and nothing else: nothing below it applies.
    pub locks: bool,
    pub unknown_strategy: Option<UnknownStrategy>,
    /// Leaves the policy contributes (for Enforced/PartiallyEnforced/Overridden).
    pub leaves: u32,
    /// Envoy Gateway `mergeType: JSONMerge`: an RFC 7386 patch, lists replaced whole (a
    /// `StrategicMerge` patch merges the lists the kind keys).
    pub json_merge: bool,
}

pub fn extract(
    policy: ObjId,
    kind: &PolicyKind,
    rules: &Rules,
    spec: Option<&Node>,
    schema: Option<&SchemaNode>,
) -> PolicySpec {
    let empty = Node { span: Span::default(), kind: crate::syntax::NodeKind::Mapping(Vec::new()) };
    let spec = spec.filter(|s| s.as_mapping().is_some()).unwrap_or(&empty);
    let field = kind.strategy_field();
    let reads_strategy = kind.stanza != Stanza::None || kind.semantics == Semantics::EnvoyGateway;
    let mut unknown = None;
    let mut strategy_of = |node: &Node, overrides: bool| -> Option<Strategy> {
        if !reads_strategy {
            return None;
        }
        let v = node.get(field)?;
        let text = v.as_str().unwrap_or("");
        match kind.strategy_for(text, overrides) {
            Some(s) => Some(s),
            None => {
                unknown.get_or_insert(UnknownStrategy { span: v.span, value: text.to_owned(), overrides });
                None
            }
        }
    };
    let implicit_defaults = rules.implicit.unwrap_or_else(|| kind.default_strategy());
    let implicit_overrides = rules.implicit.unwrap_or_else(|| implicit_override(kind));

    let (dkeys, okeys): (&[&str], &[&str]) = match kind.stanza {
        Stanza::None => (&[], &[]),
        // Either spelling is read: configs and real files mix them.
        Stanza::Plural | Stanza::Singular => (&["defaults", "default"], &["overrides", "override"]),
    };
    let skip_spec_field = reads_strategy;
    let bare: Map<String, Value> = spec
        .as_mapping()
        .unwrap_or(&[])
        .iter()
        .filter_map(|e| {
            let k = e.key.as_str()?;
            let skip =
                REF_FIELDS.contains(&k) || dkeys.contains(&k) || okeys.contains(&k) || (skip_spec_field && k == field);
            (!skip).then(|| (k.to_owned(), e.value.to_json()))
        })
        .collect();
    let spec_level = strategy_of(spec, false);

    let stanza = |keys: &[&str]| keys.iter().find_map(|k| spec.get(k)).filter(|n| n.as_mapping().is_some());
    let content = |n: &Node| -> Value {
        let mut m = match n.to_json() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        m.remove(field);
        Value::Object(m)
    };

    let mut parts = Vec::new();
    let dnode = stanza(dkeys);
    if dnode.is_some() || !bare.is_empty() || stanza(okeys).is_none() {
        // Bare fields are implicit defaults; with a `defaults` stanza too, the stanza is
        // patched over them.
        let mut value = Value::Object(bare);
        let mut strategy = spec_level;
        if let Some(d) = dnode {
            if let (Value::Object(base), Value::Object(extra)) = (&mut value, content(d)) {
                base.extend(extra);
            }
            strategy = strategy_of(d, false).or(strategy);
        }
        parts.push(Part { value, strategy: strategy.unwrap_or(implicit_defaults), strong: false });
    }
    if let Some(o) = stanza(okeys) {
        let strategy = strategy_of(o, true).unwrap_or(implicit_overrides);
        parts.push(Part { value: content(o), strategy, strong: true });
    }
    let has_defaults = parts.iter().any(|p| !p.strong);
    let strategy = parts.first().map_or(implicit_defaults, |p| p.strategy);
    let locks = !has_defaults && parts.iter().any(|p| p.strategy == Strategy::AtomicOverrides);
    let json_merge =
        kind.semantics == Semantics::EnvoyGateway && spec.get(field).and_then(Node::as_str) == Some("JSONMerge");
    // Counted as the fold will apply it: a JSONMerge patch replaces lists whole, so a keyed
    // list is one leaf, not one per item field (else it never keeps all it contributed).
    let leaves = own_tree(policy, &parts, rules, schema.filter(|_| !json_merge)).leaf_count();
    PolicySpec { parts, strategy, locks, unknown_strategy: unknown, leaves, json_merge }
}

/// An `overrides` stanza with no strategy: AtomicOverrides, or PatchOverrides where the kind
/// only patches.
fn implicit_override(kind: &PolicyKind) -> Strategy {
    let has = |s| kind.strategies.contains(&s);
    if !has(Strategy::AtomicOverrides) && has(Strategy::PatchOverrides) {
        Strategy::PatchOverrides
    } else {
        Strategy::AtomicOverrides
    }
}

/// The policy's own parts merged (overrides over defaults): what it would contribute alone.
pub fn own_tree(policy: ObjId, parts: &[Part], rules: &Rules, schema: Option<&SchemaNode>) -> PVal {
    let mut tree = PVal::empty_map();
    let mut events = Vec::new();
    for p in parts {
        Patch {
            src: Src { origin: Supplier::Policy(policy), strategy: p.strategy, strong: p.strong },
            guard: &|_| false,
            rule: MergeRule::Patched,
            blocked_rule: MergeRule::Protected,
            units: rules.units,
            events: &mut events,
        }
        .apply(&mut tree, &p.value, schema);
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, KindSource, PolicyClass};
    use crate::model::GroupKind;
    use crate::syntax::parse_file;
    use serde_json::json;

    fn node(yaml: &str) -> Node {
        match parse_file(yaml).documents.into_iter().next().and_then(|d| d.root) {
            Some(n) => n,
            None => panic!("no document"),
        }
    }

    fn color() -> PolicyKind {
        PolicyKind::new(
            GroupKind::new("policies.example.com", "ColorPolicy"),
            PolicyClass::Inherited,
            KindSource::Config,
        )
    }

    fn parts(kind: &PolicyKind, yaml: &str) -> PolicySpec {
        let rules = super::super::semantics::rules(kind);
        extract(ObjId(0), kind, &rules, Some(&node(yaml)), None)
    }

    #[test]
    fn effective_spec_proper_and_strategies() {
        let k = color();
        // GEP-713 Example 3 p1: implicit defaults with a spec-level strategy.
        let s =
            parts(&k, "targetRefs: [{kind: Gateway, name: g1}]\ncolors: {dark: brown, light: red}\nstrategy: atomic\n");
        assert_eq!(
            s.parts,
            vec![Part {
                value: json!({"colors": {"dark": "brown", "light": "red"}}),
                strategy: Strategy::AtomicDefaults,
                strong: false
            }]
        );
        assert_eq!((s.leaves, s.locks), (2, false));
        // Example 3 p3.
        let s =
            parts(&k, "targetRef: {kind: Gateway, name: g2}\noverrides: {colors: {light: yellow}, strategy: patch}\n");
        assert_eq!(
            s.parts,
            vec![Part {
                value: json!({"colors": {"light": "yellow"}}),
                strategy: Strategy::PatchOverrides,
                strong: true
            }]
        );
        assert_eq!(s.strategy, Strategy::PatchOverrides);
        // Example 2 p3: overrides default to atomic, which locks.
        let s = parts(&k, "targetRef: {kind: Gateway, name: g2}\noverrides: {color: yellow}\n");
        assert_eq!((s.parts[0].strategy, s.locks), (Strategy::AtomicOverrides, true));
        // Unknown strategy.
        let s = parts(&k, "targetRef: {kind: Gateway, name: g2}\ndefaults: {color: red, strategy: fancy}\n");
        assert_eq!(s.unknown_strategy.map(|u| u.value), Some("fancy".to_owned()));
        // Both stanzas (GEP-2649 CDNCachingPolicy): defaults first, then overrides.
        let s = parts(
            &k,
            "targetRef: {kind: Gateway, name: g}\noverride: {cdn: {enabled: true}}\ndefault: {cdn: {cachePolicy: {includeHost: true}}}\n",
        );
        let kinds: Vec<(bool, Value)> = s.parts.iter().map(|p| (p.strong, p.value.clone())).collect();
        assert_eq!(
            kinds,
            vec![
                (false, json!({"cdn": {"cachePolicy": {"includeHost": true}}})),
                (true, json!({"cdn": {"enabled": true}}))
            ]
        );
        assert!(!s.locks);
    }

    #[test]
    fn effective_spec_real_kinds() {
        let c = Catalog::builtin();
        let get =
            |g: &str, k: &str| c.get(&GroupKind::new(g, k)).map(|k| (**k).clone()).unwrap_or_else(|| panic!("{k}"));
        let btp = get("gateway.envoyproxy.io", "BackendTrafficPolicy");
        let s = parts(
            &btp,
            "targetRefs: [{kind: HTTPRoute, name: r}]\nmergeType: StrategicMerge\ntimeout: {http: {requestTimeout: 30s}}\n",
        );
        assert_eq!(
            s.parts,
            vec![Part {
                value: json!({"timeout": {"http": {"requestTimeout": "30s"}}}),
                strategy: Strategy::PatchDefaults,
                strong: false
            }]
        );
        let s = parts(&btp, "targetRefs: [{kind: HTTPRoute, name: r}]\nretry: {numRetries: 0}\n");
        assert_eq!(s.strategy, Strategy::AtomicDefaults);
        let rlp = get("kuadrant.io", "RateLimitPolicy");
        let s = parts(
            &rlp,
            "targetRef: {kind: Gateway, name: g}\ndefaults: {strategy: merge, limits: {a: {rates: [{limit: 1}]}}}\n",
        );
        assert_eq!((s.strategy, s.leaves), (Strategy::Custom, 1), "a Kuadrant limit is one unit");
        let btls = get("gateway.networking.k8s.io", "BackendTLSPolicy");
        let s = parts(&btls, "targetRefs: [{kind: Service, name: s}]\nvalidation: {hostname: h}\nstrategy: x\n");
        assert_eq!(
            s.parts[0].value,
            json!({"validation": {"hostname": "h"}, "strategy": "x"}),
            "a Direct kind's `strategy` is just a field"
        );
        assert_eq!(s.strategy, Strategy::None);
        assert!(s.unknown_strategy.is_none());
    }
}
