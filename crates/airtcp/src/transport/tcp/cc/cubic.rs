//! Cubic: RFC 9438, "CUBIC for Fast and Long-Distance Networks" (Xu, Ha, Rhee, Goel, Eggert,
//! August 2023).
//!
//! Symbols of the RFC (§4.1) and their names here, all windows in segments, times in seconds:
//!
//! | RFC 9438        | here                          | meaning |
//! |-----------------|-------------------------------|---------|
//! | C               | `params.c` (0.4, §5)          | aggressiveness of the cubic function |
//! | beta_cubic      | `params.beta` (0.7, §4.6)     | multiplicative decrease factor |
//! | alpha_cubic     | `alpha_cubic` = 3(1-b)/(1+b)  | Reno-friendly additive increase (§4.3) |
//! | cwnd            | `CcState::cwnd`               | congestion window |
//! | ssthresh        | `CcState::ssthresh`           | slow-start threshold |
//! | cwnd_prior      | `cwnd_prior`                  | cwnd when ssthresh was last set |
//! | W_max           | `w_max`                       | cwnd before the last reduction (after fast convergence) |
//! | K               | `k`                           | time for W_cubic to reach W_max (§4.2, Figure 2) |
//! | t_epoch         | `t_epoch`                     | start of the current congestion-avoidance stage |
//! | cwnd_epoch      | `cwnd_epoch`                  | cwnd at t_epoch |
//! | W_est           | `w_est`                       | Reno-friendly window estimate (§4.3) |
//! | RTT             | `AckSample::srtt`             | smoothed RTT used in W_cubic(t + RTT) (§4.2) |
//! | segments_acked  | `AckSample::acked`            | segments a new ACK acknowledges |
//!
//! What happens, by section:
//! - §4.2: W_cubic(t) = C (t - K)^3 + W_max (Figure 1), K = cbrt((W_max - cwnd_epoch) / C)
//!   (Figure 2), which is cbrt(W_max (1 - beta) / C) after a plain reduction to beta W_max.
//!   On a new ACK in congestion avoidance, target = W_cubic(t + RTT) clamped to [cwnd, 1.5 cwnd].
//! - §4.3: W_est = cwnd_epoch at the start of the stage, += alpha * segments_acked / cwnd per
//!   ACK, alpha = alpha_cubic until W_est reaches cwnd_prior, 1 afterwards. If
//!   W_cubic(t) < W_est the sender is in the Reno-friendly region and cwnd follows W_est.
//! - §4.4/§4.5 (concave / convex, one rule): otherwise cwnd += (target - cwnd) / cwnd.
//! - §4.6: at a congestion event ssthresh = max(FlightSize * beta, 2), cwnd_prior = cwnd; the
//!   sender then sets cwnd = ssthresh (its loss recovery, unchanged by Cubic, as the RFC says).
//! - §4.7: fast convergence: W_max = cwnd (1 + beta) / 2 if cwnd < the previous W_max, else cwnd.
//! - §4.8: after a timeout the sender slow-starts from one segment (RFC 5681); in the first
//!   congestion-avoidance stage after it K = 0, and W_max and W_est start at cwnd_epoch.
//! - §4.10: slow start is Reno's (RFC 5681, +1 segment per ACK, as the simulator's `reno`),
//!   left early by HyStart or HyStart++ if `hystart` asks (`cc/hystart.rs`; off by default).
//! - §5.8: while the flow is not cwnd-limited cwnd is not grown and t does not advance.
//!
//! Deviations and interpretations:
//! - "Segments acked" in §4.4: the RFC increments cwnd by (target - cwnd)/cwnd "for each
//!   received new ACK". An ACK that acknowledges n segments counts here as n ACKs (capped so
//!   cwnd never passes target), as W_est's update in §4.3 does and as Linux and ns-3 do: with the
//!   default delayed ACKs (every second segment) a per-ACK reading would make cwnd lag W_cubic
//!   by a growing margin, which is not what the RFC's curve describes.
//! - In the Reno-friendly region cwnd = max(cwnd, W_est) rather than W_est: an ACK never lowers
//!   cwnd (the intent of the lower clamp of target in §4.2); the two differ only for the ACKs
//!   just after cwnd has passed W_est by cubic growth.
//! - The stage starts (t_epoch) at the first ACK of new data in congestion avoidance, i.e.
//!   after loss recovery has ended, because the sender does not call `on_ack` during recovery.
//! - Congestion avoidance reached without any congestion event (an `initial_ssthresh`) is
//!   treated as §4.8 treats the stage after a timeout: K = 0, W_max = W_est = cwnd_epoch, and
//!   cwnd_prior = cwnd_epoch (so W_est grows like Reno, alpha = 1).
//! - Application-limited (§5.8): the flow counts as cwnd-limited when the segments in flight
//!   before the ACK are at least floor(cwnd) - 1 (the sender refills the window after every
//!   ACK, so a gap larger than one segment means the application or rwnd held it back); an ACK
//!   that finds it not cwnd-limited changes nothing and moves t_epoch forward by the time since
//!   the previous ACK. Slow start has no such check, like the simulator's `reno`.
//! - Not implemented: undo after a spurious congestion event (§4.9; the sender detects none),
//!   ECN (§4.6; no ECN model). HyStart++ (§4.10's SHOULD) is `hystart: rfc9406`, not the default,
//!   so that results made before it keep their values; pacing is the sender's (`pacing: true`).

