//! Wired point-to-point links. A link is two independent [`Channel`]s (one per direction), each
//! with its own transmit queue, serialiser and error process.

pub mod loss;

use crate::queue::QueueDisc;
use crate::sim::{DropReason, NodeId, Time};
use loss::LossProcess;

/// One direction of a link: queue -> transmitter -> propagation -> error process -> far node.
pub struct Channel {
    /// Display name "FROM->TO".
    pub name: String,
    /// Transmitting node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Line rate, bit/s.
    pub rate_bps: u64,
    /// Propagation delay, ns.
    pub delay: Time,
    /// Transmit queue.
    pub queue: Box<dyn QueueDisc>,
    /// Whether the transmitter is serialising a packet.
    pub busy: bool,
    /// Random or deterministic packet errors at the receiving end.
    pub loss: LossProcess,
    /// Counters.
    pub stats: ChannelStats,
}

/// Counters of a channel.
#[derive(Debug, Clone, Default)]
pub struct ChannelStats {
    /// Packets accepted (queued, or sent straight to an idle transmitter).
    pub enqueued: u64,
    /// Packets whose transmission started.
    pub transmitted: u64,
    /// Drops by reason, indexed like [`DropReason::ALL`].
    pub drops: [u64; DropReason::ALL.len()],
    /// Largest queue length seen.
    pub max_backlog: u32,
}

impl ChannelStats {
    /// Counts one drop.
    pub fn count_drop(&mut self, reason: DropReason) {
        self.drops[reason as usize] += 1;
    }
}
