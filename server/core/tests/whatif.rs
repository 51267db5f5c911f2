//! The what-if of a deletion (`EffectiveIndex::without`, `diagnostics::compute_without`)
//! equals analysing the workspace with the policy's documents really gone: for every policy
//! of every fixture workspace, and for every file's policies together, the status report,
//! the diagnostics and the effective policies at every target are the same. The what-if
//! recomputes only the removed policies' regions; a full analysis of the edited files is the
//! oracle.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use policylens_core::analysis::diagnostics::compute_without;
use policylens_core::analysis::diff;
use policylens_core::effective::explain;
use policylens_core::topology::PathLimit;
use policylens_core::workspace::{Snapshot, Workspace};
use policylens_core::world::ObjId;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every YAML file under `dir` (hidden directories skipped), by path relative to it.
fn files(dir: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') {
                    walk(root, &p, out);
                }
            } else if (name.ends_with(".yaml") || name.ends_with(".yml"))
                && let (Ok(rel), Ok(text)) = (p.strip_prefix(root), std::fs::read_to_string(&p))
            {
                out.push((rel.to_string_lossy().into_owned(), text));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

fn workspace(dir: &Path, texts: &[(String, String)]) -> Snapshot {
    let mut ws = Workspace::new();
    if let Ok(c) = std::fs::read_to_string(dir.join(".policylens.yaml")) {
        ws.set_config(Some(".policylens.yaml"), &c);
    }
    for (p, t) in texts {
        if p != ".policylens.yaml" {
            ws.set_file(p, t.clone());
        }
    }
    ws.snapshot()
}

/// Everything a what-if is compared on, as text: statuses, diagnostics, effective policies.
fn outcome(
    snap: &Snapshot,
    report: serde_json::Value,
    diags: &BTreeMap<std::sync::Arc<str>, Vec<policylens_core::analysis::diagnostics::Diagnostic>>,
    explained: &dyn Fn(policylens_core::topology::NodeId) -> serde_json::Value,
) -> (String, Vec<String>, BTreeMap<String, String>) {
    let world = snap.world();
    let mut d: Vec<String> = diags
        .iter()
        .flat_map(|(f, v)| {
            v.iter().map(move |d| {
                format!("{f} {}..{} {} {:?} {}", d.span.start, d.span.end, d.code.as_str(), d.severity, d.message)
            })
        })
        .collect();
    d.sort();
    let mut ex = BTreeMap::new();
    for key in world.topology.target_keys(world) {
        if let Ok(n) = world.topology.resolve_target(world, &key) {
            ex.insert(key, explained(n).to_string());
        }
    }
    (serde_json::to_string_pretty(&report).unwrap_or_default(), d, ex)
}

/// The texts with the documents of `removed` blanked (spaces, line breaks kept: every other
/// position stays where it was).
fn blanked(snap: &Snapshot, texts: &[(String, String)], removed: &[ObjId]) -> Vec<(String, String)> {
    let world = snap.world();
    let mut out = texts.to_vec();
    for &r in removed {
        let path = world.file_of(r).path.to_string();
        let span = world.object(r).span;
        let Some((_, t)) = out.iter_mut().find(|(p, _)| *p == path) else { continue };
        let mut bytes = t.clone().into_bytes();
        for b in &mut bytes[span.start as usize..span.end as usize] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
        *t = String::from_utf8_lossy(&bytes).into_owned();
    }
    out
}

/// The lines around the first difference of two texts (what-if, then real).
fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
    let from = i.saturating_sub(12);
    format!(
        "what-if:\n{}\nreal:\n{}",
        la[from..(i + 4).min(la.len())].join("\n"),
        lb[from..(i + 4).min(lb.len())].join("\n")
    )
}

