//! Retransmission timeout per RFC 6298.
//!
//! - First sample R: SRTT = R, RTTVAR = R/2 (§2.2).
//! - Later samples: RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R|, SRTT = (1 - alpha) SRTT + alpha R,
//!   with alpha = 1/8, beta = 1/4 (§2.3).
//! - RTO = SRTT + max(G, K RTTVAR), K = 4, clamped to [min_rto, max_rto] (§2.4, §2.5).
//! - On expiry the RTO doubles (§5.5, "back off the timer") and stays backed off until a new
//!   sample arrives (§5.7). Samples come only from segments that were never retransmitted
//!   (Karn's algorithm, §3); the sender enforces that.

use crate::sim::Time;

/// The RFC 6298 estimator.
#[derive(Debug, Clone)]
pub struct RtoEstimator {
    srtt: f64,
    rttvar: f64,
    min_rtt: Time,
    samples: u64,
    rto: Time,
    backoff: u32,
    min_rto: Time,
    max_rto: Time,
    granularity: Time,
}

impl RtoEstimator {
    /// A fresh estimator (RTO = `initial_rto` until the first sample).
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time, granularity: Time) -> Self {
        RtoEstimator {
            srtt: 0.0,
            rttvar: 0.0,
            min_rtt: Time::MAX,
            samples: 0,
            rto: initial_rto.clamp(min_rto, max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
        }
    }

    /// Feeds one RTT measurement (ns).
    pub fn sample(&mut self, rtt: Time) {
        let r = rtt as f64;
        if self.samples == 0 {
            self.srtt = r;
            self.rttvar = r / 2.0;
        } else {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        }
        self.samples += 1;
        self.min_rtt = self.min_rtt.min(rtt);
        let rto = self.srtt + (self.granularity as f64).max(4.0 * self.rttvar);
        self.rto = (rto.ceil() as Time).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// Doubles the timeout after an expiry (capped at `max_rto`).
    pub fn back_off(&mut self) {
        if self.rto_ns() < self.max_rto {
            self.backoff += 1;
        }
    }

    /// The current timeout, backoff included.
    pub fn rto_ns(&self) -> Time {
        let shift = self.backoff.min(40);
        self.rto.saturating_mul(1u64 << shift).min(self.max_rto)
    }

    /// How many times the timer has backed off since the last sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Smoothed RTT (ns), if any sample arrived.
    pub fn srtt(&self) -> Option<Time> {
        (self.samples > 0).then(|| self.srtt.round() as Time)
    }

    /// Smallest RTT sample seen (ns).
    pub fn min_rtt(&self) -> Option<Time> {
        (self.samples > 0).then_some(self.min_rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::{MILLIS, SECS};

    fn est() -> RtoEstimator {
        RtoEstimator::new(SECS, 200 * MILLIS, 60 * SECS, MILLIS)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = est();
        assert_eq!(e.rto_ns(), SECS);
        e.sample(100 * MILLIS);
        // RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(e.srtt(), Some(100 * MILLIS));
        assert_eq!(e.rto_ns(), 300 * MILLIS);
    }

    #[test]
    fn later_samples_follow_the_ewma() {
        let mut e = est();
        e.sample(100 * MILLIS);
        e.sample(200 * MILLIS);
        // RTTVAR = 0.75*50 + 0.25*100 = 62.5 ms; SRTT = 87.5 + 25 = 112.5 ms;
        // RTO = 112.5 + 250 = 362.5 ms.
        assert_eq!(e.rto_ns(), 362_500_000);
    }

    #[test]
    fn backoff_doubles_until_a_new_sample_and_respects_bounds() {
        let mut e = est();
        e.sample(10 * MILLIS); // 10 + 20 = 30 ms -> clamped to min 200 ms
        assert_eq!(e.rto_ns(), 200 * MILLIS);
        e.back_off();
        e.back_off();
        assert_eq!(e.rto_ns(), 800 * MILLIS);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto_ns(), 60 * SECS);
        e.sample(10 * MILLIS);
        assert_eq!(e.backoff(), 0);
        assert!(e.rto_ns() < SECS);
    }
}
