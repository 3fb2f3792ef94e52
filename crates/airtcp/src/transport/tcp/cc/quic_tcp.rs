//! QUIC-TCP: the queueing-control window law of H. Huang, Z. Sun and X. Wang, "End-to-End TCP
//! Congestion Control for Mobile Applications", IEEE Access 8, 2020 (paper 002), §III eqs. 8-9,
//! with the settings of its §V. (Not the IETF QUIC transport protocol.)
//!
//! What is the paper's (P) and what is inferred here (I):
//!
//! - Estimation (eq. 8, P): every in-order ACK with an RTT sample updates BaseRTT, the minimum
//!   RTT, and `AvgRTT <- 255/256 AvgRTT + 1/256 RTT`. AvgRTT starts at the first sample (I).
//! - Window control (eq. 9, P), with r = BaseRTT / AvgRTT:
//!
//!   ```text
//!   w <- w - kappa r w^(1 - 2 rho) (w - r w - p_s)
//!   ```
//!
//!   `w - r w` is the flow's own backlog estimate (rate times queueing delay), so v = w - r w -
//!   p_s is the distance from the target backlog p_s and the law is an integrator on it with
//!   gain kappa r w^(1 - 2 rho). At equilibrium v = 0: each flow keeps p_s packets queued,
//!   whatever its RTT (weighted proportional fairness, Theorem 1). rho = 1 is Mo and Walrand's
//!   scheme, rho = 1/2 resembles FAST. r is clamped to at most 1 (I: AvgRTT below BaseRTT only
//!   happens before the filter has caught up).
//! - Cadence, i.e. when eq. 9 runs ([`QuicCadence`]); kappa is a step per computation, so its
//!   useful range depends on the cadence:
//!   - `interval` (P for §V-A: "the algorithm (9) is used to update the window size every 20
//!     milliseconds", kappa = 0.05, in the Matlab fluid runs). Without a timer hook the interval
//!     is checked on ACK arrival (I): the first ACK at or after each multiple of the interval
//!     applies the law once; intervals without ACKs apply nothing, since nothing new was
//!     measured. The older `update_interval` field selects this cadence (0: `per_ack`).
//!   - `per_ack` (I: §III's estimation runs "upon receiving an in-order ACK"; the paper does not
//!     say that eq. 9 runs that often).
//!   - `fast_rounds`: §V-B's ns-2 QUIC-TCP is "the ns-2 module of the existing FAST-TCP"
//!     modified "in accordance with the algorithm (9)", with kappa = 1.5 (P). The paper does not
//!     state that module's cadence; taken to be FAST's (I, from Jin, Wei & Low's FAST and its
//!     ns-2 module): a window computation at the end of every other round trip (updated in one
//!     RTT, frozen in the next), an increase spread over the next round's ACKs, a decrease
//!     applied at once, and FAST's cap of each computed window at twice the window it was
//!     computed from (`cap_double`, default true here; false by default for the other
//!     cadences). The target of each computation is eq. 9's `w - kappa r w^(1-2 rho) v` (P),
//!     not FAST's `(1 - gamma) w + gamma (r w + alpha) = w - gamma v`: with rho = 1/2 the two
//!     differ by the factor r. The estimation stays eq. 8's (P: §III states it for QUIC-TCP),
//!     not FAST's `eta = min(3/w, 1/4)` filter, which the ns-2 module may have kept (unknown).
//! - Timeouts and duplicate ACKs are handled by "the slow start or fast recovery algorithm in
//!   current TCP" (§III, P): the sender's NewReno/SACK recovery with ssthresh = FlightSize / 2
//!   (RFC 5681 eq. 4), and slow start after a timeout. After either, the cadence starts over.
//!
//! Symbols (paper -> here): w_s -> `CcState::cwnd`; BaseRTT_s -> `AckSample::min_rtt` (the
//! sender's minimum RTT, kept as `base_rtt`); AvgRTT_s -> `avg_rtt`; RTT_s -> `AckSample::rtt`;
//! kappa, rho, p_s -> `QuicTcpParams::{kappa, rho, p_s}`; v_s -> `v`. The cwnd trace records
//! AvgRTT, BaseRTT and v (the v of the last window computation) as its `avg_rtt_s`, `base_rtt_s`
//! and `v` columns ([`super::DelayState`]).
//!
//! Deviations and additions (the paper does not specify these; I):
//! - Start-up: the sender's slow start (one segment per ACK) runs until the backlog estimated
//!   from this ACK's own RTT sample, `in_flight (1 - BaseRTT / RTT)`, exceeds p_s (or a loss
//!   ends it); the slowly moving AvgRTT of eq. 8 would let slow start overshoot by many RTTs.
//!   After a timeout the same rule applies below ssthresh.
//! - The window is kept between two segments (so that a large step cannot stall the flow) and
//!   10^9 segments (so that a step size far above the stable range cannot overflow it).
//! - "Every in-order ACK" means every ACK of new data outside loss recovery: with delayed ACKs
//!   that is one update per two segments.
//! - Data and burstiness control (the paper refers to FAST's) are the sender's: segments leave
//!   as ACKs and window increases allow; only `fast_rounds` spreads an increase over a round.

