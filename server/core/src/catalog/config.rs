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

/// Validates a YAML tree against the JSON Schema subset schemars emits (`$ref`, `type`,
/// `properties`, `required`, `items`, `enum`, `const`, `anyOf`/`oneOf`, `minimum`/`maximum`,
/// `format`), returning the valid part as JSON.
struct Walker<'s> {
    root: &'s Value,
    errors: Vec<ConfigError>,
}

impl<'s> Walker<'s> {
    fn err(&mut self, span: Span, message: String) {
        self.errors.push(ConfigError { span, message });
    }

    /// Follows `$ref`s into `$defs`.
    fn resolve(&self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..8 {
            let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
                break;
            };
            let Some(target) = r.strip_prefix('#').and_then(|p| self.root.pointer(p)) else {
                break;
            };
            schema = target;
        }
        schema
    }

    /// The allowed values of a schema that is an enumeration (`enum`, or `oneOf`/`anyOf` of
    /// `const`s, as schemars writes enums with documented variants).
    fn enum_values(&self, schema: &'s Value) -> Option<Vec<&'s Value>> {
        if let Some(v) = schema.get("enum").and_then(Value::as_array) {
            return Some(v.iter().collect());
        }
        if let Some(c) = schema.get("const") {
            return Some(vec![c]);
        }
        let branches = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
        let mut out = Vec::new();
        for b in branches {
            let b = self.resolve(b);
            // `Option<Enum>` is `anyOf: [enum, {type: null}]`.
            if b.get("type").and_then(Value::as_str) == Some("null") {
                out.push(&NULL);
                continue;
            }
            out.extend(self.enum_values(b)?);
        }
        Some(out)
    }

    /// Every JSON type a schema admits (`[]`: anything).
    fn accepted_types(&self, schema: &'s Value, out: &mut Vec<&'static str>) {
        let schema = self.resolve(schema);
        if let Some(values) = self.enum_values(schema) {
            out.extend(values.iter().map(|v| value_type(v)));
            return;
        }
        if let Some(bs) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
            for b in bs {
                self.accepted_types(b, out);
            }
            return;
        }
        match schema.get("type") {
            Some(Value::String(t)) => out.extend(TYPES.iter().copied().find(|x| x == t)),
            Some(Value::Array(ts)) => {
                for t in ts.iter().filter_map(Value::as_str) {
                    out.extend(TYPES.iter().copied().find(|x| *x == t));
                }
            }
            _ => {}
        }
    }

    fn admits_type(&self, schema: &'s Value, found: &str) -> bool {
        let mut types = Vec::new();
        self.accepted_types(schema, &mut types);
        types.is_empty() || types.iter().any(|t| type_matches(t, found))
    }

    fn check(&mut self, node: &Node, schema: &'s Value, path: &str) -> Option<Value> {
        let schema = self.resolve(schema);
        if matches!(node.kind, NodeKind::Alias) {
            self.err(node.span, format!("`{path}`: aliases are not supported in the config"));
            return None;
        }
        let value = scalar_value(node);
        if let Some(allowed) = self.enum_values(schema) {
            return self.check_enum(node, value, &allowed, path);
        }
        if schema.get("anyOf").or_else(|| schema.get("oneOf")).is_some() {
            return self.check_branches(node, schema, path);
        }
        let found = json_type(node, value.as_ref());
        if !self.admits_type(schema, found) {
            self.type_error(node, schema, found, path);
            return None;
        }
        match &node.kind {
            NodeKind::Mapping(entries) => self.check_object(node, entries, schema, path),
            NodeKind::Sequence(items) => {
                let item_schema = schema.get("items").unwrap_or(&ANY);
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if let Some(v) = self.check(item, item_schema, &format!("{path}[{i}]")) {
                        out.push(v);
                    }
                }
                Some(Value::Array(out))
            }
            _ => {
                let value = value.unwrap_or(Value::Null);
                self.check_scalar(node, value, schema, path)
            }
        }
    }

    fn check_enum(&mut self, node: &Node, value: Option<Value>, allowed: &[&Value], path: &str) -> Option<Value> {
        let value = value.unwrap_or(Value::Null);
        if allowed.contains(&&value) {
            return Some(value);
        }
        let names: Vec<&str> = allowed.iter().filter_map(|v| v.as_str()).collect();
        let mut message = format!(
            "`{path}` must be one of {}",
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        );
        match value.as_str() {
            Some(s) => {
                message.push_str(&format!(", found `{s}`"));
                if let Some(m) = did_you_mean(s, names.iter().copied()) {
                    message.push_str(&format!("; did you mean `{m}`?"));
                }
            }
            None => message.push_str(&format!(", found {}", article(json_type(node, Some(&value))))),
        }
        self.err(node.span, message);
        None
    }

    /// `anyOf`/`oneOf` of non-enum schemas: the first branch that takes the value without
    /// error wins; else the errors of the first branch of the right type are reported.
    fn check_branches(&mut self, node: &Node, schema: &'s Value, path: &str) -> Option<Value> {
        let branches = schema.get("anyOf").or_else(|| schema.get("oneOf"));
        let list = branches.and_then(Value::as_array)?;
        let found = json_type(node, scalar_value(node).as_ref());
        let mut fallback = None;
        for b in list {
            let b = self.resolve(b);
            let mut sub = Walker { root: self.root, errors: Vec::new() };
            let v = sub.check(node, b, path);
            if sub.errors.is_empty() {
                return v;
            }
            if fallback.is_none() && self.admits_type(b, found) {
                fallback = Some((v, sub.errors));
            }
        }
        match fallback {
            Some((v, mut errors)) => {
                self.errors.append(&mut errors);
                v
            }
            None => {
                self.type_error(node, schema, found, path);
                None
            }
        }
    }

    fn type_error(&mut self, node: &Node, schema: &'s Value, found: &str, path: &str) {
        let mut types = Vec::new();
        self.accepted_types(schema, &mut types);
        types.retain(|t| *t != "null");
        types.sort_unstable();
        types.dedup();
        let mut names: Vec<String> = types.iter().map(|t| article(t)).collect();
        let expected = match names.len() {
            0 => "null".to_owned(),
            1 => names.remove(0),
            _ => {
                let last = names.pop().unwrap_or_default();
                format!("{} or {last}", names.join(", "))
            }
        };
        self.err(node.span, format!("`{path}` must be {expected}, found {}", article(found)));
    }

    fn check_object(
        &mut self,
        node: &Node,
        entries: &[crate::syntax::Entry],
        schema: &'s Value,
        path: &str,
    ) -> Option<Value> {
        let props = schema.get("properties").and_then(Value::as_object);
        let prop_names = || props.into_iter().flat_map(|p| p.keys().map(String::as_str));
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let mut out = serde_json::Map::new();
        let mut failed_required = Vec::new();
        let mut suggested: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        for e in entries {
            let Some(key) = e.key.as_str() else {
                self.err(e.key.span, format!("`{path}`: keys must be strings"));
                continue;
            };
            let child = if path == "config" { key.to_owned() } else { format!("{path}.{key}") };
            if !seen.insert(key) {
                self.err(e.key.span, format!("duplicate key `{child}`; the last one is used"));
            }
            match props.and_then(|p| p.get(key)) {
                Some(s) => match self.check(&e.value, s, &child) {
                    Some(v) => {
                        out.insert(key.to_owned(), v);
                    }
                    None => {
                        out.remove(key);
                        failed_required.push(key);
                    }
                },
                None if closed => {
                    let mut message = format!("unknown key `{key}` in `{path}`");
                    if let Some(m) = did_you_mean(key, prop_names()) {
                        message.push_str(&format!("; did you mean `{m}`?"));
                        // A misspelt required key: this error says all there is to say.
                        suggested.push(m);
                    } else {
                        let known: Vec<&str> = prop_names().collect();
                        message.push_str(&format!(" (known keys: {})", known.join(", ")));
                    }
                    self.err(e.key.span, message);
                }
                None => match schema.get("additionalProperties").filter(|v| v.is_object()) {
                    Some(s) => {
                        if let Some(v) = self.check(&e.value, s, &child) {
                            out.insert(key.to_owned(), v);
                        }
                    }
                    None => {
                        out.insert(key.to_owned(), e.value.to_json());
                    }
                },
            }
        }
        let required = schema.get("required").and_then(Value::as_array);
        let mut complete = true;
        for r in required.into_iter().flatten().filter_map(Value::as_str) {
            if out.contains_key(r) {
                continue;
            }
            complete = false;
            if !failed_required.contains(&r) && !suggested.contains(&r) {
                // No span of its own: point at the first key of the mapping.
                let span = entries.first().map_or(node.span, |e| e.key.span);
                self.err(span, format!("`{path}` is missing the required key `{r}`"));
            }
        }
        complete.then_some(Value::Object(out))
    }

    fn check_scalar(&mut self, node: &Node, value: Value, schema: &'s Value, path: &str) -> Option<Value> {
        if let Some(n) = value.as_f64() {
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                self.err(node.span, format!("`{path}` must be at least {min}"));
                return None;
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                self.err(node.span, format!("`{path}` must be at most {max}"));
                return None;
            }
        }
        if let (Some(s), Some(format)) = (value.as_str(), schema.get("format").and_then(Value::as_str)) {
            let problem = match format {
                "glob" => GlobBuilder::new(s.trim_end_matches('/'))
                    .literal_separator(true)
                    .build()
                    .err()
                    .map(|e| format!("`{path}` is not a valid glob: {}", e.kind())),
                "json-pointer" if !s.is_empty() && !s.starts_with('/') => {
                    Some(format!("`{path}` must be a JSON pointer starting with `/`, e.g. `/{s}`"))
                }
                _ => None,
            };
            if let Some(p) = problem {
                self.err(node.span, p);
                return None;
            }
        }
        Some(value)
    }
}

