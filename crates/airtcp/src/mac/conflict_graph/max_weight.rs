//! Max-weight inter-node scheduling over a conflict graph (paper 000 §3, "Inter-node
//! scheduling": choose `f(t) ∈ Γ_C(t)` maximising `Σ_l D*_l(t) f_l(t)`; Tassiulas & Ephremides
//! 1992). With `f_l ∈ {0, R_l}` this is a maximum-weight independent set (MWIS) of the conflict
//! graph with link weights `w_l = D*_l R_l` (zero for OFF links), which is NP-hard in general; the
//! papers' topologies have at most ~30 links, so it is solved exactly.
//!
//! Algorithm ([`MaxWeight`]): only links of positive weight are candidates (a link of weight <= 0
//! adds nothing, and the paper transmits only if `D*_l > 0`). Up to [`MaxWeight::exact_limit`]
//! candidates (at most 64, one bit each), depth-first branch and bound: candidates ordered by
//! weight (descending, then link index), branch on the heaviest remaining candidate, include
//! before exclude; bound = current weight + a greedy weighted clique cover of the remaining
//! candidates (an independent set takes at most one link per clique, so the sum of each clique's
//! heaviest weight bounds what is left); a candidate with no conflicting candidate left is always
//! included. The greedy set (next item) is the incumbent at the start, which is also the first
//! leaf of the search. The search stops after [`MaxWeight::node_budget`] nodes and returns the
//! best found, so a slot's work is bounded; [`LinkScheduler::last_exact`] says whether the result
//! is proven optimal. Beyond the size limit: greedy, heaviest candidate first, skipping any that
//! conflicts with one already taken (a maximal independent set; no approximation guarantee in
//! general).
//!
//! Tie-break (deterministic): among sets of equal total weight the one found first wins, which is
//! the lexicographically greatest in the candidate order, i.e. it contains the heaviest possible
//! link, then the next, ... (equal weights: lower link index first). Sums are compared exactly as
//! `f64`.
//!
//! No allocation per call once the scheduler's scratch has grown to the graph's size.

use super::ConflictGraph;

/// Largest candidate count the exact search handles (one bit per candidate in a `u64`).
pub const MAX_EXACT_LINKS: usize = 64;

/// An inter-node scheduler: picks a set of pairwise non-conflicting links for a slot.
pub trait LinkScheduler {
    /// Writes into `chosen` (cleared first) the links to activate, ascending, given per-link
    /// weights (`weights.len() == graph.num_links()`; a link of weight <= 0 is never chosen), and
    /// returns their total weight.
    fn schedule(&mut self, graph: &ConflictGraph, weights: &[f64], chosen: &mut Vec<usize>) -> f64;

    /// Whether the last [`schedule`](Self::schedule) call is proven to be a maximum-weight set.
    fn last_exact(&self) -> bool;
}

/// Maximum-weight independent set: exact branch and bound for small candidate sets, greedy
/// beyond (see the module doc).
#[derive(Debug, Clone)]
pub struct MaxWeight {
    /// Candidate counts up to this (capped at [`MAX_EXACT_LINKS`]) are solved by branch and bound;
    /// more fall back to greedy. Default 64.
    pub exact_limit: usize,
    /// Search nodes per call before the branch and bound gives up and returns its best so far.
    /// Default 2^18.
    pub node_budget: u64,
    scratch: Scratch,
    last_exact: bool,
}

/// Working memory, reused across calls.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// Candidate links, heaviest first.
    cand: Vec<u32>,
    /// Greedy: conflict-blocked links, one bit each.
    blocked: Vec<u64>,
}

impl Default for MaxWeight {
    fn default() -> Self {
        MaxWeight {
            exact_limit: MAX_EXACT_LINKS,
            node_budget: 1 << 18,
            scratch: Scratch::default(),
            last_exact: true,
        }
    }
}

impl MaxWeight {
    /// A scheduler with the default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// A scheduler with the given limits (see the fields).
    pub fn with_limits(exact_limit: usize, node_budget: u64) -> Self {
        MaxWeight {
            exact_limit,
            node_budget,
            ..Self::default()
        }
    }
}

