//! The forwarding seam: the per-node layer between a node's interfaces, which owns what the node
//! holds besides its interface queues and decides what each interface sends.
//!
//! Systems that decide at a relay what to send and when (paper 000's queue-differential
//! forwarding, §4.1, is the first; inter-session coding at relays, per-flow priority queue pairs
//! and multipath forwarding across radios are meant to follow) see a node from the inside: every packet the
//! node must send on, every transmit opportunity of each of its radios, every data frame its radios
//! decode, the fate of what they send, their own timers and control packets. They act through
//! [`ForwardingCtx`]; the network, the MAC, the world, the packet and the results name no
//! particular system.
//!
//! - [`Forwarding`]: one object for the whole network (state indexed by node or radio inside), so
//!   that a system may keep state that spans a node's radios and read a neighbour's state where
//!   the simulator lets it instead of carrying it in packets (state a node advertises on its data
//!   frames: the receiver reads the sender's when it decodes the frame). Every hook has
//!   a default: a layer that overrides none forwards as a router does, each packet routed and
//!   pushed to its interface's drop-tail queue ([`Fifo`]).
//! - Framework services, not the layer's: the routing service (static [`RoutingTable`] or AODV's
//!   next hops, with AODV's own buffer and control packets), the flows' paths and each packet's
//!   pin to one of them ([`FlowPaths`], [`ForwardingCtx::pin`]), the per-interface queues (a radio's
//!   interface queue, a wired channel's queue, the downlink's per-user queues) with their
//!   statistics, the MACs and the drop accounting. A radio's MAC serves its interface queue first
//!   (control packets, and everything a pushing layer pushed) and asks the layer only when that
//!   is empty ([`Forwarding::has_pending`], [`Forwarding::pull`]).
//! - `Box<dyn Forwarding>`, not an enum of the built-in layers: an indirect call per hook, and the
//!   hooks that run per packet, per frame or per MAC call (packets to send on, transmit
//!   opportunities, overheard frames, MAC outcomes) are not called at all unless the layer asks
//!   for them once, at construction ([`LayerNeeds`]). The plain layer asks for none, so it costs
//!   no call at all; measured, the seam costs the plain layer nothing on the wired benchmark and
//!   under 1 % on 802.11 chains, and backpressure 2 % (docs/forwarding.md has the figures). An
//!   enum would only save calls that layers which need them make.
//!
//! Borrowing: a hook gets `&mut self` and a context over the rest of the network. Hooks run one at
//! a time and never nest; the MACs never call into the layer except through the transmit-side hooks
//! (`has_pending`, `pull`, `on_attempt`, `on_tx_status`), which get no context. Waking a radio's MAC
//! from a hook ([`ForwardingCtx::wake`]) and arming a timer ([`ForwardingCtx::set_timer`]) take
//! effect when the hook returns, in the order they were asked: the MAC asks the layer whether it
//! has something to send, which it cannot while the layer is busy with the hook. Packets pushed to
//! an interface queue and drops take effect at once. See docs/forwarding.md.

pub mod cope;
mod ctx;
mod fifo;
pub mod ncaqm;
pub mod priority_pairs;
mod scheme;
mod units;

pub use fifo::Fifo;
pub use scheme::RoutingScheme;
pub use units::{Native, UnitArena};

pub use crate::sim::header::shim::{
    ShimHeader as LayerHeader, ShimReader as LayerReader, ShimWriter as LayerWriter,
};

use super::flow_paths::FlowPaths;
use super::router::WirelessRouter;
use super::routing::{Edge, Hop};
use super::wireless::Wireless;
use super::Network;
use crate::mac::frame::{Frame, RadioId, UnitId, NO_UNIT};
use crate::metrics::results::LayerTable;
use crate::net::event::Event;
use crate::net::routing::RouteMetric;
use crate::sim::packet::{DropReason, Header};
use crate::sim::{EventClass, FlowId, NodeId, Packet, PacketArena, PacketId, Rng, Time};

/// What a radio sends at a transmit opportunity the layer serves: a packet and the neighbour it
/// goes to, or several natives coded into one frame ([`MacView::coded`]). Its MAC destination,
/// its size on the air (the packet's) and its data rate (the radio's rate table's, for the
/// destination) are fixed when it is pulled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxUnit {
    /// The packet the frame carries (the MAC sends a copy; the arena's stays until the MAC
    /// reports its fate): a packet to send on, or the carrier of a coded frame.
    pub id: PacketId,
    /// The neighbour node it is addressed to (`NodeId::MAX`: broadcast).
    pub next_hop: NodeId,
    /// The natives coded into the frame ([`NO_UNIT`] for a packet alone).
    pub unit: UnitId,
}

