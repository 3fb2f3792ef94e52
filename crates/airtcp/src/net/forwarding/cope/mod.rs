//! COPE, inter-session XOR coding at relays (Katti, Rahul, Hu, Katabi, Médard & Crowcroft,
//! "XORs in the air: practical wireless network coding", IEEE/ACM ToN 16(3), 2008), on the
//! forwarding seam: the TCP+COPE baseline of paper 001 (Seferoglu & Markopoulou, IEEE/ACM ToN
//! 22(4), 2014) and the substrate its NCAQM builds on. Spec 001 §2.2 numbers the pieces; the
//! choices the papers leave open are marked [I] and listed in docs/cope.md.
//!
//! 1. *Opportunistic listening*: every radio decodes every data frame it can (addressed to it or
//!    not, [`Frames::ReceivedAndOverheard`]); the natives it learns join its pool, kept
//!    `pool_lifetime` (T = 0.5 s).
//! 2. *Reception reports*: the natives a node adds to its pool are listed in the COPE header of
//!    its next frame. Under COPE's periodic control (`control`, [`ControlTiming`]) what a node
//!    owes waits a period [I: Ta / 2] for a frame; then, only if the node has nothing to send,
//!    a control packet carries it (the `idle_timer` option sends one after `report_idle` whatever
//!    the node holds).
//! 3. *Guessing*: without a report, a neighbour holds a native with the delivery probability of
//!    the link from the native's previous hop to it (what probes converge to: the configured
//!    error processes, averaged over the radios' fading,
//!    [`crate::net::wireless::Wireless::faded_delivery`]); for sure if it is that previous hop;
//!    and neither once the native came in a pool lifetime ago (their pools have forgotten it).
//! 4. *Coding* at each transmit opportunity ([`crate::coding::cope_rule::choose`]): the head
//!    native, plus the head of each other neighbour's virtual queue (same size class first) while
//!    every next hop can decode with probability at least G = 0.8; at most
//!    [`MAX_NATIVES`] natives; nothing waits for a partner.
//! 5. *Pseudo-broadcast*: the frame is one 802.11 unicast (RTS/CTS, MAC ACK and retries) to the
//!    head native's next hop [I]; the COPE header lists every native and its next hop, and the
//!    other next hops overhear it.
//! 6. *Decoding*: a listed next hop that holds every other native takes its own; one that lacks
//!    one cannot, and counts a decode failure. A native taken before is a duplicate: not taken
//!    again, acknowledged again. Any node that holds all but one native of a frame learns the
//!    last one.
//! 7. *ACKs and retransmission*: a frame of several natives is settled per native by COPE ACKs
//!    (last number and a bitmap of the ones before it, in the next frame's header or in a
//!    control packet timed as the reports are);
//!    each native waits `ack_timeout` (Ta) and then goes back to the head of the queue, at most
//!    `retry_limit` times before it is dropped (`cope_retry_limit`). A frame of one native is
//!    settled by its MAC ACK, as without coding [I].
//! 8. *Header bytes*: 4 + 8 per native + 9 per report entry + 7 per ACK block
//!    ([`header_bytes`]); a coded frame is as long as its longest native plus the header.
//!
//! Every frame a COPE node sends is a *carrier* ([`super::MacView::coded`]) with its natives
//! beside it, also a frame of one native (so that it can carry reports and ACKs) and a control
//! packet (none). The relay keeps each native until it knows its fate and then retires it
//! (the next hop's copy carries on) or drops it; packet conservation holds with `retired`.
//! What a frame carries besides its natives (the report, the ACK blocks, each native's
//! sequence number) is kept here per unit ([`FrameInfo`]), read by every radio that decodes it.
//!
//! Built from the pure parts in `crate::coding` (`cope_rule`, `cope_fifo`, `cope_state`,
//! `cope_ack`); nothing is allocated per frame once the buffers have grown.

mod bfly;
pub mod config;
mod hooks;
mod node;
pub mod params;
pub mod queue;

pub use node::{CodingRow, CopeNode, ACCEPTED_LIFETIME_FACTOR};
pub use params::{
    default_control_period, ControlTiming, CopeParams, KnowledgeModel, QueueKind, Recovery, Scheme,
};

use bfly::PendingPair;
use node::NEVER;
use queue::{Arrival, FifoChoice, OutputQueue};

