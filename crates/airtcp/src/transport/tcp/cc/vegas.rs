//! TCP Vegas: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8), 1995, §3.2 (congestion avoidance) and §3.3 (modified slow
//! start), with the semantics of ns-2's `Agent/TCP/Vegas` (tcp-vegas.cc), which paper 002 runs.
//!
//! Once per round trip the sender compares the rate it expects with an empty queue with the
//! rate it achieved, and expresses the difference in packets it has queued in the network:
//!
//! ```text
//! Expected = W / BaseRTT,  Actual = W / RTT,
//! Diff = (Expected - Actual) BaseRTT = W (1 - BaseRTT / RTT)        [segments]
//! ```
//!
//! - Congestion avoidance: Diff < alpha: grow by one segment over the next RTT (1/cwnd per
//!   ACK); Diff > beta: shrink by one segment now; otherwise hold.
//! - Slow start: the window grows (one segment per ACK) only every other RTT, so that the RTT
//!   measured in the RTT between reflects a constant window; when Diff > gamma slow start ends
//!   with cwnd reduced by 1/8 (ns-2: `cwnd_ -= cwnd_/8`, at least 2) and ssthresh = 2.
//! - Loss: after fast retransmit the window is 3/4 of its value (at least 2); after a timeout,
//!   ssthresh = half the window and cwnd = 2 (ns-2: `slowdown(CLOSE_SSTHRESH_HALF)`,
//!   `cwnd_ = v_slowstart_ = 2`). Out of recovery, ssthresh = 2: as in ns-2, Vegas uses
//!   ssthresh only to mark slow start, and its own rule decides when that ends.
//!
//! Symbols (paper / ns-2 -> here):
//!
//! | paper           | ns-2                       | here                                    |
//! |-----------------|----------------------------|-----------------------------------------|
//! | BaseRTT         | `v_baseRTT_`               | `AckSample::min_rtt` (sender's minimum) |
//! | RTT             | `v_sumRTT_ / v_cntRTT_`    | `rtt_sum / rtt_count` over the round    |
//! | WindowSize      | `t_seqno_ - last_ack_`     | `AckSample::in_flight`                  |
//! | Diff            | `delta`                    | `diff` (rounded like ns-2: `int(x+0.5)`)|
//! | alpha/beta/gamma| `v_alpha_/v_beta_/v_gamma_`| `VegasParams::{alpha, beta, gamma}`     |
//! | -               | `v_incr_`                  | `growth`                                |
//! | -               | `v_inc_flag_`              | `grow_this_round`                       |
//! | -               | `v_begseq_`, `v_begtime_`  | `rounds` (see [`super::Rounds`])        |
//!
//! Deviations from ns-2:
//! - Rounds end by time (the acknowledged segment was sent after the round began) instead of by
//!   sequence number; the two agree except when a round's only ACKs lack RTT samples (Karn).
//! - Actual uses the window at the end of the round rather than ns-2's count of segments sent
//!   during it (`t_seqno_ - v_begseq_`); they differ only while the window changes within the
//!   round, and Diff = W (1 - BaseRTT/RTT) is the paper's own form.
//! - BaseRTT is the minimum of all samples; ns-2's reset of BaseRTT to the round's RTT when at
//!   most one segment is in flight is not modelled.
//! - Loss detection and recovery are the sender's (NewReno or SACK); Vegas's fine-grained
//!   timeout check on the first duplicate ACK (`vegas_expire`), its own RTO estimator and the
//!   "halve if the retransmission is itself lost" rule are not modelled. The 3/4 reduction is
//!   applied once per recovery (the sender's `recover` rule), which subsumes ns-2's "only if the
//!   window was not reduced since the segment was sent" check for most cases.

use super::check_rule;
use super::{AckSample, CcState, CongestionControl, CongestionEvent, Rounds};
use crate::error::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// How the window moves on each ACK until the end of the round (ns-2's `v_incr_`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Growth {
    Hold,
    /// Slow start: one segment per ACK.
    Double,
    /// Congestion avoidance: this many segments per ACK (1/cwnd as of the round's end).
    Linear(f64),
}

