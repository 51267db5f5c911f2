//! Document and workspace symbols, one per line: `kind name (detail) selection`, children
//! indented.

use super::{assert_lines, fixture, show, with_base};
use crate::analysis::{Symbol, document_symbols, workspace_symbols};
use crate::workspace::Snapshot;

fn render(snap: &Snapshot, symbols: &[Symbol], depth: usize, out: &mut String) {
    for s in symbols {
        let detail = s.detail.as_deref().unwrap_or("-");
        // The whole span must hold the selection.
        assert!(s.span.start <= s.selection_span.start && s.selection_span.end <= s.span.end, "{s:?}");
        out.push_str(&format!(
            "{}{:?} {} ({detail}) {}\n",
            "  ".repeat(depth),
            s.kind,
            s.name,
            show(snap, &s.file, s.selection_span)
        ));
        render(snap, &s.children, depth + 1, out);
    }
}

const POLICY: &str = r#"//- policy.yaml
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata:
  name: tls
  namespace: shop
spec:
  targetRefs:
  - {group: "", kind: Service, name: checkout}
$0"#;

#[test]
fn document_symbols_with_sections() {
    let f = fixture(&with_base(POLICY));
    let mut got = String::new();
    render(&f.snap, &document_symbols(&f.snap, "infra.yaml"), 0, &mut got);
    render(&f.snap, &document_symbols(&f.snap, "shop.yaml"), 0, &mut got);
    render(&f.snap, &document_symbols(&f.snap, "policy.yaml"), 0, &mut got);
    assert_lines(
        &got,
        r#"
Object eg (GatewayClass) infra.yaml:4 "eg"
Object edge (Gateway · infra) infra.yaml:11 "edge"
  Section http (listener · HTTP :80) infra.yaml:16 "http"
  Section https (listener · HTTPS :443 · *.example.com) infra.yaml:22 "https"
Object internal (Gateway · infra) infra.yaml:33 "internal"
  Section grpc (listener · HTTP :9000) infra.yaml:38 "grpc"
Object shop (Namespace) shop.yaml:4 "shop"
Object checkout (Service · shop) shop.yaml:9 "checkout"
  Section http (port · 80) shop.yaml:13 "http"
  Section https (port · 443) shop.yaml:15 "https"
Object cart (Service · shop) shop.yaml:21 "cart"
Object store (HTTPRoute · shop) shop.yaml:30 "store"
  Section pay (rule · 1 backendRef) shop.yaml:38 "pay"
Policy tls (BackendTLSPolicy · shop) policy.yaml:4 "tls"
"#,
    );
    assert!(document_symbols(&f.snap, "missing.yaml").is_empty());
}

#[test]
fn workspace_symbols_subsequence_case_insensitive() {
    let f = fixture(&with_base(POLICY));
    let mut got = String::new();
    render(&f.snap, &workspace_symbols(&f.snap, "HtP"), 0, &mut got);
    assert_lines(
        &got,
        r#"
Section http (listener of Gateway infra/edge) infra.yaml:16 "http"
Section https (listener of Gateway infra/edge) infra.yaml:22 "https"
Section http (port of Service shop/checkout) shop.yaml:13 "http"
Section https (port of Service shop/checkout) shop.yaml:15 "https"
"#,
    );
    let mut got = String::new();
    render(&f.snap, &workspace_symbols(&f.snap, "eg"), 0, &mut got);
    assert_lines(
        &got,
        "Object eg (GatewayClass) infra.yaml:4 \"eg\"\nObject edge (Gateway · infra) infra.yaml:11 \"edge\"",
    );
    assert_eq!(workspace_symbols(&f.snap, "").len(), 8 + 6);
    assert!(workspace_symbols(&f.snap, "zzz").is_empty());
}
