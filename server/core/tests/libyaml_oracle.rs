//! The parser against libyaml (docs/semantics.md §4.1): generated manifests and thousands of mutations of
//! them, each loaded by libyaml's own loader and parsed by policylens. Where libyaml loads a
//! text, policylens reads the same documents with the same scalar values; where libyaml
//! rejects it, policylens reports `yaml-syntax`. `oracle/mod.rs` holds the comparison.
//!
//! The same comparison over files of your own (not part of `cargo test`):
//! `POLICYLENS_ORACLE_FILES=LIST cargo test --release -p policylens-core --test libyaml_oracle
//! -- --ignored --nocapture`, LIST holding one path a line.

mod oracle;

use oracle::{Verdict, compare};

/// A CRD's shapes: multi-line double-quoted scalars continued at their key's column, at the
/// column of their item's `- ` and deeper, a literal block with a blank line, flow mappings.
const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    note: "a long note that goes on
      and on"
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: |-
          Widget is a made-up kind.

          It has two paragraphs.
        properties:
          size:
            type: integer
            x-kubernetes-validations:
            - message: "size must be
                small"
              rule: "self <=
              10"
            - rule: "self >= 0 &&
            self != 3"
          tags:
            items: {type: string}
            type: array
"#;

/// A workload's shapes: a flow sequence over several lines closed at its key's column, flow
/// items, single quotes, a folded block, comments, an anchor and its alias.
const DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  labels: &labels
    app: web
spec:
  selector:
    matchLabels: *labels
  template:
    spec:
      containers:
      - name: web
        image: 'registry.example/web:1.2'
        args: [
          "--port=8080",
          "--verbose"
        ]
        command: ["/bin/sh", "-c"]
        env:
        - {name: A, value: "1"}
        - name: B
          value: >
            folded
            text

            kept
"#;

/// Routes and Services: markers, `...`, empty values and items, plain scalars over lines.
const ROUTES: &str = r#"# leading comment
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
spec:
  parentRefs:
  - name: edge
    sectionName: https
  hostnames:
  - shop.example.com
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /
    backendRefs:
    - name: web
      port: 80
    filters: []
  - backendRefs:
    -
      name: api
      port: 8080
...
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports:
  - port: 80
    targetPort: http
  description: a plain scalar
    continued on the next line

    and one more
  empty:
  nulls: ~
"#;

/// A Flux HelmRelease's values as GitOps repositories write them: one anchor name defined again
/// for each list item, every alias after a definition meaning that one. libyaml's loader
/// rejects the second `&name`; go-yaml v3 (kustomize, Flux) accepts it, and decides
/// (docs/semantics.md §4.1).
const REDEFINED: &str = r#"apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: &app cloudflare-dns
spec:
  values:
    fullnameOverride: *app
    env:
      - name: &name CF_API_TOKEN
        valueFrom:
          secretKeyRef:
            name: &secret cloudflare-dns-secret
            key: *name
      - name: &name CF_ZONE_ID
        valueFrom:
          secretKeyRef: {name: *secret, key: *name}
    sources: &sources [crd, gateway-httproute]
    extraArgs: *sources
"#;

/// An Istio ServiceEntry as its validation inputs write one: IPv6 addresses in flow collections,
/// ending in `::` before a `,`, `]` or `}` (shaped like istio/istio `86c9f01`
/// `pkg/config/validation/testdata/crds/serviceentry-valid.yaml`). libyaml rejects the `:`
/// there; go-yaml keeps it in the scalar, and decides (docs/semantics.md §4.1).
const FLOW_COLONS: &str = r#"apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata:
  name: external-db
  namespace: mesh
spec:
  hosts: [db.example.com]
  addresses: [10.0.0.1, 2001:db8::, fe80::]
  ports:
  - {number: 5432, name: tcp, protocol: TCP}
  endpoints:
  - address: fd00::1
    labels: {zone: a:b, pool: b::}
  resolution: STATIC
