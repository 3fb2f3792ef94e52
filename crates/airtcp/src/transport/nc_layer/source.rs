//! The NC layer at the edge point (here the TCP source node), paper 000 §4.1.3 and §4.2.1.
//!
//! Symbols as in the paper: TCP's segments are the source packets `eta_1, eta_2, ...` of the
//! flow; they are cut into blocks of `H_s` (`H`) segments, and the `k`-th coded packet of a block
//! is `a_k = alpha_{k,1} eta_1 + ... + alpha_{k,k} eta_k` (`coding::rlnc::BlockEncoder`).
//!
//! - **Blocks.** A block opens with the first new segment after the previous block is full; `H` is
//!   fixed then: the sender's window (`min(cwnd, rwnd)`, whole segments, from
//!   [`NcSource::set_window`]) capped to `max_block`, or a fixed size. A transfer's last segment
//!   closes its block early.
//! - **Coded packets** replace TCP's segments one for one: same size plus the NC header (block id,
//!   packet id, block size, coefficient count, one byte per coefficient) and the coded payload's
//!   2-byte length prefix. The coefficient vectors and the segments' headers stay in this block
//!   table until the receiver reports the block decoded; the simulated packet carries no bytes,
//!   so the receiver reads a coefficient vector here by `(block, packet id)` (what the header would
//!   carry) and a decoded block's segment headers here (what decoding would reveal).
//! - **NC-ACK -> TCP ACK.** The receiver ACKs every innovative packet with the block's rank `r`;
//!   that ACK stands for segment `eta_r` of the block. A block whose missing degrees of freedom
//!   are masked is reported to TCP whole as soon as a *later* block has been ACKed (its missing
//!   packets were lost or overtaken, and the NC layer, not TCP, repairs them), so wireless losses
//!   and reordering never reach TCP. TCP gets an ACK whenever its view changes: a new cumulative
//!   ACK, or a duplicate ACK whose SACK blocks report more segments.
//! - **Congestion drops at the edge (§4.2.1).** When the source node drops one of the flow's coded
//!   packets on buffer overflow, [`NcSource::on_edge_drop`] *withholds* one segment: the newest one
//!   TCP has not yet seen acknowledged. Its ACK is not given, so TCP sees duplicate ACKs (or
//!   times out) and backs off; no repair is sent on the dropped packet's behalf. TCP's
//!   retransmission of the withheld segment becomes a repair packet of the block that lost the
//!   degree of freedom, and the segment is released when the receiver's answer to that repair
//!   (an NC-ACK of the block with a higher rank, or saying it is complete) arrives: TCP's
//!   retransmission is ACKed a round trip later, as without the NC layer.
//! - **Echoes.** A repair packet sent in answer to a request echoes the request's send time, so
//!   that the receiver times each round (see `super::sink`).
//! - **Congestion at relays.** A relay whose full buffer dropped one of the flow's packets marks
//!   the next one it forwards, and the receiver echoes the mark on an NC-ACK (ECE). Paper 000
//!   passes up only drops at the source, arguing that under TCP-aware backpressure relays do not
//!   overflow (§4.2.1, footnote 5); under other routing, or with windows far above the path's
//!   capacity, they do, and a masked relay drop leaves TCP's window unbounded. With
//!   `relay_congestion: signal` (the default) an echoed mark withholds one segment, exactly as an
//!   edge drop does, at most once per smoothed round trip (RFC 3168 §6.1.2: one reduction per
//!   window of data); with `mask` marks are counted and ignored.
//! - **Repairs.** A repair request `(block, missing)` is answered with `missing` repair packets,
//!   less the repairs of that block sent within the last round trip (still on their way; the
//!   receiver's request cannot reflect them) and the withheld degrees of freedom. A TCP
//!   retransmission of any segment still in the table becomes a repair packet of its block; for a
//!   block the receiver already has, the receiver answers with an NC-ACK, which gives TCP the ACK
//!   of its retransmission.

