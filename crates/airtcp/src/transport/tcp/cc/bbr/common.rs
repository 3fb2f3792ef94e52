//! What BBR v1 ([`super::Bbr`]) and BBR v3 ([`super::v3::Bbr3`]) share: packet-timed round
//! trips, the ACK-aggregation estimate, the pacing-rate rule, the saved window, and the constants
//! both use. Windows in segments, rates in segments per second, times in ns.

use super::filter::PairMax;
use crate::sim::time::MILLIS;
use crate::sim::Time;
use crate::transport::tcp::rate::RateSample;

/// The smallest window BBR keeps, segments (Linux's `bbr_cwnd_min_target`, ns-3's
/// `m_minPipeCwnd`, the draft's `BBR.MinPipeCwnd`).
pub const MIN_CWND: f64 = 4.0;
/// BBR paces this fraction below its bandwidth estimate to drain standing queues (Linux's
/// `bbr_pacing_margin_percent`, the draft's `BBR.PacingMarginPercent`).
pub const PACING_MARGIN: f64 = 0.01;
/// The ACK-aggregation allowance is capped at this much of the bandwidth estimate, ns (Linux's
/// `bbr_extra_acked_max_us`).
pub const EXTRA_ACKED_MAX: Time = 100 * MILLIS;
/// Segments acknowledged after which an aggregation epoch starts over (Linux's
/// `bbr_ack_epoch_acked_reset_thresh`, 2^20 packets).
const ACK_EPOCH_RESET: u64 = 1 << 20;

/// Packet-timed round trips (the draft's `BBR.round_count`, `BBR.round_start`,
/// `BBR.next_round_delivered`): a round ends with the ACK of a segment sent after the round
/// began.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rounds {
    count: u64,
    start: bool,
    next_delivered: u64,
}

impl Rounds {
    /// Feeds one ACK's sample (Linux's `bbr_update_round_start`: only samples with a valid
    /// interval count); true when it starts a new round.
    pub fn update(&mut self, rs: &RateSample) -> bool {
        self.start = false;
        if rs.rate().is_none() {
            return false;
        }
        if rs.prior_delivered.is_some_and(|p| p >= self.next_delivered) {
            self.next_delivered = rs.total_delivered;
            self.count += 1;
            self.start = true;
        }
        self.start
    }

    /// The draft's `StartRound()`: the current round ends with the first segment sent from now
    /// on (`delivered` is C.delivered).
    pub fn restart(&mut self, delivered: u64) {
        self.next_delivered = delivered;
    }

    /// Marks the ACK being processed as a round start (Linux after a timeout).
    pub fn force_start(&mut self) {
        self.start = true;
    }

    /// Whether the ACK being processed started a round.
    pub fn started(&self) -> bool {
        self.start
    }

    /// Rounds so far.
    pub fn count(&self) -> u64 {
        self.count
    }
}

/// The ACK-aggregation estimate (the draft's `BBR.extra_acked`, Linux's `extra_acked[2]`): the
/// data acknowledged beyond `bw x` the time since the current epoch began, its maximum kept over
/// two periods of a few rounds each. The window grows by it so that the sender keeps sending
/// through the silences of an aggregating link.
#[derive(Debug, Clone, Copy, Default)]
pub struct AckAggregation {
    extra: PairMax,
    rounds: u32,
    epoch_start: Time,
    epoch_acked: u64,
}

impl AckAggregation {
    /// Feeds one ACK (Linux's `bbr_update_ack_aggregation`): `bw` is the bandwidth estimate,
    /// `cwnd` caps a sample, and a period lasts `window_rounds` rounds.
    pub fn update(
        &mut self,
        rs: &RateSample,
        bw: f64,
        cwnd: f64,
        round_start: bool,
        window_rounds: u32,
    ) {
        if rs.acked_sacked == 0 || rs.rate().is_none() {
            return;
        }
        if round_start {
            self.rounds = (self.rounds + 1).min(31);
            if self.rounds >= window_rounds {
                self.rounds = 0;
                self.extra.advance();
            }
        }
        let epoch = rs.now.saturating_sub(self.epoch_start) as f64 / 1e9;
        let mut expected = bw * epoch;
        if self.epoch_acked as f64 <= expected
            || self.epoch_acked + rs.acked_sacked as u64 >= ACK_EPOCH_RESET
        {
            self.epoch_acked = 0;
            self.epoch_start = rs.now;
            expected = 0.0;
        }
        self.epoch_acked += rs.acked_sacked as u64;
        let extra = (self.epoch_acked as f64 - expected).min(cwnd);
        self.extra.update(extra);
    }

    /// The estimate, segments.
    pub fn extra_acked(&self) -> f64 {
        self.extra.best()
    }

    /// What the window allows for aggregation: `gain x` the estimate, at most 100 ms of `bw`.
    pub fn allowance(&self, gain: f64, bw: f64) -> f64 {
        let cap = bw * EXTRA_ACKED_MAX as f64 / 1e9;
        (gain * self.extra.best()).min(cap)
    }
}

/// The pacing-rate rule of both versions (Linux's `bbr_set_pacing_rate`, the draft's
/// `SetPacingRateWithGain`): until the pipe is found full the rate only rises.
pub fn next_pacing_rate(current: Option<f64>, rate: f64, full_bw_reached: bool) -> Option<f64> {
    if full_bw_reached || current.is_none_or(|r| rate > r) {
        Some(rate)
    } else {
        current
    }
}

/// The draft's `SaveCwnd()` (Linux's `bbr_save_cwnd`): the window to restore after recovery or
/// ProbeRTT. `good` says the window is not cut by either at the moment (then it is taken as is);
/// otherwise the larger of the two is kept.
pub fn saved_cwnd(prior: f64, cwnd: f64, good: bool) -> f64 {
    if good {
        cwnd
    } else {
        prior.max(cwnd)
    }
}