"#;

const BASES: [&str; 5] = [CRD, DEPLOYMENT, ROUTES, REDEFINED, FLOW_COLONS];

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Every line moved to every column from 0 to 12, one line at a time: indentation shifts,
/// quoted and plain continuations and closing brackets at every column.
fn reindented(text: &str, out: &mut Vec<String>) {
    let ls = lines(text);
    for i in 0..ls.len() {
        for col in 0..=12 {
            let mut t = String::with_capacity(text.len() + 12);
            for (j, l) in ls.iter().enumerate() {
                if j == i {
                    t.extend(std::iter::repeat_n(' ', col));
                    t.push_str(l.trim_start_matches(' '));
                } else {
                    t.push_str(l);
                }
            }
            out.push(t);
        }
    }
}

/// Comments after each line and on lines of their own; tabs in the indentation, after a `:`
/// and at a line's end; line by line.
fn commented_and_tabbed(text: &str, out: &mut Vec<String>) {
    let ls = lines(text);
    let each = |out: &mut Vec<String>, f: &dyn Fn(&str) -> String| {
        for i in 0..ls.len() {
            let t: String = ls.iter().enumerate().map(|(j, l)| if j == i { f(l) } else { (*l).to_owned() }).collect();
            out.push(t);
        }
    };
    let body = |l: &str| l.trim_end_matches('\n').to_owned();
    each(out, &|l| format!("{} # note\n", body(l)));
    each(out, &|l| format!("{}#note\n", body(l)));
    each(out, &|l| format!("# note\n{l}"));
    each(out, &|l| format!("    # note\n{l}"));
    each(out, &|l| format!("\n{l}"));
    each(out, &|l| format!("{}\t\n", body(l)));
    each(out, &|l| l.replacen(": ", ":\t", 1));
    each(out, &|l| l.replacen(": ", ": \t", 1));
    each(out, &|l| if l.starts_with(' ') { l.replacen(' ', "\t", 1) } else { format!("\t{l}") });
}

/// The whole text with other line breaks and byte-order marks.
fn rebroken(text: &str, out: &mut Vec<String>) {
    out.push(text.replace('\n', "\r\n"));
    out.push(text.replace('\n', "\r"));
    out.push(format!("\u{feff}{text}"));
    out.push(text.replace("---\n", "---\n\u{feff}"));
    out.push(format!("\u{feff}{}", text.replace('\n', "\r\n")));
    out.push(text.trim_end().to_owned());
    out.push(format!("{text}...\n"));
    out.push(format!("...\n{text}"));
    out.push(format!("{text}...\n# end\n"));
}

/// Each character deleted, and characters that matter to YAML inserted every few bytes: texts
/// libyaml mostly rejects.
fn broken(text: &str, out: &mut Vec<String>) {
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    for &i in &bounds {
        let mut t = text.to_owned();
        t.remove(i);
        out.push(t);
    }
    for piece in
        ["\"", "'", "[", "]", "{", "}", ":", ": ", "- ", "#", "|", ">", "&a ", "*a", "!", "%", "@", "`", "?", ","]
    {
        for &i in bounds.iter().step_by(7) {
            let mut t = text.to_owned();
            t.insert_str(i, piece);
            out.push(t);
        }
    }
}

fn cases() -> Vec<String> {
    let mut out = Vec::new();
    for base in BASES {
        out.push(base.to_owned());
        reindented(base, &mut out);
        commented_and_tabbed(base, &mut out);
        rebroken(base, &mut out);
        broken(base, &mut out);
    }
    // All three in one file, and each after another's end marker.
    out.push(BASES.join("---\n"));
    out.push(BASES.join("...\n"));
    out
}

