//! References inside a policy's spec proper at the paths its kind's implementation defines
//! (Envoy Gateway's `extAuth.http.backendRefs[]`, ...): read on demand from the kept spec,
//! since which paths hold references depends on the kind, which the catalog knows.

use super::read;
use crate::model::RefFields;
use crate::syntax::Node;

/// One step of a [`spec_path_steps`] path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStep<'a> {
    /// A mapping key.
    Key(&'a str),
    /// Every item of a list.
    Each,
}

/// The steps of a path written `extAuth.http.backendRefs[]`: keys separated by dots, `[]`
/// after a key for every item of its list.
pub fn spec_path_steps(path: &str) -> impl Iterator<Item = PathStep<'_>> {
    path.split('.').filter(|s| !s.is_empty()).flat_map(|seg| {
        let (key, each) = match seg.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (seg, false),
        };
        std::iter::once(PathStep::Key(key)).chain(each.then_some(PathStep::Each))
    })
}

/// The references at `path` under `spec` (the spec's mapping), in document order: each
/// mapping the path reaches. Values of another type read as absent.
pub fn spec_refs_at(spec: &Node, path: &str) -> Vec<RefFields> {
    let mut nodes: Vec<&Node> = vec![spec];
    for step in spec_path_steps(path) {
        nodes = match step {
            PathStep::Key(k) => nodes.into_iter().filter_map(|n| n.get(k)).collect(),
            PathStep::Each => nodes.into_iter().flat_map(|n| read::seq(Some(n))).collect(),
        };
        if nodes.is_empty() {
            return Vec::new();
        }
    }
    nodes.into_iter().filter(|n| n.as_mapping().is_some()).map(read::ref_fields).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse_file;

    fn spec(yaml: &str) -> Node {
        match parse_file(yaml).documents.into_iter().next().and_then(|d| d.root) {
            Some(n) => n,
            None => panic!("no document"),
        }
    }

    fn names(spec: &Node, path: &str) -> Vec<String> {
        spec_refs_at(spec, path).iter().map(|r| r.name.as_ref().map_or("-".into(), |n| n.value.to_string())).collect()
    }

    #[test]
    fn paths_split_into_keys_and_every_item() {
        let steps: Vec<PathStep<'_>> = spec_path_steps("jwt.providers[].remoteJWKS.backendRefs[]").collect();
        use PathStep::{Each, Key};
        assert_eq!(steps, vec![Key("jwt"), Key("providers"), Each, Key("remoteJWKS"), Key("backendRefs"), Each]);
    }

    #[test]
    fn refs_are_read_at_their_paths_and_wrong_types_read_as_absent() {
        let s = spec(
            "jwt:\n  providers:\n  - name: a\n    remoteJWKS:\n      backendRefs:\n      - name: jwks\n        port: 443\n      - oops\n  - name: b\n    remoteJWKS: {uri: x}\n  - name: c\n    remoteJWKS:\n      backendRefs: [{name: jwks2, namespace: idp}]\nextAuth:\n  http:\n    backendRef: {name: auth}\n",
        );
        assert_eq!(names(&s, "jwt.providers[].remoteJWKS.backendRefs[]"), vec!["jwks", "jwks2"]);
        assert_eq!(names(&s, "extAuth.http.backendRef"), vec!["auth"]);
        assert_eq!(names(&s, "extAuth.grpc.backendRefs[]"), Vec::<String>::new());
        assert_eq!(names(&s, "jwt.providers"), Vec::<String>::new(), "a list is not a reference");
        let r = &spec_refs_at(&s, "jwt.providers[].remoteJWKS.backendRefs[]")[0];
        assert_eq!(r.port.as_ref().map(|p| p.value), Some(443));
    }
}
