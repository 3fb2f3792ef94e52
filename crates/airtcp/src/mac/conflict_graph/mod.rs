//! The idealised slotted wireless model of paper 000 (Seferoglu & Modiano, "TCP-Aware
//! Backpressure Routing and Scheduling", IEEE TMC 2016) §2-3: directed links with a rate `R_l`
//! (packets per slot when ON), an i.i.d. ON/OFF channel state per link per slot, and interference
//! expressed as a conflict graph, so that the feasible set `Γ_C(t)` of §2 is "the independent sets
//! of the conflict graph among the ON links". This is the model the paper's Theorems 1-2 are
//! stated for; it is not a packet-level MAC (that is [`super::dcf`]).
//!
//! This file holds the model's data: [`Link`], the [`ConflictGraph`] (explicit pairs, node-sharing,
//! or the protocol interference model) and the per-link [`ChannelStates`]. The algorithms live
//! beside it, one per file:
//! - [`max_weight`]: the inter-node scheduler, a maximum-weight independent set of the conflict
//!   graph (exact branch and bound, greedy beyond a size limit);
//! - [`flow_control`]: the flow controller of eq. (5) (Neely, Modiano & Li 2008);
//! - [`slotted`]: a slotted simulator for §3 (per-flow queues, eq. (1); backpressure routing with
//!   the classical or TCP-aware differential, eqs. (2)-(4); max-weight inter-node scheduling).
//!
//! Protocol interference model: Gupta & Kumar, "The capacity of wireless networks", IEEE Trans.
//! Inf. Theory 46(2), 2000, in its fixed-range form (a reception fails if another
//! transmitter is within the interference range of the receiver), plus the primary (half-duplex)
//! constraint that a node takes part in at most one link at a time.

pub mod flow_control;
pub mod max_weight;
pub mod slotted;

use serde::{Deserialize, Serialize};

use crate::sim::{NodeId, Rng};

/// A directed link `from -> to` of the slotted model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Transmitting node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// `R_l`: packets the link carries in a slot when its channel is ON.
    pub capacity: u32,
    /// Probability that the channel is ON in a slot (i.i.d. over slots and links).
    pub p_on: f64,
}

