//! AODV's control messages as a node receives them (RFC 3561 §6.5-6.9, §6.11): RREQs answered
//! or forwarded, RREPs turned into forward routes, HELLOs into neighbours, RERRs into broken
//! routes. The tables and timers they change are in the parent module.

use super::{
    Aodv, AodvAction, AodvMsg, Route, ACTIVE_ROUTE_TIMEOUT, MY_ROUTE_TIMEOUT, NET_TRAVERSAL_TIME,
    NODE_TRAVERSAL_TIME, PATH_DISCOVERY_TIME,
};
use crate::sim::{NodeId, Time};

impl Aodv {
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
    pub(super) fn on_hello(
        &mut self,
        node: NodeId,
        nb: NodeId,
        seq: u32,
        lifetime: Time,
        now: Time,
    ) {
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
    pub(super) fn on_rreq(
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
    pub(super) fn on_rrep(
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

    pub(super) fn on_rerr(&mut self, node: NodeId, from: NodeId, unreachable: &[(NodeId, u32)]) {
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
}
