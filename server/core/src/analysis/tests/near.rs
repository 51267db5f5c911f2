//! Requests right after an edit (`analysis::near`) answer exactly what the full world answers.
//!
//! Over every workspace under `fixtures/` (the demo, the repository layouts, the LSP and
//! conformance workspaces): each file is edited twice (a comment appended, and a reference's
//! name changed), and at every word boundary of the edited file, hover, completion and
//! definition from the file's partial world (a declaration's hover: from the declaration's
//! own world) must equal the full world's.

use std::path::{Path, PathBuf};

use crate::analysis::{self, near};
use crate::workspace::{Snapshot, Workspace};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() && name != "expected" {
            yaml_files(&p, out);
        } else if (name.ends_with(".yaml") || name.ends_with(".yml")) && name != ".policylens.yaml" {
            out.push(p);
        }
    }
}

/// The workspaces: each directory holding a `.policylens.yaml`, a conformance case, or a
/// top-level fixture folder.
fn workspaces() -> Vec<PathBuf> {
    let f = repo_root().join("fixtures");
    let mut out = vec![
        f.join("demo"),
        f.join("lsp"),
        f.join("repos/monorepo"),
        f.join("repos/gitops"),
        f.join("repos/platform"),
        f.join("repos/teams"),
    ];
    if let Ok(cases) = std::fs::read_dir(f.join("conformance")) {
        let mut cases: Vec<PathBuf> = cases.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
        cases.sort();
        out.extend(cases);
    }
    out
}

fn load(dir: &Path) -> (Workspace, Vec<(String, String)>) {
    let mut paths = Vec::new();
    yaml_files(dir, &mut paths);
    let files: Vec<(String, String)> =
        paths.iter().filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(p).ok()?))).collect();
    let mut ws = Workspace::new();
    ws.set_config_dirs(Some(dir.to_path_buf()), None);
    let config = dir.join(".policylens.yaml");
    if let Ok(text) = std::fs::read_to_string(&config) {
        ws.set_config(Some(&config.display().to_string()), &text);
    }
    ws.set_files(files.clone());
    (ws, files)
}

/// Offsets where a word starts or ends (and the file's ends): where cursors sit.
fn boundaries(text: &str) -> Vec<u32> {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    let mut out = vec![0];
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if prev.is_some_and(|p| word(p) != word(c)) {
            out.push(i as u32);
        }
        prev = Some(c);
    }
    out.push(text.len() as u32);
    out
}

/// A reference's name changed: a character inserted after the first `name: ` under a ref.
fn break_a_ref(text: &str) -> Option<String> {
    let at = ["targetRef", "parentRefs", "backendRefs"].iter().filter_map(|k| text.find(k)).min()?;
    let name = at + text[at..].find("name: ")? + "name: ".len();
    Some(format!("{}z{}", &text[..name], &text[name..]))
}

struct Tally {
    files_near: usize,
    /// Hovers on declarations answered from the declaration's own partial world.
    declarations_near: usize,
    compared: usize,
    references: usize,
    /// Hovers answered without the effective policies of a built world.
    half_built: usize,
}

fn compare(base: &Snapshot, ws: &mut Workspace, path: &str, text: String, tally: &mut Tally) {
    ws.set_file(path, text);
    let snap = ws.snapshot();
    let Some(partial) = snap.near_world(path, base) else { return };
    tally.files_near += 1;
    let text = snap.file(path).map(|f| f.text().to_string()).unwrap_or_default();
    for o in boundaries(&text) {
        let at = format!("{path} at byte {o}");
        // A fresh analysis of the same state per offset: a hover on a declaration computes
        // the full world, after which `near` rightly defers to it.
        let quick = snap.unanalysed();
        let completions = near::completions(&quick, Some(base), path, o);
        let definition = near::definition(&quick, Some(base), path, o);
        assert!(!quick.world_ready(), "completion or definition computed the full world, {at}");
        let hover = near::hover(&quick, Some(base), path, o);
        // A targetRef's hover says what its policy contributes there, a route's backendRef's
        // what governs the requests it sends: like a declaration's, it comes from the policy's
        // or the route's own world, or the full one.
        let site = crate::analysis::refs::site_at(&partial, path, o);
        let owned = crate::analysis::hover::reference_owner(&partial, path, o).is_some();
        let on_ref = site.is_some() && !owned;
        let on_decl = hover.is_some() && !on_ref;
        assert!(on_decl || !quick.world_ready(), "hover computed the full world, {at}");
        tally.declarations_near += usize::from(on_decl && !quick.world_ready());
        assert_eq!(hover, analysis::hover(&snap, path, o), "hover, {at}");
        // While a full pass has built the world but not yet its effective policies, a hover
        // that needs them comes from the declaration's world, and equals the full answer.
        if on_decl || owned {
            let half = snap.unanalysed();
            let _ = half.world();
            assert_eq!(near::hover(&half, Some(base), path, o), hover, "hover with the world built, {at}");
            tally.half_built += usize::from(!half.effective_ready());
        }
        assert_eq!(completions, analysis::completions(&snap, path, o), "completion, {at}");
        assert_eq!(definition, analysis::definition(&snap, path, o), "definition, {at}");
        tally.compared += 1;
        tally.references += usize::from(site.is_some());
    }
}

#[test]
fn near_answers_equal_the_full_worlds() {
    let mut tally = Tally { files_near: 0, declarations_near: 0, compared: 0, references: 0, half_built: 0 };
    for dir in workspaces() {
        let (mut ws, files) = load(&dir);
        for (path, text) in &files {
            // The base is the state before this file's edit, as after a language server's
            // full pass: a file put back is a changed file until the next one.
            let full = ws.snapshot();
            let _ = full.diagnostics();
            let base = full.as_base();
            compare(&base, &mut ws, path, format!("{text}\n# edited\n"), &mut tally);
            if let Some(broken) = break_a_ref(text) {
                compare(&base, &mut ws, path, broken, &mut tally);
            }
            ws.set_file(path, text.clone());
        }
    }
    // The comparison ran where it matters: many files took the near path, at many references.
    assert!(tally.files_near >= 80, "only {} files answered near", tally.files_near);
    assert!(tally.references >= 5_000, "only {} offsets on references", tally.references);
    assert!(tally.compared >= 40_000, "only {} offsets compared", tally.compared);
    eprintln!("{} declaration hovers answered near", tally.declarations_near);
    assert!(tally.declarations_near >= 1, "only {} declaration hovers answered near", tally.declarations_near);
    assert!(tally.half_built >= 1, "no hover answered while a world's effective policies were pending");
}
