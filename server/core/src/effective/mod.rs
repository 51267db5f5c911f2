//! Effective policies (GEP-713, docs/semantics.md §5): per policy kind, per path from a root of the DAG to
//! a target, the attached policies ordered least specific first and folded with the
//! established policy's strategy, every leaf carrying its provenance; and the status of every
//! policy (§5.1).
//!
//! [`EffectiveIndex`] is computed once per snapshot (`Snapshot::effective()`): every policy's
//! status over all contexts, and per kind the plan of which policies sit where. Specs proper
//! are made per kind while computing and on demand afterwards; [`explain`] answers for one
//! target from the index.
//! The report types serialise to the CLI's JSON contracts (docs/json.md); the language server
//! returns the same JSON from its custom requests.

mod changed;
mod contexts;
pub mod controllers;
mod explain;
mod fold;
pub mod kinds_doc;
mod listmap;
mod order;
mod provenance;
mod reach;
mod semantics;
mod shadow;
mod spec;
mod status;
mod strategy;
mod without;

pub use changed::{ChangedPath, Leaf, Sides};
pub use controllers::Ignored;
pub use explain::{explain, explain_kinds, senders};
pub use provenance::{Supplier, field_label};
pub use spec::UnknownStrategy;
pub use status::{
    AcceptedReport, ClusterSource, Enforcement, IgnoredReport, Lost, PolicyStatus, PolicyStatusReport, Reason,
    ReportedConditionJson, ReportedStatus, StatusReport, UnknownReport, accepted_report, agrees,
    broken_backend_outcome, supplier_label, unknown_effects,
};
pub use without::{Without, WithoutStats};

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use crate::catalog::Strategy;
use crate::model::{Body, GroupKind};
use crate::topology::Linked;
use crate::topology::{DagNode, NodeId, PathLimit};
use crate::world::ObjId;

use contexts::{Folder, KindPlan};
use fold::Outcome;
use listmap::SchemaNode;
use spec::PolicySpec;
use status::Agg;

/// `explain --format json`.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Explanation {
    pub target: String,
    pub group: String,
    /// In a GitOps repository, the Flux Kustomization or Argo CD Application that applies the
    /// target's object, and the namespace it sets (docs/semantics.md §4.7).
    #[serde(rename = "appliedBy", skip_serializing_if = "Option::is_none")]
    pub applied_by: Option<String>,
    pub policies: Vec<KindExplanation>,
    /// Policies attached along the target's paths that the controllers they reach leave
    /// alone (docs/semantics.md §4.4.1): in no context above, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<IgnoredPolicy>,
    /// The path enumeration hit its limit: some paths are missing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// For a backend (a Service, or one of its ports): the routes that send it traffic, each
    /// with the policies in effect where its backendRef is written (the rule, or the route
    /// for an unnamed rule). They govern every request the backend receives through that
    /// route; `policies` above are those in effect at the backend itself.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub traffic: Vec<Traffic>,
    /// For a Service: the policy kinds in effect at each of its ports that has some (a
    /// BackendTLSPolicy names a port), as `policies` is for the Service.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortExplanation>,
}

/// The policies in effect at one port of a Service.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PortExplanation {
    /// The port's reference: `Service/payments/payments-api#https`.
    pub target: String,
    pub policies: Vec<KindExplanation>,
}

/// Traffic to a backend from one route (or rule) that names it in a backendRef.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Traffic {
    /// The rule (`HTTPRoute/shop/checkout#cart`), or the route for an unnamed rule.
    pub from: String,
    /// The policy kinds in effect there, as `policies` is for a target (kinds in effect at
    /// the backend itself are left to the backend's own `policies`).
    pub policies: Vec<KindExplanation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<IgnoredPolicy>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct IgnoredPolicy {
    pub policy: String,
    /// `UnsupportedByController` or `IgnorePolicyAttachment`.
    pub reason: &'static str,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct KindExplanation {
    /// `Kind.group` (§2.1 form of the policy kind).
    pub kind: String,
    pub contexts: Vec<Context>,
}

impl KindExplanation {
    /// A policy's reference without this kind's `Kind.group/` prefix (`shop/checkout-pay`): how
    /// the hover and `explain` name policies under their kind's heading.
    pub fn short<'a>(&self, policy: &'a str) -> &'a str {
        policy.strip_prefix(self.kind.as_str()).and_then(|r| r.strip_prefix('/')).unwrap_or(policy)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Context {
    /// §2.1 references of the DAG nodes from a root to the target.
    pub path: Vec<String>,
    pub effective: serde_json::Value,
    pub provenance: Vec<Provenance>,
    /// Every policy of the kind attached along the path, least specific first.
    pub policies: Vec<String>,
    /// The policies that lost something here, and to whom.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<Loss>,
    /// The unit whose world this context is (docs/semantics.md §4.7: `case
    /// test/e2e/testdata/a.yaml`, `kustomization overlays/prod`); absent for the workspace's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// JSON pointer into `effective`.
    pub field: String,
    pub policy: String,
    #[serde(serialize_with = "strategy_str")]
    #[schemars(with = "String")]
    pub strategy: Strategy,
    /// The value is the target's own (a field the kind shadows): the most specific default.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub from_target: bool,
}