impl TxUnit {
    /// One packet, to `next_hop` (`NodeId::MAX`: broadcast).
    #[inline]
    pub fn packet(id: PacketId, next_hop: NodeId) -> Self {
        TxUnit {
            id,
            next_hop,
            unit: NO_UNIT,
        }
    }
}

/// The fate of a packet a radio sent, as its MAC reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxStatus {
    /// Broadcast: done once on the air.
    Broadcast,
    /// Acknowledged by the next hop.
    Delivered,
    /// Given up after the retry limit, but the next hop has it (its ACK was lost).
    HandedOver,
    /// Given up after the retry limit; the framework drops it.
    RetryLimit,
    /// Given up at the end of its lifetime under an 802.11n Block Ack agreement (whose MPDUs
    /// have no retry limit); the framework drops it.
    Expired,
}

/// How a radio came to decode a data frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard {
    /// Addressed to it.
    Addressed,
    /// A broadcast.
    Broadcast,
    /// Addressed to another radio (promiscuous overhearing).
    Overheard,
    /// Addressed to it, a retransmission of a frame it had decoded already (its ACK was lost):
    /// the framework does not receive the packet a second time.
    Duplicate,
}

/// Which decoded data frames [`Forwarding::on_frame`] sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Frames {
    /// None: the hook is never called.
    #[default]
    None,
    /// Those addressed to the radio, and broadcasts.
    Received,
    /// Those, and every frame addressed to another radio that the radio decoded. Costs an upcall
    /// per overheard frame, which in a dense mesh is most of the frames decoded: ask only if used.
    ReceivedAndOverheard,
}

/// Which of the hooks that run per packet, per frame or per MAC call the layer wants. Asked once,
/// when the layer is installed: the hooks it leaves out are never called, at no cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayerNeeds {
    /// [`Forwarding::on_packet`] is called for every packet to send on. Without it the framework
    /// forwards each one itself as the default `on_packet` does ([`ForwardingCtx::forward_routed`]),
    /// with no call into the layer: a layer that only watches frames or MAC outcomes, or does
    /// nothing at all, costs nothing per packet and hop.
    pub packets: bool,
    /// The layer holds packets and hands them to radios at transmit opportunities:
    /// [`Forwarding::has_pending`] and [`Forwarding::pull`] are asked when a radio's interface
    /// queue is empty, [`Forwarding::pull_router`] when a wireless router's is.
    pub pulls: bool,
    /// Which decoded data frames [`Forwarding::on_frame`] sees.
    pub frames: Frames,
    /// [`Forwarding::on_attempt`] and [`Forwarding::on_tx_status`] are called.
    pub mac_outcomes: bool,
    /// The packets the layer hands over at a transmit opportunity ([`Forwarding::pull`]) may go
    /// in an 802.11n A-MPDU under the Block Ack agreement: the MAC asks
    /// [`Forwarding::pull_more`] for more for the same neighbour, and the layer reads a
    /// Block Ack's outcomes ([`TxStatus::Delivered`], and [`TxStatus::Expired`] or
    /// [`TxStatus::HandedOver`] at the end of a packet's lifetime, counted from the pull).
    /// Without it each pulled packet is one frame outside the agreement, with the retry limit.
    /// Irrelevant on radios that do not aggregate.
    pub aggregates: bool,
}

/// What a layer sees of a wireless router whose transmitter is free
/// ([`Forwarding::pull_router`]): the time, the packets, and the router (its users and their
/// channels' success probabilities, which a channel-aware discipline reads).
pub struct RouterView<'a> {
    /// Current time.
    pub now: Time,
    /// The packets.
    pub packets: &'a PacketArena,
    /// The router.
    pub router: &'a mut WirelessRouter,
}

impl RouterView<'_> {
    /// User `user`'s success probability now.
    pub fn success_probability(&mut self, user: u32) -> f64 {
        self.router.success_probability(user, self.now)
    }
}

impl LayerNeeds {
    /// Every hook: packets, pulls, all frames decoded (overheard too), MAC outcomes.
    pub const ALL: LayerNeeds = LayerNeeds {
        packets: true,
        pulls: true,
        frames: Frames::ReceivedAndOverheard,
        mac_outcomes: true,
        aggregates: false,
    };
}