use std::collections::{BTreeSet, VecDeque};

use super::header::{NcAck, NcCoded, NcRepairRequest, MISSING_ALL, NO_ECHO, PAYLOAD_PREFIX_BYTES};
use super::NcIo;
use crate::coding::rlnc::{BlockEncoder, CodedPacket, PayloadMode, MAX_BLOCK_SIZE};
use crate::sim::header::tcp::{AckHeader, DataHeader, SackBlock, MAX_SACK_BLOCKS};
use crate::sim::{Rng, Time};
use crate::transport::nc_layer::config::{NcBlock, RelayCongestion};

/// Counters of the source side (reported in the run results, two of them renamed there).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NcSourceStats {
    /// Blocks opened.
    pub blocks: u64,
    /// Incremental coded packets sent (one per new TCP segment).
    pub coded_sent: u64,
    /// Repair packets sent in answer to repair requests.
    pub repairs_requested: u64,
    /// Repair packets sent for TCP retransmissions.
    pub repairs_retransmitted: u64,
    /// TCP retransmissions of segments no longer held (nothing sent).
    pub absorbed: u64,
    /// Repair requests received.
    #[serde(rename = "requests_received")]
    pub requests: u64,
    /// NC-ACKs received.
    #[serde(rename = "acks_received")]
    pub nc_acks: u64,
    /// ACKs handed to TCP.
    pub tcp_acks: u64,
    /// Coded packets dropped on overflow at the source node (each withholds one segment).
    pub edge_drops: u64,
    /// NC-ACKs echoing a relay's congestion mark (ECE).
    pub ece_received: u64,
    /// Of which withheld a segment, so that TCP backs off (at most one per round trip; none with
    /// `relay_congestion: mask`).
    pub congestion_signals: u64,
}

/// A repair packet's coefficient vector in the block's store.
#[derive(Debug, Clone, Copy)]
struct Repair {
    offset: u32,
    len: u16,
    sent: Time,
}

/// One block in the table.
#[derive(Debug, Clone)]
struct SourceBlock {
    id: u64,
    /// Sequence number of `eta_1`.
    base: u64,
    /// `H`.
    size: u16,
    /// No more sources will join (a transfer's last segment is in it).
    closed: bool,
    /// Highest rank the receiver reported.
    rank: u16,
    /// The receiver has every degree of freedom of the block.
    complete: bool,
    encoder: BlockEncoder,
    /// The sources' TCP headers, `eta_1..`.
    segments: Vec<DataHeader>,
    /// Longest payload among the sources, bytes.
    longest: u32,
    /// Every coefficient vector sent, concatenated.
    coefficients: Vec<u8>,
    /// Offset of `a_k`'s vector (`k` bytes) in `coefficients`, index `k - 1`.
    incremental: Vec<u32>,
    /// The repair packets, in order (`H + 1, H + 2, ...`).
    repairs: Vec<Repair>,
}

impl SourceBlock {
    fn new(mode: PayloadMode) -> Self {
        SourceBlock {
            id: 0,
            base: 0,
            size: 1,
            closed: false,
            rank: 0,
            complete: false,
            encoder: BlockEncoder::new(mode, 0, 1),
            segments: Vec::new(),
            longest: 0,
            coefficients: Vec::new(),
            incremental: Vec::new(),
            repairs: Vec::new(),
        }
    }

    fn reset(&mut self, id: u64, base: u64, size: u16) {
        self.id = id;
        self.base = base;
        self.size = size;
        self.closed = false;
        self.rank = 0;
        self.complete = false;
        self.encoder.reset(id, size as usize);
        self.segments.clear();
        self.longest = 0;
        self.coefficients.clear();
        self.incremental.clear();
        self.repairs.clear();
    }

    fn pushed(&self) -> u16 {
        self.segments.len() as u16
    }

    /// One past the last segment pushed.
    fn end(&self) -> u64 {
        self.base + self.segments.len() as u64
    }

