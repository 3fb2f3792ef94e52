//! Horizon as a forwarding layer (`net::forwarding`): the glue between the per-node algorithm
//! (`super::node`, paper 003 eqs. 11-15, §5.2) and the network.
//!
//! - A packet to send on joins its node's queue of its flow; a packet entering the network there
//!   (from the node's own transport) grows by the 19-byte header and gets its PktID
//!   (`Packet::layer_seq`). Every change of custody reprices the node, and the node hands packets
//!   to its radios' interface queues while eq. (14)/(15) and the custody gate allow (the push of
//!   §5.2.1) and the interface queue has room; what it cannot push now it gives when the radio's
//!   MAC asks (the pull hooks, also the `mac: pull` ablation).
//! - Handing a packet to the MAC stamps its PLID (`Packet::link_seq`), labels a packet at its
//!   source with the path it takes (`Packet::path`, which the destination's reorder buffer maps to
//!   a PathID), and writes the piggyback the frame carries: when the packet belongs to the reverse
//!   of a flow `f` and goes to an upstream neighbour of `f`, the sender's `(C^f, R^f)` for it.
//! - A data frame decoded by its addressee is a reception: the receiver's highest PLID from that
//!   neighbour moves up and the update event counts; the piggyback, if any, is applied as a
//!   refreshment. A refreshment (a unicast control packet, `Header::Forwarding`) releases the
//!   custody the neighbour acknowledges and updates its price.
//! - The MAC giving a packet up (retry limit) releases its PLID; a MAC ACK releases nothing.
//! - Refreshments for counted update events (`UpLink::counted_due`) go when they are due, but
//!   under `refresh_rule: paced` those for price changes (fewer than `refresh_every` receptions
//!   among the events) are paid from the node's `AirtimeBudget` and held back while it is empty.
//! - Timers: per node with upstream neighbours, every `refresh_idle`, the liveness refreshments
//!   (`UpLink::timed_due`; paid from the budget too under `paced`); a node whose custody a MAC give-up
//!   changed is served at once through a zero-delay timer (the MAC's call lends no context); one
//!   sampling timer for the results.
//! - Every refreshment's air time (its frame, SIFS and the MAC ACK at the link's rate, once: the
//!   MAC's retries are not seen here, so this is a floor) is counted by cause, and reported with
//!   its share of the run.

use serde::Serialize;

use super::node::{
    AirtimeBudget, Choice, CountedCause, HorizonNode, RefreshRule, TimedCause, TimerRule, UpLink,
};
use super::{HorizonParams, HEADER_BYTES, PATHS_TABLE, SAMPLES_TABLE, TABLE};
use crate::mac::frame::{Frame, RadioId};
use crate::metrics::results::LayerTable;
use crate::net::flow_paths::NO_PATH;
use crate::net::forwarding::{
    Forwarding, ForwardingCtx, Heard, LayerNeeds, LayerReader, LayerWriter, MacView, TxStatus,
    TxUnit,
};
use crate::sim::packet::{DropReason, Header};
use crate::sim::{FlowId, NodeId, Packet, PacketArena, PacketId, Time};

/// No commodity / no flow at a node.
pub const NONE: u16 = u16::MAX;

/// Timer kinds, in a token's two low bits.
const TICK: u64 = 0;
const KICK: u64 = 1;
const SAMPLE: u64 = 2;

/// A Horizon flow: an ordered pair of nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commodity {
    /// Where its packets enter.
    pub src: NodeId,
    /// Where they leave.
    pub dst: NodeId,
    /// The flow the other way (`NONE`: none).
    pub reverse: u16,
}

/// The piggyback a frame carries: the sender's price and highest PLID for commodity `flow`,
/// towards the frame's addressee (an upstream neighbour of the sender for that flow).
#[derive(Debug, Clone, Copy)]
struct Piggy {
    flow: u16,
    price: f64,
    highest: Option<u8>,
}

const NO_PIGGY: Piggy = Piggy {
    flow: NONE,
    price: 0.0,
    highest: None,
};