impl LinkScheduler for MaxWeight {
    fn schedule(&mut self, graph: &ConflictGraph, weights: &[f64], chosen: &mut Vec<usize>) -> f64 {
        sorted_candidates(weights, &mut self.scratch.cand);
        let limit = self.exact_limit.min(MAX_EXACT_LINKS);
        if self.scratch.cand.len() > limit {
            self.last_exact = false;
            return greedy(graph, weights, &mut self.scratch, chosen);
        }
        let mut bb = BranchAndBound::new(graph, weights, &self.scratch.cand, self.node_budget);
        bb.run();
        self.last_exact = !bb.out_of_budget;
        chosen.clear();
        let mut set = bb.best_set;
        while set != 0 {
            chosen.push(self.scratch.cand[set.trailing_zeros() as usize] as usize);
            set &= set - 1;
        }
        chosen.sort_unstable();
        bb.best
    }

    /// False after a greedy fallback or an exhausted node budget.
    fn last_exact(&self) -> bool {
        self.last_exact
    }
}

/// Greedy maximal independent set, heaviest first (the fallback of [`MaxWeight`], also usable on
/// its own as a cheap baseline scheduler).
#[derive(Debug, Clone, Default)]
pub struct Greedy {
    scratch: Scratch,
}

impl LinkScheduler for Greedy {
    fn schedule(&mut self, graph: &ConflictGraph, weights: &[f64], chosen: &mut Vec<usize>) -> f64 {
        sorted_candidates(weights, &mut self.scratch.cand);
        greedy(graph, weights, &mut self.scratch, chosen)
    }

    /// Greedy makes no optimality claim: always false.
    fn last_exact(&self) -> bool {
        false
    }
}

/// Convenience: a maximum-weight independent set with default limits, as (links ascending, total
/// weight). Allocates; schedulers in a loop should keep a [`MaxWeight`].
pub fn max_weight_independent_set(graph: &ConflictGraph, weights: &[f64]) -> (Vec<usize>, f64) {
    let mut chosen = Vec::new();
    let w = MaxWeight::new().schedule(graph, weights, &mut chosen);
    (chosen, w)
}

/// Links of positive weight, heaviest first, ties by lower index. Panics on a NaN weight.
fn sorted_candidates(weights: &[f64], cand: &mut Vec<u32>) {
    cand.clear();
    for (l, &w) in weights.iter().enumerate() {
        assert!(!w.is_nan(), "link {l} has a NaN weight");
        if w > 0.0 {
            cand.push(l as u32);
        }
    }
    cand.sort_unstable_by(|&a, &b| {
        weights[b as usize]
            .total_cmp(&weights[a as usize])
            .then(a.cmp(&b))
    });
}

fn greedy(
    graph: &ConflictGraph,
    weights: &[f64],
    scratch: &mut Scratch,
    chosen: &mut Vec<usize>,
) -> f64 {
    assert_eq!(weights.len(), graph.num_links(), "one weight per link");
    scratch.blocked.clear();
    scratch.blocked.resize(graph.num_links().div_ceil(64), 0);
    chosen.clear();
    let mut total = 0.0;
    for &l in &scratch.cand {
        let l = l as usize;
        if scratch.blocked[l / 64] >> (l % 64) & 1 == 1 {
            continue;
        }
        chosen.push(l);
        total += weights[l];
        for &m in graph.neighbours(l) {
            scratch.blocked[m as usize / 64] |= 1 << (m % 64);
        }
    }
    chosen.sort_unstable();
    total
}

/// Branch and bound over at most 64 candidates, each a bit; bit `i` is the `i`-th heaviest.
struct BranchAndBound {
    /// Conflicts among candidates.
    nb: [u64; MAX_EXACT_LINKS],
    w: [f64; MAX_EXACT_LINKS],
    best: f64,
    best_set: u64,
    nodes: u64,
    budget: u64,
    out_of_budget: bool,
    all: u64,
}

