//! Kubernetes label selectors.

use super::Str;

#[derive(Clone, Debug, PartialEq, Default)]
pub struct LabelSelector {
    pub match_labels: Vec<(Str, Str)>,
    pub match_expressions: Vec<LabelExpr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LabelExpr {
    pub key: String,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`.
    pub operator: String,
    pub values: Vec<String>,
}

impl LabelSelector {
    /// Whether `labels` (sorted by key) satisfy the selector. An empty selector matches
    /// everything; an unknown operator matches nothing.
    pub fn matches(&self, labels: &[(Str, Str)]) -> bool {
        let get = |k: &str| labels.binary_search_by(|(lk, _)| lk.as_str().cmp(k)).ok().map(|i| labels[i].1.as_str());
        self.match_labels.iter().all(|(k, v)| get(k) == Some(v.as_str()))
            && self.match_expressions.iter().all(|e| {
                let got = get(&e.key);
                match e.operator.as_str() {
                    "In" => got.is_some_and(|g| e.values.iter().any(|v| v == g)),
                    "NotIn" => got.is_none_or(|g| e.values.iter().all(|v| v != g)),
                    "Exists" => got.is_some(),
                    "DoesNotExist" => got.is_none(),
                    _ => false,
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Vec<(Str, Str)> {
        let mut v: Vec<_> = pairs.iter().map(|(k, v)| (Str::from(*k), Str::from(*v))).collect();
        v.sort();
        v
    }

    #[test]
    fn match_labels_and_expressions() {
        let sel = LabelSelector {
            match_labels: vec![("team".into(), "shop".into())],
            match_expressions: vec![LabelExpr {
                key: "env".into(),
                operator: "In".into(),
                values: vec!["prod".into(), "stage".into()],
            }],
        };
        assert!(sel.matches(&labels(&[("team", "shop"), ("env", "prod")])));
        assert!(!sel.matches(&labels(&[("team", "shop"), ("env", "dev")])));
        assert!(!sel.matches(&labels(&[("env", "prod")])));
        assert!(LabelSelector::default().matches(&[]));
    }
}