/// One node's counters, a row of the `horizon` table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HorizonRow {
    /// The node.
    pub node: String,
    /// Refreshment packets it sent.
    pub refreshes: u64,
    /// Of those, sent because `refresh_every` packets had come from the neighbour (§5.2.2).
    pub refreshes_received: u64,
    /// Sent because `refresh_every` update events had counted up, fewer of them receptions:
    /// changes of the node's price.
    pub refreshes_price: u64,
    /// Sent by the liveness timers (the three below).
    pub refreshes_timed: u64,
    /// Of the timed ones, sent to acknowledge packets received since the neighbour was last
    /// told `R`.
    pub refreshes_idle_ack: u64,
    /// Of the timed ones, sent because only the node's price had changed.
    pub refreshes_idle_price: u64,
    /// Of the timed ones, repeats of the last one said.
    pub refreshes_repeat: u64,
    /// Paced refreshments (for price changes, timed) the air-time budget held back, each
    /// counted once: it goes later, or a piggyback or another refreshment says it first.
    pub refreshes_held: u64,
    /// Air time of its refreshments, s (frame, SIFS and MAC ACK at the link's rate, once each).
    pub refresh_airtime_s: f64,
    /// That air time as a share of the run.
    pub refresh_airtime_share: f64,
    /// Piggybacks its packets carried.
    pub piggybacks: u64,
    /// Refreshments and piggybacks it applied.
    pub updates_heard: u64,
    /// PLIDs released by refreshments and piggybacks.
    pub released_by_refresh: u64,
    /// PLIDs released because the MAC gave their packet up.
    pub released_by_mac: u64,
    /// Packets dropped on overflow of its buffer.
    pub overflow_drops: u64,
    /// The longest wait of a packet from joining one of its queues to leaving it, ms (strict
    /// eq. 14 can strand packets, spec A5).
    pub max_wait_ms: f64,
}

/// One bin of a transport flow's direction on one path, a row of `horizon_paths`.
#[derive(Debug, Clone, Serialize)]
pub struct PathRow {
    /// The transport flow (scenario order).
    pub flow: u32,
    /// `data` (source to destination) or `ack`.
    pub direction: &'static str,
    /// The path (index in the flow's `paths`).
    pub path: u8,
    /// Start of the bin, s.
    pub t: f64,
    /// Packets the source handed to its MAC on this path.
    pub sent: u64,
    /// Packets that reached the destination on it.
    pub delivered: u64,
    /// Their bytes (with headers).
    pub bytes: u64,
}