use super::check_within;
use super::hystart::{HyStart, HyStartKind};
use super::{AckSample, CcState, CongestionControl, CongestionEvent};
use crate::error::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// RFC 9438 Cubic.
#[derive(Debug, Clone)]
pub struct Cubic {
    params: CubicParams,
    /// 3 (1 - beta) / (1 + beta) (RFC 9438 §4.3).
    alpha_cubic: f64,
    /// W_max; `None` before the first congestion event.
    w_max: Option<f64>,
    cwnd_prior: f64,
    k: f64,
    /// t_epoch; `None` outside a congestion-avoidance stage (it starts at the next ACK there).
    t_epoch: Option<Time>,
    cwnd_epoch: f64,
    w_est: f64,
    /// The next stage is the first after a timeout (§4.8).
    after_rto: bool,
    /// Time of the previous ACK in congestion avoidance (for §5.8).
    last_ack: Time,
    /// The slow-start exit (`hystart`).
    hystart: HyStart,
}

impl Cubic {
    /// A Cubic controller with the given constants.
    pub fn new(params: CubicParams) -> Self {
        Cubic {
            params,
            alpha_cubic: 3.0 * (1.0 - params.beta) / (1.0 + params.beta),
            w_max: None,
            cwnd_prior: 0.0,
            k: 0.0,
            t_epoch: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            after_rto: false,
            last_ack: 0,
            hystart: HyStart::new(params.hystart),
        }
    }

    /// W_cubic(t) (RFC 9438 §4.2, Figure 1) of the current stage, `t` seconds after t_epoch.
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.params.c * d * d * d + self.w_max.unwrap_or(self.cwnd_epoch)
    }

    /// W_est, the Reno-friendly estimate (RFC 9438 §4.3).
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// K of the current stage, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max, if a congestion event has set it.
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }

    /// Starts a congestion-avoidance stage at `now` with window `cwnd` (RFC 9438 §4.2, §4.8).
    fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.t_epoch = Some(now);
        self.last_ack = now;
        self.cwnd_epoch = cwnd;
        self.w_est = cwnd;
        match self.w_max {
            Some(w_max) if !self.after_rto => {
                // §4.2, Figure 2. The signed cube root keeps W_cubic(0) = cwnd_epoch even when fast
                // convergence has put W_max below cwnd_epoch.
                self.k = ((w_max - cwnd) / self.params.c).cbrt();
            }
            _ => {
                // §4.8 (and, by analogy, a stage entered without any congestion event).
                if self.w_max.is_none() {
                    self.cwnd_prior = cwnd;
                }
                self.w_max = Some(cwnd);
                self.k = 0.0;
            }
        }
        self.after_rto = false;
    }
}

