//! What a change does (docs/semantics.md §9): two worlds compared field by field of their
//! effective policies, by policy status and by findings. `policylens diff` compares two
//! revisions with it; the what-if of a deletion (`without.rs`) compares the workspace with
//! itself less some policies; the language server shows either as a document. One engine, so
//! every surface says the same thing.

mod edit;
mod gone;
mod render;
mod without;

pub use edit::edit;
pub use gone::{Gone, Instead, Unset};
pub use render::{edit_markdown, human, markdown};
pub use without::{NotAPolicy, WhatIf, policies_at, resolve_policies, without, without_explained};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::effective::{EffectiveIndex, PolicyStatusReport, explain_kinds};
use crate::model::{GroupKind, ObjectKey, is_core_kind};
use crate::source::Origin;
use crate::syntax::PositionEncoding;
use crate::topology::{NodeId, PathLimit};
use crate::workspace::Snapshot;
use crate::world::ObjId;

/// One side of a comparison: a snapshot's world with an effective index and findings (its
/// own, or a what-if's computed on the same world).
pub struct Side<'a> {
    pub label: String,
    pub snap: &'a Snapshot,
    pub effective: &'a EffectiveIndex,
    pub diagnostics: &'a BTreeMap<Arc<str>, Vec<Diagnostic>>,
}

impl<'a> Side<'a> {
    /// A snapshot as it is.
    pub fn of(label: impl Into<String>, snap: &'a Snapshot) -> Side<'a> {
        Side { label: label.into(), snap, effective: snap.effective(), diagnostics: snap.diagnostics() }
    }
}

/// Where two sides can differ at all, when that is known (a what-if on one world, an edit of
/// one policy): the effective targets (§2.1 references) of some policy kinds. Effective
/// policies elsewhere, and the statuses of other kinds' policies, are the same on both sides.
#[derive(Default)]
pub struct Scope<'a> {
    pub targets: BTreeMap<String, Vec<GroupKind>>,
    pub kinds: Vec<GroupKind>,
    /// The policies of `kinds` whose status may differ (the others' are the same on both
    /// sides); all of them when `None`.
    pub policies: Option<Vec<ObjId>>,
    /// Both sides' fields at a target (by reference) of some kinds, where that is known
    /// without explaining the target on each side; `None` from it: explain it.
    pub fields: Option<&'a FieldsAt<'a>>,
}

impl Scope<'_> {
    /// The targets of each kind, as nodes of `world`.
    pub fn of_nodes<'a>(world: &crate::topology::Linked, targets: &BTreeMap<GroupKind, Vec<NodeId>>) -> Scope<'a> {
        let mut out = Scope { kinds: targets.keys().cloned().collect(), ..Scope::default() };
        for (gk, nodes) in targets {
            for &n in nodes {
                out.targets.entry(world.topology.node_key(world, n).to_string()).or_default().push(gk.clone());
            }
        }
        out
    }
}

