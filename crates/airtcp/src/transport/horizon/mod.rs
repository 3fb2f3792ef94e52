//! Horizon's layer between TCP and the network at a flow's two ends (paper 003, Radunović,
//! Gkantsidis, Gunawardena & Key, "Horizon: Balancing TCP over multiple paths in wireless mesh
//! network", MobiCom 2008; spec 003 §2.5-§2.7): the destination's delayed reordering (§4.2,
//! eq. 16, §5.3.1) and the source's congestion signaller (§4.1, §5.3.2-5.3.3), on the shim seam
//! (`transport::shim`, docs/shim.md). Horizon's forwarding (prices, custody, refreshes, PktIDs
//! and PathIDs) is the forwarding layer's (`net::forwarding`); this shim only reads what that
//! layer stamps on TCP's packets and the price it holds at the source.
//!
//! - [`reorder`]: the reorder buffer, a pure state machine.
//! - [`signal`]: the signaller, a pure state machine.
//! - [`HorizonShim`]: both on the seam for one TCP flow.
//!
//! Wiring (docs/shim.md's hooks):
//! - `on_arriving_segment` (destination): a data segment goes into the reorder buffer by its
//!   PktID (`Arrival::layer_seq`) with `t_s = Arrival::created` and its PathID from the flow-path
//!   table ([`HorizonShim::new`]). What the buffer releases goes up with `deliver`. The segment
//!   itself is passed through (`Pass`) only when it is all that goes up; otherwise everything,
//!   the arriving segment included, goes up through `deliver`, in order. (A `Pass`ed segment
//!   reaches TCP *after* the segments delivered during the hook: passing the segment at `next`
//!   while delivering the buffered ones behind it would invert them.)
//! - One seam timer, [`REORDER_TIMER`], at the smallest buffered id's deadline.
//! - `on_sender_segment` (source): counted for ŷ, passed.
//! - `on_arriving_ack` (source): its one-way delay `now - created` feeds A_ds. When the
//!   signaller fires (price from `layer_price(End::Source)`, A_sd from the reorder buffer: the
//!   simulator lets the source read it instead of piggybacking it, as docs/shim.md allows), the
//!   ACK is consumed and replayed four times: itself, then three duplicates (§5.3.3's "we deliver
//!   the same packet again three times"). Replays are applied in order after the hook, so TCP
//!   sees the real ACK before its duplicates.
//! - Report under `"horizon"`: the reorder and signal counters ([`HorizonReport`]).
//!
//! Inferred choices beyond those of [`reorder`] and [`signal`]:
//! - **Sizes.** `Arrival::size` is the size on the wire, Horizon's 19-byte header included (the
//!   forwarding layer adds it); the small-packet rule reads the IP size, `size - header_bytes`
//!   (A14).
//! - **`n_paths`** defaults to the number of the flow's paths (the table's length), not to the
//!   number of distinct PathIDs in it: if two paths' random PathIDs collide (≈ 1/256), loss
//!   detection stays off (deadlines still release) rather than trusting a merged, non-FIFO
//!   "path".
//! - An arrival on no known path (`NO_PATH`, or an index outside the table) gives no path
//!   evidence.
//! - **Signals only from ACK arrivals.** The signal has to be an ACK handed to TCP, and replays
//!   made from other hooks (TCP calling down) would wait for the next hook; deciding on each
//!   arriving ACK is also when the paper's "last packet delivered to IP" is the one at hand.
//! - **`signal_retransmits`** (report only, never a decision): signals after which TCP's sender
//!   handed down, while absorbing the replays, a retransmission of the segment the replayed ACK
//!   asks for. It reads TCP's headers, which the algorithm must not (spec §8); it counts "the
//!   recoveries they caused" (spec §2.7), which only TCP knows otherwise.
//! - Only `fake_dupack` and no signal are implemented (`signal: drop` is not).

pub mod reorder;
pub mod signal;

#[cfg(test)]
mod tests;

use crate::metrics::results::ShimReport;
use crate::net::horizon::config::{HorizonConfig, HzSignalConfig};
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::Time;
use crate::transport::shim::{Arrival, End, Shim, ShimIo, ShimTimer, Verdict};
use reorder::{Delivery, Incoming, Reorder, ReorderParams, ReorderStats};
use signal::{SignalParams, SignalStats, Signaller};

/// The reorder deadline: the shim's only timer.
pub const REORDER_TIMER: ShimTimer = 0;

/// Horizon's header on every packet, bytes (§5.1, Fig. 2 caption).
pub const HORIZON_HEADER_BYTES: u32 = 19;

/// How the source signals congestion to TCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignalMode {
    /// A fake triple duplicate ACK (§5.3.3).
    FakeDupAck,
    /// None: the signaller only estimates (an ablation).
    Off,
}

