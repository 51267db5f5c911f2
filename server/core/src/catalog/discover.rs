//! Assembles the catalog for a workspace: built-in table, CRD labels, config entries, shape.
//!
//! 1. The built-in table.
//! 2. Workspace CRDs labelled `gateway.networking.k8s.io/policy` (`direct`, `inherited` or
//!    `true`, any case) add the kinds the table lacks, with what their `openAPIV3Schema` tells:
//!    reference fields, `maxItems`, `sectionName`/`namespace` in the ref, the default group,
//!    allowed kinds from enums and simple CEL rules, the stanza and strategy values.
//! 3. `.policylens.yaml` entries replace or add kinds (fields left out keep step 1-2 values).
//! 4. Objects of a still unknown (group, kind) whose spec has `targetRef`, `targetRefs` or
//!    `targetSelectors` make a kind of their own: Inherited when any of them has a
//!    defaults/overrides stanza, else Direct; any target; the reference fields they use. An
//!    unlabelled workspace CRD of that kind, if any, fills in what its schema says.

use std::collections::HashMap;

use super::crd_targets::push_enum;
use super::{Catalog, Config, KindSource, PolicyClass, PolicyKind, Stanza, Strategy};
use crate::model::{Body, Crd, GroupKind, Object};
use crate::syntax::Node;

pub fn build_catalog<'a>(config: &Config, objects: impl Iterator<Item = &'a Object>) -> Catalog {
    let mut catalog = Catalog::builtin();
    let mut crds: Vec<&Crd> = Vec::new();
    let mut seen: HashMap<GroupKind, Observed> = HashMap::new();
    let mut order: Vec<GroupKind> = Vec::new();
    for o in objects {
        match &o.body {
            Body::Crd(c) => crds.push(c),
            Body::Other(other) if other.policy.has_ref_fields() => {
                let gk = o.group_kind();
                let obs = seen.entry(gk.clone()).or_insert_with(|| {
                    order.push(gk);
                    Observed::default()
                });
                obs.add(&other.policy);
            }
            _ => {}
        }
    }

    let mut unlabelled: HashMap<GroupKind, &Crd> = HashMap::new();
    for crd in crds {
        let gk = GroupKind::new(&crd.group, &crd.kind);
        match crd.policy_label.as_deref().and_then(parse_label) {
            Some(label) if catalog.get(&gk).is_none() => {
                let class = match label {
                    Label::Class(c) => Some(c),
                    Label::True => None,
                };
                catalog.insert(kind_from_crd(crd, class, seen.get(&gk), KindSource::CrdLabel));
            }
            Some(_) => {}
            None => {
                unlabelled.entry(gk).or_insert(crd);
            }
        }
    }

    for entry in &config.policy_kinds {
        let kind = entry.to_kind(catalog.get(&entry.group_kind()).map(|k| k.as_ref()));
        catalog.insert(kind);
    }

    let attachable = Attachable::of(&catalog, unlabelled.values().copied());
    for gk in order {
        // Known routes and extensions with targetRef-shaped fields are not policies, and
        // neither is a kind whose CRD in the world is a route (it has `parentRefs`).
        let not_policy = super::NOT_POLICIES.iter().any(|(g, k)| gk.is(g, k))
            || unlabelled.get(&gk).is_some_and(|crd| crd_is_route(crd));
        if catalog.get(&gk).is_some() || not_policy {
            continue;
        }
        let Some(obs) = seen.get(&gk) else { continue };
        // A workload's controller (a VerticalPodAutoscaler's or a progressive-delivery
        // Canary's `targetRef` to a Deployment) is no policy (docs/semantics.md §4.4).
        if !obs.targets.iter().any(|(g, k)| attachable.admits(g.as_deref(), k.as_deref())) {
            continue;
        }
        let kind = match unlabelled.get(&gk) {
            Some(crd) => kind_from_crd(crd, None, Some(obs), KindSource::Shape),
            None => kind_from_shape(gk, obs),
        };
        catalog.insert(kind);
    }
    catalog
}

