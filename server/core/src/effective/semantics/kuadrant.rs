//! Kuadrant (AuthPolicy, RateLimitPolicy, TokenRateLimitPolicy): `defaults`/`overrides` with
//! `strategy: atomic|merge`; bare `rules`/`limits` are implicit defaults. `merge` (the catalog's
//! `Custom`) unions the named rules: a rule is the unit that wins or loses whole, the more
//! specific one for defaults, the less specific one for overrides. The generic fold does the
//! rest once rules are leaves.

/// Whether the mapping at `path` (keys from the spec proper's root) is one named rule.
pub fn is_rule(path: &[&str]) -> bool {
    match path {
        // RateLimitPolicy / TokenRateLimitPolicy limits, AuthPolicy named patterns.
        ["limits" | "patterns", _] => true,
        ["rules", "authentication" | "metadata" | "authorization" | "callbacks", _] => true,
        ["rules", "response", "success", "headers" | "filters", _] => true,
        ["rules", "response", "unauthenticated" | "unauthorized"] => true,
        // Anything else at the top (`when`, ...) is taken whole.
        [k] => !matches!(*k, "limits" | "patterns" | "rules"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<&str> {
        s.split('/').collect()
    }

    #[test]
    fn effective_kuadrant_rule_units() {
        assert!(is_rule(&p("limits/per-user")));
        assert!(is_rule(&p("rules/authentication/sso")));
        assert!(is_rule(&p("rules/response/success/headers/x-user")));
        assert!(is_rule(&p("when")));
        assert!(!is_rule(&p("limits")));
        assert!(!is_rule(&p("rules/authentication")));
        assert!(!is_rule(&p("limits/per-user/rates")));
    }
}
