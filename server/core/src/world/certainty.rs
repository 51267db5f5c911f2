//! Certainty decides severity (docs/semantics.md §6.1): one question, asked by every finding
//! that says something is missing: *is the world closed for this object here?* An error or a
//! warning is a claim about what the controllers apply; where policylens cannot know what they
//! apply (a test harness supplies the object, a Helm release or an operator makes it, nothing
//! applies the file), the same finding is information and says what is unknown.
//!
//! The answer is [`World::certainty`]'s. Topology keeps it in its resolutions
//! (`RefProblem::NotFound`, `ParentResolution::NotFound`, `BackendResolution::NotFound`), status
//! reads it there (the policy is accepted, its effect there unknown), and diagnostics lower the
//! severity in one place (`analysis/diagnostics/mod.rs` `settle`).
//!
//! The reasons are [`Unknown`]'s variants. Other parts of policylens add reasons by registering
//! data, not by editing this logic: generators in `generators.rs` (`generators::RULES`, one entry
//! per kind that makes objects), files nothing applies as units of kind
//! [`super::units::UnitKind::NotApplied`].

use std::sync::Arc;

use super::{ObjId, World};
use crate::model::GroupKind;

/// What a reference names: the identity asked about.
#[derive(Clone, Copy, Debug)]
pub struct Wanted<'a> {
    pub gk: &'a GroupKind,
    /// `None` for cluster-scoped kinds.
    pub namespace: Option<&'a str>,
    pub name: &'a str,
}

/// The answer to "is the world closed for this object here?".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Certainty {
    /// Whatever could hold the object is in the world: a missing object is missing.
    Closed,
    Unknown(Unknown),
}

impl Certainty {
    pub fn unknown(self) -> Option<Unknown> {
        match self {
            Certainty::Closed => None,
            Certainty::Unknown(u) => Some(u),
        }
    }
}

/// Why the world is not closed for an object, in words a message appends.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unknown {
    /// The referring file lies in a folder of cases (tests, examples, documentation) and
    /// nothing its case can reach defines the object: the reader or the test harness supplies
    /// it (docs/semantics.md §4.7).
    LeftToTheReader,
    /// Something in the referring object's unit and namespace could make it (a Helm release,
    /// an operator's custom resource, a Gateway's data plane): what it makes, in words
    /// (`generators.rs`).
    Generated(Arc<str>),
    /// Nothing applies the referring file (a GitOps repository's file that no Flux
    /// Kustomization or Argo CD Application reaches).
    NotApplied,
    /// The policy's kind is known only by its shape: how two of its policies combine is its
    /// implementation's (docs/semantics.md §4.4). The kind, as shown.
    ShapeOnlyKind(Arc<str>),
}

impl Unknown {
    /// What is unknown, as a message's parenthesis says it.
    pub fn words(&self) -> String {
        match self {
            Unknown::LeftToTheReader => {
                "nothing this test or example can reach defines it: it is left to the reader or the test harness"
                    .to_owned()
            }
            Unknown::Generated(what) => format!("not in the files; {what}"),
            Unknown::NotApplied => {
                "no Flux Kustomization or Argo CD Application of this repository applies this file".to_owned()
            }
            Unknown::ShapeOnlyKind(kind) => {
                format!("{kind} is known only by its shape: which one applies depends on its implementation")
            }
        }
    }

    /// A short name for the reason, for JSON (`status`'s `unknown[].reason`).
    pub fn reason(&self) -> &'static str {
        match self {
            Unknown::LeftToTheReader => "LeftToTheReader",
            Unknown::Generated(_) => "Generated",
            Unknown::NotApplied => "NotApplied",
            Unknown::ShapeOnlyKind(_) => "ShapeOnlyKind",
        }
    }
}

impl World {
    /// Whether the world is closed for `wanted`, named from object `from` and found nowhere
    /// `from` can see. `near`: a near name exists (a did-you-mean), and a typo is a typo
    /// wherever it is written, so the finding stays certain.
    ///
    /// In order: something that could make it (most specific), the referring file applied by
    /// nothing, the referring file in a folder of cases.
    pub fn certainty(&self, from: ObjId, wanted: &Wanted<'_>, near: bool) -> Certainty {
        if near {
            return Certainty::Closed;
        }
        match self.generated(from, wanted) {
            Some(words) => Certainty::Unknown(Unknown::Generated(words)),
            None => self.referrer_certainty(from),
        }
    }

    /// Whether a label selector written in `from` that selects no object of kind `gk` in
    /// `namespace` (`None`: any) may still select something: a generator there makes objects
    /// of the kind (a Helm release renders whatever its chart holds, labelled
    /// `app.kubernetes.io/managed-by: Helm`), or the file is applied by nothing or is a case.
    pub fn selection_certainty(&self, from: ObjId, gk: &GroupKind, namespace: Option<&str>) -> Certainty {
        match self.generates_kind(from, gk, namespace) {
            Some(words) => Certainty::Unknown(Unknown::Generated(words)),
            None => self.referrer_certainty(from),
        }
    }

    /// What the referring file itself leaves unknown: nothing applies it, or it is a case.
    fn referrer_certainty(&self, from: ObjId) -> Certainty {
        let path = &self.file_of(from).path;
        if self.units.not_applied(path) {
            return Certainty::Unknown(Unknown::NotApplied);
        }
        if self.units.in_case_folder(path) {
            return Certainty::Unknown(Unknown::LeftToTheReader);
        }
        Certainty::Closed
    }
}
