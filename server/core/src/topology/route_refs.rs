//! How every route's references resolved, in flat arrays: per route a run of parentRef
//! results and a run of rules, per rule a run of backendRef results. A vector per route and
//! per rule cost more than the results they held.

use super::{BackendResolution, ParentResolution};
use crate::world::ObjId;

#[derive(Debug, Default)]
pub(super) struct RouteRefs {
    /// (route, its first parent result, its first rule), in route order; a route's runs end
    /// where the next route's begin.
    routes: Vec<(ObjId, u32, u32)>,
    parents: Vec<ParentResolution>,
    /// The first backend result of each rule.
    rules: Vec<u32>,
    backends: Vec<BackendResolution>,
}

impl RouteRefs {
    /// Starts the next route; routes come in increasing id order.
    pub(super) fn begin_route(&mut self, route: ObjId) {
        debug_assert!(self.routes.last().is_none_or(|&(r, _, _)| r < route));
        self.routes.push((route, self.parents.len() as u32, self.rules.len() as u32));
    }

    pub(super) fn push_parent(&mut self, res: ParentResolution) {
        self.parents.push(res);
    }

    /// Starts the current route's next rule.
    pub(super) fn begin_rule(&mut self) {
        self.rules.push(self.backends.len() as u32);
    }

    pub(super) fn push_backend(&mut self, res: BackendResolution) {
        self.backends.push(res);
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.routes.shrink_to_fit();
        self.parents.shrink_to_fit();
        self.rules.shrink_to_fit();
        self.backends.shrink_to_fit();
    }

    pub(super) fn routes(&self) -> impl Iterator<Item = ObjId> + '_ {
        self.routes.iter().map(|&(r, _, _)| r)
    }

    pub(super) fn parents(&self, route: ObjId) -> &[ParentResolution] {
        self.runs(route).map_or(&[], |(p, _)| &self.parents[p])
    }

    /// Per rule of `route`, its backend results.
    pub(super) fn rules(&self, route: ObjId) -> impl Iterator<Item = &[BackendResolution]> + '_ {
        let rules = self.runs(route).map_or(0..0, |(_, r)| r);
        rules.map(|k| {
            let end = self.rules.get(k + 1).map_or(self.backends.len(), |&e| e as usize);
            &self.backends[self.rules[k] as usize..end]
        })
    }

    /// The ranges of `route`'s parent results and of its rules.
    fn runs(&self, route: ObjId) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        let i = self.routes.binary_search_by_key(&route, |&(r, _, _)| r).ok()?;
        let (_, p, r) = self.routes[i];
        let (p_end, r_end) = match self.routes.get(i + 1) {
            Some(&(_, p2, r2)) => (p2 as usize, r2 as usize),
            None => (self.parents.len(), self.rules.len()),
        };
        Some((p as usize..p_end, r as usize..r_end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_split_at_the_next_route() {
        let mut rr = RouteRefs::default();
        let nf = |s: &str| {
            BackendResolution::NotFound(Box::new(super::super::Missing { suggestion: Some(s.into()), unknown: None }))
        };
        rr.begin_route(ObjId(1));
        rr.push_parent(ParentResolution::Unchecked);
        rr.begin_rule();
        rr.push_backend(nf("a"));
        rr.push_backend(nf("b"));
        rr.begin_rule();
        rr.begin_route(ObjId(4));
        rr.begin_rule();
        rr.push_backend(nf("c"));
        rr.begin_route(ObjId(7));
        assert_eq!(rr.parents(ObjId(1)), &[ParentResolution::Unchecked]);
        assert_eq!(rr.parents(ObjId(4)), &[]);
        let rules: Vec<Vec<BackendResolution>> = rr.rules(ObjId(1)).map(<[_]>::to_vec).collect();
        assert_eq!(rules, vec![vec![nf("a"), nf("b")], vec![]]);
        let rules: Vec<usize> = rr.rules(ObjId(4)).map(<[_]>::len).collect();
        assert_eq!(rules, vec![1]);
        assert_eq!(rr.rules(ObjId(7)).count(), 0);
        assert_eq!(rr.rules(ObjId(2)).count(), 0);
        assert_eq!(rr.routes().collect::<Vec<_>>(), vec![ObjId(1), ObjId(4), ObjId(7)]);
    }
}
