//! Node placement: explicit coordinates or generated layouts. Generated nodes are named
//! `n0..n{N-1}` (row-major for grids and cells; a cells gateway comes last). Random placements
//! draw from the stream `topology` of the run's seed.

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
        } => (0..(*rows * *cols) as usize)
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