/// A custody and price sample, a row of `horizon_samples`.
#[derive(Debug, Clone, Serialize)]
pub struct SampleRow {
    /// When, s.
    pub t: f64,
    /// The node.
    pub node: String,
    /// The Horizon flow's source and destination.
    pub src: String,
    /// See `src`.
    pub dst: String,
    /// `P_i^f`, packets.
    pub custody: u32,
    /// `C_i^f`, packets.
    pub price: f64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Bin {
    sent: u64,
    delivered: u64,
    bytes: u64,
}

#[derive(Debug, Clone, Default)]
struct Counters {
    refreshes: u64,
    refreshes_received: u64,
    refreshes_price: u64,
    refreshes_timed: u64,
    refreshes_idle_ack: u64,
    refreshes_idle_price: u64,
    refreshes_repeat: u64,
    refreshes_held: u64,
    refresh_airtime: Time,
    piggybacks: u64,
    updates_heard: u64,
    released_by_refresh: u64,
    released_by_mac: u64,
    overflow_drops: u64,
    max_wait: Time,
}

/// Horizon for the whole network (see the module header).
pub struct HorizonLayer {
    p: HorizonParams,
    commodities: Vec<Commodity>,
    /// Per transport flow: its source, and its commodities (data, ACKs).
    flows: Vec<(NodeId, [u16; 2])>,
    /// Per transport flow and direction: the first hop of each of its paths (the path label of
    /// a packet its source sends that way).
    first_hops: Vec<[Vec<NodeId>; 2]>,
    nodes: Vec<HorizonNode>,
    /// Per node, per commodity: the index among the node's flows (`NONE`: not on its paths).
    at: Vec<Vec<u16>>,
    /// Each radio's node.
    radio_node: Vec<NodeId>,
    /// Per transport flow and direction, the next PktID.
    next_pkt: Vec<[u16; 2]>,
    /// The piggyback of each packet handed to a MAC, by arena slot.
    piggy: Vec<Piggy>,
    counters: Vec<Counters>,
    /// Per node, the air time its paced refreshments may still take (`refresh_rule: paced`).
    budgets: Vec<AirtimeBudget>,
    /// Per transport flow and direction, per path, the bins.
    series: Vec<[Vec<Vec<Bin>>; 2]>,
    samples: Vec<SampleRow>,
    /// Node names, for the samples (filled at the start).
    names: Vec<String>,
}

impl HorizonLayer {
    /// The layer: `commodities`, each transport flow's source, commodities and per-direction
    /// first hops, the nodes' state, and each radio's node.
    pub fn new(
        p: HorizonParams,
        commodities: Vec<Commodity>,
        flows: Vec<(NodeId, [u16; 2])>,
        first_hops: Vec<[Vec<NodeId>; 2]>,
        nodes: Vec<HorizonNode>,
        radio_node: Vec<NodeId>,
    ) -> Self {
        let mut at = vec![vec![NONE; commodities.len()]; nodes.len()];
        for (n, node) in nodes.iter().enumerate() {
            for (k, f) in node.flows.iter().enumerate() {
                at[n][f.commodity as usize] = k as u16;
            }
        }
        let series = first_hops
            .iter()
            .map(|[a, b]| [vec![Vec::new(); a.len()], vec![Vec::new(); b.len()]])
            .collect();
        HorizonLayer {
            counters: vec![Counters::default(); nodes.len()],
            budgets: vec![AirtimeBudget::new(p.refresh_budget); nodes.len()],
            next_pkt: vec![[0; 2]; flows.len()],
            p,
            commodities,
            flows,
            first_hops,
            at,
            nodes,
            radio_node,
            piggy: Vec::new(),
            series,
            samples: Vec::new(),
            names: Vec::new(),
        }
    }

    /// The state of `node`.
    pub fn node(&self, node: NodeId) -> &HorizonNode {
        &self.nodes[node as usize]
    }

    /// The commodities.
    pub fn commodities(&self) -> &[Commodity] {
        &self.commodities
    }

    /// The direction of packet `p` within its transport flow (0: data, 1: back), and its
    /// commodity; `None` for a packet of no flow of the layer's.
    fn commodity_of(&self, p: &Packet) -> Option<(usize, u16)> {
        let (src, c) = self.flows.get(p.flow as usize)?;
        let dir = usize::from(p.src != *src);
        Some((dir, c[dir]))
    }

    /// The index of commodity `c` among `node`'s flows.
    #[inline]
    fn flow_at(&self, node: NodeId, c: u16) -> Option<usize> {
        match self.at[node as usize][c as usize] {
            NONE => None,
            k => Some(k as usize),
        }
    }

    /// Reprices `node`, then hands it what the gate allows (push mode) and sends the
    /// refreshments it owes.
    fn settle(&mut self, node: NodeId, ctx: &mut ForwardingCtx<'_>) {
        self.nodes[node as usize].reprice(self.p.price);
        if self.p.push {
            self.push_all(node, ctx);
        } else if self.nodes[node as usize].held > 0 {
            // Pull: the node's MACs ask for packets when they can send; let them know.
            let mut r = ctx.first_radio(node);
            while r != crate::net::wireless::NO_RADIO {
                ctx.wake(r);
                r = ctx.wireless().next_on_node[r as usize];
            }
        }
        self.refresh_due(node, ctx);
    }

