//! Horizon's paths for a flow without a `paths` block (paper 003 §5.4; docs/horizon.md).
//!
//! The paper does not choose paths itself: "We use VRR to obtain link-state information. We use
//! static anchors, hand-picked for our test-bed (as explained in Section 6.1) to obtain
//! satisfactory disjoint paths ... we use only two paths per flow" (§5.4). The anchors are the
//! four bridges (§6.1: "Bridges also serve as static 'anchors'"), and "our test-bed has a form of
//! a ring, and offers two disjoint paths between any node-pairs" (§6.2): its paths went round the
//! ring, the two halves of a flow on different channels wherever the ring allows. Which paths
//! VRR gave is not in the text; airtcp picks them as follows:
//!
//! - the first path is the lightest by the metric (single-path TCP's, so that "the default path
//!   for S1-D1 is also the one that overlaps", §6.3);
//! - each further path is the lightest path that shares no node but the ends with those found,
//!   under one of two weights ([`PathChoice`]):
//!   - `Lightest`: the metric alone;
//!   - `InterferenceAware` (the default): a hop weighs its metric times one plus the number of
//!     hops of the paths already found that it contends with. A hop contends with another when
//!     both are on one channel and some radio at one end of the first is one of, or within the
//!     range the simulator's PHY processes signals from (the radios' neighbour lists: carrier
//!     sense or interference), the radios at the ends of the second
//!     (`Wireless::hops_contend`). With ETT as the metric, the weight is the air time a packet
//!     takes on the hop plus the air time it takes from each hop of the paths already found
//!     that must stay silent meanwhile; a hop on another channel, or out of range of them,
//!     costs its metric alone.
//!
//!   This is the correlation factor of node-disjoint paths (Wu & Harms, "On-demand multipath
//!   routing for mobile ad hoc networks", EPMCC 2001: the number of links joining the nodes of
//!   two disjoint paths) made a per-hop weight, with the channels of WCETT (Draves, Padhye & Zill,
//!   "Routing in multi-radio, multi-hop wireless mesh networks", MobiCom 2004: hops on one
//!   channel share its air, hops on different channels do not). Deviations: the weight is the
//!   product above (neither paper's formula), and contention is read from the radios' mean
//!   powers (a protocol model), not measured.
//! - where this greedy search finds fewer paths than the least-weight set of node-disjoint paths
//!   has (a "trap" topology), that set's paths are taken instead.

use std::collections::BTreeMap;

use crate::net::paths::{node_disjoint_paths, weighted_next_hops, DisjointPath};
use crate::net::routing::Edge;
use crate::sim::NodeId;

/// How a flow's paths after the first are weighed.
#[derive(Clone, Copy)]
pub enum PathChoice<'a> {
    /// By the metric alone.
    Lightest,
    /// Each hop's metric times one plus the number of hops already chosen it contends with;
    /// `contend(a, b)` says whether edges `a` and `b` (indices) contend.
    InterferenceAware(&'a dyn Fn(usize, usize) -> bool),
}

/// Horizon's `k` paths from `src` to `dst` (see the module header), fewer where fewer exist.
pub fn flow_paths(
    n: usize,
    edges: &[Edge],
    weight: &dyn Fn(usize) -> f64,
    (src, dst): (NodeId, NodeId),
    k: usize,
    choice: PathChoice<'_>,
) -> Vec<DisjointPath> {
    // The single path a flow with `paths: {kind: disjoint, k: 1}` takes: the baseline's.
    let Some(first) = node_disjoint_paths(n, edges, weight, src, dst, 1).pop() else {
        return Vec::new();
    };
    let lightest = lightest_edges(edges, weight);
    let mut found = vec![first.nodes];
    while found.len() < k {
        let hops = found_hops(&found, &lightest);
        let factor = contention_factors(edges, &hops, choice);
        let next = next_disjoint(n, edges, &|e| weight(e) * factor[e], &found, (src, dst));
        match next {
            Some(p) => found.push(p),
            None => break,
        }
    }
    if found.len() < k {
        let best = node_disjoint_paths(n, edges, weight, src, dst, k);
        if best.len() > found.len() {
            return best;
        }
    }
    found
        .into_iter()
        .map(|nodes| DisjointPath {
            nodes,
            edges: Vec::new(),
            weight: 0.0,
        })
        .collect()
}

/// The lightest path from `src` to `dst` under `weight` that shares no node but the ends with
/// the paths `found` (and no direct hop if one of them is it).
fn next_disjoint(
    n: usize,
    edges: &[Edge],
    weight: &dyn Fn(usize) -> f64,
    found: &[Vec<NodeId>],
    (src, dst): (NodeId, NodeId),
) -> Option<Vec<NodeId>> {
    let mut used = vec![false; n];
    for p in found {
        for &v in &p[1..p.len() - 1] {
            used[v as usize] = true;
        }
    }
    // A direct hop between the ends is one path at most.
    let direct = found.iter().any(|p| p.len() == 2);
    let free = |e: usize| {
        let edge = &edges[e];
        if used[edge.from as usize] || used[edge.to as usize] {
            return f64::INFINITY;
        }
        if direct && ((edge.from, edge.to) == (src, dst) || (edge.from, edge.to) == (dst, src)) {
            return f64::INFINITY;
        }
        weight(e)
    };
    weighted_next_hops(n, edges, &free, &[dst]).path(src, dst)
}

