//! Extraction tests: small inline YAML through the real parser, spans pinned exactly.

use super::*;
use crate::syntax::{Span, parse_file};

fn objects(text: &str) -> Vec<Object> {
    extract_objects(&parse_file(text), text)
}

fn one(text: &str) -> Object {
    let mut objs = objects(text);
    assert_eq!(objs.len(), 1, "expected one object in {text:?}: {objs:#?}");
    objs.remove(0)
}

/// The span of `needle` inside `context`, which must occur exactly once in `text`.
fn span_in(text: &str, context: &str, needle: &str) -> Span {
    let mut hits = text.match_indices(context);
    let (at, _) = hits.next().unwrap_or_else(|| panic!("{context:?} not in text"));
    assert!(hits.next().is_none(), "{context:?} occurs more than once");
    let off = context.find(needle).unwrap_or_else(|| panic!("{needle:?} not in {context:?}"));
    let start = (at + off) as u32;
    Span::new(start, start + needle.len() as u32)
}

/// The span of `needle`, which must occur exactly once in `text`.
fn span_of(text: &str, needle: &str) -> Span {
    span_in(text, needle, needle)
}

fn s(value: &str, span: Span) -> Option<Spanned<Str>> {
    Some(Spanned::new(value.into(), span))
}

fn sb(value: &str, span: Span) -> Option<Box<Spanned<Str>>> {
    s(value, span).map(Box::new)
}

fn strs(pairs: &[(&str, &str)]) -> Vec<(Str, Str)> {
    pairs.iter().map(|(k, v)| (Str::from(*k), Str::from(*v))).collect()
}

#[test]
fn gateway_listeners_and_allowed_routes() {
    let text = "\
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    port: 80
    protocol: HTTP
  - name: https
    port: 443
    protocol: HTTPS
    hostname: \"*.example.com\"
    allowedRoutes:
      namespaces:
        from: Selector
        selector:
          matchLabels: {team: shop}
          matchExpressions:
          - {key: env, operator: In, values: [prod, stage]}
      kinds:
      - kind: HTTPRoute
      - {group: gateway.networking.k8s.io, kind: GRPCRoute}
  - port: 8080
  - name: all
    allowedRoutes: {namespaces: {from: All}}
  - name: bogus
    allowedRoutes: {namespaces: {from: Everywhere}}
";
    let gw = one(text);
    assert_eq!(gw.group(), "gateway.networking.k8s.io");
    assert_eq!((gw.kind(), gw.kind_span), ("Gateway", span_of(text, "Gateway")));
    assert_eq!(gw.name, Spanned::new("gw".into(), span_in(text, "name: gw\n", "gw")));
    assert_eq!(gw.namespace, s("infra", span_of(text, "infra")));
    assert_eq!(gw.doc, 0);
    assert_eq!(gw.span.start, 0);
    let Body::Gateway(g) = &gw.body else { panic!("not a gateway: {:?}", gw.body) };
    assert_eq!(g.class_name, s("eg", span_in(text, "ClassName: eg", "eg")));
    let names: Vec<&str> = g.listeners.iter().map(|l| l.name.value.as_str()).collect();
    assert_eq!(names, ["http", "https", "all", "bogus"], "the unnamed listener is skipped");

    let http = &g.listeners[0];
    assert_eq!(http.name.span, span_in(text, "name: http\n", "http"));
    assert_eq!((http.port, http.protocol.as_deref()), (Some(80), Some("HTTP")));
    assert_eq!(http.hostname, None);
    assert_eq!(http.allowed_routes, AllowedRoutes::default());
    assert_eq!(http.span.start, span_in(text, "- name: http\n", "name").start);

    let https = &g.listeners[1];
    assert_eq!((https.port, https.protocol.as_deref()), (Some(443), Some("HTTPS")));
    assert_eq!(https.hostname, s("*.example.com", span_of(text, "\"*.example.com\"")));
    let ar = &https.allowed_routes;
    assert_eq!(
        ar.namespaces,
        FromNamespaces::Selector(LabelSelector {
            match_labels: strs(&[("team", "shop")]),
            match_expressions: vec![LabelExpr {
                key: "env".into(),
                operator: "In".into(),
                values: vec!["prod".into(), "stage".into()],
            }],
        })
    );
    assert_eq!(
        ar.kinds,
        vec![
            RouteGroupKind { group: None, kind: "HTTPRoute".into() },
            RouteGroupKind { group: Some("gateway.networking.k8s.io".into()), kind: "GRPCRoute".into() },
        ]
    );
    assert_eq!(
        ar.span.map(|s| s.start),
        Some(span_in(text, "namespaces:\n        from: Selector", "namespaces").start)
    );
    assert_eq!(g.listeners[2].allowed_routes.namespaces, FromNamespaces::All);
    assert_eq!(g.listeners[2].allowed_routes.span, Some(span_of(text, "{namespaces: {from: All}}")));
    assert_eq!(g.listeners[3].allowed_routes.namespaces, FromNamespaces::Unknown("Everywhere".into()));
}

