//! Paths from the roots of the DAG to a node: the contexts in which policies combine.

use super::{DagNode, NodeId, Topology};
use crate::model::Body;
use crate::world::World;

/// The most paths one query enumerates; beyond it the answer is marked truncated.
#[derive(Clone, Copy, Debug)]
pub struct PathLimit(pub usize);

impl Default for PathLimit {
    fn default() -> Self {
        PathLimit(10_000)
    }
}

impl Topology {
    /// Every path from a root to `target`, each listed root first. Cycles (mesh routes whose
    /// parent is also their backend) are cut. A path to a Service port only passes through the
    /// rules whose backendRef uses that port. Returns whether the limit cut the list short.
    pub fn paths_to(&self, world: &World, target: NodeId, limit: PathLimit) -> (Vec<Vec<NodeId>>, bool) {
        let mut out = Vec::new();
        let mut path = vec![target];
        let port = self.port_of(world, target);
        let truncated = self.walk_up(target, port, &mut path, &mut out, limit.0);
        for p in &mut out {
            p.reverse();
        }
        (out, truncated)
    }

    /// DFS towards the roots. `port`: the Service port number the path must carry once it
    /// reaches the Service above a port section.
    fn walk_up(
        &self,
        node: NodeId,
        port: Option<i64>,
        path: &mut Vec<NodeId>,
        out: &mut Vec<Vec<NodeId>>,
        limit: usize,
    ) -> bool {
        let parents = self.parents(node);
        // Above a port section the path reaches its Service: there, keep only the parents
        // whose backendRef used that port, then stop filtering.
        let filter = port.filter(|_| matches!(self.node(node), DagNode::Object(_)));
        let next_port = if filter.is_some() { None } else { port };
        let mut any = false;
        let mut truncated = false;
        for &p in parents {
            if path.contains(&p) {
                continue;
            }
            let mut ports = self.edge_ports(p, node).peekable();
            if let Some(want) = filter
                && ports.peek().is_some()
                && !ports.any(|q| q.is_none() || q == Some(want))
            {
                continue;
            }
            any = true;
            if out.len() >= limit {
                return true;
            }
            path.push(p);
            truncated |= self.walk_up(p, next_port, path, out, limit);
            path.pop();
        }
        if !any {
            // A root, or every parent would close a cycle: the path starts here.
            out.push(path.clone());
        }
        truncated
    }

    /// The port number of a Service port section.
    pub(crate) fn port_of(&self, world: &World, node: NodeId) -> Option<i64> {
        match self.node(node) {
            DagNode::Section(o, i) => match &world.object(o).body {
                Body::Service(s) => s.ports.get(i as usize).and_then(|p| p.port),
                _ => None,
            },
            _ => None,
        }
    }
}
