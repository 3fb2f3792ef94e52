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
//! State is kept per node, across its radios (a multi-homed bridge, docs/multi_radio.md): one set
//! of per-flow queues and one shared buffer per node, links on every radio, and per radio the
//! report it last sent on its channel (a neighbour on that channel holds that one). A radio's
//! transmit opportunity chooses among the links on its own channel; a packet joining the node's
//! queues, a changed report and the estimates rolling wake every radio of the node. The node's
//! queue statistics and its overflow drops are charged to its first radio's queue. On a
//! single-radio node all of this is the paper's node.

use serde::Serialize;

use super::{BpNode, BpShared, LossEstimate};
use crate::mac::frame::{Frame, RadioId};
use crate::metrics::results::LayerTable;
use crate::net::forwarding::{
    Forwarding, ForwardingCtx, Heard, LayerNeeds, LayerWriter, MacView, TxStatus, TxUnit,
};
use crate::net::wireless::NO_RADIO;
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
    /// The state of each node, indexed by node.
    nodes: Vec<BpNode>,
    /// Each radio's node and its index among the node's radios (`BpLink::port`).
    ports: Vec<(NodeId, u8)>,
    /// The first radio of each node (`NO_RADIO` for none).
    first_radio: Vec<RadioId>,
}

impl BackpressureLayer {
    /// The layer over `nodes` (indexed by node), whose radios are `ports` (each radio's node and
    /// its index among the node's radios, indexed by radio) and `first_radio` (each node's first
    /// radio, `NO_RADIO` for none).
    pub fn new(
        shared: BpShared,
        nodes: Vec<BpNode>,
        ports: Vec<(NodeId, u8)>,
        first_radio: Vec<RadioId>,
    ) -> Self {
        BackpressureLayer {
            shared,
            nodes,
            ports,
            first_radio,
        }
    }

    /// The state of radio `r`'s node, and the radio's port on it.
    fn port(&mut self, r: RadioId) -> (&mut BpNode, u8) {
        let (node, port) = self.ports[r as usize];
        (&mut self.nodes[node as usize], port)
    }

    /// Radio `r` decoded a frame of radio `from` (addressed to it or overheard): its node records
    /// the report the sender's radio sent and, if that changed anything, lets its radios' MACs
    /// look for a packet to send.
    fn hear_report(&mut self, r: RadioId, from: RadioId, ctx: &mut ForwardingCtx<'_>) {
        let (node, _) = self.ports[r as usize];
        let (sender, port) = self.ports[from as usize];
        if node == sender {
            return; // a node's radios are on different channels: never happens
        }
        let (receiver, sender) = if node < sender {
            let (a, b) = self.nodes.split_at_mut(sender as usize);
            (&mut a[node as usize], &b[0])
        } else {
            let (a, b) = self.nodes.split_at_mut(node as usize);
            (&mut b[0], &a[sender as usize])
        };
        if receiver.hear(sender.node(), sender.advertised(port)) && !receiver.is_empty() {
            wake_node(r, ctx);
        }
    }
}

/// Wakes every radio of the node of radio `r`, `r` first.
#[inline]
fn wake_node(r: RadioId, ctx: &mut ForwardingCtx<'_>) {
    ctx.wake(r);
    let node = ctx.wireless().radios[r as usize].node;
    if !ctx.wireless().is_multi_radio(node) {
        return;
    }
    let mut radio = ctx.first_radio(node);
    while radio != NO_RADIO {
        if radio != r {
            ctx.wake(radio);
        }
        radio = ctx.wireless().next_on_node[radio as usize];
    }
}

