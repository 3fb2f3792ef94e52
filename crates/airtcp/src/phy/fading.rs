//! Small-scale fading: a power gain multiplying the mean received power of a frame.
//!
//! - `Rayleigh`: an independent Exp(1) power gain per frame and receiver (the squared magnitude
//!   of a unit-variance complex Gaussian), drawn from the receiving radio's stream.
//! - `Block`: Rayleigh block fading: one Exp(1) gain per link and coherence interval, the same in
//!   both directions (reciprocity). The gain of interval k is a pure function of (seed, link, k),
//!   so no state is kept. With a Doppler frequency f_d the coherence time is 0.423 / f_d
//!   (Clarke's model, as used by Rappaport eq. 5.40.c).

use super::config::FadingConfig;
use crate::sim::time::from_secs;
use crate::sim::{Rng, Time};

/// A fading process.
#[derive(Debug, Clone)]
pub enum Fading {
    /// No fading: gain 1.
    None,
    /// Independent per frame.
    Rayleigh,
    /// Constant per link over `coherence`.
    Block {
        /// Coherence time, ns.
        coherence: Time,
    },
}

impl Fading {
    /// The process a scenario selects (`None` when the block parameters are missing).
    pub fn from_config(cfg: &FadingConfig) -> Option<Self> {
        Some(match cfg {
            FadingConfig::None => Fading::None,
            FadingConfig::Rayleigh => Fading::Rayleigh,
            FadingConfig::Block {
                coherence: Some(c),
                doppler: None,
            } => Fading::Block {
                coherence: (*c).max(1),
            },
            FadingConfig::Block {
                coherence: None,
                doppler: Some(fd),
            } if *fd > 0.0 => Fading::Block {
                coherence: from_secs(0.423 / fd).max(1),
            },
            FadingConfig::Block { .. } => return None,
        })
    }

    /// The power gain of a frame from radio `tx` to radio `rx` starting at `now`.
    pub fn gain(&self, seed: u64, now: Time, tx: u32, rx: u32, rng: &mut Rng) -> f64 {
        match *self {
            Fading::None => 1.0,
            Fading::Rayleigh => rng.exponential(1.0),
            Fading::Block { coherence } => {
                let (a, b) = (tx.min(rx) as u64, tx.max(rx) as u64);
                Rng::keyed(seed, &[a, b, now / coherence]).exponential(1.0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rayleigh_power_gain_has_unit_mean() {
        let mut r = Rng::stream(3, "fading");
        let n = 100_000;
        let mean: f64 = (0..n)
            .map(|_| Fading::Rayleigh.gain(1, 0, 0, 1, &mut r))
            .sum::<f64>()
            / n as f64;
        assert!((mean - 1.0).abs() < 0.02, "{mean}");
    }

    #[test]
    fn block_fading_is_constant_within_a_block_and_reciprocal() {
        let f = Fading::Block { coherence: 1_000 };
        let mut r = Rng::stream(3, "unused");
        let g = f.gain(9, 100, 2, 5, &mut r);
        assert_eq!(g, f.gain(9, 999, 5, 2, &mut r));
        assert_ne!(g, f.gain(9, 1_000, 2, 5, &mut r));
    }

    #[test]
    fn doppler_sets_the_coherence_time() {
        let f = Fading::from_config(&FadingConfig::Block {
            coherence: None,
            doppler: Some(128.0),
        });
        let Some(Fading::Block { coherence }) = f else {
            panic!()
        };
        assert_eq!(coherence, 3_304_688); // 0.423 / 128 Hz = 3.30 ms
    }
}
