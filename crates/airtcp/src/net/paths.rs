//! Path algorithms for routing: weighted shortest paths, the ETX link metric, and k node-disjoint
//! paths. All three work on the directed [`Edge`] list that [`RoutingTable`] uses, and identify an
//! edge by its index in that list. Everything here runs once at set-up, not per packet.
//!
//! - **Weighted shortest paths** ([`weighted_next_hops`]): Dijkstra (1959) run backwards from each
//!   destination, with a per-edge weight. Ties are broken exactly like
//!   [`RoutingTable::shortest_paths`]'s breadth-first search, so with unit weights the two give the
//!   same routes (a test checks this): lowest total weight, then fewest hops, then the next hop
//!   that the search settled first, then the lowest edge index.
//! - **ETX** ([`etx`], [`path_etx`], [`etx_weights`]): De Couto, Aguayo, Bicket & Morris, "A
//!   high-throughput path metric for multi-hop wireless routing", MobiCom 2003: the expected
//!   transmission count of a link is `1 / (d_f * d_r)`, with `d_f`, `d_r` the forward and reverse
//!   (acknowledgement direction) delivery ratios; a path's ETX is the sum over its links. Here the
//!   ratios are given; measuring them with probes (the paper's 10 s window of 1 s broadcasts) is
//!   left to the caller.
//! - **k node-disjoint paths** ([`node_disjoint_paths`]): successive shortest paths for min-cost
//!   flow (Ahuja, Magnanti & Orlin, *Network Flows*, 1993, §9.7) on the node-split graph with unit
//!   capacities, using Dijkstra with node potentials (Edmonds & Karp 1972). With unit capacities
//!   this is the same computation as Suurballe's algorithm (1974) / Bhandari's, generalised to k.
//!   Returns `min(k, κ)` paths of least total weight, κ being the maximum number of internally
//!   node-disjoint paths (Menger).
//!
//! Deviations, all deliberate: the disjoint-path search quantises weights to multiples of
//! [`WEIGHT_QUANTUM`] so that its residual-graph arithmetic is exact (floating-point sums around
//! a zero-cost residual cycle can come out negative and make the search cycle); parallel edges are
//! merged there (the lightest, then lowest index, is kept) so that `s -> t` counts once.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::routing::{Edge, Hop, RoutingTable};
use crate::sim::NodeId;

const NONE: u32 = u32::MAX;

// ---------------------------------------------------------------------------------------------
// Weighted shortest paths
// ---------------------------------------------------------------------------------------------

/// Next-hop tables for a set of destinations under per-edge weights, as computed by
/// [`weighted_next_hops`]. Same lookup interface as [`RoutingTable`], plus the path cost.
#[derive(Debug, Clone)]
pub struct WeightedRoutes {
    /// Per node, the index of its tables in `next`/`cost`, or `NONE` if it is not a destination.
    slot_of: Vec<u32>,
    next: Vec<Vec<Option<Hop>>>,
    /// Total weight to the destination; infinite where unreachable.
    cost: Vec<Vec<f64>>,
}

/// Dijkstra label: compared lexicographically, smaller is better. `via_rank` is the order in which
/// the next hop was settled, which reproduces breadth-first discovery order on ties.
#[derive(Debug, Clone, Copy)]
struct Label {
    dist: f64,
    hops: u32,
    via_rank: u32,
    edge: u32,
}

impl Label {
    const UNREACHED: Label = Label {
        dist: f64::INFINITY,
        hops: u32::MAX,
        via_rank: u32::MAX,
        edge: u32::MAX,
    };

    fn key(&self) -> LabelKey {
        (OrdF64(self.dist), self.hops, self.via_rank, self.edge)
    }
}

/// A [`Label`] as a totally ordered tuple.
type LabelKey = (OrdF64, u32, u32, u32);

/// An `f64` ordered by `total_cmp` (weights are validated finite and non-negative, so this is the
/// usual order).
#[derive(Debug, Clone, Copy, PartialEq)]
struct OrdF64(f64);

impl Eq for OrdF64 {}

impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Evaluates `weight` once per edge and checks it: non-negative, or `+inf` for an unusable edge.
fn edge_weights(edges: &[Edge], weight: &dyn Fn(usize) -> f64) -> Vec<f64> {
    (0..edges.len())
        .map(|i| {
            let w = weight(i);
            assert!(
                w >= 0.0,
                "edge {i} has weight {w}; weights must be non-negative (+inf = unusable)"
            );
            w
        })
        .collect()
}