#[test]
fn every_text_libyaml_loads_reads_the_same_and_every_text_it_rejects_is_an_error() {
    let cases = cases();
    let (mut load, mut reject) = (0, 0);
    let mut failures = Vec::new();
    for text in &cases {
        match compare(text) {
            Ok(Verdict::BothLoad) => load += 1,
            Ok(Verdict::BothReject) => reject += 1,
            Ok(Verdict::Template) => {}
            Err(why) => failures.push(format!("{why}\n{text:?}")),
        }
    }
    eprintln!("{} cases: {load} loaded by both, {reject} rejected by both, {} disagree", cases.len(), failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} disagree; the first:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
    // The generator makes both kinds in numbers (the test could not pass on one kind alone).
    assert!(load > 1000 && reject > 1000, "{load} loaded, {reject} rejected");
}

/// The shapes of issue 30, one by one, with the values libyaml gives.
#[test]
fn the_shapes_saphyr_rejected_load_with_libyaml_values() {
    use oracle::{Tree, libyaml};
    let s = |v: &str, plain: bool| Tree::Scalar(v.to_owned(), plain);
    for text in [
        "- message: \"one\n  two\"\n",
        "- message: \"one\ntwo\"\n",
        "k:\n  message: \"one\n  two\"\n",
        "k:\n  m: \"one\n two\"\n",
    ] {
        assert_eq!(compare(text), Ok(Verdict::BothLoad), "{text:?}");
        let docs = libyaml(text).expect("loads");
        let value = match &docs[0] {
            Tree::Seq(items) => match &items[0] {
                Tree::Map(m) => m[0].1.clone(),
                other => other.clone(),
            },
            Tree::Map(m) => match &m[0].1 {
                Tree::Map(m) => m[0].1.clone(),
                other => other.clone(),
            },
            other => other.clone(),
        };
        assert_eq!(value, s("one two", false), "{text:?}");
    }
    // libyaml checks no indentation inside flow collections: `]` may close at any column.
    for col in 0..6 {
        let text = format!("spec:\n  args: [\n    \"--a\",\n    b\n{}]\n", " ".repeat(col));
        assert_eq!(compare(&text), Ok(Verdict::BothLoad), "{text:?}");
        let docs = libyaml(&text).expect("loads");
        let args = Tree::Seq(vec![s("--a", false), s("b", true)]);
        assert_eq!(docs, [Tree::Map(vec![(s("spec", true), Tree::Map(vec![(s("args", true), args)]))])]);
    }
}

/// An anchor defined again: libyaml rejects it, go-yaml v3 loads it (the later definition
/// wins), and policylens reads it as go-yaml does, with no `yaml-syntax` error; an alias to an
/// anchor defined nowhere is still one, naming that anchor.
#[test]
fn a_redefined_anchor_loads_as_go_yaml_loads_it() {
    use oracle::{Tree, go_yaml, libyaml};
    use policylens_core::syntax::parse_file;
    let err = libyaml(REDEFINED).expect_err("libyaml's loader rejects a second `&name`");
    assert!(err.contains("found duplicate anchor"), "{err}");
    let docs = go_yaml(REDEFINED).expect("go-yaml loads it");
    assert_eq!(compare(REDEFINED), Ok(Verdict::BothLoad));
    let parsed = parse_file(REDEFINED);
    assert_eq!(oracle::policylens(&parsed), Ok(docs.clone()));
    // The second item's names: the later `&name` defines `CF_ZONE_ID`; aliases stay aliases.
    let s = |v: &str| Tree::Scalar(v.to_owned(), true);
    let Tree::Map(top) = &docs[0] else { panic!("{docs:?}") };
    let Tree::Map(spec) = &top[3].1 else { panic!("{top:?}") };
    let Tree::Map(values) = &spec[0].1 else { panic!("{spec:?}") };
    let Tree::Seq(env) = &values[1].1 else { panic!("{values:?}") };
    let Tree::Map(second) = &env[1] else { panic!("{env:?}") };
    assert_eq!(second[0], (s("name"), s("CF_ZONE_ID")));
    let Tree::Map(from) = &second[1].1 else { panic!("{second:?}") };
    assert_eq!(from[0].1, Tree::Map(vec![(s("name"), Tree::Alias), (s("key"), Tree::Alias)]));

    let undefined = "a: &one 1\nb: *two\n";
    let parsed = parse_file(undefined);
    let errors: Vec<&str> =
        parsed.documents.iter().filter_map(|d| d.error.as_ref()).map(|e| e.message.as_str()).collect();
    assert_eq!(errors, ["an alias (`*two`) to an anchor (`&two`) defined nowhere before it"]);
    assert_eq!(compare(undefined), Ok(Verdict::BothReject));
}