/// A Horizon shim's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HorizonShimParams {
    /// Horizon's header, included in `Arrival::size`, bytes.
    pub header_bytes: u32,
    /// The reorder buffer's (its `n_paths` is overridden by [`Self::n_paths`]).
    pub reorder: ReorderParams,
    /// The loss-detection guard: `None` = the number of the flow's paths; `Some(0)` = no guard.
    pub n_paths: Option<usize>,
    /// The signaller's.
    pub signal: SignalParams,
    /// How congestion is signalled.
    pub signal_mode: SignalMode,
}

impl HorizonShimParams {
    /// The shim's parameters of a checked horizon routing block: the destination's reorder buffer
    /// and the source's signaller (`transport::horizon`).
    pub fn of_config(cfg: &HorizonConfig) -> Self {
        let HorizonConfig {
            k,
            price_cap,
            min_window,
            signal,
            ref reorder,
            ..
        } = *cfg;
        let d = HorizonShimParams::default();
        HorizonShimParams {
            header_bytes: crate::net::horizon::HEADER_BYTES,
            reorder: ReorderParams {
                alpha: reorder.alpha,
                beta: reorder.beta,
                d0: reorder.d0,
                loss_detection: reorder.loss_detection,
                ..d.reorder
            },
            signal: SignalParams {
                k,
                price_cap,
                min_window,
                alpha: reorder.alpha,
                beta: reorder.beta,
                d0: reorder.d0,
                ..d.signal
            },
            signal_mode: match signal {
                HzSignalConfig::FakeDupack => SignalMode::FakeDupAck,
                HzSignalConfig::None => SignalMode::Off,
            },
            ..d
        }
    }
}

impl Default for HorizonShimParams {
    /// Spec 003 §2.9.
    fn default() -> Self {
        HorizonShimParams {
            header_bytes: HORIZON_HEADER_BYTES,
            reorder: ReorderParams::default(),
            n_paths: None,
            signal: SignalParams::default(),
            signal_mode: SignalMode::FakeDupAck,
        }
    }
}

/// What the shim reports under `"horizon"`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HorizonReport {
    /// The destination's reorder buffer.
    pub reorder: ReorderReport,
    /// The source's signaller.
    pub signal: SignalReport,
}

/// The reorder buffer's counters as reported (times in seconds, as elsewhere in the results).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReorderReport {
    /// The buffer's counters.
    #[serde(flatten)]
    pub stats: ReorderStats,
    /// Mean time in the buffer of the packets delivered in or out of order, s.
    pub mean_hold_s: f64,
    /// Longest, s.
    pub max_hold_s: f64,
    /// The one-way delay mean A at the end, s (`None`: nothing arrived).
    pub mean_delay_s: Option<f64>,
}

impl ReorderReport {
    fn new(stats: &ReorderStats, mean_delay: Option<f64>) -> Self {
        ReorderReport {
            stats: stats.clone(),
            mean_hold_s: stats.mean_hold_ns() / 1e9,
            max_hold_s: stats.max_hold_ns as f64 / 1e9,
            mean_delay_s: mean_delay.filter(|a| a.is_finite()).map(|a| a / 1e9),
        }
    }
}

/// The signaller's counters as reported.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SignalReport {
    /// The signaller's own.
    #[serde(flatten)]
    pub stats: SignalStats,
    /// Signals TCP answered with a retransmission of the segment asked for.
    pub signal_retransmits: u64,
}

/// Horizon's reorder buffer and signaller on one TCP flow (see the module header).
#[derive(Debug, Clone)]
pub struct HorizonShim {
    header_bytes: u32,
    signal_mode: SignalMode,
    /// PathID of each of the flow's paths (`Arrival::path` indexes it).
    path_ids: Vec<u8>,
    reorder: Reorder<DataHeader>,
    signaller: Signaller,
    /// The reorder timer as last armed.
    armed: Option<Time>,
    /// Scratch for what the buffer releases.
    out: Vec<Delivery<DataHeader>>,
    /// After a signal, the segment its ACK asks for, until TCP retransmits it or the next ACK.
    awaiting_retransmit: Option<u64>,
    signal_retransmits: u64,
}

impl HorizonShim {
    /// The shim of a flow whose paths (`Arrival::path` = 0..n) carry Horizon PathIDs
    /// `path_ids[0..n]` (the forwarding layer computes them).
    pub fn new(params: &HorizonShimParams, path_ids: Vec<u8>) -> Self {
        let mut reorder = params.reorder;
        reorder.n_paths = params.n_paths.unwrap_or(path_ids.len());
        HorizonShim {
            header_bytes: params.header_bytes,
            signal_mode: params.signal_mode,
            path_ids,
            reorder: Reorder::new(reorder),
            signaller: Signaller::new(params.signal),
            armed: None,
            out: Vec::new(),
            awaiting_retransmit: None,
            signal_retransmits: 0,
        }
    }

