//! The config file reader (`.policylens.yaml`): its errors' spans, the `exclude` and `worlds`
//! matchers on a few paths, and the config applied to a small workspace of policies (kinds from
//! the config, diagnostic severities, worlds), analysed whole.
#![no_main]

use std::cell::RefCell;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use policylens_core::catalog::load_config;
use policylens_core::workspace::Workspace;

const CONFIG: &str = ".policylens.yaml";

const MANIFESTS: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: infra}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: store, namespace: shop}
spec:
  parentRefs: [{name: edge, namespace: infra}]
  rules: [{name: pay, backendRefs: [{name: checkout, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: checkout, namespace: shop}
spec: {ports: [{name: http, port: 80}]}
";

const POLICIES: &str = "apiVersion: example.com/v1
kind: RetryPolicy
metadata: {name: retry, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}]
  defaults: {retry: {attempts: 3}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: btp, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: edge}]
  timeout: {http: {requestTimeout: 5s}}
";

fuzz_target!(|data: &[u8]| {
    if data.len() > policylens_fuzz::MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (config, errors) = load_config(text);
    for e in &errors {
        policylens_fuzz::check_span(text, e.span, "config error");
    }
    let excludes = config.exclude_matcher();
    for p in ["a.yaml", "envs/prod/a.yaml", "./x/y/z.yml", "/abs/path.yaml", "vendor/../b.yaml"] {
        let _ = excludes.is_excluded(Path::new(p));
    }

    // The manifests are parsed once; only the config changes between runs, as when a user
    // edits the config of an open workspace.
    WORKSPACE.with_borrow_mut(|ws| {
        ws.set_config(Some(CONFIG), text);
        let snap = ws.snapshot();
        policylens_fuzz::analyse(&snap, 16);
    });
});

thread_local! {
    static WORKSPACE: RefCell<Workspace> = RefCell::new({
        let mut ws = Workspace::new();
        ws.set_file("base/manifests.yaml", MANIFESTS);
        ws.set_file("envs/prod/policies.yaml", POLICIES);
        ws.set_file("envs/dev/policies.yaml", POLICIES);
        ws
    });
}
