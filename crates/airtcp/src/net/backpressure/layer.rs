//! Backpressure as a forwarding layer (`net::forwarding`): the glue between the algorithm
//! (`super`, paper 000 §3 eqs. (2)-(4), §4.1.1, §4.1.2, §4.1.4) and the network.
//!
//! - A packet to send on joins its node's per-flow queue instead of a routed interface queue; on
//!   overflow of the shared buffer the newest packet of the largest per-flow queue is dropped
//!   (§4.1.4), counted as `queue_full` of the radio's queue.
//! - At a transmit opportunity (the MAC pulls once the radio's interface queue, which holds only
//!   the broadcast control packets, is empty) the node picks flow, packet and next hop by
//!   eqs. (2)-(4) and §4.1.1, and records the report the frame carries (§4.1.2).
//! - Reports travel with frames: every radio that decodes a data frame, addressed or overheard,
//!   records the sender's report, read from the sender's state (the report is the snapshot taken
//!   with the frame's packet, so it adds no bytes to the packet); a changed report may give the
//!   receiver something to send, so its MAC is woken.
//! - One timer per radio, every `report_idle`: a control packet with the report if none has gone
//!   out for that long and the queues changed (or every `report_repeat`), §4.1.2; and the loss
//!   estimates `p~` rolled even when the node sends nothing (a node whose every link was judged
//!   dead would otherwise hold its packets forever).
//! - MAC outcomes feed `p~` (footnote 2): per attempt or per packet ([`LossEstimate`]).
//!
//! State is kept per radio: backpressure runs on nodes with one radio each (the scenario builder
//! refuses nodes with several).

use serde::Serialize;

use super::{BpNode, BpShared, LossEstimate};
use crate::mac::frame::{Frame, RadioId};
use crate::metrics::results::LayerTable;
use crate::net::forwarding::{
    Forwarding, ForwardingCtx, Frames, Heard, LayerNeeds, LayerWriter, MacView, TxStatus, TxUnit,
};
use crate::sim::packet::{DropReason, Header};
use crate::sim::{NodeId, Packet, PacketId, Time};

/// The key of backpressure's table in the results.
pub const TABLE: &str = "backpressure";

/// One node's backpressure counters (paper 000 §4.1.2, §4.1.4), a row of the results' table.
#[derive(Debug, Clone, Serialize)]
pub struct BackpressureRow {
    /// The node.
    pub node: String,
    /// Packets dropped on overflow of its shared buffer (the newest packet of its largest
    /// per-flow queue). Also counted in `drops` as `queue_full` of queue "radio NODE".
    pub overflow_drops: u64,
    /// Control packets (idle queue reports) it broadcast.
    pub control_sent: u64,
}

/// Backpressure forwarding for the whole network (see the module header).
pub struct BackpressureLayer {
    shared: BpShared,
    /// The state of each radio's node, indexed by radio.
    radios: Vec<BpNode>,
    /// The radio of each node (`NO_RADIO` for none), to find a node's state.
    radio_of_node: Vec<u32>,
}

impl BackpressureLayer {
    /// The layer over `radios` (the state of each radio's node, indexed by radio), with the
    /// radio of each node.
    pub fn new(shared: BpShared, radios: Vec<BpNode>, radio_of_node: Vec<u32>) -> Self {
        BackpressureLayer {
            shared,
            radios,
            radio_of_node,
        }
    }

    /// Radio `r` decoded a frame of radio `from` (addressed to it or overheard): it records the
    /// sender's report and, if that changed anything, lets its MAC look for a packet to send.
    fn hear_report(&mut self, r: RadioId, from: RadioId, ctx: &mut ForwardingCtx<'_>) {
        let (receiver, sender) = if r < from {
            let (a, b) = self.radios.split_at_mut(from as usize);
            (&mut a[r as usize], &b[0])
        } else {
            let (a, b) = self.radios.split_at_mut(r as usize);
            (&mut b[0], &a[from as usize])
        };
        if receiver.hear(sender.node(), sender.advertised()) && !receiver.is_empty() {
            ctx.wake(r);
        }
    }
}

