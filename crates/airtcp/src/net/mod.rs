//! The network layer: packets, wired channels, radios, routing and forwarding, and the event list
//! they share.
//!
//! A node that receives a packet for another node hands it to the forwarding layer
//! ([`forwarding`]), which decides what the node's interfaces send. The plain layer routes it
//! (static routes or AODV) and offers it to that interface: a wired channel's queue (an idle
//! transmitter takes it at once), or a radio's interface queue, from which the radio's MAC pulls
//! at its next transmit opportunity. Other layers hold packets themselves and hand them to a
//! radio when its MAC pulls (after the radio's interface queue).

pub mod aodv;
pub mod backpressure;
pub mod cellular;
pub mod event;
pub mod flow_paths;
pub mod forwarding;
pub mod frame_trace;
pub mod horizon;
pub mod on_demand;
pub mod paths;
pub mod pcap_tap;
pub mod router;
pub mod routing;
pub mod wireless;

use crate::link::Channel;
use crate::mac::frame::NO_UNIT;
use crate::net::event::Event;
use crate::sim::packet::{DropReason, Header};
use crate::sim::time::tx_time;
use crate::sim::{ChannelId, EventClass, EventQueue, NodeId, Packet, PacketArena, PacketId};
use flow_paths::FlowPaths;
use forwarding::{Effect, Forwarding, ForwardingCtx, Frames, Heard, TxStatus};
pub use on_demand::OnDemandRouting;
use routing::RoutingTable;
use wireless::{Upcall, Wireless};

/// Everything below the transport layer.
pub struct Network {
    /// The future event list (shared with the transport and application layers).
    pub events: EventQueue<Event>,
    /// Live packets.
    pub packets: PacketArena,
    /// Channels: two per wired link (2i forward, 2i + 1 reverse), then each downlink user's
    /// uplink.
    pub channels: Vec<Channel>,
    /// Radios and the wireless medium.
    pub wireless: Wireless,
    /// Node names, indexed by node id.
    pub node_names: Vec<String>,
    /// Static routes.
    pub routes: RoutingTable,
    /// AODV, when the scenario uses it instead of static routes.
    pub on_demand: Option<OnDemandRouting>,
    /// The paths flows are pinned to (`flows[].paths`), and their hops; empty without.
    pub flow_paths: FlowPaths,
    /// The base station's slotted downlink, if the scenario has one.
    pub base_station: Option<cellular::BaseStation>,
    /// The wireless routers (`router`), if the scenario has some.
    pub routers: router::Routers,
    /// Drops at nodes (no route), per node, indexed like [`DropReason::ALL`].
    pub node_drops: Vec<[u64; DropReason::ALL.len()]>,
    /// Packets that reached their destination node, for the transport layer to take.
    pub arrived: Vec<Packet>,
    /// Packets delivered to their destination.
    pub delivered: u64,
    /// Packets dropped, all reasons.
    pub dropped: u64,
    /// Packets of shims (`Header::Shim`) dropped on buffer overflow at the node that originated
    /// them, for the world to hand to their flows' shims (a congestion drop at a flow's own node
    /// is one a shim may want the transport to see, paper 000 §4.2.1); the world takes them.
    pub shim_drops: Vec<Packet>,
    /// Congestion marks owed: `(relay, flow, source)` for every relay whose full buffer dropped
    /// a shim's packet of `flow` sent by `source`, until the relay forwards the next such packet
    /// and marks it ([`ShimHeader::mark_congestion`](crate::sim::header::shim::ShimHeader)). At
    /// most one entry per triple.
    pub congestion_owed: Vec<(NodeId, crate::sim::FlowId, NodeId)>,
    /// The forwarding layer (`forwarding`), installed once the network is built
    /// ([`Network::install_forwarding`]); taken out while one of its hooks runs.
    pub(crate) forwarding: Option<Box<dyn Forwarding>>,
    /// Wakes and timers a hook of the layer asked for, carried out when it returns.
    pub(crate) effects: Vec<Effect>,
    /// The neighbour the packet being handed to the layer's `on_packet` came from
    /// ([`forwarding::ForwardingCtx::previous_hop`]).
    pub(crate) arriving_from: Option<NodeId>,
    /// The wired links' packet captures, with a `trace:` block ([`pcap_tap`]).
    pub pcap: Option<Box<pcap_tap::WiredTap>>,
}

