//! `explain`: every policy kind reaching one target, the effective policy per path with the
//! provenance of every leaf, and the policies that lost.

use std::collections::{HashMap, HashSet};

use super::contexts::{Folder, KindPlan, Scope, Sig, is_effective};
use super::fold::{Fate, Fold, Outcome, outcomes};
use super::provenance::{Supplier, leaf_rows};
use super::status::supplier_label;
use super::{
    Context, EffectiveIndex, Explanation, IgnoredPolicy, KindExplanation, Loss, PortExplanation, Provenance, Traffic,
    shadow,
};
use crate::model::GroupKind;
use crate::topology::Linked;
use crate::topology::{NodeId, PathLimit};
use crate::world::ObjId;

pub fn explain(world: &Linked, index: &EffectiveIndex, target: NodeId, limit: PathLimit) -> Explanation {
    let mut ex = explain_kinds(world, index, target, limit, &|_| true);
    let t = &world.topology;
    // A Service's ports are targets of their own (a BackendTLSPolicy names one).
    if let crate::topology::DagNode::Object(o) = t.node(target)
        && matches!(world.object(o).body, crate::model::Body::Service(_))
    {
        for port in super::contexts::sections_of(t, o) {
            let px = explain_kinds(world, index, port, limit, &|_| true);
            ex.truncated |= px.truncated;
            if !px.policies.is_empty() {
                ex.ports.push(PortExplanation { target: px.target, policies: px.policies });
            }
        }
    }
    // From a backend back: what governs the traffic each route sends it.
    let mut own: HashSet<String> = ex.policies.iter().map(|k| k.kind.clone()).collect();
    own.extend(ex.ports.iter().flat_map(|p| p.policies.iter().map(|k| k.kind.clone())));
    for from in senders(world, target) {
        let at = explain_kinds(world, index, from, limit, &|gk| !own.contains(&gk.to_string()));
        ex.truncated |= at.truncated;
        if !at.policies.is_empty() || !at.ignored.is_empty() {
            ex.traffic.push(Traffic { from: at.target, policies: at.policies, ignored: at.ignored });
        }
    }
    ex
}

/// The nodes whose backendRefs send traffic to `target` (a backend object, or a port of one):
/// route rules, or routes for their unnamed rules; for a port, only those whose backendRef
/// uses it. Empty for anything that is not a backend.
pub fn senders(world: &Linked, target: NodeId) -> Vec<NodeId> {
    let t = &world.topology;
    let is_route = |n: NodeId| match t.node(n) {
        crate::topology::DagNode::Object(o) | crate::topology::DagNode::Section(o, _) => {
            matches!(world.object(o).body, crate::model::Body::Route(_))
        }
        crate::topology::DagNode::Virtual(_) => t.generated_from(n).is_some(),
        crate::topology::DagNode::Namespace(_) => false,
    };
    if is_route(target) {
        return Vec::new();
    }
    let (object, port) = match super::contexts::service_port(world, target) {
        Some((svc, port)) => (t.object_node(svc), Some((svc, port))),
        None => (target, None),
    };
    let mut out: Vec<NodeId> = t
        .parents(object)
        .iter()
        .copied()
        .filter(|&q| is_route(q) && port.is_none_or(|(svc, p)| super::contexts::admits(world, q, svc, p)))
        .collect();
    out.sort_by_key(|&n| t.node_key(world, n).to_string());
    out.dedup();
    out
}

