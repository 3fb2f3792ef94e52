//! The TCP-RLC receiver (Ryu, Bhadra & Shakkottai, Allerton 2009, §III-B; the rules the text
//! leaves open follow the spec's §2.5, marked [I]).
//!
//! The receiver decodes each block from any B innovative packets and answers every arriving
//! data-direction packet with one feedback:
//! - `cum` = next expected, the smallest frame not decoded (a block decodes whole at full rank;
//!   before that, systematic frames received in order from its start are decoded one by one);
//! - `seen` = the first frame of the block `cum` lies in plus that block's rank: "next expected +
//!   the innovative packets that help decode it" [P], the pseudo-ACK that slides the sender's
//!   window when coded packets stand in for lost frames;
//! - `dup` = the packet "does not help decode the next expected" [P]: a non-innovative packet of
//!   the block `cum` lies in, or any packet of a later block (stored and decoded later; Fig. 3(b));
//! - multipath: the packet's path and round, echoed, with the packets of that path and round
//!   received so far (the path controller's success test, `multipath`).
//!
//! - the decode delay of every frame delivered in order: from the earliest send time among its
//!   block's packets that arrived to the delivery ([`super::decode_delay`]).
//!
//! A packet of a block already decoded is *stale*: counted, answered with `dup` = 0, and nothing
//! else [I, A3]. Every good round trip ends with C - W surplus coded packets of a decoded block
//! (the router fills its capacity with them); read literally, "does not help" would make each of
//! them a duplicate and halve the window every round. The literal reading is kept as an ablation
//! (`literal_dup`), which must collapse throughput.
//!
//! Decoding is exact (online Gauss-Jordan over GF(8191) or GF(2^8), coefficients regenerated from
//! each packet's seed) or by counting (a coded packet is non-innovative with probability q^-m,
//! exact in distribution; the draw is the one the packet's seed stands for). Block decoders are
//! reused: after warm-up nothing is allocated per packet.

use std::collections::VecDeque;

use crate::coding::counting_decoder::CountingDecoder;
use crate::coding::exact_decoder::ExactDecoder;
use crate::coding::field::{coefficients_from_seed, uniform_from_seed, Field, Gf256, Gf8191};
use crate::coding::rank_tally::RankTally;
use crate::sim::header::rlc::{Payload, RlcData, RlcFeedback, PACKET_BYTES};
use crate::sim::Time;

use super::decode_delay::DecodeDelays;

/// The field coded packets are combined over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RlcField {
    /// GF(8191), the paper's [P §IV].
    Gf8191,
    /// GF(2^8).
    Gf256,
}

impl RlcField {
    /// The number of elements, q.
    pub fn order(self) -> u32 {
        match self {
            RlcField::Gf8191 => Gf8191::ORDER,
            RlcField::Gf256 => Gf256::ORDER,
        }
    }
}

/// How ranks are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecoderMode {
    /// By counting, exact in distribution (the fast default).
    Counting,
    /// By Gauss-Jordan elimination of the coefficient vectors.
    Exact,
}

/// One block's decoder, in the receiver's mode and field.
#[derive(Debug, Clone)]
enum BlockDecoder {
    Counting(CountingDecoder),
    Exact8191(ExactDecoder<Gf8191>),
    Exact256(ExactDecoder<Gf256>),
}

/// A block being decoded.
#[derive(Debug, Clone)]
struct RxBlock {
    start: u64,
    size: u32,
    decoder: BlockDecoder,
    /// Which of the block's frames arrived systematic.
    systematic: Vec<bool>,
    /// Frames from the start that arrived systematic, in a row.
    prefix: u32,
    /// The earliest send time among the packets of the block that arrived.
    first_sent: Time,
}

/// Reused coefficient rows for the exact decoders.
#[derive(Debug, Clone, Default)]
struct Scratch {
    gf8191: Vec<u16>,
    gf256: Vec<u8>,
}

impl RxBlock {
    /// Bytes the block holds on the heap (its decoder and its systematic marks).
    fn heap_bytes(&self) -> u64 {
        let decoder = match &self.decoder {
            BlockDecoder::Counting(d) => d.heap_bytes(),
            BlockDecoder::Exact8191(d) => d.heap_bytes(),
            BlockDecoder::Exact256(d) => d.heap_bytes(),
        };
        decoder + self.systematic.capacity() as u64
    }

    fn tally(&self) -> &RankTally {
        match &self.decoder {
            BlockDecoder::Counting(d) => d.tally(),
            BlockDecoder::Exact8191(d) => d.tally(),
            BlockDecoder::Exact256(d) => d.tally(),
        }
    }

    fn end(&self) -> u64 {
        self.start + self.size as u64
    }

