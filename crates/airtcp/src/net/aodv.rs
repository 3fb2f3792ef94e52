//! AODV, Ad hoc On-Demand Distance Vector routing (RFC 3561).
//!
//! Implemented (section numbers of the RFC):
//! - route discovery with RREQ flooding and the expanding ring search (§6.3, §6.4): TTL_START 1,
//!   TTL_INCREMENT 2, TTL_THRESHOLD 7, then NET_DIAMETER 35 with RREQ_RETRIES 2 and binary
//!   exponential backoff of the wait (RING_TRAVERSAL_TIME, NET_TRAVERSAL_TIME);
//! - RREQ processing (§6.5): duplicate suppression by (originator, RREQ ID) for
//!   PATH_DISCOVERY_TIME, reverse routes, replies by the destination (§6.6.1, sequence number
//!   rules) and by intermediate nodes with fresh routes (§6.6.2), precursor lists;
//! - RREP processing and forwarding (§6.7), forward routes, release of buffered packets;
//! - route table rules (§6.1, §6.2): sequence-number freshness, hop count, lifetimes refreshed to
//!   ACTIVE_ROUTE_TIMEOUT (3 s) on use;
//! - HELLO messages (§6.9), when switched on, as ns-3 3.44's AODV has them
//!   (`aodv-routing-protocol.cc`: `HelloTimerExpire`, `SendHello`, `ProcessHello`;
//!   `aodv-neighbor.cc`: `Neighbors`): every HELLO_INTERVAL a node that broadcast no RREQ since
//!   its last check broadcasts a RREP with TTL 1 for itself (its own sequence number, hop count
//!   0, lifetime ALLOWED_HELLO_LOSS x HELLO_INTERVAL); a receiver makes its route to the
//!   neighbour active for at least that long and keeps the neighbour in a neighbour table. A
//!   neighbour whose entry expires (§6.11's "missed HELLOs") breaks the link as a MAC failure
//!   does;
//! - route maintenance (§6.11): a link break is detected when the MAC gives up on a frame to the
//!   next hop (link-layer feedback), or, with HELLOs, when a neighbour's entry expires; routes
//!   through it are invalidated with their destination sequence numbers incremented and a RERR is
//!   broadcast to the precursors; a RERR received from a route's next hop invalidates it and is
//!   propagated.
//!
//! The neighbour table follows ns-3 rather than the RFC's bare text, because ns-3 is what
//! airtcp's grid is compared with: it is refreshed by HELLOs and by RREQs (ALLOWED_HELLO_LOSS x
//! HELLO_INTERVAL), and by data a relay forwards (its next and previous hop) or a destination
//! receives (the previous hop) for ACTIVE_ROUTE_TIMEOUT; it is purged every HELLO_INTERVAL after
//! the last purge, and whenever a neighbour is added or the MAC gives up on a frame; and with
//! HELLOs on, a MAC failure breaks the link only to a neighbour in the table (ns-3's
//! `Neighbors::ProcessTxError`). With HELLOs off, every MAC failure breaks the link and there is
//! no neighbour table (ns-2's behaviour, and airtcp's before HELLOs). Unlike ns-3, the purge
//! period follows HELLO_INTERVAL (ns-3 purges every second whatever its `HelloInterval`; the same
//! at the default).
//!
//! Deviations: packets queued at a node whose link broke are re-routed from that node, starting a
//! new discovery there (like ns-2's local repair, without its hop-count condition); no
//! gratuitous RREPs, no RREP-ACK, no RREQ rate limit; control messages are broadcast with a
//! uniform 0-10 ms jitter (ns-2 and ns-3 do the same) so that neighbours do not rebroadcast in
//! lock step. Message sizes per §5 (RREQ 24, RREP and HELLO 20, RERR 4 + 8 per destination
//! bytes) plus 28 bytes of IP/UDP header. With `routing.min_delivery` above 0 (the default) a node
//! ignores control messages that reach it over a link below that delivery threshold, so that
//! routes are made of links that carry data at their rate (`net::on_demand`, docs/aodv.md).

use std::collections::BTreeMap;

pub use crate::sim::header::aodv::{AodvMsg, RERR_MAX};
use crate::sim::time::MILLIS;
use crate::sim::{NodeId, Time};

