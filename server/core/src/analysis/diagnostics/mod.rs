//! Diagnostics (docs/semantics.md §6): stable codes, exact ranges, messages that name the objects
//! involved and say what would fix it.

mod duplicates;
mod policies;
mod routes;
mod status;
mod suppress;

pub use suppress::Suppressed;
#[cfg(test)]
mod repo_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::syntax::{Span, TextEdit};
use crate::workspace::{ObjId, Snapshot, SourceFile, World};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $name:literal, $severity:ident;)*) => {
        /// Stable diagnostic codes; tools match on their string form.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &[Code] = &[$(Code::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }
        }
    };
}

codes! {
    YamlSyntax = "yaml-syntax", Error;
    TargetNotFound = "target-not-found", Error;
    SectionNotFound = "section-not-found", Error;
    TargetKindNotAllowed = "target-kind-not-allowed", Error;
    CrossNamespaceTarget = "cross-namespace-target", Error;
    InvalidTargetRef = "invalid-target-ref", Error;
    TargetRefFields = "target-ref-fields", Error;
    DuplicateTargetRef = "duplicate-target-ref", Warning;
    Conflicted = "conflicted", Warning;
    Overridden = "overridden", Warning;
    PartiallyOverridden = "partially-overridden", Information;
    UnknownStrategy = "unknown-strategy", Error;
    AffectsNothing = "affects-nothing", Information;
    ParentNotFound = "parent-not-found", Error;
    RouteNotAllowed = "route-not-allowed", Warning;
    BackendNotFound = "backend-not-found", Warning;
    BackendNotPermitted = "backend-not-permitted", Error;
    Config = "config", Error;
    DuplicateObject = "duplicate-object", Warning;
    UnusedSuppression = "unused-suppression", Information;
    GatewayClassNotFound = "gateway-class-not-found", Warning;
    RouteWithoutParent = "route-without-parent", Information;
    InvalidSelector = "invalid-selector", Error;
    SelectorMatchesNothing = "selector-matches-nothing", Warning;
    StatusDisagrees = "status-disagrees", Warning;
    TooManyProblems = "too-many-problems", Warning;
}

impl Code {
    /// A one-line description, for SARIF rule metadata and docs.
    pub fn description(self) -> &'static str {
        match self {
            Code::YamlSyntax => "The YAML does not parse.",
            Code::TargetNotFound => "A targetRef names no object in the workspace.",
            Code::SectionNotFound => "A sectionName names no listener, rule or port of its target.",
            Code::TargetKindNotAllowed => "The policy kind cannot target that kind.",
            Code::CrossNamespaceTarget => {
                "A ref crosses namespaces where the kind forbids it or no ReferenceGrant admits it."
            }
            Code::InvalidTargetRef => "A ref field breaks the Gateway API validation.",
            Code::TargetRefFields => "targetRef/targetRefs are both set, missing, empty or too many.",
            Code::DuplicateTargetRef => "The same ref appears twice in one policy.",
            Code::Conflicted => "The policy lost a conflict with another policy of its kind.",
            Code::Overridden => "Everything the policy sets is superseded everywhere.",
            Code::PartiallyOverridden => "The policy is superseded in some contexts or fields.",
            Code::UnknownStrategy => "A merge strategy the kind does not support.",
            Code::AffectsNothing => "The policy is accepted but reaches no effective target.",
            Code::ParentNotFound => "A route parentRef names no Gateway or listener.",
            Code::RouteNotAllowed => "A parentRef matches but the listeners refuse the route.",
            Code::BackendNotFound => "A backendRef names no Service (or port).",
            Code::BackendNotPermitted => "A cross-namespace backendRef with no ReferenceGrant.",
            Code::Config => "The .policylens.yaml config has an error.",
            Code::DuplicateObject => "Another definition of the same object exists in the workspace.",
            Code::UnusedSuppression => "An ignore comment that suppresses nothing.",
            Code::GatewayClassNotFound => "A Gateway's gatewayClassName names no GatewayClass in the workspace.",
            Code::RouteWithoutParent => "A route with no parentRefs attaches to nothing.",
            Code::InvalidSelector => "A label selector with a bad operator or values.",
            Code::SelectorMatchesNothing => "A targetSelectors entry selects no object.",
            Code::StatusDisagrees => "The controller's reported Accepted differs from the computed one (--cluster).",
            Code::TooManyProblems => "A file has more problems than are listed; this one counts the rest.",
        }
    }
}

/// `docs/diagnostics.md`, one section per code: the one text behind `policylens explain-code`,
/// SARIF rule help and the editors' links.
const DOCS: &str = include_str!("../../../../../docs/diagnostics.md");

/// Where the documentation of the codes is published (the repository's docs page).
pub const DOCS_URL: &str = "https://github.com/policylens/policylens/blob/main/docs/diagnostics.md";

