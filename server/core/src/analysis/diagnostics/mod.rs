//! Diagnostics (docs/semantics.md §6): stable codes, exact ranges, messages that name the objects
//! involved and say what would fix it.

mod applied;
mod backends;
mod duplicates;
mod policies;
mod routes;
mod status;
mod suppress;

pub use crate::diagnostic::{Code, DOCS_URL, Diagnostic, Related, Severity, Suppressed};
pub(crate) use crate::model::section_noun;
#[cfg(test)]
mod certainty_tests;
#[cfg(test)]
mod fidelity_tests;
#[cfg(test)]
mod repo_tests;
#[cfg(test)]
mod spec_ref_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod topology_tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::effective::EffectiveIndex;
use crate::source::SourceFile;
use crate::syntax::{ByteEdit, Span};
use crate::workspace::{Reported, Snapshot};
use crate::world::ObjId;

impl Snapshot {
    /// Every diagnostic of the workspace, by file path (files without any are absent).
    pub fn diagnostics(&self) -> &BTreeMap<Arc<str>, Vec<Diagnostic>> {
        &self.reported().by_file
    }

    /// The diagnostics that `# policylens: ignore[...]` comments silenced.
    pub fn suppressed(&self) -> &[Suppressed] {
        &self.reported().suppressed
    }

    fn reported(&self) -> &Reported {
        self.reported_cell().get_or_init(|| {
            let (by_file, suppressed) = compute(self);
            Arc::new(Reported { by_file, suppressed })
        })
    }

    pub fn diagnostics_for(&self, path: &str) -> &[Diagnostic] {
        self.diagnostics().get(path).map(Vec::as_slice).unwrap_or(&[])
    }

    /// This snapshot as the base of later partial analyses ([`local`]): its files and
    /// diagnostics and a world without topology, and no effective-policy index. Holding the
    /// whole analysis while the next state is analysed would double the peak memory of a full
    /// analysis.
    pub fn as_base(&self) -> Snapshot {
        let _ = self.diagnostics();
        let base = self.detach_base();
        // Built here, on the full pass's thread, rather than by the first declaration hover
        // after the next edit (`workspace/closure.rs`).
        let _ = base.world().cross_refs();
        base
    }

    /// The files and diagnostics without the world and effective index they came from: all a
    /// report needs, so a batch run can free the analysis before it renders.
    pub fn without_analysis(&self) -> Snapshot {
        let _ = self.diagnostics();
        self.detach_results()
    }
}

/// Every diagnostic of a snapshot as reported (config severities applied, suppressed ones set
/// apart), by file.
pub fn compute(snapshot: &Snapshot) -> (BTreeMap<Arc<str>, Vec<Diagnostic>>, Vec<Suppressed>) {
    compute_in(snapshot, snapshot.effective(), &[])
}

/// The diagnostics of the snapshot's world as they would be without the policies `removed`
/// (every definition listed), given that world's effective index
/// ([`EffectiveIndex::without`]): the what-if of a deletion. What the removed documents say
/// goes with them, ExtensionRef filters naming them name nothing, and the status findings are
/// the index's.
pub fn compute_without(
    snapshot: &Snapshot,
    effective: &EffectiveIndex,
    removed: &[ObjId],
) -> (BTreeMap<Arc<str>, Vec<Diagnostic>>, Vec<Suppressed>) {
    compute_in(snapshot, effective, removed)
}

fn compute_in(
    snapshot: &Snapshot,
    effective: &EffectiveIndex,
    removed: &[ObjId],
) -> (BTreeMap<Arc<str>, Vec<Diagnostic>>, Vec<Suppressed>) {
    let mut raw = compute_raw(snapshot, effective, removed);
    // What a removed document says goes with it (its ignore comments too).
    let world = (!removed.is_empty()).then(|| snapshot.world());
    let spans: Vec<(&str, Span)> =
        world.map(|w| removed.iter().map(|&r| (&*w.file_of(r).path, w.object(r).span)).collect()).unwrap_or_default();
    let outside =
        |d: &Diagnostic| !spans.iter().any(|(f, s)| **f == *d.file && s.start <= d.span.start && d.span.end <= s.end);
    for v in raw.values_mut() {
        v.retain(outside);
    }
    let mut by_file: BTreeMap<Arc<str>, Vec<Diagnostic>> = BTreeMap::new();
    let mut suppressed = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (path, diags) in raw {
        seen.insert(path.clone());
        let Some(file) = snapshot.source(&path) else { continue };
        let (mut kept, gone) = suppress::apply(snapshot.config(), file, diags, false);
        kept.retain(outside);
        sort(&mut kept);
        cap(&mut kept);
        suppressed.extend(gone);
        if !kept.is_empty() {
            by_file.insert(path, kept);
        }
    }
    // Files with ignore comments but no diagnostics still report the unused ones.
    let quiet: Vec<_> =
        snapshot.files().filter(|f| !f.suppressions.is_empty() && !seen.contains(&f.path)).cloned().collect();
    for f in quiet {
        let (mut kept, _) = suppress::apply(snapshot.config(), &f, Vec::new(), false);
        kept.retain(outside);
        if !kept.is_empty() {
            by_file.insert(f.path.clone(), kept);
        }
    }
    (by_file, suppressed)
}

