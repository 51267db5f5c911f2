//! Code actions: `[Kind*] title (fixes) :: edits`, `*` marking the preferred one; each edit as
//! `file:line "old" => "new"`.

use super::{assert_lines, fixture, show, with_base};
use crate::analysis::code_actions;

/// The actions but "Ignore `code` here", which every finding has (see `check_all`).
fn check(src: &str, expect: &str) {
    check_actions(src, expect, false);
}

fn check_all(src: &str, expect: &str) {
    check_actions(src, expect, true);
}

fn check_actions(src: &str, expect: &str, with_ignore: bool) {
    let f = fixture(src);
    let mut got = String::new();
    for a in code_actions(&f.snap, &f.file, f.range) {
        if !with_ignore && a.title.starts_with("Ignore `") {
            continue;
        }
        let star = if a.preferred { "*" } else { "" };
        let fixes = a.fixes.map_or("-".to_owned(), |c| c.as_str().to_owned());
        let edits: Vec<String> =
            a.edits.iter().map(|e| format!("{} => {:?}", show(&f.snap, &e.file, e.span), e.new_text)).collect();
        got.push_str(&format!("[{:?}{star}] {} ({fixes}) :: {}\n", a.kind, a.title, edits.join("; ")));
    }
    assert_lines(&got, expect);
}

/// Applies the only action offered and returns the file's new text.
fn apply_single(src: &str) -> String {
    let f = fixture(src);
    let actions = code_actions(&f.snap, &f.file, f.range);
    assert_eq!(actions.len(), 1, "{actions:?}");
    apply_first(src)
}

/// Applies the first action offered (the preferred fix, before "Ignore …") and returns the
/// file's new text.
fn apply_first(src: &str) -> String {
    let f = fixture(src);
    let actions = code_actions(&f.snap, &f.file, f.range);
    let mut text = f.snap.file(&f.file).map(|s| s.text().to_owned()).unwrap_or_default();
    let mut edits = actions[0].edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    for e in edits {
        text.replace_range(e.span.start as usize..e.span.end as usize, &e.new_text);
    }
    text
}

fn policy(body: &str) -> String {
    with_base(&format!(
        "//- tls.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
{body}"
    ))
}

#[test]
fn actions_replace_a_missing_name_with_the_closest() {
    check(
        &policy("  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: chekout$0\n"),
        r#"[QuickFix*] Replace with `checkout` (target-not-found) :: tls.yaml:10 "chekout" => "checkout""#,
    );
    // Quotes are kept.
    check(
        &policy("  targetRefs:\n  - {group: \"\", kind: Service, name: 'chekout$0'}\n"),
        r#"[QuickFix*] Replace with `checkout` (target-not-found) :: tls.yaml:8 "'chekout'" => "'checkout'""#,
    );
}

#[test]
fn actions_offer_every_section_of_the_target() {
    check(
        &policy("  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: checkout\n    sectionName: $0htps$0\n"),
        r#"
[QuickFix*] Replace with `https` (section-not-found) :: tls.yaml:11 "htps" => "https"
[QuickFix] Replace with `http` (section-not-found) :: tls.yaml:11 "htps" => "http"
"#,
    );
}

#[test]
fn actions_on_route_parent_and_backend_refs() {
    let route = |body: &str| {
        with_base(&format!(
            "//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: infra
spec:
{body}"
        ))
    };
    check(
        &route("  parentRefs:\n  - name: edge\n    sectionName: htps$0\n"),
        r#"
[QuickFix*] Replace with `https` (parent-not-found) :: route.yaml:9 "htps" => "https"
[QuickFix] Replace with `http` (parent-not-found) :: route.yaml:9 "htps" => "http"
"#,
    );
    check(
        &route("  parentRefs:\n  - name: edg$0\n"),
        r#"
[QuickFix*] Replace with `edge` (parent-not-found) :: route.yaml:8 "edg" => "edge"
[QuickFix] Replace with `internal` (parent-not-found) :: route.yaml:8 "edg" => "internal"
"#,
    );
    check(&route("  rules:\n  - backendRefs:\n    - name: checkout\n      namespace: shop\n      port: 8443$0\n"), "");
    let shop_route = route("  rules:\n  - backendRefs:\n    - name: checkout\n      port: 8443$0\n")
        .replace("namespace: infra\nspec:\n  rules", "namespace: shop\nspec:\n  rules");
    check(
        &shop_route,
        r#"
[QuickFix] Replace with `80` (backend-not-found) :: route.yaml:10 "8443" => "80"
[QuickFix] Replace with `443` (backend-not-found) :: route.yaml:10 "8443" => "443"
"#,
    );
}