fn secs(ns: Time) -> f64 {
    ns as f64 * 1e-9
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
        }
        if state.in_slow_start() {
            let step = self.hystart.on_ack(state, ack);
            if step.exit {
                // HyStart: the pipe is full; congestion avoidance from the next ACK on.
                state.ssthresh = state.cwnd;
            } else {
                state.cwnd += step.growth;
            }
            return;
        }
        let now = ack.now;
        let t_epoch = match self.t_epoch {
            Some(t) => t,
            None => {
                self.start_epoch(now, state.cwnd);
                now
            }
        };
        let cwnd = state.cwnd;
        if (ack.in_flight as f64) < cwnd.floor() - 1.0 {
            // §5.8: not cwnd-limited; the idle time does not count towards t.
            self.t_epoch = Some(t_epoch + (now - self.last_ack));
            self.last_ack = now;
            return;
        }
        self.last_ack = now;
        let t = secs(now - t_epoch);
        let rtt = secs(ack.srtt.or(ack.rtt).unwrap_or(0));
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        let n = ack.acked as f64;
        let reno_friendly = self.params.reno_friendly && {
            let alpha = if self.w_est >= self.cwnd_prior {
                1.0
            } else {
                self.alpha_cubic
            };
            self.w_est += alpha * n / cwnd;
            self.w_cubic(t) < self.w_est
        };
        state.cwnd = if reno_friendly {
            cwnd.max(self.w_est)
        } else {
            cwnd + (target - cwnd) * (n / cwnd).min(1.0)
        };
    }

    fn ssthresh(&mut self, state: &CcState, in_flight: f64) -> f64 {
        let cwnd = state.cwnd;
        // §4.7 fast convergence, against the W_max of the previous event.
        self.w_max = Some(match self.w_max {
            Some(prev) if self.params.fast_convergence && cwnd < prev => {
                cwnd * (1.0 + self.params.beta) / 2.0
            }
            _ => cwnd,
        });
        self.cwnd_prior = cwnd;
        self.t_epoch = None;
        // §4.6: FlightSize * beta (the sender passes the basis it is configured with), with
        // RFC 5681's floor of two segments.
        (in_flight * self.params.beta).max(2.0)
    }

    fn on_event(&mut self, _state: &mut CcState, event: CongestionEvent, _now: Time) {
        self.t_epoch = None;
        match event {
            CongestionEvent::Loss => {
                self.after_rto = false;
                self.hystart.end();
            }
            CongestionEvent::Rto => {
                self.after_rto = true;
                self.hystart.reset();
            }
            CongestionEvent::RecoveryEnd => {}
        }
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("w_max", self.w_max.unwrap_or(f64::NAN)),
            ("k", self.k),
            ("w_est", self.w_est),
            ("cwnd_prior", self.cwnd_prior),
        ]
    }
}

/// Cubic's constants (RFC 9438). See `docs/cubic.md`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CubicParams {
    /// C, segments / s^3 (> 0; RFC 9438 §5: 0.4).
    #[serde(default = "default_cubic_c")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor, in (0, 1) (RFC 9438 §4.6: 0.7).
    #[serde(default = "default_cubic_beta")]
    #[schemars(extend("exclusiveMinimum" = 0), extend("exclusiveMaximum" = 1))]
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7).
    #[serde(default = "super::default_true")]
    pub fast_convergence: bool,
    /// The Reno-friendly region (RFC 9438 §4.3).
    #[serde(default = "super::default_true")]
    pub reno_friendly: bool,
    /// How slow start ends before a loss: `none` (RFC 5681), `linux` (Linux's HyStart), `ns3`
    /// (ns-3 3.44 TcpCubic's HyStart) or `rfc9406` (HyStart++).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub hystart: HyStartKind,
}

impl CubicParams {
    /// Checks the block's values (at `p`, e.g. `flows[0].transport.cubic`), worded as the Python
    /// front end words them.
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        check_within(
            format!("{p}.c"),
            self.c,
            (0.0, f64::INFINITY),
            (false, false),
        )?;
        check_within(format!("{p}.beta"), self.beta, (0.0, 1.0), (false, false))
    }
}

impl Default for CubicParams {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all Cubic parameters have defaults")
    }
}