use super::check_rule;
use super::{AckSample, CcState, CongestionControl, CongestionEvent, DelayState, FastRounds};
use crate::error::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Smallest window the law sets, segments.
const MIN_WINDOW: f64 = 2.0;

/// Largest window the law sets, segments (a guard against overflow, far above any real window).
const MAX_WINDOW: f64 = 1e9;

/// Weight of the newest sample in AvgRTT (eq. 8).
const AVG_WEIGHT: f64 = 1.0 / 256.0;

/// QUIC-TCP window control.
#[derive(Debug, Clone)]
pub struct QuicTcp {
    p: QuicTcpParams,
    cadence: QuicCadence,
    /// AvgRTT, ns.
    avg_rtt: Option<f64>,
    /// BaseRTT of the last ACK, ns (for traces).
    base_rtt: Option<f64>,
    /// When the next interval update is due (`interval` cadence).
    next_update: Option<Time>,
    /// The update/freeze alternation and paced increases (`fast_rounds` cadence).
    rounds: FastRounds,
    /// v = w - r w - p_s at the last window computation, segments (for traces).
    v: Option<f64>,
    /// Window computations so far.
    computations: u64,
}

impl QuicTcp {
    /// A QUIC-TCP controller with parameters `p`. The scenario check refuses parameters whose
    /// cadence does not resolve; should such reach here, the default cadence (§V-A) runs.
    pub fn new(p: QuicTcpParams) -> Self {
        let cadence = p.resolved_cadence().unwrap_or(QuicCadence::Interval {
            every: 20_000_000,
            cap_double: false,
        });
        QuicTcp {
            p,
            cadence,
            avg_rtt: None,
            base_rtt: None,
            next_update: None,
            rounds: FastRounds::default(),
            v: None,
            computations: 0,
        }
    }

    /// Eq. 9 applied once to window `w` with r = BaseRTT / AvgRTT, capped at 2w if the cadence
    /// says so and kept within [MIN_WINDOW, MAX_WINDOW].
    fn step(&mut self, w: f64, r: f64) -> f64 {
        let v = w - r * w - self.p.p_s;
        self.v = Some(v);
        self.computations += 1;
        let gain = self.p.kappa * r * w.powf(1.0 - 2.0 * self.p.rho);
        let next = w - gain * v;
        let next = if self.cap_double() {
            next.min(2.0 * w)
        } else {
            next
        };
        if next.is_nan() {
            MIN_WINDOW // unreachable with finite inputs; a guard, not a result
        } else {
            next.clamp(MIN_WINDOW, MAX_WINDOW)
        }
    }

    fn cap_double(&self) -> bool {
        match self.cadence {
            QuicCadence::PerAck { cap_double }
            | QuicCadence::Interval { cap_double, .. }
            | QuicCadence::FastRounds { cap_double } => cap_double,
        }
    }