#[test]
fn gateway_class_and_listener_set() {
    let text = "\
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: XListenerSet
metadata: {name: extra, namespace: shop}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners:
  - {name: extra-http, port: 8080, protocol: HTTP}
";
    let objs = objects(text);
    assert_eq!(objs.len(), 2);
    assert_eq!(
        objs[0].body,
        Body::GatewayClass(Box::new(GatewayClass {
            controller_name: Some("gateway.envoyproxy.io/gatewayclass-controller".into())
        }))
    );
    assert_eq!(objs[0].namespace, None);
    assert_eq!(objs[1].doc, 1);
    assert_eq!(objs[1].group(), "gateway.networking.x-k8s.io");
    let Body::ListenerSet(ls) = &objs[1].body else { panic!("{:?}", objs[1].body) };
    let parent = ls.parent_ref.as_ref().expect("parentRef");
    assert_eq!(parent.name, s("gw", span_in(text, "name: gw,", "gw")));
    assert_eq!(parent.namespace, sb("infra", span_of(text, "infra")));
    assert_eq!(parent.span, span_of(text, "{name: gw, namespace: infra}"));
    assert_eq!(ls.listeners.len(), 1);
    assert_eq!(ls.listeners[0].name, Spanned::new("extra-http".into(), span_of(text, "extra-http")));
    assert_eq!(ls.listeners[0].port, Some(8080));
    assert_eq!(ls.listeners[0].span, span_of(text, "{name: extra-http, port: 8080, protocol: HTTP}"));
}

