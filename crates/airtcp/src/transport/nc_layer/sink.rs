//! The NC layer at the receiver, paper 000 §4.1.3.
//!
//! - **Decoding.** One `coding::rlnc::BlockDecoder` per block from the lowest block not yet
//!   decoded to the newest block seen; every coded packet is one step of online Gauss-Jordan
//!   elimination.
//! - **NC-ACKs.** Every innovative packet is answered with an NC-ACK carrying the block and its new
//!   rank (the source turns it into TCP's ACK of segment `eta_rank`), and the lowest block not yet
//!   decoded. A packet that is not innovative (a TCP retransmission turned repair packet, a late
//!   repair, a packet of a block already delivered) is answered too, with the block's rank, like
//!   TCP answers a duplicate segment, so that the source can give TCP the ACK of its
//!   retransmission even when the NC-ACKs that carried that rank were lost.
//! - **Delivery.** A block is complete when its rank reaches `H` (or, for a block closed early by
//!   the transfer's last segment, the number of its sources); complete blocks are decoded and
//!   their segments handed to TCP's receiver in order, whole blocks at a time, as in the paper.
//! - **Repair requests** `(block, missing)`: for every incomplete block older than the newest one
//!   seen, as soon as a packet of a later block arrives, then again while it stays incomplete;
//!   for the newest block, once it has been silent for the repeat interval while packets are
//!   known to be missing (a packet combining `k` sources shows that `k` exist). A block of which
//!   nothing arrived is asked for whole ([`MISSING_ALL`]). The repeat interval is
//!   `max(repair_interval, 2 x the smoothed request-to-repair delay)`, so that requests are not
//!   repeated faster than they can be answered when queues make the round trip long. Each
//!   request carries its send time and the repair packets answering it echo it (RFC 7323's
//!   timestamps); the first repair of a block to echo a newer request than the last sampled one
//!   gives a sample `now - echo` (gain 1/8, as RFC 6298's SRTT). A round whose request or
//!   repairs were lost gives no sample, so lost rounds do not stretch the estimate (timing from
//!   the first unanswered request, as before, counted every lost round into the sample: 2-13 s
//!   against rounds of 0.15 s on a congested relay, and stalls of tens of seconds).
//! - **Congestion marks.** A coded packet a relay marked (`ShimHeader::congestion_marked`: the
//!   relay's full buffer dropped one of the flow's packets) sets ECE on the next NC-ACK, as TCP's
//!   receiver echoes Congestion Experienced (RFC 3168 §6.1.3); the source decides what to do.

use std::collections::VecDeque;

use super::header::{
    NcAck, NcCoded, NcHeader, NcRepairRequest, MISSING_ALL, NO_ECHO, TIMESTAMP_BYTES,
};
use super::source::NcSource;
use super::NcIo;
use crate::coding::rlnc::{BlockDecoder, CodedHeader, PayloadMode, Reception};
use crate::sim::header::tcp::DataHeader;
use crate::sim::Time;

/// Counters of the receiver side (reported in the run results as they are).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NcSinkStats {
    /// Coded packets received.
    pub coded_received: u64,
    /// Of which innovative.
    pub innovative: u64,
    /// Of which not innovative for an incomplete block, or for a complete one.
    pub non_innovative: u64,
    /// Of which for a block already decoded and delivered.
    pub late: u64,
    /// NC-ACKs sent.
    pub acks_sent: u64,
    /// Repair requests sent.
    pub requests_sent: u64,
    /// Blocks decoded and delivered.
    pub blocks_decoded: u64,
    /// Segments handed to TCP.
    pub segments_delivered: u64,
    /// Coded packets that arrived with a relay's congestion mark.
    pub marks_received: u64,
    /// NC-ACKs that echoed a mark (ECE).
    pub ece_sent: u64,
}

/// A decoded segment handed up: its TCP header and, in bytes mode, its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    /// The segment's TCP header.
    pub segment: DataHeader,
    /// The decoded bytes (empty in coefficients-only mode).
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
struct SinkBlock {
    /// Created with the block's first packet (which tells `H`).
    decoder: Option<BlockDecoder>,
    /// Sources known to exist: the most any packet combined (exact once `closed`).
    sources: u16,
    closed: bool,
    complete: bool,
    last_arrival: Time,
    next_request: Time,
    /// The newest request echo of this block already timed (a request is timed by the first of
    /// its repairs to arrive).
    timed_echo: Option<Time>,
}