    /// Empties the block for `start`/`size`, reusing its storage.
    fn reset(&mut self, start: u64, size: u32) {
        self.start = start;
        self.size = size;
        let n = size as usize;
        match &mut self.decoder {
            BlockDecoder::Counting(d) => d.reset(n),
            BlockDecoder::Exact8191(d) => d.reset(n, 0),
            BlockDecoder::Exact256(d) => d.reset(n, 0),
        }
        self.systematic.clear();
        self.systematic.resize(n, false);
        self.prefix = 0;
        self.first_sent = Time::MAX;
    }

    /// Takes one packet of this block; whether it was innovative.
    fn receive(&mut self, h: &RlcData, scratch: &mut Scratch) -> bool {
        self.first_sent = self.first_sent.min(h.sent_at);
        match h.payload {
            Payload::Systematic => {
                let i = (h.frame - self.start) as usize;
                self.systematic[i] = true;
                while (self.prefix as usize) < self.systematic.len()
                    && self.systematic[self.prefix as usize]
                {
                    self.prefix += 1;
                }
                match &mut self.decoder {
                    BlockDecoder::Counting(d) => d.receive_systematic(i),
                    BlockDecoder::Exact8191(d) => d.receive_systematic(i, &[]),
                    BlockDecoder::Exact256(d) => d.receive_systematic(i, &[]),
                }
            }
            Payload::Coded { seed } => {
                let n = self.size as usize;
                match &mut self.decoder {
                    BlockDecoder::Counting(d) => d.receive_coded(uniform_from_seed(seed)),
                    BlockDecoder::Exact8191(d) => {
                        let row = &mut scratch.gf8191[..n];
                        coefficients_from_seed::<Gf8191>(seed, row);
                        d.receive_coded(row, &[])
                    }
                    BlockDecoder::Exact256(d) => {
                        let row = &mut scratch.gf256[..n];
                        coefficients_from_seed::<Gf256>(seed, row);
                        d.receive_coded(row, &[])
                    }
                }
            }
        }
    }

    /// Frames from the start that are decoded: all at full rank, else the systematic prefix.
    fn decoded(&self) -> u32 {
        if self.tally().is_complete() {
            self.size
        } else {
            self.prefix
        }
    }
}

/// The receiver's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RlcReceiverStats {
    /// Data-direction packets received.
    pub packets: u64,
    /// Of those, innovative.
    pub innovative: u64,
    /// Packets of blocks already decoded.
    pub stale: u64,
    /// Feedback sent with `dup` set.
    pub dups: u64,
    /// Packets whose header made no sense (a frame outside its block, a block that overlaps a
    /// known one differently): ignored, answered like stale ones.
    pub malformed: u64,
    /// Blocks decoded.
    pub blocks_decoded: u64,
}

/// What one arriving packet produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reception {
    /// The feedback to send.
    pub feedback: RlcFeedback,
    /// Frames newly decoded in order (the application's gain).
    pub frames: u64,
}

impl Reception {
    /// Application bytes newly decoded: whole 256-byte packets (the paper's throughput counts
    /// decoded packets, spec A17).
    pub fn bytes(&self) -> u64 {
        self.frames * PACKET_BYTES as u64
    }
}

/// The TCP-RLC receiver (see the module header).
#[derive(Debug, Clone)]
pub struct RlcReceiver {
    field: RlcField,
    mode: DecoderMode,
    literal_dup: bool,
    next_expected: u64,
    /// Blocks not yet decoded, in order of their start; the first may hold `next_expected`.
    blocks: VecDeque<RxBlock>,
    spare: Vec<RxBlock>,
    scratch: Scratch,
    /// Per path, the last rounds' (round, packets received), indexed round % 4.
    rounds: Vec<[(u32, u32); 4]>,
    /// The decode delays of the frames delivered in order.
    pub delays: DecodeDelays,
    /// The counters.
    pub stats: RlcReceiverStats,
}

impl RlcReceiver {
    /// A receiver decoding in `mode` over `field`; `literal_dup` answers stale packets with
    /// duplicates (the ablation of A3).
    pub fn new(field: RlcField, mode: DecoderMode, literal_dup: bool) -> Self {
        RlcReceiver {
            field,
            mode,
            literal_dup,
            next_expected: 0,
            blocks: VecDeque::new(),
            spare: Vec::new(),
            scratch: Scratch::default(),
            rounds: Vec::new(),
            delays: DecodeDelays::default(),
            stats: RlcReceiverStats::default(),
        }
    }

    /// Counts `h` in its path's round; the count so far (0 for a single-path packet or a round
    /// too old to count).
    fn count_round(&mut self, h: &RlcData) -> u32 {
        let (path, round) = (h.mark.path as usize, h.mark.round);
        if round == 0 {
            return 0;
        }
        if self.rounds.len() <= path {
            self.rounds.resize(path + 1, [(0, 0); 4]);
        }
        let entry = &mut self.rounds[path][round as usize % 4];
        if entry.0 < round {
            *entry = (round, 0);
        }
        if entry.0 != round {
            return 0;
        }
        entry.1 += 1;
        entry.1
    }

