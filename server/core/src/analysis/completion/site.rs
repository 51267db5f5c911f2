//! Which completion the cursor's path asks for.

use super::CompletionInput;
use crate::analysis::cursor::{Role, Seg};
use crate::analysis::refs::RefKind;
use crate::model::{PathStep, spec_path_steps};
use crate::syntax::{Node, NodeKind};

pub(super) enum Site {
    /// The value of a reference field (`kind`, `name`, `sectionName`...).
    RefValue { kind: RefKind, ref_path: Vec<Seg>, field: String },
    /// Where a new targetRef entry goes.
    NewTargetRef(Form),
    /// A strategy value: `strategy` (in `defaults`/`overrides` or the spec) or Envoy Gateway's
    /// `mergeType`.
    Strategy { field: String, overrides: bool },
}

/// How a new target reference is written at the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// On a `targetRefs` item with no key yet (`- `, `- Gat`): the entry's fields.
    Item,
    /// After `targetRefs:` on the key's own line: a block list on the next lines, its dashes
    /// at the key's column.
    AfterListKey { key_col: usize },
    /// On a line under `targetRefs:`: a `- ` entry at the cursor.
    ListLine,
    /// After `targetRef:` on the key's own line: a mapping on the next lines.
    AfterRefKey { key_col: usize },
    /// On a line under an empty `targetRef:`: the fields at the cursor.
    RefLine,
}

/// A path step borrowed, for slice patterns.
#[derive(Clone, Copy)]
enum P<'a> {
    K(&'a str),
    I,
}

pub(super) fn classify(input: &CompletionInput<'_>) -> Option<Site> {
    let c = input.cursor;
    let doc = input.doc;
    let rel = c.path.get(doc.base..)?;
    let p: Vec<P<'_>> = rel.iter().map(|s| s.key().map_or(P::I, P::K)).collect();
    let abs = |n: usize| c.path[..doc.base + n].to_vec();
    let node_is_empty = |n: usize| c.node(&abs(n)).is_none_or(is_empty);
    let value = c.role == Role::Value;
    let ref_value =
        |kind, n: usize, field: &str| Some(Site::RefValue { kind, ref_path: abs(n), field: field.to_owned() });

    if doc.policy.is_some() {
        match (value, p.as_slice()) {
            (true, [P::K("spec"), P::K("targetRef"), P::K(f)]) => return ref_value(RefKind::PolicyTarget, 2, f),
            (true, [P::K("spec"), P::K("targetRefs" | "targetSelectors"), P::I, P::K(f)]) => {
                return ref_value(RefKind::PolicyTarget, 3, f);
            }
            (true, [P::K("spec"), P::K("targetRefs"), P::I]) if !is_mapping(c.node(&abs(3))) => {
                return Some(Site::NewTargetRef(Form::Item));
            }
            (true, [P::K("spec"), P::K("targetRefs")]) if node_is_empty(2) => {
                return Some(Site::NewTargetRef(Form::AfterListKey { key_col: key_col(input, 2)? }));
            }
            (true, [P::K("spec"), P::K("targetRef")]) if node_is_empty(2) => {
                return Some(Site::NewTargetRef(Form::AfterRefKey { key_col: key_col(input, 2)? }));
            }
            (false, [P::K("spec"), P::K("targetRefs"), P::K(_)]) => return Some(Site::NewTargetRef(Form::ListLine)),
            (false, [P::K("spec"), P::K("targetRef"), P::K(_)]) if node_is_empty(2) => {
                return Some(Site::NewTargetRef(Form::RefLine));
            }
            (
                true,
                [P::K("spec"), P::K(stanza @ ("defaults" | "overrides" | "default" | "override")), P::K("strategy")],
            ) => {
                return Some(Site::Strategy { field: "strategy".into(), overrides: stanza.starts_with("override") });
            }
            (true, [P::K("spec"), P::K(f @ ("strategy" | "mergeType"))]) => {
                return Some(Site::Strategy { field: (*f).to_owned(), overrides: false });
            }
            _ => {}
        }
    }
    if !value {
        return None;
    }
    // A backend reference inside the spec, at a path the kind declares (§4.8).
    if let (Some(kind), [P::K("spec"), inner @ .., P::K(f)]) = (&doc.policy, p.as_slice())
        && kind.spec_refs.iter().any(|r| at_path(&r.path, inner))
    {
        return ref_value(RefKind::Backend, p.len() - 1, f);
    }
    if doc.is_route() {
        match p.as_slice() {
            [P::K("spec"), P::K("parentRefs"), P::I, P::K(f)] => return ref_value(RefKind::Parent, 3, f),
            [P::K("spec"), P::K("rules"), P::I, P::K("backendRefs"), P::I, P::K(f)] => {
                return ref_value(RefKind::Backend, 5, f);
            }
            _ => {}
        }
    }
    if doc.is_listener_set()
        && let [P::K("spec"), P::K("parentRef"), P::K(f)] = p.as_slice()
    {
        return ref_value(RefKind::ListenerSetParent, 2, f);
    }
    None
}

/// Whether `steps` (below `spec`) are the reference mapping of spec path `path`.
fn at_path(path: &str, steps: &[P<'_>]) -> bool {
    spec_path_steps(path).count() == steps.len()
        && steps.iter().zip(spec_path_steps(path)).all(|(got, want)| match (got, want) {
            (P::K(k), PathStep::Key(w)) => *k == w,
            (P::I, PathStep::Each) => true,
            _ => false,
        })
}

/// A null, missing or empty value: nothing written yet.
fn is_empty(n: &Node) -> bool {
    n.is_null() || matches!(&n.kind, NodeKind::Scalar(s) if s.value.trim().is_empty())
}

fn is_mapping(n: Option<&Node>) -> bool {
    n.is_some_and(|n| n.as_mapping().is_some())
}

/// The column of the key at relative path depth `n` (the last key of `path[..base + n]`).
fn key_col(input: &CompletionInput<'_>, n: usize) -> Option<usize> {
    let c = input.cursor;
    let end = input.doc.base + n;
    let parent = c.node(&c.path[..end - 1])?;
    let key = c.path[end - 1].key()?;
    let entry = parent.entry(key)?;
    Some(super::column(input.text, entry.key.span.start as usize))
}