impl Network {
    /// A packet enters the network at its source node (pinned to a path of its flow's, if the
    /// flow has paths: `flow_paths`).
    // Inlined into TCP's I/O, its main caller (once it has more than a few callers, the compiler
    // stops inlining it on its own, and every segment and ACK pays a call).
    #[inline]
    pub fn originate(&mut self, mut packet: Packet) {
        if !self.flow_paths.is_empty() {
            // The default pin of a flow with paths (a forwarding layer may change it).
            self.flow_paths.pin_new(&mut packet);
        }
        let node = packet.src;
        let id = self.packets.insert(packet);
        self.forward(node, id, None);
        self.process_upcalls();
    }

    /// `node` holds packet `id`, received from neighbour `from` if it came over a radio:
    /// deliver it there, hand it to the routing protocol or the forwarding layer, or send it on.
    fn receive(&mut self, node: NodeId, id: PacketId, from: Option<NodeId>) {
        match self.packets.get(id).header {
            Header::Forwarding(_) => {
                // A control packet of the layer's: it reads it, the framework consumes it.
                self.with_layer(|layer, ctx| {
                    let p = *ctx.packet(id);
                    layer.on_layer_packet(node, &p, from, ctx);
                });
                self.delivered += 1;
                self.packets.remove(id);
                return;
            }
            Header::RoutingControl(msg) => {
                self.delivered += 1;
                self.packets.remove(id);
                if let Some(from) = from {
                    self.on_demand_message(node, from, msg);
                }
                return;
            }
            _ => {}
        }
        if self.packets.get(id).dst == node {
            self.delivered += 1;
            let p = self.packets.remove(id);
            if self.on_demand.is_some() {
                self.on_demand_delivered(node, p.src);
            }
            self.arrived.push(p);
        } else {
            self.forward(node, id, from);
        }
    }

    /// `node` sends `id`, which came from neighbour `from` (if it did), on towards its
    /// destination: the forwarding layer decides how.
    fn forward(&mut self, node: NodeId, id: PacketId, from: Option<NodeId>) {
        if !self.congestion_owed.is_empty() {
            self.mark_if_owed(node, id);
        }
        if self.wireless.layer_needs.packets {
            self.arriving_from = from;
            self.with_layer(|layer, ctx| layer.on_packet(node, id, ctx));
            self.arriving_from = None;
        } else {
            // The default forwarding, without a call into the layer (`LayerNeeds::packets`).
            ForwardingCtx { net: self }.forward_routed(node, id);
            self.settle_effects();
        }
    }

    /// Offers a packet to a channel: straight to an idle transmitter, else to the queue.
    #[inline]
    fn offer(&mut self, ch: ChannelId, id: PacketId) {
        let c = &mut self.channels[ch as usize];
        if !c.busy {
            c.stats.enqueued += 1;
            self.start_transmission(ch, id);
            return;
        }
        match c.queue.enqueue(id, self.packets.get(id), self.events.now()) {
            Ok(()) => {
                c.stats.enqueued += 1;
                c.stats.max_backlog = c.stats.max_backlog.max(c.queue.len() as u32);
            }
            Err((victim, reason)) => {
                c.stats.count_drop(reason);
                let node = c.from;
                self.discard_dropped(node, victim, reason);
            }
        }
    }

    /// Offers a packet to radio `r`'s interface queue; whether it was queued (the caller then
    /// lets the radio's MAC contend: at once, or when the layer's hook returns).
    fn offer_radio(&mut self, r: u32, id: PacketId) -> bool {
        self.offer_radio_at(r, id, false)
    }

    /// Offers a packet to radio `r`'s interface queue, at its head if `front`; whether it was
    /// queued (a failed radio or a full queue drops it, counted).
    pub(crate) fn offer_radio_at(&mut self, r: u32, id: PacketId, front: bool) -> bool {
        let radio = &mut self.wireless.radios[r as usize];
        if radio.failed {
            radio.stats.count_drop(DropReason::NodeDown);
            self.discard(id);
            return false;
        }
        let now = self.events.now();
        // Packets past their lifetime leave first (ns-3 wipes them on every enqueue), making
        // room for the arrival.
        // (An empty Vec does not allocate: nothing is allocated unless a packet expires.)
        let mut expired = Vec::new();
        radio.ifq.expire(now, &mut expired);
        let node = radio.node;
        for victim in expired {
            self.wireless.radios[r as usize]
                .stats
                .count_drop(DropReason::Expired);
            self.discard_dropped(node, victim, DropReason::Expired);
        }
        let radio = &mut self.wireless.radios[r as usize];
        let packet = self.packets.get(id);
        let offered = if front {
            radio.ifq.enqueue_front(id, packet, now)
        } else {
            radio.ifq.enqueue(id, packet, now)
        };
        match offered {
            Ok(()) => {
                radio.stats.enqueued += 1;
                radio.stats.max_backlog = radio.stats.max_backlog.max(radio.ifq.len() as u32);
                true
            }
            Err((victim, reason)) => {
                radio.stats.count_drop(reason);
                let node = radio.node;
                self.discard_dropped(node, victim, reason);
                false
            }
        }
    }

