//! Glue between the network layer and AODV: packets waiting for a route, control messages as
//! packets (broadcasts jittered by 0-10 ms), discovery timers, link-break handling, and with
//! HELLOs (RFC 3561 §6.9) each node's HELLO timer (first firing at a uniform 0-100 ms, as in
//! ns-3's `RoutingProtocol::DoInitialize`) and neighbour-table purge timer. A HELLO is a control
//! packet like a RREQ: made in the arena, jittered, broadcast, one copy per receiver, each copy
//! consumed where it is read, so packet conservation counts it as any other.
//!
//! AODV itself knows nodes, not radios. On a node with several radios (channels), a unicast
//! leaves by the radio that reaches the next hop, and a broadcast (RREQ, RERR) goes out on every
//! radio, as one copy of the packet per radio, so a route request crosses a bridge between
//! channels.

use std::collections::VecDeque;

use super::aodv::{Aodv, AodvAction, AodvMsg, HelloParams};
use super::forwarding::Route;
use super::routing::{Hop, Iface};
use super::wireless::NO_RADIO;
use super::Network;
use crate::net::event::Event;
use crate::sim::packet::{DropReason, Header};
use crate::sim::time::MILLIS;
use crate::sim::{EventClass, NodeId, Packet, PacketId, Rng, Time};

/// Packets a node buffers while it looks for routes (ns-2's AODV queue holds 64).
pub const BUFFER_PACKETS: usize = 64;
/// Largest jitter of a broadcast control message.
pub const MAX_JITTER: Time = 10 * MILLIS;
/// Latest first firing of a node's HELLO timer (ns-3 draws it uniformly in 0-100 ms).
pub const MAX_HELLO_START: Time = 100 * MILLIS;

/// A timer of the on-demand routing protocol, carried by the network's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDemandTimer {
    /// A route discovery's wait ended: node, destination, attempt.
    Discovery(NodeId, NodeId, u32),
    /// A node's HELLO timer (RFC 3561 §6.9).
    Hello(NodeId),
    /// A node's neighbour-table purge timer: node, the purge it belongs to.
    Purge(NodeId, u32),
}

/// AODV with its per-node packet buffers.
pub struct OnDemandRouting {
    /// The protocol.
    pub proto: Aodv,
    buffers: Vec<VecDeque<PacketId>>,
    jitter: Rng,
    scratch: Vec<PacketId>,
    /// Whether a node repairs routes it forwards over (see `RoutingConfig::Aodv`).
    local_repair: bool,
    /// The neighbours each node takes control messages from, sorted (those over links above the
    /// routing's delivery threshold); `None`: all of them, as RFC 3561 does.
    senders: Option<Vec<Vec<NodeId>>>,
}

impl OnDemandRouting {
    /// AODV for `n` nodes, with or without local repair, with HELLOs if `hello` is given.
    pub fn new(n: usize, seed: u64, local_repair: bool, hello: Option<HelloParams>) -> Self {
        OnDemandRouting {
            proto: Aodv::with_hello(n, hello),
            buffers: vec![VecDeque::new(); n],
            jitter: Rng::stream(seed, "aodv/jitter"),
            scratch: Vec::new(),
            local_repair,
            senders: None,
        }
    }

    /// Each node processes the control messages of the neighbours `senders[node]` lists (sorted)
    /// and ignores the others' as if they had not arrived: a deviation from RFC 3561, which
    /// takes a route from whatever link a broadcast crossed. Broadcasts go at the basic rate and
    /// cross links that lose nearly every data frame at the data rate ("gray zones", Lundgren et
    /// al., WoWMoM 2002); listening only over links above the delivery threshold
    /// (`scenario::usable_links`) keeps such links out of the routes, the way their authors
    /// filter control messages by signal quality.
    pub fn hear_only(&mut self, senders: Vec<Vec<NodeId>>) {
        self.senders = Some(senders);
    }

    /// Whether `node` processes control messages from neighbour `from`.
    fn hears(&self, node: NodeId, from: NodeId) -> bool {
        self.senders
            .as_ref()
            .is_none_or(|s| s[node as usize].binary_search(&from).is_ok())
    }

