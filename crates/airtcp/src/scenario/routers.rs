//! Wireless routers as a scenario gives them (`routers: [...]`, `net::router`), with the priority
//! pairs a router may ask for (`net::forwarding::priority_pairs`); built by `router_build`.

use serde::{Deserialize, Serialize};

use super::config::{Nanos, QueueConfig};
use crate::mac::downlink::config::ErasureConfig;

/// One wireless router.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    /// The router's node.
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
    pub node: String,
    /// Its channel's erasures (absent: every packet received).
    #[serde(default)]
    pub channel: Option<ErasureConfig>,
    /// Its flows' pair capacities (absent: the router's `priority_pairs.buffers`).
    #[serde(default)]
    pub buffers: Option<PairBuffers>,
}

/// A pair's capacities, packets.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PairBuffers {
    /// The high-priority FIFO.
    #[schemars(range(min = 1))]
    pub high: u32,
    /// The low-priority queue.
    pub low: u32,
}

/// The low queue's order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LowOrderConfig {
    /// Newest first, a full queue pushes out its oldest (the paper's).
    #[default]
    Lifo,
    /// Oldest first, drop-tail (ablation).
    Fifo,
}

/// How low packets are shared among flows.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LowPolicyConfig {
    /// Round-robin.
    #[default]
    Blind,
    /// Per-block quotas from the users' success probabilities.
    ChannelAware {
        /// Standard deviations of margin.
        #[serde(default = "default_kappa")]
        #[schemars(range(min = 0))]
        kappa: f64,
    },
}

/// TCP-RLC's per-flow priority queue pairs at a router.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorityPairsConfig {
    /// Capacities of each flow's pair (a user's own `buffers` override them).
    pub buffers: PairBuffers,
    /// The low queue's order.
    #[serde(default)]
    pub low_order: LowOrderConfig,
    /// The low queue's sharing policy.
    #[serde(default)]
    pub low_policy: LowPolicyConfig,
}

fn default_router_queue() -> QueueConfig {
    QueueConfig::Droptail { packets: 100 }
}
fn default_uplink_rate() -> u64 {
    1_000_000_000
}
fn default_kappa() -> f64 {
    2.0
}
