//! FAST TCP: C. Jin, D. X. Wei and S. H. Low, "FAST TCP: Motivation, Architecture,
//! Algorithms, Performance", IEEE INFOCOM 2004, §3 (architecture and algorithms).
//!
//! FAST splits congestion control into four components; here they map onto a window-based
//! sender as follows.
//!
//! - **Estimation**: every ACK with an RTT sample updates BaseRTT (the minimum RTT) and an
//!   exponentially weighted average RTT, `avgRTT <- (1 - eta) avgRTT + eta RTT` with the
//!   time-varying weight `eta = min(3 / w, 1/4)` (the weight given in the journal version of
//!   the paper, IEEE/ACM ToN 14(6), 2006): heavier smoothing for larger windows, which see
//!   more samples per RTT.
//! - **Window control**: periodically
//!   `w <- min{ 2w, (1 - gamma) w + gamma (BaseRTT / avgRTT * w + alpha) }`. As in the
//!   paper's implementation the window is updated in one RTT and frozen in the next, so that the
//!   RTT measured while frozen reflects the window just set. At equilibrium a flow keeps alpha
//!   packets queued along its path: `w (1 - BaseRTT/avgRTT) = alpha`.
//! - **Burstiness control** ("window pacing"): an increase is spread over the RTT after the
//!   update, `(target - w) / w` segments per acknowledged segment, so that the larger window
//!   does not go out as one burst; a decrease takes effect at once (it sends nothing).
//! - **Data control** (which segments to send: new data or retransmissions) is the sender's:
//!   NewReno or SACK loss recovery. On loss FAST halves the window (RFC 5681 eq. 4) like Reno.
//!
//! Symbols (paper -> here): w -> `CcState::cwnd`; baseRTT -> `AckSample::min_rtt` (the
//! sender's minimum RTT, kept as `base_rtt`); RTT (the average) -> `avg_rtt`; alpha ->
//! `FastParams::alpha` (packets); gamma -> `FastParams::gamma`; the update/freeze alternation and
//! the paced increase -> [`super::FastRounds`] (shared with QUIC-TCP's `fast_rounds` cadence).
//!
//! Traces: the cwnd trace records avgRTT, baseRTT and `v = w - (baseRTT/avgRTT) w - alpha` at
//! the last window computation (the distance from the target backlog; the update is
//! `w <- w - gamma v` before the 2w cap), see [`super::DelayState`].
//!
//! Deviations and what is not modelled:
//! - alpha is a constant: the paper's `alpha(w, qdelay)` variant that switches to a
//!   multiplicative increase while no queueing delay is seen is not modelled.
//! - Start-up: the sender's slow start (one segment per ACK) runs until the backlog estimated
//!   from this ACK's RTT sample, `in_flight (1 - BaseRTT / RTT)`, exceeds alpha (or a loss
//!   ends it); then the window law takes over. The paper leaves start-up to the implementation.
//! - The window never falls below two segments (so that delayed ACKs keep flowing).
//! - Rounds end by time, not by sequence number (see [`super::Rounds`]).
//! - The paper's per-packet pacing of transmissions (instantaneous burstiness control) is not
//!   modelled: the sender releases segments as ACKs arrive.
//! - The window law runs only outside loss recovery (the sender does not call `on_ack` during
//!   recovery); after recovery or a timeout the update/freeze cycle restarts.

use super::check_rule;
use super::{AckSample, CcState, CongestionControl, CongestionEvent, DelayState, FastRounds};
use crate::error::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Smallest window FAST sets, segments.
const MIN_WINDOW: f64 = 2.0;

/// FAST TCP window control.
#[derive(Debug, Clone)]
pub struct Fast {
    p: FastParams,
    /// Average RTT, ns.
    avg_rtt: Option<f64>,
    /// BaseRTT of the last ACK, ns (for traces).
    base_rtt: Option<f64>,
    /// The update/freeze alternation and the paced increase.
    cadence: FastRounds,
    /// v = w - (baseRTT/avgRTT) w - alpha at the last window computation (for traces).
    v: Option<f64>,
}

impl Fast {
    /// A FAST controller with parameters `p`.
    pub fn new(p: FastParams) -> Self {
        Fast {
            p,
            avg_rtt: None,
            base_rtt: None,
            cadence: FastRounds::default(),
            v: None,
        }
    }

