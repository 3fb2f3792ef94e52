//! The wireless side of the network: radios (PHY + DCF + interface queue), the shared medium
//! that carries their frames to the neighbours in range, and the glue between the MAC and the
//! network layer.
//!
//! A transmission touches only the radio's precomputed neighbours: the radios whose mean received
//! power is above the interference floor (built with a spatial grid, so building is near-linear
//! in the number of nodes). Each neighbour gets a signal-start and a signal-end event after the
//! propagation delay (distance / c).
//!
//! MAC calls never re-enter the network layer: what a MAC hands up (received data, the fate of
//! packets) is queued and processed once the call has returned, at the same simulated instant.
//!
//! A node may have several radios, each on its own channel (a multi-homed bridge). Channels are
//! orthogonal: radios on different channels never sense, interfere with or receive each other,
//! which is all the neighbour lists need to know (they only ever hold radios of the same
//! channel). Not modelled: leakage between adjacent channels (2.4 GHz channels 5 MHz apart
//! overlap) and the interference of co-located radios on one node, which real multi-radio
//! nodes suffer unless their channels are far apart. Radio ids are node-major (a node's radios
//! are consecutive, in the order of its channel list); a node's first radio is
//! `radio_of_node[node]` and the others follow through `next_on_node`, so finding the radio that
//! reaches a neighbour needs no allocation and, for single-radio nodes, no search.

use crate::link::ChannelStats;
use crate::mac::dcf::{Dcf, MacTimer, Sent};
use crate::mac::frame::{Frame, FrameKind, Mpdu, RadioId, UnitId, NO_SEQ};
use crate::mac::rate::RateControl;
use crate::net::event::Event;
use crate::net::forwarding::{Forwarding, LayerNeeds, TxStatus, UnitArena};
use crate::net::frame_trace::{FrameTrace, RxDrop};
use crate::net::pcap_tap::RadioCapture;
use crate::net::routing::{Edge, Iface};
use crate::phy::fading::{Fading, RayleighSuccess};
use crate::phy::link_error::LinkError;
use crate::phy::success_memo::SuccessMemo;
use crate::phy::{Arrival, FrameId, Phy};
use crate::queue::QueueDisc;
use crate::sim::packet::DropReason;
use crate::sim::{EventClass, EventQueue, LazyTimer, NodeId, PacketArena, PacketId, Rng, Time};

pub mod grid;
mod mac_env;
pub mod motion;

use mac_env::MacEnv;
use motion::Motion;

/// Marker for "no radio" / broadcast next hop.
pub const NO_RADIO: u32 = u32::MAX;

/// Bytes of the frame [`Wireless::delivery`] (ETX, COPE's guesses) judges a link by: a
/// 1000-byte segment, 40 bytes of TCP/IP header and 36 of MAC overhead.
pub const ETX_FRAME_BYTES: u32 = 1076;

/// A radio within reach of another.
#[derive(Debug, Clone, Copy)]
pub struct Neighbor {
    /// The neighbour.
    pub radio: RadioId,
    /// Mean received power there, mW (with moving nodes: at the radio's latest transmission,
    /// or at the latest refresh of the lists; possibly below the floor, [`motion`]).
    pub mean_mw: f64,
    /// Propagation delay, ns (32 bits: 4 s of light travel, far beyond any reach).
    pub delay: u32,
    /// Data rate of unicast frames to the neighbour, bit/s: the radio's rate table (the MAC's
    /// own data rate unless rate control or the scenario set it per link; 0 stands for the
    /// MAC's rate). 32 bits hold any single 802.11 rate modelled (up to 4.29 Gbit/s).
    pub rate_bps: u32,
    /// Where the radio keeps what it has seen of this neighbour: its entry in
    /// `RadioState::neighbor_stats` and `RadioState::peers`, and its rate control's. A static
    /// network's slots are the list's indices; with moving nodes, a neighbour keeps its slot
    /// when it leaves the list and comes back.
    pub slot: u32,
}

/// What a radio has seen of one neighbour (indexed like its neighbour list).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NeighborStats {
    /// Unicast attempts (data, or RTS with RTS/CTS) to the neighbour.
    pub attempts: u64,
    /// Attempts the neighbour answered (ACK, or CTS with RTS/CTS).
    pub answered: u64,
    /// Data frames of the neighbour, addressed to others, that this radio decoded.
    pub overheard: u64,
    /// Under 802.11n aggregation: A-MPDUs sent to the neighbour (PPDUs of two MPDUs or more).
    pub ampdus: u64,
    /// MPDUs they carried.
    pub ampdu_mpdus: u64,
    /// MPDU transmissions to the neighbour under its Block Ack agreement (in A-MPDUs or alone).
    pub mpdus: u64,
    /// Those that were retransmissions.
    pub mpdus_retried: u64,
    /// A-MSDUs built for the neighbour (each once, however often sent).
    pub amsdus: u64,
    /// Packets they carried.
    pub amsdu_msdus: u64,
}