#[test]
fn actions_target_ref_to_list_block() {
    // BackendTLSPolicy has no `targetRef`: converting fixes the diagnostic.
    let src = policy("  targetRef:$0\n    group: \"\"\n    kind: Service\n    name: checkout\n  validation: {}\n");
    check(
        &src,
        r#"[QuickFix*] Convert `targetRef` to `targetRefs` (target-ref-fields) :: tls.yaml:7 "targetRef:\n    group: \"\"\n    kind: Service\n    name: checkout" => "targetRefs:\n  - group: \"\"\n    kind: Service\n    name: checkout""#,
    );
    assert!(
        apply_single(&src).ends_with(
            "spec:\n  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: checkout\n  validation: {}\n"
        )
    );
}

#[test]
fn actions_target_ref_to_list_keeps_or_makes_room_for_the_dash() {
    let eg = |body: &str| {
        with_base(&format!(
            "//- btp.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata:
  name: btp
  namespace: shop
spec:
{body}"
        ))
    };
    // Four-space indentation: the dash fits left of the fields; nothing else moves.
    let four = eg(
        "    targetRef:  # the route\n        group: gateway.networking.k8s.io\n        kind: HTTPRoute\n        name: $0store\n    timeout: {}\n",
    );
    assert!(apply_single(&four).ends_with(
        "spec:\n    targetRefs:  # the route\n      - group: gateway.networking.k8s.io\n        kind: HTTPRoute\n        name: store\n    timeout: {}\n"
    ));
    // Fields one column in: they move right to make room.
    let tight = eg("  targetRef:\n   group: gateway.networking.k8s.io\n   kind: HTTPRoute\n   name: store$0\n");
    assert!(apply_single(&tight).ends_with(
        "spec:\n  targetRefs:\n  - group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: store\n"
    ));
    // Envoy Gateway accepts both: a refactoring, not a fix.
    check(
        &eg("  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}$0\n"),
        r#"[Refactor] Convert `targetRef` to `targetRefs` (-) :: btp.yaml:7 "targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}" => "targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}]""#,
    );
}

#[test]
fn actions_none_where_not_applicable() {
    // Kuadrant kinds take only `targetRef`.
    let src = with_base(
        "//- auth.yaml
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: auth
  namespace: shop
spec:
  targetRef:$0
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: store
",
    );
    check(&src, "");
    // Away from the ref.
    check(&policy("  targetRef:\n    group: \"\"\n    kind: Service\n    name: checkout\n  valid$0ation: {}\n"), "");
    // Any span, even past the end, is safe.
    let f = fixture(&policy("  targetRef:\n    name: x$0\n"));
    for o in 0..f.snap.file(&f.file).map_or(0, |s| s.text().len() as u32 + 3) {
        let _ = code_actions(&f.snap, &f.file, crate::syntax::Span::new(o, o + 7));
    }
}

/// Every finding can be silenced where it is: an ignore comment above its line at its
/// indentation, or its code added to the comment already there.
#[test]
fn actions_ignore_any_finding_here() {
    check_all(
        &policy("  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: chekout$0\n"),
        r#"
[QuickFix*] Replace with `checkout` (target-not-found) :: tls.yaml:10 "chekout" => "checkout"
[QuickFix] Ignore `target-not-found` here (target-not-found) :: tls.yaml:10 "" => "    # policylens: ignore[target-not-found]\n"
"#,
    );
    check_all(
        &policy(
            "  targetRefs:\n  - group: \"\"\n    # policylens: ignore[section-not-found]\n    kind: HTTPRoute$0\n    name: x\n",
        ),
        r#"
[QuickFix] Ignore `target-kind-not-allowed` here (target-kind-not-allowed) :: tls.yaml:9 "" => ", target-kind-not-allowed"
"#,
    );
}