/// Node traversal time (§10).
pub const NODE_TRAVERSAL_TIME: Time = 40 * MILLIS;
/// Network diameter in hops (§10).
pub const NET_DIAMETER: u8 = 35;
/// Active route timeout (§10).
pub const ACTIVE_ROUTE_TIMEOUT: Time = 3_000 * MILLIS;
/// 2 x NODE_TRAVERSAL_TIME x NET_DIAMETER.
pub const NET_TRAVERSAL_TIME: Time = 2 * NODE_TRAVERSAL_TIME * NET_DIAMETER as Time;
/// 2 x NET_TRAVERSAL_TIME.
pub const PATH_DISCOVERY_TIME: Time = 2 * NET_TRAVERSAL_TIME;
/// Route lifetime a destination advertises in its RREP.
pub const MY_ROUTE_TIMEOUT: Time = 2 * ACTIVE_ROUTE_TIMEOUT;
const TTL_START: u8 = 1;
const TTL_INCREMENT: u8 = 2;
const TTL_THRESHOLD: u8 = 7;
const RREQ_RETRIES: u32 = 2;
const TIMEOUT_BUFFER: Time = 2;

/// HELLO parameters (§6.9, §10); ns-3 3.44's defaults are 1 s and 2 (`HelloInterval`,
/// `AllowedHelloLoss`), the RFC's too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelloParams {
    /// HELLO_INTERVAL: how often a node checks whether to send a HELLO, and how often its
    /// neighbour table is purged.
    pub interval: Time,
    /// ALLOWED_HELLO_LOSS: HELLOs in a row a neighbour may miss before its link is broken.
    pub allowed_loss: u32,
}

impl HelloParams {
    /// ALLOWED_HELLO_LOSS x HELLO_INTERVAL: the lifetime a HELLO advertises, and how long it
    /// keeps its sender in the receiver's neighbour table (§6.9).
    pub fn lifetime(&self) -> Time {
        self.interval.saturating_mul(self.allowed_loss as Time)
    }
}

/// What the protocol asks the network layer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AodvAction {
    /// Send `msg` from `node` to neighbour `to` (`None`: broadcast).
    Send {
        /// Sending node.
        node: NodeId,
        /// Neighbour, or broadcast.
        to: Option<NodeId>,
        /// The message.
        msg: AodvMsg,
    },
    /// `node` now has a route to `dst`: send the packets buffered for it.
    RouteReady {
        /// Node.
        node: NodeId,
        /// Destination.
        dst: NodeId,
    },
    /// Discovery at `node` for `dst` failed: drop the packets buffered for it.
    DiscoveryFailed {
        /// Node.
        node: NodeId,
        /// Destination.
        dst: NodeId,
    },
    /// Call [`Aodv::on_hello_timer`] for `node` at `at`.
    HelloTimer {
        /// Node.
        node: NodeId,
        /// When.
        at: Time,
    },
    /// Call [`Aodv::on_purge_timer`] for `node` at `at` (a later purge makes it stale).
    PurgeTimer {
        /// Node.
        node: NodeId,
        /// When.
        at: Time,
        /// The purge it belongs to.
        generation: u32,
    },
    /// `node` lost neighbour `next` (missed HELLOs, or the MAC gave up on a frame to it while it
    /// was in the neighbour table): the routes through it are invalidated already; packets queued
    /// for it may be routed again.
    NeighbourLost {
        /// Node.
        node: NodeId,
        /// The lost neighbour.
        next: NodeId,
    },
    /// Call [`Aodv::on_discovery_timeout`] at `at`.
    Timer {
        /// Node.
        node: NodeId,
        /// Destination.
        dst: NodeId,
        /// When.
        at: Time,
        /// Which attempt the timer belongs to.
        attempt: u32,
    },
}

/// A routing table entry (§6.1, simplified to what the protocol reads).
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Next hop.
    pub next: NodeId,
    /// Hop count.
    pub hops: u8,
    /// Destination sequence number.
    pub seq: u32,
    /// Whether `seq` is valid.
    pub valid_seq: bool,
    /// Route usable (not invalidated by a link break or RERR).
    pub valid: bool,
    /// Expiry time.
    pub expires: Time,
    /// Neighbours that route through this node to the destination.
    pub precursors: Vec<NodeId>,
}

