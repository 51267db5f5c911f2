//! Edges in compressed rows: one offsets array and one targets array for the whole graph
//! instead of two small vectors per node (tens of thousands of allocations at 10k objects).

use super::NodeId;

#[derive(Debug, Default)]
pub(super) struct Adjacency {
    /// `targets[offsets[n]..offsets[n + 1]]` are node `n`'s neighbours.
    offsets: Vec<u32>,
    targets: Vec<NodeId>,
}

impl Adjacency {
    /// The rows of `nodes` nodes from `(from, to)` edges; each row keeps the edges' order.
    pub(super) fn new(nodes: usize, edges: &[(NodeId, NodeId)]) -> Adjacency {
        let mut offsets = vec![0u32; nodes + 1];
        for &(from, _) in edges {
            offsets[from.0 as usize + 1] += 1;
        }
        for i in 0..nodes {
            offsets[i + 1] += offsets[i];
        }
        let mut fill: Vec<u32> = offsets[..nodes].to_vec();
        let mut targets = vec![NodeId(0); edges.len()];
        for &(from, to) in edges {
            let at = &mut fill[from.0 as usize];
            targets[*at as usize] = to;
            *at += 1;
        }
        Adjacency { offsets, targets }
    }

    pub(super) fn get(&self, node: NodeId) -> &[NodeId] {
        let i = node.0 as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.targets[a as usize..b as usize],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_edge_order() {
        let n = NodeId;
        let adj = Adjacency::new(4, &[(n(2), n(0)), (n(0), n(3)), (n(2), n(1)), (n(0), n(1))]);
        assert_eq!(adj.get(n(0)), &[n(3), n(1)]);
        assert_eq!(adj.get(n(1)), &[]);
        assert_eq!(adj.get(n(2)), &[n(0), n(1)]);
        assert_eq!(adj.get(n(3)), &[]);
        assert_eq!(adj.get(n(9)), &[]);
    }
}
