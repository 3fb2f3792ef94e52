//! Extra packet-error processes of individual wireless links, applied to frames the radio has
//! decoded (on top of collisions and SINR-based errors).
//!
//! - Bernoulli: each frame lost with probability `per`.
//! - Gilbert-Elliott: a two-state Markov chain stepped once per frame; the frame is lost with
//!   the current state's error rate (Gilbert 1960, Elliott 1963).
//! - Bimodal: the success probability is `low` or `high`, each state held for a duration
//!   uniform in [hold_min, hold_max] (`phy::bimodal`). With `low_probability` each new state is
//!   drawn independently (low with that probability), paper 004's channel (§II-C, §IV); without
//!   it the states alternate, half the time each, which is not paper 004's process. (Paper 004
//!   also has no link-layer retransmissions, which the 802.11 MAC under this process makes: its
//!   reproduction uses the wireless router's erasures, not this.)

use super::bimodal::{NextState, TwoLevel};
use super::config::ErrorProcessConfig;
use crate::sim::{Rng, Time};

/// The state of one link's error process.
#[derive(Debug, Clone)]
pub enum LinkError {
    /// Independent losses.
    Bernoulli {
        /// Loss probability.
        per: f64,
    },
    /// Two-state Markov chain.
    GilbertElliott {
        /// P(good -> bad).
        p_good_bad: f64,
        /// P(bad -> good).
        p_bad_good: f64,
        /// Loss probability when good.
        per_good: f64,
        /// Loss probability when bad.
        per_bad: f64,
        /// Current state.
        bad: bool,
    },
    /// Two-level success probability (`phy::bimodal`).
    Bimodal(TwoLevel),
}

impl LinkError {
    /// A process in its initial state (good / high, the first holding time drawn lazily).
    pub fn new(cfg: &ErrorProcessConfig) -> Self {
        match *cfg {
            ErrorProcessConfig::Bernoulli { per } => LinkError::Bernoulli { per },
            ErrorProcessConfig::GilbertElliott {
                p_good_bad,
                p_bad_good,
                per_good,
                per_bad,
            } => LinkError::GilbertElliott {
                p_good_bad,
                p_bad_good,
                per_good,
                per_bad,
                bad: false,
            },
            ErrorProcessConfig::Bimodal {
                low,
                high,
                low_probability,
                hold_min,
                hold_max,
            } => {
                let next = match low_probability {
                    Some(low_probability) => NextState::Draw { low_probability },
                    None => NextState::Alternate,
                };
                LinkError::Bimodal(TwoLevel::new(low, high, hold_min, hold_max, next))
            }
        }
    }

    /// Long-run fraction of frames delivered (for ETX): 1 - per; for Gilbert-Elliott the
    /// stationary mix pi_bad = p_gb / (p_gb + p_bg); for the bimodal process the success
    /// probabilities weighted by the time shares (half each when the states alternate).
    pub fn mean_delivery(&self) -> f64 {
        match *self {
            LinkError::Bernoulli { per } => 1.0 - per,
            LinkError::GilbertElliott {
                p_good_bad,
                p_bad_good,
                per_good,
                per_bad,
                ..
            } => {
                let total = p_good_bad + p_bad_good;
                let bad = if total > 0.0 { p_good_bad / total } else { 0.0 };
                1.0 - ((1.0 - bad) * per_good + bad * per_bad)
            }
            LinkError::Bimodal(ref process) => process.mean_success(),
        }
    }

