//! Properties of the whole pipeline (parse → model → topology → diagnostics).

use std::collections::BTreeMap;

use policylens_core::workspace::Workspace;
use proptest::prelude::*;

const GATEWAYS: &str = r#"apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - name: https
    port: 443
    protocol: HTTPS
    allowedRoutes: {namespaces: {from: All}}
"#;

const ROUTES: &str = r#"apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: store, namespace: shop}
spec:
  parentRefs: [{name: edge, namespace: infra, sectionName: https}]
  rules:
  - name: pay
    backendRefs: [{name: checkout, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: checkout, namespace: shop}
spec:
  ports: [{name: http, port: 80}]
"#;

const POLICIES: &str = "apiVersion: gateway.networking.k8s.io/v1\r\nkind: BackendTLSPolicy\r\nmetadata:\r\n  name: tls # é ✓\r\n  namespace: shop\r\nspec:\r\n  targetRefs:\r\n  - group: \"\"\r\n    kind: Service\r\n    name: checkout\r\n    sectionName: http\r\n---\r\napiVersion: gateway.envoyproxy.io/v1alpha1\r\nkind: BackendTrafficPolicy\r\nmetadata: {name: btp, namespace: shop}\r\nspec:\r\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: store, sectionName: pay}]\r\n  timeout: {http: {requestTimeout: 5s}}\r\n";

const SOURCES: [&str; 3] = [GATEWAYS, ROUTES, POLICIES];
const PATHS: [&str; 4] = ["a.yaml", "b.yaml", "c/d.yaml", "c/e.yml"];

/// A text: one of the sources, possibly mutated at a few places with YAML-significant
/// characters.
fn text() -> impl Strategy<Value = String> {
    let edit = (
        any::<prop::sample::Index>(),
        0usize..3,
        prop::sample::select(vec![
            ":", "-", " ", "\n", "{", "}", "[", "]", "\"", "'", "#", "*", "&", "!", "|", ">", "\t", "é", "---\n",
            "\r\n", "{{ .x }}",
        ]),
    );
    (0usize..SOURCES.len(), prop::collection::vec(edit, 0..4)).prop_map(|(i, edits)| {
        let mut s = SOURCES[i].to_owned();
        for (at, op, piece) in edits {
            let mut pos = at.index(s.len() + 1);
            while !s.is_char_boundary(pos) {
                pos -= 1;
            }
            match op {
                0 => s.insert_str(pos, piece),
                1 => {
                    let mut end = (pos + piece.len()).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    s.replace_range(pos..end, "");
                }
                _ => {
                    let mut end = (pos + 1).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    s.replace_range(pos..end, piece);
                }
            }
        }
        s
    })
}

#[derive(Clone, Debug)]
enum Op {
    Set(usize, String),
    Remove(usize),
    Snapshot,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..PATHS.len(), text()).prop_map(|(p, t)| Op::Set(p, t)),
        1 => (0..PATHS.len()).prop_map(Op::Remove),
        1 => Just(Op::Snapshot),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any sequence of edits ends in the diagnostics a fresh index of the final files gives,
    /// and no step panics.
    #[test]
    fn incremental_equals_fresh(ops in prop::collection::vec(op(), 1..25)) {
        let mut ws = Workspace::new();
        let mut finals: BTreeMap<usize, String> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Set(p, t) => {
                    ws.set_file(PATHS[p], t.clone());
                    finals.insert(p, t);
                }
                Op::Remove(p) => {
                    ws.remove_file(PATHS[p]);
                    finals.remove(&p);
                }
                Op::Snapshot => {
                    let s = ws.snapshot();
                    let _ = s.diagnostics();
                }
            }
        }
        let mut fresh = Workspace::new();
        for (p, t) in &finals {
            fresh.set_file(PATHS[*p], t.clone());
        }
        let got = ws.snapshot();
        let want = fresh.snapshot();
        prop_assert_eq!(got.diagnostics(), want.diagnostics());
        prop_assert_eq!(got.world().object_count(), want.world().object_count());
    }
}
