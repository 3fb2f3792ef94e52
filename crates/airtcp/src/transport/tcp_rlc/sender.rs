//! The single-path TCP-RLC sender (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-D, §II-E,
//! §III-A; what the text leaves open follows the spec's §2.4, marked [I]).
//!
//! - **Blocks** [P]: the coding block is the congestion window. When feedback acknowledges the
//!   first frame of the newest block SN (ACK or pseudo-ACK: max(cum, seen) > SN), W grows by one
//!   (up to `max_cwnd`) and the next block [SN + B, SN + B + W) opens. Blocks never change once
//!   opened, and open about once per round trip.
//! - **Sending** [P]: at most W high-priority packets in transit: frame `snd_nxt` goes out
//!   (systematic, high) while `snd_nxt - max(cum, seen) < W` and its block is open, and right after
//!   each, r random linear combinations of its block (low). Frames are never re-sent: a block
//!   decoded before all its frames went out skips them (`snd_nxt >= cum`) [I].
//! - **Halving** [P §II-D, Fig. 3(b)]: the third duplicate (dupthresh 3 [I]) halves W (at least 1)
//!   once per window (`cum >= recover`, NewReno's guard [I]) and *repairs* the oldest undecoded
//!   block: as many fresh coded packets of it as it misses by the last feedback, each high and
//!   followed by r low ones [I, A5: the RLC analogue of fast retransmit]. A cumulative ACK that
//!   moves into a later block that is still incomplete while recovering repairs that block at once
//!   [I, NewReno's partial ACK]. Feedback that moves max(cum, seen) ends a run of duplicates.
//! - **Timer** [P §IV]: srtt <- 0.9 srtt + 0.1 sample on every feedback that moves
//!   max(cum, seen), RTO = 3 srtt restarted then; on expiry W <- 1, the timeout doubles until the
//!   next sample and the oldest undecoded block is repaired [I, A6].
//! - No slow start: W grows by one per block from `initial_cwnd` [P §II-D].

use std::collections::VecDeque;

use super::header::{PathMark, Payload, Priority, RlcData, RlcFeedback};
use super::rtt::RlcRtt;
use super::RlcIo;
use crate::sim::{Rng, Time};

/// The sender's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RlcSenderConfig {
    /// Low-priority coded packets sent after each high-priority one.
    pub redundancy: u32,
    /// W at the start, packets.
    pub initial_cwnd: u32,
    /// The largest W (the receiver's buffer), packets.
    pub max_cwnd: u32,
    /// Duplicates that halve W.
    pub dupthresh: u32,
    /// The timeout before the first RTT sample.
    pub initial_rto: Time,
    /// Frames to send in all (None: a bulk source).
    pub frames: Option<u64>,
}

/// A block as the sender opened it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// First frame.
    pub start: u64,
    /// Frames.
    pub size: u32,
}

impl Block {
    /// One past the last frame.
    pub fn end(&self) -> u64 {
        self.start + self.size as u64
    }
}

/// The sender's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RlcSenderStats {
    /// Systematic data frames sent (high).
    pub frames_sent: u64,
    /// Coded repairs sent high.
    pub repairs: u64,
    /// Coded packets sent low.
    pub low_sent: u64,
    /// Blocks opened.
    pub blocks: u64,
    /// Halvings on duplicates.
    pub halvings: u64,
    /// Timer expiries.
    pub timeouts: u64,
    /// RTT samples, and their sum in ns.
    pub rtt_samples: u64,
    /// Sum of the RTT samples, ns.
    pub rtt_sum: f64,
}

/// The TCP-RLC sender (see the module header).
#[derive(Debug, Clone)]
pub struct RlcSender {
    cfg: RlcSenderConfig,
    /// The congestion window W, packets.
    cwnd: u32,
    /// Opened blocks not yet decoded (by `cum`), oldest first; the last is the newest (SN, B).
    blocks: VecDeque<Block>,
    snd_nxt: u64,
    cum: u64,
    seen: u64,
    dupacks: u32,
    recover: u64,
    rtt: RlcRtt,
    /// Where coded packets' coefficient seeds come from (the flow's own stream).
    rng: Rng,
    /// Coded packets sent, numbering the next.
    coded: u64,
    running: bool,
    /// The counters.
    pub stats: RlcSenderStats,
}

impl RlcSender {
    /// A sender with `cfg`, drawing coefficient seeds from `rng`.
    pub fn new(cfg: RlcSenderConfig, rng: Rng) -> Self {
        RlcSender {
            cwnd: cfg.initial_cwnd.clamp(1, cfg.max_cwnd.max(1)),
            blocks: VecDeque::new(),
            snd_nxt: 0,
            cum: 0,
            seen: 0,
            dupacks: 0,
            recover: 0,
            rtt: RlcRtt::new(cfg.initial_rto),
            rng,
            coded: 0,
            running: false,
            stats: RlcSenderStats::default(),
            cfg,
        }
    }

    /// The congestion window, packets.
    pub fn cwnd(&self) -> u32 {
        self.cwnd
    }

    /// The smoothed RTT, ns (None before the first sample).
    pub fn srtt(&self) -> Option<f64> {
        self.rtt.srtt()
    }

    /// The highest cumulative ACK.
    pub fn cum(&self) -> u64 {
        self.cum
    }