    /// Whether a frame arriving at `now` is lost.
    pub fn loses(&mut self, now: Time, rng: &mut Rng) -> bool {
        match self {
            LinkError::Bernoulli { per } => rng.bernoulli(*per),
            LinkError::GilbertElliott {
                p_good_bad,
                p_bad_good,
                per_good,
                per_bad,
                bad,
            } => {
                let flip = if *bad { *p_bad_good } else { *p_good_bad };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *per_bad } else { *per_good })
            }
            LinkError::Bimodal(process) => {
                let p = process.success_probability(now, rng);
                !rng.bernoulli(p)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gilbert_elliott_long_run_loss_rate() {
        // Stationary P(bad) = 0.1 / (0.1 + 0.4) = 0.2; loss = 0.8 * 0.01 + 0.2 * 0.5 = 0.108.
        let mut e = LinkError::new(&ErrorProcessConfig::GilbertElliott {
            p_good_bad: 0.1,
            p_bad_good: 0.4,
            per_good: 0.01,
            per_bad: 0.5,
        });
        let mut r = Rng::stream(1, "ge");
        let n = 200_000;
        let lost = (0..n).filter(|_| e.loses(0, &mut r)).count() as f64 / n as f64;
        assert!((lost - 0.108).abs() < 0.005, "{lost}");
    }

    #[test]
    fn bimodal_alternates_success_probabilities() {
        let ms = 1_000_000;
        let mut e = LinkError::new(&ErrorProcessConfig::Bimodal {
            low: 0.0,
            high: 1.0,
            low_probability: None,
            hold_min: 100 * ms,
            hold_max: 200 * ms,
        });
        let mut r = Rng::stream(1, "bimodal");
        // Starts high (never lost), and within 200 ms switches to low (always lost).
        assert!(!e.loses(0, &mut r));
        let lost_later = (0..400).any(|t| e.loses(t * ms, &mut r));
        assert!(lost_later);
        // Long-run: half the time in each state.
        let frac = (0..100_000).filter(|t| e.loses(t * ms, &mut r)).count() as f64 / 1e5;
        assert!((frac - 0.5).abs() < 0.05, "{frac}");
    }

    fn bimodal(hold_min: Time, hold_max: Time) -> LinkError {
        LinkError::new(&ErrorProcessConfig::Bimodal {
            low: 0.0,
            high: 1.0,
            low_probability: None,
            hold_min,
            hold_max,
        })
    }

    #[test]
    fn with_a_low_probability_the_states_are_drawn() {
        // p~ = 0.1: 10 % of the time low (alternation would give half), and the long-run
        // delivery ETX sees follows the shares.
        let ms = 1_000_000;
        let cfg = ErrorProcessConfig::Bimodal {
            low: 0.0,
            high: 1.0,
            low_probability: Some(0.1),
            hold_min: 100 * ms,
            hold_max: 200 * ms,
        };
        let mut e = LinkError::new(&cfg);
        assert!((e.mean_delivery() - 0.9).abs() < 1e-12);
        let mut r = Rng::stream(2, "drawn");
        let n = 200_000u64;
        let lost = (0..n).filter(|t| e.loses(t * 10 * ms, &mut r)).count() as f64 / n as f64;
        assert!((lost - 0.1).abs() < 0.01, "{lost}");
    }

    #[test]
    fn zero_holds_still_advance() {
        // hold_min 0, hold_max 1 ns: every draw is 0 ns before the floor of 1 ns; this looped
        // forever at time 0.
        let mut e = bimodal(0, 1);
        let mut r = Rng::stream(1, "zero");
        for t in [0, 1, 2, 1_000, 10_000_000_000] {
            e.loses(t, &mut r);
        }
    }

    #[test]
    fn long_gaps_are_crossed_in_one_step_with_the_right_statistics() {
        // 1-2 ns holds seen every 1 ms: a million holds per frame, crossed at once. Each state
        // is then equally likely.
        let mut e = bimodal(1, 2);
        let mut r = Rng::stream(1, "gap");
        let n = 20_000u64;
        let lost = (1..=n).filter(|t| e.loses(t * 1_000_000, &mut r)).count() as f64;
        assert!((lost / n as f64 - 0.5).abs() < 0.02, "{lost}");
    }

    #[test]
    fn fixed_holds_cross_long_gaps_exactly() {
        // Holds of exactly 10 ns: high in [0, 10), low in [10, 20), ... whatever the gaps.
        let mut stepped = bimodal(10, 10);
        let mut jumped = bimodal(10, 10);
        let mut r = Rng::stream(1, "fixed");
        stepped.loses(0, &mut r);
        jumped.loses(0, &mut r);
        for t in [5, 15, 10_000_005, 10_000_015, 987_654_321] {
            // `stepped` is brought along in steps below the limit, `jumped` in one call.
            let mut s = 0;
            while s + 10_000 < t {
                s += 10_000;
                stepped.loses(s, &mut r);
            }
            let expect_lost = (t / 10) % 2 == 1;
            assert_eq!(stepped.loses(t, &mut r), expect_lost, "stepped at {t}");
            assert_eq!(jumped.loses(t, &mut r), expect_lost, "jumped at {t}");
        }
    }
}