/// What the routing service says about a packet to send on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The next hop and the interface to it.
    Via(Hop),
    /// The routing service took the packet: AODV buffers it while it looks for a route (or
    /// dropped it, its buffer full). The layer must not touch it again.
    Taken,
    /// No route: the layer drops the packet or keeps it.
    Unreachable,
}

/// The transmit-side view a MAC's call gives [`Forwarding::pull`] and
/// [`Forwarding::on_tx_status`]: the time and the packets (a layer may look at packets when it
/// chooses, make the carrier of a coded frame, retire natives whose fate it learnt).
pub struct MacView<'a> {
    /// Current time.
    pub now: Time,
    pub(crate) packets: &'a mut PacketArena,
    pub(crate) units: &'a mut UnitArena,
    pub(crate) rng: &'a mut Rng,
    /// The radio whose MAC called, and where its drops go (handled after the call).
    pub(crate) radio: RadioId,
    pub(crate) upcalls: &'a mut Vec<super::wireless::Upcall>,
    pub(crate) events: &'a mut crate::sim::EventQueue<Event>,
}

impl MacView<'_> {
    /// A live packet.
    #[inline]
    pub fn packet(&self, id: PacketId) -> &Packet {
        self.packets.get(id)
    }

    /// Live packets.
    #[inline]
    pub fn packets(&self) -> &PacketArena {
        self.packets
    }

    /// The layer's own random stream (the same one [`ForwardingCtx::rng`] lends).
    #[inline]
    pub fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    /// A frame of several natives coded together, sent by `node` to MAC destination `next_hop`
    /// (`NodeId::MAX`: broadcast): its carrier is a new packet of the layer's with `header` (the
    /// layer's coding header, which every receiver reads) and `size` bytes (the coded payload
    /// and the headers: what goes on the air); `natives` are the packets coded in, each with the
    /// neighbour it is meant for, still held by the layer (it keeps them until it learns their
    /// fate, then retires or drops them). Receivers see the natives with the frame
    /// ([`ForwardingCtx::natives`]); the MAC destination also receives the carrier
    /// ([`Forwarding::on_layer_packet`]). The carrier's fate is reported like a packet's; given
    /// up, it is retired, not counted as a drop (no data was lost with it).
    pub fn coded(
        &mut self,
        node: NodeId,
        next_hop: NodeId,
        header: LayerHeader,
        size: u32,
        natives: &[(PacketId, NodeId)],
    ) -> TxUnit {
        let unit = self.units.open();
        for &(id, to) in natives {
            let native = Native {
                id,
                packet: *self.packets.get(id),
                next_hop: to,
            };
            self.units.push(unit, native);
        }
        let carrier = Packet::new(
            u32::MAX,
            node,
            next_hop,
            size,
            self.now,
            Header::Forwarding(header),
        );
        TxUnit {
            id: self.packets.insert(carrier),
            next_hop,
            unit,
        }
    }

    /// Frees packet `id`, which the layer holds and a copy of which carries on (a native its
    /// next hop decoded): neither delivered nor dropped ([`PacketArena::retire`]).
    pub fn retire(&mut self, id: PacketId) {
        self.packets.retire(id);
    }

    /// Arms a timer of the layer's, as [`ForwardingCtx::set_timer`] does (a coder that sends
    /// natives coded starts their acknowledgement timers when the MAC pulls the frame).
    pub fn set_timer(&mut self, at: Time, token: u64) {
        self.events
            .schedule(at, EventClass::Timer, Event::Forwarding(token));
    }

    /// Drops packet `id`, which the layer holds for the calling radio, for `reason` (a native
    /// whose frame the MAC gave up): counted in the radio's drops as
    /// [`ForwardingCtx::drop_at_radio`] counts it, once the MAC's call returns.
    pub fn drop(&mut self, id: PacketId, reason: DropReason) {
        self.upcalls.push(super::wireless::Upcall::Dropped {
            radio: self.radio,
            id,
            reason,
        });
    }
}

