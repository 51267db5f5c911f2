//! The config file: loading, positioned errors, the schema, excludes.

use super::validate::did_you_mean;
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
    assert_eq!(errors[0].message, "unknown key `crossNamespaces` in `policyKinds[0]`; did you mean `crossNamespace`?");
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
