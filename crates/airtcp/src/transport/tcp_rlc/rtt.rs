//! TCP-RLC's round-trip estimator and retransmission timeout (Ryu, Bhadra & Shakkottai,
//! Allerton 2009, §IV): srtt <- 0.9 srtt + 0.1 sample, the first sample taken as it is, and
//! RTO = 3 x srtt. Not RFC 6298's (gains 1/8 and 1/4, 4 x RTTVAR, a 1 s floor): the paper
//! states its own.
//!
//! Choices the paper leaves open [spec §2.4, A6]: the timeout is 1 s before the first sample; an
//! expiry doubles it until the next sample (TCP practice), capped at 64 s.

use crate::sim::time::SECS;
use crate::sim::Time;

/// Weight of the old estimate [P §IV].
pub const SRTT_KEEP: f64 = 0.9;
/// The timeout over the smoothed RTT [P §IV].
pub const RTO_FACTOR: f64 = 3.0;
/// The longest timeout after backing off.
pub const MAX_RTO: Time = 64 * SECS;

/// The estimator (see the module header).
#[derive(Debug, Clone)]
pub struct RlcRtt {
    srtt: Option<f64>,
    initial_rto: Time,
    backoff: u32,
}

impl RlcRtt {
    /// An estimator with no sample yet, whose timeout is `initial_rto`.
    pub fn new(initial_rto: Time) -> Self {
        RlcRtt {
            srtt: None,
            initial_rto,
            backoff: 0,
        }
    }

    /// Takes a round-trip sample (ns); ends any backoff.
    pub fn sample(&mut self, rtt: Time) {
        let r = rtt as f64;
        self.srtt = Some(match self.srtt {
            None => r,
            Some(s) => SRTT_KEEP * s + (1.0 - SRTT_KEEP) * r,
        });
        self.backoff = 0;
    }

    /// The smoothed RTT, ns (None before the first sample).
    pub fn srtt(&self) -> Option<f64> {
        self.srtt
    }

    /// The current timeout, ns: 3 x srtt (the initial timeout before a sample), doubled per
    /// expiry since the last sample.
    pub fn rto(&self) -> Time {
        let base = self.srtt.map_or(self.initial_rto, |s| {
            (RTO_FACTOR * s).round().max(1.0) as Time
        });
        base.saturating_mul(1u64 << self.backoff.min(20))
            .min(MAX_RTO)
    }

    /// The timer expired: back off.
    pub fn expired(&mut self) {
        self.backoff += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    #[test]
    fn two_samples_give_the_papers_filter_and_three_times_the_srtt() {
        // Spec §6(a) 9: 100 then 200 ms -> srtt 0.9 * 100 + 0.1 * 200 = 110 ms, RTO 330 ms.
        let mut r = RlcRtt::new(SECS);
        assert_eq!(r.rto(), SECS);
        r.sample(100 * MILLIS);
        assert_eq!(r.rto(), 300 * MILLIS);
        r.sample(200 * MILLIS);
        assert_eq!(r.srtt(), Some(110.0 * MILLIS as f64));
        assert_eq!(r.rto(), 330 * MILLIS);
    }

    #[test]
    fn expiries_double_until_the_next_sample() {
        let mut r = RlcRtt::new(SECS);
        r.sample(100 * MILLIS);
        r.expired();
        r.expired();
        assert_eq!(r.rto(), 1200 * MILLIS);
        for _ in 0..100 {
            r.expired();
        }
        assert_eq!(r.rto(), MAX_RTO);
        r.sample(100 * MILLIS);
        assert_eq!(r.rto(), 300 * MILLIS);
    }
}