impl SinkBlock {
    fn target(&self) -> Option<u16> {
        let d = self.decoder.as_ref()?;
        Some(if self.closed {
            self.sources
        } else {
            d.block_size() as u16
        })
    }

    fn rank(&self) -> u16 {
        self.decoder.as_ref().map_or(0, |d| d.rank() as u16)
    }
}

/// The receiver side of one flow's NC layer.
#[derive(Debug, Clone)]
pub struct NcSink {
    mode: PayloadMode,
    feedback_bytes: u32,
    repair_interval: Time,
    /// Smoothed delay from a repair request to the first repair packet after it.
    srtt: Option<Time>,
    next_needed: u64,
    blocks: VecDeque<SinkBlock>,
    spare: Vec<BlockDecoder>,
    header: CodedHeader,
    /// A congestion mark arrived and no NC-ACK has echoed it yet.
    mark_pending: bool,
    /// Counters.
    pub stats: NcSinkStats,
}

impl NcSink {
    /// A receiver sending NC-ACKs and repair requests of `feedback_bytes` and repeating a repair
    /// request every `repair_interval`.
    pub fn new(mode: PayloadMode, feedback_bytes: u32, repair_interval: Time) -> Self {
        NcSink {
            mode,
            feedback_bytes,
            repair_interval: repair_interval.max(1),
            srtt: None,
            next_needed: 0,
            blocks: VecDeque::new(),
            spare: Vec::new(),
            header: CodedHeader::default(),
            mark_pending: false,
            stats: NcSinkStats::default(),
        }
    }

    /// The lowest block not yet decoded.
    pub fn next_needed(&self) -> u64 {
        self.next_needed
    }

    /// A coded packet arrived, with a relay's congestion mark if `marked`; decoded segments are
    /// appended to `out` in order. The coefficient vector and (once decoded) the segments'
    /// headers are read from the flow's block table at `source` (see the module header of
    /// `super::source`).
    pub fn on_coded(
        &mut self,
        h: &NcCoded,
        payload: &[u8],
        marked: bool,
        source: &NcSource,
        io: &mut impl NcIo,
        out: &mut Vec<Delivered>,
    ) {
        let now = io.now();
        self.stats.coded_received += 1;
        if marked {
            self.stats.marks_received += 1;
            self.mark_pending = true;
        }
        if h.block < self.next_needed {
            self.stats.late += 1;
            self.send_ack(h.block, 0, io);
            return;
        }
        let i = (h.block - self.next_needed) as usize;
        while self.blocks.len() <= i {
            self.blocks.push_back(SinkBlock::default());
        }
        let (mode, spare) = (self.mode, &mut self.spare);
        let blk = &mut self.blocks[i];
        let decoder = blk.decoder.get_or_insert_with(|| match spare.pop() {
            Some(mut d) => {
                d.reset(h.block, h.block_size as usize);
                d
            }
            None => BlockDecoder::new(mode, h.block, h.block_size as usize),
        });
        let coefficients = source
            .coefficients(h.block, h.packet_id)
            .expect("the source holds every block the receiver has not decoded");
        self.header.block_id = h.block;
        self.header.packet_id = h.packet_id;
        self.header.block_size = h.block_size;
        self.header.coefficients.clear();
        self.header.coefficients.extend_from_slice(coefficients);
        let reception = decoder
            .receive(&self.header, payload)
            .expect("coded packets of one block agree on its size");
        blk.last_arrival = now;
        if h.echo != NO_ECHO && blk.timed_echo.is_none_or(|t| h.echo > t) {
            blk.timed_echo = Some(h.echo);
            let sample = now.saturating_sub(h.echo);
            self.srtt = Some(self.srtt.map_or(sample, |s| s - s / 8 + sample / 8));
        }
        if h.closed {
            blk.closed = true;
            blk.sources = h.sources;
        } else if !blk.closed {
            blk.sources = blk.sources.max(h.sources);
        }
        let rank = blk.rank();
        blk.complete = blk.target().is_some_and(|t| rank >= t);
        match reception {
            Reception::Innovative { rank } => {
                self.stats.innovative += 1;
                self.deliver(source, out);
                self.send_ack(h.block, rank as u16, io);
            }
            Reception::NotInnovative => {
                // Answered with the block's rank, as TCP answers a duplicate segment: the packet
                // may be TCP's retransmission after the NC-ACKs of this rank were lost, and only
                // an answer gives TCP its ACK (unanswered, a window that had sent all it could
                // waited for timeouts that never ended; paper 000's grid, placement 2, seed 2).
                self.stats.non_innovative += 1;
                self.send_ack(h.block, rank, io);
            }
        }
        self.check_repairs(now, io);
    }