impl NeighborStats {
    /// Fraction of attempts answered (the link's delivery ratio seen by the MAC).
    pub fn delivery_ratio(&self) -> Option<f64> {
        (self.attempts > 0).then(|| self.answered as f64 / self.attempts as f64)
    }
}

/// Everything about a radio except its DCF.
pub struct RadioState {
    /// Node the radio belongs to.
    pub node: NodeId,
    /// Channel it is tuned to (only radios of the same channel are neighbours).
    pub channel: u32,
    /// Display name of its interface queue.
    pub name: String,
    /// Receiver state.
    pub phy: Phy,
    /// Stream for backoff, fading and error draws.
    pub rng: Rng,
    /// Radios in reach, sorted by radio id.
    pub neighbors: Vec<Neighbor>,
    /// Link statistics per neighbour, indexed by slot (`Neighbor::slot`).
    pub neighbor_stats: Vec<NeighborStats>,
    /// The neighbour radio of each slot.
    pub peers: Vec<RadioId>,
    /// Interface queue.
    pub ifq: Box<dyn QueueDisc>,
    /// Interface-queue counters (drops by reason, transmissions).
    pub stats: ChannelStats,
    /// Extra error processes on frames arriving from given radios.
    pub link_errors: Vec<(RadioId, LinkError)>,
    /// Carrier-sense state last reported to the MAC.
    pub was_busy: bool,
    /// When carrier sense last turned idle.
    pub idle_since: Time,
    /// The MAC's timers, indexed by [`MacTimer`].
    pub timers: [LazyTimer; 3],
    /// The node has failed: the radio neither sends nor receives.
    pub failed: bool,
    /// Adaptive rate control (`radio.rate_control` with a manager; `None`: the rate table).
    pub rate_control: Option<Box<RateControl>>,
    /// SINR (linear) of the frame whose reception the MAC is being told of: what an ACK or CTS
    /// reports back.
    pub rx_snr: f64,
    /// The frame whose reception the MAC is being told of, and for an A-MPDU the MPDUs decoded
    /// (bit i: MPDU i).
    pub rx_frame: FrameId,
    /// See `rx_frame`.
    pub rx_mpdus: u64,
    /// Its packet capture, with a `trace:` block that covers it ([`super::pcap_tap`]).
    pub pcap: Option<Box<RadioCapture>>,
}

struct FrameSlot {
    frame: Frame,
    /// Radios still to see the frame end (its neighbours, then the sender itself).
    refs: u32,
    /// The sender failed while the frame was on the air: nobody decodes it.
    cut_off: bool,
    /// An A-MPDU's MPDUs, or a lone A-MSDU's one (empty for other frames).
    mpdus: Vec<Mpdu>,
    /// The MSDUs of its A-MSDUs beyond each MPDU's own packet, in MPDU order.
    msdus: Vec<crate::mac::frame::Msdu>,
}

/// What a MAC handed up during a call.
#[derive(Debug, Clone, Copy)]
pub enum Upcall {
    /// A data frame arrived at `radio`.
    Received(RadioId, Frame),
    /// A retransmission of a data frame `radio` had decoded arrived at it again (raised only for
    /// a forwarding layer that asked for frames).
    Duplicate(RadioId, Frame),
    /// `radio` overheard a data frame addressed to another radio (raised only for a forwarding
    /// layer that asked for overheard frames).
    Overheard(RadioId, Frame),
    /// The forwarding layer dropped a packet it held for `radio` during a MAC's call
    /// ([`super::forwarding::MacView::drop`]).
    Dropped {
        /// The radio.
        radio: RadioId,
        /// The packet.
        id: PacketId,
        /// Why.
        reason: DropReason,
    },
    /// The fate of a packet `radio` tried to send.
    Status {
        /// The sending radio.
        radio: RadioId,
        /// The packet, its neighbour (`None`: broadcast) and its unit of coded natives.
        sent: Sent,
        /// What became of it.
        status: TxStatus,
    },
}