/// The kinds a policy attaches to (docs/semantics.md §4.4): Gateway API's, core Services and
/// Namespaces, the targets every known policy kind lists (implementations' backends such as
/// Envoy Gateway's `Backend`, Istio's `ServiceEntry`, `ServiceImport`, `InferencePool`), and
/// the kinds the world's CRDs make routes. Anything else (a Deployment, a StatefulSet, a
/// HorizontalPodAutoscaler) is a workload or a kind of its own: an object whose references
/// name only such kinds is no policy. Listed rather than excluded: a kind nobody names as a
/// target is not one.
struct Attachable {
    kinds: std::collections::HashSet<GroupKind>,
    /// The same kinds by name alone, for references that leave `group` out.
    names: std::collections::HashSet<String>,
}

impl Attachable {
    fn of<'c>(catalog: &Catalog, crds: impl Iterator<Item = &'c Crd>) -> Attachable {
        let mut kinds: std::collections::HashSet<GroupKind> = std::collections::HashSet::new();
        for k in ["Service", "Namespace"] {
            kinds.insert(GroupKind::new("", k));
        }
        for k in catalog.iter() {
            kinds.extend(k.targets.iter().map(|t| t.gk.clone()));
            kinds.extend(k.effective_targets.iter().cloned());
        }
        kinds.extend(crds.filter(|c| crd_is_route(c)).map(|c| GroupKind::new(&c.group, &c.kind)));
        let mut names: std::collections::HashSet<String> = kinds.iter().map(|gk| gk.kind.to_string()).collect();
        for k in
            ["Gateway", "GatewayClass", "HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute", "ListenerSet"]
        {
            names.insert(k.to_owned());
        }
        Attachable { kinds, names }
    }

    /// Whether a reference naming `kind` (in `group`, when written) may attach a policy. A
    /// kind that is absent or a placeholder may name anything.
    fn admits(&self, group: Option<&str>, kind: Option<&str>) -> bool {
        let Some(kind) = kind else { return true };
        match group.map(crate::model::normalize_group) {
            Some(g) if g == crate::model::GATEWAY_GROUP || g == "gateway.networking.x-k8s.io" => true,
            Some(g) if !crate::model::is_placeholder(g) => self.kinds.contains(&GroupKind::new(g, kind)),
            _ => self.names.contains(kind),
        }
    }
}

/// A CRD whose spec schema has `parentRefs` describes a route, whatever else it has.
fn crd_is_route(crd: &Crd) -> bool {
    crd_schema(crd)
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get("spec"))
        .and_then(|s| s.get("properties"))
        .is_some_and(|p| p.get("parentRefs").is_some())
}

enum Label {
    Class(PolicyClass),
    /// `true`: a policy, class from its shape.
    True,
}

/// The label's value, compared case-insensitively (real CRDs write `Direct`, `direct`,
/// `inherited`; gwctl also accepts `true`). Other values do not make a policy.
fn parse_label(v: &str) -> Option<Label> {
    match v.trim().to_ascii_lowercase().as_str() {
        "direct" => Some(Label::Class(PolicyClass::Direct)),
        "inherited" => Some(Label::Class(PolicyClass::Inherited)),
        "true" => Some(Label::True),
        _ => None,
    }
}

/// What the objects of one (group, kind) show.
#[derive(Default)]
struct Observed {
    target_ref: bool,
    target_refs: bool,
    target_selectors: bool,
    plural: bool,
    singular: bool,
    /// The (group, kind)s their references and selectors name, as written; `None` for a kind
    /// that is absent or a placeholder. At most [`MAX_OBSERVED`].
    targets: Vec<(Option<String>, Option<String>)>,
}

/// Distinct (group, kind)s kept per observed kind: enough to find one a policy attaches to.
const MAX_OBSERVED: usize = 32;