    /// The window law: the window FAST aims for from window `w`.
    fn target_window(&self, w: f64, base: f64, avg: f64) -> f64 {
        let g = self.p.gamma;
        (2.0 * w).min((1.0 - g) * w + g * (base / avg * w + self.p.alpha))
    }

    /// A window computation at the end of an update round.
    fn compute(&mut self, state: &mut CcState, base: f64, avg: f64) {
        let w = state.cwnd;
        self.v = Some(w - base / avg * w - self.p.alpha);
        let target = self.target_window(w, base, avg).max(MIN_WINDOW);
        self.cadence.head_for(state, target);
        // Vegas-style: ssthresh only marks slow start, which the window law has ended.
        state.ssthresh = state.ssthresh.min(state.cwnd).max(MIN_WINDOW);
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
        }
        if let Some(base) = ack.min_rtt {
            self.base_rtt = Some(base as f64);
        }
        if let Some(rtt) = ack.rtt {
            let eta = (3.0 / state.cwnd).min(0.25);
            let rtt = rtt as f64;
            self.avg_rtt = Some(self.avg_rtt.map_or(rtt, |a| (1.0 - eta) * a + eta * rtt));
        }
        // Slow start grows whether or not this ACK has an RTT sample (after a timeout the
        // retransmitted segments give none); only leaving it needs one.
        if state.in_slow_start() {
            state.cwnd += 1.0;
            if let (Some(base), Some(rtt)) = (ack.min_rtt, ack.rtt) {
                let (base, rtt) = (base as f64, rtt as f64);
                if ack.in_flight as f64 * (1.0 - base / rtt.max(base)) > self.p.alpha {
                    state.ssthresh = state.cwnd;
                    self.cadence.restart();
                }
            }
            return;
        }
        let (Some(base), Some(avg)) = (ack.min_rtt, self.avg_rtt) else {
            return;
        };
        let base = base as f64;
        if self.cadence.computes(ack.now, ack.rtt) {
            self.compute(state, base, avg);
        }
        self.cadence.pace(state, ack.acked);
    }

    fn ssthresh(&mut self, _state: &CcState, in_flight: f64) -> f64 {
        super::reno::halved(in_flight)
    }

    fn on_event(&mut self, _state: &mut CcState, _event: CongestionEvent, _now: Time) {
        self.cadence.restart();
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![("fast_avg_rtt_s", self.avg_rtt.unwrap_or(0.0) / 1e9)]
    }

    fn delay_state(&self) -> Option<DelayState> {
        Some(DelayState {
            avg_rtt_s: self.avg_rtt.map(|a| a / 1e9),
            base_rtt_s: self.base_rtt.map(|b| b / 1e9),
            v: self.v,
        })
    }
}

/// FAST TCP parameters (Jin, Wei & Low 2004).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FastParams {
    /// Packets each flow aims to keep queued along its path (paper 002 §V-B: 200).
    #[serde(default = "default_fast_alpha")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub alpha: f64,
    /// Weight of the new window estimate in each update, in (0, 1] in the FAST paper (0.5);
    /// paper 002 sweeps this step size beyond 1 (Fig. 7a).
    #[serde(default = "default_fast_gamma")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub gamma: f64,
}

impl FastParams {
    /// Checks the block's values (at `p`, e.g. `flows[0].transport.fast`), worded as the Python
    /// front end words them.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        let above_zero = "must be greater than 0";
        check_rule(
            format!("{p}.alpha"),
            self.alpha,
            self.alpha > 0.0,
            above_zero,
        )?;
        check_rule(
            format!("{p}.gamma"),
            self.gamma,
            self.gamma > 0.0,
            above_zero,
        )
    }
}

impl Default for FastParams {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all FAST fields have defaults")
    }
}