    /// Offers a packet of the framework's (a routing protocol's) to radio `r`'s interface queue
    /// and lets its MAC contend.
    fn offer_radio_now(&mut self, r: u32, id: PacketId) {
        if self.offer_radio(r, id) {
            self.kick(r);
        }
    }

    /// Lets radio `r`'s MAC contend: it has a packet queued, or the layer has one for it.
    fn kick(&mut self, r: u32) {
        let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
        self.wireless
            .kick(r, &mut self.events, &mut self.packets, layer);
    }

    /// A signal starts arriving at radio `r`.
    pub fn on_signal_start(&mut self, r: u32, fid: u32, power_mw: f64) {
        let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
        self.wireless
            .on_signal_start(r, fid, power_mw, &mut self.events, &mut self.packets, layer);
    }

    /// A signal stops arriving at radio `r`.
    pub fn on_signal_end(&mut self, r: u32, fid: u32) {
        let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
        self.wireless
            .on_signal_end(r, fid, &mut self.events, &mut self.packets, layer);
        self.process_upcalls();
    }

    /// Radio `r` finished transmitting frame `fid`.
    pub fn on_radio_tx_end(&mut self, r: u32, fid: u32) {
        let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
        self.wireless
            .on_tx_end(r, fid, &mut self.events, &mut self.packets, layer);
        self.process_upcalls();
    }

    /// A MAC timer of radio `r` fired.
    pub fn on_mac_timer(&mut self, r: u32, which: crate::mac::dcf::MacTimer, generation: u32) {
        let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
        self.wireless.on_timer(
            r,
            which,
            generation,
            &mut self.events,
            &mut self.packets,
            layer,
        );
        self.process_upcalls();
    }

    fn start_transmission(&mut self, ch: ChannelId, id: PacketId) {
        let now = self.events.now();
        let c = &mut self.channels[ch as usize];
        c.busy = true;
        c.stats.transmitted += 1;
        let done = now.saturating_add(tx_time(self.packets.get(id).size, c.rate_bps));
        if let Some(t) = self.pcap.as_mut() {
            t.packet(now, ch, self.packets.get(id), false);
        }
        let arrival = done.saturating_add(c.delay);
        self.events
            .schedule(done, EventClass::Transmit, Event::TxDone(ch));
        // A link delivers in the order it sends (one transmitter, one delay): its lane.
        self.events
            .schedule_in_lane(ch, arrival, EventClass::Arrival, Event::Arrive(ch, id));
    }

    /// The transmitter of `ch` finished a packet: take the next one.
    pub fn on_tx_done(&mut self, ch: ChannelId) {
        let c = &mut self.channels[ch as usize];
        c.busy = false;
        if let Some(id) = c.queue.dequeue() {
            self.start_transmission(ch, id);
        }
    }

    /// A packet reached the far end of `ch`.
    pub fn on_arrival(&mut self, ch: ChannelId, id: PacketId) {
        let c = &mut self.channels[ch as usize];
        if c.loss.loses(self.packets.get(id)) {
            c.stats.count_drop(DropReason::ChannelError);
            self.discard(id);
            return;
        }
        let node = c.to;
        if let Some(t) = self.pcap.as_mut() {
            t.packet(self.events.now(), ch, self.packets.get(id), true);
        }
        self.receive(node, id, None);
        self.process_upcalls();
    }

