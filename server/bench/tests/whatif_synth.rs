//! The what-if of removing a Gateway-level policy on a synthetic workspace big enough that
//! Gateway-wide policies lose at more places than a status keeps (`MAX_LOST`): their statuses
//! cannot be patched and are counted again over their own regions. The statuses equal those of
//! a full analysis with the policy's document deleted, and the report made incrementally
//! equals the one made by explaining every target on each side. (The fixture workspaces are
//! too small for this path: `server/core/tests/whatif.rs` covers the rest.)

use std::path::Path;

use policylens_bench::synth;
use policylens_core::analysis::diff;
use policylens_core::model::Body;
use policylens_core::topology::DagNode;
use policylens_core::workspace::{Snapshot, Workspace};
use policylens_core::world::ObjId;

fn yaml_files(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            yaml_files(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml")
            && let (Ok(rel), Ok(text)) = (p.strip_prefix(root), std::fs::read_to_string(&p))
        {
            out.push((rel.to_string_lossy().into_owned(), text));
        }
    }
}

fn at_gateway(snap: &Snapshot, p: ObjId) -> bool {
    let world = snap.world();
    let t = &world.topology;
    t.policies
        .get(&p)
        .and_then(|r| r.attached_nodes().next())
        .is_some_and(|n| matches!(t.node(n), DagNode::Object(o) if matches!(world.object(o).body, Body::Gateway(_))))
}

#[test]
fn gateway_whatif_with_cut_loss_lists_equals_deleting_it() {
    let dir = std::env::temp_dir().join(format!("policylens-whatif-synth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    synth::generate(&synth::Config::mixed(3000, &dir, 1)).expect("generate the synthetic workspace");
    let mut texts = Vec::new();
    yaml_files(&dir, &dir, &mut texts);
    let _ = std::fs::remove_dir_all(&dir);
    let mut ws = Workspace::new();
    if let Some((_, c)) = texts.iter().find(|(p, _)| p == ".policylens.yaml") {
        ws.set_config(Some(".policylens.yaml"), c);
    }
    ws.set_files(texts.iter().filter(|(p, _)| p != ".policylens.yaml").cloned().collect());
    let snap = ws.snapshot();
    let world = snap.world();
    let gateway_level: Vec<ObjId> = world.policies.iter().copied().filter(|&p| at_gateway(&snap, p)).collect();
    let mut recounted = 0;
    for &p in &gateway_level {
        let w = snap.effective().without(world, &[p]);
        recounted += w.stats.recounted;
        let at = world.key(p).to_string();
        // The same files with the policy's document blanked.
        let file = world.file_of(p).path.to_string();
        let span = world.object(p).span;
        let Some((_, text)) = texts.iter().find(|(path, _)| *path == file) else { continue };
        let mut bytes = text.clone().into_bytes();
        for b in &mut bytes[span.start as usize..span.end as usize] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        let real = snap.with_file(&file, String::from_utf8_lossy(&bytes).into_owned());
        let got = serde_json::to_string_pretty(&w.index.report_every(world)).unwrap_or_default();
        let want = serde_json::to_string_pretty(&real.effective().report_every(real.world())).unwrap_or_default();
        assert!(got == want, "statuses without {at} differ from the real deletion's");
        let fast = serde_json::to_string(&diff::without(&snap, &[p], "workspace").report).unwrap_or_default();
        let slow = serde_json::to_string(&diff::without_explained(&snap, &[p], "workspace").report).unwrap_or_default();
        assert!(fast == slow, "the report without {at} differs from the explained one");
    }
    assert!(
        !gateway_level.is_empty() && recounted > 0,
        "{} Gateway-level policies, {recounted} recounted",
        gateway_level.len()
    );
}
