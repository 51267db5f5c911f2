//! Editor feature tests over inline multi-file fixtures: `//- path` starts a file, `$0` marks
//! the cursor (`$0…$0` a range) in one of them. Expectations are exact: labels in order, spans
//! shown as the text they cover.

mod actions;
mod completion;
mod controllers;
mod envoy;
mod hover;
mod implementation_targets;
mod lens;
mod navigation;
mod near;
mod rename;
mod rendered;
mod rules;
mod samelevel;
mod symbols;

use crate::syntax::Span;
use crate::workspace::Snapshot;

pub(super) struct Fixture {
    pub snap: Snapshot,
    /// The file holding the `$0` marks.
    pub file: String,
    /// The cursor (the start of the range when two marks are given).
    pub offset: u32,
    pub range: Span,
}

pub(super) fn fixture(src: &str) -> Fixture {
    let mut f = crate::analysis::fixture::parse(src);
    let file = f.marks.first().map(|(p, _)| p.clone()).unwrap_or_default();
    let offsets: Vec<u32> = f.marks.iter().filter(|(p, _)| *p == file).map(|(_, o)| *o).collect();
    let start = offsets.first().copied().unwrap_or(0);
    let end = offsets.get(1).copied().unwrap_or(start);
    Fixture { snap: f.workspace.snapshot(), file, offset: start, range: Span::new(start, end) }
}

/// `file:line "covered text"` (1-based line).
pub(super) fn show(snap: &Snapshot, file: &str, span: Span) -> String {
    let Some(src) = snap.source(file) else { return format!("{file}:? {span:?}") };
    let line = src.position(span.start, crate::syntax::PositionEncoding::Utf8).line + 1;
    format!("{file}:{line} {:?}", src.slice(span))
}

/// `check`'s findings on every file, a line each (`"covered text" severity[code] message`),
/// with their related locations below when `related`: the first part of an every-surface test.
pub(super) fn render_check(snap: &Snapshot, related: bool, got: &mut String) {
    use std::fmt::Write as _;
    let text = |file: &str, span: Span| snap.source(file).map(|s| s.slice(span).to_owned()).unwrap_or_default();
    for (file, diags) in snap.diagnostics() {
        for d in diags {
            let _ =
                writeln!(got, "{:?} {}[{}] {}", text(file, d.span), d.severity.as_str(), d.code.as_str(), d.message);
            for r in d.related.iter().filter(|_| related) {
                let _ = writeln!(got, "  related {:?}: {}", text(&r.file, r.span), r.message);
            }
        }
    }
}

/// For each policy declared in `file`, the paragraphs of its hover (on its name) that `keep`
/// selects, joined by ` | `.
pub(super) fn render_policy_hovers(snap: &Snapshot, file: &str, keep: impl Fn(&str) -> bool, got: &mut String) {
    use std::fmt::Write as _;
    let world = snap.world();
    for id in crate::analysis::refs::objects_in(world, file) {
        if world.policy_kind(id).is_none() {
            continue;
        }
        let Some(h) = crate::analysis::hover(snap, file, world.object(id).name.span.start) else { continue };
        // A target's blocks ("On `…`:", after a blank line for markdown) stay one paragraph.
        let markdown = h.markdown.replace("\n\nOn `", "\nOn `");
        let kept: Vec<&str> = markdown.split("\n\n").filter(|p| keep(p)).collect();
        let _ = writeln!(got, "{}: {}", world.key(id), kept.join(" | "));
    }
}

/// The code lens on each policy declared in `file`: `key: title`.
pub(super) fn render_policy_lenses(snap: &Snapshot, file: &str, got: &mut String) {
    use std::fmt::Write as _;
    let world = snap.world();
    let objects = crate::analysis::refs::objects_in(world, file);
    for l in crate::analysis::code_lenses(snap, file) {
        let id = objects.iter().copied().find(|&o| world.object(o).span.start == l.span.start);
        if let Some(id) = id.filter(|&o| world.policy_kind(o).is_some()) {
            let _ = writeln!(got, "{}: {}", world.key(id), l.title);
        }
    }
}

/// `explain` of each target in `targets` (blank entries skipped), handed to `each` to render;
/// a target that does not resolve is written as such.
pub(super) fn render_explains<'t>(
    snap: &Snapshot,
    targets: impl IntoIterator<Item = &'t str>,
    got: &mut String,
    mut each: impl FnMut(&str, &crate::effective::Explanation, &mut String),
) {
    use std::fmt::Write as _;
    let world = snap.world();
    for target in targets.into_iter().filter(|t| !t.trim().is_empty()) {
        let Ok(node) = world.topology.resolve_target(world, target) else {
            let _ = writeln!(got, "{target}: does not resolve");
            continue;
        };
        let ex = crate::effective::explain(world, snap.effective(), node, crate::topology::PathLimit::default());
        each(target, &ex, got);
    }
}

/// Compares rendered output, printing what was got in full on a mismatch.
pub(super) fn assert_lines(got: &str, expect: &str) {
    let (g, e) = (got.trim(), expect.trim());
    assert!(g == e, "\n--- expected\n{e}\n--- got\n{g}\n");
}

