//! How routes are found and which forwarding layer runs (`routing:`): static routes, AODV,
//! backpressure or Horizon, whose own blocks live in their folders; the one place a routing
//! scheme registers its checks, its layer, its shim and its result tables.

use serde::{Deserialize, Serialize};

use super::{
    HorizonConfig, Nanos, PathsConfig, QueueConfig, ReverseConfig, RouteMetric, ScenarioConfig,
    TcpConfig, TransportConfig,
};
use crate::error::ConfigError;
use crate::net::forwarding::{Fifo, Forwarding, LayerSetup, RadioBasics, Surroundings};
use crate::net::routing::default_min_delivery;
use crate::net::{backpressure, horizon};
use crate::transport::shim::Shim;

/// Route computation.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RoutingConfig {
    /// Shortest paths computed once over the links that deliver data (`min_delivery`).
    Static {
        /// Path metric.
        #[serde(default)]
        metric: RouteMetric,
        /// The delivery threshold of a radio link (`scenario::usable_links`): routes and flow
        /// paths use a link only if a full-size data frame at its rate gets through with at
        /// least this probability both ways; 0 uses every link the receiver locks onto.
        #[serde(default = "default_min_delivery")]
        #[schemars(transform = crate::quantity::probability)]
        #[schemars(extend("x-omit-default" = true))]
        min_delivery: f64,
    },
    /// AODV (RFC 3561).
    Aodv {
        /// What a node does with a packet it must forward but has no route for (after a link
        /// break or a RERR): `true` buffers it and starts a discovery there (local repair in
        /// the manner of ns-2's AODV); `false` drops it and reports the destination unreachable
        /// with a RERR, RFC 3561 §6.11 case (ii) without the optional §6.12 repair (ns-3's AODV).
        #[serde(default = "default_true")]
        local_repair: bool,
        /// HELLO messages (RFC 3561 §6.9) and a neighbour table whose expired entries break
        /// links, as ns-3's AODV has them (`EnableHello`, on by default there as here); `false`:
        /// links are watched by the MAC alone (ns-2's default, and airtcp's before HELLOs).
        #[serde(default = "default_true")]
        hello: bool,
        /// HELLO_INTERVAL, ns (ns-3's `HelloInterval`, 1 s).
        #[serde(default = "default_hello_interval")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        hello_interval: Nanos,
        /// ALLOWED_HELLO_LOSS: HELLO intervals a neighbour may stay silent before its link is
        /// broken (ns-3's `AllowedHelloLoss`, 2).
        #[serde(default = "default_allowed_hello_loss")]
        #[schemars(range(min = 1))]
        allowed_hello_loss: u32,
        /// A node ignores control messages that reach it over a link below this delivery
        /// threshold (as `Static`'s), so that discovered routes consist of links that carry
        /// data; 0: every message is processed, as RFC 3561 (and ns-2, ns-3) do.
        #[serde(default = "default_min_delivery")]
        #[schemars(transform = crate::quantity::probability)]
        #[schemars(extend("x-omit-default" = true))]
        min_delivery: f64,
    },
    /// Backpressure forwarding (paper 000): next hop and flow chosen at every transmit
    /// opportunity from per-flow queue differentials (see `net::backpressure`).
    Backpressure(crate::net::backpressure::config::BackpressureConfig),
    /// Horizon (paper 003): multipath back-pressure for unmodified TCP over each flow's
    /// node-disjoint paths, with the destination's reorder buffer and the source's congestion
    /// signal (see `net::horizon`, `transport::horizon`).
    Horizon(crate::net::horizon::config::HorizonConfig),
}

fn default_hello_interval() -> Nanos {
    1_000_000_000
}

fn default_allowed_hello_loss() -> u32 {
    2
}

/// The results tables of the forwarding layers a scenario can ask for
/// (`net::forwarding::Forwarding::report`): every run's results have each of them, empty unless
/// its layer ran, so that every run has the same keys.
pub const FORWARDING_TABLES: &[&str] = &[backpressure::TABLE];

impl RoutingConfig {
    /// The checks of the forwarding layer this block asks for (its own parameters, and what it
    /// needs of the scenario), in `cfg`.
    pub fn check_forwarding(&self, cfg: &ScenarioConfig) -> Result<(), ConfigError> {
        match self {
            RoutingConfig::Backpressure(bp) => {
                backpressure::setup::check(bp, &Self::surroundings(cfg))?
            }
            RoutingConfig::Horizon(hz) => horizon::setup::check(hz, &Self::surroundings(cfg))?,
            _ => {}
        }
        if let RoutingConfig::Horizon { .. } = self {
            for (i, f) in cfg.flows.iter().enumerate() {
                if let TransportConfig::Tcp(TcpConfig { nc: Some(_), .. }) = &f.transport {
                    return Err(ConfigError::new(
                        format!("flows[{i}].transport.nc"),
                        "Horizon's reorder buffer and signal sit between TCP and the network; a \
                         flow cannot also have the NC layer there",
                    ));
                }
            }
        }
        Ok(())
    }