    fn takes_more(&self) -> bool {
        !self.closed && self.pushed() < self.size
    }

    /// Degrees of freedom that complete the block.
    fn target(&self) -> u16 {
        if self.closed {
            self.pushed()
        } else {
            self.size
        }
    }

    fn coefficients_of(&self, packet_id: u32) -> Option<&[u8]> {
        let (offset, len) = if packet_id <= self.size as u32 {
            let k = packet_id.checked_sub(1)? as usize;
            (*self.incremental.get(k)?, packet_id as usize)
        } else {
            let r = (packet_id - self.size as u32 - 1) as usize;
            let repair = self.repairs.get(r)?;
            (repair.offset, repair.len as usize)
        };
        self.coefficients
            .get(offset as usize..offset as usize + len)
    }
}

/// The most segments withheld (or due to be) at once; see [`NcSource::on_edge_drop`]. Far above
/// the windows of paper 000 (20 to 50 segments); it bounds the bookkeeping per drop and per ACK
/// when a window of thousands of segments overflows the source's queue (without it, each drop
/// scanned the window against every withheld segment and a run slowed with the cube of the
/// window).
pub const MAX_WITHHELD: usize = 256;

/// A segment whose ACK is withheld from TCP because one of the flow's coded packets was dropped
/// at the edge.
#[derive(Debug, Clone, Copy)]
struct Withheld {
    seq: u64,
    /// The block that lost the degree of freedom.
    dof_block: u64,
    /// After TCP retransmitted the segment: the block its repair packet went to, and that
    /// block's rank as the source knew it then. An NC-ACK answering the repair releases it.
    retransmitted: Option<(u64, u16)>,
}

/// The source side of one flow's NC layer.
#[derive(Debug, Clone)]
pub struct NcSource {
    rule: NcBlock,
    max_block: u16,
    header_bytes: u32,
    mode: PayloadMode,
    rng: Rng,
    /// Blocks not yet decoded by the receiver (or pinned by a withheld segment), oldest first;
    /// they cover the segments `[floor, next_seq)` without gaps.
    blocks: VecDeque<SourceBlock>,
    spare: Vec<SourceBlock>,
    next_block: u64,
    next_seq: u64,
    /// Every segment below has been acknowledged to TCP and decoded by the receiver.
    floor: u64,
    window: u64,
    withheld: Vec<Withheld>,
    /// The `seq` of every entry of `withheld`, for lookups in O(log n).
    withheld_seqs: BTreeSet<u64>,
    /// Edge drops still to be charged to a segment (TCP had nothing unacknowledged when they
    /// happened): the next new segments are withheld.
    withhold_next: VecDeque<u64>,
    /// The view last handed to TCP: cumulative ACK and segments SACKed above it.
    told_cum: u64,
    told_sacked: u64,
    coded: CodedPacket,
    /// Scratch: segments acknowledged in TCP's view, as sorted disjoint ranges.
    covered: Vec<(u64, u64)>,
    /// What an echoed congestion mark does.
    pub(crate) relay_congestion: RelayCongestion,
    /// No echoed mark withholds a segment before this time (one signal per round trip).
    next_signal: Time,
    /// Counters.
    pub stats: NcSourceStats,
}

impl NcSource {
    /// The source side of a flow whose TCP puts `header_bytes` of IP + TCP header on each
    /// segment; coefficients are drawn from `rng` (the flow's own stream).
    pub fn new(
        rule: NcBlock,
        max_block: u32,
        header_bytes: u32,
        mode: PayloadMode,
        rng: Rng,
    ) -> Self {
        NcSource {
            rule,
            max_block: max_block.clamp(1, MAX_BLOCK_SIZE as u32) as u16,
            header_bytes,
            mode,
            rng,
            blocks: VecDeque::new(),
            spare: Vec::new(),
            next_block: 0,
            next_seq: 0,
            floor: 0,
            window: 1,
            withheld: Vec::new(),
            withheld_seqs: BTreeSet::new(),
            withhold_next: VecDeque::new(),
            told_cum: 0,
            told_sacked: 0,
            coded: CodedPacket::default(),
            covered: Vec::new(),
            relay_congestion: RelayCongestion::Signal,
            next_signal: 0,
            stats: NcSourceStats::default(),
        }
    }

