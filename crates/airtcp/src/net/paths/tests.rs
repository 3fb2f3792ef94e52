use super::super::routing::{Iface, RoutingTable};
use super::*;
use proptest::prelude::*;

fn ch(from: NodeId, to: NodeId, id: u32) -> Edge {
    Edge {
        from,
        to,
        iface: Iface::Channel(id),
    }
}

/// Both directions of every undirected pair, channel ids in order.
fn undirected(pairs: &[(NodeId, NodeId)]) -> Vec<Edge> {
    let mut edges = Vec::new();
    for &(a, b) in pairs {
        let id = edges.len() as u32;
        edges.push(ch(a, b, id));
        edges.push(ch(b, a, id + 1));
    }
    edges
}

/// `rows x cols` grid, node `r * cols + c`.
fn grid(rows: u32, cols: u32) -> Vec<Edge> {
    let mut pairs = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let v = r * cols + c;
            if c + 1 < cols {
                pairs.push((v, v + 1));
            }
            if r + 1 < rows {
                pairs.push((v, v + cols));
            }
        }
    }
    undirected(&pairs)
}

#[test]
fn dijkstra_prefers_light_paths_over_short_ones() {
    // 0 -> 2 directly (weight 5) or via 1 (1 + 1).
    let edges = [ch(0, 2, 0), ch(0, 1, 1), ch(1, 2, 2)];
    let w = [5.0, 1.0, 1.0];
    let t = weighted_next_hops(3, &edges, &|i| w[i], &[2]);
    assert_eq!(t.next_hop(0, 2).unwrap().node, 1);
    assert_eq!(t.cost(0, 2), Some(2.0));
    assert_eq!(t.path(0, 2), Some(vec![0, 1, 2]));
    // Equal weight: fewer hops wins.
    let w = [2.0, 1.0, 1.0];
    let t = weighted_next_hops(3, &edges, &|i| w[i], &[2]);
    assert_eq!(t.next_hop(0, 2).unwrap().iface, Iface::Channel(0));
}

#[test]
fn infinite_weight_edges_are_unusable() {
    let edges = [ch(0, 1, 0), ch(1, 2, 1)];
    let t = weighted_next_hops(3, &edges, &|i| [1.0, f64::INFINITY][i], &[2]);
    assert!(!t.reachable(0, 2));
    assert_eq!(t.cost(0, 2), None);
    assert_eq!(t.cost(2, 2), Some(0.0));
    assert_eq!(t.next_hop(0, 1), None, "1 is not a destination");
}

#[test]
fn etx_matches_de_couto() {
    assert_eq!(etx(1.0, 1.0), 1.0);
    assert!((etx(0.8, 0.9) - 1.0 / 0.72).abs() < 1e-12);
    assert_eq!(etx(0.0, 0.5), f64::INFINITY);
    // Two perfect hops (ETX 2) beat one hop at 40% x 100% (ETX 2.5).
    assert!(path_etx(&[(1.0, 1.0), (1.0, 1.0)]) < path_etx(&[(0.4, 1.0)]));
    let edges = [ch(0, 1, 0), ch(1, 0, 1), ch(0, 2, 2), ch(2, 1, 3)];
    let d = |a: NodeId, b: NodeId| if (a, b) == (0, 1) { 0.5 } else { 1.0 };
    let w = etx_weights(&edges, &d);
    assert_eq!(w, vec![2.0, 2.0, 1.0, 1.0]);
    let t = weighted_next_hops(3, &edges, &|i| w[i], &[1]);
    // 0 -> 2 -> 1 (ETX 2) ties 0 -> 1 (ETX 2) on weight; one hop wins.
    assert_eq!(t.next_hop(0, 1).unwrap().node, 1);
}

#[test]
fn grid_has_two_disjoint_corner_paths() {
    let edges = grid(3, 3);
    let paths = node_disjoint_paths(9, &edges, &|_| 1.0, 0, 8, 2);
    assert_eq!(paths.len(), 2);
    for p in &paths {
        assert_eq!(p.nodes.first(), Some(&0));
        assert_eq!(p.nodes.last(), Some(&8));
        assert_eq!(p.edges.len(), 4, "both are shortest: {paths:?}");
        assert_eq!(p.weight, 4.0);
    }
    let inner = |p: &DisjointPath| p.nodes[1..p.nodes.len() - 1].to_vec();
    assert!(inner(&paths[0])
        .iter()
        .all(|v| !inner(&paths[1]).contains(v)));
    // A corner has two neighbours: asking for three still gives two.
    assert_eq!(node_disjoint_paths(9, &edges, &|_| 1.0, 0, 8, 3).len(), 2);
    // Centre to centre-ish: node 4 has four neighbours, node 1 three.
    assert_eq!(node_disjoint_paths(9, &edges, &|_| 1.0, 4, 1, 5).len(), 3);
}