/// A policy that lost all or part of its spec in one context.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Loss {
    pub policy: String,
    /// `Conflicted`, `Overridden` (nothing survives here) or `PartiallyOverridden`.
    pub outcome: &'static str,
    /// Who holds what it lost.
    pub by: Vec<String>,
    /// Why: `conflict`, `replaced`, `overridden`, `section-wins`, `patched`, `protected`,
    /// `older-wins`, `younger-wins`, `target-value`.
    pub because: Vec<&'static str>,
}

fn strategy_str<S: serde::Serializer>(s: &Strategy, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s.as_str())
}

/// Everything effective-policy related for one snapshot.
#[derive(Debug, Default)]
pub struct EffectiveIndex {
    plans: HashMap<GroupKind, KindPlan>,
    schemas: HashMap<GroupKind, SchemaNode>,
    statuses: HashMap<ObjId, PolicyStatus>,
    /// Policies the controllers they reach leave alone (docs/semantics.md §4.4.1): in no plan.
    ignored: HashMap<ObjId, Ignored>,
    /// Policies some of whose Gateways' controllers ignore them and others act on them: those
    /// Gateways, under which they take part in no context.
    ignored_under: HashMap<ObjId, Vec<ObjId>>,
    /// Some node had more distinct contexts than the path limit.
    pub truncated: bool,
    pub stats: EffectiveStats,
    /// The limit the contexts were computed with.
    limit: PathLimit,
}

/// What building the index took, for `--stats` and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EffectiveStats {
    /// (kind, effective target) pairs.
    pub targets: usize,
    /// (kind, effective target, distinct signature) triples: the contexts statuses are made of.
    pub contexts: usize,
    /// Folds computed (each extends a shorter one by one node's policies, or starts afresh).
    pub folds: usize,
}

impl EffectiveIndex {
    pub fn build(world: &Linked) -> EffectiveIndex {
        Self::build_with(world, PathLimit::default())
    }

    pub fn build_with(world: &Linked, limit: PathLimit) -> EffectiveIndex {
        Self::build_kinds(world, limit, None, &[])
    }

    /// The index of one policy kind only: all a hover on a policy reads (kinds never merge
    /// with each other), for a fraction of the work.
    pub(crate) fn build_for_kind(world: &Linked, kind: &GroupKind) -> EffectiveIndex {
        Self::build_kinds(world, PathLimit::default(), Some(std::slice::from_ref(kind)), &[])
    }