fn default_cubic_c() -> f64 {
    0.4
}
fn default_cubic_beta() -> f64 {
    0.7
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::{MILLIS, SECS};

    /// Drives a controller as a cwnd-limited flow with a constant RTT would: every round trip,
    /// one ACK per segment of the window, evenly spaced; `sample` sees every ACK.
    struct Flow {
        cc: Cubic,
        state: CcState,
        now: Time,
        rtt: Time,
    }

    impl Flow {
        fn new(params: CubicParams, rtt: Time, cwnd: f64) -> Self {
            Flow {
                cc: Cubic::new(params),
                state: CcState {
                    cwnd,
                    ssthresh: f64::INFINITY,
                },
                now: 0,
                rtt,
            }
        }

        /// A loss with the window full: what the sender does (SACK recovery), compressed to
        /// an instant.
        fn loss(&mut self) {
            let flight = self.state.cwnd.floor();
            self.state.ssthresh = self.cc.ssthresh(&self.state, flight);
            self.state.cwnd = self.state.ssthresh;
            self.cc
                .on_event(&mut self.state, CongestionEvent::Loss, self.now);
            self.cc
                .on_event(&mut self.state, CongestionEvent::RecoveryEnd, self.now);
        }

        /// Runs for `duration`, calling `sample(now, flow)` after every ACK.
        fn run(&mut self, duration: Time, mut sample: impl FnMut(Time, &Flow)) {
            let end = self.now.saturating_add(duration);
            while self.now < end {
                let w = self.state.cwnd.floor().max(1.0) as u64;
                let gap = self.rtt / w;
                for _ in 0..w {
                    self.now += gap;
                    let ack = AckSample {
                        now: self.now,
                        acked: 1,
                        rtt: Some(self.rtt),
                        min_rtt: Some(self.rtt),
                        srtt: Some(self.rtt),
                        // A window-limited sender refills the window after every ACK.
                        in_flight: self.state.cwnd.floor() as u32,
                    };
                    self.cc.on_ack(&mut self.state, &ack);
                    sample(self.now, self);
                }
            }
        }
    }

    fn params(reno_friendly: bool) -> CubicParams {
        CubicParams {
            reno_friendly,
            ..CubicParams::default()
        }
    }

    /// The RFC's curve after a reduction from `w_max` to beta w_max.
    fn rfc_curve(w_max: f64, t: f64) -> f64 {
        let k = (w_max * (1.0 - 0.7) / 0.4).cbrt();
        0.4 * (t - k).powi(3) + w_max
    }

    #[test]
    fn constants_are_the_rfcs() {
        let p = CubicParams::default();
        assert_eq!(
            (p.c, p.beta, p.fast_convergence, p.reno_friendly),
            (0.4, 0.7, true, true)
        );
        let cc = Cubic::new(p);
        assert!((cc.alpha_cubic - 0.9 / 1.7).abs() < 1e-12);
    }

    #[test]
    fn after_one_loss_the_window_follows_the_cubic_curve() {
        // W_max = 1000 segments, RTT 100 ms: K = cbrt(750) = 9.09 s. Checked from one RTT in
        // (cwnd needs one round trip to reach its first target) to 2K, through the plateau.
        let mut f = Flow::new(CubicParams::default(), 100 * MILLIS, 1000.0);
        f.state.ssthresh = 1.0;
        f.loss();
        assert!((f.state.cwnd - 700.0).abs() < 1e-9);
        let k = 750f64.cbrt();
        let start = f.now;
        let mut worst: f64 = 0.0;
        let mut checked = 0;
        f.run(from_secs(2.0 * k), |now, f| {
            let t = (now - start) as f64 * 1e-9;
            if t >= 0.1 {
                let want = rfc_curve(1000.0, t);
                worst = worst.max((f.state.cwnd - want).abs() / want);
                checked += 1;
            }
        });
        assert!((f.cc.k() - k).abs() < 1e-6, "K {}", f.cc.k());
        assert!(checked > 100_000, "{checked} samples");
        eprintln!("largest relative error of cwnd against W(t): {worst:.5} ({checked} ACKs)");
        assert!(worst < 0.05, "largest relative error {worst}");
        // It is in fact much closer: the window anticipates W_cubic by at most one RTT.
        assert!(worst < 0.01, "largest relative error {worst}");
    }

    #[test]
    fn concave_then_plateau_then_convex() {
        let mut f = Flow::new(CubicParams::default(), 100 * MILLIS, 100.0);
        f.state.ssthresh = 1.0;
        f.loss();
        let k = 75f64.cbrt();
        let mut at = Vec::new();
        let start = f.now;
        f.run(from_secs(2.0 * k), |now, f| {
            at.push(((now - start) as f64 * 1e-9, f.state.cwnd))
        });
        let w = |t: f64| at.iter().find(|(s, _)| *s >= t).unwrap().1;
        // Growth per second: fast, then almost none around K, then fast again.
        let early = w(1.0) - w(0.5);
        let plateau = w(k + 0.25) - w(k - 0.25);
        let late = w(2.0 * k - 0.5) - w(2.0 * k - 1.0);
        assert!(
            plateau < early / 4.0 && plateau < late / 4.0,
            "{early} {plateau} {late}"
        );
    }

    #[test]
    fn reno_friendly_region_takes_over_at_small_bdp() {
        // W_max = 20 segments at RTT 100 ms: K = 2.47 s. W_cubic starts steeper (3 C K^2 = 0.73
        // segment per RTT) than W_est (alpha_cubic = 0.53), but W_est overtakes it before 1 s
        // and stays above it for the rest of the stage up to K, with the window on W_est.
        let mut f = Flow::new(CubicParams::default(), 100 * MILLIS, 20.0);
        f.state.ssthresh = 1.0;
        f.loss();
        let k = 15f64.cbrt();
        let mut regions = Vec::new();
        f.run(from_secs(k), |now, f| {
            let t = (now - f.cc.t_epoch.unwrap()) as f64 * 1e-9;
            let reno = f.cc.w_est() > f.cc.w_cubic(t);
            if regions.last().is_none_or(|&(_, r)| r != reno) {
                regions.push((t, reno));
            }
            if reno {
                // cwnd never falls below W_est, and sits on it once it has caught up.
                assert!(f.state.cwnd >= f.cc.w_est() - 1e-9, "t {t}");
                if t > 1.0 {
                    assert!((f.state.cwnd - f.cc.w_est()).abs() < 1e-9, "t {t}");
                }
            }
        });
        let (takeover, reno) = *regions.last().unwrap();
        assert!(reno && takeover < 1.0, "{regions:?}");
        eprintln!("Reno-friendly region from {takeover:.3} s to K = {k:.3} s: {regions:?}");
        // The window reached W_max before K, which the cubic function alone would not do.
        assert!(f.state.cwnd > 20.0, "cwnd {}", f.state.cwnd);
        // W_est grows by alpha_cubic per RTT until it passes cwnd_prior (20), then by 1.
        let rtts = k / 0.1;
        let est = 20.0 + (rtts - 6.0 / (0.9 / 1.7));
        assert!(
            (f.cc.w_est() - est).abs() < 1.5,
            "W_est {} vs {est}",
            f.cc.w_est()
        );

        // Without the Reno-friendly region the same flow is still below W_max just before K.
        let mut g = Flow::new(params(false), 100 * MILLIS, 20.0);
        g.state.ssthresh = 1.0;
        g.loss();
        g.run(from_secs(k - 0.5), |_, _| {});
        assert!(g.state.cwnd < 20.0, "cwnd {}", g.state.cwnd);
    }

    /// The largest W_max (segments) for which W_est reaches W_max before W_cubic does, i.e. the
    /// flow spends the whole concave stage in the Reno-friendly region, measured by driving the
    /// controller.
    fn measured_crossover(rtt: Time, around: f64) -> f64 {
        let mut below = 0.0;
        let mut w_max = around / 2.0;
        while w_max < 2.0 * around {
            let mut f = Flow::new(CubicParams::default(), rtt, w_max);
            f.state.ssthresh = 1.0;
            f.loss();
            let k = (w_max * 0.3 / 0.4).cbrt();
            f.run(from_secs(k), |_, _| {});
            if f.cc.w_est() >= w_max {
                below = w_max;
            }
            w_max *= 1.05;
        }
        below
    }

    #[test]
    fn reno_friendly_crossover_matches_the_closed_form() {
        // W_est(K) = 0.7 W_max + alpha_cubic K / RTT >= W_max with K = cbrt(0.75 W_max) gives
        // W_max <= (alpha_cubic cbrt(0.75) / (0.3 RTT))^1.5: 64 segments at 100 ms, 2030 at
        // 10 ms. (alpha switches to 1 only once W_est passes W_max, so it does not matter.)
        for (rtt, expect) in [(100 * MILLIS, 64.1), (10 * MILLIS, 2028.0)] {
            let alpha = 0.9 / 1.7;
            let closed = (alpha * 0.75f64.cbrt() / (0.3 * secs(rtt))).powf(1.5);
            assert!((closed - expect).abs() / expect < 0.01, "{closed}");
            let measured = measured_crossover(rtt, expect);
            eprintln!("RTT {rtt} ns: crossover measured {measured:.1}, closed form {closed:.1}");
            assert!(
                (measured - closed).abs() / closed < 0.1,
                "RTT {rtt}: measured {measured}, closed form {closed}"
            );
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_shrank() {
        let mut f = Flow::new(CubicParams::default(), 100 * MILLIS, 100.0);
        f.state.ssthresh = 1.0;
        f.loss();
        assert_eq!(f.cc.w_max(), Some(100.0));
        // A second loss at 80 < W_max: W_max = 80 (1 + 0.7) / 2 = 68.
        f.state.cwnd = 80.0;
        f.loss();
        assert!((f.cc.w_max().unwrap() - 68.0).abs() < 1e-9);
        // Without fast convergence W_max is the window at the loss.
        let mut g = Flow::new(
            CubicParams {
                fast_convergence: false,
                ..CubicParams::default()
            },
            100 * MILLIS,
            100.0,
        );
        g.state.ssthresh = 1.0;
        g.loss();
        g.state.cwnd = 80.0;
        g.loss();
        assert_eq!(g.cc.w_max(), Some(80.0));
    }

    #[test]
    fn ssthresh_is_beta_times_flight_with_a_floor_of_two() {
        let mut cc = Cubic::new(CubicParams::default());
        let s = CcState {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        assert!((cc.ssthresh(&s, 90.0) - 63.0).abs() < 1e-9);
        assert_eq!(cc.ssthresh(&s, 2.0), 2.0);
        let mut cc = Cubic::new(CubicParams {
            beta: 0.5,
            ..CubicParams::default()
        });
        assert_eq!(cc.ssthresh(&s, 90.0), 45.0);
    }

    #[test]
    fn after_a_timeout_k_is_zero_and_w_max_is_the_window_at_the_stage_start() {
        let mut f = Flow::new(CubicParams::default(), 100 * MILLIS, 100.0);
        f.state.ssthresh = 1.0;
        let flight = f.state.cwnd;
        f.state.ssthresh = f.cc.ssthresh(&f.state, flight);
        f.state.cwnd = 1.0;
        f.cc.on_event(&mut f.state, CongestionEvent::Rto, 0);
        // Slow start to ssthresh = 70, then the first stage after the timeout.
        f.run(2 * SECS, |_, _| {});
        assert!(f.state.cwnd >= 70.0);
        assert_eq!(f.cc.k(), 0.0);
        let w_max = f.cc.w_max().unwrap();
        assert!((70.0..72.0).contains(&w_max), "W_max {w_max}");
        // The window grows convexly from there: W_cubic(t) = w_max + C t^3.
        assert!(f.cc.w_cubic(2.0) - w_max - 3.2 < 1e-9);
        // cwnd_prior is the window at the timeout, so W_est still grows by alpha_cubic.
        assert_eq!(f.cc.metrics()[3], ("cwnd_prior", 100.0));
    }

    #[test]
    fn an_application_limited_flow_does_not_grow_and_its_clock_stops() {
        let mut cc = Cubic::new(CubicParams::default());
        let mut s = CcState {
            cwnd: 100.0,
            ssthresh: 1.0,
        };
        cc.ssthresh(&s, 100.0);
        s.cwnd = 70.0;
        cc.on_event(&mut s, CongestionEvent::Loss, 0);
        let ack = |now, in_flight| AckSample {
            now,
            acked: 1,
            rtt: Some(100 * MILLIS),
            min_rtt: Some(100 * MILLIS),
            srtt: Some(100 * MILLIS),
            in_flight,
        };
        cc.on_ack(&mut s, &ack(0, 70));
        let before = s.cwnd;
        // Ten seconds of ACKs with only 20 segments in flight: nothing changes.
        for i in 1..=100 {
            cc.on_ack(&mut s, &ack(i * 100 * MILLIS, 20));
        }
        assert_eq!(s.cwnd, before);
        // Back to cwnd-limited: t resumes from where it stopped, not from ten seconds later.
        cc.on_ack(&mut s, &ack(10 * SECS + MILLIS, 70));
        assert!(
            s.cwnd - before < 1.0,
            "cwnd jumped from {before} to {}",
            s.cwnd
        );
    }

    fn from_secs(s: f64) -> Time {
        crate::sim::time::from_secs(s)
    }
}