    /// The destination's reorder buffer.
    pub fn reorder(&self) -> &Reorder<DataHeader> {
        &self.reorder
    }

    /// The source's signaller.
    pub fn signaller(&self) -> &Signaller {
        &self.signaller
    }

    /// The counters as reported.
    pub fn counters(&self) -> HorizonReport {
        HorizonReport {
            reorder: ReorderReport::new(self.reorder.stats(), self.reorder.mean_delay()),
            signal: SignalReport {
                stats: self.signaller.stats().clone(),
                signal_retransmits: self.signal_retransmits,
            },
        }
    }

    /// The PathID of flow path `path`, if it has one.
    fn path_id(&self, path: u8) -> Option<u8> {
        self.path_ids.get(usize::from(path)).copied()
    }

    /// Hands up what the buffer released (all of it, in order) and re-arms the timer.
    fn hand_up(&mut self, io: &mut dyn ShimIo) {
        for d in self.out.drain(..) {
            io.deliver(d.payload);
        }
        self.arm(io);
    }

    /// Moves the seam's timer to the buffer's deadline, if it changed.
    fn arm(&mut self, io: &mut dyn ShimIo) {
        let deadline = self.reorder.deadline();
        if deadline != self.armed {
            self.armed = deadline;
            io.set_timer(REORDER_TIMER, deadline);
        }
    }

    /// Replays `ack` and three duplicates of it into TCP's sender.
    fn fake_triple_dupack(&mut self, ack: &AckHeader, io: &mut dyn ShimIo) {
        for _ in 0..4 {
            io.replay_ack(*ack);
        }
        self.awaiting_retransmit = Some(ack.ack);
    }
}

impl Shim for HorizonShim {
    fn name(&self) -> &'static str {
        "horizon"
    }

    fn timers(&self) -> usize {
        1
    }

    fn sees_arrivals(&self) -> bool {
        true
    }

    fn on_arriving_segment(
        &mut self,
        segment: &DataHeader,
        arrival: Arrival,
        io: &mut dyn ShimIo,
    ) -> Verdict {
        let pkt = Incoming {
            id: arrival.layer_seq,
            sent: i64::try_from(arrival.created).unwrap_or(i64::MAX),
            ip_bytes: arrival.size.saturating_sub(self.header_bytes),
            path: self.path_id(arrival.path),
            payload: *segment,
        };
        self.out.clear();
        let serial = self.reorder.on_arrival(io.now(), pkt, &mut self.out);
        // The common case, a packet that goes straight up alone, stays on TCP's own path.
        let alone = matches!(self.out.as_slice(), [d] if d.arrival == serial);
        if alone {
            self.out.clear();
            self.arm(io);
            return Verdict::Pass;
        }
        self.hand_up(io);
        Verdict::Consumed
    }

    fn on_timer(&mut self, _timer: ShimTimer, io: &mut dyn ShimIo) {
        // The seam's lazy timer may fire at a deadline since moved: the buffer only releases
        // what is due, so an early call is harmless.
        self.armed = None;
        self.out.clear();
        self.reorder.on_timer(io.now(), &mut self.out);
        self.hand_up(io);
    }

    fn on_sender_segment(&mut self, segment: DataHeader, io: &mut dyn ShimIo) -> Verdict {
        self.signaller.on_segment(io.now());
        if self.awaiting_retransmit == Some(segment.seq) && segment.retransmission {
            self.signal_retransmits += 1;
            self.awaiting_retransmit = None;
        }
        Verdict::Pass
    }

    fn on_arriving_ack(
        &mut self,
        ack: &AckHeader,
        arrival: Arrival,
        io: &mut dyn ShimIo,
    ) -> Verdict {
        self.awaiting_retransmit = None;
        let now = io.now();
        let sent = i64::try_from(arrival.created).unwrap_or(i64::MAX);
        self.signaller.on_ack(now, sent);
        if self.signal_mode == SignalMode::Off {
            return Verdict::Pass;
        }
        let a_sd = self.reorder.mean_delay();
        let price = io.layer_price(End::Source);
        if !self.signaller.decide(now, a_sd, price) {
            return Verdict::Pass;
        }
        self.fake_triple_dupack(ack, io);
        Verdict::Consumed
    }

    fn report(&self) -> Option<ShimReport> {
        Some(ShimReport::new("horizon", &self.counters()))
    }
}