impl Observed {
    fn add(&mut self, p: &crate::model::PolicyFields) {
        self.target_ref |= p.target_ref.is_some();
        self.target_refs |= p.target_refs.is_some();
        self.target_selectors |= p.target_selectors.is_some();
        let refs = p.refs().map(|r| (r.group.as_deref(), r.kind.as_deref()));
        let selectors = p.target_selectors.iter().flat_map(|s| &s.items).map(|s| (s.group.as_ref(), s.kind.as_ref()));
        for (group, kind) in refs.chain(selectors) {
            let kind = kind.map(|k| k.value.as_str()).filter(|k| !k.is_empty() && !crate::model::is_placeholder(k));
            let entry = (group.map(|g| g.value.to_string()), kind.map(str::to_owned));
            if self.targets.len() < MAX_OBSERVED && !self.targets.contains(&entry) {
                self.targets.push(entry);
            }
        }
        if p.target_ref.as_ref().is_some_and(|(_, r)| r.is_none())
            || p.target_refs.as_ref().is_some_and(|l| l.items.is_empty())
        {
            // A reference that is no mapping, or an empty list: nothing says what it names.
            if !self.targets.contains(&(None, None)) {
                self.targets.push((None, None));
            }
        }
        if let Some(spec) = p.spec.as_ref().map(crate::syntax::PackedNode::unpack) {
            self.plural |= spec.get("defaults").is_some() || spec.get("overrides").is_some();
            self.singular |= spec.get("default").is_some() || spec.get("override").is_some();
        }
    }

    fn stanza(&self) -> Option<Stanza> {
        match (self.plural, self.singular) {
            (true, _) => Some(Stanza::Plural),
            (false, true) => Some(Stanza::Singular),
            _ => None,
        }
    }
}

fn kind_from_shape(gk: GroupKind, obs: &Observed) -> PolicyKind {
    let stanza = obs.stanza();
    let class = if stanza.is_some() { PolicyClass::Inherited } else { PolicyClass::Direct };
    let mut k = PolicyKind::new(gk, class, KindSource::Shape);
    k.target_ref = obs.target_ref;
    k.target_refs = obs.target_refs;
    k.target_selectors = obs.target_selectors;
    if let Some(s) = stanza {
        k.stanza = s;
    }
    // Nothing says where refs may point: leave the namespace to ReferenceGrant checks.
    k.cross_namespace = true;
    k
}

/// A kind from a CRD's schema. `class`: from the label; `None`: from the schema's stanza or,
/// failing that, the objects'.
fn kind_from_crd(crd: &Crd, class: Option<PolicyClass>, obs: Option<&Observed>, source: KindSource) -> PolicyKind {
    let gk = GroupKind::new(&crd.group, &crd.kind);
    let info = crd_schema(crd).map(SchemaInfo::read).unwrap_or_default();
    let stanza = info.stanza.or_else(|| obs.and_then(Observed::stanza));
    let class = class.unwrap_or(if stanza.is_some() { PolicyClass::Inherited } else { PolicyClass::Direct });
    let mut k = PolicyKind::new(gk, class, source);
    if info.target_ref || info.target_refs || info.target_selectors {
        k.target_ref = info.target_ref;
        k.target_refs = info.target_refs;
        k.target_selectors = info.target_selectors;
    } else if info.spec_known {
        // The schema has no reference field: something else attaches the kind (Kong's
        // KongUpstreamPolicy, by a Service annotation). Never ask its objects for one.
        k.target_ref = false;
        k.target_refs = false;
        k.target_selectors = false;
        k.target_optional = true;
        k.untargeted = Some(format!(
            "its CRD (`{}.{}`) has no targetRef, targetRefs or targetSelectors: something other than a reference attaches it",
            crd.plural, crd.group
        ));
    } else if let Some(o) = obs {
        k.target_ref = o.target_ref;
        k.target_refs = o.target_refs;
        k.target_selectors = o.target_selectors;
    }
    if let Some(n) = info.max_items {
        k.max_refs = n;
    }
    k.cross_namespace = info.namespace;
    k.default_ref_group = info.default_group.clone();
    k.targets = info.refs.targets.clone();
    k.open_targets = info.refs.open.clone().map(super::OpenTargets::Any);
    k.numeric_sections = info.refs.numeric_sections;
    if info.refs.optional != Some(false) && !k.target_optional {
        // A kubebuilder scaffold's CRD, or one whose rules on `spec` policylens cannot follow:
        // a policy without a reference is not known to be invalid.
        k.target_optional = true;
        k.untargeted = Some(match info.refs.optional {
            Some(_) => format!("its CRD (`{}.{}`) does not require a target reference", crd.plural, crd.group),
            None => {
                format!("whether its CRD (`{}.{}`) requires a target reference is not known", crd.plural, crd.group)
            }
        });
    }
    match class {
        PolicyClass::Direct => {
            k.stanza = stanza.unwrap_or(Stanza::None);
        }
        PolicyClass::Inherited => {
            k.stanza = stanza.unwrap_or(Stanza::Plural);
            k.strategies = info.strategies();
        }
    }
    k
}