    /// Handles what the MACs handed up, until nothing is left (a forwarded packet may make
    /// another MAC hand something up at once only through events, so this terminates).
    pub fn process_upcalls(&mut self) {
        while !self.wireless.upcalls.is_empty() {
            let batch = std::mem::take(&mut self.wireless.upcalls);
            for up in &batch {
                match *up {
                    Upcall::Overheard(r, frame) | Upcall::Duplicate(r, frame) => {
                        let heard = match up {
                            Upcall::Overheard(..) => Heard::Overheard,
                            _ => Heard::Duplicate,
                        };
                        self.with_layer(|layer, ctx| layer.on_frame(r, &frame, heard, ctx));
                        self.wireless.reception_handled(frame.unit);
                    }
                    Upcall::Received(r, frame) => {
                        if self.wireless.layer_needs.frames != Frames::None {
                            let heard = match frame.dst {
                                Some(_) => Heard::Addressed,
                                None => Heard::Broadcast,
                            };
                            self.with_layer(|layer, ctx| layer.on_frame(r, &frame, heard, ctx));
                        }
                        self.wireless.reception_handled(frame.unit);
                        let node = self.wireless.radios[r as usize].node;
                        let from = self.wireless.radios[frame.src as usize].node;
                        let Some((id, copy)) = frame.packet else {
                            continue;
                        };
                        if frame.dst.is_some() {
                            self.receive(node, id, Some(from));
                        } else {
                            // Every receiver of a broadcast gets a copy of its own.
                            let id = self.packets.insert(copy);
                            self.receive(node, id, Some(from));
                        }
                    }
                    Upcall::Dropped { radio, id, reason } => {
                        ForwardingCtx { net: self }.drop_at_radio(radio, id, reason);
                    }
                    Upcall::Status {
                        radio,
                        sent,
                        status,
                    } => {
                        let (id, next) = (sent.id, sent.next_hop);
                        if status == TxStatus::Broadcast {
                            // The original is consumed by the broadcast: count it delivered.
                            self.delivered += 1;
                            self.packets.remove(id);
                            continue;
                        }
                        if matches!(status, TxStatus::RetryLimit | TxStatus::Expired) {
                            if sent.unit != NO_UNIT {
                                // The carrier of coded natives: the layer still holds them, no
                                // data was lost with it.
                                self.packets.retire(id);
                            } else {
                                let reason = match status {
                                    TxStatus::Expired => DropReason::Expired,
                                    _ => DropReason::RetryLimit,
                                };
                                let stats = &mut self.wireless.radios[radio as usize].stats;
                                stats.count_drop(reason);
                                self.discard(id);
                            }
                        }
                        let failed = matches!(
                            status,
                            TxStatus::RetryLimit | TxStatus::HandedOver | TxStatus::Expired
                        );
                        if let (true, Some(next)) = (failed, next) {
                            let node = self.wireless.radios[radio as usize].node;
                            let next = self.wireless.radios[next as usize].node;
                            self.link_failed(node, radio, next);
                        }
                    }
                }
            }
            // Give the buffer back so its capacity is reused.
            if self.wireless.upcalls.is_empty() {
                let mut batch = batch;
                batch.clear();
                self.wireless.upcalls = batch;
            }
        }
    }

    fn discard(&mut self, id: PacketId) {
        self.dropped += 1;
        self.packets.remove(id);
    }

    /// Discards a packet a queue at `node` refused for `reason`; a shim's packet dropped for a
    /// full buffer at the node that originated it is also noted in `shim_drops`.
    fn discard_dropped(&mut self, node: NodeId, id: PacketId, reason: DropReason) {
        let p = self.packets.get(id);
        if reason == DropReason::QueueFull && matches!(p.header, Header::Shim(_)) {
            if p.src == node {
                self.shim_drops.push(*p);
            } else {
                let owed = (node, p.flow, p.src);
                if !self.congestion_owed.contains(&owed) {
                    self.congestion_owed.push(owed);
                }
            }
        }
        self.discard(id);
    }

    /// Relay `node` forwards shim packet `id`: if the relay's full buffer dropped a packet of the
    /// same flow and direction since it last marked one, this one carries the congestion mark
    /// (the dropped packet cannot carry it; the next one tells the destination, a round trip
    /// sooner than a timeout would, as "drop then mark" schemes do). A packet at its own source
    /// is not a relay's.
    #[cold]
    fn mark_if_owed(&mut self, node: NodeId, id: PacketId) {
        let p = self.packets.get_mut(id);
        let Header::Shim(header) = &mut p.header else {
            return;
        };
        if p.src == node {
            return;
        }
        let owed = (node, p.flow, p.src);
        if let Some(i) = self.congestion_owed.iter().position(|&o| o == owed) {
            self.congestion_owed.swap_remove(i);
            header.mark_congestion();
        }
    }

