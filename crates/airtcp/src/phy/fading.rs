//! Small-scale fading: a power gain multiplying the mean received power of a frame.
//!
//! - `Rayleigh`: an independent Exp(1) power gain per frame and receiver (the squared magnitude
//!   of a unit-variance complex Gaussian), drawn from the receiving radio's stream.
//! - `Block`: Rayleigh block fading: one Exp(1) gain per link and coherence interval, the same in
//!   both directions (reciprocity). The gain of interval k is a pure function of (seed, link, k),
//!   so no state is kept. With a Doppler frequency f_d the coherence time is 0.423 / f_d
//!   (Clarke's model, as used by Rappaport eq. 5.40.c).
//!
//! Both give a frame an Exp(1) power gain; over many frames (or blocks) a link delivers the
//! success probability averaged over that distribution ([`rayleigh_average`],
//! [`RayleighSuccess`]), not the one at the mean power.

use std::collections::HashMap;

use super::config::FadingConfig;
use super::ErrorModel;
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

impl Fading {
    /// Whether frames see a random power gain (Rayleigh, per frame or per block).
    pub fn is_faded(&self) -> bool {
        !matches!(self, Fading::None)
    }
}

/// Points of [`rayleigh_average`]'s midpoint rule.
pub const RAYLEIGH_POINTS: u32 = 256;

/// The probability that a frame of mean SNR `mean_snr` (linear) is received under an Exp(1)
/// power gain g: the radio locks onto it only if g x `mean_snr` reaches `lock_snr` (its receive
/// threshold over the noise, [`super::Phy::signal_start`]), and then decodes it with
/// `success(g x mean_snr)`; interference left out. That is the integral of
/// success(g m) e^-g over g >= lock / m; with u = e^-g it is the integral of
/// success(-m ln u) over u in (0, e^(-lock / m)], taken by the midpoint rule on
/// [`RAYLEIGH_POINTS`] points. The integrand is monotone in u (success rises with the SNR), so
/// the error is at most e^(-lock / m) / 256, 0.4 %.
pub fn rayleigh_average(mean_snr: f64, lock_snr: f64, success: impl Fn(f64) -> f64) -> f64 {
    // No signal (or not a number): nothing gets through.
    if mean_snr.is_nan() || mean_snr <= 0.0 {
        return 0.0;
    }
    let top = (-lock_snr.max(0.0) / mean_snr).exp();
    let h = top / f64::from(RAYLEIGH_POINTS);
    let sum: f64 = (0..RAYLEIGH_POINTS)
        .map(|k| {
            let u = (f64::from(k) + 0.5) * h;
            success(-mean_snr * u.ln()).clamp(0.0, 1.0)
        })
        .sum();
    (sum * h).clamp(0.0, 1.0)
}

/// [`rayleigh_average`] of an error model's frame success, kept per link budget: the SNRs are
/// taken to 0.01 dB (the average is smooth in them), so that a network of many links with
/// nearly the same budget costs one integral per budget, not per link.
#[derive(Debug, Default)]
pub struct RayleighSuccess {
    memo: HashMap<(i64, i64, u64, u32, ErrorModel), f64>,
}

impl RayleighSuccess {
    /// The averaged success of a `bytes`-byte frame at `rate_bps` under `model`, of mean SNR
    /// `mean_snr` and receive threshold `lock_snr` over the noise (linear).
    pub fn success(
        &mut self,
        model: ErrorModel,
        mean_snr: f64,
        lock_snr: f64,
        rate_bps: u64,
        bytes: u32,
    ) -> f64 {
        // Hundredths of a dB; the average is taken at the rounded values, so that it depends
        // on the key alone.
        let hundredths = |x: f64| (1000.0 * x.max(f64::MIN_POSITIVE).log10()).round() as i64;
        let linear = |k: i64| 10f64.powf(k as f64 / 1000.0);
        let key = (
            hundredths(mean_snr),
            hundredths(lock_snr),
            rate_bps,
            bytes,
            model,
        );
        *self.memo.entry(key).or_insert_with(|| {
            rayleigh_average(linear(key.0), linear(key.1), |snr| {
                model.frame_success(snr, rate_bps, bytes)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rayleigh_average_matches_closed_forms() {
        // A receiver that decodes every frame it locks onto: P(g m >= lock) = e^(-lock / m).
        for (m, lock) in [(10.0f64, 4.0f64), (2.0, 5.0), (100.0, 1.0)] {
            let exact = (-lock / m).exp();
            let got = rayleigh_average(m, lock, |_| 1.0);
            assert!((got - exact).abs() < 1e-9, "{m} {lock}: {got} vs {exact}");
        }
        // A step at SNR t above the lock: e^(-max(t, lock) / m), within the rule's bound.
        let (m, lock, t) = (20.0, 4.0, 10.0);
        let got = rayleigh_average(m, lock, |snr| f64::from(u8::from(snr >= t)));
        let exact = (-t / m).exp();
        assert!(
            (got - exact).abs() <= (-lock / m).exp() / 256.0,
            "{got} {exact}"
        );
        // success(x) = 1 - e^(-x / c): e^-g0 - e^(-g0 (1 + m / c)) / (1 + m / c), g0 = lock / m.
        let (m, lock, c) = (30.0f64, 3.0f64, 5.0f64);
        let g0 = lock / m;
        let exact = (-g0).exp() - (-g0 * (1.0 + m / c)).exp() / (1.0 + m / c);
        let got = rayleigh_average(m, lock, |x| 1.0 - (-x / c).exp());
        assert!((got - exact).abs() < 1e-4, "{got} {exact}");
    }

    #[test]
    fn a_faded_link_delivers_less_than_at_its_mean_power_near_the_threshold() {
        // 802.11b, 1 Mbps, a 1076-byte frame 3 dB above a receive threshold 10 dB over the
        // noise: at the mean power nearly every frame gets through, under Rayleigh fading the
        // gain falls below the threshold e^-0.5 of the time.
        let model = ErrorModel::Dsss;
        let (lock, mean) = (10.0, 20.0);
        let at_mean = model.frame_success(mean, 1_000_000, 1076);
        let mut memo = RayleighSuccess::default();
        let faded = memo.success(model, mean, lock, 1_000_000, 1076);
        assert!(at_mean > 0.999, "{at_mean}");
        assert!((faded - (-0.5f64).exp()).abs() < 1e-3, "{faded}");
        // Kept: the same budget to the hundredth of a dB gives the same value.
        assert_eq!(
            memo.success(model, mean * 1.000_01, lock, 1_000_000, 1076),
            faded
        );
        assert_eq!(memo.memo.len(), 1);
    }

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
