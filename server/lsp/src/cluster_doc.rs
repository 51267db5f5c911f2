//! The live cluster's objects as read-only virtual documents: `policylens-cluster:` URIs, whose
//! text (`workspace/textDocumentContent`) is the object as the cluster holds it, written as
//! YAML the way `kubectl get -o yaml` shows it (`managedFields` left out). An object is held as
//! the JSON the API server sent; positions in it are mapped to the YAML through the spans of
//! the nodes both share.

use std::str::FromStr;

use policylens_core::syntax::{Entry, Node, NodeKind, PositionEncoding, ScalarStyle, Span};
use tower_lsp_server::ls_types::{Position, Range, Uri};

/// The scheme of the virtual documents.
pub const SCHEME: &str = "policylens-cluster";

/// Workspace paths of objects read from the cluster start so (`policylens-cluster` names them).
const PATH_PREFIX: &str = "cluster://";

pub fn is_cluster_path(path: &str) -> bool {
    path.starts_with(PATH_PREFIX)
}

/// `cluster://CONTEXT/NAMESPACE/Kind.group/NAME` → `policylens-cluster:/CONTEXT/NAMESPACE/Kind.group/NAME.yaml`
/// (each part percent-encoded: a context name may hold `/` and `:`). The `.yaml` lets editors
/// pick the YAML mode.
pub fn uri(path: &str) -> Option<Uri> {
    let rest = path.strip_prefix(PATH_PREFIX)?;
    // The context may hold `/`; namespace, kind and name cannot.
    let mut parts: Vec<&str> = rest.rsplitn(4, '/').collect();
    if parts.len() != 4 {
        return None;
    }
    parts.reverse();
    let encoded: Vec<String> = parts.iter().map(|p| encode(p)).collect();
    Uri::from_str(&format!("{SCHEME}:/{}.yaml", encoded.join("/"))).ok()
}

/// The workspace path a `policylens-cluster:` URI names.
pub fn path(uri: &Uri) -> Option<String> {
    let text = uri.as_str();
    let rest = text.strip_prefix(SCHEME)?.strip_prefix(':')?.trim_start_matches('/');
    let rest = rest.strip_suffix(".yaml").unwrap_or(rest);
    let parts: Vec<String> = rest.split('/').map(decode).collect::<Option<_>>()?;
    (parts.len() == 4).then(|| format!("{PATH_PREFIX}{}", parts.join("/")))
}

