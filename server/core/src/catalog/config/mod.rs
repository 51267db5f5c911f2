//! The workspace config file `.policylens.yaml`.
//!
//! ```yaml
//! # yaml-language-server: $schema=./schemas/policylens-config.schema.json
//! defaultNamespace: default
//! exclude: ["charts/**"]
//! policyKinds:
//!   - group: policies.example.com
//!     kind: ColorPolicy
//!     class: Inherited
//!     targets:
//!       - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
//!     effectiveTarget: {group: "", kind: Service}
//! ```
//!
//! The first line lets yaml-language-server validate and complete the file: point `$schema` at
//! a copy of policylens's `schemas/policylens-config.schema.json` (a path relative to the
//! config file, or a URL).
//!
//! The structs below are the one source of truth: their JSON Schema (schemars) is committed as
//! `schemas/policylens-config.schema.json`, and [`load_config`] validates the YAML tree against
//! that same schema (so it accepts exactly what the schema describes), then deserialises what
//! was valid into them.
//!
//! A `policyKinds` entry whose group and kind match a known kind (built-in or from a CRD)
//! replaces it field by field: every field the entry leaves out keeps the known kind's value.
//! An entry for a new kind starts from the GEP-713 defaults for its class
//! ([`PolicyKind::new`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{
    Controllers, KindSource, PolicyClass, PolicyKind, Semantics, Stanza, Strategy, TargetKind, class_defaults,
};
use crate::model::{GroupKind, normalize_group};
use crate::syntax::{Node, NodeKind, Span, parse_file};

#[cfg(test)]
mod tests;
mod validate;

use validate::Walker;

/// policylens workspace configuration (`.policylens.yaml`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "policylens configuration")]
pub struct Config {
    /// Namespace of namespaced objects that set no `metadata.namespace` (default: `default`).
    #[serde(default)]
    pub default_namespace: Option<String>,
    /// Paths to skip, as globs relative to the directory of this file (`charts/**`,
    /// `**/*.tmpl.yaml`). `*` does not cross `/`; `**` does. A directory that matches is
    /// skipped whole.
    #[serde(default)]
    #[schemars(extend("items" = {"type": "string", "format": "glob"}))]
    pub exclude: Vec<String>,
    /// Policy kinds to add, or to correct: an entry with the group and kind of a built-in
    /// kind replaces the fields it gives and keeps the built-in values of the others.
    #[serde(default)]
    pub policy_kinds: Vec<PolicyKindConfig>,
    /// Directories read as part of the world but never reported on (a platform repository's
    /// Gateways), relative to the directory of this file.
    #[serde(default)]
    pub context: Vec<String>,
    /// Objects assumed to exist outside the workspace, as references
    /// `Kind[.group]/[namespace/]name[#section]`, e.g. `Gateway/infra/edge#https`. A reference
    /// to one resolves, and its named sections are trusted.
    #[serde(default)]
    pub external: Vec<String>,
    /// Globs of folders or files that are applied on their own (`examples/*`,
    /// `test/cases/*.yaml`): each matching folder, or file, is a unit that sees only itself and
    /// the files no unit claims. Relative to the directory of this file.
    #[serde(default)]
    #[schemars(extend("items" = {"type": "string", "format": "glob"}))]
    pub worlds: Vec<String>,
    /// Names of folders that hold independent cases (each file, with the files it leans on,
    /// applied on its own). Default: `testdata`, `test`, `tests`, `e2e`, `fixtures`,
    /// `examples`, `example`, `samples`, `golden`. `[]`: none.
    #[serde(default)]
    pub case_folders: Option<Vec<String>>,
    /// Severity per diagnostic code: `off`, `hint`, `information`, `warning` or `error`.
    #[serde(default)]
    pub diagnostics: std::collections::BTreeMap<String, Level>,
    /// The spans of the `diagnostics` keys, so unknown codes are reported where they are
    /// written. Filled by [`load_config`].
    #[serde(skip)]
    #[schemars(skip)]
    pub diagnostics_keys: Vec<(String, Span)>,
    /// The spans of the `external` items, for errors in them.
    #[serde(skip)]
    #[schemars(skip)]
    pub external_spans: Vec<Span>,
    /// The directory `exclude` globs are relative to (the config file's directory). Set by
    /// the caller, never read from the file.
    #[serde(skip)]
    #[schemars(skip)]
    pub base_dir: Option<PathBuf>,
    /// The directory relative file paths are relative to (the loader's current directory).
    /// Set by the caller, never read from the file.
    #[serde(skip)]
    #[schemars(skip)]
    pub cwd: Option<PathBuf>,
    /// The workspace roots (absolute): folder names that decide units (`examples/`) are read
    /// below them only. Set by the caller, never read from the file.
    #[serde(skip)]
    #[schemars(skip)]
    pub roots: Vec<PathBuf>,
    /// The spans of the `worlds` items, for a glob that matches nothing.
    #[serde(skip)]
    #[schemars(skip)]
    pub worlds_spans: Vec<Span>,
}