    /// Pushes packets of `node` into its radios' interface queues while eq. (14)/(15), the gate
    /// and the queues' room allow.
    fn push_all(&mut self, node: NodeId, ctx: &mut ForwardingCtx<'_>) {
        loop {
            let cap = self.p.ifq_capacity;
            let usable = |r: u32| !ctx.radio_failed(r) && ctx.radio_backlog(r) < cap;
            let Some(choice) =
                self.nodes[node as usize].select(self.p.threshold, self.p.next_hop, usable)
            else {
                return;
            };
            let now = ctx.now();
            let (id, radio) = self.hand_off(node, choice, now, &mut ctx.net.packets);
            ctx.push_radio(radio, id);
        }
    }

    /// Takes the chosen packet out of `node`'s queue for its neighbour: PLID, path label,
    /// next hop and piggyback. Returns the packet and the radio that sends it.
    fn hand_off(
        &mut self,
        node: NodeId,
        choice: Choice,
        now: Time,
        packets: &mut PacketArena,
    ) -> (PacketId, RadioId) {
        let n = &mut self.nodes[node as usize];
        let (id, since, plid) = n.take(choice);
        let link = &n.flows[choice.flow].down[choice.link];
        let (next, radio) = (link.node, link.radio);
        let c = &mut self.counters[node as usize];
        c.max_wait = c.max_wait.max(now.saturating_sub(since));
        let p = packets.get_mut(id);
        p.link_seq = plid;
        p.next_hop = next;
        if p.src == node {
            // The source labels the packet with the path it takes (its first hop).
            if let Some((dir, _)) = self.commodity_of(p) {
                let hops = &self.first_hops[p.flow as usize][dir];
                p.path = hops
                    .iter()
                    .position(|&h| h == next)
                    .map_or(NO_PATH, |k| k as u8);
                if p.path != NO_PATH {
                    let bin = (now / self.p.sample_interval) as usize;
                    bin_at(&mut self.series[p.flow as usize][dir][p.path as usize], bin).sent += 1;
                }
            }
        }
        let piggy = self.piggyback(node, p, next, now);
        let slot = id.0 as usize;
        if self.piggy.len() <= slot {
            self.piggy.resize(slot + 1, NO_PIGGY);
        }
        self.piggy[slot] = piggy;
        (id, radio)
    }

    /// The piggyback packet `p` carries from `node` to `next`: for the reverse `f` of its
    /// flow, if `next` is upstream of `node` on `f`, `node`'s `(C^f, R^f)` (and the owed
    /// refreshment counts as sent).
    fn piggyback(&mut self, node: NodeId, p: &Packet, next: NodeId, now: Time) -> Piggy {
        let Some((_, c)) = self.commodity_of(p) else {
            return NO_PIGGY;
        };
        let f = self.commodities[c as usize].reverse;
        if f == NONE {
            return NO_PIGGY;
        }
        let Some(k) = self.flow_at(node, f) else {
            return NO_PIGGY;
        };
        let flow = &mut self.nodes[node as usize].flows[k];
        let price = flow.price;
        let Some(up) = flow.up.iter_mut().find(|u| u.node == next) else {
            return NO_PIGGY;
        };
        up.sent_now(price, now);
        self.counters[node as usize].piggybacks += 1;
        Piggy {
            flow: f,
            price,
            highest: up.highest,
        }
    }

    /// Sends every refreshment `node` owes for counted update events (§5.2.2): always after
    /// `refresh_every` receptions; for price changes, under `refresh_rule: paced`, only within
    /// the node's budget.
    fn refresh_due(&mut self, node: NodeId, ctx: &mut ForwardingCtx<'_>) {
        let every = self.p.refresh_every;
        let paced = self.p.refresh_rule == RefreshRule::Paced;
        let now = ctx.now();
        for k in 0..self.nodes[node as usize].flows.len() {
            for u in 0..self.nodes[node as usize].flows[k].up.len() {
                let up = &self.nodes[node as usize].flows[k].up[u];
                let Some(cause) = up.counted_due(every) else {
                    continue;
                };
                if paced && cause == CountedCause::Price && !self.pay(node, k, u, now) {
                    continue;
                }
                let counters = &mut self.counters[node as usize];
                match cause {
                    CountedCause::Received => counters.refreshes_received += 1,
                    CountedCause::Price => counters.refreshes_price += 1,
                }
                self.send_refresh(node, k, u, ctx);
            }
        }
    }