/// The ServiceEntry's addresses read as go-yaml reads them: `2001:db8::` and `fe80::` are
/// scalars, with no `yaml-syntax` error, though libyaml rejects the text.
#[test]
fn a_colon_before_a_flow_indicator_stays_in_its_scalar_as_go_yaml_reads_it() {
    use oracle::{Tree, go_yaml, libyaml};
    use policylens_core::syntax::parse_file;
    let err = libyaml(FLOW_COLONS).expect_err("libyaml rejects `::]`");
    assert!(err.contains("found unexpected ':'"), "{err}");
    assert_eq!(compare(FLOW_COLONS), Ok(Verdict::BothLoad));
    let docs = go_yaml(FLOW_COLONS).expect("go-yaml loads it");
    assert_eq!(oracle::policylens(&parse_file(FLOW_COLONS)), Ok(docs.clone()));
    let s = |v: &str| Tree::Scalar(v.to_owned(), true);
    let Tree::Map(top) = &docs[0] else { panic!("{docs:?}") };
    let Tree::Map(spec) = &top[3].1 else { panic!("{top:?}") };
    assert_eq!(spec[1], (s("addresses"), Tree::Seq(vec![s("10.0.0.1"), s("2001:db8::"), s("fe80::")])));
    let Tree::Seq(endpoints) = &spec[3].1 else { panic!("{spec:?}") };
    let Tree::Map(endpoint) = &endpoints[0] else { panic!("{endpoints:?}") };
    assert_eq!(endpoint[1], (s("labels"), Tree::Map(vec![(s("zone"), s("a:b")), (s("pool"), s("b::"))])));
    // A `:` before `?` ends go-yaml's scalar too, and what follows is no entry: still an error.
    for broken in ["a: [b:?c]\n", "a: [b::, c:?]\n"] {
        assert_eq!(compare(broken), Ok(Verdict::BothReject), "{broken:?}");
    }
}

#[test]
#[ignore]
fn files_listed_in_policylens_oracle_files() {
    let Ok(list) = std::env::var("POLICYLENS_ORACLE_FILES") else {
        eprintln!("set POLICYLENS_ORACLE_FILES to a file listing one path a line");
        return;
    };
    let list = std::fs::read_to_string(list).expect("the list");
    let (mut files, mut unreadable, mut load, mut reject, mut template) = (0, 0, 0, 0, 0);
    let mut differ = Vec::new();
    for path in list.lines().filter(|l| !l.is_empty()) {
        let Ok(text) = std::fs::read_to_string(path) else {
            unreadable += 1;
            continue;
        };
        if text.contains('\0') {
            unreadable += 1;
            continue;
        }
        files += 1;
        match compare(&text) {
            Ok(Verdict::BothLoad) => load += 1,
            Ok(Verdict::BothReject) => reject += 1,
            Ok(Verdict::Template) => template += 1,
            Err(why) => differ.push(format!("{path}: {}", why.lines().next().unwrap_or_default())),
        }
    }
    for d in &differ {
        eprintln!("{d}");
    }
    eprintln!(
        "{files} files ({unreadable} unreadable or binary): libyaml loads and policylens reads the same {load}; both reject {reject}; templates libyaml rejects, read around their actions {template}; disagree {}",
        differ.len()
    );
}