    /// Packets `node` holds waiting for routes.
    pub fn buffered_at(&self, node: NodeId) -> impl Iterator<Item = PacketId> + '_ {
        self.buffers[node as usize].iter().copied()
    }

    /// Packets waiting for routes, all nodes.
    pub fn buffered(&self) -> u64 {
        self.buffers.iter().map(|b| b.len() as u64).sum()
    }

    /// Takes every packet `node` buffers.
    pub fn take_all(&mut self, node: NodeId) -> Vec<PacketId> {
        self.buffers[node as usize].drain(..).collect()
    }
}

impl Network {
    /// The routing service under AODV, for the forwarding layer: the next hop from the route
    /// table; or, without one, buffer the packet and discover (its control packets go out when
    /// the layer's hook returns), or, at a relay without local repair, no route.
    pub(super) fn on_demand_route(&mut self, node: NodeId, id: PacketId) -> Route {
        let now = self.events.now();
        let r = self.wireless.radio_of_node[node as usize];
        let dst = self.packets.get(id).dst;
        let a = self.on_demand.as_mut().expect("aodv");
        if r == NO_RADIO {
            return Route::Unreachable;
        }
        if let Some(next) = a.proto.next_hop(node, dst, now) {
            let src = self.packets.get(id).src;
            if src != node {
                a.proto.forwarded(node, src, next, now);
            }
            let r = self.wireless.radio_towards(node, next).unwrap_or(r);
            return Route::Via(Hop {
                iface: Iface::Radio(r),
                node: next,
            });
        }
        if !a.local_repair && self.packets.get(id).src != node {
            // §6.11 (ii): a packet to forward without an active route is dropped and its
            // destination reported unreachable.
            a.proto.no_route_to_forward(node, dst);
            return Route::Unreachable;
        }
        let buf = &mut a.buffers[node as usize];
        if buf.len() >= BUFFER_PACKETS {
            self.node_drops[node as usize][DropReason::QueueFull as usize] += 1;
            self.discard_dropped(node, id, DropReason::QueueFull);
            return Route::Taken;
        }
        buf.push_back(id);
        a.proto.discover(node, dst, now);
        Route::Taken
    }

    /// Starts every radio node's HELLO timer (with HELLOs on), each at a uniform 0-100 ms drawn
    /// from a stream of its own, so that the other streams draw as they did without HELLOs.
    pub fn start_on_demand(&mut self, seed: u64) {
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        if a.proto.hello().is_none() {
            return;
        }
        let mut start = Rng::stream(seed, "aodv/hello");
        for node in 0..self.wireless.radio_of_node.len() {
            if self.wireless.radio_of_node[node] != NO_RADIO {
                let at = (start.uniform() * MAX_HELLO_START as f64) as Time;
                a.proto.start_hello(node as NodeId, at);
            }
        }
        self.apply_on_demand();
    }

    /// Whether `node` has failed (its radios neither send nor receive): its timers stop.
    fn node_failed(&self, node: NodeId) -> bool {
        let r = self.wireless.radio_of_node[node as usize];
        r == NO_RADIO || self.wireless.radios[r as usize].failed
    }

    /// `node`'s HELLO timer fired.
    fn aodv_hello(&mut self, node: NodeId) {
        if self.node_failed(node) {
            return;
        }
        let now = self.events.now();
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        a.proto.on_hello_timer(node, now);
        self.apply_on_demand();
        self.process_upcalls();
    }

    /// `node`'s neighbour-table purge timer fired.
    fn aodv_purge(&mut self, node: NodeId, generation: u32) {
        if self.node_failed(node) {
            return;
        }
        let now = self.events.now();
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        a.proto.on_purge_timer(node, generation, now);
        self.apply_on_demand();
        self.process_upcalls();
    }