    /// Pays for a paced refreshment of `node`'s flow `k` to its upstream neighbour `u` from the
    /// node's air-time budget; whether it may go. One held back is counted once, however often
    /// it is tried again.
    fn pay(&mut self, node: NodeId, k: usize, u: usize, now: Time) -> bool {
        let up = &mut self.nodes[node as usize].flows[k].up[u];
        if self.budgets[node as usize].spend(now, up.airtime) {
            return true;
        }
        if !up.held {
            up.held = true;
            self.counters[node as usize].refreshes_held += 1;
        }
        false
    }

    /// `node` sends the refreshment of its flow `k` to upstream neighbour `u`.
    fn send_refresh(&mut self, node: NodeId, k: usize, u: usize, ctx: &mut ForwardingCtx<'_>) {
        let now = ctx.now();
        let flow = &mut self.nodes[node as usize].flows[k];
        let (commodity, price) = (flow.commodity, flow.price);
        let up: &mut UpLink = &mut flow.up[u];
        up.sent_now(price, now);
        let (to, radio, highest, airtime) = (up.node, up.radio, up.highest, up.airtime);
        let header = LayerWriter::new()
            .u16(commodity)
            .u64(price.to_bits())
            .bool(highest.is_some())
            .u8(highest.unwrap_or(0))
            .finish();
        let mut packet = Packet::new(
            u32::MAX,
            node,
            to,
            HEADER_BYTES,
            now,
            Header::Forwarding(header),
        );
        packet.next_hop = to;
        let id = ctx.insert_packet(packet);
        let counters = &mut self.counters[node as usize];
        counters.refreshes += 1;
        counters.refresh_airtime += airtime;
        if self.p.refresh_first {
            ctx.push_radio_front(radio, id);
        } else {
            ctx.push_radio(radio, id);
        }
    }

    /// `node` hears from downstream neighbour `from` on commodity `c`: its price, and the highest
    /// PLID it received (which releases custody). Returns whether anything changed.
    fn apply_update(
        &mut self,
        node: NodeId,
        c: u16,
        from: NodeId,
        price: f64,
        highest: Option<u8>,
    ) -> bool {
        let Some(k) = self.flow_at(node, c) else {
            return false;
        };
        let Some(d) = self.nodes[node as usize].flows[k]
            .down
            .iter_mut()
            .find(|d| d.node == from)
        else {
            return false;
        };
        let changed = d.price != price;
        d.price = price;
        let released = highest.map_or(0, |r| d.release_upto(r));
        let cnt = &mut self.counters[node as usize];
        cnt.updates_heard += 1;
        cnt.released_by_refresh += released as u64;
        changed || released > 0
    }

    /// The liveness refreshments of `node` (spec A8).
    fn tick(&mut self, node: NodeId, ctx: &mut ForwardingCtx<'_>) {
        let now = ctx.now();
        let timers = TimerRule {
            rule: self.p.refresh_rule,
            idle: self.p.refresh_idle,
            repeat: self.p.refresh_repeat,
            every: self.p.refresh_every,
        };
        for k in 0..self.nodes[node as usize].flows.len() {
            for u in 0..self.nodes[node as usize].flows[k].up.len() {
                let flow = &self.nodes[node as usize].flows[k];
                let up = &flow.up[u];
                let Some(cause) = up.timed_due(flow.price, now, &timers) else {
                    continue;
                };
                // Only price news waits for the budget: acknowledgements and repeats keep the
                // neighbour's gate open, and are few by construction (one per quiet spell, five
                // repeats at most).
                let paced = timers.rule == RefreshRule::Paced;
                if paced && cause == TimedCause::Price && !self.pay(node, k, u, now) {
                    continue;
                }
                let counters = &mut self.counters[node as usize];
                counters.refreshes_timed += 1;
                match cause {
                    TimedCause::Acknowledge => counters.refreshes_idle_ack += 1,
                    TimedCause::Price => counters.refreshes_idle_price += 1,
                    TimedCause::Repeat => counters.refreshes_repeat += 1,
                }
                self.send_refresh(node, k, u, ctx);
            }
        }
    }

