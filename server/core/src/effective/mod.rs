//! Effective policies (GEP-713, DESIGN §5): per policy kind, per path from a root of the DAG to
//! a target, the attached policies ordered least specific first and folded with the
//! established policy's strategy, every leaf carrying its provenance; and the status of every
//! policy (§5.1).
//!
//! The report types serialise to the CLI's JSON contracts (DESIGN §2.2); the language server
//! returns the same JSON from its custom requests.

use serde::Serialize;

use crate::catalog::Strategy;

/// `explain --format json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explanation {
    pub target: String,
    pub group: String,
    pub policies: Vec<KindExplanation>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindExplanation {
    /// `Kind.group` (§2.1 form of the policy kind).
    pub kind: String,
    pub contexts: Vec<Context>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Context {
    /// §2.1 references of the DAG nodes from a root to the target.
    pub path: Vec<String>,
    pub effective: serde_json::Value,
    pub provenance: Vec<Provenance>,
    /// Every policy of the kind attached along the path, least specific first.
    pub policies: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Provenance {
    /// JSON pointer into `effective`.
    pub field: String,
    pub policy: String,
    #[serde(serialize_with = "strategy_str")]
    pub strategy: Strategy,
}

fn strategy_str<S: serde::Serializer>(s: &Strategy, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s.as_str())
}
