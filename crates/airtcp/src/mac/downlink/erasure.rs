//! Paper 004's bimodal channel (§II-C, §IV), as per-packet erasures on the downlink.
//!
//! Each user's packet success probability p(t) is `low` or `high`. A state lasts a duration
//! uniform in [hold_min, hold_max] (paper 004: 100-200 ms); then the next state is drawn
//! independently, the bad one with probability `low_probability` (paper 004: P(p = p_k) =
//! p~_k, e.g. 0.1 / 0.9), so a state may repeat. A packet the base station finishes sending in
//! a slot starting at t is received with probability p(t), independently of other packets.
//! The process itself is `phy::bimodal` (its draw rule); this holds one per user with the user's
//! random stream.

use crate::phy::bimodal::{NextState, TwoLevel};
use crate::sim::{Rng, Time};

/// One user's bimodal success-probability process, with its own random stream.
#[derive(Debug, Clone)]
pub struct BimodalErasure {
    process: TwoLevel,
    rng: Rng,
}

impl BimodalErasure {
    /// The process with the given parameters (probabilities in [0, 1], 0 < `hold_min` <=
    /// `hold_max`), drawing from `rng` (the user's own stream).
    pub fn new(
        low: f64,
        high: f64,
        low_probability: f64,
        hold_min: Time,
        hold_max: Time,
        rng: Rng,
    ) -> Self {
        assert!(hold_min > 0 && hold_min <= hold_max);
        let next = NextState::Draw { low_probability };
        BimodalErasure {
            process: TwoLevel::new(low, high, hold_min, hold_max, next),
            rng,
        }
    }

    /// The success probability at `now` (non-decreasing calls).
    pub fn success_probability(&mut self, now: Time) -> f64 {
        self.process.success_probability(now, &mut self.rng)
    }

    /// Whether a packet sent at `now` is received.
    pub fn delivered(&mut self, now: Time) -> bool {
        let p = self.success_probability(now);
        self.rng.bernoulli(p)
    }

    /// Whether the process was in its low state when it was last brought up to date.
    pub fn in_low(&self) -> bool {
        self.process.in_low()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    #[test]
    fn nanosecond_holds_are_crossed_at_once_with_the_right_mix() {
        // 1-3 ns holds queried every 2 ms (a slot): a million holds per query, crossed in one
        // step; each hold's state is a fresh draw, so the mix stays 10 % bad.
        let mut e = BimodalErasure::new(0.5, 1.0, 0.1, 1, 3, Rng::stream(3, "e"));
        let n = 20_000u64;
        let bad = (1..=n)
            .filter(|&t| e.success_probability(t * 2 * MILLIS) < 1.0)
            .count() as f64
            / n as f64;
        assert!((bad - 0.1).abs() < 0.02, "{bad}");
    }

    #[test]
    fn time_in_the_bad_state_and_loss_rate() {
        let mut e = BimodalErasure::new(
            0.5,
            1.0,
            0.1,
            100 * MILLIS,
            200 * MILLIS,
            Rng::stream(1, "e"),
        );
        let n = 200_000u64;
        // One query per ms over 200 s: ~1333 states, ~10 % of the time bad.
        let bad = (0..n)
            .filter(|&t| e.success_probability(t * MILLIS) < 1.0)
            .count() as f64
            / n as f64;
        assert!((bad - 0.1).abs() < 0.03, "{bad}");
        let mut e = BimodalErasure::new(
            0.5,
            1.0,
            0.1,
            100 * MILLIS,
            200 * MILLIS,
            Rng::stream(2, "e"),
        );
        let lost = (0..n).filter(|&t| !e.delivered(t * MILLIS)).count() as f64 / n as f64;
        assert!((lost - 0.05).abs() < 0.02, "{lost}");
    }

    #[test]
    fn states_hold_between_hold_min_and_hold_max() {
        let mut e = BimodalErasure::new(
            0.0,
            1.0,
            0.5,
            100 * MILLIS,
            200 * MILLIS,
            Rng::stream(3, "e"),
        );
        let mut last = e.success_probability(0);
        let mut since = 0;
        for t in 1..100_000u64 {
            let p = e.success_probability(t * MILLIS);
            if p != last {
                // A change can only happen at a state boundary, >= 100 ms after the last one.
                assert!(t - since >= 100, "change after {} ms", t - since);
                last = p;
                since = t;
            }
        }
    }
}
