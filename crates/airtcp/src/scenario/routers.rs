//! Wireless routers as a scenario gives them (`routers: [...]`, `net::router`), with the priority
//! pairs a router may ask for (`net::forwarding::priority_pairs`); built by `router_build`.

use serde::{Deserialize, Serialize};

use super::config::{Nanos, QueueConfig};
use crate::error::ConfigError;
use crate::mac::downlink::config::ErasureConfig;
pub use crate::net::forwarding::priority_pairs::config::{
    LowOrderConfig, LowPolicyConfig, PairBuffers, PriorityPairsConfig,
};
use crate::net::forwarding::priority_pairs::PriorityPairs;
pub use crate::net::forwarding::priority_pairs::RouterPairsSetup;
use crate::net::forwarding::Forwarding;
use crate::sim::NodeId;

/// One wireless router.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    /// The router's node.
    #[schemars(transform = crate::quantity::node_name)]
    pub node: String,
    /// Transmitter rate, bit/s (shared by all users).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub rate: u64,
    /// The drop-tail interface queue (what plain forwarding sends through).
    #[serde(default = "default_router_queue")]
    pub queue: QueueConfig,
    /// The users.
    #[schemars(length(min = 1))]
    pub users: Vec<RouterUserConfig>,
    /// Each user's wired uplink to the router: rate, bit/s (the paper's uplink is perfect).
    #[serde(default = "default_uplink_rate")]
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub uplink_rate: u64,
    /// Each user's wired uplink: delay, ns.
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration)]
    pub uplink_delay: Nanos,
    /// Per-flow priority queue pairs (TCP-RLC's router); absent: the interface queue alone.
    #[serde(default)]
    pub priority_pairs: Option<PriorityPairsConfig>,
}

/// One user of a router.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouterUserConfig {
    /// The user's node.
    #[schemars(transform = crate::quantity::node_name)]
    pub node: String,
    /// Its channel's erasures (absent: every packet received).
    #[serde(default)]
    pub channel: Option<ErasureConfig>,
    /// Its flows' pair capacities (absent: the router's `priority_pairs.buffers`).
    #[serde(default)]
    pub buffers: Option<PairBuffers>,
}

fn default_router_queue() -> QueueConfig {
    QueueConfig::Droptail { packets: 100 }
}
fn default_uplink_rate() -> u64 {
    1_000_000_000
}

impl RouterConfig {
    /// User `u`'s pair capacities (its own, or the router's `priority_pairs.buffers`), checked,
    /// if the router has pairs; `r` is the router's index.
    pub fn pair_capacity(&self, r: usize, u: usize) -> Result<Option<(usize, usize)>, ConfigError> {
        let buffers = match (self.users[u].buffers, &self.priority_pairs) {
            (Some(b), _) => Some((b, format!("routers[{r}].users[{u}].buffers"))),
            (None, Some(pp)) => Some((pp.buffers, format!("routers[{r}].priority_pairs.buffers"))),
            (None, None) => None,
        };
        buffers.map(|(b, path)| b.capacity(&path)).transpose()
    }

    /// The pairs of router `r` at node `node` if it asks for them, for users at `user_nodes`
    /// with capacities `capacity`.
    pub fn pairs_setup(
        &self,
        r: usize,
        node: NodeId,
        capacity: Vec<(usize, usize)>,
        user_nodes: Vec<NodeId>,
    ) -> Result<Option<RouterPairsSetup>, ConfigError> {
        self.priority_pairs
            .as_ref()
            .map(|pp| pp.setup(r, node, capacity, user_nodes))
            .transpose()
    }
}

/// The forwarding layer of a scenario whose routers asked for priority pairs (`pairs`, not
/// empty), over `nodes` nodes and `routers` routers: they forward over static routes only.
pub fn pairs_layer(
    nodes: usize,
    routers: usize,
    pairs: Vec<RouterPairsSetup>,
    static_routes: bool,
) -> Result<Box<dyn Forwarding>, ConfigError> {
    if !static_routes {
        return Err(ConfigError::new(
            "routing.kind",
            "routers with priority_pairs forward over static routes (use static)",
        ));
    }
    Ok(Box::new(PriorityPairs::new(nodes, routers, pairs)))
}