/// Incoming edge lists, each in edge order (the tie-break relies on that order).
fn incoming_edges(n: usize, edges: &[Edge]) -> Vec<Vec<u32>> {
    let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        incoming[e.to as usize].push(i as u32);
    }
    incoming
}

/// Least-weight paths for `n` nodes over `edges`, towards every node in `destinations`.
///
/// `weight(i)` is the weight of `edges[i]`: finite and non-negative, or `f64::INFINITY` for an
/// edge that must not be used (an ETX link with a zero delivery ratio). Panics on a negative or NaN
/// weight. Ties: lowest total weight, then fewest hops, then the neighbour settled first (nearest
/// the destination in search order), then the lowest edge index; with unit weights this is exactly
/// [`RoutingTable::shortest_paths`]. Weights are compared exactly (no tolerance), so two float sums
/// that differ in the last bit are not a tie.
pub fn weighted_next_hops(
    n: usize,
    edges: &[Edge],
    weight: &dyn Fn(usize) -> f64,
    destinations: &[NodeId],
) -> WeightedRoutes {
    let w = edge_weights(edges, weight);
    let incoming = incoming_edges(n, edges);
    let mut slot_of = vec![NONE; n];
    let mut next = Vec::new();
    let mut cost = Vec::new();
    // Scratch reused across destinations.
    let mut label = vec![Label::UNREACHED; n];
    let mut settled = vec![false; n];
    let mut rank = vec![0u32; n];
    let mut heap: BinaryHeap<Reverse<(LabelKey, u32)>> = BinaryHeap::new();
    for &dst in destinations {
        if slot_of[dst as usize] != NONE {
            continue;
        }
        slot_of[dst as usize] = next.len() as u32;
        label.fill(Label::UNREACHED);
        settled.fill(false);
        heap.clear();
        label[dst as usize] = Label {
            dist: 0.0,
            hops: 0,
            via_rank: 0,
            edge: 0,
        };
        heap.push(Reverse((label[dst as usize].key(), dst)));
        let mut settled_count = 0u32;
        while let Some(Reverse((_, v))) = heap.pop() {
            let v = v as usize;
            // A node's first pop carries its final label; later pops are stale copies.
            if settled[v] {
                continue;
            }
            settled[v] = true;
            rank[v] = settled_count;
            settled_count += 1;
            let lv = label[v];
            for &ei in &incoming[v] {
                let u = edges[ei as usize].from as usize;
                let we = w[ei as usize];
                if settled[u] || !we.is_finite() {
                    continue;
                }
                let cand = Label {
                    dist: lv.dist + we,
                    hops: lv.hops + 1,
                    via_rank: rank[v],
                    edge: ei,
                };
                if cand.key() < label[u].key() {
                    label[u] = cand;
                    heap.push(Reverse((cand.key(), u as u32)));
                }
            }
        }
        let mut table = vec![None; n];
        let mut dist = vec![f64::INFINITY; n];
        for u in 0..n {
            if !settled[u] {
                continue;
            }
            dist[u] = label[u].dist;
            if u != dst as usize {
                let e = edges[label[u].edge as usize];
                table[u] = Some(Hop {
                    iface: e.iface,
                    node: e.to,
                });
            }
        }
        next.push(table);
        cost.push(dist);
    }
    WeightedRoutes {
        slot_of,
        next,
        cost,
    }
}

impl WeightedRoutes {
    /// The next-hop tables alone, as the network layer's [`RoutingTable`] (`n` nodes, over the
    /// `edges` the routes were searched on).
    pub fn into_table(self, n: usize, edges: &[Edge]) -> RoutingTable {
        RoutingTable::from_parts(n, edges, self.slot_of, self.next)
    }

    fn slot(&self, dst: NodeId) -> Option<usize> {
        let slot = *self.slot_of.get(dst as usize)?;
        (slot != NONE).then_some(slot as usize)
    }

    /// Next hop at `node` towards `dst` (`None` if unreachable, unknown, or `node == dst`).
    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<Hop> {
        self.next[self.slot(dst)?][node as usize]
    }