impl BranchAndBound {
    fn new(graph: &ConflictGraph, weights: &[f64], cand: &[u32], budget: u64) -> Self {
        assert_eq!(weights.len(), graph.num_links(), "one weight per link");
        let mut nb = [0u64; MAX_EXACT_LINKS];
        let mut w = [0.0; MAX_EXACT_LINKS];
        for (i, &a) in cand.iter().enumerate() {
            w[i] = weights[a as usize];
            for (j, &b) in cand.iter().enumerate() {
                if graph.conflicts(a as usize, b as usize) {
                    nb[i] |= 1 << j;
                }
            }
        }
        let all = if cand.len() == 64 {
            u64::MAX
        } else {
            (1u64 << cand.len()) - 1
        };
        BranchAndBound {
            nb,
            w,
            best: f64::NEG_INFINITY,
            best_set: 0,
            nodes: 0,
            budget,
            out_of_budget: false,
            all,
        }
    }

    fn run(&mut self) {
        // Incumbent: the greedy set, which is also the search's first leaf.
        let (mut rest, mut set, mut total) = (self.all, 0u64, 0.0);
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            set |= 1 << v;
            total += self.w[v];
            rest &= !(1 << v) & !self.nb[v];
        }
        self.best = total;
        self.best_set = set;
        self.search(self.all, 0, 0.0);
    }

    /// Upper bound on the weight an independent subset of `cand` can add: greedy clique cover,
    /// heaviest first, each candidate joining the first clique it conflicts with entirely.
    fn clique_cover_bound(&self, mut cand: u64) -> f64 {
        let mut cliques = [0u64; MAX_EXACT_LINKS];
        let mut count = 0;
        let mut bound = 0.0;
        while cand != 0 {
            let v = cand.trailing_zeros() as usize;
            cand &= cand - 1;
            match cliques[..count].iter().position(|&c| c & !self.nb[v] == 0) {
                Some(k) => cliques[k] |= 1 << v,
                None => {
                    // Opened by its heaviest member, which is therefore the clique's weight.
                    cliques[count] = 1 << v;
                    count += 1;
                    bound += self.w[v];
                }
            }
        }
        bound
    }

    fn search(&mut self, cand: u64, set: u64, weight: f64) {
        if self.nodes >= self.budget {
            self.out_of_budget = true;
            return;
        }
        self.nodes += 1;
        if cand == 0 {
            // Strictly better only: the first-found set keeps ties.
            if weight > self.best {
                self.best = weight;
                self.best_set = set;
            }
            return;
        }
        if weight + self.clique_cover_bound(cand) <= self.best {
            return;
        }
        let v = cand.trailing_zeros() as usize;
        let bit = 1u64 << v;
        self.search(cand & !bit & !self.nb[v], set | bit, weight + self.w[v]);
        // Excluding v only pays if one of its conflicting candidates is to be taken instead.
        if cand & self.nb[v] != 0 {
            self.search(cand & !bit, set, weight);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn picks_the_heaviest_independent_set_where_greedy_does_not() {
        // A path of conflicts 0 - 1 - 2 - 3 with weights 3, 4, 3, 1: greedy takes 1 then 3
        // (weight 5); the best is {0, 2} (6).
        let g = ConflictGraph::from_pairs(4, &[(0, 1), (1, 2), (2, 3)]);
        let w = [3.0, 4.0, 3.0, 1.0];
        let (set, total) = max_weight_independent_set(&g, &w);
        assert_eq!((set, total), (vec![0, 2], 6.0));
        let mut chosen = Vec::new();
        assert_eq!(Greedy::default().schedule(&g, &w, &mut chosen), 5.0);
        assert_eq!(chosen, vec![1, 3]);
        // Star: centre 5 against leaves 2 + 2 + 2.
        let g = ConflictGraph::from_pairs(4, &[(0, 1), (0, 2), (0, 3)]);
        let (set, total) = max_weight_independent_set(&g, &[5.0, 2.0, 2.0, 2.0]);
        assert_eq!((set, total), (vec![1, 2, 3], 6.0));
    }

    #[test]
    fn non_positive_weights_are_never_scheduled() {
        let g = ConflictGraph::from_pairs(3, &[]);
        let (set, total) = max_weight_independent_set(&g, &[0.0, -1.0, 2.0]);
        assert_eq!((set, total), (vec![2], 2.0));
        let (set, total) = max_weight_independent_set(&g, &[0.0, 0.0, 0.0]);
        assert_eq!((set, total), (vec![], 0.0));
    }

    #[test]
    fn ties_prefer_the_heaviest_link_then_the_lowest_index() {
        // Triangle of equal weights: link 0 wins.
        let g = ConflictGraph::from_pairs(3, &[(0, 1), (1, 2), (0, 2)]);
        assert_eq!(max_weight_independent_set(&g, &[1.0; 3]).0, vec![0]);
        // {0, 2} and {1} both weigh 4; the set with the single heaviest link (1) wins.
        let g = ConflictGraph::from_pairs(3, &[(0, 1), (1, 2)]);
        assert_eq!(max_weight_independent_set(&g, &[2.0, 4.0, 2.0]).0, vec![1]);
    }

    #[test]
    fn falls_back_to_greedy_beyond_the_limit() {
        let g = ConflictGraph::from_pairs(4, &[(0, 1), (1, 2), (2, 3)]);
        let w = [3.0, 4.0, 3.0, 1.0];
        let mut s = MaxWeight {
            exact_limit: 3,
            ..MaxWeight::default()
        };
        let mut chosen = Vec::new();
        assert_eq!(s.schedule(&g, &w, &mut chosen), 5.0);
        assert!(!s.last_exact());
        s.exact_limit = 4;
        assert_eq!(s.schedule(&g, &w, &mut chosen), 6.0);
        assert!(s.last_exact());
        // A budget of one node leaves the greedy incumbent.
        s.node_budget = 1;
        assert_eq!(s.schedule(&g, &w, &mut chosen), 5.0);
        assert!(!s.last_exact());
    }

    #[test]
    fn exact_on_64_candidates() {
        // A 64-link conflict path with alternating weights 1, 2: the best takes every odd link.
        let pairs: Vec<_> = (0..63).map(|i| (i, i + 1)).collect();
        let g = ConflictGraph::from_pairs(64, &pairs);
        let w: Vec<f64> = (0..64).map(|i| 1.0 + (i % 2) as f64).collect();
        let mut s = MaxWeight::new();
        let mut chosen = Vec::new();
        assert_eq!(s.schedule(&g, &w, &mut chosen), 64.0);
        assert!(s.last_exact());
        assert_eq!(chosen, (0..64).filter(|i| i % 2 == 1).collect::<Vec<_>>());
    }

    fn brute_force(g: &ConflictGraph, w: &[f64]) -> f64 {
        let n = w.len();
        (0u32..1 << n)
            .filter_map(|m| {
                let set: Vec<usize> = (0..n).filter(|&i| m >> i & 1 == 1).collect();
                g.is_independent(&set)
                    .then(|| set.iter().map(|&i| w[i].max(0.0)).sum::<f64>())
            })
            .fold(0.0, f64::max)
    }

    proptest! {
        /// The exact scheduler returns an independent set of maximum weight (exhaustive check),
        /// and greedy returns an independent set no heavier.
        #[test]
        fn exact_matches_brute_force(
            n in 1usize..13,
            raw_pairs in proptest::collection::vec((0usize..13, 0usize..13), 0..40),
            raw_w in proptest::collection::vec(-2i32..10, 13),
        ) {
            let pairs: Vec<_> = raw_pairs.into_iter()
                .map(|(a, b)| (a % n, b % n)).filter(|(a, b)| a != b).collect();
            let g = ConflictGraph::from_pairs(n, &pairs);
            let w: Vec<f64> = raw_w[..n].iter().map(|&x| x as f64).collect();
            let mut s = MaxWeight::new();
            let mut chosen = Vec::new();
            let total = s.schedule(&g, &w, &mut chosen);
            prop_assert!(s.last_exact());
            prop_assert!(g.is_independent(&chosen));
            prop_assert!(chosen.iter().all(|&l| w[l] > 0.0));
            prop_assert_eq!(total, chosen.iter().map(|&l| w[l]).sum::<f64>());
            prop_assert_eq!(total, brute_force(&g, &w));
            let gt = Greedy::default().schedule(&g, &w, &mut chosen);
            prop_assert!(g.is_independent(&chosen) && gt <= total);
        }
    }
}
