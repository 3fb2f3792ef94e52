//! Horizon's congestion signaller at a flow's source (paper 003, Radunović et al., MobiCom 2008:
//! §4.1 for the target window, §5.3.2 for K, the cap and the floor, §5.3.3 for the signal; spec
//! 003 §2.7, A10, A21). A pure state machine: segments handed on, ACK delays and the source's
//! price go in; "signal now" comes out. The caller delivers the signal (a fake triple duplicate
//! ACK, `super::HorizonShim`).
//!
//! - Target window `B* = K / sqrt(C_s)` (§4.1, from `U'(y) = C_s`), `C_s` capped at `price_cap`
//!   (§5.3.2: "we also do not let C grow over 100", so `B* >= K/10 = 9`).
//! - Window estimate `B̂ = ŷ · RTT̂` (§5.3.3: "by estimating y_f and RTT_f"), built without
//!   looking into TCP's headers (§5.1: no deep inspection; spec §8 forbids TCP's srtt and cwnd).
//! - Signal when `B̂ > B*` and `B̂ >= min_window` (§5.3.2: "we do not signal congestion if the
//!   window is smaller than 5").
//!
//! Choices the paper leaves open (spec A10), all parameters ([`SignalParams`]):
//! - **ŷ** is an EWMA (gain 1/8) of the segments handed on per 100 ms bin, in segments per bin.
//!   Bins start at the first segment and are closed lazily, when the next segment or decision
//!   comes: a bin with no segments is a 0, and a run of n empty bins is one multiplication by
//!   `(1-g)^n` (no timer, no loop over idle time). The first closed bin sets ŷ (the estimator's
//!   first sample, as for A); before it there is no estimate and no signal.
//! - **RTT̂ = A_sd + A_ds**: the destination's one-way mean (its reorder buffer's A) plus the
//!   mean one-way delay of the ACKs arriving here, each with eq. (16)'s estimator. The two clock
//!   skews cancel in the sum. No signal before both have a sample, or if the sum is not positive.
//! - **At most one signal per RTT̂** (ECN-like): the decision after a signal is refused until
//!   RTT̂ (as estimated at that later moment) has passed.
//! - **No price, no signal**: `C_s` unknown (no forwarding layer prices the flow), not positive
//!   or not a number gives no target window.

use super::reorder::DelayEstimator;
use crate::sim::time::MILLIS;
use crate::sim::Time;

/// The signaller's parameters (spec 003 §2.7, §2.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignalParams {
    /// K of `B* = K / sqrt(C_s)`, packets · sqrt(price).
    pub k: f64,
    /// The price's cap (`B* >= K / sqrt(cap)`).
    pub price_cap: f64,
    /// No signal while the window estimate is below this many packets.
    pub min_window: f64,
    /// Width of a rate bin, ns.
    pub bin: Time,
    /// Gain of the rate EWMA.
    pub rate_gain: f64,
    /// Eq. (16)'s gains and first deviation for the ACKs' one-way delay (as the reorder
    /// buffer's), ns for `d0`.
    pub alpha: f64,
    /// See `alpha`.
    pub beta: f64,
    /// See `alpha`.
    pub d0: Time,
}

impl Default for SignalParams {
    /// Spec 003 §2.9: K = 90, cap 100, floor 5, 100 ms bins with gain 1/8, eq. (16) with 1/8,
    /// 1/4, 10 ms.
    fn default() -> Self {
        SignalParams {
            k: 90.0,
            price_cap: 100.0,
            min_window: 5.0,
            bin: 100 * MILLIS,
            rate_gain: 0.125,
            alpha: 0.125,
            beta: 0.25,
            d0: 10 * MILLIS,
        }
    }
}

/// The signaller's counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SignalStats {
    /// Segments handed on.
    pub segments: u64,
    /// ACKs whose delay was sampled.
    pub acks: u64,
    /// Fake congestion signals sent.
    pub signals: u64,
    /// Decisions that would have signalled but for the one-per-RTT̂ limit.
    pub rate_limited: u64,
}

/// ŷ: segments per bin, an EWMA over bins closed lazily.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RateEstimator {
    bin: Time,
    gain: f64,
    /// End of the open bin (`None` before the first segment).
    bin_end: Option<Time>,
    /// Segments in the open bin.
    count: u64,
    /// The EWMA, segments per bin (`None` before the first bin closed).
    rate: Option<f64>,
}

impl RateEstimator {
    fn new(bin: Time, gain: f64) -> Self {
        RateEstimator {
            bin: bin.max(1),
            gain,
            bin_end: None,
            count: 0,
            rate: None,
        }
    }

    /// A segment was handed on at `now`.
    fn on_segment(&mut self, now: Time) {
        self.roll(now);
        if self.bin_end.is_none() {
            self.bin_end = Some(now.saturating_add(self.bin));
        }
        self.count += 1;
    }

