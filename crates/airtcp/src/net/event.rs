//! The network's event list holds every event of the run: the network's own (channels, radios,
//! MAC timers, routing and forwarding timers, the downlink's slots) and, as [`UpperEvent`]s, those
//! of the layers above it, which the world schedules in the same list so that one order (time,
//! class, insertion) decides every tie. The network names none of the upper layers' events: the
//! world says what an [`UpperEvent`] means (`world::WorldEvent`).

use super::on_demand::OnDemandTimer;
use crate::mac::dcf::MacTimer;
use crate::sim::{ChannelId, FlowId, NodeId, PacketId};

/// An event of the network's list. Small and `Copy`: the event list stores it inline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event {
    /// The transmitter of a channel finished serialising a packet.
    TxDone(ChannelId),
    /// A packet reaches the far end of a channel.
    Arrive(ChannelId, PacketId),
    /// A frame's signal starts arriving at a radio with the given power (mW).
    SignalStart(u32, u32, f64),
    /// A frame's signal stops arriving at a radio.
    SignalEnd(u32, u32),
    /// A radio finished transmitting a frame.
    RadioTxEnd(u32, u32),
    /// A MAC timer (lazy-cancellation generation attached).
    MacTimer(u32, MacTimer, u32),
    /// A jittered routing-protocol packet is handed to its radio.
    Deferred(PacketId),
    /// A timer of the on-demand routing protocol (`net::on_demand`).
    OnDemand(OnDemandTimer),
    /// A node fails.
    NodeDown(NodeId),
    /// Moving nodes: the radios' neighbour lists are rebuilt (`net::wireless::motion`).
    Motion,
    /// A slot of the base station's downlink starts.
    Slot,
    /// A packet served by the downlink reaches its user (user index, packet).
    DownlinkArrive(u32, PacketId),
    /// A wireless router (`net::router`) finished sending a packet.
    RouterTxDone(u32),
    /// A timer of the forwarding layer's (`net::forwarding`), with the layer's own token: one
    /// event for every layer, so that adding a system adds no event.
    Forwarding(u64),
    /// An event of the layers above the network (a flow's timers and application, the world's
    /// sampling), which the network keeps in its list without reading it.
    Upper(UpperEvent),
}

/// An event of a layer above the network, opaque to it: the flow it concerns, a lazy-cancellation
/// generation, and what it is, in the numbering of the layer that scheduled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpperEvent {
    /// The flow (or any number the layer above chooses, for events of no flow).
    pub flow: FlowId,
    /// A timer's generation (lazy cancellation), 0 for other events.
    pub generation: u32,
    /// What the event is.
    pub what: u16,
}