use super::{ForwardingCtx, LayerSetup, Native};
use crate::coding::cope_ack::{AckBlock, Expired};
use crate::coding::cope_rule::Native as QueuedNative;
use crate::coding::cope_state::{header_bytes, report_entries};
use crate::mac::frame::{RadioId, UnitId};
use crate::net::forwarding::ncaqm::queue::Decodability;
use crate::net::wireless::NO_RADIO;
use crate::phy::fading::RayleighSuccess;
use crate::sim::packet::DropReason;
use crate::sim::{NodeId, PacketId, Time};

/// The results' table of per-node coding counters.
pub const TABLE: &str = "coding";

/// The most natives one frame carries (the 8-flow wheel of paper 001's Fig. 6).
pub const MAX_NATIVES: usize = 8;

/// COPE's size classes: a native of at most this many bytes is small (TCP ACKs), larger ones
/// are large; each class has its own virtual queues (Katti et al. §3.3).
pub const SMALL_NATIVE_BYTES: u32 = 100;

/// Bytes of a control packet besides its COPE header: an IP header [I].
pub const CONTROL_IP_BYTES: u32 = 20;

/// A native's sequence number on a frame of one native (settled by the MAC ACK, not COPE's).
const NO_SEQ: u32 = u32::MAX;

/// Tags of the carrier's header (the layer's own bytes; only the size on the air matters).
const TAG_DATA: u8 = 1;
const TAG_CONTROL: u8 = 2;

/// What a frame carries besides its natives, kept per unit while the frame lives.
#[derive(Debug, Clone, Default)]
pub struct FrameInfo {
    /// Each native's sequence number on its link ([`NO_SEQ`] in a frame of one native).
    seqs: Vec<u32>,
    /// The reception report: natives (uids) and their flows.
    report: Vec<(u64, u32)>,
    /// ACK blocks, each for the coder it is addressed to.
    acks: Vec<(NodeId, AckBlock)>,
    /// A BFLY pair on its first hop: both natives go to the addressed relay, which cannot
    /// decode them.
    two_hop: bool,
    /// Per native, whether its next hop took it (decoded it, or held it already), written by
    /// the receivers before the sender's MAC hears how the frame went.
    taken: Vec<bool>,
}

/// A native's bookkeeping while the layer holds it, indexed by its arena slot.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct NativeMeta {
    /// Its identity (the pools' key).
    uid: u64,
    /// The neighbour it came from (the node itself: it originated here).
    previous: NodeId,
    /// When it came to this node: its previous hop's copy and what the neighbours overheard of
    /// it date from then at the latest (the guess ages from it).
    arrived: Time,
    /// COPE retransmissions so far.
    retries: u32,
    /// Its stream (NCAQM's flow): its flow's data or its flow's ACKs.
    stream: u32,
    /// Never coded (a TCP ACK when ACKs are not coded; a BFLY pair's relay copy; a native its
    /// BFLY coder sends again).
    solo: bool,
    /// Its next hop here.
    next_hop: NodeId,
    /// The hop after that ([`NO_NODE`]: none, or not asked: COPE alone does not need it).
    after_next: NodeId,
    /// At a BFLY relay, the pair's other native, which travels with this one (queued alone).
    partner: Option<PacketId>,
    /// At a BFLY relay, the coder and the sequence number to acknowledge to it once the
    /// decoder acknowledges this copy.
    relay: Option<(NodeId, u32)>,
    /// Sent by this node inside a BFLY pair: if its ACK times out it goes again uncoded.
    paired: bool,
}

/// The frame a radio's MAC is trying: its carrier, and the native it carries alone (settled by
/// the MAC's outcome).
#[derive(Debug, Clone, Copy)]
struct InMac {
    carrier: PacketId,
    unit: UnitId,
    /// Natives the MAC's outcome settles: a frame of one native, or a BFLY pair without
    /// recovery.
    by_mac: [Option<PacketId>; 2],
}

/// Buffers reused across calls.
#[derive(Debug, Default)]
struct Scratch {
    chosen: Vec<QueuedNative>,
    natives: Vec<(PacketId, NodeId)>,
    drained: Vec<u64>,
    report: Vec<(u64, u32)>,
    acks: Vec<(NodeId, AckBlock)>,
    expired: Vec<Expired>,
    settled: Vec<u64>,
    heard: Vec<Native>,
}

