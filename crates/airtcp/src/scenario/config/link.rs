//! Wired point-to-point links: rate, delay, queue and loss (`links:`; `link::Channel`, docs/links.md).

use serde::{Deserialize, Serialize};

use super::{Nanos, QueueConfig};

/// A full-duplex point-to-point link with an independent queue and error process per direction.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// One end (node name). "forward" is from -> to.
    #[schemars(transform = crate::quantity::node_name)]
    pub from: String,
    /// The other end (node name).
    #[schemars(transform = crate::quantity::node_name)]
    pub to: String,
    /// Line rate, bits per second (> 0).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub rate: u64,
    /// One-way propagation delay, ns.
    #[schemars(transform = crate::quantity::duration)]
    pub delay: Nanos,
    /// A random part added to `delay`: uniform in [0, `delay_spread`), drawn once per run from the
    /// seed (stream `link/{i}/delay`), the same both ways; 0: none.
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration)]
    #[schemars(extend("x-omit-default" = true))]
    pub delay_spread: Nanos,
    /// Queue discipline of each direction's transmit queue.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Optional random packet errors.
    #[serde(default)]
    pub loss: Option<LossConfig>,
}

/// Random packet error process of a link.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossConfig {
    /// Each packet is corrupted independently with probability `per`, decided at the receiver
    /// after it has used the link (like ns-3's ReceiveErrorModel).
    Bernoulli {
        /// Packet error rate in [0, 1].
        #[schemars(transform = crate::quantity::probability)]
        per: f64,
        /// Which direction(s) suffer the errors.
        #[serde(default)]
        direction: Direction,
    },
    /// Deterministic losses for protocol experiments: the first transmission(s) of the TCP data
    /// segments numbered in `seqs` are lost (a number listed twice loses the first two
    /// transmissions of that segment). Other packets pass. Like ns-3's ReceiveListErrorModel,
    /// but keyed by segment number.
    Segments {
        /// Segment numbers (0-based), repeated to lose retransmissions too.
        seqs: Vec<u64>,
        /// Which direction(s) suffer the losses.
        #[serde(default)]
        direction: Direction,
    },
}

/// Direction(s) of a link an error process applies to.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// from -> to only.
    #[default]
    Forward,
    /// to -> from only.
    Reverse,
    /// Both directions, independently.
    Both,
}