    /// Whether `dst` is reachable from `src` (over edges of finite weight).
    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        src == dst || self.next_hop(src, dst).is_some()
    }

    /// Total weight of the chosen path from `node` to `dst` (`Some(0.0)` for `node == dst` when
    /// `dst` is a destination; `None` if unreachable or `dst` is not a destination).
    pub fn cost(&self, node: NodeId, dst: NodeId) -> Option<f64> {
        let c = self.cost[self.slot(dst)?][node as usize];
        c.is_finite().then_some(c)
    }

    /// The node sequence from `src` to `dst` (both included), or `None` if unreachable.
    pub fn path(&self, src: NodeId, dst: NodeId) -> Option<Vec<NodeId>> {
        self.slot(dst)?;
        let mut nodes = vec![src];
        let mut at = src;
        while at != dst {
            at = self.next_hop(at, dst)?.node;
            nodes.push(at);
        }
        Some(nodes)
    }
}

// ---------------------------------------------------------------------------------------------
// ETX
// ---------------------------------------------------------------------------------------------

/// Expected transmission count of a link (De Couto et al. 2003): `1 / (d_f * d_r)`, where
/// `forward_delivery` is the probability that a data frame arrives and `reverse_delivery` the
/// probability that its acknowledgement does. `+inf` if either is zero. Panics unless both are in
/// `[0, 1]`.
pub fn etx(forward_delivery: f64, reverse_delivery: f64) -> f64 {
    assert!(
        (0.0..=1.0).contains(&forward_delivery) && (0.0..=1.0).contains(&reverse_delivery),
        "delivery ratios must be in [0, 1], got {forward_delivery} and {reverse_delivery}"
    );
    let p = forward_delivery * reverse_delivery;
    if p == 0.0 {
        f64::INFINITY
    } else {
        1.0 / p
    }
}

/// ETX of a path: the sum of its links' ETX, each given as `(d_f, d_r)`.
pub fn path_etx(links: &[(f64, f64)]) -> f64 {
    links.iter().map(|&(f, r)| etx(f, r)).sum()
}

