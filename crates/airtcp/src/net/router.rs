//! Wireless routers: a node's shared downlink to its users as an interface of the network layer
//! (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-G, §IV: "the wireless router").
//!
//! - One transmitter of `rate` bit/s serves every user of the router, one packet at a time (a
//!   packet of `size` bytes occupies it `8 size / rate` s), work-conserving.
//! - Each user has its own channel: a packet is received with the user's success probability at
//!   the *start* of its transmission [spec §2.1, I] (`mac::downlink::erasure`, paper 004's
//!   bimodal process with independently drawn states) and otherwise dropped as a channel error.
//!   No link-layer retransmission (the paper rejects link ARQ, §I-B) and no propagation delay
//!   (the packet reaches its user when its transmission ends).
//! - What is sent next: the router's own drop-tail interface queue first (what plain
//!   store-and-forward pushes there: a plain TCP baseline gets exactly one FIFO), then whatever
//!   the forwarding layer holds for it ([`super::forwarding::Forwarding::pull_router`]): TCP-RLC's
//!   per-flow priority queue pairs (`forwarding::priority_pairs`) live there, on the seam, not
//!   here.
//! - The users answer over ordinary wired channels (the paper's perfect uplink), built with the
//!   scenario's links.
//!
//! A packet leaves by [`Iface::Router`](super::routing::Iface::Router)`(port)`: one port per
//! (router, user) pair, numbered across all routers.

use serde::Serialize;

use super::forwarding::RouterView;
use super::Network;
use crate::link::ChannelStats;
use crate::mac::downlink::erasure::BimodalErasure;
use crate::metrics::results::LayerTable;
use crate::net::event::Event;
use crate::queue::QueueDisc;
use crate::sim::time::tx_time;
use crate::sim::{DropReason, EventClass, NodeId, PacketId};

/// A port's router and user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    /// The router's index.
    pub router: u32,
    /// The user's index at that router.
    pub user: u32,
}

/// One user of a router.
#[derive(Debug)]
pub struct RouterUser {
    /// The user's node.
    pub node: NodeId,
    /// Its channel (None: every packet is received).
    pub channel: Option<BimodalErasure>,
    /// Its counters.
    pub stats: RouterUserStats,
}

/// Counters of one user of a router.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RouterUserStats {
    /// Packets whose transmission to the user started.
    pub sent: u64,
    /// Of those, received.
    pub received: u64,
    /// Of those, erased by the channel.
    pub erased: u64,
    /// Transmissions that started while the user's channel was in its low state.
    pub sent_in_low_state: u64,
}

/// The packet a router is sending.
#[derive(Debug, Clone, Copy)]
struct InService {
    id: PacketId,
    user: u32,
    received: bool,
}

/// One wireless router (see the module header).
pub struct WirelessRouter {
    /// The router's node.
    pub node: NodeId,
    /// Display name of its interface queue, "router NAME".
    pub name: String,
    /// Transmitter rate, bit/s.
    pub rate_bps: u64,
    /// The users, in configuration order.
    pub users: Vec<RouterUser>,
    /// The interface queue.
    pub ifq: Box<dyn QueueDisc>,
    /// The interface queue's counters (and the channel-error drops).
    pub stats: ChannelStats,
    in_service: Option<InService>,
    /// User index of each node (`u32::MAX`: not a user).
    user_of_node: Vec<u32>,
}

impl WirelessRouter {
    /// A router at `node` sending at `rate_bps` to `users` from interface queue `ifq`; `names`
    /// are the nodes' names.
    pub fn new(
        node: NodeId,
        rate_bps: u64,
        users: Vec<RouterUser>,
        ifq: Box<dyn QueueDisc>,
        names: &[String],
    ) -> Self {
        let mut user_of_node = vec![u32::MAX; names.len()];
        for (u, user) in users.iter().enumerate() {
            user_of_node[user.node as usize] = u as u32;
        }
        WirelessRouter {
            node,
            name: format!("router {}", names[node as usize]),
            rate_bps,
            users,
            ifq,
            stats: ChannelStats::default(),
            in_service: None,
            user_of_node,
        }
    }

    /// The user index of `node` (None: not a user of this router).
    pub fn user_of(&self, node: NodeId) -> Option<u32> {
        self.user_of_node
            .get(node as usize)
            .copied()
            .filter(|&u| u != u32::MAX)
    }

    /// User `user`'s success probability at `now` (calls with non-decreasing `now`).
    pub fn success_probability(&mut self, user: u32, now: crate::sim::Time) -> f64 {
        match &mut self.users[user as usize].channel {
            Some(c) => c.success_probability(now),
            None => 1.0,
        }
    }

    /// Whether a packet is being sent.
    pub fn busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// Packets queued or being sent.
    pub fn held(&self) -> u64 {
        self.ifq.len() as u64 + u64::from(self.in_service.is_some())
    }
}

