//! References inside policies' spec proper (docs/semantics.md §4.8): read at the paths their
//! kind's catalog entry gives and resolved like route backendRefs.

use super::BackendResolution;
use super::backends::resolve_backend;
use crate::model::{Body, RefFields, spec_refs_at};
use crate::world::{ObjId, World};

/// One reference inside a policy's spec and how it resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecBackend {
    pub fields: RefFields,
    pub resolution: BackendResolution,
}

/// Every policy's spec references, flat: `owners[i]` wrote `items[i]`, sorted by owner.
#[derive(Debug, Default)]
pub(super) struct SpecRefs {
    owners: Vec<ObjId>,
    items: Vec<SpecBackend>,
}

impl SpecRefs {
    /// Adds the references of the next policy; policies come in increasing id order.
    pub(super) fn push(&mut self, policy: ObjId, refs: Vec<SpecBackend>) {
        debug_assert!(self.owners.last().is_none_or(|&last| last <= policy));
        self.owners.extend(std::iter::repeat_n(policy, refs.len()));
        self.items.extend(refs);
    }

    pub(super) fn of(&self, policy: ObjId) -> &[SpecBackend] {
        let start = self.owners.partition_point(|&o| o < policy);
        let end = start + self.owners[start..].partition_point(|&o| o == policy);
        &self.items[start..end]
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.owners.shrink_to_fit();
        self.items.shrink_to_fit();
    }
}

/// The references inside `policy`'s spec at its kind's paths, resolved. Nothing (and no work)
/// for kinds without such paths.
pub(super) fn resolve(world: &World, policy: ObjId) -> Vec<SpecBackend> {
    let Some(kind) = world.policy_kind(policy).filter(|k| !k.spec_refs.is_empty()) else {
        return Vec::new();
    };
    let Body::Other(other) = &world.object(policy).body else { return Vec::new() };
    let Some(spec) = &other.policy.spec else { return Vec::new() };
    let spec = spec.unpack();
    let mut out = Vec::new();
    for rule in &kind.spec_refs {
        for fields in spec_refs_at(&spec, &rule.path) {
            let resolution = resolve_backend(world, policy, &fields, &rule.default_kind, rule.namespaces);
            out.push(SpecBackend { fields, resolution });
        }
    }
    out
}