/// A scalar's JSON value under the YAML 1.2 core schema (quoted scalars stay strings).
fn scalar_value(node: &Node) -> Option<Value> {
    match &node.kind {
        NodeKind::Scalar(_) | NodeKind::Missing => Some(node.to_json()),
        _ => None,
    }
}

/// The JSON type name of a node: `object`, `array`, `string`, `integer`, `number`,
/// `boolean`, `null`.
fn json_type(node: &Node, value: Option<&Value>) -> &'static str {
    match (&node.kind, value) {
        (NodeKind::Mapping(_), _) => "object",
        (NodeKind::Sequence(_), _) => "array",
        (_, Some(Value::String(_))) => "string",
        (_, Some(Value::Bool(_))) => "boolean",
        (_, Some(Value::Number(n))) if n.is_i64() || n.is_u64() => "integer",
        (_, Some(Value::Number(_))) => "number",
        _ => "null",
    }
}

const TYPES: [&str; 7] = ["object", "array", "string", "integer", "number", "boolean", "null"];
static NULL: Value = Value::Null;
static ANY: Value = Value::Bool(true);

fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
    }
}

fn type_matches(expected: &str, found: &str) -> bool {
    expected == found || (expected == "number" && found == "integer")
}

fn article(t: &str) -> String {
    match t {
        "object" => "a mapping".into(),
        "array" => "a list".into(),
        "integer" => "an integer".into(),
        "null" => "null".into(),
        "boolean" => "a boolean".into(),
        other => format!("a {other}"),
    }
}