#[test]
fn actions_remove_a_repeated_target_ref() {
    let src = policy(
        "  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: checkout\n  - group: \"\"\n    kind: Service\n    name: checkout$0\n",
    );
    check(
        &src,
        r#"[QuickFix*] Remove the repeated reference (duplicate-target-ref) :: tls.yaml:11 "  - group: \"\"\n    kind: Service\n    name: checkout\n" => """#,
    );
}

/// A backendRef into a namespace no ReferenceGrant opens: the grant, appended to the file of
/// the Service it opens (namespace `shop`'s), not to the referring route's file. (Where a grant
/// in `shop` already admits the Service, the route's kind is added to it instead: the demo's
/// quick-fix test in `server/cli/tests/lsp/editors.rs`.)
#[test]
fn actions_create_the_missing_reference_grant() {
    let src = with_base(
        "//- route.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
  namespace: infra
spec:
  rules:
  - backendRefs:
    - name: checkout
      namespace: sh$0op
      port: 443
",
    );
    check(
        &src,
        r#"[QuickFix*] Create ReferenceGrant shop/allow-infra-httproutes (at the end of shop.yaml, beside namespace `shop`'s objects) (backend-not-permitted) :: shop.yaml:45 "" => "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata:\n  name: allow-infra-httproutes\n  namespace: shop\nspec:\n  from:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      namespace: infra\n  to:\n    - group: \"\"\n      kind: Service\n      name: checkout\n""#,
    );
}

/// A repeated reference whose last character is not ASCII is removed whole (the line ends are
/// found on bytes, not at a char boundary the span's end minus one may miss).
#[test]
fn actions_remove_a_repeated_target_ref_ending_in_a_multibyte_name() {
    let src = policy(
        "  targetRefs:\n  - group: \"\"\n    kind: Service\n    name: caf\u{e9}\n  - group: \"\"\n    kind: Service\n    name: caf\u{e9}$0\n",
    );
    let f = fixture(&src);
    let removal = code_actions(&f.snap, &f.file, f.range)
        .into_iter()
        .find(|a| a.title == "Remove the repeated reference")
        .expect("the removal is offered");
    assert_eq!(
        show(&f.snap, &f.file, removal.edits[0].span),
        "tls.yaml:11 \"  - group: \\\"\\\"\\n    kind: Service\\n    name: café\\n\""
    );
}

/// A ClientTrafficPolicy may not target a route: the fix targets the listener the route
/// attaches to (kind, name and sectionName at once), and the policy then resolves.
#[test]
fn actions_retarget_a_route_to_the_gateway_it_attaches_to() {
    let src = with_base(
        "//- ctp.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: admin
  namespace: infra
spec:
  parentRefs:
  - name: edge
    sectionName: https
  rules:
  - name: ui
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: timeouts
  namespace: infra
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTP$0Route
    name: admin
    sectionName: ui
",
    );
    check(
        &src,
        r#"[QuickFix*] Target Gateway `edge`, listener `https` (where HTTPRoute `admin` attaches) (target-kind-not-allowed) :: ctp.yaml:21 "HTTPRoute" => "Gateway"; ctp.yaml:22 "admin" => "edge"; ctp.yaml:23 "ui" => "https""#,
    );
    let fixed = apply_first(&src);
    assert!(fixed.ends_with("    kind: Gateway\n    name: edge\n    sectionName: https\n"), "{fixed}");
    let f = fixture(&with_base(&format!("//- ctp.yaml\n{fixed}")));
    assert_eq!(
        f.snap.diagnostics_for("ctp.yaml").iter().map(|d| d.code.as_str()).collect::<Vec<_>>(),
        Vec::<&str>::new()
    );
    // The same policy in `shop`, its route's Gateway in `infra`: a local reference cannot reach
    // it, so nothing is offered (a kind swapped alone would name `Gateway/shop/store`).
    let shop = with_base(
        "//- ctp.yaml
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata:
  name: timeouts
  namespace: shop
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTP$0Route
    name: store
",
    );
    check(&shop, "");
}