/// A severity set in the config's `diagnostics` map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Level {
    Off,
    Hint,
    Information,
    Warning,
    Error,
}

/// One policy kind. Fields left out keep the built-in entry's value for that group and kind,
/// or the GEP-713 default for the class.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PolicyKindConfig {
    /// API group of the policy kind (`""` for core).
    pub group: String,
    /// Kind of the policy, e.g. `ColorPolicy`.
    pub kind: String,
    /// Direct: affects only what it targets. Inherited: also everything below it. Default for
    /// a new kind: Inherited when `stanza` is Plural or Singular, else Direct.
    #[serde(default)]
    pub class: Option<PolicyClass>,
    /// Allowed targets. Leave out or empty: any kind.
    #[serde(default)]
    pub targets: Option<Vec<TargetConfig>>,
    /// The kind (or kinds) whose behaviour the policy finally changes, e.g. core Service for
    /// a backend policy. Default: where the targets are (Direct), the leaves below them
    /// (Inherited).
    #[serde(default)]
    pub effective_target: Option<OneOrMany<GroupKindConfig>>,
    /// May a reference set `namespace` to another namespace? Default false.
    #[serde(default)]
    pub cross_namespace: Option<bool>,
    /// Which reference fields the kind accepts. Default: targetRef and targetRefs.
    #[serde(default)]
    pub refs: Option<Vec<RefField>>,
    /// Is giving both `targetRef` and `targetRefs` an error? Default true.
    #[serde(default)]
    pub refs_exclusive: Option<bool>,
    /// Most `targetRefs` items allowed. Default 16.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_refs: Option<u32>,
    /// The group assumed when a reference leaves `group` out; null: `group` is required.
    /// Default null.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Option<String>")]
    pub default_group: Option<Option<String>>,
    /// Where defaults and overrides live: Plural (`spec.defaults`/`spec.overrides`),
    /// Singular (`spec.default`/`spec.override`) or None (the whole spec is the policy).
    /// Default: Plural for Inherited kinds, None for Direct ones.
    #[serde(default)]
    pub stanza: Option<Stanza>,
    /// Merge strategies a policy of this kind may ask for. Default: None for Direct kinds,
    /// the four GEP-713 strategies for Inherited ones.
    #[serde(default)]
    pub strategies: Option<Vec<Strategy>>,
    /// Project-specific merge rules. Default Gep713.
    #[serde(default)]
    pub semantics: Option<Semantics>,
    /// Fields of the policy that a field of the target shadows: a value set in the target
    /// itself beats the policy's defaults (GEP-2649 "value in HTTPRoute").
    #[serde(default)]
    pub shadows: Option<Vec<ShadowConfig>>,
    /// The Gateway controllers that act on policies of the kind: implementation ids
    /// (`istio`, `envoy-gateway`, `nginx-gateway-fabric`, ...; docs/kinds.md lists them) or
    /// exact `controllerName`s. On a Gateway whose class names another known controller, a
    /// policy of the kind does nothing (`unsupported-by-controller`). Default: the built-in
    /// entry's, else every controller.
    #[serde(default)]
    pub controllers: Option<Vec<String>>,
    /// The project that ships the kind, shown in hovers. Default: the group.
    #[serde(default)]
    pub project: Option<String>,
}

/// A kind a policy may target.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetConfig {
    /// API group (`""` or `core` for core).
    pub group: String,
    pub kind: String,
    /// May a reference to it name a section (listener, rule or port name)? Default false.
    #[serde(default)]
    pub section_name: bool,
}

/// An API group and kind.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GroupKindConfig {
    /// API group (`""` or `core` for core).
    pub group: String,
    pub kind: String,
}

/// A single value or a list of them.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(t) => std::slice::from_ref(t),
            OneOrMany::Many(v) => v,
        }
    }
}