/// `checked`: what-ifs compared, and of those computed incrementally (no kind whole).
fn check_dir(dir: &Path, checked: &mut (usize, usize)) {
    let texts = files(dir);
    if texts.is_empty() {
        return;
    }
    let snap = workspace(dir, &texts);
    let world = snap.world();
    let mut cases: Vec<(String, Vec<ObjId>)> =
        world.policies.iter().map(|&p| (world.key(p).to_string(), world.instances(p))).collect();
    // Every policy of one file at once.
    let mut by_file: BTreeMap<String, Vec<ObjId>> = BTreeMap::new();
    for &p in &world.policies {
        by_file.entry(world.file_of(p).path.to_string()).or_default().push(p);
    }
    cases.extend(by_file.into_iter().filter(|(_, v)| v.len() > 1).map(|(f, v)| (format!("every policy of {f}"), v)));
    cases.dedup_by(|a, b| a.1 == b.1);
    for (what, removed) in cases {
        // Deleting a document deletes every policy it defines: a kustomize base under two
        // overlays defines one in each overlay's namespace.
        let place = |p: ObjId| (world.file_of(p).path.clone(), world.object(p).span);
        let places: Vec<_> = removed.iter().map(|&p| place(p)).collect();
        let removed: Vec<ObjId> = world.policies.iter().copied().filter(|&p| places.contains(&place(p))).collect();
        let w = snap.effective().without(world, &removed);
        let (diags, _) = compute_without(&snap, &w.index, &removed);
        let got = outcome(&snap, serde_json::to_value(w.index.report_every(world)).unwrap_or_default(), &diags, &|n| {
            serde_json::to_value(explain(world, &w.index, n, PathLimit::default())).unwrap_or_default()
        });
        let real = workspace(dir, &blanked(&snap, &texts, &removed));
        let rw = real.world();
        let want = outcome(
            &real,
            serde_json::to_value(real.effective().report_every(rw)).unwrap_or_default(),
            real.diagnostics(),
            &|n| serde_json::to_value(explain(rw, real.effective(), n, PathLimit::default())).unwrap_or_default(),
        );
        let at = format!("{} without {what}", dir.display());
        assert!(got.0 == want.0, "status, {at}:\n{}", first_difference(&got.0, &want.0));
        let only = |a: &[String], b: &[String]| a.iter().filter(|x| !b.contains(x)).cloned().collect::<Vec<_>>();
        assert!(
            got.1 == want.1,
            "diagnostics, {at}: only in the what-if: {:#?}\nonly in the real deletion: {:#?}",
            only(&got.1, &want.1),
            only(&want.1, &got.1)
        );
        for (k, v) in &want.2 {
            assert_eq!(got.2.get(k), Some(v), "explain {k}, {at}");
        }
        // The report made incrementally (only the changed paths folded, only the changed
        // statuses read) is the one made by explaining every target of the removed policies'
        // regions on each side and reading every status of their kinds.
        let label = "workspace";
        let fast = serde_json::to_string_pretty(&diff::without(&snap, &removed, label).report).unwrap_or_default();
        let slow = diff::without_explained(&snap, &removed, label);
        let slow_json = serde_json::to_string_pretty(&slow.report).unwrap_or_default();
        assert!(fast == slow_json, "report, {at}:\n{}", first_difference(&fast, &slow_json));
        checked.0 += 1;
        if w.stats.whole_kinds == 0 && w.stats.patched > 0 {
            checked.1 += 1;
        }
    }
}

#[test]
fn whatif_equals_deleting_the_policy_in_every_fixture() {
    let mut dirs = vec![repo().join("fixtures/demo"), repo().join("fixtures/lsp")];
    for group in ["fixtures/conformance", "fixtures/repos"] {
        let mut sub: Vec<PathBuf> = std::fs::read_dir(repo().join(group))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        sub.sort();
        dirs.extend(sub);
    }
    let mut checked = (0, 0);
    for d in &dirs {
        check_dir(d, &mut checked);
    }
    eprintln!("{} what-ifs, {} incremental", checked.0, checked.1);
    assert!(checked.0 > 100 && checked.1 > 50, "{checked:?} what-ifs checked (incremental)");
}