#[test]
fn http_route_parent_refs_rules_and_backend_refs() {
    let text = "\
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: checkout
  namespace: shop
spec:
  parentRefs: [{name: gw, sectionName: https}]
  hostnames: [shop.example.com, \"*.shop.example.com\"]
  rules:
  - name: pay
    matches: [{path: {type: PathPrefix, value: /pay}}]
    backendRefs:
    - name: pay-svc
      port: 8443
      namespace: payments
    - {group: \"\", kind: Service, name: pay-b, port: 80, weight: 10}
  - backendRefs:
    - name: web
      port: 80
  - just-a-string
";
    let rt = one(text);
    let Body::Route(r) = &rt.body else { panic!("{:?}", rt.body) };
    assert_eq!(r.kind, RouteKind::Http);
    assert_eq!(
        r.parent_refs.to_vec(),
        vec![RefFields {
            name: s("gw", span_in(text, "name: gw", "gw")),
            section_name: sb("https", span_in(text, "sectionName: https", "https")),
            span: span_of(text, "{name: gw, sectionName: https}"),
            ..RefFields::default()
        }]
    );
    assert_eq!(
        r.hostnames.to_vec(),
        vec![
            Spanned::new("shop.example.com".into(), span_in(text, "[shop.example.com", "shop.example.com")),
            Spanned::new("*.shop.example.com".into(), span_of(text, "\"*.shop.example.com\"")),
        ]
    );
    assert_eq!(r.rules.len(), 2, "the string rule is skipped");
    let pay = &r.rules[0];
    assert_eq!(pay.name, s("pay", span_in(text, "name: pay\n", "pay")));
    assert_eq!(pay.span.start, span_in(text, "- name: pay\n", "name").start);
    assert_eq!(
        pay.backend_refs[0],
        RefFields {
            name: s("pay-svc", span_of(text, "pay-svc")),
            namespace: sb("payments", span_of(text, "payments")),
            port: Some(Spanned::new(8443, span_of(text, "8443"))),
            span: pay.backend_refs[0].span,
            ..RefFields::default()
        }
    );
    assert_eq!(pay.backend_refs[0].span.start, span_in(text, "- name: pay-svc", "name").start);
    let b = &pay.backend_refs[1];
    assert_eq!(b.group, sb("", span_of(text, "\"\"")));
    assert_eq!(b.kind, sb("Service", span_of(text, "Service")));
    assert_eq!(b.port, Some(Spanned::new(80, span_in(text, "port: 80,", "80"))));
    assert_eq!(b.span, span_of(text, "{group: \"\", kind: Service, name: pay-b, port: 80, weight: 10}"));
    assert!(!b.templated);
    let unnamed = &r.rules[1];
    assert_eq!(unnamed.name, None);
    assert_eq!(unnamed.backend_refs.len(), 1);
    assert_eq!(unnamed.backend_refs[0].name, s("web", span_of(text, "web")));
}

#[test]
fn tcp_route_has_no_hostnames_and_experimental_group_is_a_route() {
    let text = "\
apiVersion: gateway.networking.x-k8s.io/v1alpha1
kind: TCPRoute
metadata: {name: db}
spec:
  hostnames: [ignored.example.com]
  parentRefs: [{name: gw, port: 5432}]
  rules: [{backendRefs: [{name: pg, port: 5432}]}]
";
    let Body::Route(r) = one(text).body else { panic!() };
    assert_eq!(r.kind, RouteKind::Tcp);
    assert!(r.hostnames.is_empty());
    assert_eq!(r.parent_refs[0].port.as_ref().map(|p| p.value), Some(5432));
    assert_eq!(r.rules[0].backend_refs[0].name.as_ref().map(|n| n.value.as_str()), Some("pg"));
}

#[test]
fn service_ports() {
    let text = "\
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
spec:
  selector: {app: api}
  ports:
  - name: https
    port: 443
    targetPort: 8443
  - port: 80
  - {name: grpc, port: \"9000\"}
";
    let svc = one(text);
    assert_eq!(svc.group(), "");
    assert_eq!(svc.group_kind(), GroupKind::new("", "Service"));
    let Body::Service(sv) = &svc.body else { panic!("{:?}", svc.body) };
    assert_eq!(
        sv.ports.to_vec(),
        vec![
            ServicePort {
                name: s("https", span_in(text, "name: https", "https")),
                port: Some(443),
                span: sv.ports[0].span,
            },
            ServicePort { name: None, port: Some(80), span: sv.ports[1].span },
            ServicePort {
                name: s("grpc", span_of(text, "grpc")),
                port: None,
                span: span_of(text, "{name: grpc, port: \"9000\"}"),
            },
        ]
    );
    assert_eq!(sv.ports[0].span.start, span_in(text, "- name: https", "name").start);
    assert_eq!(sv.ports[1].span.start, span_in(text, "- port: 80", "port").start);
}

#[test]
fn namespace_object() {
    let text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    team: shop\n";
    let ns = one(text);
    assert_eq!(ns.body, Body::Namespace);
    assert_eq!(ns.label("team"), Some("shop"));
}

#[test]
fn reference_grant() {
    let text = "\
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: ReferenceGrant
metadata: {name: allow, namespace: payments}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}
  - {group: core, kind: Gateway}
  to:
  - {group: \"\", kind: Service}
  - group:
    kind: Secret
    name: cert
";
    let Body::ReferenceGrant(g) = one(text).body else { panic!() };
    assert_eq!(
        g.from,
        vec![GrantFrom {
            group: "gateway.networking.k8s.io".into(),
            kind: "HTTPRoute".into(),
            namespace: "shop".into(),
        }],
        "an entry without a namespace grants nothing"
    );
    assert_eq!(
        g.to,
        vec![
            GrantTo { group: String::new(), kind: "Service".into(), name: None },
            GrantTo { group: String::new(), kind: "Secret".into(), name: Some("cert".into()) },
        ]
    );
}

#[test]
fn crd_with_policy_label_and_schema() {
    let text = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: colorpolicies.policies.example.com
  labels:
    gateway.networking.k8s.io/policy: inherited
spec:
  group: policies.example.com
  scope: Namespaced
  names: {kind: ColorPolicy, plural: colorpolicies}
  versions:
  - name: v1alpha1
    served: true
    storage: false
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object}
";
    let Body::Crd(c) = one(text).body else { panic!() };
    assert_eq!(c.group, "policies.example.com");
    assert_eq!((c.kind.as_str(), c.plural.as_str()), ("ColorPolicy", "colorpolicies"));
    assert_eq!(c.scope, CrdScope::Namespaced);
    assert_eq!(c.policy_label.as_deref(), Some("inherited"));
    assert_eq!(c.versions.len(), 2);
    assert_eq!((c.versions[0].name.as_str(), c.versions[0].served, c.versions[0].storage), ("v1alpha1", true, false));
    assert_eq!(c.versions[0].schema, None);
    assert_eq!((c.versions[1].name.as_str(), c.versions[1].served, c.versions[1].storage), ("v1", true, true));
    let schema = c.versions[1].schema.as_ref().expect("schema");
    assert_eq!(schema.get("type").and_then(Node::as_str), Some("object"));
    assert_eq!(schema.at(&["properties", "spec", "type"]).and_then(Node::as_str), Some("object"));
    assert_eq!(schema.span.start, span_of(text, "type: object\n        properties").start);

    let cluster = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\nspec: {scope: Cluster}\n";
    let Body::Crd(c) = one(cluster).body else { panic!() };
    assert_eq!((c.scope, c.policy_label), (CrdScope::Cluster, None));
}

#[test]
fn list_items_are_objects() {
    let text = "\
apiVersion: v1
kind: List
metadata: {resourceVersion: \"\"}
items:
- apiVersion: v1
  kind: Service
  metadata: {name: a}
- not an object
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: r, namespace: shop}
---
apiVersion: v1
kind: ServiceList
items:
- {apiVersion: v1, kind: Service, metadata: {name: b}}
";
    let objs = objects(text);
    let got: Vec<(&str, &str, u32)> = objs.iter().map(|o| (o.kind(), o.name.value.as_str(), o.doc)).collect();
    assert_eq!(got, [("Service", "a", 0), ("HTTPRoute", "r", 0), ("Service", "b", 1)]);
    assert_eq!(objs[0].span.start, span_in(text, "- apiVersion: v1\n  kind: Service", "apiVersion").start);
    assert_eq!(objs[2].span, span_of(text, "{apiVersion: v1, kind: Service, metadata: {name: b}}"));
}

#[test]
fn policy_target_ref() {
    let text = "\
apiVersion: policies.example.com/v1
kind: ColorPolicy
metadata: {name: red, namespace: shop}
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: checkout
    sectionName: pay
  override: {color: red}
";
    let obj = one(text);
    assert_eq!(obj.group(), "policies.example.com");
    let Body::Other(o) = &obj.body else { panic!() };
    let p = &o.policy;
    assert_eq!(p.spec_span.map(|s| s.start), Some(span_of(text, "targetRef:").start));
    let (key, r) = p.target_ref.as_ref().expect("targetRef");
    assert_eq!(*key, span_in(text, "targetRef:", "targetRef"));
    let r = r.as_ref().expect("a mapping");
    assert_eq!(
        r.group,
        sb("gateway.networking.k8s.io", span_in(text, "group: gateway.networking.k8s.io", "gateway.networking.k8s.io"))
    );
    assert_eq!(r.kind, sb("HTTPRoute", span_of(text, "HTTPRoute")));
    assert_eq!(r.name, s("checkout", span_of(text, "checkout")));
    assert_eq!(r.section_name, sb("pay", span_of(text, "pay")));
    assert_eq!((r.namespace.as_ref(), r.port.as_ref(), r.templated), (None, None, false));
    assert_eq!(r.span.start, span_in(text, "group: gateway", "group").start);
    assert_eq!((p.target_refs.as_ref(), p.target_selectors.as_ref()), (None, None));
    let spec = p.spec.as_ref().expect("spec kept for a policy").unpack();
    assert_eq!(spec.at(&["override", "color"]).and_then(Node::as_str), Some("red"));
    assert!(spec.get("targetRef").is_none(), "references are read above, not kept in the spec");
    assert_eq!(p.refs().count(), 1);
}

#[test]
fn policy_target_refs_and_wrong_types() {
    let text = "\
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: btp}
spec:
  targetRef: just-a-string
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}, oops, {kind: HTTPRoute, name: r}]
";
    let Body::Other(o) = one(text).body else { panic!() };
    let p = &o.policy;
    assert_eq!(p.target_ref, Some((span_in(text, "targetRef:", "targetRef"), None)));
    let list = p.target_refs.as_ref().expect("targetRefs");
    assert_eq!(list.key_span, span_in(text, "targetRefs:", "targetRefs"));
    assert_eq!(
        list.span,
        span_of(
            text,
            "[{group: gateway.networking.k8s.io, kind: Gateway, name: gw}, oops, {kind: HTTPRoute, name: r}]"
        )
    );
    assert!(list.is_list);
    assert_eq!(list.len, 3);
    assert_eq!(list.items.len(), 2);
    assert_eq!(list.items[0].kind, sb("Gateway", span_of(text, "Gateway")));
    assert_eq!(list.items[0].span, span_of(text, "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"));
    assert_eq!(list.items[1].group, None);
    assert_eq!(list.items[1].name, s("r", span_in(text, "name: r}", "r")));
    assert_eq!(p.refs().count(), 2);
    assert!(p.spec.is_some());

    let scalar = "apiVersion: x.io/v1\nkind: P\nmetadata: {name: p}\nspec:\n  targetRefs: nope\n";
    let Body::Other(o) = one(scalar).body else { panic!() };
    let list = o.policy.target_refs.expect("targetRefs");
    assert_eq!((list.is_list, list.len, list.items.len()), (false, 0, 0));
    assert_eq!(list.span, span_of(scalar, "nope"));
}