/// A policy reference field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RefField {
    TargetRef,
    TargetRefs,
    TargetSelectors,
}

/// A policy field and the target field that shadows it.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShadowConfig {
    /// JSON pointer into the policy's spec proper, e.g. `/retryOn`.
    #[schemars(extend("format" = "json-pointer"))]
    pub field: String,
    /// JSON pointer into the target object, e.g. `/spec/rules/*/retry/codes` (`*`: every item).
    #[schemars(extend("format" = "json-pointer"))]
    pub target_field: String,
}

/// Keeps "given as null" (`Some(None)`) apart from "left out" (`None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub span: Span,
    pub message: String,
}

impl PolicyKindConfig {
    pub fn group_kind(&self) -> GroupKind {
        GroupKind::new(&self.group, &self.kind)
    }

    /// The catalog entry this config entry declares, on top of `base` (the built-in or
    /// CRD-derived entry of the same group and kind, if any).
    pub fn to_kind(&self, base: Option<&PolicyKind>) -> PolicyKind {
        let gk = self.group_kind();
        let class = self.class.or(base.map(|b| b.class)).unwrap_or(match self.stanza {
            Some(Stanza::Plural | Stanza::Singular) => PolicyClass::Inherited,
            _ => PolicyClass::Direct,
        });
        let mut k = match base {
            Some(b) => {
                let mut k = b.clone();
                if k.class != class {
                    // The base's stanza and strategies belong to the other class.
                    (k.stanza, k.strategies) = class_defaults(class);
                    k.class = class;
                }
                k.gk = gk;
                k
            }
            None => PolicyKind::new(gk, class, KindSource::Config),
        };
        k.source = KindSource::Config;
        if let Some(p) = &self.project {
            k.project = p.clone();
        }
        if let Some(ts) = &self.targets {
            // The user's list is the word on it.
            k.open_targets = None;
            k.targets = ts
                .iter()
                .map(|t| TargetKind { gk: GroupKind::new(&t.group, &t.kind), section_name: t.section_name })
                .collect();
        }
        if let Some(e) = &self.effective_target {
            k.set_effective_targets(e.as_slice().iter().map(|g| GroupKind::new(&g.group, &g.kind)).collect());
        }
        if let Some(x) = self.cross_namespace {
            k.cross_namespace = x;
        }
        if let Some(refs) = &self.refs {
            k.target_ref = refs.contains(&RefField::TargetRef);
            k.target_refs = refs.contains(&RefField::TargetRefs);
            k.target_selectors = refs.contains(&RefField::TargetSelectors);
        }
        if let Some(x) = self.refs_exclusive {
            k.refs_exclusive = x;
        }
        if let Some(n) = self.max_refs {
            k.max_refs = n;
        }
        if let Some(g) = &self.default_group {
            k.default_ref_group = g.as_deref().map(|g| normalize_group(g).to_owned());
        }
        if let Some(s) = self.stanza {
            k.stanza = s;
        }
        if let Some(s) = &self.strategies {
            k.strategies = s.clone();
        }
        if let Some(s) = self.semantics {
            k.semantics = s;
        }
        if let Some(sh) = &self.shadows {
            k.shadows = sh.iter().map(|s| (s.field.clone(), s.target_field.clone())).collect();
        }
        if let Some(c) = &self.controllers {
            k.controllers = if c.is_empty() { Controllers::Any } else { Controllers::Only(c.clone()) };
        }
        k
    }
}

/// The JSON Schema of [`Config`], as committed in `schemas/policylens-config.schema.json`.
pub fn config_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| schemars::schema_for!(Config).to_value())
}

/// The schema file's text: pretty JSON with a final newline.
pub fn config_schema_text() -> String {
    let mut s = serde_json::to_string_pretty(config_schema()).unwrap_or_default();
    s.push('\n');
    s
}