    /// The index of the kinds `only` names (all when `None`), as if the policies `without`
    /// were not there (a what-if that cannot be computed incrementally, `without.rs`).
    fn build_kinds(world: &Linked, limit: PathLimit, only: Option<&[GroupKind]>, without: &[ObjId]) -> EffectiveIndex {
        let schemas = listmap::schema_indexes(world);
        let mut by_kind: HashMap<&GroupKind, Vec<ObjId>> = HashMap::new();
        let wanted = |gk: &GroupKind| only.is_none_or(|o| o.contains(gk));
        for &pid in &world.policies {
            if without.contains(&pid) {
                continue;
            }
            if let Some(kind) = world.policy_kind(pid).filter(|k| wanted(&k.gk)) {
                by_kind.entry(&kind.gk).or_default().push(pid);
            }
        }
        // Every attached policy at first; each kind's plan drops its ruled-out policies once
        // their specs are known.
        let mut plans: HashMap<GroupKind, KindPlan> = HashMap::new();
        // Decided once per policy: a policy attaches at several nodes.
        let mut ignored: HashMap<ObjId, Ignored> = HashMap::new();
        let mut ignored_under: HashMap<ObjId, Vec<ObjId>> = HashMap::new();
        for &pid in by_kind.values().flatten() {
            match controllers::verdict(world, pid) {
                controllers::Verdict::Acted => {}
                controllers::Verdict::Ignored(i) => {
                    ignored.insert(pid, i);
                }
                controllers::Verdict::IgnoredUnder(gws) => {
                    ignored_under.insert(pid, gws);
                }
            }
        }
        for (node, pols) in world.topology.attached_nodes() {
            for &p in pols {
                let Some(kind) = world.policy_kind(p).filter(|k| wanted(&k.gk)) else { continue };
                if without.contains(&p) {
                    continue;
                }
                if ignored.contains_key(&p) {
                    continue;
                }
                let plan = plans.entry(kind.gk.clone()).or_insert_with(|| KindPlan {
                    kind: kind.clone(),
                    rules: semantics::rules(kind),
                    attached: HashMap::new(),
                    namespaces: HashMap::new(),
                    ignoring: HashMap::new(),
                    scope: contexts::Scope::All,
                });
                plan.attached.entry(node).or_default().push(p);
                if let DagNode::Namespace(ns) = world.topology.node(node) {
                    plan.namespaces.insert(world.topology.namespace_name(ns).clone(), node);
                }
            }
        }
        for (&p, gws) in &ignored_under {
            let Some(plan) = world.policy_kind(p).and_then(|k| plans.get_mut(&k.gk)) else { continue };
            for &g in gws {
                let list = plan.ignoring.entry(world.topology.object_node(g)).or_default();
                if !list.contains(&p) {
                    list.push(p);
                }
            }
        }
        let ns_objects = namespace_objects(world, &plans);

        let mut pre: HashMap<ObjId, status::Reason> = HashMap::new();
        let mut unknown: HashMap<ObjId, spec::UnknownStrategy> = HashMap::new();
        // By position in `world.policies` (ascending ids).
        let mut aggs: Vec<Agg> = std::iter::repeat_with(Agg::default).take(world.policies.len()).collect();
        let mut truncated_any = false;
        let mut stats = EffectiveStats::default();
        let mut json = shadow::ObjectJson::default();
        let mut scratch = contexts::Scratch::new(world);
        let mut kinds: Vec<(&GroupKind, Vec<ObjId>)> = by_kind.into_iter().collect();
        kinds.sort();
        for (gk, pids) in kinds {
            // Only this kind's specs are alive: they are as big as the policies' YAML, so
            // holding every kind's at once was a good part of the analysis's peak memory.
            let schema = schemas.get(gk);
            let specs: HashMap<ObjId, PolicySpec> =
                pids.iter().filter_map(|&pid| Some((pid, extract_spec(world, pid, schema)?))).collect();
            for (&pid, spec) in &specs {
                if let Some(r) = status::pre_reason(world, pid, spec) {
                    pre.insert(pid, r);
                }
                if let Some(u) = &spec.unknown_strategy {
                    unknown.insert(pid, u.clone());
                }
            }
            let Some(plan) = plans.get_mut(gk) else { continue };
            plan.retain(|p| !pre.contains_key(&p));
            if plan.attached.is_empty() {
                plans.remove(gk);
                continue;
            }
            for (&node, list) in plan.attached.iter_mut() {
                order::sort_ranked(world, list, |p| world.topology.is_extension_attached(node, p));
            }
            // One walk per unit whose policies meet here (docs/semantics.md §4.7).
            for scope in plans[gk].scopes(world) {
                let scoped;
                let plan: &KindPlan = if scope == contexts::Scope::All {
                    &plans[gk]
                } else {
                    scoped = plans[gk].scoped(world, scope);
                    &scoped
                };
                let folder = Folder::new(world, plan, &specs, schema);
                let truncated = contexts::visit(&folder, &mut scratch, &ns_objects, limit, &mut |target, ctxs| {
                    stats.targets += 1;
                    stats.contexts += ctxs.len();
                    outcomes_at(&folder, &mut json, target, ctxs, &mut |sig, o| {
                        if let Ok(i) = world.policies.binary_search(&o.policy) {
                            aggs[i].add(target, sig, o);
                        }
                    });
                });
                truncated_any |= truncated;
                stats.folds += folder.folds();
            }
        }
        let mut statuses = HashMap::with_capacity(world.policies.len());
        for (&pid, agg) in world.policies.iter().zip(aggs) {
            let effect_unknown = status::has_unknown_effects(world, pid);
            let st = status::finish(
                pre.get(&pid).copied(),
                agg,
                unknown.remove(&pid),
                ignored.contains_key(&pid),
                effect_unknown,
            );
            statuses.insert(pid, st);
        }
        // A policy no controller accepts is reported as such, not as ignored.
        ignored.retain(|p, _| statuses.get(p).is_some_and(|s: &PolicyStatus| s.accepted));
        ignored_under.retain(|p, _| statuses.get(p).is_some_and(|s: &PolicyStatus| s.accepted));
        EffectiveIndex { plans, schemas, statuses, ignored, ignored_under, truncated: truncated_any, stats, limit }
    }