/// Which pairs of links may not be active in the same slot. Symmetric and irreflexive; links are
/// numbered by their position in the link list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictGraph {
    links: usize,
    /// Words per row of `bits`.
    words: usize,
    /// Adjacency matrix, one row of `words` u64 per link.
    bits: Vec<u64>,
    /// Neighbour lists in CSR form: link `l`'s are `adj[start[l]..start[l + 1]]`, ascending.
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl ConflictGraph {
    /// The graph with exactly the listed conflicting pairs (order within a pair and duplicates do
    /// not matter). Panics on a link index `>= links` or a pair `(a, a)`.
    pub fn from_pairs(links: usize, pairs: &[(usize, usize)]) -> Self {
        let words = links.div_ceil(64).max(1);
        let mut bits = vec![0u64; links * words];
        for &(a, b) in pairs {
            assert!(a < links && b < links, "conflict ({a}, {b}) out of range");
            assert!(a != b, "a link cannot conflict with itself ({a})");
            bits[a * words + b / 64] |= 1 << (b % 64);
            bits[b * words + a / 64] |= 1 << (a % 64);
        }
        let mut start = Vec::with_capacity(links + 1);
        let mut adj = Vec::new();
        start.push(0);
        for a in 0..links {
            for b in 0..links {
                if bits[a * words + b / 64] >> (b % 64) & 1 == 1 {
                    adj.push(b as u32);
                }
            }
            start.push(adj.len() as u32);
        }
        ConflictGraph {
            links,
            words,
            bits,
            start,
            adj,
        }
    }

    /// Primary interference only: two links conflict if they share a node (a node transmits or
    /// receives on at most one link per slot). `links` are `(from, to)` pairs.
    pub fn node_exclusive(links: &[(NodeId, NodeId)]) -> Self {
        Self::build(links, shares_node)
    }

    /// The protocol interference model with a fixed range: links `a` and `b` conflict if they
    /// share a node, or if the receiver of one is within `interference_range` (inclusive) of the
    /// transmitter of the other. `positions[v]` is node `v`'s `(x, y)`; `links` are `(from, to)`.
    ///
    /// Only data directions are checked (as in the paper's model); an 802.11 link whose ACK flows
    /// back would also need the four endpoint pairs the other way round. Panics if a node has no
    /// position.
    pub fn protocol_model(
        links: &[(NodeId, NodeId)],
        positions: &[(f64, f64)],
        interference_range: f64,
    ) -> Self {
        let within = |tx: NodeId, rx: NodeId| {
            let (p, q) = (positions[tx as usize], positions[rx as usize]);
            (p.0 - q.0).hypot(p.1 - q.1) <= interference_range
        };
        Self::build(links, |a, b| {
            shares_node(a, b) || within(b.0, a.1) || within(a.0, b.1)
        })
    }

    fn build(
        links: &[(NodeId, NodeId)],
        conflict: impl Fn((NodeId, NodeId), (NodeId, NodeId)) -> bool,
    ) -> Self {
        let mut pairs = Vec::new();
        for a in 0..links.len() {
            for b in a + 1..links.len() {
                if conflict(links[a], links[b]) {
                    pairs.push((a, b));
                }
            }
        }
        Self::from_pairs(links.len(), &pairs)
    }

    /// Number of links.
    pub fn num_links(&self) -> usize {
        self.links
    }

    /// Whether links `a` and `b` conflict (never true for `a == b`).
    pub fn conflicts(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.words + b / 64] >> (b % 64) & 1 == 1
    }

    /// The links that conflict with `l`, ascending.
    pub fn neighbours(&self, l: usize) -> &[u32] {
        &self.adj[self.start[l] as usize..self.start[l + 1] as usize]
    }

    /// Whether no two of `set` conflict (an element repeated counts as one link).
    pub fn is_independent(&self, set: &[usize]) -> bool {
        set.iter()
            .enumerate()
            .all(|(i, &a)| set[i + 1..].iter().all(|&b| !self.conflicts(a, b)))
    }

    /// All conflicting pairs `(a, b)` with `a < b`, ascending.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.links).flat_map(move |a| {
            self.neighbours(a)
                .iter()
                .map(move |&b| (a, b as usize))
                .filter(|&(a, b)| a < b)
        })
    }
}

fn shares_node(a: (NodeId, NodeId), b: (NodeId, NodeId)) -> bool {
    a.0 == b.0 || a.0 == b.1 || a.1 == b.0 || a.1 == b.1
}

/// The i.i.d. ON/OFF channel state `C_l(t)` of every link (paper 000 §2, "Channel model"). Each
/// link draws from its own random stream `conflict_graph/link/<l>/channel`, so adding a link does
/// not change the others' sample paths; a link with `p_on` 1 or 0 consumes no randomness.
#[derive(Debug, Clone)]
pub struct ChannelStates {
    rngs: Vec<Rng>,
    p_on: Vec<f64>,
    on: Vec<bool>,
}

impl ChannelStates {
    /// Channel states for links with the given ON probabilities, under master seed `seed`. All
    /// links start OFF until the first [`sample`](Self::sample).
    pub fn new(seed: u64, p_on: &[f64]) -> Self {
        ChannelStates {
            rngs: (0..p_on.len())
                .map(|l| Rng::stream(seed, &format!("conflict_graph/link/{l}/channel")))
                .collect(),
            p_on: p_on.to_vec(),
            on: vec![false; p_on.len()],
        }
    }

    /// Draws the states of the next slot and returns them (`true` = ON).
    pub fn sample(&mut self) -> &[bool] {
        for ((on, rng), &p) in self.on.iter_mut().zip(&mut self.rngs).zip(&self.p_on) {
            *on = rng.bernoulli(p);
        }
        &self.on
    }

