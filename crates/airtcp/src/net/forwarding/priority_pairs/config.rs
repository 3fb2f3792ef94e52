//! A router's `priority_pairs:` block (paper 004's router, docs/tcp_rlc.md): each flow's pair of
//! queues, the low queue's order and sharing policy, and their mapping onto the layer's setup.

use serde::{Deserialize, Serialize};

use super::pairs::{LowOrder, LowPolicy};
use super::RouterPairsSetup;
use crate::error::ConfigError;
use crate::sim::NodeId;

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

fn default_kappa() -> f64 {
    2.0
}

impl PairBuffers {
    /// The (high, low) capacities, checked (`path` names the block).
    pub fn capacity(&self, path: &str) -> Result<(usize, usize), ConfigError> {
        if self.high == 0 {
            return Err(ConfigError::new(
                format!("{path}.high"),
                "must be greater than zero",
            ));
        }
        Ok((self.high as usize, self.low as usize))
    }
}

impl PriorityPairsConfig {
    /// The layer's setup for router `r` at node `node`, its users at `user_nodes` with the
    /// capacities `capacity`.
    pub fn setup(
        &self,
        r: usize,
        node: NodeId,
        capacity: Vec<(usize, usize)>,
        user_nodes: Vec<NodeId>,
    ) -> Result<RouterPairsSetup, ConfigError> {
        let policy = match self.low_policy {
            LowPolicyConfig::Blind => LowPolicy::Blind,
            LowPolicyConfig::ChannelAware { kappa } => {
                if !(kappa.is_finite() && kappa >= 0.0) {
                    return Err(ConfigError::new(
                        format!("routers[{r}].priority_pairs.low_policy.kappa"),
                        "must be a number >= 0",
                    ));
                }
                LowPolicy::ChannelAware { kappa }
            }
        };
        Ok(RouterPairsSetup {
            router: r as u32,
            node,
            capacity,
            user_nodes,
            order: match self.low_order {
                LowOrderConfig::Lifo => LowOrder::Lifo,
                LowOrderConfig::Fifo => LowOrder::Fifo,
            },
            policy,
        })
    }
}