#[test]
fn chain_has_one_disjoint_path() {
    let edges = undirected(&[(0, 1), (1, 2), (2, 3)]);
    let paths = node_disjoint_paths(4, &edges, &|_| 1.0, 0, 3, 2);
    assert_eq!(paths.len(), 1);
    assert_eq!(paths[0].nodes, vec![0, 1, 2, 3]);
    assert_eq!(paths[0].edges, vec![0, 2, 4]);
}

#[test]
fn disjoint_paths_need_rerouting_of_the_shortest() {
    // The classic trap for greedy path removal: the single shortest path 0-1-2-3 blocks any
    // second path, but 0-1-3 and 0-2-3 are disjoint.
    let edges = [
        ch(0, 1, 0),
        ch(1, 2, 1),
        ch(2, 3, 2),
        ch(1, 3, 3),
        ch(0, 2, 4),
    ];
    let w = [1.0, 1.0, 1.0, 3.0, 3.0];
    let paths = node_disjoint_paths(4, &edges, &|i| w[i], 0, 3, 2);
    let nodes: Vec<_> = paths.iter().map(|p| p.nodes.clone()).collect();
    assert_eq!(nodes, vec![vec![0, 1, 3], vec![0, 2, 3]]);
    assert_eq!(paths[0].weight + paths[1].weight, 8.0);
    // k = 1 takes the lightest single path.
    let one = node_disjoint_paths(4, &edges, &|i| w[i], 0, 3, 1);
    assert_eq!(one[0].nodes, vec![0, 1, 2, 3]);
}

#[test]
fn direct_edge_counts_once_and_degenerate_calls_are_empty() {
    let edges = [ch(0, 1, 0), ch(0, 1, 1), ch(0, 2, 2), ch(2, 1, 3)];
    let paths = node_disjoint_paths(3, &edges, &|_| 1.0, 0, 1, 5);
    let nodes: Vec<_> = paths.iter().map(|p| p.nodes.clone()).collect();
    assert_eq!(nodes, vec![vec![0, 1], vec![0, 2, 1]]);
    assert_eq!(paths[0].edges, vec![0]);
    assert!(node_disjoint_paths(3, &edges, &|_| 1.0, 1, 1, 2).is_empty());
    assert!(node_disjoint_paths(3, &edges, &|_| 1.0, 0, 1, 0).is_empty());
    assert!(node_disjoint_paths(3, &edges, &|_| 1.0, 1, 0, 2).is_empty());
}

/// Random directed graph: node count and a list of (from, to, weight) candidates.
fn graph() -> impl Strategy<Value = (usize, Vec<(u32, u32, u32)>)> {
    (2usize..8).prop_flat_map(|n| {
        let e = (0..n as u32, 0..n as u32, 1u32..5);
        (Just(n), proptest::collection::vec(e, 0..24))
    })
}

fn to_edges(list: &[(u32, u32, u32)]) -> (Vec<Edge>, Vec<f64>) {
    let edges = list
        .iter()
        .enumerate()
        .map(|(i, &(a, b, _))| ch(a, b, i as u32))
        .collect();
    (edges, list.iter().map(|&(_, _, w)| w as f64).collect())
}

/// All simple s-t paths as (node list, weight), using the lightest edge per node pair.
fn all_simple_paths(n: usize, list: &[(u32, u32, u32)], s: u32, t: u32) -> Vec<(Vec<u32>, u32)> {
    let mut best = vec![vec![None::<u32>; n]; n];
    for &(a, b, w) in list {
        if a != b {
            let slot = &mut best[a as usize][b as usize];
            *slot = Some(slot.map_or(w, |o| o.min(w)));
        }
    }
    fn dfs(
        best: &[Vec<Option<u32>>],
        t: u32,
        path: &mut Vec<u32>,
        w: u32,
        out: &mut Vec<(Vec<u32>, u32)>,
    ) {
        let u = *path.last().unwrap();
        if u == t {
            out.push((path.clone(), w));
            return;
        }
        for v in 0..best.len() as u32 {
            if let Some(we) = best[u as usize][v as usize] {
                if !path.contains(&v) {
                    path.push(v);
                    dfs(best, t, path, w + we, out);
                    path.pop();
                }
            }
        }
    }
    let mut out = Vec::new();
    dfs(&best, t, &mut vec![s], 0, &mut out);
    out
}