#[derive(Debug, Clone)]
struct Discovery {
    attempt: u32,
    ttl: u8,
    retries: u32,
}

/// The AODV state of one node.
#[derive(Debug, Clone, Default)]
pub struct AodvNode {
    seq: u32,
    rreq_id: u32,
    /// Routing table.
    pub routes: BTreeMap<NodeId, Route>,
    seen: BTreeMap<(NodeId, u32), Time>,
    discoveries: BTreeMap<NodeId, Discovery>,
    /// The neighbour table (HELLOs on only): each neighbour with the time its entry expires. A
    /// node has a handful of neighbours, so a vector scanned in full beats a map.
    neighbours: Vec<(NodeId, Time)>,
    /// When the node last broadcast a RREQ since its HELLO timer last fired: that broadcast
    /// stands in for a HELLO (§6.9; ns-3's `m_lastBcastTime`, set by RREQs only).
    last_bcast: Option<Time>,
    /// The purge of the neighbour table a pending purge timer belongs to (every purge schedules
    /// the next one HELLO_INTERVAL later, so earlier timers go stale).
    purge_generation: u32,
}

/// AODV for every node.
#[derive(Debug, Clone)]
pub struct Aodv {
    /// Per-node state.
    pub nodes: Vec<AodvNode>,
    /// Actions produced by the last calls, for the network layer to apply.
    pub out: Vec<AodvAction>,
    /// Counters: RREQs originated, RREPs originated, RERRs sent, link breaks.
    pub stats: AodvStats,
    /// HELLO parameters; `None`: no HELLOs and no neighbour table.
    hello: Option<HelloParams>,
    /// Neighbours a purge found lost (reused between purges).
    lost: Vec<NodeId>,
}

/// Protocol counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AodvStats {
    /// Route discoveries started.
    pub discoveries: u64,
    /// RREPs generated (destination or intermediate).
    pub replies: u64,
    /// RERRs sent.
    pub errors: u64,
    /// Link breaks detected (MAC failures and missed HELLOs).
    pub link_breaks: u64,
    /// HELLOs sent.
    pub hellos: u64,
    /// Neighbours lost because their entries expired (missed HELLOs), a part of `link_breaks`.
    pub hello_losses: u64,
    /// Control messages ignored because they came over a link below the routing's delivery
    /// threshold (`net::on_demand`).
    pub ignored: u64,
}

impl Aodv {
    /// AODV for `n` nodes, without HELLOs.
    pub fn new(n: usize) -> Self {
        Self::with_hello(n, None)
    }

    /// AODV for `n` nodes, with HELLOs if `hello` is given.
    pub fn with_hello(n: usize, hello: Option<HelloParams>) -> Self {
        Aodv {
            nodes: vec![AodvNode::default(); n],
            out: Vec::new(),
            stats: AodvStats::default(),
            hello,
            lost: Vec::new(),
        }
    }

    /// The HELLO parameters, if HELLOs are on.
    pub fn hello(&self) -> Option<HelloParams> {
        self.hello
    }

    /// The neighbours in `node`'s table, with the times their entries expire.
    pub fn neighbours(&self, node: NodeId) -> &[(NodeId, Time)] {
        &self.nodes[node as usize].neighbours
    }

    /// Starts `node`'s HELLO timer, first firing at `at` (with HELLOs on). ns-3 starts it at a
    /// uniform 0-100 ms so that the nodes do not all say hello at once.
    pub fn start_hello(&mut self, node: NodeId, at: Time) {
        if self.hello.is_some() {
            self.out.push(AodvAction::HelloTimer { node, at });
        }
    }

