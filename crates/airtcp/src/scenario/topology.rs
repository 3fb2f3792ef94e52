//! Node placement: explicit coordinates or generated layouts. Generated nodes are named
//! `n0..n{N-1}` (row-major for grids and cells; a cells gateway comes last). Random placements
//! draw from the stream `topology` of the run's seed.
//!
//! The named topologies reproduce the layouts of the papers' figures, which survive only as
//! captions and text:
//! - `tree`, `diamond`: Seferoglu & Modiano, "TCP-Aware Backpressure Routing and Scheduling",
//!   IEEE TMC 2016 (paper 000), §5.1 and the captions of Figs. 5-7, 9, 12, 13.
//! - `x`, `alice_bob`, `cross`, `wheel`, `butterfly`: Seferoglu & Markopoulou, "Network
//!   Coding-Aware Queue Management for TCP Flows over Coded Wireless Networks", IEEE/ACM ToN 2014
//!   (paper 001), §VI-A, §VII-D, the captions of Figs. 1, 2, 8 and Appendix A's capacity vectors
//!   and optimal rates.
//! - `ring`: Radunović et al., "Horizon", MobiCom 2008 (paper 003), §6.2 ("our test-bed has a
//!   form of a ring, and offers two disjoint paths between any node-pairs").
//!
//! The figures' coordinates are unknown (paper 001 even puts every node within 90 m of the relay
//! and relies on fixed routes), so the layouts here are chosen for their links instead: with a
//! receive range of 1.25 x `spacing` (250 m, ns-2's default 802.11 range, at the default 200 m
//! spacing) the pairs in range are exactly the links the paper's text requires, so routing over
//! the radio finds the paper's paths and COPE-style coding finds the paper's overhearing. Relays
//! come first in the naming because static routing breaks hop-count ties towards the first-found
//! (lowest-numbered) neighbour, which then routes the suggested flows through them.
//! docs/scenario-schema.md tabulates roles, coordinates, links and the range each layout
//! tolerates.

use super::config::TopologyConfig;
use crate::sim::Rng;

/// A placed node.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// Name.
    pub name: String,
    /// x, m.
    pub x: f64,
    /// y, m.
    pub y: f64,
}

/// Places the nodes of a topology.
pub fn place(cfg: &TopologyConfig, seed: u64) -> Vec<Placed> {
    let named = |i: usize, x: f64, y: f64| Placed {
        name: format!("n{i}"),
        x,
        y,
    };
    let mut rng = Rng::stream(seed, "topology");
    match cfg {
        TopologyConfig::Explicit { nodes } => nodes
            .iter()
            .map(|n| Placed {
                name: n.name.clone(),
                x: n.x,
                y: n.y,
            })
            .collect(),
        TopologyConfig::Chain { hops, spacing } => (0..=*hops as usize)
            .map(|i| named(i, i as f64 * spacing, 0.0))
            .collect(),
        TopologyConfig::Grid {
            rows,
            cols,
            spacing,
        } => (0..*rows as usize * *cols as usize)
            .map(|i| {
                let (r, c) = (i / *cols as usize, i % *cols as usize);
                named(i, c as f64 * spacing, r as f64 * spacing)
            })
            .collect(),
        TopologyConfig::Random { n, width, height } => (0..*n as usize)
            .map(|i| named(i, rng.uniform() * width, rng.uniform() * height))
            .collect(),
        TopologyConfig::Cells {
            rows,
            cols,
            width,
            height,
            per_cell,
            gateway,
        } => {
            let (cw, ch) = (width / *cols as f64, height / *rows as f64);
            let mut out = Vec::new();
            for r in 0..*rows {
                for c in 0..*cols {
                    for _ in 0..*per_cell {
                        let x = (c as f64 + rng.uniform()) * cw;
                        let y = (r as f64 + rng.uniform()) * ch;
                        out.push(named(out.len(), x, y));
                    }
                }
            }
            if let Some(g) = gateway {
                out.push(named(out.len(), g.x, g.y));
            }
            out
        }
        TopologyConfig::Tree { spacing } => name_all(tree(*spacing)),
        TopologyConfig::Diamond { spacing } => name_all(diamond(*spacing)),
        TopologyConfig::X { spacing } => name_all(x_topology(*spacing)),
        TopologyConfig::AliceBob { spacing } => name_all(alice_bob(*spacing)),
        TopologyConfig::Cross { spacing } => name_all(cross(*spacing)),
        TopologyConfig::Wheel { n, spacing } => name_all(wheel(*n, *spacing)),
        TopologyConfig::Butterfly { spacing } => name_all(butterfly(*spacing)),
        TopologyConfig::Ring { n, spacing } => name_all(ring(*n, *spacing)),
    }
}