/// The schema of the version the API server stores (else the first served one, else any).
fn crd_schema(crd: &Crd) -> Option<&Node> {
    let with_schema = || crd.versions.iter().filter(|v| v.schema.is_some());
    with_schema()
        .find(|v| v.storage)
        .or_else(|| with_schema().find(|v| v.served))
        .or_else(|| with_schema().next())
        .and_then(|v| v.schema.as_deref())
}

/// What a policy CRD's `openAPIV3Schema` says about attachment.
#[derive(Default)]
struct SchemaInfo {
    target_ref: bool,
    target_refs: bool,
    target_selectors: bool,
    max_items: Option<u32>,
    section_name: bool,
    namespace: bool,
    default_group: Option<String>,
    /// Targets, sections and required-ness from the rules and enums ([`super::crd_targets`]).
    refs: super::crd_targets::RefSchema,
    stanza: Option<Stanza>,
    overrides: bool,
    /// `strategy` enum values in the stanza (or at spec level).
    strategy_values: Vec<String>,
    /// A `strategy` field exists (with or without an enum).
    strategy_field: bool,
    /// The schema lists the spec's properties (so a field it lacks is known to be absent).
    spec_known: bool,
}

impl SchemaInfo {
    fn read(schema: &Node) -> SchemaInfo {
        let mut info = SchemaInfo::default();
        let Some(spec) = schema.at(&["properties", "spec"]) else {
            return info;
        };
        let Some(props) = spec.get("properties") else {
            return info;
        };
        info.spec_known = props.as_mapping().is_some_and(|m| !m.is_empty());
        let one = props.get("targetRef");
        let many = props.get("targetRefs");
        info.target_ref = one.is_some();
        info.target_refs = many.is_some();
        info.target_selectors = props.get("targetSelectors").is_some();
        info.max_items =
            many.and_then(|m| m.get("maxItems")).and_then(Node::as_i64).and_then(|n| u32::try_from(n).ok());

        let items = many.and_then(|m| m.get("items"));
        for ref_schema in [one, items].into_iter().flatten() {
            let Some(rp) = ref_schema.get("properties") else {
                continue;
            };
            info.section_name |= rp.get("sectionName").is_some();
            info.namespace |= rp.get("namespace").is_some();
            if info.default_group.is_none()
                && let Some(g) = rp.get("group")
            {
                info.default_group = g
                    .get("default")
                    .and_then(Node::as_scalar)
                    .map(|s| crate::model::normalize_group(&s.value).to_owned());
            }
        }
        info.refs = super::crd_targets::read(spec, one, many);

        let has = |k: &str| props.get(k).is_some();
        info.overrides = has("overrides") || has("override");
        info.stanza = if has("defaults") || has("overrides") {
            Some(Stanza::Plural)
        } else if has("default") || has("override") {
            Some(Stanza::Singular)
        } else {
            None
        };
        for holder in ["defaults", "overrides", "default", "override"]
            .iter()
            .filter_map(|k| props.get(k))
            .chain(std::iter::once(spec))
        {
            if let Some(s) = holder.at(&["properties", "strategy"]) {
                info.strategy_field = true;
                push_enum(s, &mut info.strategy_values);
            }
        }
        info
    }