/// TCP Vegas window control.
#[derive(Debug, Clone)]
pub struct Vegas {
    p: VegasParams,
    rounds: Rounds,
    rtt_sum: f64,
    rtt_count: u32,
    growth: Growth,
    grow_this_round: bool,
    /// Diff of the last round, segments (for traces).
    diff: f64,
    /// cwnd when the sender last asked for ssthresh, awaiting the event it was asked for.
    window_at_event: Option<f64>,
}

impl Vegas {
    /// A Vegas controller with thresholds `p`.
    pub fn new(p: VegasParams) -> Self {
        Vegas {
            p,
            rounds: Rounds::default(),
            rtt_sum: 0.0,
            rtt_count: 0,
            growth: Growth::Hold,
            // ns-2 starts with v_inc_flag_ = 1; the first round toggles it off.
            grow_this_round: true,
            diff: 0.0,
            window_at_event: None,
        }
    }

    /// The once-per-round decision (ns-2's block under `seqno >= v_begseq_`).
    fn end_round(&mut self, state: &mut CcState, ack: &AckSample, sample: Time) {
        let rtt = if self.rtt_count > 0 {
            self.rtt_sum / self.rtt_count as f64
        } else {
            sample as f64
        };
        self.rtt_sum = 0.0;
        self.rtt_count = 0;
        let base = ack.min_rtt.unwrap_or(sample) as f64;
        if rtt <= 0.0 {
            return;
        }
        self.diff = ack.in_flight as f64 * (1.0 - base / rtt);
        // ns-2 compares int(delta + 0.5) with the (integer) thresholds.
        let delta = (self.diff + 0.5).floor();
        if state.in_slow_start() {
            self.grow_this_round = !self.grow_this_round;
            self.growth = if !self.grow_this_round {
                Growth::Hold
            } else if delta > self.p.gamma {
                state.ssthresh = 2.0;
                state.cwnd = (state.cwnd - state.cwnd / 8.0).max(2.0);
                Growth::Hold
            } else {
                Growth::Double
            };
        } else if delta > self.p.beta {
            state.cwnd = (state.cwnd - 1.0).max(2.0);
            self.growth = Growth::Hold;
        } else if delta < self.p.alpha {
            self.growth = Growth::Linear(1.0 / state.cwnd);
        } else {
            self.growth = Growth::Hold;
        }
    }

    fn restart(&mut self) {
        self.rounds.restart();
        self.rtt_sum = 0.0;
        self.rtt_count = 0;
        self.growth = Growth::Hold;
    }
}

/// The window Vegas keeps after fast retransmit: 3/4 of it, or 2 for windows of 3 or less
/// (ns-2: `win -= win >> 2`, `win = 2` if `win <= 3`).
fn after_fast_retransmit(cwnd: f64) -> f64 {
    if cwnd <= 3.0 {
        2.0
    } else {
        cwnd - cwnd / 4.0
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
        }
        if let Some(sample) = ack.rtt {
            if self.rounds.ends_round(ack.now, ack.rtt) {
                self.end_round(state, ack, sample);
            }
        }
        // ns-2: a slow-start round that overtakes ssthresh stops growing.
        if self.growth == Growth::Double && state.cwnd >= state.ssthresh {
            self.growth = Growth::Hold;
        }
        // Grow only while the sender keeps up with the window: at most two segments of it unused
        // (ns-2: cwnd_ - (t_seqno_ - last_ack_) <= 2, where t_seqno_ - last_ack_ is the number
        // outstanding after this ACK plus one).
        let outstanding = ack.in_flight.saturating_sub(ack.acked) as f64 + 1.0;
        let step = match self.growth {
            Growth::Hold => 0.0,
            Growth::Double => 1.0,
            Growth::Linear(x) => x,
        };
        if step > 0.0 && state.cwnd - outstanding <= 2.0 {
            state.cwnd += step;
        }
        // The sample joins the new round's average after the decision, as in ns-2.
        if let Some(sample) = ack.rtt {
            self.rtt_sum += sample as f64;
            self.rtt_count += 1;
        }
    }

    fn ssthresh(&mut self, state: &CcState, _in_flight: f64) -> f64 {
        self.window_at_event = Some(state.cwnd);
        after_fast_retransmit(state.cwnd)
    }

    fn on_event(&mut self, state: &mut CcState, event: CongestionEvent, _now: Time) {
        match event {
            CongestionEvent::Loss => {
                self.window_at_event = None;
            }
            CongestionEvent::Rto => {
                // Repeated timeouts of one segment keep the ssthresh of the first.
                if let Some(w) = self.window_at_event.take() {
                    state.ssthresh = super::reno::halved(w);
                }
                state.cwnd = 2.0;
                self.grow_this_round = true;
            }
            CongestionEvent::RecoveryEnd => {
                state.ssthresh = 2.0;
            }
        }
        self.restart();
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("vegas_diff", self.diff)]
    }
}