    /// The repair timer expired.
    pub fn on_timer(&mut self, io: &mut impl NcIo) {
        let now = io.now();
        self.check_repairs(now, io);
    }

    fn send_ack(&mut self, block: u64, rank: u16, io: &mut impl NcIo) {
        self.stats.acks_sent += 1;
        let ece = std::mem::take(&mut self.mark_pending);
        self.stats.ece_sent += ece as u64;
        let ack = NcAck {
            block,
            rank,
            decoded_below: self.next_needed,
            ece,
        };
        io.send_feedback(NcHeader::Ack(ack), self.feedback_bytes);
    }

    /// Hands the complete blocks at the front up, in order.
    fn deliver(&mut self, source: &NcSource, out: &mut Vec<Delivered>) {
        while self.blocks.front().is_some_and(|b| b.complete) {
            let blk = self.blocks.pop_front().expect("front exists");
            let n = blk.target().expect("a complete block has a decoder") as usize;
            let decoder = blk.decoder.expect("a complete block has a decoder");
            let id = self.next_needed;
            for j in 0..n {
                let segment = source
                    .segment(id, j)
                    .expect("the source holds every block the receiver has not decoded");
                let payload = match self.mode {
                    PayloadMode::Bytes => decoder
                        .decoded_source(j)
                        .expect("a complete block decodes")
                        .to_vec(),
                    PayloadMode::CoefficientsOnly => Vec::new(),
                };
                out.push(Delivered { segment, payload });
            }
            self.spare.push(decoder);
            self.next_needed += 1;
            self.stats.blocks_decoded += 1;
            self.stats.segments_delivered += n as u64;
        }
    }

    /// The smoothed delay from a repair request to the first repair packet answering it, once
    /// one was timed.
    pub fn repair_rtt(&self) -> Option<Time> {
        self.srtt
    }

    /// How long to wait before asking for a block again.
    pub fn repeat_interval(&self) -> Time {
        self.repair_interval
            .max(self.srtt.map_or(0, |s| s.saturating_mul(2)))
    }

    /// Sends the repair requests that are due and re-arms the timer for the next one.
    fn check_repairs(&mut self, now: Time, io: &mut impl NcIo) {
        let newest = self.blocks.len().saturating_sub(1);
        let interval = self.repeat_interval();
        let mut next_due: Option<Time> = None;
        for i in 0..self.blocks.len() {
            let blk = &self.blocks[i];
            if blk.complete {
                continue;
            }
            let (missing, due) = if i < newest {
                let missing = match blk.target() {
                    None => MISSING_ALL,
                    Some(t) => t - blk.rank(),
                };
                (missing, blk.next_request)
            } else {
                let missing = blk.sources.saturating_sub(blk.rank());
                let quiet = blk.last_arrival + interval;
                (missing, blk.next_request.max(quiet))
            };
            if missing == 0 {
                continue;
            }
            let due = if now >= due {
                let block = self.next_needed + i as u64;
                let req = NcRepairRequest {
                    block,
                    missing,
                    sent_at: now,
                };
                let size = self.feedback_bytes + TIMESTAMP_BYTES;
                io.send_feedback(NcHeader::Repair(req), size);
                self.stats.requests_sent += 1;
                let next = now.saturating_add(interval);
                self.blocks[i].next_request = next;
                next
            } else {
                due
            };
            next_due = Some(next_due.map_or(due, |d: Time| d.min(due)));
        }
        io.set_timer(next_due);
    }
}