    /// The sender's window, whole segments: `H` of the next block to open (with `block: cwnd`).
    pub fn set_window(&mut self, segments: u64) {
        self.window = segments.max(1);
    }

    /// Segments whose ACK is withheld from TCP, and edge drops due to withhold the next new ones.
    pub fn withheld(&self) -> usize {
        self.withheld.len() + self.withhold_next.len()
    }

    /// Blocks held (not yet decoded by the receiver).
    pub fn blocks_held(&self) -> usize {
        self.blocks.len()
    }

    /// The coefficient vector of packet `packet_id` of block `block` (what its header carries).
    pub fn coefficients(&self, block: u64, packet_id: u32) -> Option<&[u8]> {
        let i = self.index_of_block(block)?;
        self.blocks[i].coefficients_of(packet_id)
    }

    /// The TCP header of source `index` (0-based) of block `block`: what decoding reveals.
    pub fn segment(&self, block: u64, index: usize) -> Option<DataHeader> {
        let i = self.index_of_block(block)?;
        self.blocks[i].segments.get(index).copied()
    }

    /// TCP hands a segment down: a new one joins the open block and leaves as its next coded
    /// packet; a retransmission becomes a repair packet. `payload` is the segment's bytes (ignored
    /// in coefficients-only mode).
    pub fn on_segment(&mut self, seg: DataHeader, payload: &[u8], io: &mut impl NcIo) {
        if seg.seq < self.next_seq {
            self.on_retransmission(seg.seq, io);
            return;
        }
        debug_assert_eq!(
            seg.seq, self.next_seq,
            "TCP hands new segments down in order"
        );
        if !self.blocks.back().is_some_and(SourceBlock::takes_more) {
            self.open_block();
        }
        let blk = self.blocks.back_mut().expect("a block is open");
        blk.encoder
            .push_source(payload, &mut self.rng, &mut self.coded)
            .expect("the open block has room and a segment fits a source packet");
        blk.incremental.push(blk.coefficients.len() as u32);
        blk.coefficients
            .extend_from_slice(&self.coded.header.coefficients);
        blk.segments.push(seg);
        blk.longest = blk.longest.max(seg.len);
        blk.closed |= seg.last;
        self.next_seq = seg.seq + 1;
        self.stats.coded_sent += 1;
        let header = NcCoded {
            block: blk.id,
            packet_id: self.coded.header.packet_id,
            block_size: blk.size,
            sources: blk.pushed(),
            closed: blk.closed,
            echo: NO_ECHO,
        };
        let size = coded_size(self.header_bytes, &header, blk.longest);
        if let Some(dof_block) = self.withhold_next.pop_front() {
            self.withhold(seg.seq, dof_block);
        }
        io.send_coded(header, size, &self.coded.payload);
    }

    fn open_block(&mut self) {
        let size = match self.rule {
            NcBlock::Cwnd => self.window.min(self.max_block as u64),
            NcBlock::Fixed(h) => h as u64,
        }
        .clamp(1, MAX_BLOCK_SIZE as u64) as u16;
        let mut blk = self
            .spare
            .pop()
            .unwrap_or_else(|| SourceBlock::new(self.mode));
        blk.reset(self.next_block, self.next_seq, size);
        self.next_block += 1;
        self.stats.blocks += 1;
        self.blocks.push_back(blk);
    }

