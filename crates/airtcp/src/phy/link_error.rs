//! Extra packet-error processes of individual wireless links, applied to frames the radio has
//! decoded (on top of collisions and SINR-based errors).
//!
//! - Bernoulli: each frame lost with probability `per`.
//! - Gilbert-Elliott: a two-state Markov chain stepped once per frame; the frame is lost with
//!   the current state's error rate (Gilbert 1960, Elliott 1963).
//! - Bimodal: the success probability alternates between `low` and `high`, each state held for
//!   a duration uniform in [hold_min, hold_max] (paper 004 §IV's channel).

use crate::scenario::config::ErrorProcessConfig;
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
    /// Alternating success probability.
    Bimodal {
        /// Success probability of the low state.
        low: f64,
        /// Success probability of the high state.
        high: f64,
        /// Shortest holding time.
        hold_min: Time,
        /// Longest holding time.
        hold_max: Time,
        /// Current state is `high`.
        in_high: bool,
        /// When the current state ends.
        until: Time,
    },
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
                hold_min,
                hold_max,
            } => LinkError::Bimodal {
                low,
                high,
                hold_min,
                hold_max,
                in_high: true,
                until: 0,
            },
        }
    }

    /// Long-run fraction of frames delivered (for ETX): 1 - per; for Gilbert-Elliott the
    /// stationary mix pi_bad = p_gb / (p_gb + p_bg); for the bimodal process the mean of the two
    /// success probabilities (the states alternate with equal mean holding times).
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
            LinkError::Bimodal { low, high, .. } => 0.5 * (low + high),
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
            LinkError::Bimodal {
                low,
                high,
                hold_min,
                hold_max,
                in_high,
                until,
            } => {
                while now >= *until {
                    if *until > 0 {
                        *in_high = !*in_high;
                    }
                    let span = (*hold_max - *hold_min) as f64;
                    *until += *hold_min + (rng.uniform() * span) as Time;
                    if *until == 0 {
                        *until = 1;
                    }
                }
                !rng.bernoulli(if *in_high { *high } else { *low })
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
}
