//! The coding layer's hooks on the forwarding seam ([`Forwarding`]): what it does when a packet
//! arrives, when a radio can send, when a frame is heard or its fate is known, on its timers and
//! when a node fails; the state and the coding decisions are in the parent module.

use super::bfly::NO_NODE;
use super::node::NEVER;
use super::{
    queued_id, slot, CodingRow, Cope, InMac, Knowing, NativeMeta, QueueKind, Recovery, Scheme,
    CONTROL_IP_BYTES, NO_SEQ, TABLE, TAG_CONTROL, TAG_DATA,
};
use crate::mac::frame::{Frame, RadioId, NO_UNIT};
use crate::metrics::results::LayerTable;
use crate::net::forwarding::{
    Forwarding, ForwardingCtx, Frames, Heard, LayerNeeds, LayerWriter, MacView, Route, TxStatus,
    TxUnit,
};
use crate::net::routing::Iface;
use crate::net::wireless::NO_RADIO;
use crate::sim::packet::{DropReason, Header};
use crate::sim::{NodeId, PacketId, Time};

impl Forwarding for Cope {
    fn name(&self) -> &'static str {
        match self.params.scheme {
            Scheme::Cope => "cope",
            Scheme::Bfly => "bfly",
        }
    }

    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            packets: true,
            pulls: true,
            frames: Frames::ReceivedAndOverheard,
            mac_outcomes: true,
            // A coded frame is one unit of natives meant for several neighbours, sent to one
            // and overheard by the rest; a Block Ack agreement is between two radios and
            // reorders what it carries. COPE's frames stay single, outside the agreement, as
            // the paper's 802.11a/b testbed sent them.
            aggregates: false,
        }
    }

    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        let hop = match ctx.route(node, id) {
            Route::Via(hop) => hop,
            Route::Taken => return,
            Route::Unreachable => return ctx.drop_at_node(node, id, DropReason::NoRoute),
        };
        let Iface::Radio(r) = hop.iface else {
            // Coding runs over radios only (the scenario's checks): anything else goes as is.
            return ctx.push(hop, id);
        };
        let previous = ctx.previous_hop().unwrap_or(node);
        // BFLY reads the hop after the next one from the routes (at the next hop).
        let after_next = if self.params.scheme == Scheme::Bfly && ctx.packet(id).dst != hop.node {
            match ctx.route(hop.node, id) {
                Route::Via(h) => h.node,
                _ => NO_NODE,
            }
        } else {
            NO_NODE
        };
        let arrived = ctx.now();
        let p = ctx.packet_mut(id);
        p.next_hop = hop.node;
        let ack = matches!(p.header, Header::TcpAck(_));
        let uid = p.uid;
        *self.meta_mut(id) = NativeMeta {
            uid,
            previous,
            arrived,
            retries: 0,
            stream: p.flow.wrapping_mul(2) | u32::from(ack),
            solo: ack && !self.params.code_acks,
            next_hop: hop.node,
            after_next,
            partner: None,
            relay: None,
            paired: false,
        };
        let waiting = self
            .pending
            .iter()
            .enumerate()
            .find_map(|(i, pp)| Some((i, pp.slot_of(node, uid)?)));
        let first = match waiting {
            None => id,
            Some((i, k)) => {
                // A relay copy of a BFLY pair: held, never coded again; queued with its partner.
                let pp = &mut self.pending[i];
                pp.ids[k] = Some(id);
                let (coder, seq) = (pp.coder, pp.seqs[k]);
                let m = &mut self.meta[slot(id)];
                m.solo = true;
                m.relay = (seq != NO_SEQ).then_some((coder, seq));
                let Some((a, b)) = pp.both() else {
                    // The first copy: held until its partner comes (queueing counts the second).
                    self.nodes[node as usize].held += 1;
                    return;
                };
                self.pending.swap_remove(i);
                self.meta[slot(a)].partner = Some(b);
                a
            }
        };
        let next_hop = self.meta[slot(first)].next_hop;
        if self.enqueue(node, r, first, next_hop, false, ctx) {
            let backlog = self.queues[node as usize].len();
            ctx.radio_enqueued(r, backlog);
            ctx.wake(r);
        }
    }

    fn has_pending(&self, radio: RadioId, _now: Time) -> bool {
        let node = self.radio_node[radio as usize] as usize;
        !self.queues[node].is_empty() || self.nodes[node].control_due
    }

    fn pull(&mut self, radio: RadioId, mut mac: MacView<'_>) -> Option<TxUnit> {
        let node = self.radio_node[radio as usize];
        let now = mac.now;
        self.choose(node, now);
        let chosen = std::mem::take(&mut self.scratch.chosen);
        let mut natives = std::mem::take(&mut self.scratch.natives);
        natives.clear();
        natives.extend(chosen.iter().map(|n| (queued_id(n), n.next_hop)));
        let data = !chosen.is_empty();
        if !data && !self.nodes[node as usize].control_due {
            self.scratch.chosen = chosen;
            self.scratch.natives = natives;
            return None;
        }
        let header_size = self.take_header(node, chosen.len(), now);
        let (tag, size, to) = if data {
            let longest = natives
                .iter()
                .map(|&(id, _)| mac.packet(id).size)
                .max()
                .unwrap_or(0);
            (TAG_DATA, longest + header_size, chosen[0].next_hop)
        } else {
            // A control packet: MAC-unicast to a coder it acknowledges (MAC-reliable), else a
            // broadcast of the report.
            let to = self.scratch.acks.first().map_or(NodeId::MAX, |&(c, _)| c);
            (TAG_CONTROL, CONTROL_IP_BYTES + header_size, to)
        };
        let header = LayerWriter::new().u8(tag).u32(node).finish();
        let unit = mac.coded(node, to, header, size, &natives);
        self.keep_frame_info(unit.unit);
        // A BFLY pair: its first hop (both natives to one relay) or its second (the relay
        // forwards it; its natives are relay copies).
        let two_hop = chosen.len() == 2 && chosen[0].next_hop == chosen[1].next_hop;
        let pair = two_hop || (chosen.len() == 2 && self.meta[chosen[0].id as usize].solo);
        self.frames[unit.unit as usize].two_hop = two_hop;
        let st = &mut self.nodes[node as usize];
        if data {
            st.row.count_frame(chosen.len());
            st.row.bfly_pairs += u64::from(two_hop);
            st.row.bfly_forwarded += u64::from(pair && !two_hop);
        } else {
            st.row.control_packets += 1;
            st.row.control_bytes += u64::from(size);
            st.row.control_airtime_s += st.airtime_s(size, to);
        }
        // Natives the MAC settles: a frame of one native; a BFLY pair without recovery.
        let by_mac = chosen.len() == 1 || (pair && self.params.recovery == Recovery::None);
        let mut settled_by_mac = [None; 2];
        for (k, n) in chosen.iter().enumerate() {
            let id = queued_id(n);
            let m = &mut self.meta[slot(id)];
            if m.previous == node {
                // Its own native, once on the air: in its pool (to decode with), not reported
                // (its neighbours know the sender holds it).
                st.knowledge.pool.add(m.uid, now);
            }
            let seq = if by_mac {
                settled_by_mac[k] = Some(id);
                NO_SEQ
            } else if two_hop {
                // The decoders' ACKs come back through the relay once it has forwarded the pair,
                // after its own queue: wait up to T (the decoders' pools forget the partners
                // then), 2 Ta once the relay is heard forwarding it [I] (`on_frame`).
                m.paired = true;
                let deadline = now.saturating_add(self.params.pool_lifetime);
                st.retx
                    .sent_until(n.id, n.next_hop, m.retries, deadline)
                    .unwrap_or(NO_SEQ)
            } else {
                st.retx
                    .sent(n.id, n.next_hop, m.retries, now)
                    .unwrap_or(NO_SEQ)
            };
            let info = &mut self.frames[unit.unit as usize];
            info.seqs.push(seq);
            info.taken.push(false);
        }
        self.in_mac[radio as usize] = Some(InMac {
            carrier: unit.id,
            unit: unit.unit,
            by_mac: settled_by_mac,
        });
        self.scratch.chosen = chosen;
        self.scratch.natives = natives;
        self.arm(node, &mut |at, token| mac.set_timer(at, token));
        Some(unit)
    }

    fn on_tx_status(
        &mut self,
        radio: RadioId,
        id: PacketId,
        _next: Option<RadioId>,
        status: TxStatus,
        mut mac: MacView<'_>,
    ) {
        let Some(sent) = self.in_mac[radio as usize].filter(|m| m.carrier == id) else {
            return;
        };
        self.in_mac[radio as usize] = None;
        // A coded frame's natives wait for their COPE ACKs whatever the MAC says.
        let st = &mut self.nodes[self.radio_node[radio as usize] as usize];
        let delivered = !matches!(status, TxStatus::RetryLimit);
        let pair = sent.by_mac.iter().all(Option::is_some);
        let taken = &self.frames[sent.unit as usize].taken;
        for (k, native) in sent.by_mac.into_iter().enumerate() {
            let Some(native) = native else { continue };
            st.held -= 1;
            if !pair {
                // One native: the MAC's outcome is its fate, as without coding.
                if delivered {
                    mac.retire(native);
                } else {
                    mac.drop(native, DropReason::RetryLimit);
                }
            } else if taken.get(k).copied().unwrap_or(false) {
                // A BFLY pair without recovery: each native as its next hop fared.
                mac.retire(native);
            } else if delivered {
                mac.drop(native, DropReason::Undecodable);
            } else {
                mac.drop(native, DropReason::RetryLimit);
            }
        }
    }

    fn on_frame(
        &mut self,
        radio: RadioId,
        frame: &Frame,
        _heard: Heard,
        ctx: &mut ForwardingCtx<'_>,
    ) {
        if frame.unit == NO_UNIT || (frame.unit as usize) >= self.frames.len() {
            return;
        }
        let me = self.radio_node[radio as usize];
        let sender = self.radio_node[frame.src as usize];
        let now = ctx.now();
        let info = &self.frames[frame.unit as usize];
        let st = &mut self.nodes[me as usize];
        let mut news = false;
        if self.params.knowledge.reports() && !info.report.is_empty() {
            let ids = info.report.iter().map(|&(id, _)| id);
            news = st.knowledge.on_report(sender, ids, now);
        }
        let mut settled = std::mem::take(&mut self.scratch.settled);
        settled.clear();
        for &(coder, block) in &info.acks {
            if coder == me {
                st.retx.on_ack(sender, block, &mut settled);
            }
        }
        for &native in &settled {
            st.held -= 1;
            if let Some((coder, seq)) = self.meta[native as usize].relay.take() {
                // A BFLY relay copy its decoder acknowledged: the relay owes the coder the ACK.
                st.owe_ack(coder, seq, now);
                st.row.relayed_acks += 1;
            }
            ctx.retire(PacketId(native as u32));
        }
        self.scratch.settled = settled;
        let mut heard = std::mem::take(&mut self.scratch.heard);
        heard.clear();
        heard.extend_from_slice(ctx.natives(frame));
        if self.params.scheme == Scheme::Bfly && self.params.recovery == Recovery::CoderAck {
            // A BFLY coder hears its relay forward its pair: two ACK legs from now.
            let deadline = now.saturating_add(self.params.ack_timeout.saturating_mul(2));
            let meta = &self.meta;
            for n in heard.iter().filter(|n| n.next_hop != me) {
                let uid = n.packet.uid;
                let mine = |id: u64| meta[id as usize].paired && meta[id as usize].uid == uid;
                st.retx.postpone(sender, mine, deadline);
            }
        }
        self.scratch.heard = heard;
        if news && self.params.queue == QueueKind::Ncaqm {
            // What the neighbours hold changed: Alg. 1's re-coding pass ("periodically" [I]).
            let mut knowing = Knowing {
                p: &self.params,
                nodes: &self.nodes,
                meta: &self.meta,
                coder: me,
                now,
            };
            self.queues[me as usize].recode(&mut knowing);
        }
        self.flush_pending(me, ctx);
        let info = &self.frames[frame.unit as usize];
        if info.two_hop && self.scratch.heard.iter().all(|n| n.next_hop == me) {
            self.take_pair(me, sender, frame.unit, ctx);
        } else {
            self.decode(me, sender, frame.unit, ctx);
        }
    }

    fn on_timer(&mut self, token: u64, ctx: &mut ForwardingCtx<'_>) {
        self.on_node_timer(token as NodeId, ctx);
    }

    fn on_node_down(&mut self, node: NodeId, out: &mut Vec<PacketId>) {
        let mut drained = std::mem::take(&mut self.scratch.drained);
        drained.clear();
        self.queues[node as usize].drain(&mut drained);
        for &n in &drained {
            out.push(PacketId(n as u32));
            out.extend(self.meta[n as usize].partner.take());
        }
        // Relay copies of a BFLY pair still coming in.
        self.pending.retain(|pp| {
            if pp.node == node {
                out.extend(pp.ids.into_iter().flatten());
            }
            pp.node != node
        });
        self.scratch.drained = drained;
        let st = &mut self.nodes[node as usize];
        // Its queue is gone (the interval it held two flows' data since is not counted: the
        // hook has no clock).
        st.data_queued.clear();
        st.two_flows_since = NEVER;
        let mut waiting = std::mem::take(&mut self.scratch.settled);
        waiting.clear();
        st.retx.drain(&mut waiting);
        out.extend(waiting.iter().map(|&n| PacketId(n as u32)));
        self.scratch.settled = waiting;
        if st.radio != NO_RADIO {
            if let Some(sent) = self.in_mac[st.radio as usize].take() {
                out.extend(sent.by_mac.into_iter().flatten());
            }
        }
        st.held = 0;
    }

    fn count_held(&self) -> u64 {
        self.nodes.iter().map(|n| n.held).sum()
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        self.queues[node as usize].for_each(&mut |n| {
            f(PacketId(n as u32));
            if let Some(b) = self.meta[n as usize].partner {
                f(b);
            }
        });
    }

    /// A native dropped after the relay's own retransmissions keeps its name in the results
    /// (`cope_retry_limit`), told apart from the MAC's `retry_limit`.
    fn drop_name(&self, reason: DropReason) -> &'static str {
        match reason {
            DropReason::LayerRetryLimit => "cope_retry_limit",
            other => other.name(),
        }
    }

    fn report(&self, node_names: &[String], end: Time) -> Vec<LayerTable> {
        let rows: Vec<CodingRow> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.radio != NO_RADIO)
            .map(|(i, n)| CodingRow {
                node: node_names[i].clone(),
                two_flows_s: n.two_flows_s(end),
                ..n.row.clone()
            })
            .collect();
        vec![LayerTable::new(TABLE, &rows)]
    }
}
