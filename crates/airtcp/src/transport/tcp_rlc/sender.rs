//! The single-path TCP-RLC sender (Ryu, Bhadra & Shakkottai, Allerton 2009, §III-A): the source
//! controller ([`super::source`]: blocks, AIMD, repairs, timer) and the window's send rule.
//!
//! **Sending** [P]: at most W high-priority packets in transit: frame `snd_nxt` goes out
//! (systematic, high) while `snd_nxt - max(cum, seen) < W` and its block is open, and right after
//! each, r random linear combinations of its block (low). A repair the source asks for goes out
//! at once, each of its coded packets high and followed by r low ones.

use super::source::{Block, Repair, Source};
use super::{emit, RlcIo};
use crate::sim::header::rlc::{PathMark, Payload, Priority, RlcFeedback};
use crate::sim::Rng;

pub use super::source::{RlcSenderConfig, RlcSenderStats};

/// The single-path sender (see the module header).
#[derive(Debug, Clone)]
pub struct RlcSender {
    source: Source,
}

impl RlcSender {
    /// A sender with `cfg`, drawing coefficient seeds from `rng`.
    pub fn new(cfg: RlcSenderConfig, rng: Rng) -> Self {
        RlcSender {
            source: Source::new(cfg, rng),
        }
    }

    /// The source controller.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The counters.
    pub fn stats(&self) -> &RlcSenderStats {
        &self.source.stats
    }

    /// The application starts: the first block (of W frames) opens and goes out.
    pub fn start(&mut self, io: &mut impl RlcIo) {
        self.source.start(io.now());
        self.send_new(io);
        self.arm(io);
    }

    /// The application stops: no new frames (what is sent is still repaired).
    pub fn stop(&mut self) {
        self.source.stop();
    }

    /// One feedback arrives.
    pub fn on_feedback(&mut self, fb: &RlcFeedback, io: &mut impl RlcIo) {
        let now = io.now();
        let got = self
            .source
            .on_feedback(fb.cum, fb.seen, fb.dup, fb.echo, now);
        if let Some(repair) = got.repair {
            self.send_repair(io, repair);
        }
        self.send_new(io);
        if got.advanced || self.source.blocks().next().is_none() {
            self.arm(io);
        }
    }

    /// The retransmission timer expired.
    pub fn on_timer(&mut self, io: &mut impl RlcIo) {
        if let Some(repair) = self.source.on_timeout(io.now()) {
            self.send_repair(io, repair);
        }
        self.send_new(io);
        self.arm(io);
    }

    /// Arms the timer while anything sent is undecoded; cancels it otherwise.
    fn arm(&mut self, io: &mut impl RlcIo) {
        io.set_timer(self.source.deadline(io.now()));
    }

    /// Sends new frames while the window and the open blocks allow.
    fn send_new(&mut self, io: &mut impl RlcIo) {
        while let Some((block, frame)) = self.source.next_frame(Some(self.source.cwnd() as u64)) {
            let mark = PathMark::default();
            emit(io, block, frame, Payload::Systematic, Priority::High, mark);
            self.send_low(io, block);
        }
    }

    fn send_repair(&mut self, io: &mut impl RlcIo, repair: Repair) {
        for _ in 0..repair.count {
            self.source.stats.repairs += 1;
            let (payload, number) = self.source.fresh_coded();
            emit(
                io,
                repair.block,
                number,
                payload,
                Priority::High,
                PathMark::default(),
            );
            self.send_low(io, repair.block);
        }
    }

    fn send_low(&mut self, io: &mut impl RlcIo, block: Block) {
        for _ in 0..self.source.cfg.redundancy {
            self.source.stats.low_sent += 1;
            let (payload, number) = self.source.fresh_coded();
            emit(
                io,
                block,
                number,
                payload,
                Priority::Low,
                PathMark::default(),
            );
        }
    }
}