/// All radios and the medium.
pub struct Wireless {
    /// DCF of each radio.
    pub macs: Vec<Dcf>,
    /// The rest of each radio.
    pub radios: Vec<RadioState>,
    /// First radio of each node (`NO_RADIO` for wired-only nodes).
    pub radio_of_node: Vec<u32>,
    /// The node's next radio after each radio (`NO_RADIO` after its last).
    pub next_on_node: Vec<u32>,
    /// Channel of each radio (a copy of `RadioState::channel` the MACs can read while one radio
    /// is borrowed).
    pub channel_of: Vec<u32>,
    /// Fading process.
    pub fading: Fading,
    /// Master seed (block fading gains).
    pub seed: u64,
    /// Loss probability of every frame at every receiver whose link has no error process of
    /// its own (`radio.frame_error`).
    pub frame_error: f64,
    /// Per-exchange `frame_error` (`radio.frame_error_mode`): frames that continue an exchange
    /// draw nothing at their addressee.
    pub frame_error_per_exchange: bool,
    /// The error curves of the standard.
    pub error_model: crate::phy::ErrorModel,
    /// The error curves' last answers, for the reception path (exact: a pure function's memo).
    success_memo: SuccessMemo,
    /// Buffers of A-MPDU receptions.
    ampdu_scratch: AmpduScratch,
    frames: Vec<FrameSlot>,
    free_frames: Vec<u32>,
    /// Upcalls queued by MAC calls.
    pub upcalls: Vec<Upcall>,
    /// The natives of coded frames in flight.
    pub units: UnitArena,
    /// The forwarding layer's own random stream (`forwarding`, from the run's seed), lent to
    /// its hooks: its draws move no other stream.
    pub(crate) layer_rng: Rng,
    /// What the forwarding layer asked to be told (`Forwarding::needs`), set when it is
    /// installed.
    pub layer_needs: LayerNeeds,
    /// The per-frame trace, when the environment asks for one ([`super::frame_trace`]).
    pub trace: Option<FrameTrace>,
    /// Time a radio takes to detect a frame's preamble and report the medium busy.
    pub cca_time: Time,
    /// Moving nodes' positions and the neighbour lists' upkeep (`None`: every node stands
    /// still, and the lists built with the network are final).
    pub motion: Option<Box<Motion>>,
}

/// The radio on `channel` among `first` and the radios linked after it.
fn peer_on_channel(
    first: u32,
    channel: u32,
    next_on_node: &[u32],
    channel_of: &[u32],
) -> Option<u32> {
    let mut r = first;
    while r != NO_RADIO {
        if channel_of[r as usize] == channel {
            return Some(r);
        }
        r = next_on_node[r as usize];
    }
    None
}

/// The radios of one node, in id order (see [`Wireless::radios_of`]).
#[derive(Debug, Clone)]
pub struct NodeRadios<'a> {
    next: u32,
    next_on_node: &'a [u32],
}

impl Iterator for NodeRadios<'_> {
    type Item = RadioId;

    fn next(&mut self) -> Option<RadioId> {
        let r = self.next;
        if r == NO_RADIO {
            return None;
        }
        self.next = self.next_on_node[r as usize];
        Some(r)
    }
}

impl Wireless {
    /// Radios and medium, built by the scenario builder. `radios` must be node-major: a node's
    /// radios have consecutive ids.
    pub fn new(
        macs: Vec<Dcf>,
        radios: Vec<RadioState>,
        radio_of_node: Vec<u32>,
        fading: Fading,
        seed: u64,
    ) -> Self {
        let next_on_node = (0..radios.len())
            .map(|r| match radios.get(r + 1) {
                Some(n) if n.node == radios[r].node => (r + 1) as u32,
                _ => NO_RADIO,
            })
            .collect();
        let channel_of = radios.iter().map(|r| r.channel).collect();
        Wireless {
            macs,
            radios,
            radio_of_node,
            next_on_node,
            channel_of,
            fading,
            seed,
            frame_error: 0.0,
            frame_error_per_exchange: false,
            error_model: Default::default(),
            success_memo: SuccessMemo::default(),
            ampdu_scratch: AmpduScratch::default(),
            frames: Vec::new(),
            free_frames: Vec::new(),
            upcalls: Vec::new(),
            units: UnitArena::default(),
            layer_rng: Rng::stream(seed, "forwarding"),
            layer_needs: LayerNeeds::default(),
            trace: None,
            cca_time: 4_000,
            motion: None,
        }
    }