    fn on_retransmission(&mut self, seq: u64, io: &mut impl NcIo) {
        let Some(mut target) = self.index_of_seq(seq) else {
            self.stats.absorbed += 1;
            return;
        };
        let withheld = self.withheld_seqs.contains(&seq);
        if let Some(i) = withheld
            .then(|| self.withheld.iter().position(|w| w.seq == seq))
            .flatten()
        {
            if let Some(j) = self.index_of_block(self.withheld[i].dof_block) {
                if !self.blocks[j].complete {
                    target = j;
                }
            }
            let blk = &self.blocks[target];
            self.withheld[i].retransmitted = Some((blk.id, blk.rank));
        }
        self.send_repair(target, NO_ECHO, io);
        self.stats.repairs_retransmitted += 1;
    }

    /// Sends a repair packet of the block at `index`, echoing `echo` (a request's send time, or
    /// [`NO_ECHO`]).
    fn send_repair(&mut self, index: usize, echo: Time, io: &mut impl NcIo) {
        let now = io.now();
        let blk = &mut self.blocks[index];
        blk.encoder
            .repair(&mut self.rng, &mut self.coded)
            .expect("a block holds at least one source");
        let len = self.coded.header.coefficients.len() as u16;
        blk.repairs.push(Repair {
            offset: blk.coefficients.len() as u32,
            len,
            sent: now,
        });
        blk.coefficients
            .extend_from_slice(&self.coded.header.coefficients);
        let header = NcCoded {
            block: blk.id,
            packet_id: self.coded.header.packet_id,
            block_size: blk.size,
            sources: len,
            closed: blk.closed,
            echo,
        };
        let size = coded_size(self.header_bytes, &header, blk.longest);
        io.send_coded(header, size, &self.coded.payload);
    }

    /// A repair request arrived. `rtt` is the flow's smoothed round-trip time: repairs of the
    /// block sent more recently are taken to be still on their way.
    pub fn on_repair_request(&mut self, req: &NcRepairRequest, rtt: Time, io: &mut impl NcIo) {
        self.stats.requests += 1;
        let Some(i) = self.index_of_block(req.block) else {
            return;
        };
        let now = io.now();
        let blk = &self.blocks[i];
        if blk.complete {
            return;
        }
        let missing = if req.missing == MISSING_ALL {
            blk.pushed() as usize
        } else {
            req.missing as usize
        };
        let on_the_way = blk
            .repairs
            .iter()
            .filter(|r| r.sent.saturating_add(rtt) > now)
            .count();
        let withheld = self
            .withheld
            .iter()
            .filter(|w| w.dof_block == req.block && w.retransmitted.is_none())
            .count()
            + self
                .withhold_next
                .iter()
                .filter(|&&b| b == req.block)
                .count();
        for _ in 0..missing.saturating_sub(on_the_way + withheld) {
            self.send_repair(i, req.sent_at, io);
            self.stats.repairs_requested += 1;
        }
    }

    /// One of the flow's coded packets was dropped on overflow at the source node: withhold the
    /// ACK of the newest segment TCP has not seen acknowledged (or, if there is none, of the next
    /// new one), so that TCP sees the loss.
    ///
    /// At most [`MAX_WITHHELD`] segments are withheld (or due to be) at a time; a drop beyond
    /// that withholds nothing more: TCP already sees losses in this window, and the receiver's
    /// repair requests recover the missing degree of freedom (they are not reduced by it).
    pub fn on_edge_drop(&mut self, coded: &NcCoded) {
        self.stats.edge_drops += 1;
        if coded.packet_id > coded.block_size as u32 {
            // A repair packet: the layer's own answer to a repair request, not TCP's data. The
            // receiver asks again; withholding a segment of TCP's for it would hold TCP to
            // ransom for a packet it never sent: a window far above the source queue then lost
            // repair bursts at the edge, each withholding another segment, and the flow stalled
            // for good once the withheld segments outnumbered the repairs let through.
            return;
        }
        self.withhold_for(coded.block);
    }