/// How many nodes [`place`] will place, computed without placing them (and without overflow),
/// so that a scenario can be checked against its memory budget first.
pub fn node_count(cfg: &TopologyConfig) -> u64 {
    let product = |a: u32, b: u32| a as u64 * b as u64;
    match cfg {
        TopologyConfig::Explicit { nodes } => nodes.len() as u64,
        TopologyConfig::Chain { hops, .. } => *hops as u64 + 1,
        TopologyConfig::Grid { rows, cols, .. } => product(*rows, *cols),
        TopologyConfig::Random { n, .. } => *n as u64,
        TopologyConfig::Cells {
            rows,
            cols,
            per_cell,
            gateway,
            ..
        } => product(*rows, *cols)
            .saturating_mul(*per_cell as u64)
            .saturating_add(gateway.is_some() as u64),
        TopologyConfig::Wheel { n, .. } => *n as u64 + 1,
        TopologyConfig::Ring { n, .. } => *n as u64,
        // The fixed layouts of the papers: a handful of nodes each.
        TopologyConfig::Tree { .. }
        | TopologyConfig::Diamond { .. }
        | TopologyConfig::X { .. }
        | TopologyConfig::AliceBob { .. }
        | TopologyConfig::Cross { .. }
        | TopologyConfig::Butterfly { .. } => place(cfg, 0).len() as u64,
    }
}

/// Default `spacing` of the named topologies, m: 0.8 of the 250 m receive range of ns-2's default
/// 802.11 radio, as in the classic 200 m chains, so links sit well inside the range and the
/// non-links (at least sqrt 2 x spacing = 283 m for most layouts) well outside it.
pub fn default_spacing() -> f64 {
    200.0
}

/// The receive range, in units of `spacing`, that the named layouts are drawn for (250 m / 200 m).
pub const DESIGN_RANGE: f64 = 1.25;

fn name_all(points: Vec<(f64, f64)>) -> Vec<Placed> {
    points
        .into_iter()
        .enumerate()
        .map(|(i, (x, y))| Placed {
            name: format!("n{i}"),
            x,
            y,
        })
        .collect()
}

/// `n` points evenly on a circle of radius `r` centred at (`r`, `r`), the first due east of the
/// centre, counter-clockwise.
fn circle(n: u32, r: f64) -> impl Iterator<Item = (f64, f64)> {
    (0..n).map(move |k| {
        let angle = std::f64::consts::TAU * k as f64 / n as f64;
        (r + r * angle.cos(), r + r * angle.sin())
    })
}

// Each layout below lists its nodes in naming order (n0, n1, ...), y pointing up.

/// Paper 000, Fig. 5a. Flows go from A to B (one hop) and from A to D; a tree leaves D a single
/// route, through C, so the two flows share only their source's queues. A (root) above B (left)
/// and C (right), D below C. Links A-B, A-C, C-D (all `s`); B-C is sqrt 2 s, B-D sqrt 3 s.
fn tree(s: f64) -> Vec<(f64, f64)> {
    let a = s / std::f64::consts::SQRT_2;
    vec![(a, a + s), (0.0, s), (2.0 * a, s), (2.0 * a, 0.0)]
}

/// Paper 000, Fig. 5b. The caption's link A-B (lossy in Figs. 9, 13) plus a second way to D:
/// a square on its corner, A left, B top, C bottom, D right. Links are the four sides (`s`);
/// the diagonals A-D and B-C (sqrt 2 s) are not, so D is two hops from A by B or by C.
fn diamond(s: f64) -> Vec<(f64, f64)> {
    let a = s / std::f64::consts::SQRT_2;
    vec![(0.0, a), (a, 2.0 * a), (a, 0.0), (2.0 * a, a)]
}

