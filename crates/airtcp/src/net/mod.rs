//! The network: packets, channels, routing and forwarding, and the event list they share.
//!
//! Forwarding is store-and-forward over static routes: a node that receives a packet for another
//! node looks up the next hop and offers the packet to that channel's queue. An idle transmitter
//! takes the packet at once; a busy one leaves it to the queue discipline.

pub mod routing;

use crate::link::Channel;
use crate::sim::packet::DropReason;
use crate::sim::time::tx_time;
use crate::sim::{ChannelId, EventClass, EventQueue, NodeId, Packet, PacketArena, PacketId};
use crate::world::Event;
use routing::{RoutingTable, NO_ROUTE};

/// Everything below the transport layer.
pub struct Network {
    /// The future event list (shared with the transport and application layers).
    pub events: EventQueue<Event>,
    /// Live packets.
    pub packets: PacketArena,
    /// Channels (two per link: 2i forward, 2i + 1 reverse).
    pub channels: Vec<Channel>,
    /// Node names, indexed by node id.
    pub node_names: Vec<String>,
    /// Static routes.
    pub routes: RoutingTable,
    /// Drops at nodes (no route), per node, indexed like [`DropReason::ALL`].
    pub node_drops: Vec<[u64; 3]>,
    /// Packets delivered to their destination.
    pub delivered: u64,
    /// Packets dropped, all reasons.
    pub dropped: u64,
}

impl Network {
    /// A packet enters the network at its source node.
    pub fn originate(&mut self, packet: Packet) {
        let node = packet.src;
        let id = self.packets.insert(packet);
        self.forward(node, id);
    }

    /// `node` sends `id` on towards its destination.
    fn forward(&mut self, node: NodeId, id: PacketId) {
        let dst = self.packets.get(id).dst;
        let ch = self.routes.next_hop(node, dst);
        if ch == NO_ROUTE {
            self.node_drops[node as usize][DropReason::NoRoute as usize] += 1;
            self.discard(id);
            return;
        }
        self.offer(ch, id);
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
                self.discard(victim);
            }
        }
    }

    fn start_transmission(&mut self, ch: ChannelId, id: PacketId) {
        let now = self.events.now();
        let c = &mut self.channels[ch as usize];
        c.busy = true;
        c.stats.transmitted += 1;
        let done = now + tx_time(self.packets.get(id).size, c.rate_bps);
        let arrival = done + c.delay;
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

    /// A packet reached the far end of `ch`. Returns it if it has arrived at its destination
    /// (its arena slot is then freed).
    pub fn on_arrival(&mut self, ch: ChannelId, id: PacketId) -> Option<Packet> {
        let c = &mut self.channels[ch as usize];
        if c.loss.loses(self.packets.get(id)) {
            c.stats.count_drop(DropReason::ChannelError);
            self.discard(id);
            return None;
        }
        let node = c.to;
        if self.packets.get(id).dst == node {
            self.delivered += 1;
            return Some(self.packets.remove(id));
        }
        self.forward(node, id);
        None
    }

    fn discard(&mut self, id: PacketId) {
        self.dropped += 1;
        self.packets.remove(id);
    }

    /// Packets queued or on a link, counted from the queues and the pending arrival events
    /// (independently of the arena's own count).
    pub fn count_in_flight(&self) -> u64 {
        let queued: u64 = self.channels.iter().map(|c| c.queue.len() as u64).sum();
        let on_links = self
            .events
            .iter_pending()
            .filter(|e| matches!(e, Event::Arrive(..)))
            .count();
        queued + on_links as u64
    }
}