fn default_fast_alpha() -> f64 {
    200.0
}
fn default_fast_gamma() -> f64 {
    0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    const BASE: Time = 100 * MILLIS;

    fn fast(alpha: f64) -> Fast {
        Fast::new(FastParams { alpha, gamma: 0.5 })
    }

    fn ca(cwnd: f64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 2.0,
        }
    }

    /// One round trip of ACKs (one per segment) starting at `t0`, every segment delayed `rtt`.
    fn round(f: &mut Fast, s: &mut CcState, t0: Time, rtt: Time) {
        let w = s.cwnd.floor().max(1.0) as u32;
        for i in 0..w {
            let a = AckSample {
                now: t0 + i as Time * rtt / w as Time,
                acked: 1,
                rtt: Some(rtt),
                min_rtt: Some(BASE),
                srtt: Some(rtt),
                in_flight: s.cwnd.floor() as u32,
            };
            f.on_ack(s, &a);
        }
    }

    #[test]
    fn the_window_law_is_the_papers() {
        let f = fast(20.0);
        // (1 - 0.5) 100 + 0.5 (100/125 * 100 + 20) = 50 + 50 = 100: the fixed point, where
        // w (1 - BaseRTT/RTT) = 100 * 0.2 = alpha.
        assert_eq!(f.target_window(100.0, 100.0, 125.0), 100.0);
        // No queueing: w + gamma alpha, capped at 2w.
        assert_eq!(f.target_window(100.0, 100.0, 100.0), 110.0);
        assert_eq!(f.target_window(4.0, 100.0, 100.0), 8.0);
    }

    #[test]
    fn updates_every_other_round_and_paces_the_increase() {
        let mut f = fast(20.0);
        let mut s = ca(100.0);
        let mut t = BASE;
        // Round 1: its first ACK ends the initial round and sets the target 110, reached over
        // the round's ACKs. Round 2 is frozen. Round 3 updates again: 120.
        let mut per_round = Vec::new();
        for _ in 0..3 {
            round(&mut f, &mut s, t, BASE);
            t += BASE;
            per_round.push(s.cwnd);
        }
        // (Each round has floor(cwnd) ACKs, and 110 is reached as 109.999...: 109 ACKs in
        // round 3, hence the tolerance.)
        assert!((per_round[0] - 110.0).abs() < 1e-6, "{per_round:?}");
        assert!((per_round[1] - 110.0).abs() < 1e-6, "{per_round:?}");
        assert!((per_round[2] - 120.0).abs() < 0.1, "{per_round:?}");
    }

    #[test]
    fn converges_to_alpha_packets_queued_on_a_fluid_bottleneck() {
        // One flow on a 1000 packet/s bottleneck with 100 ms propagation RTT: with w packets in
        // flight the RTT is max(100 ms, w / 1000 s); the fixed point has alpha queued.
        let mut f = fast(20.0);
        let mut s = ca(10.0);
        let mut t = BASE;
        for _ in 0..200 {
            let rtt = (s.cwnd / 1000.0 * 1e9).max(BASE as f64) as Time;
            round(&mut f, &mut s, t, rtt);
            t += rtt;
        }
        let backlog = s.cwnd - 100.0;
        assert!((backlog - 20.0).abs() < 1.0, "cwnd {}", s.cwnd);
    }

    #[test]
    fn slow_start_ends_once_alpha_is_queued() {
        let mut f = fast(5.0);
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        let mut t = BASE;
        // 100 packet/s, 100 ms: 10 segments fill the pipe. Round 1 (no queue) doubles the
        // window to 20; the first ACK of round 2 sees 10 queued > alpha and ends slow start.
        for _ in 0..2 {
            let rtt = (s.cwnd / 100.0 * 1e9).max(BASE as f64) as Time;
            round(&mut f, &mut s, t, rtt);
            t += rtt;
        }
        assert!(!s.in_slow_start());
        for _ in 0..100 {
            let rtt = (s.cwnd / 100.0 * 1e9).max(BASE as f64) as Time;
            round(&mut f, &mut s, t, rtt);
            t += rtt;
        }
        // Then the window law settles with alpha = 5 queued: w = 15.
        assert!((s.cwnd - 15.0).abs() < 0.5, "cwnd {}", s.cwnd);
    }

    #[test]
    fn loss_halves_the_flight() {
        let mut f = fast(20.0);
        assert_eq!(f.ssthresh(&ca(40.0), 40.0), 20.0);
        assert_eq!(f.ssthresh(&ca(3.0), 3.0), 2.0);
    }

    #[test]
    fn slow_start_grows_on_acks_without_samples() {
        let mut f = fast(20.0);
        let mut s = CcState {
            cwnd: 1.0,
            ssthresh: f64::INFINITY,
        };
        let a = AckSample {
            now: 0,
            acked: 1,
            rtt: None,
            min_rtt: None,
            srtt: None,
            in_flight: 1,
        };
        f.on_ack(&mut s, &a);
        assert_eq!(s.cwnd, 2.0);
    }
}