    /// Strategies of an Inherited kind: its `strategy` enum read the GEP way (`atomic`,
    /// `patch`/`merge`), defaults always, overrides when the schema has an overrides stanza.
    fn strategies(&self) -> Vec<Strategy> {
        let mut atomic = self.strategy_values.is_empty();
        // A plain string field with no enum takes every GEP-713 value.
        let mut patch = self.strategy_field && self.strategy_values.is_empty();
        for v in &self.strategy_values {
            match v.to_ascii_lowercase().as_str() {
                "atomic" => atomic = true,
                "patch" | "merge" => patch = true,
                _ => {}
            }
        }
        let mut out = Vec::new();
        if atomic {
            out.push(Strategy::AtomicDefaults);
            if self.overrides {
                out.push(Strategy::AtomicOverrides);
            }
        }
        if patch {
            out.push(Strategy::PatchDefaults);
            if self.overrides {
                out.push(Strategy::PatchOverrides);
            }
        }
        if out.is_empty() {
            out.push(Strategy::AtomicDefaults);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Semantics, TargetKind, load_config};
    use crate::model::extract_objects;
    use crate::syntax::parse_file;

    fn objects(text: &str) -> Vec<Object> {
        extract_objects(&parse_file(text), text)
    }

    fn gk(group: &str, kind: &str) -> GroupKind {
        GroupKind::new(group, kind)
    }

    const CRDS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: quotapolicies.acme.io
  labels:
    gateway.networking.k8s.io/policy: Inherited
spec:
  group: acme.io
  names: {kind: QuotaPolicy, plural: quotapolicies}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: false
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "!(has(self.defaults) && has(self.overrides))"
              properties:
                targetRef:
                  type: object
                  x-kubernetes-validations:
                    - rule: "self.group == 'gateway.networking.k8s.io'"
                    - rule: "self.kind in ['HTTPRoute', \"Gateway\"]"
                  properties:
                    group: {type: string}
                    kind: {type: string}
                    name: {type: string}
                    sectionName: {type: string}
                defaults:
                  type: object
                  properties:
                    strategy: {type: string, enum: [atomic, merge]}
                overrides:
                  type: object
                  properties:
                    strategy: {type: string, enum: [atomic, merge]}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backendcertpolicies.acme.io
  labels:
    gateway.networking.k8s.io/policy: direct
spec:
  group: acme.io
  names: {kind: BackendCertPolicy, plural: backendcertpolicies}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          properties:
            spec:
              properties:
                targetRefs:
                  type: array
                  maxItems: 4
                  x-kubernetes-validations:
                    - rule: "self.all(r, (r.group == '' && r.kind == 'Service') || (r.group == 'multicluster.x-k8s.io' && r.kind == 'ServiceImport'))"
                  items:
                    properties:
                      group: {type: string, default: ""}
                      kind: {type: string}
                      name: {type: string}
                      namespace: {type: string}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: tweaks.acme.io
  labels:
    gateway.networking.k8s.io/policy: "TRUE"
spec:
  group: acme.io
  names: {kind: Tweak, plural: tweaks}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          properties:
            spec:
              properties:
                targetRefs:
                  items:
                    properties:
                      kind: {type: string, enum: [Gateway]}
                default: {type: object}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: authpolicies.kuadrant.io
  labels:
    gateway.networking.k8s.io/policy: direct
spec:
  group: kuadrant.io
  names: {kind: AuthPolicy, plural: authpolicies}
  versions: [{name: v1, served: true, storage: true}]
"#;

    #[test]
    fn catalog_crd_label_discovery_reads_the_schema() {
        let objs = objects(CRDS);
        let c = build_catalog(&Config::default(), objs.iter());

        let q = c.get(&gk("acme.io", "QuotaPolicy")).unwrap();
        assert_eq!(q.source, KindSource::CrdLabel);
        assert_eq!(q.class, PolicyClass::Inherited);
        assert!(q.target_ref && !q.target_refs && !q.target_selectors);
        assert_eq!(
            q.targets,
            vec![
                TargetKind { gk: gk("gateway.networking.k8s.io", "HTTPRoute"), section_name: true },
                TargetKind { gk: gk("gateway.networking.k8s.io", "Gateway"), section_name: true },
            ]
        );
        assert!(!q.cross_namespace);
        assert_eq!(q.default_ref_group, None);
        assert_eq!(q.stanza, Stanza::Plural);
        assert_eq!(
            q.strategies,
            vec![
                Strategy::AtomicDefaults,
                Strategy::AtomicOverrides,
                Strategy::PatchDefaults,
                Strategy::PatchOverrides
            ]
        );

        let b = c.get(&gk("acme.io", "BackendCertPolicy")).unwrap();
        assert_eq!(b.class, PolicyClass::Direct);
        assert!(!b.target_ref && b.target_refs);
        assert_eq!(b.max_refs, 4);
        assert!(b.cross_namespace, "the ref schema has `namespace`");
        assert_eq!(b.default_ref_group.as_deref(), Some(""));
        assert_eq!(
            b.targets,
            vec![
                TargetKind { gk: gk("", "Service"), section_name: false },
                TargetKind { gk: gk("multicluster.x-k8s.io", "ServiceImport"), section_name: false },
            ]
        );
        assert_eq!(b.strategies, vec![Strategy::None]);
        assert_eq!(b.stanza, Stanza::None);

        // `true` (any case): class from the schema's stanza.
        let t = c.get(&gk("acme.io", "Tweak")).unwrap();
        assert_eq!(t.class, PolicyClass::Inherited);
        assert_eq!(t.stanza, Stanza::Singular);
        assert_eq!(t.targets, vec![TargetKind { gk: gk("gateway.networking.k8s.io", "Gateway"), section_name: false }]);
        assert_eq!(t.strategies, vec![Strategy::AtomicDefaults]);

        // A label never overrides the built-in table (the label says direct; Kuadrant merges).
        let a = c.get(&gk("kuadrant.io", "AuthPolicy")).unwrap();
        assert_eq!(a.source, KindSource::Builtin);
        assert_eq!(a.class, PolicyClass::Inherited);
    }

    #[test]
    fn catalog_unlabelled_crd_is_not_a_policy_kind_alone() {
        let text = CRDS.replace("gateway.networking.k8s.io/policy: direct", "app: x");
        let c = build_catalog(&Config::default(), objects(&text).iter());
        assert!(c.get(&gk("acme.io", "BackendCertPolicy")).is_none());
        assert!(c.get(&gk("acme.io", "QuotaPolicy")).is_some());
    }

    const SHAPED: &str = r#"
apiVersion: example.org/v1
kind: RateLimitPolicy
metadata: {name: a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  limit: 10
---
apiVersion: acme.io/v1
kind: FooPolicy
metadata: {name: f1}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}]
  color: blue
---
apiVersion: acme.io/v1
kind: FooPolicy
metadata: {name: f2}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g}
  overrides: {color: red}
