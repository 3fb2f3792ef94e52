//! The network layer: packets, wired channels, radios, routing and forwarding, and the event list
//! they share.
//!
//! Forwarding is store-and-forward over static routes: a node that receives a packet for another
//! node looks up the next hop and offers the packet to that interface: a wired channel's queue
//! (an idle transmitter takes it at once), or a radio's interface queue, from which the radio's
//! MAC pulls at its next transmit opportunity.

pub mod aodv;
pub mod backpressure;
mod bp_forwarding;
pub mod cellular;
pub mod on_demand;
pub mod paths;
pub mod routing;
pub mod wireless;

use crate::link::Channel;
use crate::sim::packet::{DropReason, Header};
use crate::sim::time::tx_time;
use crate::sim::{ChannelId, EventClass, EventQueue, NodeId, Packet, PacketArena, PacketId};
use crate::world::Event;
pub use on_demand::AodvRouting;
use routing::{Iface, RoutingTable};
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
    pub aodv: Option<AodvRouting>,
    /// The base station's slotted downlink, if the scenario has one.
    pub base_station: Option<cellular::BaseStation>,
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
}

impl Network {
    /// A packet enters the network at its source node.
    // Inlined into TCP's I/O, its main caller (once it has more than a few callers, the compiler
    // stops inlining it on its own, and every segment and ACK pays a call).
    #[inline]
    pub fn originate(&mut self, packet: Packet) {
        let node = packet.src;
        let id = self.packets.insert(packet);
        self.forward(node, id);
        self.process_upcalls();
    }

    /// `node` holds packet `id`, received from neighbour `from` if it came over a radio:
    /// deliver it there, hand it to the routing protocol, or send it on.
    fn receive(&mut self, node: NodeId, id: PacketId, from: Option<NodeId>) {
        if let crate::sim::packet::Header::BpReport = self.packets.get(id).header {
            // The report was taken from the frame when it was decoded (`hear_report`).
            self.delivered += 1;
            self.packets.remove(id);
            return;
        }
        if let crate::sim::packet::Header::Aodv(msg) = self.packets.get(id).header {
            self.delivered += 1;
            self.packets.remove(id);
            if let Some(from) = from {
                self.aodv_message(node, from, msg);
            }
            return;
        }
        if self.packets.get(id).dst == node {
            self.delivered += 1;
            let p = self.packets.remove(id);
            self.arrived.push(p);
        } else {
            self.forward(node, id);
        }
    }

    /// `node` sends `id` on towards its destination.
    fn forward(&mut self, node: NodeId, id: PacketId) {
        if self.wireless.bp.is_some() {
            self.offer_backpressure(node, id);
            return;
        }
        if self.aodv.is_some() {
            self.aodv_forward(node, id);
            return;
        }
        let dst = self.packets.get(id).dst;
        let Some(hop) = self.routes.next_hop(node, dst) else {
            self.node_drops[node as usize][DropReason::NoRoute as usize] += 1;
            self.discard(id);
            return;
        };
        match hop.iface {
            Iface::Channel(ch) => self.offer(ch, id),
            Iface::Radio(r) => {
                self.packets.get_mut(id).next_hop = hop.node;
                self.offer_radio(r, id);
            }
            Iface::Downlink(user) => self.offer_downlink(user, id),
        }
    }

    /// Offers a packet to a channel: straight to an idle transmitter, else to the queue.
    fn offer(&mut self, ch: ChannelId, id: PacketId) {
        let c = &mut self.channels[ch as usize];
        if !c.busy {
            c.stats.enqueued += 1;
            self.start_transmission(ch, id);
            return;
        }
        match c.queue.enqueue(id, self.packets.get(id)) {
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

    /// Offers a packet to radio `r`'s interface queue and lets its MAC contend.
    fn offer_radio(&mut self, r: u32, id: PacketId) {
        let radio = &mut self.wireless.radios[r as usize];
        if radio.failed {
            radio.stats.count_drop(DropReason::NodeDown);
            self.discard(id);
            return;
        }
        match radio.ifq.enqueue(id, self.packets.get(id)) {
            Ok(()) => {
                radio.stats.enqueued += 1;
                radio.stats.max_backlog = radio.stats.max_backlog.max(radio.ifq.len() as u32);
                self.wireless.kick(r, &mut self.events, &self.packets);
            }
            Err((victim, reason)) => {
                radio.stats.count_drop(reason);
                let node = radio.node;
                self.discard_dropped(node, victim, reason);
            }
        }
    }

    fn start_transmission(&mut self, ch: ChannelId, id: PacketId) {
        let now = self.events.now();
        let c = &mut self.channels[ch as usize];
        c.busy = true;
        c.stats.transmitted += 1;
        let done = now.saturating_add(tx_time(self.packets.get(id).size, c.rate_bps));
        let arrival = done.saturating_add(c.delay);
        self.events
            .schedule(done, EventClass::Transmit, Event::TxDone(ch));
        self.events
            .schedule(arrival, EventClass::Arrival, Event::Arrive(ch, id));
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
                    Upcall::Overheard(r, from) => self.hear_report(r, from),
                    Upcall::Received(r, frame) => {
                        if self.wireless.bp.is_some() {
                            self.hear_report(r, frame.src);
                        }
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
                    Upcall::Status {
                        radio,
                        next,
                        id,
                        ok,
                        broadcast,
                        handed_over,
                    } => {
                        if broadcast {
                            // The original is consumed by the broadcast: count it delivered.
                            self.delivered += 1;
                            self.packets.remove(id);
                            continue;
                        }
                        if !ok && !handed_over {
                            let stats = &mut self.wireless.radios[radio as usize].stats;
                            stats.count_drop(DropReason::RetryLimit);
                            self.discard(id);
                        }
                        if let (false, Some(next)) = (ok, next) {
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
        if reason == DropReason::QueueFull && p.src == node && matches!(p.header, Header::Shim(_)) {
            self.shim_drops.push(*p);
        }
        self.discard(id);
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
        let buffered = self.aodv.as_ref().map_or(0, |a| a.buffered());
        let to_users = self
            .events
            .iter_pending()
            .filter(|e| matches!(e, Event::DownlinkArrive(..)))
            .count();
        let at_base_station = self.base_station.as_ref().map_or(0, |b| b.queued());
        queued
            + on_links as u64
            + deferred as u64
            + self.wireless.count_held()
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
            if let Some(bp) = &radio.bp {
                bp.for_each(&mut count);
            }
        }
        if let Some(bs) = self.base_station.as_ref().filter(|b| b.node == node) {
            for user in 0..bs.users.len() {
                bs.downlink.queued(user).for_each(&mut count);
            }
        }
        if let Some(a) = &self.aodv {
            a.buffered_at(node).for_each(&mut count);
        }
        n
    }

    /// `node` fails: its radios stop, and everything it holds is dropped.
    pub fn node_down(&mut self, node: NodeId) {
        let mut r = self.wireless.radio_of_node[node as usize];
        if r == wireless::NO_RADIO {
            return;
        }
        while r != wireless::NO_RADIO {
            let held = self.wireless.fail(r);
            let stats = &mut self.wireless.radios[r as usize].stats;
            stats.drops[DropReason::NodeDown as usize] += held.len() as u64;
            for id in held {
                self.discard(id);
            }
            r = self.wireless.next_on_node[r as usize];
        }
        if let Some(a) = self.aodv.as_mut() {
            for id in a.take_all(node) {
                self.node_drops[node as usize][DropReason::NodeDown as usize] += 1;
                self.discard(id);
            }
        }
    }
}