/// TCP Vegas thresholds, in packets of estimated backlog (diff = cwnd (1 - BaseRTT/RTT)).
/// Defaults are ns-2's `v_alpha_ 1`, `v_beta_ 3`, `v_gamma_ 1` (paper 002 §V-B uses 200/203).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VegasParams {
    /// Congestion avoidance grows the window by one segment per RTT while diff < alpha.
    #[serde(default = "default_vegas_alpha")]
    #[schemars(range(min = 0))]
    pub alpha: f64,
    /// ... and shrinks it by one segment per RTT while diff > beta (>= alpha).
    #[serde(default = "default_vegas_beta")]
    #[schemars(range(min = 0))]
    pub beta: f64,
    /// Slow start ends once diff > gamma.
    #[serde(default = "default_vegas_gamma")]
    #[schemars(range(min = 0))]
    pub gamma: f64,
}

impl VegasParams {
    /// Checks the block's values (at `p`, e.g. `flows[0].transport.vegas`), worded as the Python
    /// front end words them.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        let non_negative = "must not be negative";
        check_rule(
            format!("{p}.alpha"),
            self.alpha,
            self.alpha >= 0.0,
            non_negative,
        )?;
        check_rule(
            format!("{p}.beta"),
            self.beta,
            self.beta >= 0.0,
            non_negative,
        )?;
        check_rule(
            format!("{p}.gamma"),
            self.gamma,
            self.gamma >= 0.0,
            non_negative,
        )?;
        let rule = format!("must not be smaller than alpha ({})", self.alpha);
        check_rule(
            format!("{p}.beta"),
            self.beta,
            self.beta >= self.alpha,
            &rule,
        )
    }
}

impl Default for VegasParams {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all Vegas fields have defaults")
    }
}

