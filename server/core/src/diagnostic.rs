//! What a diagnostic is: its code, severity, span, message and related locations. The data
//! that analysis produces and a snapshot caches, below both.

use std::sync::Arc;

use crate::syntax::Span;
use crate::world::{ObjId, Unknown, World};

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
    UnsupportedByController = "unsupported-by-controller", Warning;
    RouteWithoutParent = "route-without-parent", Information;
    InvalidSelector = "invalid-selector", Error;
    SelectorMatchesNothing = "selector-matches-nothing", Warning;
    StatusDisagrees = "status-disagrees", Warning;
    StaleStatus = "stale-status", Information;
    TooManyProblems = "too-many-problems", Warning;
    NotApplied = "not-applied", Information;
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
            Code::GatewayClassNotFound => {
                "A Gateway's gatewayClassName names no GatewayClass in the workspace nor one an implementation creates."
            }
            Code::UnsupportedByController => {
                "Every Gateway the policy reaches is served by a controller that does not implement its kind."
            }
            Code::RouteWithoutParent => "A route with no parentRefs attaches to nothing.",
            Code::InvalidSelector => "A label selector with a bad operator or values.",
            Code::SelectorMatchesNothing => "A targetSelectors entry selects no object.",
            Code::StatusDisagrees => "The controller's reported Accepted differs from the computed one (--cluster).",
            Code::StaleStatus => "The controller's reported status predates the policy's last spec change (--cluster).",
            Code::TooManyProblems => "A file has more problems than are listed; this one counts the rest.",
            Code::NotApplied => {
                "No Flux Kustomization or Argo CD Application of the GitOps repository applies the file."
            }
        }
    }
}

/// `docs/diagnostics.md`, one section per code: the one text behind `policylens explain-code`,
/// SARIF rule help and the editors' links.
const DOCS: &str = include_str!("../../../docs/diagnostics.md");

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
    /// Why the world is not closed for what the finding claims (docs/semantics.md §6.1): then
    /// it is reported as information at most, with these words appended.
    pub unknown: Option<Unknown>,
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
            unknown: None,
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

    /// The finding's certainty: `Some` when the world is not closed for it.
    pub fn unknown(mut self, unknown: Option<Unknown>) -> Diagnostic {
        self.unknown = unknown;
        self
    }
}

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
                | Code::UnsupportedByController
                | Code::StatusDisagrees
                | Code::StaleStatus
        )
    }
}

/// A diagnostic an ignore comment silenced, with the comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    /// The comment's text, e.g. `# policylens: ignore[target-not-found]`.
    pub justification: String,
}
