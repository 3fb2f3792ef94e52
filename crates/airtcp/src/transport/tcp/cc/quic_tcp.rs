//! QUIC-TCP: the queueing-control window law of H. Huang, Z. Sun and X. Wang, "End-to-End TCP
//! Congestion Control for Mobile Applications", IEEE Access 8, 2020 (paper 002), §III eqs. 8-9,
//! with the settings of its §V. (Not the IETF QUIC transport protocol.)
//!
//! - Estimation (eq. 8): every in-order ACK with an RTT sample updates BaseRTT, the minimum
//!   RTT, and `AvgRTT <- 255/256 AvgRTT + 1/256 RTT`.
//! - Window control (eq. 9), with r = BaseRTT / AvgRTT:
//!
//!   ```text
//!   w <- w - kappa r w^(1 - 2 rho) (w - r w - p_s)
//!   ```
//!
//!   `w - r w` is the flow's own backlog estimate (rate times queueing delay), so v = w - r w -
//!   p_s is the distance from the target backlog p_s and the law is an integrator on it with
//!   gain kappa r w^(1 - 2 rho). At equilibrium v = 0: each flow keeps p_s packets queued,
//!   whatever its RTT (weighted proportional fairness, Theorem 1). rho = 1 is Mo and Walrand's
//!   scheme, rho = 1/2 resembles FAST.
//! - When the law runs: on every in-order ACK (`update_interval` = 0), or once per
//!   `update_interval` (the paper's Matlab runs: every 20 ms with kappa = 0.05, §V-A). Without a
//!   timer hook the interval is checked on ACK arrival: the first ACK at or after each multiple
//!   of the interval applies the law once; intervals without ACKs apply nothing, since nothing
//!   new was measured.
//! - Timeouts and duplicate ACKs are handled by "the slow start or fast recovery algorithm in
//!   current TCP" (§III): the sender's NewReno/SACK recovery with ssthresh = FlightSize / 2
//!   (RFC 5681 eq. 4), and slow start after a timeout.
//!
//! Symbols (paper -> here): w_s -> `CcState::cwnd`; BaseRTT_s -> `AckSample::min_rtt` (the
//! sender's minimum RTT); AvgRTT_s -> `avg_rtt`; RTT_s -> `AckSample::rtt`; kappa, rho, p_s ->
//! `QuicTcpParams::{kappa, rho, p_s}`; v_s -> `v`.
//!
//! Deviations and additions (the paper does not specify these):
//! - Start-up: the sender's slow start (one segment per ACK) runs until the backlog estimated
//!   from this ACK's own RTT sample, `in_flight (1 - BaseRTT / RTT)`, exceeds p_s (or a loss
//!   ends it); the slowly moving AvgRTT of eq. 8 would let slow start overshoot by many RTTs.
//!   After a timeout the same rule applies below ssthresh.
//! - The window is kept at two segments or more, so that a large step cannot stall the flow.
//! - "Every in-order ACK" means every ACK of new data outside loss recovery: with delayed ACKs
//!   that is one update per two segments.
//! - Data and burstiness control (the paper refers to FAST's) are the sender's: segments leave
//!   as ACKs and window increases allow, without pacing.

use super::{AckSample, CcState, CongestionControl, CongestionEvent};
use crate::scenario::config::QuicTcpParams;
use crate::sim::Time;

/// Smallest window the law sets, segments.
const MIN_WINDOW: f64 = 2.0;

/// Weight of the newest sample in AvgRTT (eq. 8).
const AVG_WEIGHT: f64 = 1.0 / 256.0;

/// QUIC-TCP window control.
#[derive(Debug, Clone)]
pub struct QuicTcp {
    p: QuicTcpParams,
    /// AvgRTT, ns.
    avg_rtt: Option<f64>,
    /// When the next interval update is due (interval mode).
    next_update: Option<Time>,
    /// Last v = w - r w - p_s, segments (for traces).
    v: f64,
}