/// A field of an effective policy as one side has it.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Held {
    pub value: Value,
    pub policy: String,
    pub strategy: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FieldChange {
    pub target: String,
    pub kind: String,
    pub path: Vec<String>,
    /// JSON pointer into the effective policy.
    pub field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Held>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Held>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct StatusSummary {
    pub accepted: bool,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<String>,
    pub affects: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusChange {
    pub policy: String,
    /// Defined only in the live cluster (on the side after, else the side before).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cluster: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<StatusSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<StatusSummary>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct Finding {
    /// `null` for a finding on an object of the live cluster, which `object` names.
    pub file: Option<String>,
    /// 1-based; absent with `file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The live cluster's object the finding is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    pub severity: String,
    pub code: String,
    pub message: String,
}

/// `diff --format json` (docs/json.md).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Report {
    pub base: String,
    pub head: String,
    /// With `--without`: the policies taken out (every definition of each), as references.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub without: Vec<String>,
    /// With `--without`: what the removed policies supplied that stops applying, field by
    /// field, where, and who supplies it there instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gone: Vec<Gone>,
    pub effective: Vec<FieldChange>,
    pub status: Vec<StatusChange>,
    pub introduced: Vec<Finding>,
    pub fixed: Vec<Finding>,
}

impl Report {
    /// Whether the change introduces an error (`diff` exits 1).
    pub fn introduces_errors(&self) -> bool {
        self.introduced.iter().any(|f| f.severity == "error")
    }

    /// Names every file it shows (the findings', and those that tell apart a policy defined in
    /// several files) by `name`: the editor shows them relative to the workspace, as `diff` does.
    pub fn map_files(&mut self, name: &dyn Fn(&str) -> String) {
        for x in self.introduced.iter_mut().chain(self.fixed.iter_mut()) {
            if let Some(file) = &x.file {
                x.file = Some(name(file));
            }
        }
        for s in &mut self.status {
            if let Some((policy, file)) = s.policy.strip_suffix(')').and_then(|r| r.rsplit_once(" ("))
                && file != "cluster"
            {
                s.policy = format!("{policy} ({})", name(file));
            }
        }
    }
}

/// Compares `head` with `base`; with a `scope`, only there.
pub fn compare(base: &Side<'_>, head: &Side<'_>, scope: Option<&Scope>) -> Report {
    // Within a scope, only its kinds' policies (both sides are one world: the same ids).
    let in_scope = |side: &Side<'_>, p: ObjId| {
        scope.is_none_or(|s| side.snap.world().policy_kind(p).is_some_and(|k| s.kinds.contains(&k.gk)))
    };
    let shown = |p: ObjId| scope.and_then(|s| s.policies.as_ref()).is_none_or(|ps| ps.binary_search(&p).is_ok());
    let (sb, sh) = (statuses(base, &|p| in_scope(base, p), &shown), statuses(head, &|p| in_scope(head, p), &shown));
    let mut status = Vec::new();
    for key in sb.keys().chain(sh.keys()).collect::<BTreeSet<_>>() {
        let (b, h) = (sb.get(key).map(summary), sh.get(key).map(summary));
        if b != h {
            let cluster = sh.get(key).or(sb.get(key)).is_some_and(|p| p.file.is_none());
            status.push(StatusChange { policy: key.clone(), cluster, before: b, after: h });
        }
    }
    // What the change breaks in the live cluster comes first: its own policies that lose.
    status.sort_by_key(|s| !(s.cluster && loses(s)));
    let mut effective = Vec::new();
    let compared = |targets: &BTreeSet<String>, kinds: Option<&[GroupKind]>, effective: &mut Vec<FieldChange>| {
        for t in targets {
            let known = scope.and_then(|s| s.fields).and_then(|f| f(t, kinds.unwrap_or(&[])));
            let (fb, fh) = known.unwrap_or_else(|| (fields(base, t, kinds), fields(head, t, kinds)));
            for k in fb.keys().chain(fh.keys()).collect::<BTreeSet<_>>() {
                let (b, h) = (fb.get(k), fh.get(k));
                if b.map(|x| &x.0) != h.map(|x| &x.0) {
                    let (kind, _, field) = k.clone();
                    // The path as the side before shows it, else the side after.
                    let path = b.or(h).map(|x| x.1.clone()).unwrap_or_default();
                    let (before, after) = (b.map(|x| x.0.clone()), h.map(|x| x.0.clone()));
                    effective.push(FieldChange { target: t.clone(), kind, path, field, before, after });
                }
            }
        }
    };
    match scope {
        // Every target some policy affects on either side.
        None => {
            let targets = sb.values().chain(sh.values()).flat_map(|p| p.affects.iter().cloned()).collect();
            compared(&targets, None, &mut effective);
        }
        Some(s) => {
            for (t, kinds) in &s.targets {
                compared(&BTreeSet::from([t.clone()]), Some(kinds), &mut effective);
            }
        }
    }
    let (db, dh) = (findings(base, head), findings(head, base));
    // Lines move with edits: a finding is the same when file (or object), code and message are.
    let same = |a: &Finding, b: &Finding| {
        a.file == b.file && a.object == b.object && a.code == b.code && a.message == b.message
    };
    let introduced = dh.iter().filter(|h| !db.iter().any(|b| same(b, h))).cloned().collect();
    let fixed = db.iter().filter(|b| !dh.iter().any(|h| same(b, h))).cloned().collect();
    Report {
        base: base.label.clone(),
        head: head.label.clone(),
        without: Vec::new(),
        gone: Vec::new(),
        effective,
        status,
        introduced,
        fixed,
    }
}

/// Policy statuses by reference (and file, where a policy of the ones `only` keeps is defined
/// in several files), of the policies `only` and `shown` keep.
fn statuses(
    side: &Side<'_>,
    only: &dyn Fn(ObjId) -> bool,
    shown: &dyn Fn(ObjId) -> bool,
) -> BTreeMap<String, PolicyStatusReport> {
    let world = side.snap.world();
    // Every policy, the cluster's too: with `cluster` as a side they are the subject.
    let report = side.effective.report_every_of(world, &|p| only(p) && shown(p));
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for &p in &world.policies {
        if only(p) && side.effective.status(p).is_some() {
            *count.entry(world.key(p).to_string()).or_default() += 1;
        }
    }
    report
        .policies
        .into_iter()
        .map(|p| {
            let several = count.get(&p.policy).is_some_and(|&n| n > 1);
            let key = match &p.file {
                Some(f) if several => format!("{} ({f})", p.policy),
                None if several => format!("{} (cluster)", p.policy),
                _ => p.policy.clone(),
            };
            (key, p)
        })
        .collect()
}