    /// The next new frame.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// The opened blocks not yet decoded, oldest first.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.blocks.iter()
    }

    /// The application starts: the first block (of W frames) opens and goes out.
    pub fn start(&mut self, io: &mut impl RlcIo) {
        self.running = true;
        if self.blocks.is_empty() {
            self.open_block(0);
        }
        self.send_new(io);
        self.arm(io);
    }

    /// The application stops: no new frames (what is sent is still repaired).
    pub fn stop(&mut self) {
        self.running = false;
    }

    fn ack_point(&self) -> u64 {
        self.cum.max(self.seen)
    }

    fn open_block(&mut self, start: u64) {
        self.blocks.push_back(Block {
            start,
            size: self.cwnd,
        });
        self.stats.blocks += 1;
    }

    /// One feedback arrives.
    pub fn on_feedback(&mut self, fb: &RlcFeedback, io: &mut impl RlcIo) {
        let now = io.now();
        let before = self.ack_point();
        let cum_before = self.cum;
        self.cum = self.cum.max(fb.cum);
        self.seen = self.seen.max(fb.seen);
        let advanced = self.ack_point() > before;
        if advanced {
            let sample = now.saturating_sub(fb.echo);
            self.rtt.sample(sample);
            self.stats.rtt_samples += 1;
            self.stats.rtt_sum += sample as f64;
            self.dupacks = 0;
        } else if fb.dup {
            self.dupacks += 1;
            if self.dupacks == self.cfg.dupthresh && self.cum >= self.recover {
                self.cwnd = self.cwnd.div_ceil(2).max(1);
                self.recover = self.snd_nxt;
                self.stats.halvings += 1;
                self.repair_oldest(io);
            }
        }
        // Decoded blocks leave the table.
        let old_front = self.blocks.front().map(|b| b.start);
        while self.blocks.front().is_some_and(|b| b.end() <= self.cum) {
            self.blocks.pop_front();
        }
        self.snd_nxt = self.snd_nxt.max(self.cum);
        let moved_block = self.blocks.front().map(|b| b.start) != old_front;
        if self.cum > cum_before && self.cum < self.recover && moved_block {
            self.repair_oldest(io);
        }
        // The newest block's first frame is acknowledged: the next one opens.
        if let Some(&newest) = self.blocks.back() {
            if self.ack_point() > newest.start {
                self.cwnd = (self.cwnd + 1).min(self.cfg.max_cwnd.max(1));
                self.open_block(newest.end());
            }
        } else if self.running {
            // Everything opened is decoded (a block decoded before its frames were acknowledged
            // one by one): open the next at once.
            self.cwnd = (self.cwnd + 1).min(self.cfg.max_cwnd.max(1));
            let start = self.cum;
            self.open_block(start);
        }
        self.send_new(io);
        if advanced || self.blocks.is_empty() {
            self.arm(io);
        }
    }

    /// The retransmission timer expired.
    pub fn on_timer(&mut self, io: &mut impl RlcIo) {
        self.rtt.expired();
        self.stats.timeouts += 1;
        self.cwnd = 1;
        self.dupacks = 0;
        self.recover = self.snd_nxt;
        self.repair_oldest(io);
        self.send_new(io);
        self.arm(io);
    }

    /// Arms the timer while anything sent is undecoded; cancels it otherwise.
    fn arm(&mut self, io: &mut impl RlcIo) {
        let outstanding = self.blocks.front().is_some_and(|b| b.start < self.snd_nxt);
        let deadline = outstanding.then(|| io.now().saturating_add(self.rtt.rto()));
        io.set_timer(deadline);
    }

    /// Sends new frames while the window and the open blocks allow.
    fn send_new(&mut self, io: &mut impl RlcIo) {
        if !self.running {
            return;
        }
        let limit = self.cfg.frames.unwrap_or(u64::MAX);
        while self.snd_nxt < limit
            && self.snd_nxt.saturating_sub(self.ack_point()) < self.cwnd as u64
        {
            let Some(block) = self.block_of(self.snd_nxt) else {
                break;
            };
            let frame = self.snd_nxt;
            self.snd_nxt += 1;
            self.stats.frames_sent += 1;
            self.emit(io, block, frame, Payload::Systematic, Priority::High);
            self.send_low(io, block);
        }
    }

    /// The open block holding `frame`.
    fn block_of(&self, frame: u64) -> Option<Block> {
        self.blocks
            .iter()
            .rev()
            .find(|b| b.start <= frame)
            .filter(|b| frame < b.end())
            .copied()
    }

    /// Repairs the oldest undecoded block: the degrees of freedom it misses by the last feedback,
    /// each a high coded packet followed by r low ones.
    fn repair_oldest(&mut self, io: &mut impl RlcIo) {
        let Some(block) = self.blocks.front().copied() else {
            return;
        };
        if block.start >= self.snd_nxt {
            return; // Nothing of it was sent yet: the window sends it.
        }
        let known = self.seen.clamp(block.start, block.end());
        let missing = (block.end() - known).max(1);
        for _ in 0..missing {
            self.stats.repairs += 1;
            let payload = self.fresh_coded();
            let frame = self.coded - 1;
            self.emit(io, block, frame, payload, Priority::High);
            self.send_low(io, block);
        }
    }

    fn send_low(&mut self, io: &mut impl RlcIo, block: Block) {
        for _ in 0..self.cfg.redundancy {
            self.stats.low_sent += 1;
            let payload = self.fresh_coded();
            let frame = self.coded - 1;
            self.emit(io, block, frame, payload, Priority::Low);
        }
    }

    fn fresh_coded(&mut self) -> Payload {
        self.coded += 1;
        Payload::Coded {
            seed: self.rng.next_u64(),
        }
    }

    fn emit(
        &mut self,
        io: &mut impl RlcIo,
        block: Block,
        frame: u64,
        payload: Payload,
        priority: Priority,
    ) {
        io.send(RlcData {
            frame,
            payload,
            priority,
            block_start: block.start,
            block_size: block.size,
            sent_at: io.now(),
            mark: PathMark::default(),
        });
    }
}
