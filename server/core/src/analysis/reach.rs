//! How far a set of effective targets spreads, in the words people count it in: "47 routes in
//! 12 namespaces". Rules count as their route, listeners as listeners, anything else as its
//! object. The code lens on a Gateway-wide policy and the what-if's "gone on ..." say it alike.

use std::collections::BTreeSet;
use std::fmt;

use crate::model::ObjectKey;

/// Targets counted by noun, and the namespaces of their objects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// `(noun, count)` in the order first met: `("route", 47)`.
    pub counts: Vec<(String, usize)>,
    pub namespaces: usize,
}

impl Reach {
    pub fn of<'a>(keys: impl IntoIterator<Item = &'a ObjectKey>) -> Reach {
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut namespaces: BTreeSet<&str> = BTreeSet::new();
        let mut counts: Vec<(String, usize)> = Vec::new();
        for k in keys {
            let (noun, what) = counted(k);
            if !seen.insert((noun.clone(), what)) {
                continue;
            }
            if let Some(ns) = &k.namespace {
                namespaces.insert(ns);
            }
            match counts.iter_mut().find(|(n, _)| *n == noun) {
                Some((_, c)) => *c += 1,
                None => counts.push((noun, 1)),
            }
        }
        Reach { counts, namespaces: namespaces.len() }
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The count of one noun (`route`).
    pub fn count(&self, noun: &str) -> usize {
        self.counts.iter().find(|(n, _)| n == noun).map_or(0, |(_, c)| *c)
    }
}

/// What a target counts as: a rule as its route, a listener or a port (of a Service, a
/// ServiceEntry, a Backend) as itself, anything else as its object.
fn counted(k: &ObjectKey) -> (String, String) {
    let object = ObjectKey { section: None, ..k.clone() }.to_string();
    let kind = k.gk.kind.as_str();
    if kind.ends_with("Route") {
        return ("route".into(), object);
    }
    match (kind, &k.section) {
        ("Gateway" | "ListenerSet" | "XListenerSet", Some(_)) => ("listener".into(), k.to_string()),
        ("Namespace", _) => ("namespace".into(), object),
        (_, Some(_)) => ("port".into(), k.to_string()),
        _ => (kind.to_owned(), object),
    }
}

/// `47 routes in 12 namespaces`, `1 listener`, `2 routes, 1 Service in 2 namespaces`: the
/// namespaces are counted where there are several (one says nothing the targets do not).
impl fmt::Display for Reach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.counts.iter().map(|(noun, c)| super::summary::plural(*c, noun)).collect();
        f.write_str(&parts.join(", "))?;
        let only_namespaces = self.counts.iter().all(|(n, _)| n == "namespace");
        if self.namespaces > 1 && !only_namespaces {
            write!(f, " in {}", super::summary::plural(self.namespaces, "namespace"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::is_core_kind;

    fn reach(keys: &[&str]) -> String {
        let keys: Vec<ObjectKey> = keys.iter().map(|k| ObjectKey::parse(k, is_core_kind).unwrap()).collect();
        Reach::of(&keys).to_string()
    }

    #[test]
    fn reach_counts_rules_as_routes_and_listeners_and_ports_as_themselves() {
        assert_eq!(
            reach(&["HTTPRoute/shop/a#x", "HTTPRoute/shop/a#y", "HTTPRoute/shop/b", "GRPCRoute/pay/c#r"]),
            "3 routes in 2 namespaces"
        );
        assert_eq!(reach(&["Gateway/infra/edge#http", "Gateway/infra/edge#https"]), "2 listeners");
        assert_eq!(
            reach(&["HTTPRoute/shop/a#x", "Service/shop/s#http", "Service/shop/s"]),
            "1 route, 1 port, 1 Service"
        );
        assert_eq!(reach(&["GatewayClass/eg"]), "1 GatewayClass");
    }
}