---
apiVersion: acme.io/v1
kind: OldPolicy
metadata: {name: o}
spec:
  targetRef: {group: "", kind: Service, name: s}
  default: {timeout: 5s}
---
apiVersion: acme.io/v1
kind: NotAPolicy
metadata: {name: n}
spec: {color: blue}
"#;

    #[test]
    fn catalog_shape_inference_direct_vs_inherited() {
        let c = build_catalog(&Config::default(), objects(SHAPED).iter());

        let rl = c.get(&gk("example.org", "RateLimitPolicy")).unwrap();
        assert_eq!(rl.source, KindSource::Shape);
        assert_eq!(rl.class, PolicyClass::Direct);
        assert!(rl.target_ref && !rl.target_refs && !rl.target_selectors);
        assert!(rl.targets.is_empty(), "any target");
        assert_eq!(rl.stanza, Stanza::None);
        assert_eq!(rl.default_strategy(), Strategy::None);

        // One object with `overrides` makes the whole kind Inherited; refs as seen.
        let foo = c.get(&gk("acme.io", "FooPolicy")).unwrap();
        assert_eq!(foo.class, PolicyClass::Inherited);
        assert!(foo.target_ref && foo.target_refs && !foo.target_selectors);
        assert_eq!(foo.stanza, Stanza::Plural);
        assert_eq!(foo.default_strategy(), Strategy::AtomicDefaults);

        let old = c.get(&gk("acme.io", "OldPolicy")).unwrap();
        assert_eq!(old.class, PolicyClass::Inherited);
        assert_eq!(old.stanza, Stanza::Singular);

        assert!(c.get(&gk("acme.io", "NotAPolicy")).is_none());

        // Same kind name, other groups: the built-in entries are untouched.
        let kuadrant = c.get(&gk("kuadrant.io", "RateLimitPolicy")).unwrap();
        assert_eq!(kuadrant.source, KindSource::Builtin);
        assert_eq!(kuadrant.semantics, Semantics::Kuadrant);
        let ngf = c.get(&gk("gateway.nginx.org", "RateLimitPolicy")).unwrap();
        assert_eq!(ngf.semantics, Semantics::Additive);
    }

    #[test]
    fn catalog_shape_uses_an_unlabelled_crd_schema() {
        let text = format!(
            "{}\n---\n{}",
            CRDS.replace("gateway.networking.k8s.io/policy: direct", "app: x"),
            "apiVersion: acme.io/v1\nkind: BackendCertPolicy\nmetadata: {name: b}\nspec:\n  targetRefs: [{kind: Service, name: s}]\n"
        );
        let c = build_catalog(&Config::default(), objects(&text).iter());
        let b = c.get(&gk("acme.io", "BackendCertPolicy")).unwrap();
        assert_eq!(b.source, KindSource::Shape);
        assert_eq!(b.max_refs, 4);
        assert_eq!(b.targets.len(), 2);
    }

    #[test]
    fn catalog_config_entry_overrides_builtin_and_beats_shape() {
        let (config, errors) = load_config(
            "policyKinds:\n\
             \x20 - {group: kuadrant.io, kind: DNSPolicy, class: Inherited, project: mine}\n\
             \x20 - {group: example.org, kind: RateLimitPolicy, class: Inherited, targets: [{group: gateway.networking.k8s.io, kind: Gateway}]}\n\
             \x20 - {group: acme.io, kind: QuotaPolicy, maxRefs: 2}\n",
        );
        assert_eq!(errors, vec![]);
        let objs = objects(&format!("{CRDS}\n---\n{SHAPED}"));
        let c = build_catalog(&config, objs.iter());

        let dns = c.get(&gk("kuadrant.io", "DNSPolicy")).unwrap();
        assert_eq!(dns.source, KindSource::Config);
        assert_eq!(dns.class, PolicyClass::Inherited);
        assert_eq!(dns.project, "mine");
        // Not given: kept from the built-in entry.
        assert_eq!(
            dns.targets,
            vec![TargetKind { gk: gk("gateway.networking.k8s.io", "Gateway"), section_name: true }]
        );
        assert!(dns.target_ref && !dns.target_refs);
        // The class changed, so strategies and stanza are the Inherited defaults.
        assert_eq!(dns.stanza, Stanza::Plural);
        assert!(dns.strategies.contains(&Strategy::AtomicOverrides));

        let rl = c.get(&gk("example.org", "RateLimitPolicy")).unwrap();
        assert_eq!(rl.source, KindSource::Config);
        assert_eq!(rl.class, PolicyClass::Inherited);
        assert_eq!(rl.targets.len(), 1);

        // On top of a CRD-derived kind: its schema facts stay.
        let q = c.get(&gk("acme.io", "QuotaPolicy")).unwrap();
        assert_eq!(q.source, KindSource::Config);
        assert_eq!(q.max_refs, 2);
        assert_eq!(q.targets.len(), 2);
        assert_eq!(q.class, PolicyClass::Inherited);
    }
}