    /// Packets queued, on a link or held by a MAC, counted from the queues, the pending arrival
    /// events and the MACs (independently of the arena's own count).
    pub fn count_in_flight(&self) -> u64 {
        let queued: u64 = self.channels.iter().map(|c| c.queue.len() as u64).sum();
        let on_links = self
            .events
            .iter_pending()
            .filter(|e| matches!(e, Event::Arrive(..)))
            .count();
        let deferred = self
            .events
            .iter_pending()
            .filter(|e| matches!(e, Event::Deferred(..)))
            .count();
        let buffered = self.on_demand.as_ref().map_or(0, |a| a.buffered());
        let to_users = self
            .events
            .iter_pending()
            .filter(|e| matches!(e, Event::DownlinkArrive(..)))
            .count();
        let at_base_station = self.base_station.as_ref().map_or(0, |b| b.queued());
        queued
            + self.routers.held()
            + on_links as u64
            + deferred as u64
            + self.wireless.count_held()
            + self.layer().count_held()
            + buffered
            + to_users as u64
            + at_base_station
    }

    /// Packets of `flow` waiting at `node`: in its interface queues (wired, radio, downlink) and
    /// its routing buffer; not the one a transmitter is sending. O(packets queued at the node),
    /// for occasional use (a source's flow controller once per slot), not per event.
    pub fn flow_backlog(&self, node: NodeId, flow: u32) -> u64 {
        let mut n = 0u64;
        let packets = &self.packets;
        let mut count = |id: PacketId| {
            if packets.get(id).flow == flow {
                n += 1;
            }
        };
        for c in self.channels.iter().filter(|c| c.from == node) {
            c.queue.for_each(&mut count);
        }
        for r in self.wireless.radios_of(node) {
            let radio = &self.wireless.radios[r as usize];
            radio.ifq.for_each(&mut count);
        }
        self.layer().for_each_held(node, &mut count);
        if let Some(bs) = self.base_station.as_ref().filter(|b| b.node == node) {
            for user in 0..bs.users.len() {
                bs.downlink.queued(user).for_each(&mut count);
            }
        }
        for rt in self.routers.list.iter().filter(|r| r.node == node) {
            rt.ifq.for_each(&mut count);
        }
        if let Some(a) = &self.on_demand {
            a.buffered_at(node).for_each(&mut count);
        }
        n
    }

    /// Moving nodes: the neighbour lists are rebuilt for the next interval, and the next rebuild
    /// is scheduled.
    pub fn on_motion(&mut self) {
        let now = self.events.now();
        if let Some(next) = self.wireless.refresh_motion(now) {
            self.events.schedule(next, EventClass::Timer, Event::Motion);
        }
    }

    /// `node` fails: its radios stop, and everything it holds is dropped: each radio's interface
    /// queue and its MAC's packet, and what the forwarding layer holds at the node (charged to
    /// its first radio, between that radio's queue and its MAC's packet).
    pub fn node_down(&mut self, node: NodeId) {
        let first = self.wireless.radio_of_node[node as usize];
        if first == wireless::NO_RADIO {
            return;
        }
        let mut r = first;
        let mut held = Vec::new();
        while r != wireless::NO_RADIO {
            held.clear();
            self.wireless.fail(r, &mut held);
            if r == first {
                let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
                layer.on_node_down(node, &mut held);
            }
            let mut tried = Vec::new();
            self.wireless.macs[r as usize].abandon(&mut tried);
            for (sent, handed_over) in tried {
                self.wireless.units.release(sent.unit);
                if handed_over {
                    // The next hop has it.
                } else if sent.unit != NO_UNIT {
                    // A carrier: its natives are the layer's, dropped with what it holds.
                    self.packets.retire(sent.id);
                } else {
                    held.push(sent.id);
                }
            }
            let stats = &mut self.wireless.radios[r as usize].stats;
            stats.drops[DropReason::NodeDown as usize] += held.len() as u64;
            for &id in &held {
                self.discard(id);
            }
            r = self.wireless.next_on_node[r as usize];
        }
        if let Some(a) = self.on_demand.as_mut() {
            for id in a.take_all(node) {
                self.node_drops[node as usize][DropReason::NodeDown as usize] += 1;
                self.discard(id);
            }
        }
    }
}