/// [`explain`] for the policy kinds `only` accepts: what a what-if compares where only some
/// kinds changed.
pub fn explain_kinds(
    world: &Linked,
    index: &EffectiveIndex,
    target: NodeId,
    limit: PathLimit,
    only: &dyn Fn(&GroupKind) -> bool,
) -> Explanation {
    let t = &world.topology;
    let key = t.node_key(world, target);
    let (paths, truncated) = t.paths_to(world, target, limit);
    let on_paths: HashSet<NodeId> = paths.iter().flatten().copied().collect();
    let mut json = shadow::ObjectJson::default();

    let mut plans: Vec<&KindPlan> = index
        .plans
        .values()
        .filter(|plan| {
            if !only(&plan.kind.gk) {
                return false;
            }
            if plan.is_direct() {
                return !plan.direct_signature(t, target).is_empty();
            }
            on_paths.iter().any(|n| plan.attached.contains_key(n))
                || (!plan.namespaces.is_empty() && paths.iter().any(|p| !plan.path_signature(world, p).0.is_empty()))
                || !shadow::target_values(world, &plan.kind, target, &mut json).is_empty()
        })
        .collect();
    plans.sort_by_key(|p| p.kind.gk.to_string());

    let mut names: HashMap<NodeId, String> = HashMap::new();
    let mut kinds = Vec::with_capacity(plans.len());
    for plan in plans {
        let mut contexts = Vec::new();
        for scope in plan.scopes(world) {
            if !scope.admits_node(world, target) {
                continue;
            }
            let scoped;
            let plan: &KindPlan = if scope == Scope::All {
                plan
            } else {
                scoped = plan.scoped(world, scope);
                &scoped
            };
            contexts.extend(scope_contexts(world, index, plan, target, &paths, &on_paths, &mut names));
        }
        if !contexts.is_empty() {
            kinds.push(KindExplanation { kind: plan.kind.gk.to_string(), contexts });
        }
    }
    let mut ignored: Vec<IgnoredPolicy> = on_paths
        .iter()
        .flat_map(|&n| t.policies_at(n).iter().copied())
        .filter_map(|p| {
            let i = index.ignored(p)?;
            Some(IgnoredPolicy { policy: world.key(p).to_string(), reason: i.reason(), message: i.words(world, p) })
        })
        .collect();
    // A policy that some of its Gateways ignore is listed where a path to the target starts at
    // one of those (and takes part under the others).
    let mut partly: Vec<ObjId> = on_paths
        .iter()
        .flat_map(|&n| t.policies_at(n).iter().copied())
        .filter(|&p| !index.ignored_under(p).is_empty())
        .collect();
    partly.sort_unstable();
    partly.dedup();
    for p in partly {
        let attached: HashSet<NodeId> = t.policies.get(&p).map(|r| r.attached_nodes().collect()).unwrap_or_default();
        let mut under: Vec<ObjId> = index
            .ignored_under(p)
            .iter()
            .copied()
            .filter(|&g| {
                let gn = t.object_node(g);
                paths.iter().any(|path| path.contains(&gn) && path.iter().any(|n| attached.contains(n)))
            })
            .collect();
        under.sort_unstable();
        if !under.is_empty() {
            ignored.push(IgnoredPolicy {
                policy: world.key(p).to_string(),
                reason: "UnsupportedByController",
                message: super::controllers::words_under(world, p, &under),
            });
        }
    }
    ignored.sort_by(|a, b| a.policy.cmp(&b.policy));
    ignored.dedup();
    let applied_by = t.node_object(target).and_then(|o| world.applier(o)).map(ToString::to_string);
    Explanation {
        target: key.to_string(),
        group: key.gk.group.to_string(),
        applied_by,
        policies: kinds,
        ignored,
        truncated,
        traffic: Vec::new(),
        ports: Vec::new(),
    }
}