    /// The specs of a kind's policies attached at `nodes`, made on demand (see `build_with`).
    pub(super) fn specs_at(
        &self,
        world: &Linked,
        plan: &KindPlan,
        nodes: impl IntoIterator<Item = NodeId>,
    ) -> HashMap<ObjId, PolicySpec> {
        let schema = self.schemas.get(&plan.kind.gk);
        let mut specs = HashMap::new();
        for n in nodes {
            for &p in plan.attached.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                if !specs.contains_key(&p)
                    && let Some(spec) = extract_spec(world, p, schema)
                {
                    specs.insert(p, spec);
                }
            }
        }
        specs
    }

    pub fn status(&self, policy: ObjId) -> Option<&PolicyStatus> {
        self.statuses.get(&policy)
    }

    /// Why the controllers `policy` reaches leave it alone, if they do.
    pub fn ignored(&self, policy: ObjId) -> Option<&Ignored> {
        self.ignored.get(&policy)
    }

    /// The Gateways under which `policy` takes part in nothing because their controllers
    /// ignore its kind, while other Gateways it reaches act on it (empty otherwise).
    pub fn ignored_under(&self, policy: ObjId) -> &[ObjId] {
        self.ignored_under.get(&policy).map_or(&[], Vec::as_slice)
    }

    /// `status --format json`.
    pub fn report(&self, world: &Linked) -> StatusReport {
        status::report(world, &self.statuses, &self.ignored, self.truncated, false, &|_| true)
    }

    /// [`EffectiveIndex::report`] (the files' policies and the live cluster's) with the
    /// policies of context directories too: `diff` compares whole worlds.
    pub fn report_every(&self, world: &Linked) -> StatusReport {
        self.report_every_of(world, &|_| true)
    }

    /// [`EffectiveIndex::report_every`] of the policies `only` keeps: a what-if compares the
    /// statuses of its removed policies' kinds alone.
    pub fn report_every_of(&self, world: &Linked, only: &dyn Fn(ObjId) -> bool) -> StatusReport {
        status::report(world, &self.statuses, &self.ignored, self.truncated, true, only)
    }
}

/// Every policy's outcome in each context at effective target `target` (`add(signature,
/// outcome)`), the target's own values (shadows) applied where a policy leaf meets them.
fn outcomes_at(
    folder: &Folder<'_>,
    json: &mut shadow::ObjectJson,
    target: NodeId,
    ctxs: &[contexts::SigFold],
    add: &mut dyn FnMut(&[NodeId], &Outcome),
) {
    let (world, plan, specs, schema) = (folder.world, folder.plan, folder.specs, folder.schema);
    // The target's own values matter to status only where a policy sets what they would
    // replace: reading the target again is skipped everywhere else.
    let meets = |f: &str, c: &contexts::SigFold| !c.folded.fold.tree.owners_at(f).is_empty();
    let wanted = plan.kind.shadows.iter().any(|(f, _)| ctxs.iter().any(|c| meets(f, c)));
    let values = if wanted { shadow::target_values(world, &plan.kind, target, json) } else { Vec::new() };
    for ctx in ctxs {
        let shadowed;
        // A target's own value that meets no policy leaf changes no policy's outcome: the
        // context's shared outcomes hold.
        let outs: &[Outcome] = if !values.iter().any(|(f, _)| meets(f, ctx)) {
            folder.outcomes(&ctx.folded, &ctx.sig)
        } else {
            let mut f2 = ctx.folded.fold.clone();
            if let Some(o) = shadow::target_object(world, target) {
                shadow::apply(&mut f2, o, &values, &plan.rules, schema);
            }
            let inputs = plan.inputs(&ctx.sig, specs);
            shadowed = fold::outcomes(&f2, &inputs, plan.rules.additive);
            &shadowed
        };
        for o in outs {
            add(&ctx.sig, o);
        }
    }
}

/// A policy's spec proper, `None` for an object that is not a policy.
fn extract_spec(world: &Linked, pid: ObjId, schema: Option<&SchemaNode>) -> Option<PolicySpec> {
    let kind = world.policy_kind(pid)?;
    let node = match &world.object(pid).body {
        Body::Other(o) => o.policy.spec.as_ref().map(crate::syntax::PackedNode::unpack),
        _ => None,
    };
    Some(spec::extract(pid, kind, &semantics::rules(kind), node.as_ref(), schema))
}

/// Objects of every namespace some policy targets.
fn namespace_objects(world: &Linked, plans: &HashMap<GroupKind, KindPlan>) -> HashMap<Arc<str>, Vec<ObjId>> {
    let wanted: HashMap<&str, &Arc<str>> =
        plans.values().flat_map(|p| p.namespaces.keys()).map(|k| (&**k, k)).collect();
    let mut out: HashMap<Arc<str>, Vec<ObjId>> = HashMap::new();
    if wanted.is_empty() {
        return out;
    }
    for id in world.ids() {
        if let Some(ns) = world.namespace_of(id)
            && let Some(k) = wanted.get(ns)
        {
            out.entry((*k).clone()).or_default().push(id);
        }
    }
    out
}
