//! Reno / NewReno window growth: RFC 5681 §3.1.
//!
//! - Slow start (cwnd < ssthresh): cwnd += min(N, SMSS) per ACK, i.e. at most one segment per
//!   ACK however many it acknowledges (eq. 2; no Appropriate Byte Counting, as in ns-2 and
//!   ns-3's TcpNewReno).
//! - Congestion avoidance: cwnd += SMSS*SMSS/cwnd per ACK (eq. 3), i.e. 1/cwnd segments.
//! - After a loss: ssthresh = max(FlightSize / 2, 2*SMSS) (eq. 4).
//!
//! Reno and NewReno share these rules; they differ only in loss recovery, which the sender
//! implements (ns-2 Reno: a partial ACK ends recovery; NewReno: RFC 6582 partial-ACK handling).

use super::{AckSample, CcState, CongestionControl};

/// RFC 5681 additive increase, multiplicative decrease.
#[derive(Debug, Clone)]
pub struct Reno {
    name: &'static str,
}

impl Reno {
    /// A Reno window law reporting itself as `name`.
    pub fn new(name: &'static str) -> Self {
        Reno { name }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_ack(&mut self, state: &mut CcState, ack: &AckSample) {
        if ack.acked == 0 {
            return;
        }
        if state.in_slow_start() {
            state.cwnd += 1.0;
        } else {
            state.cwnd += 1.0 / state.cwnd;
        }
    }

    fn ssthresh(&mut self, _state: &CcState, in_flight: f64) -> f64 {
        halved(in_flight)
    }
}

/// RFC 5681 eq. 4: half the data in flight, at least two segments; the ssthresh of every
/// algorithm here that halves on loss.
pub(super) fn halved(in_flight: f64) -> f64 {
    (in_flight / 2.0).max(2.0)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// An ACK of `acked` segments without RTT information (also used by `linux_reno`).
    pub(in crate::transport::tcp::cc) fn ack(acked: u32) -> AckSample {
        AckSample {
            now: 0,
            acked,
            rtt: None,
            min_rtt: None,
            srtt: None,
            in_flight: 10,
        }
    }

    #[test]
    fn slow_start_adds_one_segment_per_ack() {
        let mut r = Reno::new("newreno");
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        r.on_ack(&mut s, &ack(2));
        assert_eq!(s.cwnd, 11.0);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window() {
        let mut r = Reno::new("newreno");
        let mut s = CcState {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        for _ in 0..10 {
            r.on_ack(&mut s, &ack(1));
        }
        assert!((s.cwnd - 10.96).abs() < 0.01, "cwnd {}", s.cwnd);
    }

    #[test]
    fn ssthresh_halves_flight_with_floor_of_two() {
        let mut r = Reno::new("reno");
        let s = CcState {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        assert_eq!(r.ssthresh(&s, 20.0), 10.0);
        assert_eq!(r.ssthresh(&s, 3.0), 2.0);
    }
}
