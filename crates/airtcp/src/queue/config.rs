//! A transmit queue's configuration: the `queue: {kind: ...}` block of a wired link, the radio
//! and a wireless router. The one place a discipline is registered: its variant here and its arm
//! in [`QueueConfig::check`], [`QueueConfig::capacity`] and [`QueueConfig::build`]; the builders
//! of links, radios and routers only call these.

use serde::{Deserialize, Serialize};

use super::droptail::DropTail;
use super::QueueDisc;
use crate::error::{positive, ConfigError};
use crate::sim::Time;

/// Transmit queue discipline.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// First-in first-out, arrivals dropped when `packets` are already queued.
    Droptail {
        /// Capacity in packets (>= 1). The packet being transmitted does not count.
        #[schemars(range(min = 1))]
        packets: u32,
    },
}

impl Default for QueueConfig {
    fn default() -> Self {
        // ns-2's DropTail default limit (queue-limit 50) and ns-3's 100p differ; 100 packets is
        // what the papers' scenarios use.
        QueueConfig::Droptail { packets: 100 }
    }
}

impl QueueConfig {
    /// Checks the values serde cannot; `p` is the block's path (`links[0].queue`).
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        match self {
            QueueConfig::Droptail { packets } => positive(format!("{p}.packets"), *packets as u64),
        }
    }

    /// The packets the queue holds at most (the one being sent aside), which the forwarding
    /// layers that keep queues of their own at a radio size them by.
    pub fn capacity(&self) -> usize {
        match self {
            QueueConfig::Droptail { packets } => *packets as usize,
        }
    }

    /// The discipline, each packet held at most `lifetime` (`None`: for ever; the radio's MSDU
    /// lifetime).
    pub fn build(&self, lifetime: Option<Time>) -> Box<dyn QueueDisc> {
        match self {
            QueueConfig::Droptail { packets } => {
                Box::new(DropTail::with_lifetime(*packets as usize, lifetime))
            }
        }
    }
}