    /// Withholds the newest segment TCP has not seen acknowledged (or the next new one) for a
    /// degree of freedom of `dof_block` lost to congestion; nothing once [`MAX_WITHHELD`] are.
    fn withhold_for(&mut self, dof_block: u64) {
        if self.withheld.len() + self.withhold_next.len() >= MAX_WITHHELD {
            return;
        }
        self.compute_view(false);
        let lowest = self.floor.max(self.told_cum);
        match self.newest_unacknowledged(lowest) {
            Some(seq) => self.withhold(seq, dof_block),
            None => self.withhold_next.push_back(dof_block),
        }
    }

    fn withhold(&mut self, seq: u64, dof_block: u64) {
        self.withheld.push(Withheld {
            seq,
            dof_block,
            retransmitted: None,
        });
        self.withheld_seqs.insert(seq);
    }

    /// The newest segment in `[lowest, next_seq)` that TCP's view (`covered`, without the
    /// withholding) does not acknowledge and that is not withheld yet. Walks the gaps between
    /// the covered ranges from the top, so a long acknowledged stretch costs one step.
    fn newest_unacknowledged(&self, lowest: u64) -> Option<u64> {
        // `covered` lies within [floor, next_seq), sorted: walked from the top down.
        let mut top = self.next_seq; // exclusive top of the stretch being looked at
        let mut below = self.covered.iter().rev();
        while top > lowest {
            let (gap_start, next_top) = match below.next() {
                // `top - 1` is covered: continue under this range.
                Some(&(s, e)) if e >= top => {
                    top = s;
                    continue;
                }
                Some(&(s, e)) => (e, s),
                None => (lowest, lowest),
            };
            let gap_start = gap_start.max(lowest);
            // Withheld segments sit at the top of the gaps; skip them one by one (there are at
            // most MAX_WITHHELD).
            let mut seq = top;
            while seq > gap_start {
                seq -= 1;
                if !self.withheld_seqs.contains(&seq) {
                    return Some(seq);
                }
            }
            top = next_top;
        }
        None
    }

    /// An NC-ACK arrived at `now`: the ACK to hand to TCP, if TCP's view changed. `rtt` is the
    /// flow's smoothed round-trip time, which spaces the congestion signals of echoed marks.
    pub fn on_ack(&mut self, ack: &NcAck, rtt: Time, now: Time) -> Option<AckHeader> {
        self.stats.nc_acks += 1;
        if let Some(i) = self.index_of_block(ack.block) {
            let blk = &mut self.blocks[i];
            blk.rank = blk.rank.max(ack.rank.min(blk.pushed()));
            if blk.rank >= blk.target() {
                blk.complete = true;
            }
        }
        for blk in self.blocks.iter_mut() {
            if blk.id >= ack.decoded_below {
                break;
            }
            blk.complete = true;
            blk.rank = blk.pushed();
        }
        // Withheld segments whose retransmission this NC-ACK answers are released.
        let complete = self
            .index_of_block(ack.block)
            .is_none_or(|i| self.blocks[i].complete);
        let released = &mut self.withheld_seqs;
        self.withheld.retain(|w| {
            let keep = match w.retransmitted {
                None => true,
                Some((block, rank)) => {
                    let answered = ack.block == block && (ack.rank > rank || complete);
                    !(answered || ack.decoded_below > block)
                }
            };
            if !keep {
                released.remove(&w.seq);
            }
            keep
        });
        if ack.ece {
            self.on_mark_echoed(ack.block, rtt, now);
        }
        while let Some(front) = self.blocks.front() {
            let pinned = self
                .withheld_seqs
                .range(front.base..front.end())
                .next()
                .is_some();
            if front.id >= ack.decoded_below || pinned {
                break;
            }
            let blk = self.blocks.pop_front().expect("front exists");
            self.floor = blk.end();
            self.spare.push(blk);
        }
        self.tcp_ack()
    }