/// The COPE layer of the whole network.
pub struct Cope {
    params: CopeParams,
    nodes: Vec<CopeNode>,
    /// Each node's output queue (apart from its other state, so that the coding rule can read
    /// every node's knowledge while one queue changes).
    queues: Vec<OutputQueue>,
    radio_node: Vec<NodeId>,
    meta: Vec<NativeMeta>,
    frames: Vec<FrameInfo>,
    in_mac: Vec<Option<InMac>>,
    /// BFLY pairs whose relay copies are on their way into the layer.
    pending: Vec<PendingPair>,
    scratch: Scratch,
}

/// What coder `coder` knows at `now`, as its output queue asks it.
struct Knowing<'a> {
    p: &'a CopeParams,
    nodes: &'a [CopeNode],
    meta: &'a [NativeMeta],
    coder: NodeId,
    now: Time,
}

impl Decodability for Knowing<'_> {
    fn holds(&mut self, r: NodeId, id: u64) -> f64 {
        holds(self.p, self.nodes, self.meta, self.coder, r, id, self.now)
    }

    fn two_hop(&mut self, a: u64, b: u64) -> bool {
        self.p.scheme == Scheme::Bfly && bfly::pairable(self.nodes, self.meta, self.coder, a, b)
    }
}

/// The probability, as coder `coder` sees it, that neighbour `r` holds the native in arena slot
/// `id` (its meta in `meta`) at `now`.
fn holds(
    p: &CopeParams,
    nodes: &[CopeNode],
    meta: &[NativeMeta],
    coder: NodeId,
    r: NodeId,
    id: u64,
    now: Time,
) -> f64 {
    let m = &meta[id as usize];
    match p.knowledge {
        KnowledgeModel::Oracle => {
            let pool = &nodes[r as usize].knowledge.pool;
            f64::from(u8::from(r == m.previous || pool.contains(m.uid, now)))
        }
        model => {
            let mut delivery = |u: NodeId, n: NodeId| {
                // A native the coder originated was never on the air: nobody overheard it.
                if !model.guesses() || u == coder {
                    0.0
                } else {
                    nodes[u as usize].delivery_to(n)
                }
            };
            nodes[coder as usize].knowledge.holds(
                r,
                m.uid,
                m.previous,
                m.arrived,
                now,
                &mut delivery,
            )
        }
    }
}

fn slot(id: PacketId) -> usize {
    id.0 as usize
}

fn queued_id(n: &QueuedNative) -> PacketId {
    PacketId(n.id as u32)
}

impl Cope {
    /// The layer for the network `setup` describes (one radio per node).
    pub fn new(params: CopeParams, setup: &LayerSetup<'_>) -> Self {
        let w = setup.wireless;
        let mut faded = RayleighSuccess::default();
        let nodes = (0..setup.nodes as NodeId)
            .map(|node| {
                let r = w
                    .radio_of_node
                    .get(node as usize)
                    .copied()
                    .unwrap_or(NO_RADIO);
                if r == NO_RADIO {
                    return CopeNode::new(NO_RADIO, Vec::new(), Vec::new(), None, &params);
                }
                let mut nbs: Vec<(NodeId, f64, u64)> = w.radios[r as usize]
                    .neighbors
                    .iter()
                    .map(|nb| {
                        let n = w.radios[nb.radio as usize].node;
                        (
                            n,
                            w.faded_delivery(r, nb.radio, &mut faded),
                            w.link_rate(r, nb),
                        )
                    })
                    .collect();
                nbs.sort_by_key(|&(n, _, _)| n);
                nbs.dedup_by_key(|&mut (n, _, _)| n);
                let ids = nbs.iter().map(|&(n, _, _)| n).collect();
                let delivery = nbs.iter().map(|&(_, d, _)| d).collect();
                let mac = &w.macs[r as usize];
                let air = node::Airtime {
                    timing: *mac.timing(),
                    mac_bytes: mac.mac_overhead(),
                    rates: nbs.iter().map(|&(_, _, rate)| rate).collect(),
                };
                CopeNode::new(r, ids, delivery, Some(air), &params)
            })
            .collect();
        Cope {
            queues: vec![OutputQueue::new(&params); setup.nodes],
            params,
            nodes,
            radio_node: w.radios.iter().map(|r| r.node).collect(),
            meta: Vec::new(),
            frames: Vec::new(),
            in_mac: vec![None; w.radios.len()],
            pending: Vec::new(),
            scratch: Scratch::default(),
        }
    }