/// A Gateway API setup used across tests: a class, two Gateways in `infra`, a route in `shop`
/// attached to the `https` listener, Services, and a Namespace.
pub(super) const INFRA: &str = r#"//- infra.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: All
  - name: https
    port: 443
    protocol: HTTPS
    hostname: "*.example.com"
    allowedRoutes:
      namespaces:
        from: All
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: internal
  namespace: infra
spec:
  gatewayClassName: eg
  listeners:
  - name: grpc
    port: 9000
    protocol: HTTP
"#;

pub(super) const SHOP: &str = r#"//- shop.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: Service
metadata:
  name: checkout
  namespace: shop
spec:
  ports:
  - name: http
    port: 80
  - name: https
    port: 443
---
apiVersion: v1
kind: Service
metadata:
  name: cart
  namespace: shop
spec:
  ports:
  - port: 8080
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: store
  namespace: shop
spec:
  parentRefs:
  - name: edge
    namespace: infra
    sectionName: https
  rules:
  - name: pay
    backendRefs:
    - name: checkout
      port: 443
  - backendRefs:
    - name: cart
      port: 8080
"#;

/// `INFRA` and `SHOP` followed by `more` (more files, one holding the cursor).
/// A Gloo Gateway RouteOption named by a rule's ExtensionRef filter (Gloo Gateway docs,
/// "RouteOption": `filters: [{type: ExtensionRef, extensionRef: {group: gateway.solo.io,
/// kind: RouteOption, name: ...}}]`).
pub(super) const EXTENSION: &str = r#"//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: web
spec:
  rules:
  - name: static
    filters:
    - type: ExtensionRef
      extensionRef: {group: gateway.solo.io, kind: RouteOption, name: rewrite}
//- options.yaml
apiVersion: gateway.solo.io/v1
kind: RouteOption
metadata:
  name: rewrite
spec:
  options:
    hostRewrite: static.example.com
"#;

/// `src` with the cursor (`$0`) right after the first `needle`.
pub(super) fn cursor_after(src: &str, needle: &str) -> String {
    let i = src.find(needle).expect("needle in fixture") + needle.len();
    format!("{}$0{}", &src[..i], &src[i..])
}

pub(super) fn with_base(more: &str) -> String {
    format!("{INFRA}{SHOP}{more}")
}

/// Every feature at every offset (and past the end) of half-typed, broken, multi-byte text:
/// no panic, and every span inside the text on char boundaries.
#[test]
fn features_never_panic_on_any_offset() {
    let src = with_base(
        "//- messy.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tlsé
  namespace: shop
spec:
  targetRef: {group: \"\", kind: Sérvice, name:
  targetRefs:
  - group: \"\"
    kind: Service
    name: \"chéckout
    sectionName: :
  - {kind: Service, name: }
  - 
  validation: [
---
kind: HTTPRoute
apiVersion: gateway.networking.k8s.io/v1
metadata: {name: r, namespace: shop}
spec:
  parentRefs:
  - name: edge
    sectionName: ht
  rules:
  - backendRefs:
    - name: ca
      port:
$0",
    );
    let f = fixture(&src);
    let snap = &f.snap;
    let text = snap.file("messy.yaml").map(|s| s.text().to_owned()).unwrap_or_default();
    let ok = |span: crate::syntax::Span, file: &str| {
        let t = snap.source(file).map(|s| s.text().to_owned()).unwrap_or_default();
        assert!(span.start <= span.end && span.end as usize <= t.len(), "{span:?} in {file}");
        assert!(t.is_char_boundary(span.start as usize) && t.is_char_boundary(span.end as usize));
    };
    for o in 0..text.len() as u32 + 4 {
        for c in crate::analysis::completions(snap, "messy.yaml", o) {
            ok(c.replace, "messy.yaml");
        }
        if let Some(h) = crate::analysis::hover(snap, "messy.yaml", o) {
            ok(h.span, "messy.yaml");
        }
        for l in crate::analysis::definition(snap, "messy.yaml", o) {
            ok(l.span, &l.file);
        }
        for l in crate::analysis::references(snap, "messy.yaml", o, true) {
            ok(l.span, &l.file);
        }
        if let Some((span, _)) = crate::analysis::prepare_rename(snap, "messy.yaml", o) {
            ok(span, "messy.yaml");
        }
        if let Ok(edits) = crate::analysis::rename(snap, "messy.yaml", o, "renamed") {
            for e in edits {
                ok(e.span, &e.file);
            }
        }
        for a in crate::analysis::code_actions(snap, "messy.yaml", Span::new(o, o.saturating_add(5))) {
            for e in a.edits {
                ok(e.span, &e.file);
            }
        }
    }
    let _ = crate::analysis::document_symbols(snap, "messy.yaml");
    let _ = crate::analysis::code_lenses(snap, "messy.yaml");
    let _ = crate::analysis::workspace_symbols(snap, "é");
    let _ = crate::analysis::completions(snap, "no-such-file.yaml", 3);
}