/// Paper 001, Fig. 1: S1 = A1 sends a to R1 = A2 and S2 = B1 sends b to R2 = B2, both through
/// I; "A1-B2 and B1-A2 are in the same transmission range", so A2 overhears b and B2 overhears a
/// and both decode I's a XOR b. I is the centre of a 1 x sqrt 3 rectangle: S1 top left, S2
/// bottom left, R1 bottom right, R2 top right, every corner `s` from I. Links: I to each corner
/// and the top (S1-R2) and bottom (S2-R1) sides, all `s`; the short sides (S1-S2, R1-R2) are
/// sqrt 3 s and the diagonals (each flow's ends) 2 s.
fn x_topology(s: f64) -> Vec<(f64, f64)> {
    let h = s * 3f64.sqrt() / 2.0;
    vec![
        (s / 2.0, h),
        (0.0, 2.0 * h),
        (0.0, 0.0),
        (s, 0.0),
        (s, 2.0 * h),
    ]
}

/// Paper 001, Fig. 2a: A1 and A2 exchange flows through I and cannot hear each other ("S1-R2
/// and S2-R1 pairs are the same nodes; A1, A2"). I midway on a line of two `s` hops.
fn alice_bob(s: f64) -> Vec<(f64, f64)> {
    vec![(s, 0.0), (0.0, 0.0), (2.0 * s, 0.0)]
}

/// Paper 001, Fig. 2b: four flows meet at I. The optimal gain of 60 % (Table I) is COPE's 8/5:
/// 8 transmissions uncoded, 4 + 1 when I XORs all four packets, which each receiver can decode
/// only if it holds the three others; so the flows are two exchanges between opposite nodes
/// (each receiver knows its own packet) and every outer node overhears its two neighbours but not
/// the node opposite. Outer nodes east, north, west, south of I at s/sqrt 2: neighbours are `s`
/// apart, opposite nodes sqrt 2 s.
fn cross(s: f64) -> Vec<(f64, f64)> {
    let a = s / std::f64::consts::SQRT_2;
    vec![(a, a), (2.0 * a, a), (a, 2.0 * a), (0.0, a), (a, 0.0)]
}

/// Radius of `wheel`'s rim. The wheel generalises the cross: with `n` flows I XORs `n` packets
/// (paper 001, Fig. 6: "it is possible to combine 8 packets when the number of flows is 8"), so
/// every outer node must hear every other one but its partner opposite. The longest wanted link
/// is then the chord to the partner's neighbours, 2r cos(pi/n) (or the spoke r when n = 2), and
/// the shortest unwanted one the diameter 2r, two lengths that close in as n grows; the radius
/// puts the design range 1.25 s midway between them.
pub fn wheel_radius(n: u32, s: f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let longest = (2.0 * (std::f64::consts::PI / n as f64).cos()).max(1.0); // in units of r
    2.0 * DESIGN_RANGE * s / (longest + 2.0)
}

/// Paper 001, Fig. 2c: I at the centre, `n` nodes evenly on a circle of `wheel_radius`; node
/// n{k} exchanges flows with n{k + n/2}. `n` = 4 has the cross's links, `n` = 2 Alice-and-Bob's.
fn wheel(n: u32, s: f64) -> Vec<(f64, f64)> {
    let r = wheel_radius(n, s);
    std::iter::once((r, r)).chain(circle(n, r)).collect()
}

/// Paper 001, Fig. 8 and Appendix A-B: S1 = A1 -> R1 = A2 and S2 = B1 -> R2 = B2 over I1 then
/// I2, the five capacities C1..C5 being A1-I1, B1-I1, I1-I2 (the bottleneck C3), I2-A2, I2-B2;
/// as in the X, A1-B2 and B1-A2 overhear each other. A 3 x 2 lattice of pitch `s` has exactly
/// these seven links: I1, I2 in the middle row, S1 above I1, S2 below it, R2 above I2, R1 below.
fn butterfly(s: f64) -> Vec<(f64, f64)> {
    vec![
        (0.0, s),
        (s, s),
        (0.0, 2.0 * s),
        (0.0, 0.0),
        (s, 0.0),
        (s, 2.0 * s),
    ]
}

/// Radius of a ring of `n` nodes with neighbours `s` apart.
pub fn ring_radius(n: u32, s: f64) -> f64 {
    if n < 2 {
        return 0.0;
    }
    s / (2.0 * (std::f64::consts::PI / n as f64).sin())
}

