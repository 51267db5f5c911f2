//! Objects the app-template chart renders from a release's values (`model::app_template`):
//! hover lands on the values, rename is refused where the chart computes the name and edits a
//! `forceRename` that spells it.

use super::{assert_lines, fixture, show};
use crate::analysis::{hover, rename};

const GATEWAY: &str = r#"//- gateway.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: net
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    protocol: HTTP
    port: 80
    allowedRoutes:
      namespaces:
        from: All
//- policy.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: slow
  namespace: media
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: $0sonarr
  timeout:
    http:
      requestTimeout: 5m
"#;

fn release(route: &str) -> String {
    format!(
        r#"//- release.yaml
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: sonarr
  namespace: media
spec:
  chart:
    spec:
      chart: app-template
  values:
    service:
      app:
        ports:
          http:
            port: 8989
    route:
{route}"#
    )
}

const ROUTE: &str = "      app:\n        parentRefs:\n        - name: edge\n          namespace: net\n";

#[test]
fn hover_on_a_rendered_route_names_its_release_and_values() {
    let route = ROUTE.replace("      app:", "      a$0pp:");
    let src = format!("{GATEWAY}{}", release(&route)).replace("name: $0sonarr", "name: sonarr");
    let f = fixture(&src);
    let h = hover(&f.snap, &f.file, f.offset).expect("hover");
    let last = h.markdown.lines().rev().find(|l| !l.is_empty()).unwrap_or_default().to_owned();
    assert_lines(
        &format!("{}\n{last}", show(&f.snap, &f.file, h.span)),
        "release.yaml:17 \"app\"\nRendered by the app-template chart of HelmRelease `media/sonarr` from its values (`route.app`).",
    );
}

#[test]
fn a_rendered_name_is_renamed_only_where_it_is_spelled() {
    let src = format!("{GATEWAY}{}", release(ROUTE));
    let f = fixture(&src);
    assert_eq!(
        rename(&f.snap, &f.file, f.offset, "tv").err().as_deref(),
        Some(
            "HTTPRoute media/sonarr is not written in a file: rendered by the app-template chart of HelmRelease `media/sonarr` from its values (`route.app`). Its name is computed from the release name and the key; set `forceRename` in the values to choose it"
        )
    );
    let forced = ROUTE.replace("      app:\n", "      app:\n        forceRename: sonarr\n");
    let f = fixture(&format!("{GATEWAY}{}", release(&forced)));
    let edits: Vec<String> = rename(&f.snap, &f.file, f.offset, "tv")
        .expect("rename")
        .iter()
        .map(|e| format!("{} -> {}", show(&f.snap, &e.file, e.span), e.new_text))
        .collect();
    assert_lines(&edits.join("\n"), "policy.yaml:10 \"sonarr\" -> tv\nrelease.yaml:18 \"sonarr\" -> tv");
}