    /// No radios at all.
    pub fn empty(nodes: usize) -> Self {
        Wireless::new(
            Vec::new(),
            Vec::new(),
            vec![NO_RADIO; nodes],
            Fading::None,
            0,
        )
    }

    /// The radios of `node` (none for a wired-only node), first radio first.
    pub fn radios_of(&self, node: NodeId) -> NodeRadios<'_> {
        NodeRadios {
            next: self.radio_of_node[node as usize],
            next_on_node: &self.next_on_node,
        }
    }

    /// Whether `node` has more than one radio.
    pub fn is_multi_radio(&self, node: NodeId) -> bool {
        let r = self.radio_of_node[node as usize];
        r != NO_RADIO && self.next_on_node[r as usize] != NO_RADIO
    }

    /// The radio of `node` tuned to `channel`, if it has one.
    pub fn peer_radio(&self, node: NodeId, channel: u32) -> Option<RadioId> {
        peer_on_channel(
            self.radio_of_node[node as usize],
            channel,
            &self.next_on_node,
            &self.channel_of,
        )
    }

    /// The radio `node` reaches neighbour `next` by: one of its radios that has `next`'s radio on
    /// the same channel in its neighbour list; failing that (a stale route to a node out of
    /// range), one that shares a channel with `next`, so the MAC's retries report the broken
    /// link. `None` if they share no channel. A single-radio pair needs no search.
    pub fn radio_towards(&self, node: NodeId, next: NodeId) -> Option<RadioId> {
        let (first, peer_first) = (
            self.radio_of_node[node as usize],
            self.radio_of_node[next as usize],
        );
        if first == NO_RADIO || peer_first == NO_RADIO {
            return None;
        }
        if self.next_on_node[first as usize] == NO_RADIO
            && self.next_on_node[peer_first as usize] == NO_RADIO
        {
            return Some(first);
        }
        let mut fallback = None;
        for r in self.radios_of(node) {
            let Some(peer) = self.peer_radio(next, self.channel_of[r as usize]) else {
                continue;
            };
            let nbs = &self.radios[r as usize].neighbors;
            if nbs.binary_search_by_key(&peer, |n| n.radio).is_ok() {
                return Some(r);
            }
            fallback = fallback.or(Some(r));
        }
        fallback
    }

    /// Whether two radio hops of the routing graph contend for the air: one channel, and some
    /// radio at an end of `a` is a radio at an end of `b` or within the range where one processes
    /// the other's signals (its neighbour list, which holds every radio it senses or is
    /// interfered with by: a protocol model from the mean powers). Hops over wired channels or
    /// other media never do. (Multipath routing keeps a flow's paths apart with it.)
    pub fn hops_contend(&self, a: &Edge, b: &Edge) -> bool {
        let (Iface::Radio(ra), Iface::Radio(rb)) = (a.iface, b.iface) else {
            return false;
        };
        let channel = self.channel_of[ra as usize];
        if channel != self.channel_of[rb as usize] {
            return false;
        }
        let ends =
            |sender: RadioId, receiver: NodeId| [Some(sender), self.peer_radio(receiver, channel)];
        let hears = |x: RadioId, y: RadioId| {
            self.radios[x as usize]
                .neighbors
                .binary_search_by_key(&y, |n| n.radio)
                .is_ok()
        };
        ends(ra, a.to).into_iter().flatten().any(|x| {
            ends(rb, b.to)
                .into_iter()
                .flatten()
                .any(|y| x == y || hears(x, y) || hears(y, x))
        })
    }

    /// Runs `f` on radio `r`'s DCF with its context.
    fn with_mac<R>(
        &mut self,
        r: RadioId,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
        f: impl FnOnce(&mut Dcf, &mut MacEnv<'_>) -> R,
    ) -> R {
        let Wireless {
            macs,
            radios,
            radio_of_node,
            next_on_node,
            channel_of,
            fading,
            seed,
            frame_error: _,
            frame_error_per_exchange: _,
            error_model: _,
            success_memo: _,
            ampdu_scratch: _,
            frames,
            free_frames,
            upcalls,
            units,
            layer_rng,
            layer_needs,
            trace,
            cca_time,
            motion,
        } = self;
        let mut env = MacEnv {
            me: r,
            radio: &mut radios[r as usize],
            events,
            packets,
            units,
            layer_rng,
            frames,
            free_frames,
            radio_of_node,
            next_on_node,
            channel_of,
            upcalls,
            fading,
            seed: *seed,
            layer,
            needs: *layer_needs,
            trace,
            cca_time: *cca_time,
            motion: motion.as_deref(),
        };
        f(&mut macs[r as usize], &mut env)
    }

    /// Tells the MAC about a change of carrier sense, if there was one.
    pub fn refresh_cca(
        &mut self,
        r: RadioId,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
    ) {
        let now = events.now();
        let radio = &mut self.radios[r as usize];
        if radio.failed {
            return;
        }
        let busy = radio.phy.busy(now);
        if busy == radio.was_busy {
            return;
        }
        radio.was_busy = busy;
        if busy {
            self.with_mac(r, events, packets, layer, |m, io| m.on_phy_busy(io));
        } else {
            radio.idle_since = now;
            self.with_mac(r, events, packets, layer, |m, io| m.on_phy_idle(io));
        }
    }

    /// A signal starts arriving at radio `r`.
    pub fn on_signal_start(
        &mut self,
        r: RadioId,
        fid: FrameId,
        power_mw: f64,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
    ) {
        let now = events.now();
        if self.radios[r as usize].failed {
            return;
        }
        let arrival = self.radios[r as usize].phy.signal_start(now, fid, power_mw);
        if let Some(t) = self.trace.as_mut() {
            match arrival {
                Arrival::WhileTransmitting => t.rx_drop(now, r, RxDrop::Txing),
                Arrival::WhileReceiving => t.rx_drop(now, r, RxDrop::Rxing),
                Arrival::Locked | Arrival::Weak => {}
            }
        }
        self.refresh_cca(r, events, packets, layer);
    }

    /// A signal stops arriving at radio `r`: a frame the radio was locked on is decided here.
    pub fn on_signal_end(
        &mut self,
        r: RadioId,
        fid: FrameId,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
    ) {
        let now = events.now();
        let FrameSlot { frame, cut_off, .. } = self.frames[fid as usize];
        let mut mpdus_ok = 0u64;
        // Per exchange, a frame that continues an exchange (CTS, data after it, ACK) inherits
        // the draw of the frame that opened it: had that one been lost, it would not exist.
        let frame_error =
            if self.frame_error_per_exchange && frame.continues && frame.dst == Some(r) {
                0.0
            } else {
                self.frame_error
            };
        let error_model = self.error_model;
        let radio = &mut self.radios[r as usize];
        if radio.failed {
            self.release(fid);
            return;
        }
        if let Some(rx) = radio.phy.signal_end(now, fid) {
            let collided = cut_off || rx.collided;
            let decoded = !collided
                && if frame.mpdus == 0 {
                    radio.rng.bernoulli(self.success_memo.frame_success(
                        error_model,
                        rx.min_sinr,
                        frame.rate_bps,
                        frame.bytes,
                    ))
                } else {
                    // The frame began `detect` before the radio locked onto it.
                    let detect = self.cca_time.min(frame.airtime.saturating_sub(1));
                    let start = radio.phy.locked_at().saturating_sub(detect);
                    mpdus_ok = ampdu_draws(
                        error_model,
                        frame.rate_bps,
                        &self.frames[fid as usize].mpdus,
                        (start, &radio.phy),
                        &mut radio.rng,
                        &mut self.ampdu_scratch,
                    );
                    mpdus_ok != 0
                };
            let mut ok = decoded;
            if ok {
                match radio
                    .link_errors
                    .iter_mut()
                    .find(|(src, _)| *src == frame.src)
                {
                    Some((_, e)) => ok = !e.loses(now, &mut radio.rng),
                    // No draw at 0: runs without the default keep their random streams.
                    None if frame_error > 0.0 => ok = !radio.rng.bernoulli(frame_error),
                    None => {}
                }
            }
            if let Some(t) = self.trace.as_mut() {
                match (collided, decoded, ok) {
                    (true, ..) => t.rx_drop(now, r, RxDrop::Collision),
                    (false, false, _) => t.rx_drop(now, r, RxDrop::Error),
                    (false, true, false) => t.rx_drop(now, r, RxDrop::LinkError),
                    (false, true, true) => t.rx_ok(now, r, &frame),
                }
            }
            if let (true, Some(c)) = (ok, self.radios[r as usize].pcap.as_mut()) {
                // Before the MAC hears of the frame, with the MPDUs just drawn (docs/pcap.md).
                let slot = &self.frames[fid as usize];
                let mpdus = (&slot.mpdus[..], &slot.msdus[..]);
                c.frame(now, &frame, mpdus, mpdus_ok, Some(rx.power_mw), &self.units);
            }
            let radio = &mut self.radios[r as usize];
            (radio.rx_snr, radio.rx_frame, radio.rx_mpdus) = (rx.min_sinr, fid, mpdus_ok);
            self.with_mac(r, events, packets, layer, |m, io| m.on_rx(&frame, ok, io));
            if ok && frame.kind == FrameKind::Data && frame.dst == Some(r) && !frame.duplicate {
                if frame.seq == NO_SEQ {
                    self.macs[frame.src as usize].mark_handed_over();
                } else {
                    self.mpdus_handed_over(fid, mpdus_ok);
                }
            }
        }
        self.release(fid);
        self.refresh_cca(r, events, packets, layer);
    }

    /// The addressee decoded data frame `fid`, sent under a Block Ack agreement (the MPDUs of
    /// `mpdus_ok` of an A-MPDU): its sender's exchange learns which MPDUs it has. Out of line:
    /// the reception path of radios that do not aggregate stays small.
    #[inline(never)]
    fn mpdus_handed_over(&mut self, fid: FrameId, mpdus_ok: u64) {
        let slot = &self.frames[fid as usize];
        let sender = &mut self.macs[slot.frame.src as usize];
        if slot.frame.mpdus == 0 {
            sender.mark_mpdu_handed_over(slot.frame.seq);
            return;
        }
        for (i, m) in slot.mpdus.iter().enumerate() {
            if mpdus_ok & (1 << i) != 0 {
                sender.mark_mpdu_handed_over(m.seq);
            }
        }
    }

    /// Radio `r` finished transmitting frame `fid`.
    pub fn on_tx_end(
        &mut self,
        r: RadioId,
        fid: FrameId,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
    ) {
        self.release(fid);
        self.refresh_cca(r, events, packets, layer);
    }

    /// A MAC timer event.
    pub fn on_timer(
        &mut self,
        r: RadioId,
        which: MacTimer,
        generation: u32,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
    ) {
        let now = events.now();
        if self.radios[r as usize].failed {
            return;
        }
        match self.radios[r as usize].timers[which as usize].on_event(now, generation) {
            crate::sim::TimerFire::Ignore => {}
            crate::sim::TimerFire::Reschedule(at, g) => {
                events.schedule(at, EventClass::Timer, Event::MacTimer(r, which, g));
            }
            crate::sim::TimerFire::Expired => {
                self.with_mac(r, events, packets, layer, |m, io| m.on_timer(which, io));
            }
        }
    }

    /// A packet was queued at radio `r`: let its MAC contend.
    pub fn kick(
        &mut self,
        r: RadioId,
        events: &mut EventQueue<Event>,
        packets: &mut PacketArena,
        layer: &mut dyn Forwarding,
    ) {
        if !self.radios[r as usize].failed {
            self.with_mac(r, events, packets, layer, |m, io| m.on_frame_ready(io));
        }
    }

    /// Radio `r` fails for good: its interface queue is emptied into `held`, for the caller to
    /// drop (with the packet its MAC gives up, `Dcf::abandon`).
    ///
    /// Its frames still on the air are cut off: nobody decodes them. Were they decoded, the packet
    /// a data frame carries would reach the next hop after the caller had dropped it, counted
    /// twice. Simplification: the cut-off frame's energy still lasts its full airtime at the
    /// neighbours (carrier sense, interference), and a frame whose last bit had left the antenna
    /// but not yet reached a neighbour (under a microsecond of propagation) is cut off too.
    pub fn fail(&mut self, r: RadioId, held: &mut Vec<PacketId>) {
        for slot in self.frames.iter_mut() {
            if slot.refs > 0 && slot.frame.src == r {
                slot.cut_off = true;
            }
        }
        let radio = &mut self.radios[r as usize];
        radio.failed = true;
        radio.ifq.remove_where(&mut |_| true, held);
    }

    fn release(&mut self, fid: FrameId) {
        let slot = &mut self.frames[fid as usize];
        slot.refs -= 1;
        if slot.refs == 0 {
            self.free_frames.push(fid);
            if slot.frame.kind == FrameKind::Data {
                self.units.release(slot.frame.unit);
            }
        }
    }

    /// The reception of a frame with natives (`unit`) was handled: its reference is released.
    pub(crate) fn reception_handled(&mut self, unit: UnitId) {
        self.units.release(unit);
    }

    /// Sets the data rate of radio `from`'s unicast frames to neighbour radio `to` (its rate
    /// table's entry); false if `to` is not a neighbour. For rate control and for tests.
    pub fn set_link_rate(&mut self, from: RadioId, to: RadioId, rate_bps: u32) -> bool {
        let nbs = &mut self.radios[from as usize].neighbors;
        match nbs.binary_search_by_key(&to, |n| n.radio) {
            Ok(i) => {
                nbs[i].rate_bps = rate_bps;
                true
            }
            Err(_) => false,
        }
    }

    /// The data rate of radio `rf`'s unicast frames to its neighbour `nb`, bit/s: the rate
    /// table's entry, or the MAC's data rate where the table has none.
    pub fn link_rate(&self, rf: RadioId, nb: &Neighbor) -> u64 {
        match nb.rate_bps {
            0 => self.macs[rf as usize].data_rate(),
            rate => u64::from(rate),
        }
    }

    /// The data rate of radio `rf`'s unicast frames to radio `rt`, bit/s; `None` if `rt` is not a
    /// neighbour of `rf`.
    pub fn rate_to(&self, rf: RadioId, rt: RadioId) -> Option<u64> {
        let nbs = &self.radios[rf as usize].neighbors;
        let i = nbs.binary_search_by_key(&rt, |n| n.radio).ok()?;
        Some(self.link_rate(rf, &nbs[i]))
    }

    /// Expected fraction of frames radio `rf` gets across to radio `rt`: the SINR error rate of a
    /// 1076-byte frame at the mean power (1000-byte segment + 40 TCP/IP + 36 MAC bytes) times the
    /// link's extra error process (its `link_errors` entry, else the global `frame_error`); 0 if
    /// `rt` is not a neighbour of `rf` or hears it below its receive threshold (in carrier-sense
    /// range only: it never locks onto the frame). What ETX probes converge to: ETX routes weigh links by
    /// it, and COPE guesses from it what a neighbour overheard.
    pub fn delivery(&self, rf: RadioId, rt: RadioId) -> f64 {
        // Neighbour lists are sorted by radio id: a search, not a scan (a scan per edge made ETX
        // routes over a dense mesh cubic in its nodes).
        let neighbors = &self.radios[rf as usize].neighbors;
        let Ok(i) = neighbors.binary_search_by_key(&rt, |n| n.radio) else {
            return 0.0;
        };
        self.neighbour_delivery(rf, &neighbors[i])
    }

    /// [`Wireless::delivery`] under the radios' fading: what the link delivers over many frames
    /// when each sees its Exp(1) power gain (Rayleigh, per frame or per coherence block alike),
    /// the success averaged over the gain ([`crate::phy::fading::rayleigh_average`], `memo`
    /// keeping it per link budget), a frame below the receive threshold never locked onto;
    /// without fading, [`Wireless::delivery`]. Interference is left out, as there.
    pub fn faded_delivery(&self, rf: RadioId, rt: RadioId, memo: &mut RayleighSuccess) -> f64 {
        let neighbors = &self.radios[rf as usize].neighbors;
        let Ok(i) = neighbors.binary_search_by_key(&rt, |n| n.radio) else {
            return 0.0;
        };
        let nb = &neighbors[i];
        if !self.fading.is_faded() {
            return self.neighbour_delivery(rf, nb);
        }
        let receiver = &self.radios[nb.radio as usize];
        let noise = receiver.phy.noise_mw();
        let phy = memo.success(
            self.error_model,
            nb.mean_mw / noise,
            receiver.phy.rx_mw() / noise,
            self.link_rate(rf, nb),
            ETX_FRAME_BYTES,
        );
        phy * self.extra_delivery(rf, receiver)
    }

    /// The mean delivery of the error process on frames from radio `rf` at `receiver`: its
    /// `link_errors` entry, else the global `frame_error`.
    fn extra_delivery(&self, rf: RadioId, receiver: &RadioState) -> f64 {
        receiver
            .link_errors
            .iter()
            .find(|(src, _)| *src == rf)
            .map_or(1.0 - self.frame_error, |(_, e)| e.mean_delivery())
    }

    /// [`Wireless::delivery`] for a neighbour entry of radio `rf`'s list.
    pub fn neighbour_delivery(&self, rf: RadioId, nb: &Neighbor) -> f64 {
        self.neighbour_delivery_of(rf, nb, ETX_FRAME_BYTES)
    }

    /// Expected fraction of `bytes`-byte frames radio `rf` gets across to radio `rt` at the rate
    /// of its rate table: [`Wireless::delivery`] for another frame size (the routing's delivery
    /// threshold judges links by a full-size data frame, `scenario::usable_links`).
    pub fn delivery_of(&self, rf: RadioId, rt: RadioId, bytes: u32) -> f64 {
        let neighbors = &self.radios[rf as usize].neighbors;
        let Ok(i) = neighbors.binary_search_by_key(&rt, |n| n.radio) else {
            return 0.0;
        };
        self.neighbour_delivery_of(rf, &neighbors[i], bytes)
    }

    /// [`Wireless::delivery_of`] for a neighbour entry of radio `rf`'s list.
    pub fn neighbour_delivery_of(&self, rf: RadioId, nb: &Neighbor, bytes: u32) -> f64 {
        let receiver = &self.radios[nb.radio as usize];
        if nb.mean_mw < receiver.phy.rx_mw() {
            return 0.0;
        }
        let phy = self.error_model.frame_success(
            nb.mean_mw / receiver.phy.noise_mw(),
            self.link_rate(rf, nb),
            bytes,
        );
        phy * self.extra_delivery(rf, receiver)
    }

    /// Moving nodes: rebuilds the neighbour lists for positions at `now`; the time of the next
    /// rebuild (`None` without moving nodes).
    pub fn refresh_motion(&mut self, now: Time) -> Option<Time> {
        let motion = self.motion.as_mut()?;
        motion.refresh(now, &mut self.radios, &self.channel_of);
        Some(now.saturating_add(motion.interval))
    }

    /// Radio `r`'s slot for radio `peer` (`Neighbor::slot`), if `r` ever listed it.
    pub fn slot_of(&self, r: RadioId, peer: RadioId) -> Option<usize> {
        match &self.motion {
            Some(m) => m.slot_of(r, peer).map(|s| s as usize),
            None => {
                let nbs = &self.radios[r as usize].neighbors;
                let i = nbs.binary_search_by_key(&peer, |n| n.radio).ok()?;
                Some(nbs[i].slot as usize)
            }
        }
    }

    /// Packets held by radios: queued, or being tried by a MAC and not yet received by the next hop.
    pub fn count_held(&self) -> u64 {
        let queued: u64 = self.radios.iter().map(|r| r.ifq.len() as u64).sum();
        let trying: u64 = self.macs.iter().map(|m| m.packets_held() as u64).sum();
        queued + trying
    }
}