    /// One custody and price sample of every flow at every node on its paths.
    fn sample(&mut self, now: Time) {
        let t = now as f64 / 1e9;
        for n in &self.nodes {
            for f in &n.flows {
                if f.is_destination {
                    continue;
                }
                let c = self.commodities[f.commodity as usize];
                self.samples.push(SampleRow {
                    t,
                    node: self.names[n.node as usize].clone(),
                    src: self.names[c.src as usize].clone(),
                    dst: self.names[c.dst as usize].clone(),
                    custody: f.custody() as u32,
                    price: f.price,
                });
            }
        }
    }
}

/// Bin `bin` of a series, grown as needed.
fn bin_at(series: &mut Vec<Bin>, bin: usize) -> &mut Bin {
    if series.len() <= bin {
        series.resize(bin + 1, Bin::default());
    }
    &mut series[bin]
}

fn token(node: NodeId, kind: u64) -> u64 {
    (u64::from(node) << 2) | kind
}

impl Forwarding for HorizonLayer {
    fn name(&self) -> &'static str {
        "horizon"
    }

    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            packets: true,
            pulls: true,
            frames: crate::net::forwarding::Frames::Received,
            mac_outcomes: true,
            aggregates: true,
        }
    }

    fn on_start(&mut self, ctx: &mut ForwardingCtx<'_>) {
        self.names = ctx.node_names().to_vec();
        for n in &self.nodes {
            if n.flows.iter().any(|f| !f.up.is_empty()) {
                ctx.set_timer(self.p.refresh_idle, token(n.node, TICK));
            }
        }
        ctx.set_timer(self.p.sample_interval, token(0, SAMPLE));
    }

    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        let now = ctx.now();
        let p = *ctx.packet(id);
        let Some((dir, c)) = self.commodity_of(&p) else {
            ctx.drop_at_node(node, id, DropReason::NoRoute);
            return;
        };
        let Some(k) = self.flow_at(node, c) else {
            ctx.drop_at_node(node, id, DropReason::NoRoute);
            return;
        };
        if p.src == node && ctx.previous_hop().is_none() {
            // Entering the network: Horizon's header and the flow's next PktID.
            let seq = &mut self.next_pkt[p.flow as usize][dir];
            let q = ctx.packet_mut(id);
            q.size += HEADER_BYTES;
            q.layer_seq = *seq;
            *seq = seq.wrapping_add(1);
        }
        let victim = self.nodes[node as usize].enqueue(k, id, now, self.p.buffer);
        if let Some(victim) = victim {
            self.counters[node as usize].overflow_drops += 1;
            ctx.drop_at_node(node, victim, DropReason::QueueFull);
        }
        self.settle(node, ctx);
    }

    fn has_pending(&self, radio: RadioId, _now: Time) -> bool {
        let node = &self.nodes[self.radio_node[radio as usize] as usize];
        node.held > 0
            && node
                .select(self.p.threshold, self.p.next_hop, |r| r == radio)
                .is_some()
    }

    fn pull(&mut self, radio: RadioId, mac: MacView<'_>) -> Option<TxUnit> {
        let node = self.radio_node[radio as usize];
        let n = &self.nodes[node as usize];
        if n.held == 0 {
            return None;
        }
        let choice = n.select(self.p.threshold, self.p.next_hop, |r| r == radio)?;
        let (id, _) = self.hand_off(node, choice, mac.now, mac.packets);
        let next = mac.packets.get(id).next_hop;
        Some(TxUnit::packet(id, next))
    }

    /// The next packet of an A-MPDU to `next`: the flow with the most custody among those whose
    /// choice is `next` and whose gate is open, if its head packet fits. Its custody window
    /// (`T` PLIDs outstanding per link) bounds the aggregate as it bounds what waits at the MAC.
    fn pull_more(
        &mut self,
        radio: RadioId,
        next: NodeId,
        fits: &dyn Fn(u32) -> bool,
        mac: MacView<'_>,
    ) -> Option<TxUnit> {
        let node = self.radio_node[radio as usize];
        let n = &self.nodes[node as usize];
        if n.held == 0 {
            return None;
        }
        let choice = n.select_to(
            self.p.threshold,
            self.p.next_hop,
            |r| r == radio,
            Some(next),
        )?;
        let &(head, _) = n.flows[choice.flow].queue.front()?;
        if !fits(mac.packets.get(head).size) {
            return None;
        }
        let (id, _) = self.hand_off(node, choice, mac.now, mac.packets);
        Some(TxUnit::packet(id, next))
    }

    /// The MAC gave a packet up (at the retry limit, or at the end of its lifetime under a Block
    /// Ack agreement): its PLID is released (the neighbour never got it), and the node is served
    /// again at once.
    fn on_tx_status(
        &mut self,
        radio: RadioId,
        id: PacketId,
        next: Option<RadioId>,
        status: TxStatus,
        mut mac: MacView<'_>,
    ) {
        if !matches!(status, TxStatus::RetryLimit | TxStatus::Expired) {
            return;
        }
        let Some(next) = next else { return };
        let p = *mac.packet(id);
        let Some((_, c)) = self.commodity_of(&p) else {
            return;
        };
        let node = self.radio_node[radio as usize];
        let to = self.radio_node[next as usize];
        let Some(k) = self.flow_at(node, c) else {
            return;
        };
        let flow = &mut self.nodes[node as usize].flows[k];
        if let Some(d) = flow.down.iter_mut().find(|d| d.node == to) {
            if d.release_one(p.link_seq) {
                self.counters[node as usize].released_by_mac += 1;
                mac.set_timer(mac.now, token(node, KICK));
            }
        }
    }

    /// A frame addressed to one of `node`'s radios: a reception from the sender (the highest
    /// PLID, an update event) and the piggyback it carries.
    fn on_frame(
        &mut self,
        radio: RadioId,
        frame: &Frame,
        heard: Heard,
        ctx: &mut ForwardingCtx<'_>,
    ) {
        if heard != Heard::Addressed {
            return;
        }
        let Some((sender_id, p)) = frame.packet else {
            return;
        };
        let node = self.radio_node[radio as usize];
        let from = self.radio_node[frame.src as usize];
        let now = ctx.now();
        let mut changed = false;
        if let Some((dir, c)) = self.commodity_of(&p) {
            if let Some(k) = self.flow_at(node, c) {
                if let Some(u) = self.nodes[node as usize].flows[k]
                    .up
                    .iter_mut()
                    .find(|u| u.node == from)
                {
                    u.received(p.link_seq, now);
                }
            }
            if p.dst == node && p.path != NO_PATH {
                let bin = (now / self.p.sample_interval) as usize;
                if let Some(s) = self.series[p.flow as usize][dir].get_mut(p.path as usize) {
                    let b = bin_at(s, bin);
                    b.delivered += 1;
                    b.bytes += u64::from(p.size);
                }
            }
        }
        if let Some(piggy) = self.piggy.get(sender_id.0 as usize).copied() {
            if piggy.flow != NONE {
                changed = self.apply_update(node, piggy.flow, from, piggy.price, piggy.highest);
            }
        }
        if changed {
            self.settle(node, ctx);
        } else {
            self.refresh_due(node, ctx);
        }
    }

    /// A refreshment from downstream neighbour `from`.
    fn on_layer_packet(
        &mut self,
        node: NodeId,
        packet: &Packet,
        from: Option<NodeId>,
        ctx: &mut ForwardingCtx<'_>,
    ) {
        let (Header::Forwarding(h), Some(from)) = (packet.header, from) else {
            return;
        };
        let mut r = LayerReader::new(&h);
        let c = r.u16();
        let price = f64::from_bits(r.u64());
        let has = r.bool();
        let highest = r.u8();
        if (c as usize) < self.commodities.len()
            && self.apply_update(node, c, from, price, has.then_some(highest))
        {
            self.settle(node, ctx);
        }
    }

    fn on_timer(&mut self, token: u64, ctx: &mut ForwardingCtx<'_>) {
        let node = (token >> 2) as NodeId;
        match token & 3 {
            TICK => {
                self.tick(node, ctx);
                let r = ctx.first_radio(node);
                if !ctx.radio_failed(r) {
                    ctx.set_timer(ctx.now() + self.p.refresh_idle, token);
                }
            }
            KICK => self.settle(node, ctx),
            _ => {
                let now = ctx.now();
                self.sample(now);
                ctx.set_timer(now + self.p.sample_interval, token);
            }
        }
    }

    fn flow_price(&self, node: NodeId, flow: FlowId, dst: NodeId) -> Option<f64> {
        let (src, c) = self.flows.get(flow as usize)?;
        let c = if *src == node { c[0] } else { c[1] };
        if c == NONE || self.commodities[c as usize].dst != dst {
            return None;
        }
        let k = self.flow_at(node, c)?;
        Some(self.nodes[node as usize].flows[k].price)
    }

    fn on_node_down(&mut self, node: NodeId, out: &mut Vec<PacketId>) {
        self.nodes[node as usize].drain(out);
    }

    fn count_held(&self) -> u64 {
        self.nodes.iter().map(|n| n.held as u64).sum()
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        for flow in &self.nodes[node as usize].flows {
            flow.queue.iter().for_each(|&(id, _)| f(id));
        }
    }

    fn report(&self, node_names: &[String], end: Time) -> Vec<LayerTable> {
        let run_s = end as f64 / 1e9;
        let rows: Vec<HorizonRow> = self
            .nodes
            .iter()
            .zip(&self.counters)
            .filter(|(n, _)| !n.flows.is_empty())
            .map(|(n, c)| HorizonRow {
                node: node_names[n.node as usize].clone(),
                refreshes: c.refreshes,
                refreshes_received: c.refreshes_received,
                refreshes_price: c.refreshes_price,
                refreshes_timed: c.refreshes_timed,
                refreshes_idle_ack: c.refreshes_idle_ack,
                refreshes_idle_price: c.refreshes_idle_price,
                refreshes_repeat: c.refreshes_repeat,
                refreshes_held: c.refreshes_held,
                refresh_airtime_s: c.refresh_airtime as f64 / 1e9,
                refresh_airtime_share: if run_s > 0.0 {
                    c.refresh_airtime as f64 / 1e9 / run_s
                } else {
                    0.0
                },
                piggybacks: c.piggybacks,
                updates_heard: c.updates_heard,
                released_by_refresh: c.released_by_refresh,
                released_by_mac: c.released_by_mac,
                overflow_drops: c.overflow_drops,
                max_wait_ms: c.max_wait as f64 / 1e6,
            })
            .collect();
        let dt = self.p.sample_interval as f64 / 1e9;
        let mut paths = Vec::new();
        for (flow, dirs) in self.series.iter().enumerate() {
            for (dir, per_path) in dirs.iter().enumerate() {
                for (path, bins) in per_path.iter().enumerate() {
                    for (b, bin) in bins.iter().enumerate() {
                        paths.push(PathRow {
                            flow: flow as u32,
                            direction: if dir == 0 { "data" } else { "ack" },
                            path: path as u8,
                            t: b as f64 * dt,
                            sent: bin.sent,
                            delivered: bin.delivered,
                            bytes: bin.bytes,
                        });
                    }
                }
            }
        }
        vec![
            LayerTable::new(TABLE, &rows),
            LayerTable::new(PATHS_TABLE, &paths),
            LayerTable::new(SAMPLES_TABLE, &self.samples),
        ]
    }
}
