//! Rayleigh block fading as a first-order Gauss-Markov (AR(1)) process of the complex gain:
//!
//! ```text
//! h[k+1] = rho h[k] + sqrt(1 - rho^2) w[k],   w[k] ~ CN(0, 1) i.i.d.,   rho = J0(2 pi f_d T),
//! ```
//!
//! with h\[0\] ~ CN(0, 1), so the process is stationary from the first slot: |h\[k\]|^2 ~ Exp(1)
//! (unit mean power), and the power gain |h|^2 multiplies the user's mean SNR for slot k.
//! rho is Clarke's (Jakes') autocorrelation of the complex gain, J0(2 pi f_d tau), at one slot
//! lag; the first-order AR model with this coefficient is the usual Gauss-Markov approximation
//! (e.g. Baddour & Beaulieu, "Autoregressive modeling for fading channel simulation", IEEE
//! Trans. Wireless Commun. 4(4), 2005, §II with p = 1). The power gain then has lag-1
//! correlation rho^2 (for jointly Gaussian h, corr(|h1|^2, |h2|^2) = |corr(h1, h2)|^2).
//!
//! Deviation from Clarke's model: only lag 1 is exact; lag n gets rho^n instead of
//! J0(2 pi f_d n T) (no oscillation). Use [`super::clarke`] when longer lags matter. For paper
//! 002's f_d = 128 Hz and T = 10 ms, rho = J0(8.04) = 0.162, so slots are nearly independent.

use crate::sim::{Rng, Time};

/// A CN(0, 1) sample (unit-variance circular complex Gaussian) by Box-Muller: modulus
/// sqrt(E) with E ~ Exp(1), uniform phase.
pub fn complex_gaussian(rng: &mut Rng) -> (f64, f64) {
    let modulus = rng.exponential(1.0).sqrt();
    let phase = std::f64::consts::TAU * rng.uniform();
    (modulus * phase.cos(), modulus * phase.sin())
}

/// The slot-to-slot correlation of the complex gain for Doppler `doppler_hz` and slots of
/// `slot` ns: J0(2 pi f_d T), by musl's J0 (the `libm` crate, accurate to the last bits; the
/// standard library has no Bessel functions).
pub fn slot_correlation(doppler_hz: f64, slot: Time) -> f64 {
    libm::j0(std::f64::consts::TAU * doppler_hz * slot as f64 / 1e9)
}

/// One user's AR(1) fading process.
#[derive(Debug, Clone)]
pub struct GaussMarkov {
    rho: f64,
    /// sqrt(1 - rho^2): the innovation's amplitude, keeping the variance at 1.
    innovation: f64,
    /// Current complex gain (re, im).
    h: (f64, f64),
}

impl GaussMarkov {
    /// A stationary process with slot-to-slot correlation `rho` (|rho| <= 1), its first gain
    /// drawn from `rng`.
    pub fn new(rho: f64, rng: &mut Rng) -> Self {
        assert!(rho.abs() <= 1.0, "rho {rho}");
        GaussMarkov {
            rho,
            innovation: (1.0 - rho * rho).sqrt(),
            h: complex_gaussian(rng),
        }
    }

    /// The complex gain of the current slot.
    pub fn gain(&self) -> (f64, f64) {
        self.h
    }

    /// The power gain |h|^2 of the current slot.
    pub fn power(&self) -> f64 {
        self.h.0 * self.h.0 + self.h.1 * self.h.1
    }

    /// Moves to the next slot.
    pub fn step(&mut self, rng: &mut Rng) {
        let w = complex_gaussian(rng);
        self.h = (
            self.rho * self.h.0 + self.innovation * w.0,
            self.rho * self.h.1 + self.innovation * w.1,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    /// J0's power series sum_k (-x^2/4)^k / (k!)^2, accurate in f64 for moderate x.
    fn j0_series(x: f64) -> f64 {
        let q = -x * x / 4.0;
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..80 {
            term *= q / (k * k) as f64;
            sum += term;
        }
        sum
    }

    #[test]
    fn the_slot_correlation_is_clarkes_j0_of_two_pi_fd_t() {
        // Paper 002's ns-2 set-up: f_d = 128 Hz, T = 10 ms, x = 2 pi 1.28 = 8.04, rho = 0.162.
        let rho = slot_correlation(128.0, 10 * MILLIS);
        assert!(
            (rho - j0_series(std::f64::consts::TAU * 1.28)).abs() < 1e-12,
            "{rho}"
        );
        assert!((rho - 0.162).abs() < 5e-4, "{rho}");
        // The fluid model's 20 Hz: x = 1.257, rho = 0.643.
        let rho = slot_correlation(20.0, 10 * MILLIS);
        assert!(
            (rho - j0_series(std::f64::consts::TAU * 0.2)).abs() < 1e-14,
            "{rho}"
        );
        // Reference values (DLMF 10.21 zeros; tables): J0(8) and the first zero.
        assert!((libm::j0(8.0) - 0.171_650_807_137_553_9).abs() < 1e-15);
        assert!(libm::j0(2.404_825_557_695_773).abs() < 1e-15);
    }

    /// Mean power, lag-1 complex correlation and lag-1 power correlation of `n` slots.
    fn statistics(rho: f64, n: usize) -> (f64, f64, f64) {
        let mut rng = Rng::stream(11, "gm");
        let mut p = GaussMarkov::new(rho, &mut rng);
        let (mut gains, mut powers) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            gains.push(p.gain());
            powers.push(p.power());
            p.step(&mut rng);
        }
        let mean_power = powers.iter().sum::<f64>() / n as f64;
        // E[h[k+1] conj(h[k])]: its real part is rho (the imaginary part averages to 0).
        let complex_corr = gains
            .windows(2)
            .map(|w| w[1].0 * w[0].0 + w[1].1 * w[0].1)
            .sum::<f64>()
            / (n - 1) as f64
            / mean_power;
        let var = powers.iter().map(|x| (x - mean_power).powi(2)).sum::<f64>() / n as f64;
        let power_corr = powers
            .windows(2)
            .map(|w| (w[0] - mean_power) * (w[1] - mean_power))
            .sum::<f64>()
            / (n - 1) as f64
            / var;
        (mean_power, complex_corr, power_corr)
    }

    #[test]
    fn paper_002_doppler_has_unit_power_and_clarke_lag_one_correlation() {
        let rho = slot_correlation(128.0, 10 * MILLIS);
        // J0(2 pi 128 Hz 10 ms) = J0(8.0425).
        assert!((rho - 0.1617).abs() < 1e-3, "{rho}");
        let (mean, complex_corr, power_corr) = statistics(rho, 1_000_000);
        assert!((mean - 1.0).abs() < 0.01, "mean power {mean}");
        assert!(
            (complex_corr - rho).abs() < 0.005,
            "{complex_corr} vs {rho}"
        );
        assert!((power_corr - rho * rho).abs() < 0.005, "{power_corr}");
    }

    #[test]
    fn slow_fading_is_strongly_correlated() {
        // Fluid model of paper 002: f_d = 20 Hz, T = 10 ms -> rho = J0(1.2566) = 0.6425.
        let rho = slot_correlation(20.0, 10 * MILLIS);
        assert!((rho - 0.6425).abs() < 1e-3, "{rho}");
        let (mean, complex_corr, power_corr) = statistics(rho, 400_000);
        assert!((mean - 1.0).abs() < 0.02, "mean power {mean}");
        assert!((complex_corr - rho).abs() < 0.01, "{complex_corr}");
        assert!((power_corr - rho * rho).abs() < 0.01, "{power_corr}");
    }
}