    /// A node's state (tests and reports).
    pub fn node(&self, node: NodeId) -> &CopeNode {
        &self.nodes[node as usize]
    }

    fn meta_mut(&mut self, id: PacketId) -> &mut NativeMeta {
        if self.meta.len() <= slot(id) {
            self.meta.resize(slot(id) + 1, NativeMeta::default());
        }
        &mut self.meta[slot(id)]
    }

    /// Arms `node`'s timer for its next deadline if that is earlier than the one armed.
    fn arm(&mut self, node: NodeId, set: &mut dyn FnMut(Time, u64)) {
        let st = &mut self.nodes[node as usize];
        let at = st.next_wake(&self.params);
        if at < st.timer_at {
            st.timer_at = at;
            set(at, u64::from(node));
        }
    }

    /// Takes the natives of `node`'s next data frame from its queue into `scratch.chosen`
    /// (empty: nothing waits).
    fn choose(&mut self, node: NodeId, now: Time) {
        let meta = &self.meta;
        let solo = |id: u64| meta[id as usize].solo;
        let choice = FifoChoice {
            neighbours: &self.nodes[node as usize].neighbours,
            threshold: self.params.threshold,
            solo: &solo,
        };
        let mut knowing = Knowing {
            p: &self.params,
            nodes: &self.nodes,
            meta,
            coder: node,
            now,
        };
        self.queues[node as usize].next_frame(&choice, &mut knowing, now, &mut self.scratch.chosen);
        let mut chosen = std::mem::take(&mut self.scratch.chosen);
        if let [head] = chosen[..] {
            // A BFLY relay's pair: the XOR goes on as it came, with its other native.
            if let Some(b) = self.meta[head.id as usize].partner.take() {
                chosen.push(QueuedNative {
                    id: u64::from(b.0),
                    next_hop: self.meta[slot(b)].next_hop,
                    large: head.large,
                });
            }
        }
        for n in &chosen {
            self.note_queued(node, n.id, false, now);
        }
        self.scratch.chosen = chosen;
    }

    /// Native `id` joined (`joined`) or left `node`'s output queue: the time with two flows'
    /// data queued (TCP ACKs and other odd streams are not data).
    fn note_queued(&mut self, node: NodeId, id: u64, joined: bool, now: Time) {
        let stream = self.meta[id as usize].stream;
        if stream & 1 == 0 {
            self.nodes[node as usize].data_queued(stream / 2, joined, now);
        }
    }

    /// [`note_queued`](Self::note_queued) for native `id` and its BFLY partner, if any.
    fn note_pair_queued(&mut self, node: NodeId, id: u64, joined: bool, now: Time) {
        self.note_queued(node, id, joined, now);
        if let Some(b) = self.meta[id as usize].partner {
            self.note_queued(node, u64::from(b.0), joined, now);
        }
    }

    /// Queues native `id` (its meta set) at `node`'s radio `r`: at the tail, or at the head
    /// (`front`: back from a COPE retransmission); the native the queue drops, if any, is
    /// dropped here. Whether `id` itself is queued.
    fn enqueue(
        &mut self,
        node: NodeId,
        r: RadioId,
        id: PacketId,
        next_hop: NodeId,
        front: bool,
        ctx: &mut ForwardingCtx<'_>,
    ) -> bool {
        let now = ctx.now();
        let m = self.meta[slot(id)];
        let arrival = Arrival {
            native: QueuedNative {
                id: u64::from(id.0),
                next_hop,
                large: ctx.packet(id).size > SMALL_NATIVE_BYTES,
            },
            stream: m.stream,
            solo: m.solo,
        };
        let mut knowing = Knowing {
            p: &self.params,
            nodes: &self.nodes,
            meta: &self.meta,
            coder: node,
            now,
        };
        let dropped = self.queues[node as usize].push(arrival, front, &mut knowing, now, ctx.rng());
        let joined = dropped != Some(arrival.native.id);
        if joined {
            self.note_pair_queued(node, arrival.native.id, true, now);
        }
        if let Some(victim) = dropped.filter(|&v| v != arrival.native.id) {
            self.note_pair_queued(node, victim, false, now);
        }
        self.nodes[node as usize].held += 1;
        if let Some(victim) = dropped {
            // A BFLY relay's pair is dropped whole.
            let partner = self.meta[victim as usize].partner.take();
            for v in std::iter::once(PacketId(victim as u32)).chain(partner) {
                self.nodes[node as usize].held -= 1;
                ctx.drop_at_radio(r, v, DropReason::QueueFull);
            }
        }
        joined
    }

