//! The shim seam: a layer between a flow's transport endpoints and the network, at the flow's
//! source node and at its destination node.
//!
//! Systems that sit between TCP and the network (paper 000's NC layer, §4.1.3 and §4.2.1, is the
//! first; inter-session coding, coder/decoder pairs, reorder buffers and congestion signallers are
//! meant to follow) see only what a layer at those two points would see: TCP's segments and ACKs
//! on their way down, packets of their own arriving at either end, their own timers, drops of
//! their own packets at the node that sent them, and the TCP sender's window and timing. They act
//! through [`ShimIo`], which the world implements; they never see the world itself, so that the
//! world, the network, the packet and the results name no particular system.
//!
//! - [`Shim`]: one object per flow covering both ends. Both ends in one object because a shim
//!   may keep state that the simulator lets the far end read instead of carrying it in packets
//!   (the NC layer's receiver reads coefficient vectors from the source's block table: packets
//!   stay small and `Copy`). Every hook has a default that lets TCP's traffic pass as if there
//!   were no shim.
//! - [`ShimIo`]: what a shim can do: send a packet of its own, arm its timers, hand a segment up
//!   to TCP's receiver, replay an ACK into TCP's sender, read the sender's timing.
//! - [`header`]: the header a shim's packets carry, bytes the framework does not interpret.
//!
//! The world builds a flow's shim from the flow's configuration
//! (`scenario::config::TcpConfig::shim`), asks it once for its static properties
//! ([`Shim::timers`], [`Shim::replaces_receiver_acks`]) and reports its counters under the key it
//! chooses ([`Shim::report`]). See docs/shim.md; docs/nc_layer.md ("Wiring") maps the NC layer
//! onto the hooks.

pub use crate::sim::header::shim::{ShimHeader, ShimReader, ShimWriter, SHIM_HEADER_BYTES};

use crate::metrics::results::ShimReport;
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::Time;

/// One end of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The flow's source node (TCP's sender).
    Source,
    /// The flow's destination node (TCP's receiver).
    Destination,
}

impl End {
    /// The far end.
    pub fn other(self) -> End {
        match self {
            End::Source => End::Destination,
            End::Destination => End::Source,
        }
    }
}

/// What becomes of a segment or ACK of TCP's that the shim was shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It goes on into the network as it would without the shim.
    Pass,
    /// The shim took it: nothing enters the network on its behalf (the shim may have sent
    /// packets of its own instead).
    Consumed,
}

/// One of a shim's timers: `0..`[`Shim::timers`].
pub type ShimTimer = u8;

/// A packet of a shim as it arrives or is dropped: its header and the two fields a shim may want
/// besides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShimPacket {
    /// The shim's header.
    pub header: ShimHeader,
    /// Bytes on the wire.
    pub size: u32,
    /// Which of the flow's paths it followed (`Packet::path`; `net::flow_paths::NO_PATH`: none).
    pub path: u8,
    /// When it was sent.
    pub created: Time,
}

/// One of TCP's own packets (a data segment at the destination, an ACK at the source) as it
/// arrives from the network, besides its TCP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// Bytes on the wire.
    pub size: u32,
    /// Which of the flow's paths it followed (`Packet::path`; `net::flow_paths::NO_PATH`: none):
    /// a destination that tells losses from reordering per path reads it.
    pub path: u8,
    /// When its end sent it (a one-way delay is `now - created`: the simulator's clocks agree).
    pub created: Time,
    /// The number the forwarding layer stamped on it at its first hop (`Packet::layer_seq`,
    /// Horizon's per-flow PktID); 0 under a layer that stamps none.
    pub layer_seq: u16,
}

/// The TCP sender's round-trip estimates (RFC 6298).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SenderTiming {
    /// Smoothed RTT, none before the first sample.
    pub srtt: Option<Time>,
    /// Current retransmission timeout.
    pub rto: Time,
}

/// What a shim can do to the world around it. The world implements it on the network; tests
/// record.
///
/// Packets and timers take effect at once. Segments handed up and ACKs replayed are applied when
/// the hook returns (segments first, in order, then ACKs, in order): TCP's sender answers an ACK
/// by sending segments, which come back down through the same shim, and the shim is still busy
/// with the hook that replayed the ACK. Applying them afterwards keeps a shim free of re-entrant
/// calls, and it is the order in which a layer below TCP acts anyway (its packet is handled, then
/// TCP runs).
pub trait ShimIo {
    /// Current simulated time.
    fn now(&self) -> Time;
    /// Sends a packet of the shim's, `size` bytes on the wire, from end `from` towards the
    /// other end of the flow. It travels as the flow's data does in that direction (routing and
    /// queues see a packet of the flow from `from`'s node to the other's).
    fn send(&mut self, from: End, size: u32, header: ShimHeader);
    /// Arms (`Some`) or cancels (`None`) timer `timer`; [`Shim::on_timer`] runs when it expires.
    /// Moving a deadline is cheap (the timer is cancelled lazily, `sim::LazyTimer`).
    fn set_timer(&mut self, timer: ShimTimer, deadline: Option<Time>);
    /// Hands a data segment up to TCP's receiver at the destination, as if it had arrived.
    fn deliver(&mut self, segment: DataHeader);
    /// Hands an ACK to TCP's sender at the source, as if it had arrived.
    fn replay_ack(&mut self, ack: AckHeader);
    /// The TCP sender's timing; `None` while TCP itself is calling down
    /// ([`Shim::on_sender_segment`], [`Shim::on_window_hint`], [`Shim::on_receiver_ack`]), when
    /// the sender is in the middle of changing it. It is the source's state: a shim reads it at
    /// the source end.
    fn sender_timing(&self) -> Option<SenderTiming>;
    /// The congestion price the forwarding layer holds at end `end`'s node for the flow's
    /// packets from there to the other end (`net::forwarding::Forwarding::flow_price`:
    /// Horizon's C_s, paper 003 §4.1); `None` under a layer that prices nothing.
    fn layer_price(&self, _end: End) -> Option<f64> {
        None
    }
}

