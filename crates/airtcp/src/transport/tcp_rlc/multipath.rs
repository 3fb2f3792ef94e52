//! The multipath TCP-RLC sender (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-F, §III-A3; the
//! round mechanics the text leaves open follow the spec's §2.6, marked [I]).
//!
//! One source controller ([`super::source`]: blocks, source-level W and its AIMD, repairs, the
//! timer) feeds M path controllers, one per path of the flow (packets are pinned to their path,
//! so each path's packets cross only its own router). Coded packets from every path count toward
//! the same block: the source's W follows the sum over paths of what each delivers per round.
//!
//! - The source is a *service queue* [P]: asked for a packet it gives (1) a pending repair's coded
//!   packet, (2) the next unsent frame of the newest block, else (3) a fresh coded packet of the
//!   newest block. Serving the newest block makes the source's W round-synchronous, as in the
//!   paper's model [P §II-E, §II-F: the source takes W(t) data packets and codes them "in t-th RTT
//!   slot"; W(t+1) = W(t) + 1 if W(t) of them arrive, else halved]: a block opens about once per
//!   round trip (at the first feedback on the one before, §III-A2), takes every pull until the
//!   next opens, and so gets one round of the paths' deliveries. A block still short when the next
//!   block's packets reach the receiver draws duplicates, which halve W and repair it
//!   ([`super::source`]); a block delivered in time lets W grow by one at the next opening. W thus
//!   tracks what the paths deliver per round. Frames of an older block left unsent when a newer
//!   one opens are never sent: that block decodes from its coded packets or its repair [I].
//!   `source_window: per_block` keeps the earlier rule [I]: (2) is the next unsent frame of the
//!   *oldest* open block, so a block larger than a round's deliveries is served for as many
//!   rounds as it takes and seldom comes up short; W then grows by one per block with the run
//!   (3.4 x the data delivered per round trip after 1000 s of Fig. 4(b), docs/tcp_rlc.md).
//! - Path l works in rounds [P: "block number and block size = cwnd_i" per path]: round b pulls
//!   w_l packets and marks them high, then r more per high one, low (coded packets of the same
//!   block) [P: "for each high priority packet sent out, the path controller obtains r packets
//!   from the service queues"], each tagged (l, b, w_l) and sent at once.
//! - The receiver counts, per path and round, the packets that arrived and echoes the count.
//! - The next round starts at the first feedback of the current one (about one path RTT) [I]. At
//!   that moment round b - 1 is over (its low packets, served after the next round's high ones,
//!   have had a round trip to arrive): w_l grows by one if it delivered at least its size, else
//!   halves (rounded up) [P rule; the one-round lag I, A7].
//! - A path that hears nothing for 3 srtt_l (its own round-trip filter, 0.9/0.1) halves w_l and
//!   starts a new round [I].
//!
//! The source's timer and the paths' timeouts share the flow's one timer: it is armed for the
//! earliest of them, and on expiry each that passed is handled.

use std::collections::VecDeque;

use super::config::SourceWindow;
use super::rtt::RlcRtt;
use super::source::{Block, Repair, RlcSenderConfig, RlcSenderStats, Source};
use super::{emit, RlcIo};
use crate::sim::header::rlc::{PathMark, Payload, Priority, RlcFeedback};
use crate::sim::{Rng, Time};

/// Rounds whose counts a path keeps (the evaluated one, the current one, the new one, and one
/// spare for stragglers).
const RING: usize = 4;

/// One path controller's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PathStats {
    /// Rounds started.
    pub rounds: u64,
    /// Rounds judged delivered (w grew).
    pub grown: u64,
    /// Rounds judged short (w halved).
    pub halved: u64,
    /// Timeouts.
    pub timeouts: u64,
    /// High packets sent.
    pub high_sent: u64,
    /// Low packets sent.
    pub low_sent: u64,
}

/// One path controller.
#[derive(Debug, Clone)]
pub struct PathController {
    window: u32,
    round: u32,
    /// Per round (indexed round % RING): its number, size and the largest count echoed for it.
    tags: [u32; RING],
    sizes: [u32; RING],
    counts: [u32; RING],
    /// Whether the current round has had feedback.
    heard: bool,
    rtt: RlcRtt,
    deadline: Option<Time>,
    /// The counters.
    pub stats: PathStats,
}

impl PathController {
    fn new(initial_rto: Time) -> Self {
        PathController {
            window: 1,
            round: 0,
            tags: [0; RING],
            sizes: [0; RING],
            counts: [0; RING],
            heard: false,
            rtt: RlcRtt::new(initial_rto),
            deadline: None,
            stats: PathStats::default(),
        }
    }

    /// The path's window w_l.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// The current round.
    pub fn round(&self) -> u32 {
        self.round
    }
}

/// The multipath sender (see the module header).
#[derive(Debug, Clone)]
pub struct MultipathSender {
    source: Source,
    paths: Vec<PathController>,
    /// Coded packets of repairs the source asked for, not yet pulled.
    repairs: VecDeque<Repair>,
    /// The source's own timeout.
    source_deadline: Option<Time>,
}

impl MultipathSender {
    /// A sender with `cfg` over `paths` paths (at least 2; 1 is the single-path sender),
    /// drawing coefficient seeds from `rng`.
    pub fn new(cfg: RlcSenderConfig, paths: usize, rng: Rng) -> Self {
        MultipathSender {
            paths: (0..paths)
                .map(|_| PathController::new(cfg.initial_rto))
                .collect(),
            source: Source::new(cfg, rng),
            repairs: VecDeque::new(),
            source_deadline: None,
        }
    }