impl Forwarding for BackpressureLayer {
    fn name(&self) -> &'static str {
        "backpressure"
    }

    fn needs(&self) -> LayerNeeds {
        // Reports ride on every data frame, and every neighbour that decodes one records it
        // (overheard frames too); the loss estimates read the MAC's outcomes. An 802.11n radio
        // fills its A-MPDU by further decisions on the chosen link (`pull_more`).
        LayerNeeds {
            aggregates: true,
            ..LayerNeeds::ALL
        }
    }

    fn on_start(&mut self, ctx: &mut ForwardingCtx<'_>) {
        let first = self.shared.params.report_idle;
        for r in 0..self.ports.len() {
            ctx.set_timer(first, r as u64);
        }
    }

    /// `node` queues packet `id` for backpressure forwarding; on overflow of its shared buffer
    /// the newest packet of its largest per-flow queue is dropped (§4.1.4).
    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        let r = self.first_radio[node as usize];
        if ctx.radio_failed(r) {
            ctx.drop_at_radio(r, id, DropReason::NodeDown);
            return;
        }
        let p = ctx.packet(id);
        let commodity = self.shared.commodities.of(p.flow, p.dst);
        let bp = &mut self.nodes[node as usize];
        let victim = bp.enqueue(commodity, id, ctx.now(), &self.shared.params);
        ctx.radio_enqueued(r, bp.len());
        if let Some(victim) = victim {
            ctx.drop_at_radio(r, victim, DropReason::QueueFull);
        }
        wake_node(r, ctx);
    }

    fn has_pending(&self, radio: RadioId, now: Time) -> bool {
        let s = &self.shared;
        let (node, port) = self.ports[radio as usize];
        let node = &self.nodes[node as usize];
        node.select(now, &s.params, &s.commodities, node.port_filter(port))
            .is_some()
    }

    /// A transmit opportunity: the packet and next-hop node of eqs. (2)-(4) and §4.1.1, with the
    /// node's report recorded for the frame.
    fn pull(&mut self, radio: RadioId, mac: MacView<'_>) -> Option<TxUnit> {
        let (node, port) = self.ports[radio as usize];
        let s = &self.shared;
        let node = &mut self.nodes[node as usize];
        let choice = node.select(mac.now, &s.params, &s.commodities, node.port_filter(port))?;
        let (id, next_hop) = node.take(choice);
        node.reported_at(port, mac.now);
        Some(TxUnit::packet(id, next_hop))
    }

    /// The next packet of an A-MPDU to `next`: the decision of eqs. (2)-(4) again, on the links
    /// to `next` only, taken if its packet fits.
    fn pull_more(
        &mut self,
        radio: RadioId,
        next: NodeId,
        fits: &dyn Fn(u32) -> bool,
        mac: MacView<'_>,
    ) -> Option<TxUnit> {
        let (node, port) = self.ports[radio as usize];
        let s = &self.shared;
        let node = &mut self.nodes[node as usize];
        let filter = node.port_filter(port);
        let choice = node.select_to(mac.now, &s.params, &s.commodities, filter, next)?;
        if !fits(mac.packet(node.head(choice)?).size) {
            return None;
        }
        let (id, next_hop) = node.take(choice);
        Some(TxUnit::packet(id, next_hop))
    }

    fn on_attempt(&mut self, radio: RadioId, next: RadioId, ok: bool) {
        if self.shared.params.loss_estimate == LossEstimate::PerAttempt {
            self.port(radio).0.outcome(next, ok);
        }
    }

    fn on_tx_status(
        &mut self,
        radio: RadioId,
        _id: PacketId,
        next: Option<RadioId>,
        status: TxStatus,
        mac: MacView<'_>,
    ) {
        let now = mac.now;
        let Some(next) = next else { return };
        let (node, _) = self.ports[radio as usize];
        let p = &self.shared.params;
        let node = &mut self.nodes[node as usize];
        if p.loss_estimate == LossEstimate::PerPacket {
            // A packet given up, at the retry limit or (under a Block Ack agreement) at the end
            // of its lifetime, is a loss; one its next hop has is not.
            let lost = matches!(status, TxStatus::RetryLimit | TxStatus::Expired);
            node.outcome(next, !lost);
        }
        let _ = node.refresh_estimates(now, p);
    }

    fn on_frame(
        &mut self,
        radio: RadioId,
        frame: &Frame,
        heard: Heard,
        ctx: &mut ForwardingCtx<'_>,
    ) {
        // A retransmission of a frame the radio decoded already is one an 802.11 MAC discards
        // (sequence number and retry bit) before anything above it reads the frame's header.
        if heard == Heard::Duplicate {
            return;
        }
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
        let (node, port) = self.ports[r as usize];
        let (params, bytes) = (&self.shared.params, self.shared.control_bytes());
        let bp = &mut self.nodes[node as usize];
        if bp.refresh_estimates(now, params) && !bp.is_empty() {
            wake_node(r, ctx);
        }
        let failed = ctx.radio_failed(r);
        if !failed && bp.control_due(now, params, port) {
            bp.snapshot(port);
            bp.reported_at(port, now);
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
        self.nodes[node as usize].drain(out);
    }

    fn count_held(&self) -> u64 {
        self.nodes.iter().map(|b| b.len() as u64).sum()
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        self.nodes[node as usize].for_each(f);
    }

    /// A row per node with a radio, in node order.
    fn report(&self, node_names: &[String], _end: Time) -> Vec<LayerTable> {
        let rows: Vec<BackpressureRow> = self
            .nodes
            .iter()
            .filter(|bp| self.first_radio[bp.node() as usize] != NO_RADIO)
            .map(|bp| BackpressureRow {
                node: node_names[bp.node() as usize].clone(),
                overflow_drops: bp.overflow_drops,
                control_sent: bp.control_sent,
            })
            .collect();
        vec![LayerTable::new(TABLE, &rows)]
    }
}