/// ETX weight of every edge, for [`weighted_next_hops`] or [`node_disjoint_paths`]:
/// `delivery(a, b)` is the delivery ratio from `a` to `b`, so edge `from -> to` gets
/// `etx(delivery(from, to), delivery(to, from))`.
pub fn etx_weights(edges: &[Edge], delivery: &dyn Fn(NodeId, NodeId) -> f64) -> Vec<f64> {
    edges
        .iter()
        .map(|e| etx(delivery(e.from, e.to), delivery(e.to, e.from)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// k node-disjoint paths
// ---------------------------------------------------------------------------------------------

/// Resolution of weights in [`node_disjoint_paths`]: weights are rounded to multiples of this
/// (2^-20, about 1e-6) so the min-cost-flow arithmetic is exact integer arithmetic.
pub const WEIGHT_QUANTUM: f64 = 1.0 / (1u64 << 20) as f64;

/// Largest finite weight [`node_disjoint_paths`] accepts (so that sums of quantised weights over
/// any path fit in an `i64`).
pub const MAX_DISJOINT_WEIGHT: f64 = (1u64 << 32) as f64;

/// One of the paths returned by [`node_disjoint_paths`].
#[derive(Debug, Clone, PartialEq)]
pub struct DisjointPath {
    /// Nodes from the source to the target, both included.
    pub nodes: Vec<NodeId>,
    /// Indices into the edge list of the edges taken, one per hop.
    pub edges: Vec<usize>,
    /// Sum of the (unquantised) weights of those edges.
    pub weight: f64,
}

/// Cost in the flow network: (quantised weight, hops), compared lexicographically, so that among
/// equal-weight path sets the one with fewer hops in total wins.
type Cost = (i64, i64);

fn add(a: Cost, b: Cost) -> Cost {
    (a.0 + b.0, a.1 + b.1)
}

fn sub(a: Cost, b: Cost) -> Cost {
    (a.0 - b.0, a.1 - b.1)
}

/// Residual network with paired arcs: arc `2m` is forward, `2m + 1` its reverse.
struct FlowNet {
    head: Vec<u32>,
    cap: Vec<u8>,
    cost: Vec<Cost>,
    /// The original edge an arc pair carries (`NONE` for a node's internal in->out arc).
    edge: Vec<u32>,
    /// Outgoing arcs per vertex, in insertion order (keeps the search deterministic).
    out: Vec<Vec<u32>>,
}

impl FlowNet {
    fn new(vertices: usize) -> Self {
        FlowNet {
            head: Vec::new(),
            cap: Vec::new(),
            cost: Vec::new(),
            edge: Vec::new(),
            out: vec![Vec::new(); vertices],
        }
    }

    fn add_arc(&mut self, from: usize, to: usize, cost: Cost, edge: u32) {
        let a = self.head.len() as u32;
        self.head.extend([to as u32, from as u32]);
        self.cap.extend([1, 0]);
        self.cost.extend([cost, (-cost.0, -cost.1)]);
        self.edge.extend([edge, edge]);
        self.out[from].push(a);
        self.out[to].push(a + 1);
    }
}

/// Node-split vertex ids: packets enter `v` at `2v` and leave it at `2v + 1`.
fn v_in(v: usize) -> usize {
    2 * v
}
fn v_out(v: usize) -> usize {
    2 * v + 1
}

/// Up to `k` paths from `s` to `t` that share no node other than `s` and `t`, of least total
/// weight (then fewest total hops) among all sets of that many such paths.
///
/// Returns `min(k, κ)` paths, κ being the maximum number of internally node-disjoint `s`-`t`
/// paths (the node connectivity, counting a direct `s -> t` edge once). Paths are sorted by
/// weight, then hops, then node sequence. `weight(i)` is the weight of `edges[i]`: non-negative
/// and at most [`MAX_DISJOINT_WEIGHT`], or `+inf` for an unusable edge; use `&|_| 1.0` for hop
/// count. Weights are rounded to multiples of [`WEIGHT_QUANTUM`] for the optimisation; the
/// reported [`DisjointPath::weight`] is the exact sum. Returns nothing if `s == t` or `k == 0`.
pub fn node_disjoint_paths(
    n: usize,
    edges: &[Edge],
    weight: &dyn Fn(usize) -> f64,
    s: NodeId,
    t: NodeId,
    k: usize,
) -> Vec<DisjointPath> {
    let (s, t) = (s as usize, t as usize);
    assert!(
        s < n && t < n,
        "s = {s}, t = {t} out of range for {n} nodes"
    );
    if s == t || k == 0 {
        return Vec::new();
    }
    let w = edge_weights(edges, weight);
    let (mut net, q) = split_network(n, edges, &w, s, t);
    let (source, sink) = (v_out(s), v_in(t));
    let flow = augment(&mut net, source, sink, k);
    decompose(&net, edges, (&w, &q), (s, t), flow)
}

/// The node-split network of the search (every node but `s` and `t` an arc of capacity 1 from its
/// `in` to its `out` vertex, every usable edge an arc from its tail's `out` to its head's `in`,
/// costing its quantised weight and one hop), and the quantised weight of every edge.
fn split_network(n: usize, edges: &[Edge], w: &[f64], s: usize, t: usize) -> (FlowNet, Vec<i64>) {
    let quantised = |i: usize| -> i64 {
        assert!(
            w[i] <= MAX_DISJOINT_WEIGHT,
            "edge {i} weight {} exceeds MAX_DISJOINT_WEIGHT",
            w[i]
        );
        (w[i] / WEIGHT_QUANTUM).round() as i64
    };
    // Keep one edge per ordered node pair: the lightest, then the lowest index. Edges into `s` or
    // out of `t` and self-loops can never be on a simple s-t path.
    let mut usable: Vec<usize> = (0..edges.len())
        .filter(|&i| {
            let e = edges[i];
            w[i].is_finite() && e.from != e.to && e.to as usize != s && e.from as usize != t
        })
        .collect();
    let q: Vec<i64> = (0..edges.len())
        .map(|i| if w[i].is_finite() { quantised(i) } else { 0 })
        .collect();
    usable.sort_by_key(|&i| (edges[i].from, edges[i].to, q[i], i));
    usable.dedup_by_key(|i| (edges[*i].from, edges[*i].to));
    // Back to edge order, so the search (and its tie-breaks) follows the caller's edge order.
    usable.sort_unstable();

    let mut net = FlowNet::new(2 * n);
    for v in 0..n {
        if v != s && v != t {
            net.add_arc(v_in(v), v_out(v), (0, 0), NONE);
        }
    }
    for &i in &usable {
        let e = edges[i];
        net.add_arc(
            v_out(e.from as usize),
            v_in(e.to as usize),
            (q[i], 1),
            i as u32,
        );
    }
    (net, q)
}

/// Sends up to `k` units of flow from `source` to `sink` along successive cheapest paths
/// (Dijkstra on reduced costs); returns how many it sent.
fn augment(net: &mut FlowNet, source: usize, sink: usize, k: usize) -> usize {
    let vertices = net.out.len();
    let mut potential: Vec<Cost> = vec![(0, 0); vertices];
    let mut dist: Vec<Option<Cost>> = vec![None; vertices];
    let mut pred_arc = vec![NONE; vertices];
    let mut done = vec![false; vertices];
    let mut heap: BinaryHeap<Reverse<(Cost, u32)>> = BinaryHeap::new();
    let mut flow = 0;
    while flow < k {
        // Dijkstra on reduced costs c(a) + pi(u) - pi(v), which stay non-negative (Edmonds-Karp).
        dist.fill(None);
        done.fill(false);
        pred_arc.fill(NONE);
        heap.clear();
        dist[source] = Some((0, 0));
        heap.push(Reverse(((0, 0), source as u32)));
        while let Some(Reverse((d, u))) = heap.pop() {
            let u = u as usize;
            if done[u] {
                continue;
            }
            done[u] = true;
            for &a in &net.out[u] {
                let a = a as usize;
                if net.cap[a] == 0 {
                    continue;
                }
                let v = net.head[a] as usize;
                if done[v] {
                    continue;
                }
                let reduced = sub(add(net.cost[a], potential[u]), potential[v]);
                debug_assert!(reduced >= (0, 0), "negative reduced cost {reduced:?}");
                let nd = add(d, reduced);
                let better = match dist[v] {
                    None => true,
                    Some(old) => nd < old,
                };
                if better {
                    dist[v] = Some(nd);
                    pred_arc[v] = a as u32;
                    heap.push(Reverse((nd, v as u32)));
                }
            }
        }
        if !done[sink] {
            break;
        }
        // Vertices not reached now are never reached again (every arc leaving the reached set is
        // saturated and augmentations stay inside it), so their potentials do not matter.
        for v in 0..vertices {
            if let (true, Some(d)) = (done[v], dist[v]) {
                potential[v] = add(potential[v], d);
            }
        }
        let mut v = sink;
        while v != source {
            let a = pred_arc[v] as usize;
            net.cap[a] -= 1;
            net.cap[a ^ 1] += 1;
            v = net.head[a ^ 1] as usize;
        }
        flow += 1;
    }
    flow
}

/// The `flow` paths the flow in `net` makes from `s` to `t`, cheapest first (by quantised weight,
/// then hops, then nodes), with their edges and weights (`w`; `q` quantised).
fn decompose(
    net: &FlowNet,
    edges: &[Edge],
    (w, q): (&[f64], &[i64]),
    (s, t): (usize, usize),
    flow: usize,
) -> Vec<DisjointPath> {
    let source = v_out(s);
    // Decompose the flow: from `s`, follow original-edge arcs that carry flow (forward arc
    // saturated). Optimal flows have no cycles (every edge costs at least one hop).
    let mut paths = Vec::with_capacity(flow);
    for &a0 in &net.out[source] {
        let a0 = a0 as usize;
        if a0 % 2 == 1 || net.cap[a0] != 0 {
            continue;
        }
        let mut nodes = vec![s as NodeId];
        let mut path_edges = Vec::new();
        let mut a = a0;
        loop {
            let e = net.edge[a] as usize;
            path_edges.push(e);
            let v = edges[e].to as usize;
            nodes.push(v as NodeId);
            if v == t {
                break;
            }
            // Through v's internal arc to v_out, then the one flow-carrying arc out of v.
            a = net.out[v_out(v)]
                .iter()
                .map(|&x| x as usize)
                .find(|&x| x % 2 == 0 && net.cap[x] == 0 && net.edge[x] != NONE)
                .expect("flow conservation at an intermediate node");
        }
        let weight = path_edges.iter().map(|&e| w[e]).sum();
        paths.push((
            path_edges.iter().map(|&e| q[e]).sum::<i64>(),
            DisjointPath {
                nodes,
                edges: path_edges,
                weight,
            },
        ));
    }
    paths.sort_by(|(qa, a), (qb, b)| {
        (qa, a.edges.len(), &a.nodes).cmp(&(qb, b.edges.len(), &b.nodes))
    });
    paths.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests;
