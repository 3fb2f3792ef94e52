//! One user's downlink channel, slot by slot: instantaneous SNR = mean SNR x fading power gain,
//! held constant over the slot (block fading).
//!
//! The fading process is one of: none (gain 1); Rayleigh i.i.d. per slot (Exp(1) power gain);
//! Gauss-Markov AR(1) ([`super::gauss_markov`]); Clarke sum of sinusoids ([`super::clarke`]).
//! Each user draws from its own random stream, and draws the same numbers whatever the traffic
//! or the scheduler does, so two runs that differ only in the scheduler see identical channels
//! (common random numbers).

use super::clarke::ClarkeSos;
use super::config::SlotFadingConfig;
use super::gauss_markov::{slot_correlation, GaussMarkov};
use crate::sim::{Rng, Time};

#[derive(Debug, Clone)]
enum Fading {
    None,
    Rayleigh,
    GaussMarkov(GaussMarkov),
    Clarke(ClarkeSos),
}

/// A user's channel state process.
#[derive(Debug, Clone)]
pub struct UserChannel {
    /// Mean SNR, linear.
    mean_snr: f64,
    fading: Fading,
    rng: Rng,
    slot_secs: f64,
    /// The slot whose SNR is asked for next.
    next_slot: u64,
}

impl UserChannel {
    /// A channel of mean SNR `mean_snr_db` (dB) with fading `cfg`, slots of `slot` ns, drawing
    /// from `rng` (the user's own stream).
    pub fn new(mean_snr_db: f64, cfg: &SlotFadingConfig, slot: Time, mut rng: Rng) -> Self {
        let fading = match *cfg {
            SlotFadingConfig::None => Fading::None,
            SlotFadingConfig::Rayleigh => Fading::Rayleigh,
            SlotFadingConfig::GaussMarkov { doppler } => {
                Fading::GaussMarkov(GaussMarkov::new(slot_correlation(doppler, slot), &mut rng))
            }
            SlotFadingConfig::Clarke { doppler, sinusoids } => {
                Fading::Clarke(ClarkeSos::new(doppler, sinusoids, &mut rng))
            }
        };
        UserChannel {
            mean_snr: super::amc::db_to_linear(mean_snr_db),
            fading,
            rng,
            slot_secs: slot as f64 / 1e9,
            next_slot: 0,
        }
    }

    /// Mean SNR, linear.
    pub fn mean_snr(&self) -> f64 {
        self.mean_snr
    }

    /// Instantaneous SNR (linear) of slot `slot`. Slots must be asked for in order 0, 1, 2, ...,
    /// once each: the Gauss-Markov process moves one step per call.
    pub fn snr(&mut self, slot: u64) -> f64 {
        assert_eq!(slot, self.next_slot, "slots must be visited in order");
        self.next_slot += 1;
        let gain = match &mut self.fading {
            Fading::None => 1.0,
            Fading::Rayleigh => self.rng.exponential(1.0),
            Fading::GaussMarkov(p) => {
                // The initial state belongs to slot 0; step before every later slot.
                if slot > 0 {
                    p.step(&mut self.rng);
                }
                p.power()
            }
            Fading::Clarke(p) => p.power(slot as f64 * self.slot_secs),
        };
        self.mean_snr * gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    #[test]
    fn every_process_has_the_mean_snr_on_average() {
        let configs = [
            SlotFadingConfig::None,
            SlotFadingConfig::Rayleigh,
            SlotFadingConfig::GaussMarkov { doppler: 128.0 },
            SlotFadingConfig::Clarke {
                doppler: 128.0,
                sinusoids: 16,
            },
        ];
        for cfg in &configs {
            let mut c = UserChannel::new(10.0, cfg, 10 * MILLIS, Rng::stream(3, "ch"));
            let n = 200_000;
            let mean = (0..n).map(|k| c.snr(k)).sum::<f64>() / n as f64;
            assert!((mean / 10.0 - 1.0).abs() < 0.02, "{cfg:?}: {mean}");
        }
    }

    #[test]
    fn reproducible_from_the_stream() {
        let cfg = SlotFadingConfig::GaussMarkov { doppler: 50.0 };
        let run = |seed| {
            let mut c = UserChannel::new(12.0, &cfg, 10 * MILLIS, Rng::stream(seed, "u0"));
            (0..100).map(|k| c.snr(k)).collect::<Vec<_>>()
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
    }
}