/// A layer between one flow's transport endpoints and the network. See the module header.
///
/// Hooks run at one end of the flow (named where it is not implied) and act through `io`.
pub trait Shim: Send {
    /// The shim's name in packet captures (the encapsulation of its packets, docs/pcap.md).
    fn name(&self) -> &'static str {
        "shim"
    }

    /// How many timers the shim uses (ids `0..n`, at most 256). Asked once, when the flow is
    /// built.
    fn timers(&self) -> usize {
        0
    }

    /// Whether the shim's own feedback replaces TCP's ACKs altogether. Asked once, when the flow
    /// is built. If so, TCP's receiver sends no ACK and arms no delayed-ACK timer (a timer whose
    /// expiry could only produce an ACK to be thrown away would be pure cost), and
    /// [`on_receiver_ack`](Self::on_receiver_ack) is not called.
    fn replaces_receiver_acks(&self) -> bool {
        false
    }

    /// Whether the shim sees TCP's own packets arriving from the network
    /// ([`on_arriving_segment`](Self::on_arriving_segment),
    /// [`on_arriving_ack`](Self::on_arriving_ack)). Asked once, when the flow is built: a shim that
    /// does not costs nothing per arrival.
    fn sees_arrivals(&self) -> bool {
        false
    }

    /// At the destination: a data segment of TCP's arrived from the network, before TCP's
    /// receiver sees it. [`Verdict::Consumed`]: the shim keeps it (a reorder buffer hands it up
    /// later with [`ShimIo::deliver`]) or discards it. (Only if [`sees_arrivals`](Self::sees_arrivals).)
    fn on_arriving_segment(
        &mut self,
        _segment: &DataHeader,
        _arrival: Arrival,
        _io: &mut dyn ShimIo,
    ) -> Verdict {
        Verdict::Pass
    }

    /// At the source: an ACK of TCP's arrived from the network, before TCP's sender sees it.
    /// [`Verdict::Consumed`]: the shim keeps or discards it (it may replay it, or another, with
    /// [`ShimIo::replay_ack`]). (Only if [`sees_arrivals`](Self::sees_arrivals).)
    fn on_arriving_ack(
        &mut self,
        _ack: &AckHeader,
        _arrival: Arrival,
        _io: &mut dyn ShimIo,
    ) -> Verdict {
        Verdict::Pass
    }

    /// At the source: TCP's sender sends a data segment.
    fn on_sender_segment(&mut self, _segment: DataHeader, _io: &mut dyn ShimIo) -> Verdict {
        Verdict::Pass
    }

    /// At the source: the sender's window, `min(cwnd, rwnd)` in whole segments, told just before
    /// each segment ([`crate::transport::tcp::TcpIo::window_hint`]).
    fn on_window_hint(&mut self, _segments: u64) {}

    /// At the destination: TCP's receiver sends an ACK.
    fn on_receiver_ack(&mut self, _ack: &AckHeader, _io: &mut dyn ShimIo) -> Verdict {
        Verdict::Pass
    }

    /// A packet the shim sent from the other end arrived at end `at`. (A shim that sends no
    /// packets receives none.)
    fn on_packet(&mut self, _at: End, _packet: &ShimPacket, _io: &mut dyn ShimIo) {}

    /// Timer `timer` expired.
    fn on_timer(&mut self, _timer: ShimTimer, _io: &mut dyn ShimIo) {}

    /// A packet the shim sent from end `from` was dropped on buffer overflow at that end's own
    /// node (`DropReason::QueueFull` at the node that originated it: a congestion drop the shim
    /// may want the transport to see, paper 000 §4.2.1). Drops anywhere else are not reported.
    fn on_dropped_at_origin(&mut self, _from: End, _packet: &ShimPacket, _io: &mut dyn ShimIo) {}

    /// The shim's counters for the flow's results, read once at the end of the run: the flow's
    /// JSON gets them under the report's key (after the flow's own fields). `None`: nothing.
    fn report(&self) -> Option<ShimReport> {
        None
    }
}
