//! Code lenses: `title -> locations` per object of the file.

use super::{assert_lines, fixture, show, with_base};
use crate::analysis::code_lenses;

fn check(src: &str, file: &str, expect: &str) {
    let f = fixture(src);
    let mut got = String::new();
    for l in code_lenses(&f.snap, file) {
        let locs: Vec<String> = l.locations.iter().map(|x| show(&f.snap, &x.file, x.span)).collect();
        got.push_str(&format!(
            "{} | {} -> [{}]\n",
            show(&f.snap, file, l.span).split(' ').next().unwrap_or(""),
            l.title,
            locs.join(", ")
        ));
    }
    assert_lines(&got, expect);
}

const POLICIES: &str = r#"//- policies.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: gw
  namespace: infra
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: edge}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: listener
  namespace: infra
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: edge, sectionName: https}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: checkout}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: dangling
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: nope}
"#;

#[test]
fn lens_on_targets_counts_policies_reaching_them() {
    // Inherited policies on the Gateway and on the listener the route attaches to reach the
    // route; a Service behind it counts what `explain --target` shows for it: the Gateway's
    // BackendTrafficPolicy in effect on the route that sends it traffic, its own
    // BackendTLSPolicy, not the listener's ClientTrafficPolicy (in effect at the listener only).
    check(
        &with_base(POLICIES),
        "shop.yaml",
        r#"
shop.yaml:1 | no policies affect this -> []
shop.yaml:6 | 2 policies affect this -> [policies.yaml:4 "gw", policies.yaml:22 "tls"]
shop.yaml:18 | 1 policy affects this -> [policies.yaml:4 "gw"]
shop.yaml:27 | 2 policies affect this -> [policies.yaml:4 "gw", policies.yaml:13 "listener"]
"#,
    );
    // The Gateway: its own policy and its listener's; the class above has none.
    check(
        &with_base(POLICIES),
        "infra.yaml",
        r#"
infra.yaml:1 | no policies affect this -> []
infra.yaml:8 | 2 policies affect this -> [policies.yaml:4 "gw", policies.yaml:13 "listener"]
infra.yaml:30 | no policies affect this -> []
"#,
    );
}

#[test]
fn lens_on_policies_says_what_status_says() {
    // The effective targets `status` lists as affected, by noun: Envoy Gateway's
    // BackendTrafficPolicy takes effect on routes and rules (on a Gateway, its reach is counted
    // as people count it: rules as their route, namespaces where several), ClientTrafficPolicy
    // on listeners, BackendTLSPolicy on each Service port; a policy whose target is missing is
    // not accepted.
    check(
        &with_base(POLICIES),
        "policies.yaml",
        r#"
policies.yaml:1 | affects 1 route -> [shop.yaml:30 "store"]
policies.yaml:10 | affects 1 listener -> [infra.yaml:22 "https"]
policies.yaml:19 | affects 2 ports -> [shop.yaml:13 "http", shop.yaml:15 "https"]
policies.yaml:28 | not accepted: TargetNotFound -> []
"#,
    );
    // The peek lists what the title counts, each once.
    let f = fixture(&with_base(POLICIES));
    for l in code_lenses(&f.snap, "policies.yaml") {
        let what = l.title.split(" · ").next().and_then(|t| t.split(" in ").next()).unwrap_or_default();
        let counted: usize = what.split([' ', ',']).filter_map(|w| w.parse::<usize>().ok()).sum();
        assert_eq!(l.locations.len(), counted, "{}", l.title);
    }
}

#[test]
fn lens_direct_policy_above_does_not_reach() {
    // A Direct policy on the Gateway does not affect the route below it.
    let src = with_base(
        r#"//- dns.yaml
apiVersion: kuadrant.io/v1
kind: DNSPolicy
metadata:
  name: dns
  namespace: infra
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: edge}
$0"#,
    );
    let f = fixture(&src);
    let titles: Vec<String> = code_lenses(&f.snap, "shop.yaml").into_iter().map(|l| l.title).collect();
    assert_eq!(titles[3], "no policies affect this");
    let titles: Vec<String> = code_lenses(&f.snap, "infra.yaml").into_iter().map(|l| l.title).collect();
    assert_eq!(titles[1], "1 policy affects this");
}