/// Best (count, weight, hops) over families of pairwise internally disjoint paths: the largest
/// family size up to `k`, and for that size the least (weight, hops).
fn brute_force(paths: &[(Vec<u32>, u32)], k: usize) -> (usize, (u32, usize)) {
    fn rec(
        paths: &[(Vec<u32>, u32)],
        from: usize,
        used: &mut Vec<u32>,
        count: usize,
        cost: (u32, usize),
        k: usize,
        best: &mut (usize, (u32, usize)),
    ) {
        if count > best.0 || (count == best.0 && cost < best.1) {
            *best = (count, cost);
        }
        if count == k {
            return;
        }
        for i in from..paths.len() {
            let (p, w) = &paths[i];
            let inner = &p[1..p.len() - 1];
            if inner.iter().any(|v| used.contains(v)) {
                continue;
            }
            let before = used.len();
            used.extend_from_slice(inner);
            let c = (cost.0 + w, cost.1 + p.len() - 1);
            rec(paths, i + 1, used, count + 1, c, k, best);
            used.truncate(before);
        }
    }
    let mut best = (0, (0, 0));
    rec(paths, 0, &mut Vec::new(), 0, (0, 0), k, &mut best);
    best
}

proptest! {
    /// Disjoint paths are simple, connect s to t over real edges, share no intermediate node,
    /// number min(k, connectivity), and have the least total (weight, hops) of any family of
    /// that size (checked against exhaustive search).
    #[test]
    fn disjoint_paths_match_brute_force(
        (n, list) in graph(),
        s in 0u32..8,
        t in 0u32..8,
        k in 1usize..5,
    ) {
        let (s, t) = (s % n as u32, t % n as u32);
        prop_assume!(s != t);
        let (edges, w) = to_edges(&list);
        let got = node_disjoint_paths(n, &edges, &|i| w[i], s, t, k);
        let mut seen = Vec::new();
        let mut total = (0u32, 0usize);
        for p in &got {
            prop_assert_eq!(p.nodes[0], s);
            prop_assert_eq!(*p.nodes.last().unwrap(), t);
            prop_assert_eq!(p.edges.len() + 1, p.nodes.len());
            let mut sorted = p.nodes.clone();
            sorted.sort_unstable();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), p.nodes.len(), "not simple: {:?}", p.nodes);
            for (h, &e) in p.edges.iter().enumerate() {
                prop_assert_eq!((edges[e].from, edges[e].to), (p.nodes[h], p.nodes[h + 1]));
            }
            for v in &p.nodes[1..p.nodes.len() - 1] {
                prop_assert!(!seen.contains(v), "node {} shared", v);
                seen.push(*v);
            }
            total.0 += p.weight as u32;
            total.1 += p.edges.len();
        }
        let mut direct = got.iter().filter(|p| p.nodes.len() == 2);
        prop_assert!(direct.nth(1).is_none(), "direct path twice");
        let (count, cost) = brute_force(&all_simple_paths(n, &list, s, t), k);
        prop_assert_eq!(got.len(), count);
        prop_assert_eq!(total, cost);
    }

    /// With unit weights the weighted search reproduces the breadth-first routes exactly,
    /// tie-breaks included.
    #[test]
    fn unit_weights_reproduce_breadth_first_routes((n, list) in graph()) {
        let (edges, _) = to_edges(&list);
        let dsts: Vec<NodeId> = (0..n as u32).collect();
        let bfs = RoutingTable::shortest_paths(n, &edges, &dsts);
        let dij = weighted_next_hops(n, &edges, &|_| 1.0, &dsts);
        for u in 0..n as u32 {
            for &d in &dsts {
                let (b, w) = (bfs.next_hop(u, d), dij.next_hop(u, d));
                prop_assert_eq!(b, w, "at {} towards {}", u, d);
            }
        }
    }

    /// Weighted routes are optimal: each node's cost equals the best over its out-edges of
    /// edge weight plus the neighbour's cost (Bellman's equation); paths are simple.
    #[test]
    fn weighted_routes_satisfy_bellman((n, list) in graph()) {
        let (edges, w) = to_edges(&list);
        let dsts: Vec<NodeId> = (0..n as u32).collect();
        let r = weighted_next_hops(n, &edges, &|i| w[i], &dsts);
        for &d in &dsts {
            for u in 0..n as u32 {
                if u == d {
                    continue;
                }
                let best = edges.iter().enumerate()
                    .filter(|(_, e)| e.from == u)
                    .filter_map(|(i, e)| r.cost(e.to, d).map(|c| c + w[i]))
                    .fold(f64::INFINITY, f64::min);
                prop_assert_eq!(r.cost(u, d).unwrap_or(f64::INFINITY), best);
                if let Some(p) = r.path(u, d) {
                    prop_assert!(p.len() <= n, "path longer than the node count: {:?}", p);
                }
            }
        }
    }
}