    /// What the forwarding schemes may ask of scenario `cfg` (`net::forwarding::Surroundings`).
    pub fn surroundings(cfg: &ScenarioConfig) -> Surroundings {
        Surroundings {
            wired_or_cell: !cfg.links.is_empty()
                || cfg.downlink.is_some()
                || !cfg.routers.is_empty(),
            radio: cfg.radio.as_ref().map(|radio| RadioBasics {
                queue_packets: match radio.queue {
                    QueueConfig::Droptail { packets } => packets as usize,
                },
                data_rate: radio.data_rate,
                rx_threshold_dbm: radio.rx_threshold_dbm(),
            }),
        }
    }

    /// The delivery threshold of the links this block routes over (`min_delivery`, checked to
    /// be a probability), or `None` for backpressure, which weighs every link by the loss it
    /// measures itself (paper 000 runs it over links losing up to half their frames).
    pub fn min_delivery(&self) -> Result<Option<f64>, ConfigError> {
        let threshold = match *self {
            RoutingConfig::Static { min_delivery, .. }
            | RoutingConfig::Aodv { min_delivery, .. }
            | RoutingConfig::Horizon(HorizonConfig { min_delivery, .. }) => min_delivery,
            RoutingConfig::Backpressure { .. } => return Ok(None),
        };
        // Worded as the Python front end's probabilities (`units.parse_probability`).
        if !(0.0..=1.0).contains(&threshold) {
            return Err(ConfigError::new(
                "routing.min_delivery",
                format!("must be between 0 and 1, got {threshold}"),
            ));
        }
        Ok(Some(threshold))
    }

    /// The paths a flow without a `paths` block follows under this block (Horizon's own:
    /// `paths` node-disjoint ones by its metric, the reverse traffic on them too); `None`: such a
    /// flow is routed.
    pub fn implied_paths(&self) -> Option<PathsConfig> {
        match *self {
            RoutingConfig::Horizon(HorizonConfig { paths, metric, .. }) => {
                Some(PathsConfig::Disjoint {
                    k: paths,
                    metric,
                    reverse: ReverseConfig::Paths,
                })
            }
            _ => None,
        }
    }

    /// The `k` paths of an implied block ([`implied_paths`](Self::implied_paths)) from `src` to
    /// `dst`, fewer where fewer exist: Horizon's, the least-weight path first
    /// (`net::horizon::setup::default_first_paths`).
    pub fn implied_paths_between(
        &self,
        n: usize,
        edges: &[crate::net::routing::Edge],
        weight: &dyn Fn(usize) -> f64,
        (src, dst): (crate::sim::NodeId, crate::sim::NodeId),
        k: usize,
    ) -> Vec<crate::net::paths::DisjointPath> {
        horizon::setup::default_first_paths(n, edges, weight, src, dst, k)
    }

    /// The shim this block puts on TCP flow `index` (Horizon's reorder buffer and congestion
    /// signal, with the PathIDs of the flow's paths), if any; `seed` is the run's.
    pub fn transport_shim(
        &self,
        cfg: &ScenarioConfig,
        paths: &crate::net::flow_paths::FlowPaths,
        index: usize,
    ) -> Option<Box<dyn Shim>> {
        let RoutingConfig::Horizon(hz) = self else {
            return None;
        };
        let params = crate::transport::horizon::HorizonShimParams::of_config(hz);
        let ids = horizon::setup::path_ids(cfg.seed, paths, index as u32);
        Some(Box::new(crate::transport::horizon::HorizonShim::new(
            &params, ids,
        )))
    }

    /// Why flows cannot have paths (`flows[].paths`, `net::flow_paths`) under this block, if they
    /// cannot: the routing service answers for pinned packets with their paths' hops, and the
    /// plain layer follows it; AODV's routes and backpressure's choices do not.
    pub fn ignores_flow_paths(&self) -> Option<&'static str> {
        match self {
            RoutingConfig::Static { .. } => None,
            RoutingConfig::Aodv { .. } => {
                Some("aodv finds its routes itself; flow paths are followed under static routing")
            }
            RoutingConfig::Backpressure { .. } => Some(
                "backpressure chooses next hops itself; flow paths are followed under static \
                 routing",
            ),
            // Horizon forwards over the flows' paths (its own disjoint ones unless given).
            RoutingConfig::Horizon { .. } => None,
        }
    }

    /// The forwarding layer (`net::forwarding`) this block asks for, in the checked scenario
    /// `cfg`: backpressure's own layer for `backpressure` (paper 000 §4.1), Horizon's for
    /// `horizon` (paper 003), plain store-and-forward over the routes otherwise (`static`,
    /// `aodv`).
    pub fn forwarding(&self, cfg: &ScenarioConfig, setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        match self {
            RoutingConfig::Horizon(hz) => Box::new(horizon::setup::layer(
                horizon::setup::params(hz, &Self::surroundings(cfg)),
                setup,
            )),
            RoutingConfig::Backpressure(bp) => {
                let around = Self::surroundings(cfg);
                let rx_threshold_dbm = around
                    .radio
                    .expect("checked: backpressure needs radios")
                    .rx_threshold_dbm;
                let params = backpressure::setup::params(bp, &around);
                Box::new(backpressure::setup::layer(params, rx_threshold_dbm, setup))
            }
            _ => Box::new(Fifo),
        }
    }
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig::Static {
            metric: RouteMetric::Hops,
            // default_min_delivery()
            min_delivery: 0.5,
        }
    }
}

fn default_true() -> bool {
    true
}