/// The per-node forwarding layer of the whole network. See the module header.
///
/// Hooks that get a [`ForwardingCtx`] may send, drop, wake radios and arm timers; the
/// transmit-side hooks run inside a MAC's call and may only change the layer's own state.
pub trait Forwarding: Send {
    /// The layer's name in packet captures (the encapsulation of its packets, docs/pcap.md).
    fn name(&self) -> &'static str {
        "layer"
    }

    /// Which per-frame and per-MAC-call hooks the layer wants. Asked once, when it is installed.
    fn needs(&self) -> LayerNeeds {
        LayerNeeds::default()
    }

    /// The layer is installed, before the first event: arm its first timers.
    fn on_start(&mut self, _ctx: &mut ForwardingCtx<'_>) {}

    /// `node` must send packet `id` on: it comes from the node's transport (or a shim) or from a
    /// neighbour, and is not addressed to `node`. The layer routes it and pushes it to an
    /// interface queue, keeps it, or drops it. (Only with [`LayerNeeds::packets`]; without it
    /// the framework does what the default does.) Default: the routed next hop's interface
    /// queue ([`ForwardingCtx::forward_routed`]).
    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        ctx.forward_routed(node, id);
    }

    /// Whether the layer has something for radio `radio` to send now. Asked (only with
    /// [`LayerNeeds::pulls`]) when the radio's interface queue is empty and its MAC wonders
    /// whether to contend; must agree with what [`pull`](Self::pull) would return.
    fn has_pending(&self, _radio: RadioId, _now: Time) -> bool {
        false
    }

    /// Radio `radio` has a transmit opportunity and its interface queue is empty: what does it
    /// send? (Only with [`LayerNeeds::pulls`].) The layer gives up the packet: the MAC holds it
    /// until it reports its fate.
    fn pull(&mut self, _radio: RadioId, _mac: MacView<'_>) -> Option<TxUnit> {
        None
    }

    /// An aggregating radio fills an A-MPDU for neighbour node `next` after the packet the layer
    /// handed over at this transmit opportunity (only with [`LayerNeeds::aggregates`]): one more
    /// packet for `next`, whose size `fits` accepts (the A-MPDU's byte, time and MPDU limits),
    /// or `None` to close the aggregate. Each call is the layer's own per-packet decision,
    /// restricted to that neighbour; the returned unit must be a lone packet to `next`.
    fn pull_more(
        &mut self,
        _radio: RadioId,
        _next: NodeId,
        _fits: &dyn Fn(u32) -> bool,
        _mac: MacView<'_>,
    ) -> Option<TxUnit> {
        None
    }

    /// Wireless router `router`'s transmitter is free and its interface queue empty: which packet
    /// does it send? (Only with [`LayerNeeds::pulls`].) The packet's `next_hop` must be one of the
    /// router's users; the layer gives it up.
    fn pull_router(&mut self, _router: u32, _view: RouterView<'_>) -> Option<PacketId> {
        None
    }

    /// One unicast attempt (data, or RTS with RTS/CTS) of radio `radio` to neighbour radio `next`
    /// ended, answered or not. (Only with [`LayerNeeds::mac_outcomes`].)
    fn on_attempt(&mut self, _radio: RadioId, _next: RadioId, _ok: bool) {}

    /// Radio `radio`'s MAC is done with packet `id` (from its interface queue or pulled from the
    /// layer; the carrier of a coded frame), sent to neighbour radio `next` (`None`: broadcast).
    /// After the hook the framework drops it if the status is [`TxStatus::RetryLimit`] (retires
    /// it, for a carrier): the hook must not free it. (Only with [`LayerNeeds::mac_outcomes`].)
    fn on_tx_status(
        &mut self,
        _radio: RadioId,
        _id: PacketId,
        _next: Option<RadioId>,
        _status: TxStatus,
        _mac: MacView<'_>,
    ) {
    }

    /// Radio `radio` decoded data `frame` (per [`LayerNeeds::frames`]), before the packet it
    /// carries is received (a frame addressed to the radio or a broadcast) or forgotten
    /// (overheard, duplicate). The frame holds a copy of the packet; the natives of a coded frame
    /// are [`ForwardingCtx::natives`], and the layer takes those its node decodes with
    /// [`ForwardingCtx::accept`].
    fn on_frame(
        &mut self,
        _radio: RadioId,
        _frame: &Frame,
        _heard: Heard,
        _ctx: &mut ForwardingCtx<'_>,
    ) {
    }

    /// A control packet of the layer's (`Header::Forwarding`) reached `node`, from neighbour
    /// `from` (`None`: over a wired channel). The framework consumes it after the hook.
    fn on_layer_packet(
        &mut self,
        _node: NodeId,
        _packet: &Packet,
        _from: Option<NodeId>,
        _ctx: &mut ForwardingCtx<'_>,
    ) {
    }

    /// A timer the layer armed with [`ForwardingCtx::set_timer`] expired.
    fn on_timer(&mut self, _token: u64, _ctx: &mut ForwardingCtx<'_>) {}

    /// `node` failed: move every packet the layer holds there into `out` (the framework drops
    /// them, charged to the node's first radio). Called once per node, after the first radio's
    /// interface queue was emptied and before its MAC gives up its packet.
    fn on_node_down(&mut self, _node: NodeId, _out: &mut Vec<PacketId>) {}

    /// The congestion price the layer holds at `node` for flow `flow`'s packets towards `dst`
    /// (Horizon's path price C, paper 003 eq. 13, which its source signaller reads through the
    /// shim seam, `transport::shim::ShimIo::layer_price`). Default: none.
    fn flow_price(&self, _node: NodeId, _flow: FlowId, _dst: NodeId) -> Option<f64> {
        None
    }

    /// Packets the layer holds, all nodes (the run's conservation check).
    fn count_held(&self) -> u64 {
        0
    }

    /// Visits every packet the layer holds at `node` (`Network::flow_backlog`).
    fn for_each_held(&self, _node: NodeId, _f: &mut dyn FnMut(PacketId)) {}

    /// The layer's tables for the run's results, read once at the end (`end`, the run's last
    /// instant, closes what the layer times): each under its key at the top level of the
    /// results. `node_names` is indexed by node id.
    fn report(&self, _node_names: &[String], _end: Time) -> Vec<LayerTable> {
        Vec::new()
    }

    /// The name the results give drops for `reason` (read once per row at the end, never when a
    /// drop is counted): a layer that drops for a reason of its own
    /// ([`DropReason::LayerRetryLimit`]) may name it after itself. Default: [`DropReason::name`].
    fn drop_name(&self, reason: DropReason) -> &'static str {
        reason.name()
    }
}

