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

    /// `node` received `msg` from neighbour `from`.
    pub fn on_message(&mut self, node: NodeId, from: NodeId, msg: AodvMsg, now: Time) {
        // Every control message gives a route to the neighbour it came from.
        self.update_route(
            node,
            from,
            from,
            1,
            None,
            now.saturating_add(ACTIVE_ROUTE_TIMEOUT),
        );
        match msg {
            AodvMsg::Rreq {
                orig,
                orig_seq,
                id,
                dst,
                dst_seq,
                unknown_seq,
                hops,
                ttl,
            } => self.on_rreq(
                node,
                from,
                now,
                (orig, orig_seq, id, dst, dst_seq, unknown_seq, hops, ttl),
            ),
            // A RREP for its own sender is a HELLO (§6.9).
            AodvMsg::Rrep {
                orig,
                dst,
                dst_seq,
                lifetime,
                ..
            } if orig == dst => self.on_hello(node, dst, dst_seq, lifetime, now),
            AodvMsg::Rrep {
                orig,
                dst,
                dst_seq,
                hops,
                lifetime,
            } => self.on_rrep(node, from, now, orig, dst, dst_seq, hops, lifetime),
            AodvMsg::Rerr { count, unreachable } => {
                self.on_rerr(node, from, &unreachable[..count as usize])
            }
        }
    }

    /// A HELLO from neighbour `nb` (ns-3's `ProcessHello`): an active one-hop route to it, with
    /// its sequence number, lasting at least the HELLO's lifetime (§6.9), and its entry in the
    /// neighbour table refreshed for ALLOWED_HELLO_LOSS x HELLO_INTERVAL.
    fn on_hello(&mut self, node: NodeId, nb: NodeId, seq: u32, lifetime: Time, now: Time) {
        let until = now.saturating_add(lifetime);
        let r = self.nodes[node as usize]
            .routes
            .entry(nb)
            .or_insert_with(|| Route {
                next: nb,
                hops: 1,
                seq,
                valid_seq: true,
                valid: true,
                expires: until,
                precursors: Vec::new(),
            });
        r.next = nb;
        r.hops = 1;
        r.seq = seq;
        r.valid_seq = true;
        r.valid = true;
        r.expires = r.expires.max(until);
        if let Some(h) = self.hello {
            self.touch_neighbour(node, nb, h.lifetime(), now);
        }
    }

    #[allow(clippy::type_complexity)]
    fn on_rreq(
        &mut self,
        node: NodeId,
        from: NodeId,
        now: Time,
        (orig, orig_seq, id, dst, dst_seq, unknown_seq, hops, ttl): (
            NodeId,
            u32,
            u32,
            NodeId,
            u32,
            bool,
            u8,
            u8,
        ),
    ) {
        if orig == node {
            return;
        }
        let me = &mut self.nodes[node as usize];
        me.seen.retain(|_, exp| *exp > now);
        if me.seen.contains_key(&(orig, id)) {
            return;
        }
        me.seen
            .insert((orig, id), now.saturating_add(PATH_DISCOVERY_TIME));
        let hops = hops.saturating_add(1);
        // Reverse route (§6.5).
        let lifetime = now
            .saturating_add(2 * NET_TRAVERSAL_TIME)
            .saturating_sub(2 * hops as Time * NODE_TRAVERSAL_TIME);
        self.update_route(node, orig, from, hops, Some(orig_seq), lifetime);
        // ns-3's `RecvRequest` counts a (new) RREQ as a sign of life of its sender, like a HELLO.
        if let Some(h) = self.hello {
            self.touch_neighbour(node, from, h.lifetime(), now);
        }
        if dst == node {
            // §6.6.1: the destination answers with a fresh sequence number.
            let me = &mut self.nodes[node as usize];
            if !unknown_seq && dst_seq == me.seq.wrapping_add(1) {
                me.seq = me.seq.wrapping_add(1);
            }
            if !unknown_seq && (dst_seq.wrapping_sub(me.seq) as i32) > 0 {
                me.seq = dst_seq;
            }
            let msg = AodvMsg::Rrep {
                orig,
                dst: node,
                dst_seq: me.seq,
                hops: 0,
                lifetime: MY_ROUTE_TIMEOUT,
            };
            self.stats.replies += 1;
            self.out.push(AodvAction::Send {
                node,
                to: Some(from),
                msg,
            });
            return;
        }
        // §6.6.2: an intermediate node with a fresh enough valid route answers for it.
        if let Some(r) = self.nodes[node as usize].routes.get(&dst) {
            let fresh = r.valid_seq && (unknown_seq || (r.seq.wrapping_sub(dst_seq) as i32) >= 0);
            if r.valid && r.expires > now && fresh {
                let (next, rhops, rseq, rexp) = (r.next, r.hops, r.seq, r.expires);
                self.add_precursor(node, dst, from);
                self.add_precursor(node, orig, next);
                let msg = AodvMsg::Rrep {
                    orig,
                    dst,
                    dst_seq: rseq,
                    hops: rhops,
                    lifetime: rexp - now,
                };
                self.stats.replies += 1;
                self.out.push(AodvAction::Send {
                    node,
                    to: Some(from),
                    msg,
                });
                return;
            }
        }
        if ttl > 1 {
            let known = self.nodes[node as usize]
                .routes
                .get(&dst)
                .filter(|r| r.valid_seq)
                .map(|r| r.seq);
            let dst_seq = match known {
                Some(k) if unknown_seq || (k.wrapping_sub(dst_seq) as i32) > 0 => k,
                _ => dst_seq,
            };
            let msg = AodvMsg::Rreq {
                orig,
                orig_seq,
                id,
                dst,
                dst_seq,
                unknown_seq: unknown_seq && known.is_none(),
                hops,
                ttl: ttl - 1,
            };
            self.nodes[node as usize].last_bcast = Some(now);
            self.out.push(AodvAction::Send {
                node,
                to: None,
                msg,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn on_rrep(
        &mut self,
        node: NodeId,
        from: NodeId,
        now: Time,
        orig: NodeId,
        dst: NodeId,
        dst_seq: u32,
        hops: u8,
        lifetime: Time,
    ) {
        let hops = hops.saturating_add(1);
        self.update_route(
            node,
            dst,
            from,
            hops,
            Some(dst_seq),
            now.saturating_add(lifetime),
        );
        if orig == node {
            if self.nodes[node as usize].discoveries.remove(&dst).is_some() {
                self.out.push(AodvAction::RouteReady { node, dst });
            }
            return;
        }
        let Some(rev) = self.nodes[node as usize].routes.get(&orig) else {
            return;
        };
        if !rev.valid {
            return;
        }
        let next = rev.next;
        self.add_precursor(node, dst, next);
        self.add_precursor(node, orig, from);
        let msg = AodvMsg::Rrep {
            orig,
            dst,
            dst_seq,
            hops,
            lifetime,
        };
        self.out.push(AodvAction::Send {
            node,
            to: Some(next),
            msg,
        });
        // A node that was itself looking for `dst` can use the route as well.
        if self.nodes[node as usize].discoveries.remove(&dst).is_some() {
            self.out.push(AodvAction::RouteReady { node, dst });
        }
    }

    fn on_rerr(&mut self, node: NodeId, from: NodeId, unreachable: &[(NodeId, u32)]) {
        let mut lost = Vec::new();
        for &(dst, seq) in unreachable {
            if let Some(r) = self.nodes[node as usize].routes.get_mut(&dst) {
                if r.valid && r.next == from {
                    r.valid = false;
                    r.seq = seq;
                    r.valid_seq = true;
                    if !r.precursors.is_empty() {
                        lost.push((dst, seq));
                    }
                }
            }
        }
        self.send_rerr(node, &lost);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Delivers every Send action to the sender's neighbours on a line 0-1-2-..-(n-1), like a
    /// loss-free medium, until nothing is left; returns how many messages were sent.
    fn flood_line(a: &mut Aodv, n: u32, now: Time) -> usize {
        let mut sent = 0;
        while !a.out.is_empty() {
            let actions = std::mem::take(&mut a.out);
            for act in actions {
                if let AodvAction::Send { node, to, msg } = act {
                    sent += 1;
                    let neighbours: Vec<NodeId> = [node.wrapping_sub(1), node + 1]
                        .into_iter()
                        .filter(|&x| x < n)
                        .collect();
                    for nb in neighbours {
                        if to.is_none() || to == Some(nb) {
                            a.on_message(nb, node, msg, now);
                        }
                    }
                }
            }
        }
        sent
    }

    #[test]
    fn discovery_on_a_line_builds_forward_and_reverse_routes() {
        let mut a = Aodv::new(5);
        a.discover(0, 4, 0);
        // TTL 1 reaches only node 1: no reply yet.
        flood_line(&mut a, 5, 0);
        assert_eq!(a.next_hop(0, 4, 0), None);
        a.on_discovery_timeout(0, 4, 1, 10 * MILLIS);
        flood_line(&mut a, 5, 10 * MILLIS);
        // TTL 3 reaches node 3, still not 4; then TTL 5 does.
        assert_eq!(a.next_hop(0, 4, 10 * MILLIS), None);
        a.on_discovery_timeout(0, 4, 2, 20 * MILLIS);
        flood_line(&mut a, 5, 20 * MILLIS);
        assert_eq!(a.next_hop(0, 4, 20 * MILLIS), Some(1));
        assert_eq!(a.next_hop(2, 4, 20 * MILLIS), Some(3));
        assert_eq!(a.next_hop(4, 0, 20 * MILLIS), Some(3));
        assert_eq!(a.nodes[0].routes[&4].hops, 4);
    }

    #[test]
    fn a_link_break_invalidates_routes_and_warns_precursors() {
        let mut a = Aodv::new(4);
        a.discover(0, 3, 0);
        for attempt in 1..=3 {
            flood_line(&mut a, 4, 0);
            if a.next_hop(0, 3, 0).is_some() {
                break;
            }
            a.on_discovery_timeout(0, 3, attempt, 0);
        }
        assert_eq!(a.next_hop(0, 3, 0), Some(1));
        // Node 1 loses node 2: its route to 3 breaks and node 0 hears of it.
        a.link_broken(1, 2);
        flood_line(&mut a, 4, 1);
        assert_eq!(a.next_hop(1, 3, 1), None);
        assert_eq!(a.next_hop(0, 3, 1), None);
        assert!(a.stats.errors >= 1);
        // §6.4: rediscovering the broken 3-hop route starts the ring at 3 + TTL_INCREMENT.
        a.out.clear();
        a.discover(0, 3, 2);
        let ttl_of = |out: &[AodvAction]| match out[0] {
            AodvAction::Send {
                msg: AodvMsg::Rreq { ttl, .. },
                ..
            } => ttl,
            _ => unreachable!(),
        };
        assert_eq!(ttl_of(&a.out), 5);
        // A destination never heard of starts at TTL_START.
        let mut fresh = Aodv::new(4);
        fresh.discover(0, 3, 0);
        assert_eq!(ttl_of(&fresh.out), TTL_START);
    }

    #[test]
    fn without_a_route_to_forward_a_node_reports_the_destination() {
        let mut a = Aodv::new(3);
        a.no_route_to_forward(1, 2);
        assert!(matches!(
            a.out[..],
            [AodvAction::Send {
                node: 1,
                to: None,
                msg: AodvMsg::Rerr { count: 1, unreachable, .. },
            }] if unreachable[0] == (2, 0)
        ));
    }

    #[test]
    fn duplicate_requests_are_dropped_and_discovery_gives_up() {
        let mut a = Aodv::new(2);
        a.discover(0, 1, 0);
        let msg = match a.out[0] {
            AodvAction::Send { msg, .. } => msg,
            _ => unreachable!(),
        };
        a.out.clear();
        a.on_message(1, 0, msg, 0);
        let replies = a.out.len();
        a.on_message(1, 0, msg, 1);
        assert_eq!(
            a.out.len(),
            replies,
            "a duplicate RREQ must not be answered twice"
        );
        // With nobody answering, discovery ends after the ring search and the retries.
        let mut b = Aodv::new(3);
        b.discover(0, 2, 0);
        let mut fails = 0;
        for attempt in 1..20 {
            b.out.clear();
            b.on_discovery_timeout(0, 2, attempt, attempt as Time * 1_000 * MILLIS);
            fails += b
                .out
                .iter()
                .filter(|x| matches!(x, AodvAction::DiscoveryFailed { .. }))
                .count();
        }
        assert_eq!(fails, 1);
        assert!(!b.discovering(0, 2));
    }

    /// ns-3 3.44's defaults: a HELLO every second, a neighbour lost after two missed.
    const HELLO: HelloParams = HelloParams {
        interval: 1_000 * MILLIS,
        allowed_loss: 2,
    };
    /// How long a message takes from its sender to a neighbour in [`Line`] (standing in for the
    /// network layer's jitter and the air).
    const HOP: Time = MILLIS;

    #[derive(Debug, Clone, Copy)]
    enum Ev {
        Hello(NodeId),
        Purge(NodeId, u32),
        Discovery(NodeId, NodeId, u32),
        Receive(NodeId, NodeId, AodvMsg),
    }

    /// A packet-trace driver for the protocol alone: a line 0-1-..-(n-1) on which every message
    /// reaches the sender's live neighbours [`HOP`] after it is sent, and the protocol's timers
    /// fire on time; a dead node neither sends, receives nor runs timers.
    struct Line {
        a: Aodv,
        n: u32,
        alive: Vec<bool>,
        now: Time,
        events: BTreeMap<(Time, u64), Ev>,
        order: u64,
        /// (time, sender, addressee, message) of every message sent.
        sent: Vec<(Time, NodeId, Option<NodeId>, AodvMsg)>,
        /// (time, node, neighbour) of every neighbour lost.
        lost: Vec<(Time, NodeId, NodeId)>,
    }

    impl Line {
        /// `n` nodes, each starting its HELLO timer at 30 ms x (its index + 1).
        fn new(n: u32, hello: Option<HelloParams>) -> Self {
            let mut l = Line {
                a: Aodv::with_hello(n as usize, hello),
                n,
                alive: vec![true; n as usize],
                now: 0,
                events: BTreeMap::new(),
                order: 0,
                sent: Vec::new(),
                lost: Vec::new(),
            };
            for node in 0..n {
                l.a.start_hello(node, (node as Time + 1) * 30 * MILLIS);
            }
            l.settle();
            l
        }

        fn at(&mut self, t: Time, ev: Ev) {
            self.events.insert((t, self.order), ev);
            self.order += 1;
        }

        /// Carries out what the protocol asked for.
        fn settle(&mut self) {
            for act in std::mem::take(&mut self.a.out) {
                match act {
                    AodvAction::Send { node, to, msg } => {
                        self.sent.push((self.now, node, to, msg));
                        for nb in [node.wrapping_sub(1), node + 1] {
                            let hears = nb < self.n && self.alive[nb as usize];
                            if hears && (to.is_none() || to == Some(nb)) {
                                self.at(self.now + HOP, Ev::Receive(nb, node, msg));
                            }
                        }
                    }
                    AodvAction::HelloTimer { node, at } => self.at(at, Ev::Hello(node)),
                    AodvAction::PurgeTimer {
                        node,
                        at,
                        generation,
                    } => self.at(at, Ev::Purge(node, generation)),
                    AodvAction::Timer {
                        node,
                        dst,
                        at,
                        attempt,
                    } => self.at(at, Ev::Discovery(node, dst, attempt)),
                    AodvAction::NeighbourLost { node, next } => {
                        self.lost.push((self.now, node, next))
                    }
                    AodvAction::RouteReady { .. } | AodvAction::DiscoveryFailed { .. } => {}
                }
            }
        }

        /// Runs the events up to `until` and stops there.
        fn run(&mut self, until: Time) {
            while let Some((&(t, order), &ev)) = self.events.iter().next() {
                if t > until {
                    break;
                }
                self.events.remove(&(t, order));
                self.now = t;
                let node = match ev {
                    Ev::Hello(n) | Ev::Purge(n, _) | Ev::Discovery(n, ..) | Ev::Receive(n, ..) => n,
                };
                if !self.alive[node as usize] {
                    continue;
                }
                match ev {
                    Ev::Hello(n) => self.a.on_hello_timer(n, t),
                    Ev::Purge(n, g) => self.a.on_purge_timer(n, g, t),
                    Ev::Discovery(n, dst, attempt) => {
                        self.a.on_discovery_timeout(n, dst, attempt, t)
                    }
                    Ev::Receive(n, from, msg) => self.a.on_message(n, from, msg, t),
                }
                self.settle();
            }
            self.now = until;
        }

        /// When `node` sent its HELLOs.
        fn hellos_from(&self, node: NodeId) -> Vec<Time> {
            self.sent
                .iter()
                .filter(|&&(_, from, _, msg)| {
                    from == node && matches!(msg, AodvMsg::Rrep { orig, dst, .. } if orig == dst)
                })
                .map(|s| s.0)
                .collect()
        }
    }

    fn ms(t: &[Time]) -> Vec<Time> {
        t.iter().map(|&x| x * MILLIS).collect()
    }

    #[test]
    fn a_node_says_hello_every_interval_unless_it_broadcast_a_rreq() {
        let mut l = Line::new(3, Some(HELLO));
        l.run(1_500 * MILLIS);
        // Node 1 looks for node 2 at 1.5 s: its RREQ stands in for the HELLO it would send at
        // 2.06 s, and it looks again one interval after the RREQ, at 2.5 s.
        l.a.discover(1, 2, l.now);
        l.settle();
        l.run(3_600 * MILLIS);
        assert_eq!(l.hellos_from(0), ms(&[30, 1_030, 2_030, 3_030]));
        assert_eq!(l.hellos_from(1), ms(&[60, 1_060, 2_500, 3_500]));
        assert_eq!(l.hellos_from(2), ms(&[90, 1_090, 2_090, 3_090]));
        // A HELLO is a broadcast RREP for its sender, with the sender's sequence number (node 1
        // raised its own for the RREQ), hop count 0 and lifetime ALLOWED_HELLO_LOSS x
        // HELLO_INTERVAL.
        let hello_of_1 = l.sent.iter().find(|s| s.0 == 2_500 * MILLIS).unwrap();
        assert_eq!(
            (hello_of_1.1, hello_of_1.2, hello_of_1.3),
            (
                1,
                None,
                AodvMsg::Rrep {
                    orig: 1,
                    dst: 1,
                    dst_seq: 1,
                    hops: 0,
                    lifetime: 2_000 * MILLIS,
                }
            )
        );
        assert_eq!(l.a.stats.hellos, 12);
        // Hearing one makes a one-hop route to the sender and a neighbour-table entry that
        // lasts two intervals from the last HELLO heard (node 1's at 3.5 s, heard at 3.501 s).
        assert_eq!(l.a.neighbours(1).len(), 2);
        assert!(l.a.neighbours(0).contains(&(1, 5_501 * MILLIS)));
        let r = &l.a.nodes[0].routes[&1];
        assert!(r.valid && r.next == 1 && r.hops == 1 && r.valid_seq && r.seq == 1);

        // With HELLOs off, nothing is sent and nobody keeps a neighbour table.
        let mut off = Line::new(3, None);
        for node in 0..3 {
            off.a.on_hello_timer(node, 0);
        }
        off.settle();
        off.run(5_000 * MILLIS);
        assert!(off.sent.is_empty());
        assert!(off.a.neighbours(1).is_empty());
    }

    #[test]
    fn a_neighbour_that_falls_silent_is_lost_and_its_routes_break_with_a_rerr() {
        // 0 - 1 - 2 - 3: 0 finds a route to 3 through 1 and 2; 2 dies at 5 s. No data flows, so
        // only missing HELLOs can tell its neighbours.
        let mut l = Line::new(4, Some(HELLO));
        l.run(500 * MILLIS);
        l.a.discover(0, 3, l.now);
        l.settle();
        l.run(5_000 * MILLIS);
        assert_eq!(l.a.nodes[0].routes[&3].next, 1);
        assert_eq!(l.a.nodes[1].routes[&3].precursors, [0]);
        assert!(l.lost.is_empty(), "{:?}", l.lost);
        l.alive[2] = false;
        let last = *l.hellos_from(2).last().unwrap();
        assert_eq!(last, 4_090 * MILLIS);
        l.run(9_000 * MILLIS);

        // Its entries at 1 and 3 expired at 4.091 + 2 s; each node's next purge (every second
        // after its last one) finds that: 1 and 3 lose 2, and nobody loses anyone else.
        let lost: Vec<(NodeId, NodeId)> = l.lost.iter().map(|&(_, n, nb)| (n, nb)).collect();
        assert_eq!(lost.len(), 2, "{:?}", l.lost);
        assert!(lost.contains(&(1, 2)) && lost.contains(&(3, 2)));
        for &(t, ..) in &l.lost {
            assert!(t > last + HOP + 2 * HELLO.interval, "{t}");
            assert!(t <= last + HOP + 3 * HELLO.interval, "{t}");
        }
        assert_eq!(l.a.stats.hello_losses, 2);
        assert_eq!(l.a.stats.link_breaks, 2);

        // 1's route to 3 went through 2 and had 0 as precursor: 1 broadcasts a RERR for 3 with
        // the sequence number raised, and 0, whose route to 3 goes through 1, drops it too.
        let (t1, ..) = *l.lost.iter().find(|x| x.1 == 1).unwrap();
        let rerr: Vec<_> = l
            .sent
            .iter()
            .filter(|s| matches!(s.3, AodvMsg::Rerr { .. }))
            .collect();
        assert_eq!(rerr.len(), 1, "{rerr:?}");
        let seq3 = l.a.nodes[1].routes[&3].seq;
        let mut unreachable = [(0, 0); RERR_MAX];
        unreachable[0] = (3, seq3);
        assert_eq!(
            *rerr[0],
            (
                t1,
                1,
                None,
                AodvMsg::Rerr {
                    count: 1,
                    unreachable
                }
            )
        );
        assert!(!l.a.nodes[1].routes[&3].valid && !l.a.nodes[1].routes[&2].valid);
        assert!(!l.a.nodes[0].routes[&3].valid);
        assert_eq!(l.a.next_hop(0, 3, l.now), None);
        // 0 and 1 still hear each other.
        assert!(l.a.nodes[0].routes[&1].valid);
    }

    #[test]
    fn with_hellos_the_mac_breaks_links_only_to_neighbours_in_the_table() {
        let mut l = Line::new(3, Some(HELLO));
        l.run(1_500 * MILLIS);
        // 0 never heard 2 (not its neighbour on the line): a MAC failure towards it breaks nothing.
        l.a.tx_failed(0, 2, l.now);
        l.settle();
        assert!(l.lost.is_empty());
        assert_eq!(l.a.stats.link_breaks, 0);
        // 1 has 2 in its table: the failure breaks the link at once (not a missed HELLO).
        l.a.tx_failed(1, 2, l.now);
        l.settle();
        assert_eq!(l.lost, [(1_500 * MILLIS, 1, 2)]);
        assert_eq!((l.a.stats.link_breaks, l.a.stats.hello_losses), (1, 0));
        assert_eq!(l.a.neighbours(1).len(), 1);
        // 2 is still alive: its next HELLO (2.09 s) puts it back.
        l.run(2_100 * MILLIS);
        assert_eq!(l.a.neighbours(1).len(), 2);

        // A relay forwarding data to a neighbour keeps it in the table for ACTIVE_ROUTE_TIMEOUT
        // after the last packet, HELLOs or not (ns-3's `Forwarding`): 2 dies at 2.1 s, 1 goes on
        // forwarding to it (as 0's relay) until 4 s, and loses it only once 3 s have passed since.
        l.alive[2] = false;
        let mut t = 2_100 * MILLIS;
        while t <= 4_000 * MILLIS {
            l.run(t);
            l.a.forwarded(1, 0, 2, t);
            l.settle();
            t += 100 * MILLIS;
        }
        l.run(8_000 * MILLIS);
        assert_eq!(l.lost.len(), 2, "{:?}", l.lost);
        let (when, node, nb) = l.lost[1];
        assert_eq!((node, nb), (1, 2));
        assert!(when > 7_000 * MILLIS && when <= 8_000 * MILLIS, "{when}");
    }
}