fn compute_raw(
    snapshot: &Snapshot,
    effective: &EffectiveIndex,
    removed: &[ObjId],
) -> BTreeMap<Arc<str>, Vec<Diagnostic>> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for f in snapshot.files() {
        syntax(f, &mut out);
    }
    let config = snapshot.config();
    if let Some(path) = &config.path {
        for e in &config.errors {
            out.push(Diagnostic::new(path, e.span, Code::Config, e.message.clone()));
        }
        for (code, span) in &config.config.diagnostics_keys {
            if !Code::ALL.iter().any(|c| c.as_str() == code) {
                let names = Code::ALL.iter().map(|c| c.as_str());
                let mut m = format!("`{code}` is not a policylens diagnostic code");
                if let Some(s) = crate::suggest::closest(code, names) {
                    m.push_str(&format!("; did you mean `{s}`?"));
                }
                out.push(Diagnostic::new(path, *span, Code::Config, m));
            }
        }
        for (e, span) in config.config.external.iter().zip(&config.config.external_spans) {
            if crate::model::ObjectKey::parse(e, crate::model::is_core_kind).is_none() {
                out.push(Diagnostic::new(
                    path,
                    *span,
                    Code::Config,
                    format!("`{e}` is not a reference: write `Kind[.group]/[namespace/]name[#section]`, e.g. `Gateway/infra/edge#https`"),
                ));
            }
        }
    }
    let world = snapshot.world();
    routes::check(world, removed, &mut out);
    backends::check(world, &mut out);
    policies::check(world, &mut out);
    duplicates::check(world, None, duplicates_on(config), removed, &mut out);
    status::check(effective, world, &mut out);
    applied::check(world, &mut out);
    out.iter_mut().for_each(settle);
    for &i in &world.units.unmatched_worlds {
        if let (Some(path), Some(glob), Some(span)) =
            (&config.path, config.config.worlds.get(i), config.config.worlds_spans.get(i))
        {
            out.push(Diagnostic::new(path, *span, Code::Config, format!("`{glob}` matches no file or folder")));
        }
    }
    // One document applied by several units (a base under two overlays) says the same
    // thing once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert((d.file.clone(), d.span, d.code, d.message.clone())));
    let broken = broken_objects(snapshot.files());
    out.retain(|d| !in_broken(&broken, d));
    let mut by_file: BTreeMap<Arc<str>, Vec<Diagnostic>> = BTreeMap::new();
    // Context files take part in the world but are never reported on. Findings on the live
    // cluster's objects are kept: the CLI reports them by object (which of them, with files
    // laid over the cluster, is its choice); the language server publishes none of them.
    let reported =
        |d: &Diagnostic| snapshot.file(&d.file).is_none_or(|f| f.origin != crate::workspace::Origin::Context);
    for d in out.into_iter().filter(reported) {
        by_file.entry(d.file.clone()).or_default().push(d);
    }
    for v in by_file.values_mut() {
        sort(v);
    }
    by_file
}

/// One file's diagnostics without analysing the whole workspace, for the keystroke path of
/// the language server: the syntax and reference diagnostics from the file's partial world
/// cut from `base` (see `Snapshot::partial_world`), exactly what [`compute`] gives for them,
/// plus `base`'s workspace-wide diagnostics of the file moved through `edits` (the edits
/// since `base`'s text; `None` when unknown). A moved diagnostic is kept only while the edits
/// left its span alone and its object is still in the file, so status warnings do not blink
/// out while the file is edited; the next full analysis settles them. `None` when only a full
/// analysis can tell.
pub fn local(snapshot: &Snapshot, path: &str, base: &Snapshot, edits: Option<&[ByteEdit]>) -> Option<Vec<Diagnostic>> {
    let world = snapshot.near_world(path, base)?;
    let file = snapshot.file(path)?;
    let mut out = Vec::new();
    syntax(file, &mut out);
    let mut refs = Vec::new();
    routes::check(&world, &[], &mut refs);
    backends::check(&world, &mut refs);
    policies::check(&world, &mut refs);
    duplicates::check(&world, Some(path), duplicates_on(snapshot.config()), &[], &mut refs);
    applied::check(&world, &mut refs);
    refs.iter_mut().for_each(settle);
    let mut seen = std::collections::HashSet::new();
    refs.retain(|d| seen.insert((d.span, d.code, d.message.clone())));
    let broken = broken_objects(std::iter::once(file));
    out.extend(refs.into_iter().filter(|d| *d.file == *path && !in_broken(&broken, d)));
    if let Some(edits) = edits {
        let keys: Vec<String> = world.objects_of_file(path).map(|id| world.key(id).to_string()).collect();
        let alive = |d: &Diagnostic| d.object.as_ref().is_none_or(|o| keys.contains(o));
        out.extend(carry(base.diagnostics_for(path), edits).into_iter().filter(alive));
    }
    if file.origin != crate::workspace::Origin::Workspace {
        return Some(Vec::new());
    }
    let (mut out, _) = suppress::apply(snapshot.config(), file, out, true);
    sort(&mut out);
    cap(&mut out);
    Some(out)
}

