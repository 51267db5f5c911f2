//! Listener/route hostname intersection (Gateway API: a wildcard label matches one or more
//! labels; `*.example.com` does not match `example.com`).

/// Whether a listener hostname and a route hostname can both match some request host.
pub fn intersect(listener: &str, route: &str) -> bool {
    let l = listener.to_ascii_lowercase();
    let r = route.to_ascii_lowercase();
    matches(&l, &r) || matches(&r, &l)
}

/// Whether `pattern` (possibly `*.suffix`) matches `host` (possibly itself a wildcard, which
/// then must be at least as specific).
fn matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix('*') {
        Some(suffix) => {
            let host = host.strip_prefix('*').unwrap_or(host);
            host.len() > suffix.len() && host.ends_with(suffix) || (host.starts_with('.') && host == suffix)
        }
        None => pattern == host,
    }
}

#[cfg(test)]
mod tests {
    use super::intersect;

    #[test]
    fn wildcards() {
        assert!(intersect("*.example.com", "shop.example.com"));
        assert!(intersect("*.example.com", "a.b.example.com"));
        assert!(!intersect("*.example.com", "example.com"));
        assert!(intersect("shop.example.com", "*.example.com"));
        assert!(intersect("*.example.com", "*.example.com"));
        assert!(intersect("*.example.com", "*.shop.example.com"));
        assert!(!intersect("shop.example.com", "cart.example.com"));
        assert!(intersect("Shop.Example.com", "shop.example.com"));
    }
}
