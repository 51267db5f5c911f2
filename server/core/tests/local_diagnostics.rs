//! A file's diagnostics from its partial world (the LSP's per-keystroke path) equal the
//! full analysis's, minus the workspace-wide codes, whatever was edited since the base
//! snapshot the partial world is cut from.

use std::path::Path;

use policylens_core::analysis::diagnostics::{self, Diagnostic};
use policylens_core::workspace::Workspace;
use proptest::prelude::*;

/// The demo workspace: (path, text).
fn demo() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    let mut out = Vec::new();
    for dir in ["payments", "platform", "policies", "shop"] {
        let mut names: Vec<_> = std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten().collect();
        names.sort_by_key(|e| e.path());
        for e in names {
            let p = e.path();
            if let Ok(t) = std::fs::read_to_string(&p) {
                out.push((format!("{dir}/{}", p.file_name().map(|f| f.to_string_lossy()).unwrap_or_default()), t));
            }
        }
    }
    out
}

/// Names and namespaces of the demo, so that a substitution breaks or repairs a reference,
/// moves an object between namespaces or changes which listener a route asks for.
const WORDS: &[&str] = &[
    "shop",
    "payments",
    "platform",
    "checkout",
    "cart",
    "edge",
    "internal",
    "https",
    "http",
    "pay",
    "catalog",
    "Gateway",
    "HTTPRoute",
    "Service",
    "ReferenceGrant",
    "Namespace",
];

fn substitute(text: &str, picks: &[(prop::sample::Index, usize, usize)]) -> String {
    let mut s = text.to_owned();
    for (at, from, to) in picks {
        let from = WORDS[from % WORDS.len()];
        let hits: Vec<usize> = s.match_indices(from).map(|(i, _)| i).collect();
        if hits.is_empty() {
            continue;
        }
        let i = hits[at.index(hits.len())];
        s.replace_range(i..i + from.len(), WORDS[to % WORDS.len()]);
    }
    s
}

fn reference_only(ds: &[Diagnostic]) -> Vec<Diagnostic> {
    ds.iter().filter(|d| !d.code.is_workspace_wide()).cloned().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn local_equals_full(
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::collection::vec((any::<prop::sample::Index>(), 0usize..64, 0usize..64), 1..4)),
            1..4,
        ),
        base_edits in 0usize..2,
    ) {
        let files = demo();
        prop_assert!(files.len() >= 9);
        let mut ws = Workspace::new();
        ws.set_files(files.clone());
        let mut base = ws.snapshot();
        let mut touched = Vec::new();
        for (n, (which, picks)) in edits.iter().enumerate() {
            let (path, text) = &files[which.index(files.len())];
            ws.set_file(path, substitute(text, picks));
            touched.push(path.clone());
            if n + 1 == base_edits {
                base = ws.snapshot();
            }
        }
        // As the language server keeps it: diagnostics and a world without topology.
        let base = base.as_base();
        let now = ws.snapshot();
        for (path, _) in &files {
            let Some(local) = diagnostics::local(&now, path, &base, None) else { continue };
            let full = reference_only(now.diagnostics_for(path));
            prop_assert_eq!(&local, &full, "file {} after editing {:?}", path, touched);
        }
    }
}

/// Whole files stay consistent with the full analysis when nothing changed since the base.
#[test]
fn local_of_unchanged_workspace_is_the_full_reference_set() {
    let mut ws = Workspace::new();
    ws.set_files(demo());
    let snap = ws.snapshot();
    let base = snap.as_base();
    let mut compared = 0;
    for f in snap.files() {
        let local = diagnostics::local(&snap, &f.path, &base, None).expect("demo files use built-in kinds");
        assert_eq!(local, reference_only(snap.diagnostics_for(&f.path)), "{}", f.path);
        compared += local.len();
    }
    // The demo's deliberate mistakes are all reference diagnostics but one.
    assert!(compared >= 6, "only {compared} diagnostics compared");
}

/// Status warnings of the base move with the text while the file is edited, and go with
/// their policy when it goes.
#[test]
fn workspace_wide_diagnostics_are_carried_through_edits() {
    use policylens_core::syntax::ByteEdit;
    let files = demo();
    let (path, text) = files.iter().find(|(p, _)| p == "policies/edge.yaml").expect("demo edge policies");
    let mut ws = Workspace::new();
    ws.set_files(files.clone());
    let base = ws.snapshot().as_base();
    let wide: Vec<&Diagnostic> = base.diagnostics_for(path).iter().filter(|d| d.code.is_workspace_wide()).collect();
    assert_eq!(wide.len(), 1, "{wide:#?}");

    // A comment above everything: nothing changes but positions.
    let comment = "# reviewed\n";
    ws.set_file(path, format!("{comment}{text}"));
    let now = ws.snapshot();
    let edit = ByteEdit { start: 0, end: 0, new_len: comment.len() as u32 };
    let local = diagnostics::local(&now, path, &base, Some(&[edit])).expect("built-in kinds");
    assert_eq!(local, now.diagnostics_for(path));
    assert_eq!(local.iter().find(|d| d.code.is_workspace_wide()).map(|d| d.span.start), Some(wide[0].span.start + 11));

    // Moving the policy to another namespace (its name, where the warning sits, untouched):
    // the warning is not carried onto an object that no longer exists.
    let moved = "  name: edge-backend-defaults\n  namespace: infra\n";
    let at = text.find(moved).expect("policy metadata") + moved.len() - "infra\n".len();
    ws.set_file(path, text.replacen(moved, &moved.replace("infra", "edges"), 1));
    let now = ws.snapshot();
    let edit = ByteEdit { start: at as u32, end: at as u32 + 5, new_len: 5 };
    let local = diagnostics::local(&now, path, &base, Some(&[edit])).expect("built-in kinds");
    assert!(local.iter().all(|d| !d.code.is_workspace_wide()), "{local:#?}");
    // Without that check the span alone would have carried it.
    assert!(edit.map(wide[0].span).is_some());
}