#[test]
fn policy_target_selectors() {
    let text = "\
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: ctp, namespace: infra}
spec:
  targetSelectors:
  - group: gateway.networking.k8s.io
    kind: Gateway
    matchLabels:
      tier: edge
    namespaces:
      from: Selector
      selector:
        matchLabels: {env: prod}
  - kind: HTTPRoute
    matchExpressions:
    - key: app
      operator: Exists
  timeout: {http: {requestReceivedTimeout: 5s}}
";
    let Body::Other(o) = one(text).body else { panic!() };
    let p = &o.policy;
    assert_eq!((p.target_ref.as_ref(), p.target_refs.as_ref()), (None, None));
    let sel = p.target_selectors.as_ref().expect("targetSelectors");
    assert_eq!(sel.key_span, span_in(text, "targetSelectors:", "targetSelectors"));
    assert_eq!(sel.span.start, span_in(text, "- group: gateway", "-").start);
    assert_eq!(
        sel.items[0],
        TargetSelector {
            group: s(
                "gateway.networking.k8s.io",
                span_in(text, "group: gateway.networking.k8s.io", "gateway.networking.k8s.io")
            ),
            kind: s("Gateway", span_in(text, "kind: Gateway", "Gateway")),
            selector: LabelSelector { match_labels: strs(&[("tier", "edge")]), match_expressions: vec![] },
            namespaces: Some(FromNamespaces::Selector(LabelSelector {
                match_labels: strs(&[("env", "prod")]),
                match_expressions: vec![],
            })),
            span: sel.items[0].span,
        }
    );
    assert_eq!(sel.items[0].span.start, span_in(text, "- group: gateway", "group").start);
    assert_eq!(sel.items[1].group, None);
    assert_eq!(sel.items[1].namespaces, None);
    assert_eq!(
        sel.items[1].selector.match_expressions,
        vec![LabelExpr { key: "app".into(), operator: "Exists".into(), values: vec![] }]
    );
    assert!(p.spec.is_some());
    assert_eq!(p.refs().count(), 0);
}

