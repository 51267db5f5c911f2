//! Hover on a target (an object's kind or name, or a listener, rule or port name): every
//! policy kind reaching it and, per path from a root of the hierarchy, the effective policy as
//! YAML with each leaf's winning policy and strategy, and the policies that lost.

use std::collections::HashSet;

use crate::analysis::refs::{Target, section_indices};
use crate::analysis::summary::{section_detail, target_summary};
use crate::analysis::yaml;
use crate::effective::EffectiveIndex;
use crate::effective::{Context, KindExplanation, explain};
use crate::model::Body;
use crate::topology::Linked;
use crate::topology::PathLimit;

/// Distinct results shown per policy kind; the rest are counted.
const MAX_RESULTS: usize = 3;

pub(super) fn hover(world: &Linked, effective: &EffectiveIndex, t: Target) -> String {
    let mut parts = vec![format!("**{}**", target_summary(world, t))];
    let Some(node) = t.node(world) else {
        parts.push("Not part of the policy hierarchy.".into());
        return parts.join("\n\n");
    };
    let ex = explain(world, effective, node, PathLimit(super::PATH_LIMIT));
    let mut truncated = ex.truncated;
    let cluster = cluster_policies(world);
    let kind_section = |k: &KindExplanation| kind_section(k, &cluster);
    for k in &ex.policies {
        parts.push(kind_section(k));
    }
    // A Service's named ports are targets of their own (BackendTLSPolicy names them): what
    // reaches each port is shown under it, since it is not what reaches the Service.
    let mut ports = 0;
    if t.section.is_none() && matches!(world.object(t.obj).body, Body::Service(_)) {
        for i in section_indices(world, t.obj) {
            let Some(pnode) = (Target { obj: t.obj, section: Some(i) }).node(world) else { continue };
            let px = explain(world, effective, pnode, PathLimit(super::PATH_LIMIT));
            if px.policies.is_empty() {
                continue;
            }
            ports += 1;
            truncated |= px.truncated;
            let name = crate::topology::section_name(world, t.obj, i).unwrap_or_default();
            let detail = section_detail(world, t.obj, i);
            parts.push(format!("**Port `{name}`**{}", detail.strip_prefix("port").unwrap_or("")));
            parts.extend(px.policies.iter().map(kind_section));
        }
    }
    if ex.policies.is_empty() && ports == 0 && ex.traffic.is_empty() {
        parts.push("No policies reach it.".into());
    }
    parts.extend(super::traffic::parts(&ex, &kind_section));
    if truncated {
        parts.push(format!("(only the first {} paths were considered)", super::PATH_LIMIT));
    }
    parts.join("\n\n")
}

/// The references of the policies only the live cluster holds (none without `--cluster`):
/// the hover says where a policy that is in no file comes from.
pub(super) fn cluster_policies(world: &Linked) -> HashSet<String> {
    world
        .policies
        .iter()
        .filter(|&&p| world.file_of(p).origin == crate::source::Origin::Cluster)
        .map(|&p| world.key(p).to_string())
        .collect()
}

/// One policy kind: its policies (those only the cluster holds marked so), then each distinct
/// result with the paths that give it.
pub(super) fn kind_section(k: &KindExplanation, cluster: &HashSet<String>) -> String {
    let short = |label: &str| k.short(label).to_owned();
    let mut all: Vec<&str> = k.contexts.iter().flat_map(|c| c.policies.iter().map(String::as_str)).collect();
    all.sort_by_key(|p| short(p));
    all.dedup();
    let listed: Vec<String> = all
        .iter()
        .map(|p| if cluster.contains(*p) { format!("`{}` (cluster)", short(p)) } else { format!("`{}`", short(p)) })
        .collect();
    let mut out = format!("**{}** · {}", k.kind, listed.join(", "));

    // Paths with the same result are shown once.
    let mut groups: Vec<(&Context, usize)> = Vec::new();
    for c in &k.contexts {
        match groups
            .iter_mut()
            .find(|(g, _)| g.effective == c.effective && g.provenance == c.provenance && g.lost == c.lost)
        {
            Some((_, n)) => *n += 1,
            None => groups.push((c, 1)),
        }
    }
    for (c, same) in groups.iter().take(MAX_RESULTS) {
        let path: Vec<String> = c.path.iter().map(|p| format!("`{p}`")).collect();
        out.push_str(&format!("\n\n{}", path.join(" › ")));
        if *same > 1 {
            out.push_str(&format!(" (and {} more paths with the same result)", same - 1));
        }
        let note = |pointer: &str| {
            c.provenance.iter().find(|p| p.field == pointer).map(|p| {
                // A target's own value has no merge strategy of its own to show.
                if p.from_target {
                    format!("{} (own value)", p.policy)
                } else {
                    format!("{} · {}", short(&p.policy), p.strategy.as_str())
                }
            })
        };
        out.push_str(&format!("\n```yaml\n{}```", yaml::render(&c.effective, &note)));
        for l in &c.lost {
            let by: Vec<String> = l.by.iter().map(|b| format!("`{}`", short(b))).collect();
            let mut line = format!("\nLost: `{}` ({})", short(&l.policy), l.outcome);
            if !by.is_empty() {
                line.push_str(&format!(" to {}", by.join(", ")));
            }
            if !l.because.is_empty() {
                line.push_str(&format!(" — {}", l.because.join(", ")));
            }
            out.push_str(&line);
        }
    }
    if groups.len() > MAX_RESULTS {
        out.push_str(&format!("\n\n… {} more results on other paths", groups.len() - MAX_RESULTS));
    }
    out
}
