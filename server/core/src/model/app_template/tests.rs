use crate::model::{Body, Object, extract_objects};
use crate::syntax::parse_file;

fn objects(text: &str) -> Vec<Object> {
    extract_objects(&parse_file(text), text)
}

/// `Kind name` of every rendered object, in order.
fn rendered(text: &str) -> Vec<String> {
    let objs = objects(text);
    let n = objs[0].release().map_or(0, |r| r.rendered) as usize;
    assert_eq!(objs.len(), n + 1, "rendered objects follow their release");
    objs[1..].iter().map(|o| format!("{} {}", o.kind(), o.name.value)).collect()
}

fn release(header: &str, values: &str) -> String {
    let values: String = values.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: echo\n  namespace: default\nspec:\n{header}  values:\n{values}"
    )
}

const V4: &str = "  chart:\n    spec:\n      chart: app-template\n      version: 4.1.1\n";
const V3: &str = "  chart:\n    spec:\n      chart: app-template\n      version: 3.7.3\n";

#[test]
fn one_item_of_a_kind_is_named_for_the_release() {
    let text = release(
        V4,
        "service:\n  app:\n    ports:\n      http:\n        port: 80\nroute:\n  app:\n    parentRefs: [{name: gw, namespace: net}]\n",
    );
    assert_eq!(rendered(&text), ["Service echo", "HTTPRoute echo"]);
}

#[test]
fn v4_naming_rules() {
    let values = "\
global:
  alwaysAppendIdentifierToResourceName: true
fullnameOverride: echo-full
service:
  echo-full:
    ports: {http: {port: 80}}
  metrics:
    prefix: internal
    ports: {http: {port: 90}}
  off:
    enabled: false
    ports: {http: {port: 1}}
route:
  app:
    forceRename: Echo-Public
  admin:
    suffix: admin
  web:
    suffix: v2
";
    assert_eq!(
        rendered(&release(V4, values)),
        [
            // The key ends the full name already: nothing appended.
            "Service echo-full",
            "Service internal-echo-full-metrics",
            "HTTPRoute echo-full-admin",
            "HTTPRoute echo-public",
            "HTTPRoute echo-full-web-v2",
        ]
    );
}

#[test]
fn v3_naming_rules() {
    let values = "\
service:
  main:
    primary: true
    ports: {http: {port: 80}}
  api:
    ports: {http: {port: 8080}}
route:
  main:
    nameOverride: web
    parentRefs: [{name: gw, namespace: net}]
    rules:
      - backendRefs: [{name: api}, {name: elsewhere, port: 1}]
";
    let text = release(V3, values);
    assert_eq!(rendered(&text), ["Service echo-api", "Service echo", "HTTPRoute echo-web"]);
    let objs = objects(&text);
    let Body::Route(r) = &objs[3].body else { panic!("route") };
    let refs: Vec<(String, Option<i64>)> = r.rules[0]
        .backend_refs
        .iter()
        .map(|b| (b.name.as_ref().map(|n| n.value.to_string()).unwrap_or_default(), b.port.as_ref().map(|p| p.value)))
        .collect();
    // 3.x reads `name` as a Service key first: `api` is the Service rendered from it.
    assert_eq!(refs, [("echo-api".to_owned(), Some(8080)), ("elsewhere".to_owned(), Some(1))]);
}

#[test]
fn target_namespace_names_the_release_and_fixes_its_namespace() {
    let text = release(&format!("  targetNamespace: media\n{V4}"), "service:\n  app:\n    ports: {http: {port: 80}}\n");
    let objs = objects(&text);
    assert_eq!(objs[1].name.value, "media-echo");
    assert_eq!(objs[1].namespace.as_ref().map(|n| n.value.as_str()), Some("media"));
}

#[test]
fn a_route_without_rules_goes_to_the_only_service_at_its_primary_port() {
    let values = "\
service:
  app:
    ports:
      metrics: {port: 9000}
      http: {port: &port 8080, primary: true}
route:
  app:
    hostnames: [\"{{ .Release.Name }}.example.com\", \"x.${DOMAIN}\"]
    parentRefs: [{name: gw, namespace: net, sectionName: https}]
  named:
    rules:
      - backendRefs: [{identifier: app, port: metrics}, {port: *port}, {identifier: nope}]
";
    let text = release(V4, values);
    let objs = objects(&text);
    let Body::Route(r) = &objs[2].body else { panic!("route") };
    assert_eq!(objs[2].name.value, "echo-app");
    let hosts: Vec<&str> = r.hostnames.iter().map(|h| h.value.as_str()).collect();
    assert_eq!(hosts, ["echo.example.com", "x.${DOMAIN}"]);
    assert_eq!(r.parent_refs[0].section_name.as_ref().map(|s| s.value.as_str()), Some("https"));
    let b = &r.rules[0].backend_refs[0];
    assert_eq!(
        (b.name.as_ref().map(|n| n.value.as_str()), b.port.as_ref().map(|p| p.value)),
        (Some("echo"), Some(8080))
    );
    let Body::Route(named) = &objs[3].body else { panic!("route") };
    let refs: Vec<(&str, Option<i64>)> = named.rules[0]
        .backend_refs
        .iter()
        .map(|b| (b.name.as_ref().map_or("", |n| n.value.as_str()), b.port.as_ref().map(|p| p.value)))
        .collect();
    // A port by name (5.x), an alias, and an identifier no Service has (shown as written).
    assert_eq!(refs, [("echo", Some(9000)), ("echo", Some(8080)), ("nope", None)]);
}

#[test]
fn other_charts_and_old_versions_render_nothing() {
    let other = "  chart:\n    spec:\n      chart: podinfo\n";
    assert_eq!(rendered(&release(other, "service:\n  app:\n    ports: {http: {port: 80}}\n")), Vec::<String>::new());
    let v2 = "  chart:\n    spec:\n      chart: app-template\n      version: 2.6.0\n";
    assert_eq!(rendered(&release(v2, "service:\n  app:\n    ports: {http: {port: 80}}\n")), Vec::<String>::new());
}

#[test]
fn a_chart_ref_written_with_aliases_is_read() {
    let text = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: &app opencode\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: *app\n  values:\n    service:\n      app:\n        ports: {http: {port: 80}}\n";
    let objs = objects(text);
    assert_eq!(
        objs[0].release().map(|r| r.chart.clone()),
        Some(crate::model::ChartRef::Source { kind: "OCIRepository".into(), name: "opencode".into(), namespace: None })
    );
    assert_eq!(rendered(text), ["Service opencode"]);
}