#[test]
fn ref_group_empty_null_and_core_all_read_as_core() {
    let text = "\
apiVersion: x.io/v1
kind: P
metadata: {name: p}
spec:
  targetRefs:
  - group: \"\"
    kind: A
  - group:
    kind: B
  - group: core
    kind: C
  - {group: ~, kind: D}
  - group: {nested: map}
    kind: E
  - kind: F
";
    let Body::Other(o) = one(text).body else { panic!() };
    let items = &o.policy.target_refs.expect("targetRefs").items;
    assert_eq!(items[0].group, sb("", span_of(text, "\"\"")));
    let null = items[1].group.as_ref().expect("a null group is core");
    assert_eq!(null.value, "");
    assert!(null.span.is_empty(), "empty span where the value would be: {:?}", null.span);
    let after_key = span_in(text, "group:\n    kind: B", "group:").end;
    assert!(null.span.start >= after_key && null.span.start <= span_in(text, "kind: B", "kind").start);
    assert_eq!(items[2].group, sb("", span_of(text, "core")));
    assert_eq!(items[3].group, sb("", span_of(text, "~")));
    assert_eq!(items[4].group, None, "a mapping is not a group");
    assert_eq!(items[4].kind, sb("E", span_in(text, "kind: E", "E")));
    assert_eq!(items[5].group, None);
}