    /// Whether the law runs on an ACK at `now` (`per_ack` and `interval` cadences), advancing
    /// the interval schedule.
    fn due(&mut self, now: Time) -> bool {
        let QuicCadence::Interval {
            every: interval, ..
        } = self.cadence
        else {
            return true;
        };
        match self.next_update {
            Some(t) if now < t => false,
            Some(t) => {
                // The next multiple of the interval after `now`, on the grid that started at t.
                let to_grid = interval - (now - t) % interval;
                self.next_update = Some(now.saturating_add(to_grid));
                true
            }
            None => {
                // The first ACK after slow start starts the grid; the law first runs one
                // interval later, once AvgRTT has seen that interval's samples.
                self.next_update = Some(now.saturating_add(interval));
                false
            }
        }
    }

    /// Starts the cadence over (after slow start, a loss or a timeout).
    fn restart(&mut self) {
        self.next_update = None;
        self.rounds.restart();
    }
}

impl CongestionControl for QuicTcp {
    fn name(&self) -> &'static str {
        "quic_tcp"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
        }
        if let Some(base) = ack.min_rtt {
            self.base_rtt = Some(base as f64);
        }
        if let Some(rtt) = ack.rtt {
            let rtt = rtt as f64;
            self.avg_rtt = Some(
                self.avg_rtt
                    .map_or(rtt, |a| (1.0 - AVG_WEIGHT) * a + AVG_WEIGHT * rtt),
            );
        }
        // Slow start grows whether or not this ACK has an RTT sample (after a timeout the
        // retransmitted segments give none); only leaving it needs one.
        if state.in_slow_start() {
            state.cwnd += 1.0;
            if let (Some(base), Some(rtt)) = (ack.min_rtt, ack.rtt) {
                let (base, rtt) = (base as f64, rtt as f64);
                if ack.in_flight as f64 * (1.0 - base / rtt.max(base)) > self.p.p_s {
                    state.ssthresh = state.cwnd;
                    self.restart();
                }
            }
            return;
        }
        let (Some(base), Some(avg)) = (ack.min_rtt, self.avg_rtt) else {
            return;
        };
        let base = base as f64;
        if let QuicCadence::FastRounds { .. } = self.cadence {
            if self.rounds.computes(ack.now, ack.rtt) && avg > 0.0 {
                let target = self.step(state.cwnd, (base / avg).min(1.0));
                self.rounds.head_for(state, target);
                state.ssthresh = state.ssthresh.min(state.cwnd).max(MIN_WINDOW);
            }
            self.rounds.pace(state, ack.acked);
        } else if avg > 0.0 && self.due(ack.now) {
            state.cwnd = self.step(state.cwnd, (base / avg).min(1.0));
            // ssthresh only marks slow start, which the law has ended (kept for RFC 5681's
            // cwnd < ssthresh test in the sender).
            state.ssthresh = state.ssthresh.min(state.cwnd).max(MIN_WINDOW);
        }
    }

    fn ssthresh(&mut self, _state: &CcState, in_flight: f64) -> f64 {
        super::reno::halved(in_flight)
    }

    fn on_event(&mut self, _state: &mut CcState, _event: CongestionEvent, _now: Time) {
        self.restart();
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("quic_tcp_avg_rtt_s", self.avg_rtt.unwrap_or(0.0) / 1e9),
            ("quic_tcp_v", self.v.unwrap_or(0.0)),
        ]
    }

    fn delay_state(&self) -> Option<DelayState> {
        Some(DelayState {
            avg_rtt_s: self.avg_rtt.map(|a| a / 1e9),
            base_rtt_s: self.base_rtt.map(|b| b / 1e9),
            v: self.v,
        })
    }
}