/// Every router of the scenario and the ports into them.
#[derive(Default)]
pub struct Routers {
    /// The routers.
    pub list: Vec<WirelessRouter>,
    /// Each port's router and user.
    pub ports: Vec<Port>,
}

impl Routers {
    /// Packets queued at routers or being sent by them.
    pub fn held(&self) -> u64 {
        self.list.iter().map(WirelessRouter::held).sum()
    }

    /// The results' `routers` table (one row per router and user), none without routers.
    pub fn report(&self, node_names: &[String]) -> Option<LayerTable> {
        if self.list.is_empty() {
            return None;
        }
        let mut rows = Vec::new();
        for rt in &self.list {
            for u in &rt.users {
                let s = u.stats;
                rows.push(RouterRow {
                    router: node_names[rt.node as usize].clone(),
                    user: node_names[u.node as usize].clone(),
                    sent: s.sent,
                    received: s.received,
                    erased: s.erased,
                    sent_in_low_state: s.sent_in_low_state,
                });
            }
        }
        Some(LayerTable::new(TABLE, &rows))
    }
}

/// The key of the routers' table in the results.
pub const TABLE: &str = "routers";

/// One user of one router, a row of the results' table.
#[derive(Debug, Clone, Serialize)]
pub struct RouterRow {
    /// The router's node.
    pub router: String,
    /// The user's node.
    pub user: String,
    /// Packets whose transmission to the user started.
    pub sent: u64,
    /// Of those, received.
    pub received: u64,
    /// Of those, erased by the channel (also in `drops` as `channel_error` of "router NAME").
    pub erased: u64,
    /// Transmissions that started in the channel's low state (their share estimates the time
    /// share of the low state while the router was busy).
    pub sent_in_low_state: u64,
}

impl Network {
    /// Offers packet `id` to port `port`: the router's interface queue, or its idle transmitter.
    pub(super) fn offer_router(&mut self, port: u32, id: PacketId) {
        let Port { router, user } = self.routers.ports[port as usize];
        let rt = &mut self.routers.list[router as usize];
        self.packets.get_mut(id).next_hop = rt.users[user as usize].node;
        match rt.ifq.enqueue(id, self.packets.get(id), self.events.now()) {
            Ok(()) => {
                rt.stats.enqueued += 1;
                rt.stats.max_backlog = rt.stats.max_backlog.max(rt.ifq.len() as u32);
            }
            Err((victim, reason)) => {
                rt.stats.count_drop(reason);
                let node = rt.node;
                self.discard_dropped(node, victim, reason);
            }
        }
        self.router_kick(router);
    }

    /// Lets router `r` start its next packet if it is idle: its interface queue's, else the
    /// forwarding layer's.
    pub(crate) fn router_kick(&mut self, r: u32) {
        let now = self.events.now();
        let rt = &mut self.routers.list[r as usize];
        if rt.busy() {
            return;
        }
        let next = match rt.ifq.dequeue() {
            Some(id) => Some(id),
            None if self.wireless.layer_needs.pulls => {
                let layer = self.forwarding.as_deref_mut().expect("a forwarding layer");
                layer.pull_router(
                    r,
                    RouterView {
                        now,
                        packets: &self.packets,
                        router: rt,
                    },
                )
            }
            None => None,
        };
        let Some(id) = next else {
            return;
        };
        let p = self.packets.get(id);
        let Some(user) = rt.user_of(p.next_hop) else {
            // A layer handed over a packet for no user of this router: a bug in the layer,
            // dropped and counted rather than sent anywhere.
            rt.stats.count_drop(DropReason::NoRoute);
            self.discard(id);
            return;
        };
        let u = &mut rt.users[user as usize];
        let received = match &mut u.channel {
            Some(c) => {
                let ok = c.delivered(now);
                u.stats.sent_in_low_state += u64::from(c.in_low());
                ok
            }
            None => true,
        };
        u.stats.sent += 1;
        rt.stats.transmitted += 1;
        rt.in_service = Some(InService { id, user, received });
        let done = now.saturating_add(tx_time(p.size, rt.rate_bps));
        self.events
            .schedule(done, EventClass::Transmit, Event::RouterTxDone(r));
    }

    /// Router `r` finished sending a packet: it reaches its user or is erased; the next starts.
    pub fn on_router_tx_done(&mut self, r: u32) {
        let rt = &mut self.routers.list[r as usize];
        let Some(s) = rt.in_service.take() else {
            return;
        };
        let u = &mut rt.users[s.user as usize];
        if s.received {
            u.stats.received += 1;
            let node = u.node;
            self.receive(node, s.id, None);
        } else {
            u.stats.erased += 1;
            rt.stats.count_drop(DropReason::ChannelError);
            self.discard(s.id);
        }
        self.router_kick(r);
        self.process_upcalls();
    }
}