#[test]
fn numeric_ref_values_read_as_text() {
    let text = "apiVersion: x.io/v1\nkind: P\nmetadata: {name: 42}\nspec:\n  targetRef: {kind: Service, name: 8080, sectionName: 1.5}\n";
    let obj = one(text);
    assert_eq!(obj.name.value, "42");
    let Body::Other(o) = obj.body else { panic!() };
    let r = o.policy.target_ref.and_then(|(_, r)| r).expect("targetRef");
    assert_eq!(r.name, s("8080", span_of(text, "8080")));
    assert_eq!(r.section_name, sb("1.5", span_of(text, "1.5")));
}

#[test]
fn templated_ref_is_marked() {
    let text = "\
apiVersion: security.istio.io/v1
kind: AuthorizationPolicy
metadata:
  name: authz
spec:
  targetRefs:
  - kind: {{ .TargetKind }}
    group: {{ .TargetGroup }}
    name: waypoint
  - kind: Gateway
    name: plain
";
    let obj = one(text);
    let Body::Other(o) = &obj.body else { panic!() };
    let items = &o.policy.target_refs.as_ref().expect("targetRefs").items;
    assert_eq!(items.len(), 2);
    assert!(items[0].templated);
    // Template actions are kept as placeholders, with the span of the action.
    assert_eq!(items[0].kind.as_ref().map(|k| k.span), Some(span_of(text, "{{ .TargetKind }}")));
    assert_eq!(items[0].group.as_ref().map(|g| g.span), Some(span_of(text, "{{ .TargetGroup }}")));
    assert_eq!(items[0].name, s("waypoint", span_of(text, "waypoint")));
    assert!(!items[1].templated);
}

#[test]
fn secret_keeps_nothing_below_metadata() {
    let text = "\
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: shop}
type: kubernetes.io/tls
data: {tls.crt: c2VjcmV0}
spec:
  targetRef: {kind: Gateway, name: gw}
";
    let obj = one(text);
    assert_eq!(obj.name.value, "cert");
    assert_eq!(obj.body, Body::Other(Box::default()));
}