    /// Closes the bins that ended by `now`: the open one with its count, the empty ones after it
    /// in one step.
    fn roll(&mut self, now: Time) {
        let Some(end) = self.bin_end else { return };
        if now < end {
            return;
        }
        self.fold(self.count as f64);
        self.count = 0;
        let empty = (now - end) / self.bin;
        if empty > 0 {
            // (1-g)^n underflows to 0 long before n reaches i32::MAX.
            let n = i32::try_from(empty).unwrap_or(i32::MAX);
            self.rate = self.rate.map(|r| r * (1.0 - self.gain).powi(n));
        }
        self.bin_end = Some(end.saturating_add((empty + 1).saturating_mul(self.bin)));
    }

    fn fold(&mut self, sample: f64) {
        self.rate = Some(match self.rate {
            None => sample,
            Some(r) => r + self.gain * (sample - r),
        });
    }

    /// ŷ, segments per second, after closing the bins that ended by `now`.
    fn per_second(&mut self, now: Time) -> Option<f64> {
        self.roll(now);
        self.rate.map(|r| r * 1e9 / self.bin as f64)
    }
}

/// One flow's congestion signaller at its source (see the module header).
#[derive(Debug, Clone)]
pub struct Signaller {
    params: SignalParams,
    rate: RateEstimator,
    /// A_ds: the ACKs' one-way delay.
    ack_delay: DelayEstimator,
    last_signal: Option<Time>,
    stats: SignalStats,
}

impl Signaller {
    /// A signaller with no estimates yet.
    pub fn new(params: SignalParams) -> Self {
        Signaller {
            params,
            rate: RateEstimator::new(params.bin, params.rate_gain),
            ack_delay: DelayEstimator::new(params.alpha, params.beta, params.d0),
            last_signal: None,
            stats: SignalStats::default(),
        }
    }

    /// The source's Horizon layer handed a segment of the flow on at `now`.
    pub fn on_segment(&mut self, now: Time) {
        self.stats.segments += 1;
        self.rate.on_segment(now);
    }

    /// An ACK of the flow sent at `sent` (the destination's clock) arrived at `now`.
    pub fn on_ack(&mut self, now: Time, sent: i64) {
        self.stats.acks += 1;
        self.ack_delay
            .sample(sent, i64::try_from(now).unwrap_or(i64::MAX));
    }

    /// A_ds, ns; `None` before the first ACK.
    pub fn ack_delay(&self) -> Option<f64> {
        self.ack_delay.mean()
    }

    /// ŷ, segments per second, at `now`; `None` before the first bin closed.
    pub fn rate(&mut self, now: Time) -> Option<f64> {
        self.rate.per_second(now)
    }

    /// RTT̂ = A_sd + A_ds, ns, given the destination's `a_sd`; `None` unless both are known and
    /// the sum is positive.
    pub fn rtt(&self, a_sd: Option<f64>) -> Option<f64> {
        let rtt = a_sd? + self.ack_delay.mean()?;
        (rtt > 0.0).then_some(rtt)
    }

    /// B̂ = ŷ · RTT̂, packets, at `now`.
    pub fn window(&mut self, now: Time, a_sd: Option<f64>) -> Option<f64> {
        let rtt = self.rtt(a_sd)?;
        Some(self.rate(now)? * rtt / 1e9)
    }

    /// B* = K / sqrt(min(C_s, cap)), packets; `None` for an unknown, non-positive or NaN price.
    pub fn target(&self, price: Option<f64>) -> Option<f64> {
        let c = price.filter(|c| *c > 0.0)?.min(self.params.price_cap);
        Some(self.params.k / c.sqrt())
    }

    /// Whether to signal congestion at `now`, with the destination's one-way mean `a_sd` and
    /// the source's price `price`: `B̂ > B*`, `B̂ >= min_window`, and no signal in the last RTT̂.
    /// A `true` is counted as a signal sent.
    pub fn decide(&mut self, now: Time, a_sd: Option<f64>, price: Option<f64>) -> bool {
        let (Some(target), Some(window)) = (self.target(price), self.window(now, a_sd)) else {
            return false;
        };
        if window <= target || window < self.params.min_window {
            return false;
        }
        if self.within_rtt_of_last(now, a_sd) {
            self.stats.rate_limited += 1;
            return false;
        }
        self.last_signal = Some(now);
        self.stats.signals += 1;
        true
    }

    /// Whether the last signal was less than RTT̂ ago.
    fn within_rtt_of_last(&self, now: Time, a_sd: Option<f64>) -> bool {
        match (self.last_signal, self.rtt(a_sd)) {
            (Some(last), Some(rtt)) => (now.saturating_sub(last) as f64) < rtt,
            _ => false,
        }
    }

    /// The counters.
    pub fn stats(&self) -> &SignalStats {
        &self.stats
    }
}