fn encode(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for b in part.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(part: &str) -> Option<String> {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = part.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// An object as YAML, with where each of its nodes landed.
pub struct Rendered {
    pub text: String,
    /// (span in the JSON, byte range in `text`), for every node written.
    places: Vec<(Span, Span)>,
}

impl Rendered {
    /// The YAML range of a JSON span: the node it is, else the start of the smallest node
    /// around its start.
    pub fn range(&self, span: Span, enc: PositionEncoding) -> Range {
        let found = self.places.iter().find(|(j, _)| *j == span).map(|&(_, y)| y).or_else(|| {
            self.places
                .iter()
                .filter(|(j, _)| j.start <= span.start && span.start < j.end.max(j.start + 1))
                .min_by_key(|(j, _)| j.len())
                .map(|&(_, y)| Span::new(y.start, y.start))
        });
        let y = found.unwrap_or_default();
        Range::new(self.position(y.start, enc), self.position(y.end, enc))
    }

    fn position(&self, offset: u32, enc: PositionEncoding) -> Position {
        let before = self.text.get(..(offset as usize).min(self.text.len())).unwrap_or("");
        let line = before.matches('\n').count() as u32;
        let last = before.rsplit('\n').next().unwrap_or("");
        let col = match enc {
            PositionEncoding::Utf8 => last.len(),
            PositionEncoding::Utf16 => last.encode_utf16().count(),
            PositionEncoding::Utf32 => last.chars().count(),
        };
        Position::new(line, col as u32)
    }
}

/// The object of a cluster file's JSON text as YAML.
pub fn render(json: &str) -> Rendered {
    let parsed = policylens_core::syntax::parse_file(json);
    let mut r = Rendered { text: String::new(), places: Vec::new() };
    if let Some(root) = parsed.documents.first().and_then(|d| d.root.as_ref()) {
        block(&mut r, root, 0, &[]);
    }
    r
}

fn key_of(e: &Entry) -> &str {
    e.key.as_scalar().map_or("", |s| s.value.as_str())
}

/// A mapping or sequence written as block YAML at `indent`, each line ending in a newline.
fn block(r: &mut Rendered, node: &Node, indent: usize, path: &[&str]) {
    let pad = " ".repeat(indent);
    match &node.kind {
        NodeKind::Mapping(entries) => {
            // kubectl writes keys sorted (apiVersion, kind, metadata, spec, status), whatever
            // order the API server sent them in.
            let mut sorted: Vec<&Entry> = entries.iter().collect();
            sorted.sort_by(|a, b| key_of(a).cmp(key_of(b)));
            let mut first = true;
            for e in sorted {
                let key = key_of(e);
                // kubectl hides them too: the server's bookkeeping of who wrote which field.
                if path == ["metadata"] && key == "managedFields" {
                    continue;
                }
                // The first entry of a sequence item follows its `- `.
                if !(first && r.text.ends_with("- ")) {
                    r.text.push_str(&pad);
                }
                first = false;
                scalar(r, &e.key, true);
                r.text.push(':');
                let mut inner = path.to_vec();
                inner.push(key);
                value(r, &e.value, indent + 2, &inner);
            }
        }
        NodeKind::Sequence(items) => {
            for item in items {
                r.text.push_str(&pad);
                r.text.push_str("- ");
                match &item.kind {
                    NodeKind::Mapping(m) if !m.is_empty() => {
                        let start = r.text.len() as u32;
                        block(r, item, indent + 2, path);
                        r.places.push((item.span, Span::new(start, r.text.len() as u32)));
                    }
                    NodeKind::Sequence(s) if !s.is_empty() => {
                        r.text.push('\n');
                        let start = r.text.len() as u32;
                        block(r, item, indent + 2, path);
                        r.places.push((item.span, Span::new(start, r.text.len() as u32)));
                    }
                    _ => {
                        inline(r, item);
                        r.text.push('\n');
                    }
                }
            }
        }
        _ => {
            r.text.push_str(&pad);
            inline(r, node);
            r.text.push('\n');
        }
    }
}

/// What follows `key:`: a scalar or empty collection on the line, else the block below.
fn value(r: &mut Rendered, node: &Node, indent: usize, path: &[&str]) {
    let nested = match &node.kind {
        NodeKind::Mapping(m) => !m.is_empty(),
        NodeKind::Sequence(s) => !s.is_empty(),
        _ => false,
    };
    if nested {
        r.text.push('\n');
        let start = r.text.len() as u32;
        // Sequences under a key are written at the key's indentation, as kubectl does.
        let at = if matches!(node.kind, NodeKind::Sequence(_)) { indent - 2 } else { indent };
        block(r, node, at, path);
        r.places.push((node.span, Span::new(start, r.text.len() as u32)));
    } else {
        r.text.push(' ');
        inline(r, node);
        r.text.push('\n');
    }
}

fn inline(r: &mut Rendered, node: &Node) {
    match &node.kind {
        NodeKind::Mapping(_) => r.text.push_str("{}"),
        NodeKind::Sequence(_) => r.text.push_str("[]"),
        NodeKind::Scalar(_) => scalar(r, node, false),
        NodeKind::Alias | NodeKind::Missing => r.text.push_str("null"),
    }
}

/// A scalar: a JSON string plain where YAML reads it back as the same string, else quoted
/// with JSON's escapes (valid in YAML's double quotes); numbers, booleans and null as written.
fn scalar(r: &mut Rendered, node: &Node, key: bool) {
    let start = r.text.len() as u32;
    if let Some(s) = node.as_scalar() {
        if s.style == ScalarStyle::Plain && !key {
            r.text.push_str(if node.is_null() { "null" } else { &s.value });
        } else if plain_safe(&s.value) {
            r.text.push_str(&s.value);
        } else {
            r.text.push_str(&serde_json::to_string(s.value.as_str()).unwrap_or_else(|_| "\"\"".into()));
        }
    } else {
        r.text.push_str("null");
    }
    r.places.push((node.span, Span::new(start, r.text.len() as u32)));
}

/// Whether a string can be written plain and read back as the same string: no indicator at
/// the start, no `: ` or ` #` inside, and not a word or number YAML would read as another type.
fn plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if !(first.is_ascii_alphabetic() || first == '/' || first == '_') {
        return false;
    }
    if s.ends_with(' ') || s.ends_with(':') || s.contains(": ") || s.contains(" #") {
        return false;
    }
    if !s.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    !matches!(lower.as_str(), "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n" | "~")
        && !lower.starts_with(".inf")
        && lower != ".nan"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_contexts_with_slashes() {
        let p =
            "cluster://arn:aws:eks:eu-west-1:1:cluster/prod/shop/BackendTrafficPolicy.gateway.envoyproxy.io/retries";
        let u = uri(p).unwrap();
        assert_eq!(
            u.as_str(),
            "policylens-cluster:/arn%3Aaws%3Aeks%3Aeu-west-1%3A1%3Acluster%2Fprod/shop/BackendTrafficPolicy.gateway.envoyproxy.io/retries.yaml"
        );
        assert_eq!(path(&u).as_deref(), Some(p));
        assert_eq!(path(&Uri::from_str("file:///tmp/a.yaml").unwrap()), None);
    }

    #[test]
    fn json_becomes_yaml_and_spans_follow() {
        let json = r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"checkout","namespace":"shop","managedFields":[{"manager":"kubectl"}],"labels":{"app":"true","tier":"web"},"creationTimestamp":"2025-03-01T10:00:00Z"},"spec":{"ports":[{"name":"http","port":8080},{"name":"grpc","port":9090,"appProtocol":"a: b"}],"selector":{},"clusterIPs":["10.0.0.1"],"x":null}}"#;
        let r = render(json);
        assert_eq!(
            r.text,
            "apiVersion: v1\nkind: Service\nmetadata:\n  creationTimestamp: \"2025-03-01T10:00:00Z\"\n  labels:\n    app: \"true\"\n    tier: web\n  name: checkout\n  namespace: shop\nspec:\n  clusterIPs:\n  - \"10.0.0.1\"\n  ports:\n  - name: http\n    port: 8080\n  - appProtocol: \"a: b\"\n    name: grpc\n    port: 9090\n  selector: {}\n  x: null\n"
        );
        // The second port's name, found by its span in the JSON.
        let at = json.find(r#""grpc""#).unwrap() as u32;
        let range = r.range(Span::new(at, at + 6), PositionEncoding::Utf16);
        assert_eq!((range.start, range.end), (Position::new(16, 10), Position::new(16, 14)));
        // A span inside no node written lands on the start of the node around it.
        let port = json.find("9090").unwrap() as u32;
        assert_eq!(r.range(Span::new(port + 1, port + 2), PositionEncoding::Utf16).start, Position::new(17, 10));
    }
}