    /// Fills the COPE header's report and ACK blocks for `node`'s next frame (into
    /// `scratch.report`, `scratch.acks`); returns the header's bytes with `natives` listed.
    fn take_header(&mut self, node: NodeId, natives: usize, now: Time) -> u32 {
        let st = &mut self.nodes[node as usize];
        let s = &mut self.scratch;
        s.report.clear();
        if self.params.knowledge.reports() {
            st.knowledge
                .take_report(self.params.max_report, &mut s.report);
        }
        st.report_since = if st.knowledge.unreported() > 0 && self.params.knowledge.reports() {
            now
        } else {
            NEVER
        };
        st.take_acks(&mut s.acks);
        st.control_due = false;
        let entries = report_entries(&mut s.report);
        let bytes = header_bytes(natives, entries, s.acks.len());
        st.row.header_bytes += u64::from(bytes);
        st.row.natives_reported += s.report.len() as u64;
        st.row.ack_blocks += s.acks.len() as u64;
        bytes
    }

    /// Records what frame `unit` carries besides its natives (from the scratch buffers).
    fn keep_frame_info(&mut self, unit: UnitId) {
        let u = unit as usize;
        if self.frames.len() <= u {
            self.frames.resize_with(u + 1, FrameInfo::default);
        }
        let info = &mut self.frames[u];
        let s = &self.scratch;
        info.report.clear();
        info.report.extend_from_slice(&s.report);
        info.acks.clear();
        info.acks.extend_from_slice(&s.acks);
        info.seqs.clear();
        info.taken.clear();
    }

    /// `me` decoded a frame from `sender` carrying natives `heard` (in `scratch.heard`): learns
    /// what it can, takes its own native, owes the ACKs. `seqs` are the natives' sequence
    /// numbers.
    fn decode(&mut self, me: NodeId, sender: NodeId, unit: UnitId, ctx: &mut ForwardingCtx<'_>) {
        let now = ctx.now();
        let heard = std::mem::take(&mut self.scratch.heard);
        let st = &mut self.nodes[me as usize];
        let known = |st: &CopeNode, n: &Native| st.knowledge.pool.contains(n.packet.uid, now);
        // Natives of others this node does not hold: it learns the last one missing.
        let unknown = heard
            .iter()
            .filter(|n| n.next_hop != me && !known(st, n))
            .count();
        let own = heard.iter().position(|n| n.next_hop == me);
        let own_known = own.is_none_or(|i| known(st, &heard[i]));
        if unknown + usize::from(!own_known) == 1 {
            if let Some(n) = heard.iter().find(|n| !known(st, n)) {
                st.knowledge.heard(n.packet.uid, n.packet.flow, now);
            }
        }
        if let Some(i) = own {
            let n = heard[i];
            let seq = self.frames[unit as usize]
                .seqs
                .get(i)
                .copied()
                .unwrap_or(NO_SEQ);
            if unknown > 0 && !own_known {
                // A side native is missing: this next hop cannot decode its own.
                st.row.decode_failures += 1;
            } else {
                // Decoded now, or known already (overheard earlier, or taken before).
                if !known(st, &n) {
                    st.knowledge.heard(n.packet.uid, n.packet.flow, now);
                }
                if st.accepted.add(n.packet.uid, now) {
                    ctx.accept(me, n.packet, sender);
                } else {
                    st.row.duplicates += 1;
                }
                if let Some(t) = self.frames[unit as usize].taken.get_mut(i) {
                    *t = true;
                }
                if seq != NO_SEQ {
                    st.owe_ack(sender, seq, now);
                }
            }
        }
        st.note_unreported(now);
        self.scratch.heard = heard;
        self.arm(me, &mut |at, token| ctx.set_timer(at, token));
    }

