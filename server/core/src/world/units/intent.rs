//! Files and documents not meant to be applied (docs/semantics.md §4.8): inputs a test expects
//! to fail, and scaffolds. Nothing is reported on them but `yaml-syntax`, and they take part in
//! no other file's analysis: their objects are in no unit.

use crate::model::{Intent, Object};

/// Words that name an input meant to fail, in a file's or folder's name inside a folder of
/// cases (`invalid.yaml`, `reqauth-invalid.yaml`, `with_wrong_service_port.yml`, `bad/`).
const FAILURE_WORDS: &[&str] =
    &["invalid", "bad", "broken", "wrong", "error", "errors", "reject", "rejected", "negative"];

/// Whether a file of a folder of cases is named for failure: a name, from the outermost case
/// folder `case_root` down to the file, one of whose words (split at `-`, `_`, `.`) is one of
/// [`FAILURE_WORDS`].
pub(super) fn named_for_failure(rel: &str, case_root: &str) -> bool {
    let below = rel.strip_prefix(case_root).unwrap_or(rel);
    let root_name = case_root.rsplit('/').next().unwrap_or(case_root);
    std::iter::once(root_name)
        .chain(below.split('/'))
        .flat_map(|part| part.split(['-', '_', '.']))
        .any(|w| FAILURE_WORDS.iter().any(|f| w.eq_ignore_ascii_case(f)))
}

/// Whether a file lies where kubebuilder writes the samples it scaffolds.
pub(super) fn in_samples(rel: &str) -> bool {
    rel.starts_with("config/samples/") || rel.contains("/config/samples/")
}

/// Whether an object of a file takes part in nothing: an input meant to fail wherever it is,
/// a scaffold in `config/samples`.
pub(super) fn inert(o: &Object, samples: bool) -> bool {
    match o.intent {
        Intent::Applied => false,
        Intent::MeantToFail => true,
        Intent::ScaffoldLike => samples,
    }
}

#[cfg(test)]
mod tests {
    use super::{in_samples, named_for_failure};

    #[test]
    fn inputs_are_named_for_failure_by_their_words() {
        let t = |rel| named_for_failure(rel, "conformance/tests");
        assert!(t("conformance/tests/httproute-invalid-cross-namespace-backend-ref.yaml"));
        assert!(t("conformance/tests/bad/route.yaml"));
        assert!(t("conformance/tests/with_wrong_service_port.yml"));
        assert!(t("conformance/tests/reqauth_invalid.yaml"));
        assert!(!t("conformance/tests/httproute-simple-same-namespace.yaml"));
        // Words, not parts of words: `errorpages`, `badge`, `invalidation` say nothing.
        assert!(!t("conformance/tests/errorpages.yaml"));
        assert!(!t("conformance/tests/badge/route.yaml"));
        assert!(named_for_failure("invalid-examples/a.yaml", "invalid-examples"));
        assert!(!named_for_failure("examples/a.yaml", "examples"));
    }

    #[test]
    fn samples_are_where_kubebuilder_writes_them() {
        assert!(in_samples("config/samples/kuadrant_v1_dnspolicy.yaml"));
        assert!(in_samples("cmd/extensions/plan-policy/config/samples/x.yaml"));
        assert!(!in_samples("examples/samples/x.yaml"));
    }
}