/// The workspace-wide diagnostics of `previous` (one file's, from an earlier snapshot) moved
/// through the edits made to the file since; those an edit touched are dropped.
fn carry(previous: &[Diagnostic], edits: &[ByteEdit]) -> Vec<Diagnostic> {
    let moved = |span: Span| edits.iter().try_fold(span, |s, e| e.map(s));
    previous
        .iter()
        .filter(|d| d.code.is_workspace_wide())
        .filter_map(|d| {
            let mut d = d.clone();
            d.span = moved(d.span)?;
            for r in &mut d.related {
                if r.file == d.file {
                    r.span = moved(r.span)?;
                }
            }
            Some(d)
        })
        .collect()
}

/// Certainty decides severity (docs/semantics.md §6.1), here and nowhere else: a finding whose
/// world is not closed (a test harness, a Helm release or an operator may supply what it says
/// is missing; nothing applies the file; the kind's rule is unknown) is information at most,
/// and says what is unknown. Every finding carries its certainty from where it was found
/// (`world::certainty`, kept by the topology's resolutions).
fn settle(d: &mut Diagnostic) {
    if let Some(u) = &d.unknown {
        d.severity = d.severity.max(Severity::Information);
        d.message.push_str(&format!(" ({})", u.words()));
    }
}

/// Whether the config turned `duplicate-object` on (it is off by default, but where one
/// kustomization applies an identity twice).
fn duplicates_on(config: &crate::workspace::ConfigState) -> bool {
    config.config.diagnostics.get(Code::DuplicateObject.as_str()).is_some_and(|l| *l != crate::catalog::Level::Off)
}

/// Most problems listed for one file: a file with an error on every line gets the first ones
/// and one `too-many-problems` diagnostic counting the rest, not tens of thousands.
pub const MAX_PER_FILE: usize = 200;

/// Keeps the first [`MAX_PER_FILE`] of a file's sorted diagnostics and adds one that counts
/// the others, at the first one left out. It is as severe as the worst of them, so a hidden
/// error still fails `check`.
fn cap(v: &mut Vec<Diagnostic>) {
    if v.len() <= MAX_PER_FILE {
        return;
    }
    let hidden = v.split_off(MAX_PER_FILE);
    let mut by_code: BTreeMap<Code, usize> = BTreeMap::new();
    for d in &hidden {
        *by_code.entry(d.code).or_default() += 1;
    }
    let counts: Vec<String> = by_code.iter().map(|(c, n)| format!("{n} {}", c.as_str())).collect();
    let first = &hidden[0];
    let mut d = Diagnostic::new(
        &first.file,
        first.span,
        Code::TooManyProblems,
        format!(
            "and {} more problems in this file, not listed (only the first {MAX_PER_FILE} are): {}",
            hidden.len(),
            counts.join(", ")
        ),
    );
    d.severity = hidden.iter().map(|d| d.severity).min().unwrap_or(d.severity);
    v.push(d);
}

fn sort(v: &mut [Diagnostic]) {
    v.sort_by_key(|a| (a.span.start, a.span.end, a.code));
}

/// The spans of the objects read from documents with a YAML error, by file.
fn broken_objects<'a>(files: impl Iterator<Item = &'a Arc<SourceFile>>) -> BTreeMap<Arc<str>, Vec<Span>> {
    let mut out: BTreeMap<Arc<str>, Vec<Span>> = BTreeMap::new();
    for f in files.filter(|f| !f.syntax_errors.is_empty()) {
        let spans: Vec<Span> = f.objects.iter().filter(|o| o.broken).map(|o| o.span).collect();
        if !spans.is_empty() {
            out.insert(f.path.clone(), spans);
        }
    }
    out
}

/// A finding on an object whose document did not parse: the `yaml-syntax` error already says
/// what is wrong there, and what the object seems to lack may be past the break
/// (docs/semantics.md §4.1), so nothing else is reported on it.
fn in_broken(broken: &BTreeMap<Arc<str>, Vec<Span>>, d: &Diagnostic) -> bool {
    d.code != Code::YamlSyntax
        && broken.get(&d.file).is_some_and(|spans| spans.iter().any(|s| s.start <= d.span.start && d.span.end <= s.end))
}

fn syntax(f: &SourceFile, out: &mut Vec<Diagnostic>) {
    if let Some(reason) = &f.unreadable {
        out.push(Diagnostic::new(&f.path, Span::default(), Code::YamlSyntax, format!("skipped: {reason}")));
    }
    for e in &f.syntax_errors {
        out.push(Diagnostic::new(&f.path, e.span, Code::YamlSyntax, e.message.clone()));
    }
}

/// `a, b, c` with backticks, or `none` for an empty list.
pub(crate) fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}