impl Forwarding for BackpressureLayer {
    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            pulls: true,
            // Reports ride on every data frame, and every neighbour that decodes one records it.
            frames: Frames::ReceivedAndOverheard,
            mac_outcomes: true,
        }
    }

    fn on_start(&mut self, ctx: &mut ForwardingCtx<'_>) {
        let first = self.shared.params.report_idle;
        for r in 0..self.radios.len() {
            ctx.set_timer(first, r as u64);
        }
    }

    /// `node` queues packet `id` for backpressure forwarding; on overflow of its shared buffer
    /// the newest packet of its largest per-flow queue is dropped (§4.1.4).
    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        let r = self.radio_of_node[node as usize];
        if ctx.radio_failed(r) {
            ctx.drop_at_radio(r, id, DropReason::NodeDown);
            return;
        }
        let p = ctx.packet(id);
        let commodity = self.shared.commodities.of(p.flow, p.dst);
        let bp = &mut self.radios[r as usize];
        let victim = bp.enqueue(commodity, id, ctx.now(), &self.shared.params);
        ctx.radio_enqueued(r, bp.len());
        if let Some(victim) = victim {
            ctx.drop_at_radio(r, victim, DropReason::QueueFull);
        }
        ctx.wake(r);
    }

    fn has_pending(&self, radio: RadioId, now: Time) -> bool {
        let s = &self.shared;
        self.radios[radio as usize]
            .select(now, &s.params, &s.commodities)
            .is_some()
    }

    /// A transmit opportunity: the packet and next-hop node of eqs. (2)-(4) and §4.1.1, with the
    /// node's report recorded for the frame.
    fn pull(&mut self, radio: RadioId, mac: MacView<'_>) -> Option<TxUnit> {
        let s = &self.shared;
        let node = &mut self.radios[radio as usize];
        let choice = node.select(mac.now, &s.params, &s.commodities)?;
        let (id, next_hop) = node.take(choice);
        node.reported_at(mac.now);
        Some(TxUnit { id, next_hop })
    }

    fn on_attempt(&mut self, radio: RadioId, next: RadioId, ok: bool) {
        if self.shared.params.loss_estimate == LossEstimate::PerAttempt {
            self.radios[radio as usize].outcome(next, ok);
        }
    }

    fn on_tx_status(
        &mut self,
        radio: RadioId,
        _id: PacketId,
        next: Option<RadioId>,
        status: TxStatus,
        now: Time,
    ) {
        let Some(next) = next else { return };
        let p = &self.shared.params;
        let node = &mut self.radios[radio as usize];
        if p.loss_estimate == LossEstimate::PerPacket {
            node.outcome(next, status != TxStatus::RetryLimit);
        }
        let _ = node.refresh_estimates(now, p);
    }

    fn on_frame(
        &mut self,
        radio: RadioId,
        frame: &Frame,
        _heard: Heard,
        ctx: &mut ForwardingCtx<'_>,
    ) {
        self.hear_report(radio, frame.src, ctx);
    }

    // A control packet's report was taken from its frame when the frame was decoded
    // (`on_frame`): there is nothing left to read (the default `on_layer_packet`).

    /// The periodic check of radio `token` (every `report_idle`): a control packet with its queue
    /// report if it has sent none for that long and its queues changed since (§4.1.2); and the
    /// loss estimates rolled even when the node sends nothing, or a node whose every link was
    /// judged dead (`p~` = 1) would hold its packets forever.
    fn on_timer(&mut self, token: u64, ctx: &mut ForwardingCtx<'_>) {
        let r = token as RadioId;
        let now = ctx.now();
        let (params, bytes) = (&self.shared.params, self.shared.control_bytes());
        let bp = &mut self.radios[r as usize];
        if bp.refresh_estimates(now, params) && !bp.is_empty() {
            ctx.wake(r);
        }
        let failed = ctx.radio_failed(r);
        if !failed && bp.control_due(now, params) {
            bp.snapshot();
            bp.reported_at(now);
            bp.control_sent += 1;
            // Broadcast one hop: no flow, no destination; the report is the sender's state.
            let header = Header::Forwarding(LayerWriter::new().finish());
            let report = Packet::new(u32::MAX, bp.node(), NodeId::MAX, bytes, now, header);
            let id = ctx.insert_packet(report);
            ctx.push_radio(r, id);
        }
        if !failed {
            ctx.set_timer(now.saturating_add(params.report_idle), token);
        }
    }

    fn on_node_down(&mut self, node: NodeId, out: &mut Vec<PacketId>) {
        let r = self.radio_of_node[node as usize];
        self.radios[r as usize].drain(out);
    }

    fn count_held(&self) -> u64 {
        self.radios.iter().map(|b| b.len() as u64).sum()
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        let r = self.radio_of_node[node as usize];
        if let Some(bp) = self.radios.get(r as usize) {
            bp.for_each(f);
        }
    }

    fn report(&self, node_names: &[String]) -> Vec<LayerTable> {
        let rows: Vec<BackpressureRow> = self
            .radios
            .iter()
            .map(|bp| BackpressureRow {
                node: node_names[bp.node() as usize].clone(),
                overflow_drops: bp.overflow_drops,
                control_sent: bp.control_sent,
            })
            .collect();
        vec![LayerTable::new(TABLE, &rows)]
    }
}