/// Reads a config file's text. Never fails: unknown keys and bad values become errors with
/// positions, and what was valid is kept. `base_dir` is left unset: the loader sets it.
pub fn load_config(text: &str) -> (Config, Vec<ConfigError>) {
    let parsed = parse_file(text);
    let mut errors = Vec::new();
    let mut root: Option<&Node> = None;
    for doc in &parsed.documents {
        if let Some(e) = &doc.error {
            errors.push(ConfigError { span: e.span, message: format!("YAML syntax: {}", e.message) });
        }
        match (&doc.root, root) {
            (Some(r), None) => root = Some(r),
            (Some(r), Some(_)) => errors.push(ConfigError {
                span: r.span,
                message: "the config file holds one YAML document; this one is ignored".into(),
            }),
            (None, _) => {}
        }
    }
    let Some(root) = root else {
        return (Config::default(), errors);
    };
    let schema = config_schema();
    let mut walker = Walker { root: schema, errors: Vec::new() };
    let value = walker.check(root, schema, "config");
    errors.append(&mut walker.errors);
    let config = match value.map(serde_json::from_value::<Config>) {
        Some(Ok(c)) => c,
        Some(Err(e)) => {
            // The walker admits only what the schema describes, so this means the two drifted.
            errors.push(ConfigError { span: root.span, message: format!("config: {e}") });
            Config::default()
        }
        None => Config::default(),
    };
    check_duplicate_kinds(root, &mut errors);
    let mut config = config;
    if let Some(NodeKind::Mapping(entries)) = root.get("diagnostics").map(|n| &n.kind) {
        config.diagnostics_keys =
            entries.iter().filter_map(|e| Some((e.key.as_str()?.to_owned(), e.key.span))).collect();
    }
    if let Some(items) = root.get("external").and_then(Node::as_sequence) {
        config.external_spans = items.iter().map(|n| n.span).collect();
    }
    if let Some(items) = root.get("worlds").and_then(Node::as_sequence) {
        config.worlds_spans = items.iter().map(|n| n.span).collect();
        for (i, n) in items.iter().enumerate() {
            if let Some(p) = config.worlds.get(i)
                && let Err(e) = GlobBuilder::new(p.trim_end_matches('/')).literal_separator(true).build()
            {
                errors.push(ConfigError { span: n.span, message: format!("`{p}` is not a glob: {}", e.kind()) });
            }
        }
    }
    errors.sort_by_key(|e| e.span);
    (config, errors)
}

impl Config {
    /// The `exclude` globs, anchored at `base_dir` (the current directory when unset).
    pub fn exclude_matcher(&self) -> ExcludeMatcher {
        let mut b = GlobSetBuilder::new();
        for pattern in &self.exclude {
            let pattern = pattern.trim_end_matches('/');
            let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
            // `dir/**` also names `dir` itself, so walkers can skip the directory whole.
            let dir = pattern.strip_suffix("/**").filter(|d| !d.is_empty());
            for p in std::iter::once(pattern).chain(dir) {
                if let Ok(g) = GlobBuilder::new(p).literal_separator(true).build() {
                    b.add(g);
                }
            }
        }
        ExcludeMatcher {
            base: self.base_dir.clone().unwrap_or_default(),
            set: b.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }
}

/// Decides whether a path is excluded by the config's `exclude` globs.
#[derive(Clone, Debug)]
pub struct ExcludeMatcher {
    base: PathBuf,
    set: GlobSet,
}

impl ExcludeMatcher {
    /// True when `path` (absolute, or relative like the config's `base_dir`) or one of its
    /// directories under the base matches a glob. Paths outside the base are never excluded.
    pub fn is_excluded(&self, path: &Path) -> bool {
        if self.set.is_empty() {
            return false;
        }
        let path = path.strip_prefix(".").unwrap_or(path);
        let base = self.base.strip_prefix(".").unwrap_or(&self.base);
        let Ok(rel) = path.strip_prefix(base) else {
            return false;
        };
        rel.ancestors().filter(|a| !a.as_os_str().is_empty()).any(|a| self.set.is_match(a))
    }
}

/// Reports a second entry for the same group and kind (the later one is used).
fn check_duplicate_kinds(root: &Node, errors: &mut Vec<ConfigError>) {
    let Some(items) = root.get("policyKinds").and_then(Node::as_sequence) else {
        return;
    };
    let mut seen = HashSet::new();
    for item in items {
        let (Some(g), Some(k)) = (item.get("group"), item.get("kind")) else {
            continue;
        };
        let (Some(group), Some(kind)) = (g.as_scalar(), k.as_str()) else {
            continue;
        };
        let gk = GroupKind::new(&group.value, kind);
        if !seen.insert(gk.clone()) {
            errors.push(ConfigError {
                span: k.span,
                message: format!("`{gk}` is declared twice; this later entry is used"),
            });
        }
    }
}