impl QuicTcp {
    /// A QUIC-TCP controller with parameters `p`.
    pub fn new(p: QuicTcpParams) -> Self {
        QuicTcp {
            p,
            avg_rtt: None,
            next_update: None,
            v: 0.0,
        }
    }

    /// Eq. 9 applied once to window `w` with r = BaseRTT / AvgRTT.
    fn step(&mut self, w: f64, r: f64) -> f64 {
        self.v = w - r * w - self.p.p_s;
        let gain = self.p.kappa * r * w.powf(1.0 - 2.0 * self.p.rho);
        (w - gain * self.v).max(MIN_WINDOW)
    }

    /// Whether the law runs on an ACK at `now`, advancing the interval schedule.
    fn due(&mut self, now: Time) -> bool {
        let interval = self.p.update_interval;
        if interval == 0 {
            return true;
        }
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
}

impl CongestionControl for QuicTcp {
    fn name(&self) -> &'static str {
        "quic_tcp"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
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
                    self.next_update = None;
                }
            }
            return;
        }
        let (Some(base), Some(avg)) = (ack.min_rtt, self.avg_rtt) else {
            return;
        };
        let base = base as f64;
        if avg > 0.0 && self.due(ack.now) {
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
        self.next_update = None;
    }

    fn metrics(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("quic_tcp_avg_rtt_s", self.avg_rtt.unwrap_or(0.0) / 1e9),
            ("quic_tcp_v", self.v),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    fn params(kappa: f64, rho: f64, p_s: f64, update_interval: Time) -> QuicTcpParams {
        QuicTcpParams {
            kappa,
            rho,
            p_s,
            update_interval,
        }
    }

    fn ack(now: Time, rtt: Time, base: Time, in_flight: u32) -> AckSample {
        AckSample {
            now,
            acked: 1,
            rtt: Some(rtt),
            min_rtt: Some(base),
            srtt: Some(rtt),
            in_flight,
        }
    }

    fn ca(cwnd: f64) -> CcState {
        CcState {
            cwnd,
            ssthresh: 2.0,
        }
    }

    #[test]
    fn avg_rtt_is_eq_8() {
        let mut q = QuicTcp::new(params(0.01, 0.5, 10.0, 0));
        let mut s = ca(10.0);
        q.on_ack(&mut s, &ack(0, 100 * MILLIS, 100 * MILLIS, 10));
        q.on_ack(&mut s, &ack(1, 356 * MILLIS, 100 * MILLIS, 10));
        // 255/256 * 100 ms + 356 ms / 256 = 101 ms.
        assert!((q.avg_rtt.unwrap() - 101e6).abs() < 1.0);
    }

    #[test]
    fn one_step_is_eq_9() {
        let mut q = QuicTcp::new(params(0.1, 0.25, 10.0, 0));
        // r = 0.8, w = 100: v = 100 - 80 - 10 = 10; gain = 0.1 * 0.8 * 100^0.5 = 0.8.
        let w = q.step(100.0, 0.8);
        assert!((w - 92.0).abs() < 1e-9, "{w}");
        assert!((q.v - 10.0).abs() < 1e-9);
        // rho = 1: gain kappa r / w; rho = 0: kappa r w.
        let mut q = QuicTcp::new(params(0.1, 1.0, 10.0, 0));
        assert!((q.step(100.0, 0.8) - (100.0 - 0.1 * 0.8 / 100.0 * 10.0)).abs() < 1e-12);
        let mut q = QuicTcp::new(params(0.001, 0.0, 10.0, 0));
        assert!((q.step(100.0, 0.8) - (100.0 - 0.001 * 0.8 * 100.0 * 10.0)).abs() < 1e-12);
        // A huge step never takes the window below two segments.
        let mut q = QuicTcp::new(params(100.0, 0.0, 10.0, 0));
        assert_eq!(q.step(100.0, 0.5), 2.0);
    }

    #[test]
    fn interval_mode_updates_once_per_interval() {
        let mut q = QuicTcp::new(params(0.05, 0.5, 10.0, 20 * MILLIS));
        let mut s = ca(100.0);
        let base = 100 * MILLIS;
        // No queueing: v = -p_s = -10, each update adds kappa * 10 = 0.5 segments.
        // ACKs every millisecond for 101 ms: the grid starts at 0, updates at 20, 40, 60, 80, 100.
        for t in 0..=100 {
            q.on_ack(&mut s, &ack(t * MILLIS, base, base, 100));
        }
        assert!((s.cwnd - 102.5).abs() < 1e-9, "cwnd {}", s.cwnd);
        // A gap of 95 ms brings one update, not four.
        q.on_ack(&mut s, &ack(195 * MILLIS, base, base, 100));
        assert!((s.cwnd - 103.0).abs() < 1e-9, "cwnd {}", s.cwnd);
        q.on_ack(&mut s, &ack(199 * MILLIS, base, base, 100));
        assert!((s.cwnd - 103.0).abs() < 1e-9, "cwnd {}", s.cwnd);
        q.on_ack(&mut s, &ack(200 * MILLIS, base, base, 100));
        assert!((s.cwnd - 103.5).abs() < 1e-9, "cwnd {}", s.cwnd);
    }

    #[test]
    fn per_ack_mode_updates_on_every_ack() {
        let mut q = QuicTcp::new(params(0.01, 0.5, 10.0, 0));
        let mut s = ca(100.0);
        for t in 0..10 {
            q.on_ack(&mut s, &ack(t, MILLIS, MILLIS, 100));
        }
        assert!((s.cwnd - 101.0).abs() < 1e-9, "cwnd {}", s.cwnd);
    }

    #[test]
    fn converges_to_p_s_queued_for_every_rho() {
        // Fluid bottleneck of 1000 packet/s, 100 ms propagation RTT, updates every 20 ms with
        // a per-rho step size, AvgRTT fed one sample per packet delivered.
        for (rho, kappa) in [(0.0, 0.0005), (0.25, 0.005), (0.5, 0.05), (1.0, 5.0)] {
            let mut q = QuicTcp::new(params(kappa, rho, 20.0, 20 * MILLIS));
            let mut s = ca(50.0);
            let base = 100 * MILLIS;
            for t in 0..60_000u64 {
                let rtt = ((s.cwnd / 1000.0 * 1e9) as Time).max(base);
                let a = ack(t * MILLIS, rtt, base, s.cwnd as u32);
                q.on_ack(&mut s, &a);
            }
            assert!((s.cwnd - 120.0).abs() < 1.0, "rho {rho}: cwnd {}", s.cwnd);
        }
    }

    #[test]
    fn slow_start_ends_above_p_s() {
        let mut q = QuicTcp::new(params(0.05, 0.5, 10.0, 20 * MILLIS));
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        let base = 100 * MILLIS;
        q.on_ack(&mut s, &ack(0, base, base, 10));
        assert_eq!(s.cwnd, 11.0);
        // 40 in flight, RTT 1.5 BaseRTT: a third of them, 13.3, queued > 10.
        q.on_ack(&mut s, &ack(1, 150 * MILLIS, base, 40));
        assert!(!s.in_slow_start());
        assert_eq!(s.ssthresh, 12.0);
    }

    #[test]
    fn slow_start_grows_on_acks_without_samples() {
        let mut q = QuicTcp::new(params(0.05, 0.5, 10.0, 20 * MILLIS));
        let mut s = CcState {
            cwnd: 1.0,
            ssthresh: f64::INFINITY,
        };
        let mut a = ack(0, MILLIS, MILLIS, 1);
        (a.rtt, a.min_rtt) = (None, None);
        q.on_ack(&mut s, &a);
        assert_eq!(s.cwnd, 2.0);
    }
}
