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
//! - route maintenance (§6.11): a link break is detected when the MAC gives up on a frame to the
//!   next hop (link-layer feedback, no HELLOs); routes through it are invalidated with their
//!   destination sequence numbers incremented and a RERR is broadcast to the precursors; a RERR
//!   received from a route's next hop invalidates it and is propagated.
//!
//! Deviations: no HELLO messages (link-layer detection instead, as the issue asks and ns-2 does by
//! default); packets queued at a node whose link broke are re-routed from that node, starting a
//! new discovery there (like ns-2's local repair, without its hop-count condition); no
//! gratuitous RREPs, no RREP-ACK, no RREQ rate limit; control messages are broadcast with a
//! uniform 0-10 ms jitter (ns-2 and ns-3 do the same) so that neighbours do not rebroadcast in
//! lock step. Message sizes per §5 (RREQ 24, RREP 20, RERR 4 + 8 per destination bytes) plus
//! 28 bytes of IP/UDP header. With `routing.min_delivery` above 0 (the default) a node ignores
//! control messages that reach it over a link below that delivery threshold, so that routes are
//! made of links that carry data at their rate (`net::on_demand`, docs/aodv.md).

use std::collections::BTreeMap;

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
/// Most unreachable destinations one RERR carries (more are sent in several RERRs).
pub const RERR_MAX: usize = 4;
/// IP + UDP header bytes of a control message.
const IP_UDP: u32 = 28;

/// A control message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AodvMsg {
    /// Route request.
    Rreq {
        /// Originator.
        orig: NodeId,
        /// Originator's sequence number.
        orig_seq: u32,
        /// RREQ ID.
        id: u32,
        /// Destination sought.
        dst: NodeId,
        /// Last known destination sequence number.
        dst_seq: u32,
        /// No sequence number known for the destination (U flag).
        unknown_seq: bool,
        /// Hops travelled.
        hops: u8,
        /// Remaining time to live.
        ttl: u8,
    },
    /// Route reply.
    Rrep {
        /// Originator of the RREQ (where the reply goes).
        orig: NodeId,
        /// Destination the route leads to.
        dst: NodeId,
        /// Destination sequence number.
        dst_seq: u32,
        /// Hops to the destination.
        hops: u8,
        /// Route lifetime.
        lifetime: Time,
    },
    /// Route error.
    Rerr {
        /// Entries used in `unreachable`.
        count: u8,
        /// (destination, its sequence number).
        unreachable: [(NodeId, u32); RERR_MAX],
    },
}

impl AodvMsg {
    /// Bytes on the wire including the IP/UDP header.
    pub fn size(&self) -> u32 {
        IP_UDP
            + match self {
                AodvMsg::Rreq { .. } => 24,
                AodvMsg::Rrep { .. } => 20,
                AodvMsg::Rerr { count, .. } => 4 + 8 * *count as u32,
            }
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
    /// Link breaks detected.
    pub link_breaks: u64,
    /// Control messages ignored because they came over a link below the routing's delivery
    /// threshold (`net::on_demand`).
    pub ignored: u64,
}

impl Aodv {
    /// AODV for `n` nodes.
    pub fn new(n: usize) -> Self {
        Aodv {
            nodes: vec![AodvNode::default(); n],
            out: Vec::new(),
            stats: AodvStats::default(),
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
}