    /// A data packet from `src` reached `node`, its destination: AODV's neighbour table notes
    /// the previous hop (with HELLOs).
    pub(super) fn on_demand_delivered(&mut self, node: NodeId, src: NodeId) {
        let now = self.events.now();
        if let Some(a) = self.on_demand.as_mut() {
            a.proto.delivered(node, src, now);
            self.apply_on_demand();
        }
    }

    /// A control message from neighbour `from` reached `node`.
    pub(super) fn on_demand_message(&mut self, node: NodeId, from: NodeId, msg: AodvMsg) {
        let now = self.events.now();
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        if !a.hears(node, from) {
            a.proto.stats.ignored += 1;
            return;
        }
        a.proto.on_message(node, from, msg, now);
        self.apply_on_demand();
    }

    /// A timer of the protocol fired.
    pub fn on_demand_timer(&mut self, timer: OnDemandTimer) {
        match timer {
            OnDemandTimer::Discovery(node, dst, attempt) => self.aodv_timer(node, dst, attempt),
            OnDemandTimer::Hello(node) => self.aodv_hello(node),
            OnDemandTimer::Purge(node, generation) => self.aodv_purge(node, generation),
        }
    }

    /// A discovery timer fired.
    fn aodv_timer(&mut self, node: NodeId, dst: NodeId, attempt: u32) {
        let now = self.events.now();
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        a.proto.on_discovery_timeout(node, dst, attempt, now);
        self.apply_on_demand();
        self.process_upcalls();
    }

    /// A jittered control message (a broadcast) is due: it goes out on every radio of its
    /// node, the first radio sending the original and each other radio a copy of its own.
    pub fn send_deferred(&mut self, id: PacketId) {
        let node = self.packets.get(id).src;
        let first = self.wireless.radio_of_node[node as usize];
        if first == NO_RADIO {
            self.node_drops[node as usize][DropReason::NoRoute as usize] += 1;
            self.discard(id);
            return;
        }
        let mut r = self.wireless.next_on_node[first as usize];
        while r != NO_RADIO {
            let copy = self.packets.insert(*self.packets.get(id));
            self.offer_radio_now(r, copy);
            r = self.wireless.next_on_node[r as usize];
        }
        self.offer_radio_now(first, id);
        self.process_upcalls();
    }

    /// The MAC of `node` (radio `radio`) gave up on a frame to neighbour `next`. Under AODV,
    /// routes through `next` break, and packets queued for it are routed again; with HELLOs,
    /// only if `next` is in the neighbour table (`Aodv::tx_failed`).
    pub(super) fn link_failed(&mut self, node: NodeId, radio: u32, next: NodeId) {
        let now = self.events.now();
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        if a.proto.hello().is_some() {
            // The break, if any, comes back as `NeighbourLost`, which strands the queued packets.
            a.proto.tx_failed(node, next, now);
            self.apply_on_demand();
            return;
        }
        a.proto.link_broken(node, next);
        if !a.local_repair {
            // Without repair the frames already queued for `next` stay: the MAC tries them as
            // any other (and each one it gives up on reports the break again).
            self.apply_on_demand();
            return;
        }
        let mut stranded = std::mem::take(&mut a.scratch);
        let packets = &self.packets;
        self.wireless.radios[radio as usize]
            .ifq
            .remove_where(&mut |id| packets.get(id).next_hop == next, &mut stranded);
        self.apply_on_demand();
        for &id in &stranded {
            self.forward(node, id, None);
        }
        stranded.clear();
        if let Some(a) = self.on_demand.as_mut() {
            a.scratch = stranded;
        }
    }

    /// `node` lost neighbour `next` (`AodvAction::NeighbourLost`): with local repair, the packets
    /// its radios queue for `next` are routed again, as after a MAC failure; without, they stay
    /// for the MAC to try.
    fn neighbour_lost(&mut self, node: NodeId, next: NodeId) {
        let Some(a) = self.on_demand.as_mut() else {
            return;
        };
        if !a.local_repair {
            return;
        }
        let mut stranded = std::mem::take(&mut a.scratch);
        let packets = &self.packets;
        let mut r = self.wireless.radio_of_node[node as usize];
        while r != NO_RADIO {
            self.wireless.radios[r as usize]
                .ifq
                .remove_where(&mut |id| packets.get(id).next_hop == next, &mut stranded);
            r = self.wireless.next_on_node[r as usize];
        }
        for &id in &stranded {
            self.forward(node, id, None);
        }
        stranded.clear();
        if let Some(a) = self.on_demand.as_mut() {
            a.scratch = stranded;
        }
    }

