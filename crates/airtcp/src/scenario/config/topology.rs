//! Where the wireless nodes are (`topology:`): explicit positions or a generated layout.

use serde::{Deserialize, Serialize};

use super::default_one;

/// Placement of wireless nodes. Generated nodes are named `n0..n{N-1}` (row-major for grids);
/// distances are metres.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyConfig {
    /// Named nodes at given coordinates.
    Explicit {
        /// The nodes.
        #[schemars(length(min = 1))]
        nodes: Vec<PlacedNode>,
    },
    /// `hops + 1` nodes on a line, `spacing` apart.
    Chain {
        /// Number of hops (>= 1).
        #[schemars(range(min = 1))]
        hops: u32,
        /// Distance between neighbours, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// A `rows x cols` lattice, `spacing` apart, numbered row by row.
    Grid {
        /// Rows (>= 1).
        #[schemars(range(min = 1))]
        rows: u32,
        /// Columns (>= 1).
        #[schemars(range(min = 1))]
        cols: u32,
        /// Distance between neighbours, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// `n` nodes uniformly at random in a `width x height` area.
    Random {
        /// Number of nodes.
        #[schemars(range(min = 1))]
        n: u32,
        /// Area width, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        width: f64,
        /// Area height, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        height: f64,
    },
    /// A `width x height` area cut into `rows x cols` cells with `per_cell` nodes placed
    /// uniformly in each (papers 000, 001), plus an optional gateway node (named last).
    Cells {
        /// Rows of cells.
        #[schemars(range(min = 1))]
        rows: u32,
        /// Columns of cells.
        #[schemars(range(min = 1))]
        cols: u32,
        /// Area width, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        width: f64,
        /// Area height, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        height: f64,
        /// Nodes per cell.
        #[serde(default = "default_one")]
        #[schemars(range(min = 1))]
        per_cell: u32,
        /// Position of a gateway node, if any.
        #[serde(default)]
        gateway: Option<Point>,
    },
    // The named topologies of the papers below are laid out so that a receive range of
    // 1.25 x `spacing` (250 m at the default 200 m) yields exactly the paper's links; roles,
    // coordinates and links are in topology.rs and docs/scenario-schema.md.
    /// Paper 000's tree (Fig. 5a): root A `n0`, leaf B `n1`, relay C `n2`, leaf D `n3` below C.
    Tree {
        /// Length of every link, m.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 000's diamond (Fig. 5b): A `n0`, B `n1`, C `n2`, D `n3`; two 2-hop paths A-B-D and
    /// A-C-D.
    Diamond {
        /// Length of every link, m.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's X topology (Fig. 1): relay I `n0`, S1 `n1` -> R1 `n3`, S2 `n2` -> R2 `n4`,
    /// with S1 overheard by R2 and S2 by R1.
    X {
        /// Length of every link, m.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's Alice-and-Bob topology (Fig. 2a): relay I `n0` between A1 `n1` and A2 `n2`.
    AliceBob {
        /// Length of every link, m.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's cross (Fig. 2b): relay I `n0` amid `n1..n4`, each exchanging a flow with the
    /// node opposite and overhearing its two other neighbours.
    Cross {
        /// Distance between neighbouring outer nodes, m (each is spacing/sqrt 2 from I).
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's wheel (Fig. 2c), the cross generalised: relay I `n0` at the centre of `n`
    /// nodes on a circle, each hearing all others but the one opposite.
    Wheel {
        /// Nodes on the circle (even, >= 2).
        #[schemars(range(min = 2), extend("multipleOf" = 2))]
        n: u32,
        /// Scale, m: the rim is sized for a receive range of 1.25 x spacing.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's butterfly (Fig. 8): relays I1 `n0` -> I2 `n1`, S1 `n2` -> R1 `n4`,
    /// S2 `n3` -> R2 `n5`, with S1 overheard by R2 and S2 by R1.
    Butterfly {
        /// Length of every link, m.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 003's ring: `n` nodes on a circle, each hearing only its two neighbours, so every
    /// pair has two disjoint paths.
    Ring {
        /// Nodes (>= 3).
        #[schemars(range(min = 3))]
        n: u32,
        /// Distance between neighbours, m.
        #[serde(default = "crate::scenario::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
}

/// A node with a position.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacedNode {
    /// Node name.
    #[schemars(transform = crate::quantity::node_name)]
    pub name: String,
    /// x, m.
    #[schemars(transform = crate::quantity::distance)]
    pub x: f64,
    /// y, m.
    #[schemars(transform = crate::quantity::distance)]
    pub y: f64,
}

/// A position.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// x, m.
    #[schemars(transform = crate::quantity::distance)]
    pub x: f64,
    /// y, m.
    #[schemars(transform = crate::quantity::distance)]
    pub y: f64,
}
