//! TCP-RLC's source controller (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-D, §II-E, §III-A;
//! rules the text leaves open follow the spec's §2.4, marked [I]): the blocks, the window W and
//! its AIMD, the feedback bookkeeping, the repairs and the timer, without a send rule. The
//! single-path sender ([`super::sender`]) adds the window's send rule; the multipath sender
//! ([`super::multipath`]) lets its path controllers pull from it.
//!
//! - **Blocks** [P]: the coding block is the congestion window. When feedback acknowledges the
//!   first frame of the newest block SN (ACK or pseudo-ACK: max(cum, seen) > SN), W grows by one
//!   (up to `max_cwnd`) and the next block [SN + B, SN + B + W) opens. Blocks never change once
//!   opened, and open about once per round trip. No slow start [P §II-D].
//! - **Halving** [P §II-D, Fig. 3(b)]: the third duplicate (dupthresh 3 [I]) halves W (at least 1)
//!   once per window (`cum >= recover`, NewReno's guard [I]) and asks for a *repair* of the oldest
//!   undecoded block: as many fresh coded packets of it as it misses by the last feedback [I, A5:
//!   the RLC analogue of fast retransmit; frames are never re-sent, so blocks never overlap]. A
//!   cumulative ACK that moves into a later block that is still incomplete while recovering asks
//!   for that block's repair at once [I, NewReno's partial ACK]. Feedback that moves
//!   max(cum, seen) ends a run of duplicates.
//! - **Timer** [P §IV]: srtt <- 0.9 srtt + 0.1 sample on every feedback that moves
//!   max(cum, seen), RTO = 3 srtt restarted then; on expiry W <- 1, the timeout doubles until the
//!   next sample and the oldest undecoded block is repaired [I, A6].
//! - Frames are sent once, in order; a block decoded before all its frames went out skips them
//!   (`snd_nxt >= cum`) [I]. A multipath sender serving the newest block moves `snd_nxt` to its
//!   start, so an older block's unsent frames are skipped too ([`Source::skip_to_newest`]).
//! - The source keeps W's time average from `start` ([`Source::mean_window`]): the E[W] of
//!   Theorems 1-3, measured in the packet simulator rather than in the slotted model.

use std::collections::VecDeque;

use super::config::SourceWindow;
use super::rtt::RlcRtt;
use crate::sim::header::rlc::Payload;
use crate::sim::{Rng, Time};

/// The source's parameters.
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
    /// With several paths, which block the paths serve (`multipath`).
    pub source_window: SourceWindow,
}

/// A block as the source opened it.
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

/// A repair the source asks for: `count` fresh coded packets of `block`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repair {
    /// The block.
    pub block: Block,
    /// Degrees of freedom it misses.
    pub count: u64,
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
    /// RTT samples.
    pub rtt_samples: u64,
    /// Sum of the RTT samples, ns.
    pub rtt_sum: f64,
}

/// What one feedback did to the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Absorbed {
    /// It moved max(cum, seen) (an RTT sample was taken and the timer should restart).
    pub advanced: bool,
    /// A repair to send.
    pub repair: Option<Repair>,
}

/// The source controller (see the module header).
#[derive(Debug, Clone)]
pub struct Source {
    /// The parameters.
    pub cfg: RlcSenderConfig,
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
    /// Coded packets made, numbering the next.
    coded: u64,
    running: bool,
    /// W's integral over time since `start`, packet x ns, up to `window_since`.
    window_area: f64,
    /// When the source started (None before) and when W last changed.
    window_start: Option<Time>,
    window_since: Time,
    /// The counters.
    pub stats: RlcSenderStats,
}

impl Source {
    /// A source with `cfg`, drawing coefficient seeds from `rng`.
    pub fn new(cfg: RlcSenderConfig, rng: Rng) -> Self {
        Source {
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
            window_area: 0.0,
            window_start: None,
            window_since: 0,
            stats: RlcSenderStats::default(),
            cfg,
        }
    }

    /// The congestion window, packets.
    pub fn cwnd(&self) -> u32 {
        self.cwnd
    }

    /// W's time average from the start to `now`, packets (None before the start or at it).
    pub fn mean_window(&self, now: Time) -> Option<f64> {
        let start = self.window_start?;
        let span = now.saturating_sub(start);
        let open = now.saturating_sub(self.window_since) as f64 * self.cwnd as f64;
        (span > 0).then(|| (self.window_area + open) / span as f64)
    }

    /// W becomes `cwnd` at `now`; the time average takes in the old W's stretch.
    fn set_cwnd(&mut self, cwnd: u32, now: Time) {
        if self.window_start.is_some() {
            let stretch = now.saturating_sub(self.window_since);
            self.window_area += stretch as f64 * self.cwnd as f64;
            self.window_since = self.window_since.max(now);
        }
        self.cwnd = cwnd;
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

    /// max(cum, seen): what the receiver has acknowledged, pseudo-ACKs included.
    pub fn ack_point(&self) -> u64 {
        self.cum.max(self.seen)
    }

    /// Frames sent beyond the acknowledgement point.
    pub fn in_flight(&self) -> u64 {
        self.snd_nxt.saturating_sub(self.ack_point())
    }

    /// The opened blocks not yet decoded, oldest first.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.blocks.iter()
    }

