//! Reno with Linux's per-segment counting: ns-3 3.44's `TcpLinuxReno` (a port of Linux's
//! `tcp_reno_cong_avoid` and `tcp_slow_start`), so that ns-3's fourth Reno-family variant has
//! a counterpart.
//!
//! It differs from [`super::reno::Reno`] (RFC 5681 per ACK, as ns-3's `TcpNewReno`) only in what
//! one ACK that covers several segments is worth, which matters with delayed ACKs:
//! - Slow start: cwnd += segments acknowledged (not one per ACK), without passing ssthresh; what
//!   is left over goes to congestion avoidance (RFC 3465 Appropriate Byte Counting with no limit
//!   L, as Linux does).
//! - Congestion avoidance: a counter collects acknowledged segments and every full window of
//!   them (w = floor(cwnd)) adds one segment, so cwnd grows by one per window of data
//!   acknowledged, not by one per window of ACKs. With an ACK every two segments this is twice
//!   RFC 5681's per-ACK rate.
//! - ssthresh after a loss: max(FlightSize / 2, 2), as Reno. Loss recovery is the sender's
//!   NewReno or SACK recovery (ns-3: `TcpClassicRecovery` or PRR, chosen apart).
//!
//! Symbols: ns-3's `m_cWndCnt` is `counter`; `segmentsAcked` is `AckSample::acked`. Deviation:
//! airtcp's cwnd is fractional after a halving (FlightSize / 2 may be x.5 segments); the window
//! counted against is its floor, as ns-3's integer division of bytes by the segment size.

use super::{AckSample, CcState, CongestionControl};

/// ns-3's `TcpLinuxReno` window growth.
#[derive(Debug, Clone, Default)]
pub struct LinuxReno {
    /// Segments acknowledged in congestion avoidance since cwnd last grew.
    counter: f64,
}

impl LinuxReno {
    /// A fresh controller.
    pub fn new() -> Self {
        LinuxReno::default()
    }
}

impl CongestionControl for LinuxReno {
    fn name(&self) -> &'static str {
        "linux_reno"
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        let mut acked = ack.acked as f64;
        if acked == 0.0 {
            return;
        }
        if state.in_slow_start() {
            let grown = (state.cwnd + acked).min(state.ssthresh.max(state.cwnd));
            acked -= grown - state.cwnd;
            state.cwnd = grown;
            if state.in_slow_start() || acked <= 0.0 {
                return;
            }
        }
        let w = state.cwnd.floor().max(1.0);
        if self.counter >= w {
            self.counter = 0.0;
            state.cwnd += 1.0;
        }
        self.counter += acked;
        if self.counter >= w {
            let delta = (self.counter / w).floor();
            self.counter -= delta * w;
            state.cwnd += delta;
        }
    }

    fn ssthresh(&mut self, _state: &CcState, in_flight: f64) -> f64 {
        super::reno::halved(in_flight)
    }
}

#[cfg(test)]
mod tests {
    use super::super::reno::tests::ack;
    use super::*;

    #[test]
    fn slow_start_counts_segments_and_stops_at_ssthresh() {
        let mut c = LinuxReno::new();
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: 13.0,
        };
        c.on_ack(&mut s, &ack(2));
        assert_eq!(s.cwnd, 12.0);
        // One more segment reaches ssthresh; the other is counted for congestion avoidance.
        c.on_ack(&mut s, &ack(2));
        assert_eq!(s.cwnd, 13.0);
        assert_eq!(c.counter, 1.0);
    }

    #[test]
    fn avoidance_adds_one_segment_per_window_of_acknowledged_data() {
        let mut c = LinuxReno::new();
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        // Delayed ACKs: 5 ACKs of 2 segments acknowledge one window of 10.
        for _ in 0..5 {
            c.on_ack(&mut s, &ack(2));
        }
        assert_eq!(s.cwnd, 11.0);
        // RFC 5681 per ACK would have added 5 x 1/cwnd, half a segment.
    }
}