/// The candidate closest to `word`, when it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    let len = word.chars().count();
    // Ties go to the candidate of the word's length (`targetRefz` → `targetRefs`).
    let mut best: Option<((usize, usize), &str)> = None;
    for c in candidates {
        let d =
            if c.to_ascii_lowercase() == lower { 0 } else { crate::suggest::distance(&lower, &c.to_ascii_lowercase()) };
        let rank = (d, c.chars().count().abs_diff(len));
        if best.is_none_or(|(br, _)| rank < br) {
            best = Some((rank, c));
        }
    }
    let ((d, _), c) = best?;
    let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
    (d <= limit).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the committed schema lives (repo root `schemas/`).
    fn schema_path() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/policylens-config.schema.json")
    }

    #[test]
    fn catalog_config_schema_is_current() {
        let path = schema_path();
        let fresh = config_schema_text();
        if std::env::var_os("UPDATE_SCHEMAS").is_some() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).unwrap();
            }
            std::fs::write(&path, &fresh).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "schemas/policylens-config.schema.json is stale (the config structs changed); \
             regenerate it with `UPDATE_SCHEMAS=1 cargo test -p policylens-core schema`"
        );
    }

    /// Every object in the schema is closed, so unknown keys are errors in editors too.
    #[test]
    fn catalog_config_schema_objects_are_closed() {
        fn walk(v: &Value, objects: &mut usize) {
            match v {
                Value::Object(m) => {
                    if m.contains_key("properties") {
                        *objects += 1;
                        assert_eq!(m.get("additionalProperties"), Some(&Value::Bool(false)), "{v}");
                    }
                    m.values().for_each(|x| walk(x, objects));
                }
                Value::Array(a) => a.iter().for_each(|x| walk(x, objects)),
                _ => {}
            }
        }
        let mut objects = 0;
        walk(config_schema(), &mut objects);
        assert_eq!(objects, 5);
    }

    fn at<'t>(text: &'t str, e: &ConfigError) -> &'t str {
        &text[e.span.start as usize..e.span.end as usize]
    }

    const VALID: &str = "\
# yaml-language-server: $schema=./schemas/policylens-config.schema.json
defaultNamespace: apps
exclude: [\"charts/**\", \"**/*.tmpl.yaml\"]
context: [\"../platform\"]
external: [\"Gateway/infra/edge#https\"]
worlds: [\"examples/*\", \"test/cases/*.yaml\"]
caseFolders: [testdata, e2e]
diagnostics: {}
policyKinds:
  - group: policies.example.com
    kind: ColorPolicy
    class: Inherited
    targets:
      - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: true}
      - {group: gateway.networking.k8s.io, kind: HTTPRoute}
    effectiveTarget: {group: \"\", kind: Service}
    crossNamespace: false
    strategies: [AtomicDefaults, AtomicOverrides, PatchDefaults, PatchOverrides]
  - group: networking.example.io
    kind: RetryOnPolicy
    refs: [targetRef]
    refsExclusive: false
    maxRefs: 1
    stanza: Plural
    defaultGroup: null
    semantics: Gep713
    project: GEP-2649
    effectiveTarget:
      - {group: gateway.networking.k8s.io, kind: HTTPRoute}
    shadows:
      - {field: /retryOn, targetField: /spec/rules/*/retry/codes}
    controllers: [envoy-gateway, example.com/gateway-controller]
";

    #[test]
    fn catalog_config_reads_severities_worlds_and_externals() {
        let text = "diagnostics:\n  duplicate-object: information\n  affects-nothing: off\n  bogus-code: loud\nworlds: [examples/*]\nexternal: [Gateway/infra/edge]\n";
        let (c, errors) = load_config(text);
        assert_eq!(c.diagnostics.get("duplicate-object"), Some(&Level::Information));
        assert_eq!(c.diagnostics.get("affects-nothing"), Some(&Level::Off));
        // A bad level is a positioned error; the unknown code itself is judged by the analysis
        // (which knows the codes), from the recorded key spans.
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "loud");
        let keys: Vec<&str> = c
            .diagnostics_keys
            .iter()
            .map(|(k, sp)| {
                assert_eq!(at(text, &ConfigError { span: *sp, message: String::new() }), k);
                k.as_str()
            })
            .collect();
        assert_eq!(keys, ["duplicate-object", "affects-nothing", "bogus-code"]);
        assert_eq!(c.worlds, ["examples/*"]);
        assert_eq!(c.external, ["Gateway/infra/edge"]);
    }

    #[test]
    fn catalog_config_valid_file() {
        let (c, errors) = load_config(VALID);
        assert_eq!(errors, vec![]);
        assert_eq!(c.default_namespace.as_deref(), Some("apps"));
        assert_eq!(c.exclude, vec!["charts/**", "**/*.tmpl.yaml"]);
        assert_eq!(c.policy_kinds.len(), 2);
        let color = c.policy_kinds[0].to_kind(None);
        assert_eq!(color.gk, GroupKind::new("policies.example.com", "ColorPolicy"));
        assert_eq!(color.class, PolicyClass::Inherited);
        assert_eq!(color.source, KindSource::Config);
        assert_eq!(
            color.targets,
            vec![
                TargetKind { gk: GroupKind::new("gateway.networking.k8s.io", "Gateway"), section_name: true },
                TargetKind { gk: GroupKind::new("gateway.networking.k8s.io", "HTTPRoute"), section_name: false },
            ]
        );
        assert_eq!(color.effective_target, Some(GroupKind::new("", "Service")));
        assert!(!color.cross_namespace);
        assert_eq!(color.stanza, Stanza::Plural);
        assert_eq!(color.strategies.len(), 4);

        let retry = c.policy_kinds[1].to_kind(None);
        assert_eq!(retry.class, PolicyClass::Inherited, "a Plural stanza implies Inherited");
        assert!(retry.target_ref && !retry.target_refs && !retry.target_selectors);
        assert_eq!(retry.max_refs, 1);
        assert!(!retry.refs_exclusive);
        assert_eq!(c.policy_kinds[1].default_group, Some(None));
        assert_eq!(retry.default_ref_group, None);
        assert_eq!(retry.project, "GEP-2649");
        assert_eq!(retry.effective_targets, vec![GroupKind::new("gateway.networking.k8s.io", "HTTPRoute")]);
        assert_eq!(retry.shadows, vec![("/retryOn".to_owned(), "/spec/rules/*/retry/codes".to_owned())]);
        // An implementation id or an exact controllerName (docs/semantics.md §4.4.1).
        assert!(retry.controllers.act_under("gateway.envoyproxy.io/gatewayclass-controller"));
        assert!(retry.controllers.act_under("example.com/gateway-controller"));
        assert!(!retry.controllers.act_under("istio.io/gateway-controller"));
        // A controller policylens does not know is assumed to implement it.
        assert!(retry.controllers.act_under("example.org/other"));
    }

    /// The reader is driven by the schema; this checks the other side: every key the schema
    /// lists deserialises (the valid example uses them all), and the example uses no other.
    #[test]
    fn catalog_config_schema_keys_match_the_structs() {
        fn schema_keys(v: &Value, out: &mut std::collections::BTreeSet<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Object(props)) = m.get("properties") {
                        out.extend(props.keys().cloned());
                    }
                    m.values().for_each(|x| schema_keys(x, out));
                }
                Value::Array(a) => a.iter().for_each(|x| schema_keys(x, out)),
                _ => {}
            }
        }
        fn yaml_keys(n: &Node, out: &mut std::collections::BTreeSet<String>) {
            match &n.kind {
                NodeKind::Mapping(es) => {
                    for e in es {
                        out.extend(e.key.as_str().map(str::to_owned));
                        yaml_keys(&e.value, out);
                    }
                }
                NodeKind::Sequence(items) => items.iter().for_each(|i| yaml_keys(i, out)),
                _ => {}
            }
        }
        let mut in_schema = std::collections::BTreeSet::new();
        schema_keys(config_schema(), &mut in_schema);
        let parsed = parse_file(VALID);
        let mut in_example = std::collections::BTreeSet::new();
        for d in &parsed.documents {
            if let Some(r) = &d.root {
                yaml_keys(r, &mut in_example);
            }
        }
        assert_eq!(in_schema, in_example);
        assert_eq!(load_config(VALID).1, vec![]);
    }

    /// Half-typed files (every prefix of a valid one) never panic and keep what is valid.
    #[test]
    fn catalog_config_every_prefix_loads() {
        for end in (0..=VALID.len()).filter(|&i| VALID.is_char_boundary(i)) {
            let (c, _) = load_config(&VALID[..end]);
            if end > VALID.find("policyKinds").unwrap_or(0) {
                assert_eq!(c.default_namespace.as_deref(), Some("apps"), "prefix {end}");
            }
        }
    }

    #[test]
    fn catalog_config_empty_file() {
        assert_eq!(load_config(""), (Config::default(), vec![]));
        assert_eq!(load_config("# nothing\n"), (Config::default(), vec![]));
    }

    #[test]
    fn catalog_config_unknown_key_did_you_mean() {
        let text = "defaultNamespace: a\npolicyKind:\n  - {group: g, kind: K}\n";
        let (c, errors) = load_config(text);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].span, Span::new(20, 30));
        assert_eq!(at(text, &errors[0]), "policyKind");
        assert_eq!(errors[0].message, "unknown key `policyKind` in `config`; did you mean `policyKinds`?");
        // The valid part is kept.
        assert_eq!(c.default_namespace.as_deref(), Some("a"));
        assert!(c.policy_kinds.is_empty());

        let text = "policyKinds:\n  - group: g\n    kind: K\n    crossNamespaces: true\n    colour: red\n";
        let (c, errors) = load_config(text);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "crossNamespaces");
        assert_eq!(
            errors[0].message,
            "unknown key `crossNamespaces` in `policyKinds[0]`; did you mean `crossNamespace`?"
        );
        assert_eq!(at(text, &errors[1]), "colour");
        assert!(errors[1].message.starts_with("unknown key `colour` in `policyKinds[0]` (known keys: "));
        assert_eq!(c.policy_kinds.len(), 1, "the entry survives its unknown keys");
    }

    #[test]
    fn catalog_config_wrong_type() {
        let text =
            "exclude: charts/**\npolicyKinds:\n  - group: g\n    kind: K\n    maxRefs: many\n    crossNamespace: [x]\n";
        let (c, errors) = load_config(text);
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "charts/**");
        assert_eq!(errors[0].message, "`exclude` must be a list, found a string");
        assert_eq!(at(text, &errors[1]), "many");
        assert_eq!(errors[1].message, "`policyKinds[0].maxRefs` must be an integer, found a string");
        assert_eq!(at(text, &errors[2]), "[x]");
        assert_eq!(errors[2].message, "`policyKinds[0].crossNamespace` must be a boolean, found a list");
        assert!(c.exclude.is_empty());
        assert_eq!(c.policy_kinds[0].max_refs, None);
        assert_eq!(c.policy_kinds[0].cross_namespace, None);

        // A quoted number is a string; zero refs is below the minimum.
        let text = "policyKinds:\n  - {group: g, kind: K, maxRefs: \"3\"}\n  - {group: g, kind: L, maxRefs: 0}\n";
        let (_, errors) = load_config(text);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "\"3\"");
        assert_eq!(at(text, &errors[1]), "0");
        assert_eq!(errors[1].message, "`policyKinds[1].maxRefs` must be at least 1");

        // effectiveTarget: one mapping or a list of them.
        let text = "policyKinds:\n  - {group: g, kind: K, effectiveTarget: Service}\n";
        let (_, errors) = load_config(text);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "Service");
        assert_eq!(errors[0].message, "`policyKinds[0].effectiveTarget` must be a list or a mapping, found a string");
    }

    #[test]
    fn catalog_config_bad_enum() {
        let text = "policyKinds:\n  - group: g\n    kind: K\n    class: inherited\n    strategies: [AtomicDefaults, Merge]\n    stanza: plural\n    refs: [targetRef, targetRefz]\n";
        let (c, errors) = load_config(text);
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "inherited");
        assert_eq!(
            errors[0].message,
            "`policyKinds[0].class` must be one of `Direct`, `Inherited`, found `inherited`; did you mean `Inherited`?"
        );
        assert_eq!(at(text, &errors[1]), "Merge");
        assert!(errors[1].message.starts_with("`policyKinds[0].strategies[1]` must be one of `None`, "));
        assert_eq!(at(text, &errors[2]), "plural");
        assert!(errors[2].message.ends_with("found `plural`; did you mean `Plural`?"), "{}", errors[2].message);
        assert_eq!(at(text, &errors[3]), "targetRefz");
        assert!(errors[3].message.ends_with("did you mean `targetRefs`?"), "{}", errors[3].message);
        let k = &c.policy_kinds[0];
        assert_eq!(k.class, None);
        assert_eq!(k.strategies, Some(vec![Strategy::AtomicDefaults]));
        assert_eq!(k.stanza, None);
        assert_eq!(k.refs, Some(vec![RefField::TargetRef]));
    }

    #[test]
    fn catalog_config_missing_required_and_bad_formats() {
        let text = "exclude: [\"a/[b\", ok/**]\npolicyKinds:\n  - group: g\n    class: Direct\n  - group: g\n    kind: K\n    shadows: [{field: retryOn, targetField: /spec/x}]\n  - {group: g, kind: K}\n";
        let (c, errors) = load_config(text);
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert_eq!(at(text, &errors[0]), "\"a/[b\"");
        assert!(errors[0].message.starts_with("`exclude[0]` is not a valid glob"));
        assert_eq!(at(text, &errors[1]), "group");
        assert_eq!(errors[1].message, "`policyKinds[0]` is missing the required key `kind`");
        assert_eq!(at(text, &errors[2]), "retryOn");
        assert_eq!(
            errors[2].message,
            "`policyKinds[1].shadows[0].field` must be a JSON pointer starting with `/`, e.g. `/retryOn`"
        );
        assert_eq!(at(text, &errors[3]), "K");
        assert_eq!(errors[3].message, "`K.g` is declared twice; this later entry is used");
        assert_eq!(c.exclude, vec!["ok/**"]);
        // The entry without `kind` is dropped; the others stay.
        assert_eq!(c.policy_kinds.len(), 2);
        assert_eq!(c.policy_kinds[0].shadows, Some(vec![]));
    }

    #[test]
    fn catalog_config_syntax_error_keeps_what_parsed() {
        let text = "defaultNamespace: a\nexclude: [x\n";
        let (c, errors) = load_config(text);
        assert!(!errors.is_empty());
        assert!(errors[0].message.starts_with("YAML syntax"), "{errors:?}");
        assert_eq!(c.default_namespace.as_deref(), Some("a"));
    }

    #[test]
    fn catalog_config_exclude_matcher() {
        let c = Config {
            exclude: vec!["charts/**".into(), "**/*.tmpl.yaml".into(), "vendor/".into(), "*.bak".into()],
            base_dir: Some(PathBuf::from("/repo/deploy")),
            ..Config::default()
        };
        let m = c.exclude_matcher();
        assert!(m.is_excluded(Path::new("/repo/deploy/charts/a/b.yaml")));
        assert!(m.is_excluded(Path::new("/repo/deploy/charts")));
        assert!(m.is_excluded(Path::new("/repo/deploy/x/y/z.tmpl.yaml")));
        assert!(m.is_excluded(Path::new("/repo/deploy/vendor/k.yaml")));
        assert!(m.is_excluded(Path::new("/repo/deploy/a.bak")));
        assert!(!m.is_excluded(Path::new("/repo/deploy/sub/a.bak")), "`*` does not cross `/`");
        assert!(!m.is_excluded(Path::new("/repo/deploy/apps/charts.yaml")));
        assert!(!m.is_excluded(Path::new("/repo/charts/a.yaml")), "outside the base");

        let rel = Config { exclude: vec!["charts/**".into()], ..Config::default() }.exclude_matcher();
        assert!(rel.is_excluded(Path::new("charts/x.yaml")));
        assert!(rel.is_excluded(Path::new("./charts/x.yaml")));
    }

    #[test]
    fn catalog_config_did_you_mean() {
        let keys = ["defaultNamespace", "exclude", "policyKinds"];
        assert_eq!(did_you_mean("exlude", keys.iter().copied()), Some("exclude"));
        assert_eq!(did_you_mean("DefaultNamespace", keys.iter().copied()), Some("defaultNamespace"));
        assert_eq!(did_you_mean("colour", keys.iter().copied()), None);
    }
}
