//! `not-applied`: in a GitOps repository, a file with Gateway API objects or policies that no
//! Flux Kustomization or Argo CD Application applies (docs/semantics.md §4.7): a route file its
//! kustomization.yaml no longer lists, a scratch folder. It is analysed alone, and said once;
//! nothing else is reported on it but YAML errors, as nothing of it reaches a cluster.

use super::{Code, Diagnostic};
use crate::model::GATEWAY_GROUP;
use crate::topology::Linked;

pub(super) fn check(world: &Linked, out: &mut Vec<Diagnostic>) {
    let not_applied = |path: &str| world.units.not_applied(path);
    if !world.units.list.iter().any(|u| u.kind == crate::world::units::UnitKind::NotApplied) {
        return;
    }
    out.retain(|d| d.code == Code::YamlSyntax || !not_applied(&d.file));
    for f in world.files.iter().filter(|f| not_applied(&f.path)) {
        let first = world
            .objects_of_file(&f.path)
            .find(|&id| world.object(id).group() == GATEWAY_GROUP || world.policy_kind(id).is_some());
        let Some(id) = first else { continue };
        let o = world.object(id);
        let msg = format!(
            "no Flux Kustomization or Argo CD Application of this repository applies this file, so `{}` is in no cluster it manages; the file is analysed alone and nothing else is reported on it",
            world.key(id)
        );
        out.push(Diagnostic::new(&f.path, o.kind_span, Code::NotApplied, msg).object(world, id));
    }
}