fn default_vegas_alpha() -> f64 {
    1.0
}
fn default_vegas_beta() -> f64 {
    3.0
}
fn default_vegas_gamma() -> f64 {
    1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    const BASE: Time = 100 * MILLIS;

    fn vegas() -> Vegas {
        Vegas::new(VegasParams::default())
    }

    /// One ACK of one segment at `now` whose segment took `rtt`, `in_flight` outstanding.
    fn ack(now: Time, rtt: Time, in_flight: u32) -> AckSample {
        AckSample {
            now,
            acked: 1,
            rtt: Some(rtt),
            min_rtt: Some(BASE),
            srtt: Some(rtt),
            in_flight,
        }
    }

    /// One round trip starting at `t0`: one ACK per segment of the current window, evenly
    /// spaced over `rtt`, each for a segment sent one `rtt` earlier (so the first ACK of the next
    /// round is the first for a segment sent in this one). The window is in flight throughout.
    fn round(v: &mut Vegas, s: &mut CcState, t0: Time, rtt: Time) {
        let w = s.cwnd.floor().max(1.0) as u32;
        for i in 0..w {
            let mut a = ack(t0 + i as Time * rtt / w as Time, rtt, 0);
            a.in_flight = s.cwnd.floor() as u32;
            v.on_ack(s, &a);
        }
    }

    /// `rounds` round trips of `rtt` from t = rtt on.
    fn drive(v: &mut Vegas, s: &mut CcState, rounds: u64, rtt: Time) {
        for r in 1..=rounds {
            round(v, s, r * rtt, rtt);
        }
    }

    fn ca(cwnd: f64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 2.0,
        }
    }

    #[test]
    fn grows_one_segment_per_rtt_while_diff_is_below_alpha() {
        let (mut v, mut s) = (vegas(), ca(20.0));
        // RTT = BaseRTT: Diff = 0 < alpha.
        drive(&mut v, &mut s, 5, BASE);
        assert!((s.cwnd - 25.0).abs() < 1e-9, "cwnd {}", s.cwnd);
    }

    #[test]
    fn holds_between_alpha_and_beta() {
        let (mut v, mut s) = (vegas(), ca(20.0));
        // Diff = 20 (1 - 100/110) = 1.8: within [1, 3].
        drive(&mut v, &mut s, 5, 110 * MILLIS);
        assert_eq!(s.cwnd, 20.0);
        assert!((v.diff - 1.818).abs() < 0.01, "diff {}", v.diff);
    }

    #[test]
    fn shrinks_one_segment_per_rtt_above_beta() {
        let (mut v, mut s) = (vegas(), ca(20.0));
        // Diff = 20 (1 - 100/150) = 6.7 > beta.
        drive(&mut v, &mut s, 4, 150 * MILLIS);
        // The first ACK of every round (the first ends the empty initial round) takes one off.
        assert_eq!(s.cwnd, 16.0);
    }

    #[test]
    fn rounds_with_diff_rounding_like_ns2() {
        let (mut v, mut s) = (vegas(), ca(10.0));
        // Diff = 10 (1 - 100/106) = 0.57: rounds to 1, which is not below alpha = 1: hold.
        drive(&mut v, &mut s, 3, 106 * MILLIS);
        assert_eq!(s.cwnd, 10.0);
    }

    #[test]
    fn slow_start_grows_every_other_round_and_ends_above_gamma() {
        let mut v = vegas();
        let mut s = CcState {
            cwnd: 4.0,
            ssthresh: f64::INFINITY,
        };
        let mut per_round = Vec::new();
        for r in 1..=6 {
            round(&mut v, &mut s, r * BASE, BASE);
            per_round.push(s.cwnd);
        }
        // Round 1 holds (the first ACK toggles growth off), then double, hold, double, ...
        assert_eq!(per_round, vec![4.0, 8.0, 8.0, 16.0, 16.0, 32.0]);
        // A queue builds: the RTT is 125 ms from round 7 on (its first ACK, for the segment
        // sent at 600 ms, arrives at 725 ms). Round 7 holds (its decision used round 6's
        // samples); round 8 sees Diff = 32 (1 - 100/125) = 6.4 > gamma.
        let rtt = 125 * MILLIS;
        round(&mut v, &mut s, 6 * BASE + rtt, rtt);
        assert_eq!(s.cwnd, 32.0);
        round(&mut v, &mut s, 6 * BASE + 2 * rtt, rtt);
        assert_eq!(s.ssthresh, 2.0);
        assert_eq!(s.cwnd, 28.0, "32 - 32/8");
    }

    #[test]
    fn fast_retransmit_keeps_three_quarters_and_timeout_restarts_at_two() {
        let mut v = vegas();
        let mut s = ca(20.0);
        assert_eq!(v.ssthresh(&s, 20.0), 15.0);
        s.ssthresh = 15.0;
        s.cwnd = 18.0;
        v.on_event(&mut s, CongestionEvent::Loss, 0);
        s.cwnd = 15.0;
        v.on_event(&mut s, CongestionEvent::RecoveryEnd, 0);
        assert_eq!((s.cwnd, s.ssthresh), (15.0, 2.0));
        assert_eq!(v.ssthresh(&s, 15.0), 11.25);
        v.on_event(&mut s, CongestionEvent::Rto, 0);
        assert_eq!((s.cwnd, s.ssthresh), (2.0, 7.5));
        // A second timeout of the same segment keeps ssthresh.
        v.on_event(&mut s, CongestionEvent::Rto, 0);
        assert_eq!((s.cwnd, s.ssthresh), (2.0, 7.5));
        assert_eq!(after_fast_retransmit(3.0), 2.0);
    }

    #[test]
    fn acks_without_samples_do_not_end_rounds() {
        let (mut v, mut s) = (vegas(), ca(20.0));
        let mut a = ack(BASE, 150 * MILLIS, 20);
        a.rtt = None;
        for i in 0..50 {
            a.now = i * BASE;
            v.on_ack(&mut s, &a);
        }
        assert_eq!(s.cwnd, 20.0);
    }
}