impl Code {
    /// The code's section of `docs/diagnostics.md` (heading line excluded), as Markdown.
    pub fn help(self) -> &'static str {
        let heading = format!("\n## {}\n", self.as_str());
        let Some(start) = DOCS.find(&heading).map(|i| i + heading.len()) else { return "" };
        let end = DOCS[start..].find("\n## ").map_or(DOCS.len(), |i| start + i);
        DOCS[start..end].trim()
    }

    /// The link to the code's section.
    pub fn help_uri(self) -> String {
        format!("{DOCS_URL}#{}", self.as_str())
    }
}

/// A location elsewhere that explains a diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub file: Arc<str>,
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub file: Arc<str>,
    pub span: Span,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    /// The §2.1 reference of the object the diagnostic is about.
    pub object: Option<String>,
    pub related: Vec<Related>,
    /// Replacement texts for `span` that would fix it (closest names), best first.
    pub fixes: Vec<String>,
}

impl Diagnostic {
    pub fn new(file: &Arc<str>, span: Span, code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.clone(),
            span,
            severity: code.severity(),
            code,
            message: message.into(),
            object: None,
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    pub fn object(mut self, world: &World, id: ObjId) -> Diagnostic {
        self.object = Some(world.key(id).to_string());
        self
    }

    pub fn related(mut self, file: &Arc<str>, span: Span, message: impl Into<String>) -> Diagnostic {
        self.related.push(Related { file: file.clone(), span, message: message.into() });
        self
    }

    pub fn fix(mut self, replacement: Option<String>) -> Diagnostic {
        self.fixes.extend(replacement);
        self
    }
}

/// Every diagnostic of a snapshot, by file, each file's sorted by position.
impl Code {
    /// Codes that follow from the effective policies of the whole workspace; the others follow
    /// from one file and the objects its references reach.
    pub fn is_workspace_wide(self) -> bool {
        matches!(
            self,
            Code::Conflicted
                | Code::Overridden
                | Code::PartiallyOverridden
                | Code::UnknownStrategy
                | Code::AffectsNothing
                | Code::StatusDisagrees
        )
    }
}

/// Every diagnostic of a snapshot as reported (config severities applied, suppressed ones set
/// apart), by file.
pub fn compute(snapshot: &Snapshot) -> (BTreeMap<Arc<str>, Vec<Diagnostic>>, Vec<Suppressed>) {
    let raw = compute_raw(snapshot);
    let mut by_file: BTreeMap<Arc<str>, Vec<Diagnostic>> = BTreeMap::new();
    let mut suppressed = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (path, diags) in raw {
        seen.insert(path.clone());
        let Some(file) = snapshot.source(&path) else { continue };
        let (mut kept, gone) = suppress::apply(snapshot.config(), file, diags, false);
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
        let (kept, _) = suppress::apply(snapshot.config(), &f, Vec::new(), false);
        if !kept.is_empty() {
            by_file.insert(f.path.clone(), kept);
        }
    }
    (by_file, suppressed)
}

fn compute_raw(snapshot: &Snapshot) -> BTreeMap<Arc<str>, Vec<Diagnostic>> {
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
    routes::check(world, &mut out);
    policies::check(world, &mut out);
    duplicates::check(world, None, &mut out);
    status::check(snapshot.effective(), world, &mut out);
    let mut by_file: BTreeMap<Arc<str>, Vec<Diagnostic>> = BTreeMap::new();
    // Context and cluster files take part in the world but are never reported on.
    let reported =
        |d: &Diagnostic| snapshot.file(&d.file).is_none_or(|f| f.origin == crate::workspace::Origin::Workspace);
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
pub fn local(snapshot: &Snapshot, path: &str, base: &Snapshot, edits: Option<&[TextEdit]>) -> Option<Vec<Diagnostic>> {
    let world = snapshot.near_world(path, base)?;
    let file = snapshot.file(path)?;
    let mut out = Vec::new();
    syntax(file, &mut out);
    let mut refs = Vec::new();
    routes::check(&world, &mut refs);
    policies::check(&world, &mut refs);
    duplicates::check(&world, Some(path), &mut refs);
    out.extend(refs.into_iter().filter(|d| *d.file == *path));
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
fn carry(previous: &[Diagnostic], edits: &[TextEdit]) -> Vec<Diagnostic> {
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

fn syntax(f: &SourceFile, out: &mut Vec<Diagnostic>) {
    if let Some(reason) = &f.unreadable {
        out.push(Diagnostic::new(&f.path, Span::default(), Code::YamlSyntax, format!("skipped: {reason}")));
    }
    for e in &f.syntax_errors {
        out.push(Diagnostic::new(&f.path, e.span, Code::YamlSyntax, e.message.clone()));
    }
}

/// What a section of a kind is called in messages.
pub(crate) fn section_noun(kind: &str) -> &'static str {
    match kind {
        "Gateway" | "ListenerSet" | "XListenerSet" => "listener",
        "Service" => "port",
        k if k.ends_with("Route") => "rule",
        _ => "section",
    }
}

/// `a, b, c` with backticks, or `none` for an empty list.
pub(crate) fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}