    /// `node`'s HELLO timer fired (ns-3's `HelloTimerExpire`): a node that broadcast a RREQ
    /// since the last firing sends nothing and looks again one interval after that broadcast;
    /// otherwise it broadcasts a HELLO (§6.9) and looks again one interval from now.
    pub fn on_hello_timer(&mut self, node: NodeId, now: Time) {
        let Some(h) = self.hello else { return };
        let me = &mut self.nodes[node as usize];
        let at = match me.last_bcast.take() {
            Some(t) => t.saturating_add(h.interval).max(now),
            None => {
                // A RREP for itself: its own address as both destination and originator, its
                // current sequence number, hop count 0; sent with TTL 1 (`on_message` never
                // forwards it).
                let msg = AodvMsg::Rrep {
                    orig: node,
                    dst: node,
                    dst_seq: me.seq,
                    hops: 0,
                    lifetime: h.lifetime(),
                };
                self.stats.hellos += 1;
                self.out.push(AodvAction::Send {
                    node,
                    to: None,
                    msg,
                });
                now.saturating_add(h.interval)
            }
        };
        self.out.push(AodvAction::HelloTimer { node, at });
    }

    /// `node` heard from neighbour `nb` in a way that shows the link works for `lifetime` more:
    /// its neighbour-table entry lasts at least that long (ns-3's `Neighbors::Update`). A new
    /// neighbour triggers a purge, as in ns-3.
    fn touch_neighbour(&mut self, node: NodeId, nb: NodeId, lifetime: Time, now: Time) {
        if self.hello.is_none() {
            return;
        }
        let until = now.saturating_add(lifetime);
        let me = &mut self.nodes[node as usize];
        if let Some(e) = me.neighbours.iter_mut().find(|e| e.0 == nb) {
            e.1 = e.1.max(until);
            return;
        }
        me.neighbours.push((nb, until));
        self.purge(node, now, None);
    }

    /// Removes the neighbours of `node` whose entries expired, and `closed` (a neighbour the MAC
    /// gave up on) if it is in the table, breaking the link to each (ns-3's `Neighbors::Purge`);
    /// then schedules the next purge one HELLO_INTERVAL later. An empty table schedules none
    /// (the next new neighbour restarts the purges), as in ns-3.
    fn purge(&mut self, node: NodeId, now: Time, closed: Option<NodeId>) {
        let Some(h) = self.hello else { return };
        let me = &mut self.nodes[node as usize];
        if me.neighbours.is_empty() {
            return;
        }
        let mut lost = std::mem::take(&mut self.lost);
        me.neighbours.retain(|&(nb, until)| {
            // Expired strictly before now, as ns-3 compares: a HELLO arriving at the very
            // instant of the purge still counts.
            let gone = until < now || Some(nb) == closed;
            if gone {
                lost.push(nb);
            }
            !gone
        });
        me.purge_generation = me.purge_generation.wrapping_add(1);
        let generation = me.purge_generation;
        self.out.push(AodvAction::PurgeTimer {
            node,
            at: now.saturating_add(h.interval),
            generation,
        });
        for &nb in &lost {
            if Some(nb) != closed {
                self.stats.hello_losses += 1;
            }
            self.link_broken(node, nb);
            self.out.push(AodvAction::NeighbourLost { node, next: nb });
        }
        lost.clear();
        self.lost = lost;
    }

    /// `node`'s purge timer fired.
    pub fn on_purge_timer(&mut self, node: NodeId, generation: u32, now: Time) {
        if self.nodes[node as usize].purge_generation == generation {
            self.purge(node, now, None);
        }
    }

    /// With HELLOs on, the MAC of `node` gave up on a frame to `next`: the link breaks if
    /// `next` is in the neighbour table (ns-3's `Neighbors::ProcessTxError`, which closes the
    /// entries of that MAC address and purges); a neighbour already dropped from the table stays
    /// unbroken, as in ns-3.
    pub fn tx_failed(&mut self, node: NodeId, next: NodeId, now: Time) {
        self.purge(node, now, Some(next));
    }

    /// Relay `node` forwards a data packet from `src` to `next` (ns-3's `Forwarding`): the next
    /// hop and the reverse route's next hop towards `src` stay neighbours for
    /// ACTIVE_ROUTE_TIMEOUT. The source itself refreshes nothing (ns-3's `RouteOutput` does not).
    pub fn forwarded(&mut self, node: NodeId, src: NodeId, next: NodeId, now: Time) {
        if self.hello.is_none() {
            return;
        }
        self.touch_neighbour(node, next, ACTIVE_ROUTE_TIMEOUT, now);
        if let Some(prev) = self.nodes[node as usize].routes.get(&src).map(|r| r.next) {
            self.touch_neighbour(node, prev, ACTIVE_ROUTE_TIMEOUT, now);
        }
    }