    /// Bytes the receiver holds on the heap: the blocks awaiting decoding (as many as the
    /// sender has moved past without their being decoded), the spare ones and the coefficient
    /// rows, for the memory budget's check of what a run grows.
    pub fn heap_bytes(&self) -> u64 {
        let blocks: u64 = self
            .blocks
            .iter()
            .chain(&self.spare)
            .map(RxBlock::heap_bytes)
            .sum();
        let each = std::mem::size_of::<RxBlock>() as u64;
        let slots = (self.blocks.capacity() + self.spare.capacity()) as u64 * each;
        blocks
            + slots
            + self.delays.heap_bytes()
            + self.scratch.gf8191.capacity() as u64 * 2
            + self.scratch.gf256.capacity() as u64
    }

    /// The smallest frame not decoded.
    pub fn next_expected(&self) -> u64 {
        self.next_expected
    }

    /// Takes one data-direction packet arriving at `now` and says what to answer.
    pub fn on_data(&mut self, h: &RlcData, now: Time) -> Reception {
        self.stats.packets += 1;
        let mut frames = 0;
        let dup = if h.block_end() <= self.next_expected {
            self.stats.stale += 1;
            self.literal_dup
        } else {
            match self.block_index(h) {
                None => {
                    self.stats.malformed += 1;
                    false
                }
                Some(i) => {
                    let innovative = self.blocks[i].receive(h, &mut self.scratch);
                    self.stats.innovative += u64::from(innovative);
                    let current = h.block_start <= self.next_expected;
                    frames = self.advance(now);
                    !(current && innovative)
                }
            }
        };
        self.stats.dups += u64::from(dup);
        let count = self.count_round(h);
        let seen = match self.blocks.front() {
            Some(b) if b.start <= self.next_expected => b.start + b.tally().rank() as u64,
            _ => self.next_expected,
        };
        Reception {
            feedback: RlcFeedback {
                cum: self.next_expected,
                seen,
                dup,
                echo: h.sent_at,
                mark: h.mark,
                count,
            },
            frames,
        }
    }

    /// The index of `h`'s block in `blocks`, opened if new; None for a header that contradicts
    /// what is known.
    fn block_index(&mut self, h: &RlcData) -> Option<usize> {
        let size = h.block_size;
        if size == 0 {
            return None;
        }
        if let Payload::Systematic = h.payload {
            if h.frame < h.block_start || h.frame >= h.block_end() {
                return None;
            }
        }
        let at = self.blocks.partition_point(|b| b.start < h.block_start);
        if let Some(b) = self.blocks.get(at) {
            if b.start == h.block_start {
                return (b.size == size).then_some(at);
            }
            if b.start < h.block_end() {
                return None;
            }
        }
        if at > 0 && self.blocks[at - 1].end() > h.block_start {
            return None;
        }
        let block = self.fresh_block(h.block_start, size);
        self.blocks.insert(at, block);
        Some(at)
    }

    fn fresh_block(&mut self, start: u64, size: u32) -> RxBlock {
        let n = size as usize;
        let mut block = self.spare.pop().unwrap_or_else(|| RxBlock {
            start,
            size,
            decoder: match (self.mode, self.field) {
                (DecoderMode::Counting, f) => {
                    BlockDecoder::Counting(CountingDecoder::new(f.order(), n))
                }
                (DecoderMode::Exact, RlcField::Gf8191) => {
                    BlockDecoder::Exact8191(ExactDecoder::new(n, 0))
                }
                (DecoderMode::Exact, RlcField::Gf256) => {
                    BlockDecoder::Exact256(ExactDecoder::new(n, 0))
                }
            },
            systematic: Vec::new(),
            prefix: 0,
            first_sent: Time::MAX,
        });
        block.reset(start, size);
        if self.mode == DecoderMode::Exact {
            let s = &mut self.scratch;
            match self.field {
                RlcField::Gf8191 if s.gf8191.len() < n => s.gf8191.resize(n, 0),
                RlcField::Gf256 if s.gf256.len() < n => s.gf256.resize(n, 0),
                _ => {}
            }
        }
        block
    }

    /// Moves `next_expected` over what is decoded at `now`, through following blocks already
    /// decodable, recording the frames' decode delays; returns the frames it moved over.
    fn advance(&mut self, now: Time) -> u64 {
        let before = self.next_expected;
        while let Some(b) = self.blocks.front() {
            if b.start > self.next_expected {
                break;
            }
            let delay = now.saturating_sub(b.first_sent);
            if !b.tally().is_complete() {
                let decoded = self.next_expected.max(b.start + b.decoded() as u64);
                self.delays.record(delay, decoded - self.next_expected);
                self.next_expected = decoded;
                break;
            }
            self.delays.record(delay, b.end() - self.next_expected);
            self.next_expected = b.end();
            self.stats.blocks_decoded += 1;
            let done = self.blocks.pop_front().expect("front");
            self.spare.push(done);
        }
        self.next_expected - before
    }
}