    /// An NC-ACK of `block` echoed a relay's congestion mark: with `relay_congestion: signal`,
    /// withhold a segment as an edge drop does, unless one was withheld for a mark within the
    /// last round trip (the mark and its siblings report one congestion episode). The withheld
    /// segment's retransmission becomes a repair of `block` if that block is still incomplete,
    /// and stands in for a repair the receiver asks for there (the relay's drop cost it one).
    fn on_mark_echoed(&mut self, block: u64, rtt: Time, now: Time) {
        self.stats.ece_received += 1;
        if self.relay_congestion == RelayCongestion::Mask || now < self.next_signal {
            return;
        }
        self.next_signal = now.saturating_add(rtt);
        self.stats.congestion_signals += 1;
        self.withhold_for(block);
    }

    /// The ACK for TCP if its view changed since the last one.
    fn tcp_ack(&mut self) -> Option<AckHeader> {
        self.compute_view(true);
        let (cum, above) = match self.covered.first() {
            Some(&(start, end)) if start <= self.floor => (end, &self.covered[1..]),
            _ => (self.floor, &self.covered[..]),
        };
        let sacked: u64 = above.iter().map(|&(s, e)| e - s).sum();
        debug_assert!(
            cum >= self.told_cum,
            "TCP's cumulative ACK never moves back"
        );
        let changed = cum > self.told_cum || sacked > self.told_sacked;
        if !changed {
            return None;
        }
        self.told_cum = cum;
        self.told_sacked = sacked;
        let mut h = AckHeader::cumulative(cum);
        for &(start, end) in above.iter().rev().take(MAX_SACK_BLOCKS) {
            h.sack[h.n_sack as usize] = SackBlock { start, end };
            h.n_sack += 1;
        }
        self.stats.tcp_acks += 1;
        Some(h)
    }

    /// Fills `covered` with the segments acknowledged in TCP's view: a block's first `rank`
    /// segments, or all of it once a later block has been ACKed; less the withheld segments if
    /// `withhold`.
    fn compute_view(&mut self, withhold: bool) {
        self.covered.clear();
        let mut later = false;
        for blk in self.blocks.iter().rev() {
            let acked = blk.rank.min(blk.pushed()) as u64;
            let len = if later { blk.pushed() as u64 } else { acked };
            later |= acked > 0;
            if len == 0 {
                continue;
            }
            match self.covered.last_mut() {
                // Walking backwards: merge with the range that starts where this one ends.
                Some(last) if last.0 == blk.base + len => last.0 = blk.base,
                _ => self.covered.push((blk.base, blk.base + len)),
            }
        }
        self.covered.reverse();
        if withhold {
            for w in &self.withheld {
                let i = self.covered.partition_point(|&(s, _)| s <= w.seq);
                let Some(i) = i.checked_sub(1).filter(|&i| w.seq < self.covered[i].1) else {
                    continue;
                };
                let (s, e) = self.covered[i];
                match (s < w.seq, w.seq + 1 < e) {
                    (true, true) => {
                        self.covered[i] = (s, w.seq);
                        self.covered.insert(i + 1, (w.seq + 1, e));
                    }
                    (true, false) => self.covered[i] = (s, w.seq),
                    (false, true) => self.covered[i] = (w.seq + 1, e),
                    (false, false) => {
                        self.covered.remove(i);
                    }
                }
            }
        }
    }

    fn index_of_block(&self, block: u64) -> Option<usize> {
        let first = self.blocks.front()?.id;
        let i = block.checked_sub(first)? as usize;
        (i < self.blocks.len()).then_some(i)
    }

    fn index_of_seq(&self, seq: u64) -> Option<usize> {
        let i = self.blocks.partition_point(|b| b.base <= seq);
        let i = i.checked_sub(1)?;
        (seq < self.blocks[i].end()).then_some(i)
    }
}

/// Bytes of a coded packet: IP + TCP header (inside the coded payload in a real stack, counted
/// the same), the longest source payload it combines, the length prefix and the NC header.
fn coded_size(header_bytes: u32, header: &NcCoded, longest: u32) -> u32 {
    header_bytes + longest + PAYLOAD_PREFIX_BYTES + header.wire_len()
}
