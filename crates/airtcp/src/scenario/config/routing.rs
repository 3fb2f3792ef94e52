//! How routes are found and which forwarding layer runs (`routing:`): static routes, AODV,
//! backpressure or Horizon, whose own blocks live in their folders; the one place a routing
//! scheme registers its checks, its layer, its shim and its result tables.

use serde::{Deserialize, Serialize};

use super::{PathsConfig, ReverseConfig, ScenarioConfig, TcpConfig, TransportConfig};
use crate::error::ConfigError;
pub use crate::net::aodv::config::AodvConfig;
use crate::net::backpressure;
use crate::net::forwarding::{Forwarding, LayerSetup, RadioBasics, RoutingScheme, Surroundings};
use crate::net::horizon;
pub use crate::net::routing::StaticConfig;
use crate::transport::shim::Shim;

// Each block is its own config type implementing `RoutingScheme` beside its code;
// `RoutingConfig::scheme` is the one place a block is named.
/// Route computation.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RoutingConfig {
    /// Shortest paths computed once over the links that deliver data (`min_delivery`).
    Static(StaticConfig),
    /// AODV (RFC 3561).
    Aodv(AodvConfig),
    /// Backpressure forwarding (paper 000): next hop and flow chosen at every transmit
    /// opportunity from per-flow queue differentials (see `net::backpressure`).
    Backpressure(crate::net::backpressure::config::BackpressureConfig),
    /// Horizon (paper 003): multipath back-pressure for unmodified TCP over each flow's
    /// node-disjoint paths, with the destination's reorder buffer and the source's congestion
    /// signal (see `net::horizon`, `transport::horizon`).
    Horizon(crate::net::horizon::config::HorizonConfig),
}

/// The results tables of the forwarding layers a scenario can ask for
/// (`net::forwarding::Forwarding::report`): every run's results have each of them, empty unless
/// its layer ran, so that every run has the same keys.
pub const FORWARDING_TABLES: &[&str] = &[backpressure::TABLE];

impl RoutingConfig {
    /// The block's scheme: the registration of every routing block.
    pub fn scheme(&self) -> &dyn RoutingScheme {
        match self {
            RoutingConfig::Static(block) => block,
            RoutingConfig::Aodv(block) => block,
            RoutingConfig::Backpressure(block) => block,
            RoutingConfig::Horizon(block) => block,
        }
    }

    /// The checks of the forwarding layer this block asks for (its own parameters, and what it
    /// needs of the scenario), in `cfg`.
    pub fn check_forwarding(&self, cfg: &ScenarioConfig) -> Result<(), ConfigError> {
        self.scheme().check(&Self::surroundings(cfg))?;
        if self.has_transport_shim() {
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
            wired_links: !cfg.links.is_empty(),
            downlink: cfg.downlink.is_some(),
            routers: !cfg.routers.is_empty(),
            radio: cfg.radio.as_ref().map(|radio| RadioBasics {
                queue_packets: radio.queue.capacity(),
                data_rate: radio.data_rate,
                rx_threshold_dbm: radio.rx_threshold_dbm(),
            }),
        }
    }

    /// The delivery threshold of the links this block routes over (`min_delivery`, checked to
    /// be a probability), or `None` where the scheme takes every link.
    pub fn min_delivery(&self) -> Result<Option<f64>, ConfigError> {
        let Some(threshold) = self.scheme().min_delivery() else {
            return Ok(None);
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
        let (k, metric) = self.scheme().implied_paths()?;
        Some(PathsConfig::Disjoint {
            k,
            metric,
            reverse: ReverseConfig::Paths,
        })
    }

    /// The `k` paths of an implied block ([`implied_paths`](Self::implied_paths)) from `src` to
    /// `dst`, fewer where fewer exist: Horizon's, the least-weight path first, the others by its
    /// `path_choice` (`net::horizon::paths`); `contend` says whether two edges contend for the
    /// air.
    pub fn implied_paths_between(
        &self,
        n: usize,
        edges: &[crate::net::routing::Edge],
        weight: &dyn Fn(usize) -> f64,
        ends: (crate::sim::NodeId, crate::sim::NodeId),
        k: usize,
        contend: &dyn Fn(usize, usize) -> bool,
    ) -> Vec<crate::net::paths::DisjointPath> {
        use horizon::config::HzPathChoiceConfig;
        use horizon::paths::PathChoice;
        let choice = match self {
            RoutingConfig::Horizon(hz)
                if hz.path_choice == HzPathChoiceConfig::InterferenceAware =>
            {
                PathChoice::InterferenceAware(contend)
            }
            _ => PathChoice::Lightest,
        };
        horizon::paths::flow_paths(n, edges, weight, ends, k, choice)
    }

    /// Whether this block puts a shim on TCP flows (then no flow may have the NC layer, which
    /// sits in the same place).
    fn has_transport_shim(&self) -> bool {
        matches!(self, RoutingConfig::Horizon(_))
    }

    /// The shim this block puts on TCP flow `index` (Horizon's reorder buffer and congestion
    /// signal, with the PathIDs of the flow's paths), if any; `seed` is the run's. The one
    /// place a transport shim of a routing block is registered.
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
        self.scheme().ignores_flow_paths()
    }

    /// The forwarding layer (`net::forwarding`) this block asks for, in the checked scenario
    /// `cfg`: backpressure's own layer for `backpressure` (paper 000 §4.1), Horizon's for
    /// `horizon` (paper 003), plain store-and-forward over the routes otherwise (`static`,
    /// `aodv`).
    pub fn forwarding(&self, cfg: &ScenarioConfig, setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        self.scheme().layer(&Self::surroundings(cfg), setup)
    }
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig::Static(StaticConfig::default())
    }
}