    /// The source controller.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The path controllers.
    pub fn paths(&self) -> &[PathController] {
        &self.paths
    }

    /// The counters.
    pub fn stats(&self) -> &RlcSenderStats {
        &self.source.stats
    }

    /// The application starts: the first block opens and every path starts its first round.
    pub fn start(&mut self, io: &mut impl RlcIo) {
        self.source.start(io.now());
        for l in 0..self.paths.len() {
            self.start_round(io, l);
        }
        self.source_deadline = self.source.deadline(io.now());
        self.arm(io);
    }

    /// The application stops: no new frames.
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
            self.repairs.push_back(repair);
        }
        if got.advanced || self.source.blocks().next().is_none() {
            self.source_deadline = self.source.deadline(now);
        }
        let l = fb.mark.path as usize;
        if l < self.paths.len() {
            self.path_feedback(io, l, fb);
        }
        self.arm(io);
    }

    fn path_feedback(&mut self, io: &mut impl RlcIo, l: usize, fb: &RlcFeedback) {
        let now = io.now();
        let path = &mut self.paths[l];
        let b = fb.mark.round;
        let slot = b as usize % RING;
        if path.tags[slot] == b {
            path.counts[slot] = path.counts[slot].max(fb.count);
        }
        path.rtt.sample(now.saturating_sub(fb.echo));
        path.deadline = Some(now.saturating_add(path.rtt.rto()));
        if b != path.round || path.heard {
            return;
        }
        path.heard = true;
        // Round b - 1 is over: judge it.
        if b >= 2 {
            let prev = (b - 1) as usize % RING;
            if path.tags[prev] == b - 1 {
                if path.counts[prev] >= path.sizes[prev] {
                    path.window = (path.window + 1).min(self.source.cfg.max_cwnd.max(1));
                    path.stats.grown += 1;
                } else {
                    path.window = path.window.div_ceil(2).max(1);
                    path.stats.halved += 1;
                }
            }
        }
        self.start_round(io, l);
    }

    /// The flow's timer expired: the source's timeout and every path's that passed.
    pub fn on_timer(&mut self, io: &mut impl RlcIo) {
        let now = io.now();
        if self.source_deadline.is_some_and(|d| d <= now) {
            if let Some(repair) = self.source.on_timeout(io.now()) {
                self.repairs.push_back(repair);
            }
            self.source_deadline = self.source.deadline(now);
        }
        for l in 0..self.paths.len() {
            let path = &mut self.paths[l];
            if path.deadline.is_some_and(|d| d <= now) {
                path.rtt.expired();
                path.stats.timeouts += 1;
                path.window = path.window.div_ceil(2).max(1);
                self.start_round(io, l);
            }
        }
        self.arm(io);
    }

    /// Arms the flow's timer for the earliest deadline.
    fn arm(&mut self, io: &mut impl RlcIo) {
        let paths = self.paths.iter().filter_map(|p| p.deadline);
        io.set_timer(paths.chain(self.source_deadline).min());
    }

    /// Path l starts a round: w_l high packets pulled from the source, each followed by r low
    /// coded packets of its block.
    fn start_round(&mut self, io: &mut impl RlcIo, l: usize) {
        let now = io.now();
        let path = &mut self.paths[l];
        path.round += 1;
        path.heard = false;
        let (round, size) = (path.round, path.window);
        let slot = round as usize % RING;
        path.tags[slot] = round;
        path.sizes[slot] = size;
        path.counts[slot] = 0;
        path.stats.rounds += 1;
        path.deadline = Some(now.saturating_add(path.rtt.rto()));
        let mark = PathMark {
            path: l as u8,
            round,
            round_size: size,
        };
        for _ in 0..size {
            let Some((block, number, payload)) = self.pull() else {
                break;
            };
            self.paths[l].stats.high_sent += 1;
            emit(io, block, number, payload, Priority::High, mark);
            for _ in 0..self.source.cfg.redundancy {
                let (payload, number) = self.source.fresh_coded();
                self.source.stats.low_sent += 1;
                self.paths[l].stats.low_sent += 1;
                emit(io, block, number, payload, Priority::Low, mark);
            }
        }
    }

    /// The service queue: a pending repair's packet, the next unsent frame (of the newest block,
    /// or per block of the oldest with frames unsent), else a fresh coded packet of the newest
    /// block.
    fn pull(&mut self) -> Option<(Block, u64, Payload)> {
        while let Some(repair) = self.repairs.front_mut() {
            let block = repair.block;
            repair.count -= 1;
            if repair.count == 0 {
                self.repairs.pop_front();
            }
            // A repair of a block decoded since it was asked for is dropped.
            if block.end() > self.source.cum() {
                self.source.stats.repairs += 1;
                let (payload, number) = self.source.fresh_coded();
                return Some((block, number, payload));
            }
        }
        if self.source.cfg.source_window == SourceWindow::PerRound {
            self.source.skip_to_newest();
        }
        if let Some((block, frame)) = self.source.next_frame(None) {
            return Some((block, frame, Payload::Systematic));
        }
        if !self.source.running() {
            return None;
        }
        let block = self.source.newest()?;
        let (payload, number) = self.source.fresh_coded();
        Some((block, number, payload))
    }
}