    /// Removes the packets `node` buffers for `dst`, in arrival order, into the reusable scratch
    /// vector (returned; the caller hands it back through `scratch` when done).
    fn take_buffered(&mut self, node: NodeId, dst: NodeId) -> Vec<PacketId> {
        let a = self.on_demand.as_mut().expect("aodv");
        let mut out = std::mem::take(&mut a.scratch);
        let packets = &self.packets;
        a.buffers[node as usize].retain(|&id| {
            let hit = packets.get(id).dst == dst;
            if hit {
                out.push(id);
            }
            !hit
        });
        out
    }

    /// Carries out what the protocol asked for.
    pub(super) fn apply_on_demand(&mut self) {
        loop {
            let Some(a) = self.on_demand.as_mut() else {
                return;
            };
            if a.proto.out.is_empty() {
                return;
            }
            let actions = std::mem::take(&mut a.proto.out);
            for act in &actions {
                self.apply_one(*act);
            }
        }
    }

    fn apply_one(&mut self, act: AodvAction) {
        let now = self.events.now();
        match act {
            AodvAction::Send { node, to, msg } => {
                let id = self.packets.insert(Packet {
                    uid: 0,
                    flow: u32::MAX,
                    src: node,
                    dst: to.unwrap_or(NodeId::MAX),
                    next_hop: to.unwrap_or(NodeId::MAX),
                    size: msg.size(),
                    path: super::flow_paths::NO_PATH,
                    link_seq: 0,
                    layer_seq: 0,
                    created: now,
                    header: Header::RoutingControl(msg),
                });
                if let Some(to) = to {
                    let r = self.wireless.radio_towards(node, to);
                    let r = r.unwrap_or(self.wireless.radio_of_node[node as usize]);
                    self.offer_radio_now(r, id);
                } else {
                    let a = self.on_demand.as_mut().expect("aodv");
                    let delay = (a.jitter.uniform() * MAX_JITTER as f64) as Time;
                    self.events.schedule(
                        now.saturating_add(delay),
                        EventClass::App,
                        Event::Deferred(id),
                    );
                }
            }
            AodvAction::RouteReady { node, dst } => {
                let mut ready = self.take_buffered(node, dst);
                for &id in &ready {
                    // Through the forwarding layer again, which finds the route now.
                    self.forward(node, id, None);
                }
                ready.clear();
                if let Some(a) = self.on_demand.as_mut() {
                    a.scratch = ready;
                }
            }
            AodvAction::DiscoveryFailed { node, dst } => {
                let mut dropped = self.take_buffered(node, dst);
                for &id in &dropped {
                    self.node_drops[node as usize][DropReason::NoRoute as usize] += 1;
                    self.discard(id);
                }
                dropped.clear();
                if let Some(a) = self.on_demand.as_mut() {
                    a.scratch = dropped;
                }
            }
            AodvAction::Timer {
                node,
                dst,
                at,
                attempt,
            } => {
                self.events.schedule(
                    at,
                    EventClass::Timer,
                    Event::OnDemand(OnDemandTimer::Discovery(node, dst, attempt)),
                );
            }
            AodvAction::HelloTimer { node, at } => {
                self.events.schedule(
                    at,
                    EventClass::Timer,
                    Event::OnDemand(OnDemandTimer::Hello(node)),
                );
            }
            AodvAction::PurgeTimer {
                node,
                at,
                generation,
            } => {
                self.events.schedule(
                    at,
                    EventClass::Timer,
                    Event::OnDemand(OnDemandTimer::Purge(node, generation)),
                );
            }
            AodvAction::NeighbourLost { node, next } => self.neighbour_lost(node, next),
        }
    }
}