/// The receptions of an A-MPDU's MPDUs at SINR `sinr` (bit i: MPDU i decoded): nothing unless
/// the PHY headers are decoded, then each MPDU by its own draw over the stretch of the data field
/// it occupies, as ns-3 decides every MPDU of an A-MPDU separately (`phy::ht_error`). `scratch`
/// holds the sizes and the MPDUs' chances between calls.
///
/// Each part is judged at the lowest SINR it met (`phy`'s record of the reception that began at
/// `start`): the headers over the preamble, each MPDU over its own stretch, so interference that
/// overlaps part of a long A-MPDU costs only the MPDUs it overlaps. Out of line: frames that are
/// not A-MPDUs keep the reception path small.
#[inline(never)]
fn ampdu_draws(
    model: crate::phy::ErrorModel,
    rate_bps: u64,
    mpdus: &[Mpdu],
    (start, phy): (Time, &Phy),
    rng: &mut crate::sim::Rng,
    scratch: &mut AmpduScratch,
) -> u64 {
    let data = start + model.data_field_start(rate_bps);
    if !rng.bernoulli(model.header_success(phy.min_sinr_between(start, data), rate_bps)) {
        return 0;
    }
    scratch.bytes.clear();
    scratch.bytes.extend(mpdus.iter().map(|m| m.bytes));
    // The layout does not depend on the SINR.
    model.ampdu_mpdus(1.0, rate_bps, &scratch.bytes, &mut scratch.mpdus);
    let mut ok = 0u64;
    for (i, m) in scratch.mpdus.iter().enumerate() {
        let from = data + m.start;
        let sinr = phy.min_sinr_between(from, from + m.duration.max(1));
        if rng.bernoulli(model.mpdu_success(sinr, rate_bps, m.bits)) {
            ok |= 1 << i;
        }
    }
    ok
}

/// Buffers reused by every A-MPDU reception.
#[derive(Default)]
pub struct AmpduScratch {
    bytes: Vec<u32>,
    mpdus: Vec<crate::phy::ht_error::AmpduMpdu>,
}