/// Paper 003, §6.2: a ring, two disjoint paths between any two nodes. `n` nodes on a circle,
/// neighbours `s` apart; the next-nearest are 2 s cos(pi/n) >= sqrt 2 s apart for n >= 4.
fn ring(n: u32, s: f64) -> Vec<(f64, f64)> {
    circle(n, ring_radius(n, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_count_matches_placement() {
        let small = [
            TopologyConfig::Chain {
                hops: 3,
                spacing: 1.0,
            },
            TopologyConfig::Grid {
                rows: 3,
                cols: 4,
                spacing: 1.0,
            },
            TopologyConfig::Random {
                n: 7,
                width: 10.0,
                height: 10.0,
            },
            TopologyConfig::Wheel { n: 5, spacing: 1.0 },
            TopologyConfig::Ring { n: 6, spacing: 1.0 },
            TopologyConfig::Tree { spacing: 1.0 },
            TopologyConfig::Butterfly { spacing: 1.0 },
        ];
        for cfg in small {
            assert_eq!(node_count(&cfg), place(&cfg, 1).len() as u64, "{cfg:?}");
        }
        let huge = TopologyConfig::Grid {
            rows: u32::MAX,
            cols: u32::MAX,
            spacing: 1.0,
        };
        assert_eq!(node_count(&huge), u32::MAX as u64 * u32::MAX as u64);
    }

    #[test]
    fn chain_and_grid_layouts() {
        let c = place(
            &TopologyConfig::Chain {
                hops: 3,
                spacing: 200.0,
            },
            1,
        );
        assert_eq!(c.len(), 4);
        assert_eq!((c[3].name.as_str(), c[3].x), ("n3", 600.0));
        let g = place(
            &TopologyConfig::Grid {
                rows: 2,
                cols: 3,
                spacing: 100.0,
            },
            1,
        );
        assert_eq!((g[4].x, g[4].y), (100.0, 100.0)); // row 1, column 1
    }

    #[test]
    fn cells_put_each_node_in_its_cell() {
        let cfg = TopologyConfig::Cells {
            rows: 3,
            cols: 4,
            width: 800.0,
            height: 600.0,
            per_cell: 1,
            gateway: Some(crate::scenario::config::Point { x: 400.0, y: 300.0 }),
        };
        let p = place(&cfg, 7);
        assert_eq!(p.len(), 13);
        for (i, n) in p.iter().take(12).enumerate() {
            let (r, c) = (i / 4, i % 4);
            assert!(n.x >= c as f64 * 200.0 && n.x < (c + 1) as f64 * 200.0);
            assert!(n.y >= r as f64 * 200.0 && n.y < (r + 1) as f64 * 200.0);
        }
        assert_eq!(p[12].name, "n12");
        assert_eq!(p, place(&cfg, 7));
        assert_ne!(p, place(&cfg, 8));
    }

    // --- The named topologies -------------------------------------------------------------

    use crate::net::routing::{Edge, Iface, RoutingTable};
    use std::collections::BTreeSet;

    const S: f64 = 200.0; // the default spacing
    const RANGE: f64 = 250.0; // 802.11b with ns-2's thresholds, and the scenarios' range model

    type Links = BTreeSet<(usize, usize)>;

    /// Pairs within `range` of each other, as the range model decides (d <= range).
    fn in_range(p: &[Placed], range: f64) -> Links {
        let mut out = Links::new();
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                if ((p[i].x - p[j].x).powi(2) + (p[i].y - p[j].y).powi(2)).sqrt() <= range {
                    out.insert((i, j));
                }
            }
        }
        out
    }

    fn links(pairs: &[(usize, usize)]) -> Links {
        pairs.iter().copied().collect()
    }

    /// The shortest of the lengths of `wanted` and the longest of the other pairs' lengths.
    fn extremes(p: &[Placed], wanted: &Links) -> (f64, f64) {
        let (mut longest_link, mut shortest_gap) = (0.0f64, f64::INFINITY);
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                let d = ((p[i].x - p[j].x).powi(2) + (p[i].y - p[j].y).powi(2)).sqrt();
                if wanted.contains(&(i, j)) {
                    longest_link = longest_link.max(d);
                } else {
                    shortest_gap = shortest_gap.min(d);
                }
            }
        }
        (longest_link, shortest_gap)
    }

    fn wheel_links(n: usize) -> Links {
        let mut out: Links = (1..=n).map(|k| (0, k)).collect();
        for i in 1..=n {
            for j in i + 1..=n {
                if j - i != n / 2 {
                    out.insert((i, j));
                }
            }
        }
        out
    }

    fn ring_links(n: usize) -> Links {
        (0..n)
            .map(|k| (k.min((k + 1) % n), k.max((k + 1) % n)))
            .collect()
    }

    /// The named topologies at `spacing`, each with its intended links and the range, in units
    /// of spacing, beyond which its first unwanted pair comes within range.
    fn named(spacing: f64) -> Vec<(String, Vec<Placed>, Links, f64)> {
        let s = spacing;
        let sqrt2 = std::f64::consts::SQRT_2;
        let mut out = vec![
            (
                "tree".to_string(),
                place(&TopologyConfig::Tree { spacing: s }, 1),
                links(&[(0, 1), (0, 2), (2, 3)]),
                sqrt2,
            ),
            (
                "diamond".to_string(),
                place(&TopologyConfig::Diamond { spacing: s }, 1),
                links(&[(0, 1), (0, 2), (1, 3), (2, 3)]),
                sqrt2,
            ),
            (
                "x".to_string(),
                place(&TopologyConfig::X { spacing: s }, 1),
                links(&[(0, 1), (0, 2), (0, 3), (0, 4), (1, 4), (2, 3)]),
                3f64.sqrt(),
            ),
            (
                "alice_bob".to_string(),
                place(&TopologyConfig::AliceBob { spacing: s }, 1),
                links(&[(0, 1), (0, 2)]),
                2.0,
            ),
            (
                "cross".to_string(),
                place(&TopologyConfig::Cross { spacing: s }, 1),
                wheel_links(4),
                sqrt2,
            ),
            (
                "butterfly".to_string(),
                place(&TopologyConfig::Butterfly { spacing: s }, 1),
                links(&[(0, 1), (0, 2), (0, 3), (1, 4), (1, 5), (2, 5), (3, 4)]),
                sqrt2,
            ),
        ];
        for n in [2u32, 4, 6, 8, 10, 12, 16] {
            let r = wheel_radius(n, s);
            out.push((
                format!("wheel n={n}"),
                place(&TopologyConfig::Wheel { n, spacing: s }, 1),
                wheel_links(n as usize),
                2.0 * r / s,
            ));
        }
        for n in [3u32, 4, 5, 6, 8, 22] {
            let next = if n == 3 {
                f64::INFINITY
            } else {
                2.0 * (std::f64::consts::PI / n as f64).cos()
            };
            out.push((
                format!("ring n={n}"),
                place(&TopologyConfig::Ring { n, spacing: s }, 1),
                ring_links(n as usize),
                next,
            ));
        }
        out
    }

    #[test]
    fn named_topologies_have_exactly_their_links_at_250_m() {
        for (name, p, wanted, _) in named(S) {
            assert_eq!(in_range(&p, RANGE), wanted, "{name}");
            for (i, node) in p.iter().enumerate() {
                assert_eq!(node.name, format!("n{i}"), "{name}");
                assert!(node.x >= -1e-9 && node.y >= -1e-9, "{name}: {node:?}");
            }
        }
    }

    #[test]
    fn named_topology_sizes() {
        let count = |cfg: TopologyConfig| place(&cfg, 1).len();
        let s = S;
        assert_eq!(count(TopologyConfig::Tree { spacing: s }), 4);
        assert_eq!(count(TopologyConfig::Diamond { spacing: s }), 4);
        assert_eq!(count(TopologyConfig::X { spacing: s }), 5);
        assert_eq!(count(TopologyConfig::AliceBob { spacing: s }), 3);
        assert_eq!(count(TopologyConfig::Cross { spacing: s }), 5);
        assert_eq!(count(TopologyConfig::Wheel { n: 8, spacing: s }), 9);
        assert_eq!(count(TopologyConfig::Butterfly { spacing: s }), 6);
        assert_eq!(count(TopologyConfig::Ring { n: 22, spacing: s }), 22);
    }

    #[test]
    fn fixed_layouts_hold_from_spacing_to_their_first_unwanted_pair() {
        // Every link but the wheel's is at most `spacing` long, and the tolerated range ends
        // where the documented first unwanted pair begins; both scale with the spacing.
        for spacing in [200.0, 37.5, 1000.0] {
            for (name, p, wanted, upper) in named(spacing) {
                let (longest, gap) = extremes(&p, &wanted);
                assert!(
                    (gap / spacing - upper).abs() < 1e-9 || upper.is_infinite(),
                    "{name}"
                );
                if name.starts_with("wheel") {
                    // Centred: the design range is the midpoint of the longest link and the gap.
                    let mid = (longest + gap) / 2.0;
                    assert!((mid - DESIGN_RANGE * spacing).abs() < 1e-9, "{name}");
                } else {
                    assert!((longest - spacing).abs() < 1e-9, "{name}: {longest}");
                    assert_eq!(in_range(&p, spacing * (1.0 + 1e-12)), wanted, "{name}");
                }
                assert!(
                    longest < DESIGN_RANGE * spacing && DESIGN_RANGE * spacing < gap,
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn wheel_margins_shrink_with_n_as_documented() {
        // The docs tabulate the wheel's longest link and diameter at the defaults.
        let expect = [
            (2, 166.67, 333.33),
            (4, 207.11, 292.89),
            (6, 232.05, 267.95),
            (8, 240.10, 259.90),
            (16, 247.58, 252.42),
        ];
        for (n, longest, diameter) in expect {
            let (_, p, wanted, _) = named(S)
                .into_iter()
                .find(|t| t.0 == format!("wheel n={n}"))
                .unwrap();
            let (l, g) = extremes(&p, &wanted);
            assert!(
                (l - longest).abs() < 0.01 && (g - diameter).abs() < 0.01,
                "{n}: {l} {g}"
            );
        }
    }

    /// Next hops as static routing computes them from the radio links (edges listed by sender,
    /// then receiver, as the wireless builder does), followed from `src` to `dst`.
    fn route(wanted: &Links, nodes: usize, src: usize, dst: usize) -> Vec<usize> {
        let mut edges = Vec::new();
        for from in 0..nodes {
            for to in 0..nodes {
                if wanted.contains(&(from.min(to), from.max(to))) && from != to {
                    edges.push(Edge {
                        from: from as u32,
                        to: to as u32,
                        iface: Iface::Radio(from as u32),
                    });
                }
            }
        }
        let table = RoutingTable::shortest_paths(nodes, &edges, &[dst as u32]);
        let mut path = vec![src];
        while *path.last().unwrap() != dst {
            let hop = table
                .next_hop(*path.last().unwrap() as u32, dst as u32)
                .unwrap();
            path.push(hop.node as usize);
            assert!(path.len() <= nodes);
        }
        path
    }

    #[test]
    fn suggested_flows_route_through_the_papers_relays() {
        // Relays are named first so that hop-count ties (the cross's and wheel's outer nodes
        // can also relay for each other, the butterfly's overhearing links form 3-hop detours)
        // resolve through them.
        let all = named(S);
        let get = |name: &str| {
            let t = all.iter().find(|t| t.0 == name).unwrap();
            (t.2.clone(), t.1.len())
        };
        let cases: Vec<(&str, Vec<Vec<usize>>)> = vec![
            ("tree", vec![vec![0, 1], vec![0, 2, 3]]),
            ("diamond", vec![vec![0, 1], vec![0, 1, 3]]),
            ("alice_bob", vec![vec![1, 0, 2], vec![2, 0, 1]]),
            (
                "x",
                vec![vec![1, 0, 3], vec![2, 0, 4], vec![3, 0, 1], vec![4, 0, 2]],
            ),
            (
                "cross",
                vec![vec![1, 0, 3], vec![3, 0, 1], vec![2, 0, 4], vec![4, 0, 2]],
            ),
            (
                "butterfly",
                vec![
                    vec![2, 0, 1, 4],
                    vec![3, 0, 1, 5],
                    vec![4, 1, 0, 2],
                    vec![5, 1, 0, 3],
                ],
            ),
        ];
        for (name, paths) in cases {
            let (wanted, nodes) = get(name);
            for path in paths {
                let (src, dst) = (path[0], *path.last().unwrap());
                assert_eq!(route(&wanted, nodes, src, dst), path, "{name}");
            }
        }
        for n in [2usize, 4, 6, 8, 16] {
            let (wanted, nodes) = get(&format!("wheel n={n}"));
            for k in 1..=n {
                let partner = (k - 1 + n / 2) % n + 1;
                assert_eq!(
                    route(&wanted, nodes, k, partner),
                    vec![k, 0, partner],
                    "wheel {n}"
                );
            }
        }
        // Paper 003's flows between opposite ring nodes have two disjoint paths of n/2 hops.
        let (wanted, nodes) = get("ring n=8");
        assert_eq!(route(&wanted, nodes, 0, 4).len(), 5);
    }
}