#[test]
fn objects_without_refs_keep_no_spec() {
    let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 2}\n";
    let obj = one(text);
    assert_eq!(obj.group(), "apps");
    let Body::Other(o) = &obj.body else { panic!() };
    assert_eq!(o.policy.spec, None);
    assert_eq!(o.policy.spec_span, Some(span_of(text, "{replicas: 2}")));
    assert!(!o.policy.has_ref_fields());
}

#[test]
fn documents_that_are_not_objects_are_skipped() {
    let text = "\
# license header
---
---
gateways: [{apiVersion: v1, kind: X}]
---
apiVersion: v1
kind: ConfigMap
metadata: {namespace: x}
---
apiVersion: 1
kind: ConfigMap
metadata: {name: wrong-version-type}
---
- apiVersion: v1
---
apiVersion: v1
kind: [ConfigMap]
metadata: {name: n}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: {nested: true}}
---
just a string
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kept
";
    let objs = objects(text);
    let names: Vec<&str> = objs.iter().map(|o| o.name.value.as_str()).collect();
    // A numeric apiVersion is a scalar whose text is usable, like any other.
    assert_eq!(names, ["wrong-version-type", "kept"]);
}

#[test]
fn metadata_namespace_labels_and_creation_timestamp() {
    let text = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  labels:
    zeta: z
    alpha: \"1\"
    num: 2
    flag: true
    dup: first
    dup: second
  creationTimestamp: \"2024-03-01T10:00:00Z\"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: \"\"
  creationTimestamp: yesterday
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, creationTimestamp: null, labels: [not, a, map]}
";
    let objs = objects(text);
    assert_eq!(objs.len(), 3);
    let a = &objs[0];
    assert_eq!(a.namespace, None);
    assert_eq!(
        a.labels.to_vec(),
        strs(&[("alpha", "1"), ("dup", "second"), ("flag", "true"), ("num", "2"), ("zeta", "z")])
    );
    assert_eq!(a.label("num"), Some("2"));
    assert_eq!(a.creation_timestamp.as_deref().copied(), Timestamp::parse("2024-03-01T10:00:00Z"));
    assert!(a.creation_timestamp.is_some());
    assert_eq!(objs[1].namespace, None, "an empty namespace is unset");
    assert_eq!(objs[1].creation_timestamp, None);
    assert_eq!(objs[1].doc, 1);
    assert_eq!(objs[2].creation_timestamp, None);
    assert!(objs[2].labels.is_empty());
}

#[test]
fn every_prefix_of_a_file_extracts_without_panic() {
    let text = "\
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, labels: {a: b}}
spec:
  listeners:
  - {name: h, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchExpressions: [{key: k, values: [1, {x: y}]}]}}, kinds: [{kind: HTTPRoute}, x]}}
---
apiVersion: v1
kind: List
items:
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: r}
  spec:
    parentRefs: [{name: gw, port: x}, 1]
    rules: [{name: a, backendRefs: [{name: s, group: [core]}]}]
- apiVersion: x.io/v1
  kind: P
  metadata: {name: p}
  spec:
    targetRef: [1]
    targetRefs: {a: b}
    targetSelectors: [{kind: Gateway, namespaces: {from: [All]}}, 3]
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: c}
  spec: {names: [], versions: [{name: v1, served: yes}, {served: true}], validation: {openAPIV3Schema: {}}}
";
    for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        let _ = objects(&text[..end]);
    }
    let objs = objects(text);
    assert_eq!(objs.len(), 4);
    let Body::Crd(c) = &objs[3].body else { panic!() };
    assert_eq!(c.versions.len(), 1);
    assert!(!c.versions[0].served, "`yes` is not a YAML 1.2 boolean");
    assert!(c.versions[0].schema.is_some(), "v1beta1 spec.validation schema is shared");
}