    /// Relay `me` took a BFLY pair's frame from `sender` (natives in `scratch.heard`): it cannot
    /// decode the XOR, so it asks for copies of both natives (joined into one queued unit as
    /// they come in, [`Forwarding::on_packet`]) and owes nothing yet; its ACKs follow the
    /// decoders'. A pair it took before (a MAC retransmission) is a duplicate.
    fn take_pair(&mut self, me: NodeId, sender: NodeId, unit: UnitId, ctx: &mut ForwardingCtx<'_>) {
        let now = ctx.now();
        let heard = std::mem::take(&mut self.scratch.heard);
        let st = &mut self.nodes[me as usize];
        if let [a, b] = heard[..] {
            self.frames[unit as usize].taken.fill(true);
            if st.pairs.add(a.packet.uid, now) {
                let seqs = &self.frames[unit as usize].seqs;
                let seq = |k: usize| seqs.get(k).copied().unwrap_or(NO_SEQ);
                self.pending.push(PendingPair {
                    node: me,
                    coder: sender,
                    uids: [a.packet.uid, b.packet.uid],
                    seqs: [seq(0), seq(1)],
                    ids: [None, None],
                });
                ctx.accept(me, a.packet, sender);
                ctx.accept(me, b.packet, sender);
            } else {
                st.row.duplicates += 2;
            }
        }
        self.scratch.heard = heard;
        self.arm(me, &mut |at, token| ctx.set_timer(at, token));
    }

    /// Queues alone the relay copies of any BFLY pair at `node` whose partner never came in (its
    /// route there ended: not a case static routes make, kept for safety).
    fn flush_pending(&mut self, node: NodeId, ctx: &mut ForwardingCtx<'_>) {
        while let Some(i) = self.pending.iter().position(|pp| pp.node == node) {
            let pp = self.pending.swap_remove(i);
            let r = self.nodes[node as usize].radio;
            for id in pp.ids.into_iter().flatten() {
                self.nodes[node as usize].held -= 1;
                let next_hop = self.meta[slot(id)].next_hop;
                if self.enqueue(node, r, id, next_hop, false, ctx) {
                    ctx.wake(r);
                }
            }
        }
    }

    /// `node`'s timer: natives whose ACK timed out go back to the head of its queue (or are
    /// dropped past the limit), and a control packet falls due if something is owed too long
    /// (under periodic control, only if the node has nothing else to send).
    fn on_node_timer(&mut self, node: NodeId, ctx: &mut ForwardingCtx<'_>) {
        let now = ctx.now();
        let mut expired = std::mem::take(&mut self.scratch.expired);
        let st = &mut self.nodes[node as usize];
        if st.timer_at == now {
            st.timer_at = NEVER;
        }
        let r = st.radio;
        if r == NO_RADIO || ctx.radio_failed(r) {
            self.scratch.expired = expired;
            return;
        }
        st.retx.expire(now, &mut expired);
        let mut wake = false;
        // In reverse, so that each link's natives end up at the head in their sending order.
        for e in expired.iter().rev() {
            let st = &mut self.nodes[node as usize];
            match *e {
                Expired::Requeue { native, .. } | Expired::Drop { native, .. }
                    if self.meta[native as usize].relay.is_some() =>
                {
                    // A BFLY relay copy nobody acknowledged: released without a retransmission
                    // of the relay's own; its coder still holds the original [I].
                    st.row.relay_timeouts += 1;
                    st.held -= 1;
                    self.meta[native as usize].relay = None;
                    ctx.retire(PacketId(native as u32));
                }
                Expired::Requeue {
                    native,
                    next_hop,
                    retries,
                } => {
                    let id = PacketId(native as u32);
                    st.row.retransmissions += 1;
                    st.held -= 1;
                    let m = &mut self.meta[slot(id)];
                    m.retries = retries;
                    if std::mem::take(&mut m.paired) {
                        // A BFLY pair's native goes again uncoded [I].
                        m.solo = true;
                    }
                    self.enqueue(node, r, id, next_hop, true, ctx);
                    wake = true;
                }
                Expired::Drop { native, .. } => {
                    st.row.retry_drops += 1;
                    st.held -= 1;
                    ctx.drop_at_radio(r, PacketId(native as u32), DropReason::LayerRetryLimit);
                }
            }
        }
        self.scratch.expired = expired;
        let idle = self.queues[node as usize].is_empty() && self.in_mac[r as usize].is_none();
        let st = &mut self.nodes[node as usize];
        if !st.control_due && st.control_deadline(&self.params) <= now {
            wake |= st.control_check(&self.params, idle, now);
        }
        if wake {
            ctx.wake(r);
        }
        self.arm(node, &mut |at, token| ctx.set_timer(at, token));
    }
}