    /// The states drawn by the last [`sample`](Self::sample).
    pub fn current(&self) -> &[bool] {
        &self.on
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Ends = Vec<(NodeId, NodeId)>;
    type Positions = Vec<(f64, f64)>;

    /// Nodes 0..n on a line, `spacing` apart; links i -> i + 1.
    fn chain(n: u32, spacing: f64) -> (Ends, Positions) {
        let links = (0..n - 1).map(|i| (i, i + 1)).collect();
        let pos = (0..n).map(|i| (i as f64 * spacing, 0.0)).collect();
        (links, pos)
    }

    #[test]
    fn protocol_model_on_a_chain() {
        let (links, pos) = chain(6, 100.0);
        // Range below the spacing: only links that share a node conflict.
        let g = ConflictGraph::protocol_model(&links, &pos, 50.0);
        assert_eq!(
            g.pairs().collect::<Vec<_>>(),
            vec![(0, 1), (1, 2), (2, 3), (3, 4)]
        );
        assert_eq!(g, ConflictGraph::node_exclusive(&links));
        // Range 150 m: the transmitter of link 2 (node 2) is 100 m from the receiver of link 0
        // (node 1), so links two apart conflict too; three apart (node 3 to node 1: 200 m) not.
        let g = ConflictGraph::protocol_model(&links, &pos, 150.0);
        let expect = vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4)];
        assert_eq!(g.pairs().collect::<Vec<_>>(), expect);
        assert!(g.conflicts(2, 0) && !g.conflicts(0, 3));
        // Exactly at the range counts as within (200 m).
        let g = ConflictGraph::protocol_model(&links, &pos, 200.0);
        assert!(g.conflicts(0, 3) && !g.conflicts(0, 4));
        assert_eq!(g.neighbours(0), &[1, 2, 3]);
    }

    #[test]
    fn protocol_model_is_asymmetric_in_geometry_but_symmetric_as_a_graph() {
        // Link 0: 0 -> 1 (at 0 m and 10 m). Link 1: 2 -> 3 with its transmitter 15 m from node 1
        // and its receiver 1000 m away. Link 1's transmitter jams link 0's receiver, so they
        // conflict, in both directions of the relation.
        let pos = [(0.0, 0.0), (10.0, 0.0), (25.0, 0.0), (1000.0, 0.0)];
        let g = ConflictGraph::protocol_model(&[(0, 1), (2, 3)], &pos, 20.0);
        assert!(g.conflicts(0, 1) && g.conflicts(1, 0));
        // Opposite directions of one hop share both nodes.
        let g = ConflictGraph::protocol_model(&[(0, 1), (1, 0)], &pos, 0.0);
        assert!(g.conflicts(0, 1));
    }

    #[test]
    fn explicit_pairs_and_independence() {
        let g = ConflictGraph::from_pairs(70, &[(0, 69), (69, 0), (3, 4)]);
        assert!(g.conflicts(69, 0) && g.conflicts(0, 69) && !g.conflicts(0, 0));
        assert_eq!(g.neighbours(69), &[0]);
        assert!(g.is_independent(&[0, 3, 5]));
        assert!(!g.is_independent(&[4, 0, 3]));
        assert_eq!(g.pairs().count(), 2);
        assert_eq!(ConflictGraph::from_pairs(0, &[]).num_links(), 0);
    }

    #[test]
    fn channel_states_have_the_configured_on_rate_and_are_reproducible() {
        let p = [1.0, 0.0, 0.3];
        let mut a = ChannelStates::new(5, &p);
        let mut b = ChannelStates::new(5, &p);
        let mut on = 0;
        let slots = 50_000;
        for _ in 0..slots {
            let s = a.sample().to_vec();
            assert_eq!(s, b.sample());
            assert!(s[0] && !s[1]);
            on += s[2] as u32;
        }
        let rate = on as f64 / slots as f64;
        assert!((rate - 0.3).abs() < 0.01, "ON rate {rate}");
        // Adding a link leaves the others' sample paths alone.
        let mut c = ChannelStates::new(5, &[1.0, 0.0, 0.3, 0.5]);
        let mut d = ChannelStates::new(5, &p);
        for _ in 0..100 {
            assert_eq!(c.sample()[..3], *d.sample());
        }
    }
}