    /// A data packet from `src` reached its destination `node` (ns-3's local delivery): the next
    /// hop of a valid route back to `src` stays a neighbour for ACTIVE_ROUTE_TIMEOUT.
    pub fn delivered(&mut self, node: NodeId, src: NodeId, now: Time) {
        if self.hello.is_none() {
            return;
        }
        let back = self.nodes[node as usize]
            .routes
            .get(&src)
            .filter(|r| r.valid)
            .map(|r| r.next);
        if let Some(prev) = back {
            self.touch_neighbour(node, prev, ACTIVE_ROUTE_TIMEOUT, now);
        }
    }

    /// The next hop at `node` towards `dst`, if a valid route exists; using it refreshes its
    /// lifetime (§6.2).
    pub fn next_hop(&mut self, node: NodeId, dst: NodeId, now: Time) -> Option<NodeId> {
        let r = self.nodes[node as usize].routes.get_mut(&dst)?;
        if !r.valid || r.expires <= now {
            r.valid = false;
            return None;
        }
        r.expires = r.expires.max(now.saturating_add(ACTIVE_ROUTE_TIMEOUT));
        Some(r.next)
    }

    /// Whether a discovery for `dst` is under way at `node`.
    pub fn discovering(&self, node: NodeId, dst: NodeId) -> bool {
        self.nodes[node as usize].discoveries.contains_key(&dst)
    }

    /// `node` needs a route to `dst` it does not have: start a discovery (§6.3).
    pub fn discover(&mut self, node: NodeId, dst: NodeId, now: Time) {
        if self.discovering(node, dst) {
            return;
        }
        self.stats.discoveries += 1;
        // §6.4: the ring starts at the hop count of an invalid route to `dst` plus
        // TTL_INCREMENT (a route that just broke is likely still about that long), else at
        // TTL_START; past TTL_THRESHOLD it is network-wide.
        let ttl = match self.nodes[node as usize].routes.get(&dst) {
            Some(r) if !r.valid => match r.hops.saturating_add(TTL_INCREMENT) {
                t if t > TTL_THRESHOLD => NET_DIAMETER,
                t => t,
            },
            _ => TTL_START,
        };
        let d = Discovery {
            attempt: 0,
            ttl,
            retries: 0,
        };
        self.nodes[node as usize].discoveries.insert(dst, d);
        self.send_rreq(node, dst, now);
    }

    fn send_rreq(&mut self, node: NodeId, dst: NodeId, now: Time) {
        let me = &mut self.nodes[node as usize];
        me.seq += 1;
        me.rreq_id += 1;
        let known = me.routes.get(&dst).filter(|r| r.valid_seq).map(|r| r.seq);
        let d = me.discoveries.get_mut(&dst).expect("discovery");
        d.attempt += 1;
        let ttl = d.ttl;
        // §6.4: wait RING_TRAVERSAL_TIME for a ring, NET_TRAVERSAL_TIME (doubling) network-wide.
        let wait = if ttl < NET_DIAMETER {
            2 * NODE_TRAVERSAL_TIME * (ttl as Time + TIMEOUT_BUFFER)
        } else {
            NET_TRAVERSAL_TIME << d.retries
        };
        let msg = AodvMsg::Rreq {
            orig: node,
            orig_seq: me.seq,
            id: me.rreq_id,
            dst,
            dst_seq: known.unwrap_or(0),
            unknown_seq: known.is_none(),
            hops: 0,
            ttl,
        };
        me.seen
            .insert((node, me.rreq_id), now.saturating_add(PATH_DISCOVERY_TIME));
        me.last_bcast = Some(now);
        let attempt = d.attempt;
        self.out.push(AodvAction::Send {
            node,
            to: None,
            msg,
        });
        self.out.push(AodvAction::Timer {
            node,
            dst,
            at: now.saturating_add(wait),
            attempt,
        });
    }