    /// Whether new frames may go out.
    pub fn running(&self) -> bool {
        self.running
    }

    /// The application starts at `now`: the first block (of W frames) opens.
    pub fn start(&mut self, now: Time) {
        self.running = true;
        if self.window_start.is_none() {
            self.window_start = Some(now);
            self.window_since = now;
        }
        if self.blocks.is_empty() {
            self.open_block(0);
        }
    }

    /// The application stops: no new frames (what is sent is still repaired).
    pub fn stop(&mut self) {
        self.running = false;
    }

    fn open_block(&mut self, start: u64) {
        self.blocks.push_back(Block {
            start,
            size: self.cwnd,
        });
        self.stats.blocks += 1;
    }

    /// One feedback arrives at `now`.
    pub fn on_feedback(
        &mut self,
        cum: u64,
        seen: u64,
        dup: bool,
        echo: Time,
        now: Time,
    ) -> Absorbed {
        let before = self.ack_point();
        let cum_before = self.cum;
        self.cum = self.cum.max(cum);
        self.seen = self.seen.max(seen);
        let advanced = self.ack_point() > before;
        let mut repair = None;
        if advanced {
            let sample = now.saturating_sub(echo);
            self.rtt.sample(sample);
            self.stats.rtt_samples += 1;
            self.stats.rtt_sum += sample as f64;
            self.dupacks = 0;
        } else if dup {
            self.dupacks += 1;
            if self.dupacks == self.cfg.dupthresh && self.cum >= self.recover {
                self.set_cwnd(self.cwnd.div_ceil(2).max(1), now);
                self.recover = self.snd_nxt;
                self.stats.halvings += 1;
                repair = self.oldest_repair();
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
            repair = self.oldest_repair();
        }
        // The newest block's first frame is acknowledged: the next one opens.
        if let Some(&newest) = self.blocks.back() {
            if self.ack_point() > newest.start {
                self.set_cwnd((self.cwnd + 1).min(self.cfg.max_cwnd.max(1)), now);
                self.open_block(newest.end());
            }
        } else if self.running {
            // Everything opened is decoded (a block decoded before its frames were acknowledged
            // one by one): open the next at once.
            self.set_cwnd((self.cwnd + 1).min(self.cfg.max_cwnd.max(1)), now);
            let start = self.cum;
            self.open_block(start);
        }
        Absorbed { advanced, repair }
    }

    /// The retransmission timer expired at `now`: W <- 1, back off, repair the oldest block.
    pub fn on_timeout(&mut self, now: Time) -> Option<Repair> {
        self.rtt.expired();
        self.stats.timeouts += 1;
        self.set_cwnd(1, now);
        self.dupacks = 0;
        self.recover = self.snd_nxt;
        self.oldest_repair()
    }

    /// When the timer should expire, from `now`: None while nothing sent is undecoded.
    pub fn deadline(&self, now: Time) -> Option<Time> {
        let outstanding = self.blocks.front().is_some_and(|b| b.start < self.snd_nxt);
        outstanding.then(|| now.saturating_add(self.rtt.rto()))
    }

    /// The repair of the oldest undecoded block: the degrees of freedom it misses by the last
    /// feedback (at least one). None if nothing of it was sent yet (the send rule sends it).
    fn oldest_repair(&self) -> Option<Repair> {
        let block = *self.blocks.front()?;
        if block.start >= self.snd_nxt {
            return None;
        }
        let known = self.seen.clamp(block.start, block.end());
        Some(Repair {
            block,
            count: (block.end() - known).max(1),
        })
    }

    /// The next frame to send if `limit` allows (frames beyond the acknowledgement point; None:
    /// no limit), with its block; advances `snd_nxt`.
    pub fn next_frame(&mut self, limit: Option<u64>) -> Option<(Block, u64)> {
        if !self.running {
            return None;
        }
        let total = self.cfg.frames.unwrap_or(u64::MAX);
        if self.snd_nxt >= total || limit.is_some_and(|w| self.in_flight() >= w) {
            return None;
        }
        let frame = self.snd_nxt;
        let block = self
            .blocks
            .iter()
            .rev()
            .find(|b| b.start <= frame)
            .filter(|b| frame < b.end())
            .copied()?;
        self.snd_nxt += 1;
        self.stats.frames_sent += 1;
        Some((block, frame))
    }

    /// Gives up sending the unsent frames of every block but the newest: those blocks decode
    /// from the coded packets already sent, or from repairs.
    pub fn skip_to_newest(&mut self) {
        if let Some(newest) = self.blocks.back() {
            self.snd_nxt = self.snd_nxt.max(newest.start);
        }
    }

    /// The newest opened block.
    pub fn newest(&self) -> Option<Block> {
        self.blocks.back().copied()
    }

    /// A fresh coded packet's payload and number.
    pub fn fresh_coded(&mut self) -> (Payload, u64) {
        self.coded += 1;
        let seed = self.rng.next_u64();
        (Payload::Coded { seed }, self.coded - 1)
    }
}