/// QUIC-TCP parameters (paper 002 eq. 9 and §V).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuicTcpParams {
    /// Step size kappa > 0, per window computation (§V-A: 0.05 with updates every 20 ms).
    #[serde(default = "default_quic_kappa")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub kappa: f64,
    /// Exponent rho in [0, 1] of the gain w^(1 - 2 rho) (§V-B: 0.5).
    #[serde(default = "default_quic_rho")]
    #[schemars(range(min = 0, max = 1))]
    pub rho: f64,
    /// Target backlog p_s, packets (§V-B: 200).
    #[serde(default = "default_quic_p_s")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub p_s: f64,
    /// The older spelling of the cadence: time between window updates, ns; 0 updates on every
    /// in-order ACK. Absent with `cadence` absent: 20 ms (§V-A). Not together with `cadence`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::quantity::duration)]
    #[schemars(extend("x-omit-default" = true))]
    pub update_interval: Option<Time>,
    /// When the window law runs; absent: `update_interval` decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omit-default" = true))]
    pub cadence: Option<QuicCadence>,
}

/// When QUIC-TCP's window law (paper 002 eq. 9) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QuicCadence {
    /// On every in-order ACK.
    PerAck {
        /// Cap each computed window at twice the window it was computed from.
        #[serde(default)]
        cap_double: bool,
    },
    /// On the first ACK at or after each multiple of `every` (the paper's Matlab runs: 20 ms).
    Interval {
        /// Time between computations, ns (> 0).
        #[serde(default = "default_quic_interval")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        every: Time,
        /// Cap each computed window at twice the window it was computed from.
        #[serde(default)]
        cap_double: bool,
    },
    /// FAST's cadence (the paper's ns-2 module was FAST's, "modified in accordance with (9)"):
    /// a window computation at the end of every other round trip, an increase spread over the
    /// next round's ACKs, a decrease applied at once.
    FastRounds {
        /// Cap each computed window at twice the window it was computed from (FAST's
        /// `min(2w, .)`).
        #[serde(default = "super::default_true")]
        cap_double: bool,
    },
}

impl QuicTcpParams {
    /// The cadence these parameters select, or the problem as (field below the `quic_tcp`
    /// block, message), worded as the Python front end words it.
    pub fn resolved_cadence(&self) -> Result<QuicCadence, (&'static str, &'static str)> {
        match (self.cadence, self.update_interval) {
            (Some(_), Some(_)) => Err((
                "cadence",
                "give either cadence or update_interval (its older spelling), not both",
            )),
            (Some(QuicCadence::Interval { every: 0, .. }), None) => {
                Err(("cadence.every", "must be greater than zero"))
            }
            (Some(cadence), None) => Ok(cadence),
            (None, Some(0)) => Ok(QuicCadence::PerAck { cap_double: false }),
            (None, interval) => Ok(QuicCadence::Interval {
                every: interval.unwrap_or(default_quic_interval()),
                cap_double: false,
            }),
        }
    }
}

impl QuicTcpParams {
    /// Checks the block's values (at `p`, e.g. `flows[0].transport.quic_tcp`), worded as the Python
    /// front end words them.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        let above_zero = "must be greater than 0";
        check_rule(
            format!("{p}.kappa"),
            self.kappa,
            self.kappa > 0.0,
            above_zero,
        )?;
        let in_unit = (0.0..=1.0).contains(&self.rho);
        check_rule(
            format!("{p}.rho"),
            self.rho,
            in_unit,
            "must be within [0, 1]",
        )?;
        check_rule(format!("{p}.p_s"), self.p_s, self.p_s > 0.0, above_zero)?;
        if let Err((field, message)) = self.resolved_cadence() {
            return Err(ConfigError::new(
                format!("{p}.{field}"),
                message.to_string(),
            ));
        }
        Ok(())
    }
}

impl Default for QuicTcpParams {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all QUIC-TCP fields have defaults")
    }
}

fn default_quic_kappa() -> f64 {
    0.05
}
fn default_quic_rho() -> f64 {
    0.5
}
fn default_quic_p_s() -> f64 {
    200.0
}
fn default_quic_interval() -> Time {
    20_000_000
}

#[cfg(test)]
mod tests;