    /// A discovery timer fired.
    pub fn on_discovery_timeout(&mut self, node: NodeId, dst: NodeId, attempt: u32, now: Time) {
        let me = &mut self.nodes[node as usize];
        let Some(d) = me.discoveries.get_mut(&dst) else {
            return;
        };
        if d.attempt != attempt {
            return;
        }
        if d.ttl < NET_DIAMETER {
            d.ttl = if d.ttl + TTL_INCREMENT > TTL_THRESHOLD {
                NET_DIAMETER
            } else {
                d.ttl + TTL_INCREMENT
            };
        } else if d.retries < RREQ_RETRIES {
            d.retries += 1;
        } else {
            me.discoveries.remove(&dst);
            self.out.push(AodvAction::DiscoveryFailed { node, dst });
            return;
        }
        self.send_rreq(node, dst, now);
    }

    /// Installs or updates a route per §6.2 (fresher sequence number, or equal and shorter, or
    /// the old one unusable). Returns whether the table changed.
    #[allow(clippy::too_many_arguments)]
    fn update_route(
        &mut self,
        node: NodeId,
        dst: NodeId,
        next: NodeId,
        hops: u8,
        seq: Option<u32>,
        expires: Time,
    ) -> bool {
        let routes = &mut self.nodes[node as usize].routes;
        match routes.get_mut(&dst) {
            Some(r) => {
                let better = match (seq, r.valid_seq) {
                    (Some(s), true) => {
                        (s.wrapping_sub(r.seq) as i32) > 0
                            || (s == r.seq && (hops < r.hops || !r.valid))
                    }
                    (Some(_), false) => true,
                    (None, _) => !r.valid || hops < r.hops,
                };
                if better {
                    r.next = next;
                    r.hops = hops;
                    if let Some(s) = seq {
                        r.seq = s;
                        r.valid_seq = true;
                    }
                    r.valid = true;
                    r.expires = r.expires.max(expires);
                } else if r.valid && r.next == next {
                    r.expires = r.expires.max(expires);
                }
                better
            }
            None => {
                routes.insert(
                    dst,
                    Route {
                        next,
                        hops,
                        seq: seq.unwrap_or(0),
                        valid_seq: seq.is_some(),
                        valid: true,
                        expires,
                        precursors: Vec::new(),
                    },
                );
                true
            }
        }
    }

    fn add_precursor(&mut self, node: NodeId, dst: NodeId, precursor: NodeId) {
        if let Some(r) = self.nodes[node as usize].routes.get_mut(&dst) {
            if !r.precursors.contains(&precursor) {
                r.precursors.push(precursor);
            }
        }
    }

    /// The MAC of `node` gave up on a frame to `next`: every route through it breaks (§6.11).
    pub fn link_broken(&mut self, node: NodeId, next: NodeId) {
        self.stats.link_breaks += 1;
        let mut lost = Vec::new();
        for (&dst, r) in self.nodes[node as usize].routes.iter_mut() {
            if r.valid && r.next == next {
                r.valid = false;
                r.seq = r.seq.wrapping_add(1);
                if !r.precursors.is_empty() {
                    lost.push((dst, r.seq));
                }
            }
        }
        self.send_rerr(node, &lost);
    }

    /// `node` must forward a packet to `dst` but has no valid route (§6.11 case (ii)): it
    /// reports `dst` unreachable with a RERR, with the sequence number of its invalid route if it
    /// has one, so the upstream nodes routing through it drop their routes and the source
    /// rediscovers.
    pub fn no_route_to_forward(&mut self, node: NodeId, dst: NodeId) {
        let seq = self.nodes[node as usize]
            .routes
            .get(&dst)
            .map_or(0, |r| r.seq);
        self.send_rerr(node, &[(dst, seq)]);
    }

    fn send_rerr(&mut self, node: NodeId, lost: &[(NodeId, u32)]) {
        for chunk in lost.chunks(RERR_MAX) {
            let mut unreachable = [(0, 0); RERR_MAX];
            unreachable[..chunk.len()].copy_from_slice(chunk);
            let msg = AodvMsg::Rerr {
                count: chunk.len() as u8,
                unreachable,
            };
            self.stats.errors += 1;
            self.out.push(AodvAction::Send {
                node,
                to: None,
                msg,
            });
        }
    }
}

pub mod config;
mod messages;

#[cfg(test)]
mod tests;