/// What a forwarding scheme's checks and construction may ask of the scenario around it; the
/// scenario fills it in (`scenario::config::RoutingConfig::surroundings`), so that a scheme's
/// config need not know the scenario's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surroundings {
    /// The scenario has wired links.
    pub wired_links: bool,
    /// The scenario has a base station's downlink.
    pub downlink: bool,
    /// The scenario has wireless routers.
    pub routers: bool,
    /// The radios' settings, if the scenario places wireless nodes.
    pub radio: Option<RadioBasics>,
}

impl Surroundings {
    /// The scenario has wired links, a base-station downlink or wireless routers.
    pub fn wired_or_cell(&self) -> bool {
        self.wired_links || self.downlink || self.routers
    }
}

/// The settings of a scenario's radios that forwarding schemes size themselves by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RadioBasics {
    /// Packets the interface queue holds.
    pub queue_packets: usize,
    /// The data rate, bit/s.
    pub data_rate: u64,
    /// The receive threshold, dBm.
    pub rx_threshold_dbm: f64,
}

/// What the scenario builder knows that a layer may need to build its state.
pub struct LayerSetup<'a> {
    /// Number of nodes.
    pub nodes: usize,
    /// The links that can carry packets (the routing graph): wired channels, radio neighbours
    /// that can decode each other, the downlink.
    pub edges: &'a [Edge],
    /// (source, destination) of each flow, in scenario order.
    pub flow_ends: &'a [(NodeId, NodeId)],
    /// The radios, with their neighbour lists.
    pub wireless: &'a Wireless,
    /// The weight of each edge (`edges`' order) under a route metric (ETX from the links'
    /// configured delivery ratios, ETT from those and the rate table: the weights static routing
    /// uses); computed on demand.
    pub edge_weights: &'a dyn Fn(RouteMetric) -> Vec<f64>,
    /// The paths of the flows that have some (`flows[].paths`), with their hops both ways
    /// ([`FlowPaths`]); the same as [`ForwardingCtx::flow_paths`] during the run.
    pub flow_paths: &'a FlowPaths,
}

/// Something a hook asked for that takes effect when it returns.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Effect {
    /// Let a radio's MAC contend (`on_frame_ready`).
    Wake(RadioId),
    /// Let a wireless router's transmitter start, if idle.
    WakeRouter(u32),
    /// A timer of the layer's.
    Timer(Time, u64),
    /// A node took a copy of a packet (a native it decoded), from a neighbour.
    Accept {
        node: NodeId,
        from: NodeId,
        packet: Packet,
    },
}

/// What a hook can do: the network around the layer. See the module header for when effects
/// take place.
pub struct ForwardingCtx<'a> {
    pub(super) net: &'a mut Network,
}