/// The contexts of one kind at `target` in the world of `plan`'s scope: one per path through
/// that world, paths with one signature sharing their body. In a unit's world, only the
/// contexts its own policies take part in (the others are the workspace's).
fn scope_contexts(
    world: &Linked,
    index: &EffectiveIndex,
    plan: &KindPlan,
    target: NodeId,
    paths: &[Vec<NodeId>],
    on_paths: &HashSet<NodeId>,
    names: &mut HashMap<NodeId, String>,
) -> Vec<Context> {
    let t = &world.topology;
    let mut json = shadow::ObjectJson::default();
    let target_obj = shadow::target_object(world, target);
    let target_is_route = is_route(world, target);
    let schema = index.schemas.get(&plan.kind.gk);
    let values = shadow::target_values(world, &plan.kind, target, &mut json);
    // Only the policies on the target's paths take part.
    let mut nodes: HashSet<NodeId> = on_paths.clone();
    nodes.extend(plan.namespaces.values().copied());
    nodes.extend(plan.direct_signature(t, target));
    let specs = index.specs_at(world, plan, nodes);
    let folder = Folder::new(world, plan, &specs, schema);
    let unit = plan.scope.unit();
    let target_unit = t.node_object(target).map_or(0, |o| world.unit_of(o));
    // Labelled where the target is shared by several units' worlds.
    let label = unit.filter(|_| target_unit == 0).map(|u| world.unit(u).to_string());
    // Paths with one signature share one fold and one context body; only the path differs.
    let mut bodies: HashMap<Sig, Context> = HashMap::new();
    let mut effective_nodes: HashMap<NodeId, bool> = HashMap::new();
    let mut contexts = Vec::with_capacity(paths.len());
    for path in paths {
        if !path.iter().all(|&n| plan.scope.admits_node(world, n)) {
            continue;
        }
        if below_effective(world, plan, target_is_route, path, &mut effective_nodes) {
            continue;
        }
        let (sig, shown) = plan.path_signature(world, path);
        if values.is_empty() && plan.inputs(&sig, &specs).is_empty() {
            // No policy of the kind takes part on this path (none is attached, or the
            // controller of the Gateway it starts at ignores those that are).
            continue;
        }
        if let Some(u) = unit {
            let own =
                sig.iter().flat_map(|n| plan.attached.get(n).into_iter().flatten()).any(|&p| world.unit_of(p) == u);
            if !own && target_unit != u {
                continue;
            }
        }
        let sig: Sig = sig.into();
        let body = bodies.entry(sig.clone()).or_insert_with(|| {
            let mut f = folder.full(&sig).fold;
            if let (false, Some(o)) = (values.is_empty(), target_obj) {
                shadow::apply(&mut f, o, &values, &plan.rules, schema);
            }
            let inputs = plan.inputs(&sig, &specs);
            let outs = outcomes(&f, &inputs, plan.rules.additive);
            context_body(world, &f, &outs)
        });
        let mut c = body.clone();
        c.unit = label.clone();
        c.path =
            shown.iter().map(|&n| names.entry(n).or_insert_with(|| t.node_key(world, n).to_string()).clone()).collect();
        contexts.push(c);
    }
    contexts
}

/// Whether `path` passes one of the kind's effective targets above its end (a Service behind
/// a route, for a route policy): there the kind changes nothing. A route below a route is a
/// delegated child (kgateway, Gloo): the parent's policies reach it, so routes above one don't
/// count. `memo` keeps which nodes are effective across paths.
pub(super) fn below_effective(
    world: &Linked,
    plan: &KindPlan,
    target_is_route: bool,
    path: &[NodeId],
    memo: &mut HashMap<NodeId, bool>,
) -> bool {
    !plan.is_direct()
        && path.split_last().is_some_and(|(_, above)| {
            above
                .iter()
                .filter(|&&n| !(target_is_route && is_route(world, n)))
                .any(|&n| *memo.entry(n).or_insert_with(|| is_effective(world, &plan.kind, n)))
        })
}

/// A context without its path.
fn context_body(world: &Linked, fold: &Fold, outs: &[Outcome]) -> Context {
    let provenance = leaf_rows(&fold.tree)
        .into_iter()
        .map(|r| Provenance {
            field: r.pointer,
            policy: supplier_label(world, r.src.origin),
            strategy: r.src.strategy,
            from_target: matches!(r.src.origin, Supplier::Target(_)),
        })
        .collect();
    let lost = outs
        .iter()
        .filter(|o| !o.kept_all())
        .map(|o| Loss {
            policy: world.key(o.policy).to_string(),
            outcome: match o.fate {
                Fate::Conflicted(_) => "Conflicted",
                _ if o.kept_any() => "PartiallyOverridden",
                _ => "Overridden",
            },
            by: o.by.iter().map(|&b| supplier_label(world, b)).collect(),
            because: o.rules.iter().map(|r| r.as_str()).collect(),
        })
        .collect();
    Context {
        path: Vec::new(),
        effective: fold.tree.to_json(),
        provenance,
        policies: fold.participants.iter().map(|p| world.key(p.policy).to_string()).collect(),
        lost,
        unit: None,
    }
}

/// Whether node `n` is a route or one of its rules.
pub(super) fn is_route(world: &Linked, n: NodeId) -> bool {
    world.topology.node_object(n).is_some_and(|o| matches!(world.object(o).body, crate::model::Body::Route(_)))
}