/// How much of a policy is in effect, worst first: not there, not accepted, overridden,
/// partially enforced, enforced.
fn rank(s: &Option<StatusSummary>) -> u8 {
    match s {
        None => 0,
        Some(s) if !s.accepted => 1,
        Some(s) => match s.enforcement.as_deref() {
            Some("Overridden") => 2,
            Some("PartiallyEnforced") => 3,
            _ => 4,
        },
    }
}

/// A policy the change leaves with less in effect (or none of it, or affecting fewer targets).
fn loses(s: &StatusChange) -> bool {
    let (b, a) = (rank(&s.before), rank(&s.after));
    a < b || (a == b && s.after.as_ref().map(|x| x.affects) < s.before.as_ref().map(|x| x.affects))
}

fn summary(p: &PolicyStatusReport) -> StatusSummary {
    StatusSummary {
        accepted: p.accepted.status,
        reason: format!("{:?}", p.accepted.reason),
        enforcement: p.enforcement.map(|e| format!("{e:?}")),
        affects: p.affects.len(),
    }
}

/// (kind, path without its Namespace levels, field).
pub type FieldKey = (String, Vec<String>, String);

/// The fields of one side at a target: (kind, path, field) → value and winner, and the path as
/// shown.
pub type Fields = BTreeMap<FieldKey, (Held, Vec<String>)>;

/// Both sides' fields at a target (by reference) of some kinds ([`Scope::fields`]).
pub type FieldsAt<'a> = dyn Fn(&str, &[GroupKind]) -> Option<(Fields, Fields)> + 'a;

/// Every leaf of the effective policies at `target` (of `kinds` only, when given): (kind,
/// path, field) → value and winner, and the path as shown. The key's path leaves out the
/// Namespace levels: they are shown where a policy of the kind targets the Namespace, so a
/// Namespace policy added or removed does not make a path another.
fn fields(side: &Side<'_>, target: &str, kinds: Option<&[GroupKind]>) -> Fields {
    let mut out = BTreeMap::new();
    let world = side.snap.world();
    let Some(key) = ObjectKey::parse(target, is_core_kind) else { return out };
    let Some(node) = world.topology.find(world, &key) else { return out };
    let only = |gk: &GroupKind| kinds.is_none_or(|ks| ks.contains(gk));
    let ex = explain_kinds(world, side.effective, node, PathLimit::default(), &only);
    for k in ex.policies {
        for c in k.contexts {
            for p in &c.provenance {
                let value = c.effective.pointer(&p.field).cloned().unwrap_or(Value::Null);
                let held = Held { value, policy: p.policy.clone(), strategy: p.strategy.as_str().to_owned() };
                let hops: Vec<String> = c.path.iter().filter(|h| !h.starts_with("Namespace/")).cloned().collect();
                out.insert((k.kind.clone(), hops, p.field.clone()), (held, c.path.clone()));
            }
        }
    }
    out
}

/// The findings of `side`, but in files where `other` has exactly the same (they neither
/// appear nor go: most files, in a what-if).
fn findings(side: &Side<'_>, other: &Side<'_>) -> Vec<Finding> {
    let snap = side.snap;
    let mut out = Vec::new();
    for (file, diags) in side.diagnostics {
        if other.diagnostics.get(file) == Some(diags) {
            continue;
        }
        let Some(f) = snap.source(file) else { continue };
        // A finding on a live cluster's object is named by the object (`check` does the same).
        let object = cluster_object(snap, file);
        for d in diags {
            out.push(Finding {
                file: object.is_none().then(|| file.to_string()),
                line: object.is_none().then(|| f.position(d.span.start, PositionEncoding::Utf16).line + 1),
                object: object.clone(),
                severity: d.severity.as_str().to_owned(),
                code: d.code.as_str().to_owned(),
                message: d.message.clone(),
            });
        }
    }
    out.sort();
    out
}

/// The reference of the live cluster's object a `cluster://` file holds (`None` for a file).
pub fn cluster_object(snap: &Snapshot, file: &str) -> Option<String> {
    let f = snap.file(file).filter(|f| f.origin == Origin::Cluster)?;
    let o = f.objects.first()?;
    let key = ObjectKey::new(o.group_kind(), o.namespace.as_ref().map(|n| n.value.as_str()), &o.name.value);
    Some(key.to_string())
}