/// The edge a hop between two nodes takes: the lightest of the parallel ones, then the lowest
/// index (as `FlowPaths` resolves a path's hops).
fn lightest_edges(
    edges: &[Edge],
    weight: &dyn Fn(usize) -> f64,
) -> BTreeMap<(NodeId, NodeId), usize> {
    let mut best: BTreeMap<(NodeId, NodeId), usize> = BTreeMap::new();
    for (i, e) in edges.iter().enumerate() {
        best.entry((e.from, e.to))
            .and_modify(|b| {
                if weight(i) < weight(*b) {
                    *b = i;
                }
            })
            .or_insert(i);
    }
    best
}

/// The edges of the hops of the paths `found`.
fn found_hops(found: &[Vec<NodeId>], lightest: &BTreeMap<(NodeId, NodeId), usize>) -> Vec<usize> {
    found
        .iter()
        .flat_map(|p| p.windows(2))
        .filter_map(|w| lightest.get(&(w[0], w[1])).copied())
        .collect()
}

/// Each edge's weight factor: 1 under `Lightest`; one plus the number of `hops` it contends
/// with under `InterferenceAware`.
fn contention_factors(edges: &[Edge], hops: &[usize], choice: PathChoice<'_>) -> Vec<f64> {
    match choice {
        PathChoice::Lightest => vec![1.0; edges.len()],
        PathChoice::InterferenceAware(contend) => (0..edges.len())
            .map(|e| 1.0 + hops.iter().filter(|&&h| contend(e, h)).count() as f64)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::routing::Iface;

    fn radio_edge(from: NodeId, to: NodeId, radio: u32) -> Edge {
        Edge {
            from,
            to,
            iface: Iface::Radio(radio),
        }
    }

    /// Three node-disjoint ways from node 0 to node 3, every link both ways, one radio per node
    /// (radio = node): 0-1-3 and 0-2-3, as light as each other, and 0-4-5-3, one hop longer.
    fn ladder() -> Vec<Edge> {
        let mut edges = Vec::new();
        for (a, b) in [(0, 1), (1, 3), (0, 2), (2, 3), (0, 4), (4, 5), (5, 3)] {
            edges.push(radio_edge(a, b, a));
            edges.push(radio_edge(b, a, b));
        }
        edges
    }

    /// Whether two of the ladder's hops contend: they share a node, or one touches node 1 and
    /// the other node 2 (the only two relays within range of each other).
    fn ladder_contend(edges: &[Edge]) -> impl Fn(usize, usize) -> bool + '_ {
        move |a, b| {
            let (x, y) = (&edges[a], &edges[b]);
            let ends = |e: &Edge| [e.from, e.to];
            ends(x).iter().any(|u| {
                ends(y)
                    .iter()
                    .any(|v| u == v || (*u == 1 && *v == 2) || (*u == 2 && *v == 1))
            })
        }
    }

    #[test]
    fn the_lightest_choice_takes_the_neighbouring_path() {
        let edges = ladder();
        let paths = flow_paths(6, &edges, &|_| 1.0, (0, 3), 2, PathChoice::Lightest);
        let nodes: Vec<_> = paths.iter().map(|p| p.nodes.clone()).collect();
        assert_eq!(nodes, vec![vec![0, 1, 3], vec![0, 2, 3]]);
    }

    /// First path 0-1-3 (hops 0→1, 1→3). Candidates: 0-2-3, whose hops 0→2 (shares 0 with
    /// 0→1, and 2 is close to 1) and 2→3 (shares 3 with 1→3, close to 1 through 2) each contend
    /// with both first hops: weight 3 + 3 = 6; 0-4-5-3: 0→4 contends with 0→1 (node 0), 4→5
    /// with none, 5→3 with 1→3 (node 3): 2 + 1 + 2 = 5. The far path wins.
    #[test]
    fn the_interference_aware_choice_takes_the_far_path() {
        let edges = ladder();
        let contend = ladder_contend(&edges);
        let choice = PathChoice::InterferenceAware(&contend);
        let paths = flow_paths(6, &edges, &|_| 1.0, (0, 3), 2, choice);
        let nodes: Vec<_> = paths.iter().map(|p| p.nodes.clone()).collect();
        assert_eq!(nodes, vec![vec![0, 1, 3], vec![0, 4, 5, 3]]);
    }

    /// With nothing contending, the interference-aware weight is the metric: the same paths as
    /// the lightest choice.
    #[test]
    fn without_contention_both_choices_agree() {
        let edges = ladder();
        let never = |_: usize, _: usize| false;
        let aware = flow_paths(
            6,
            &edges,
            &|_| 1.0,
            (0, 3),
            3,
            PathChoice::InterferenceAware(&never),
        );
        let plain = flow_paths(6, &edges, &|_| 1.0, (0, 3), 3, PathChoice::Lightest);
        assert_eq!(aware, plain);
        assert_eq!(aware.len(), 3);
    }
}
