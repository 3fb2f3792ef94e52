//! Adaptive modulation and coding: instantaneous SNR -> bits the user can receive in a slot.
//!
//! A table lists modes by increasing SNR threshold; in each slot the base station uses the
//! highest mode whose threshold the user's instantaneous SNR reaches (SNR exactly at a threshold
//! selects that mode), and sends nothing below the lowest threshold (outage). A mode of spectral
//! efficiency e (information bits per second per hertz) carries
//! `floor(e x bandwidth x slot x rate_scale)` bits per slot, i.e. one modulation symbol per
//! second per hertz (Nyquist signalling) scaled by the fraction of the slot that carries data
//! (the downlink passes the frame efficiency of [`super::frame`] times its residual
//! `rate_scale`).
//! Transmissions at the selected mode are taken as error free: the thresholds already encode
//! a target error rate.
//!
//! Tables:
//! - [`IEEE_802_16E`]: paper 002 §V-B uses "eight different convolutional turbo coded QAMs" on
//!   an IEEE 802.16 (WiMax) 10 MHz downlink "following \[41\]" without listing them. We take the
//!   eight downlink modulation/code-rate pairs of IEEE 802.16e OFDMA (QPSK 1/2, 3/4; 16-QAM 1/2,
//!   3/4; 64-QAM 1/2, 2/3, 3/4, 5/6) with the receiver SNRs of the 802.16e receiver
//!   sensitivity table (IEEE Std 802.16e-2005 §8.4.13.1: 5, 8, 10.5, 14, 16, 18, 20 dB). That
//!   table stops at 64-QAM 3/4; the 22 dB threshold of 64-QAM 5/6 is our extrapolation
//!   (+2 dB per step, as between the 64-QAM rates). ASSUMPTION: the paper's own thresholds are
//!   unknown. 16-QAM 3/4 and 64-QAM 1/2 have the same efficiency, so 64-QAM 1/2 adds nothing.
//! - [`liu2004_modes`]: paper 002's fluid model has "five AMC modes" after its ref. \[41\]
//!   (Liu, Wang & Giannakis 2006), which builds on the convolutionally coded modes of
//!   Q. Liu, S. Zhou & G. B. Giannakis, "Cross-layer combining of adaptive modulation and coding
//!   with truncated ARQ over wireless links", IEEE Trans. Wireless Commun. 3(5), 2004, Table I:
//!   packet error rate PER_n(g) ~ a_n exp(-g_n g), so mode n is used from
//!   g_n = ln(a_n / P0) / g_n for a target PER P0. ASSUMPTION: that the five modes are the first
//!   five (BPSK 1/2 ... 16-QAM 3/4) and that P0 = 1 %.

use crate::sim::Time;

/// One row of an AMC table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AmcMode {
    /// Lowest instantaneous SNR at which the mode is used, dB.
    pub min_snr_db: f64,
    /// Information bits per second per hertz.
    pub efficiency: f64,
}

/// IEEE 802.16e downlink modes, lowest first (see the module header for sources).
pub const IEEE_802_16E: [AmcMode; 8] = [
    // QPSK 1/2
    AmcMode {
        min_snr_db: 5.0,
        efficiency: 1.0,
    },
    // QPSK 3/4
    AmcMode {
        min_snr_db: 8.0,
        efficiency: 1.5,
    },
    // 16-QAM 1/2
    AmcMode {
        min_snr_db: 10.5,
        efficiency: 2.0,
    },
    // 16-QAM 3/4
    AmcMode {
        min_snr_db: 14.0,
        efficiency: 3.0,
    },
    // 64-QAM 1/2
    AmcMode {
        min_snr_db: 16.0,
        efficiency: 3.0,
    },
    // 64-QAM 2/3
    AmcMode {
        min_snr_db: 18.0,
        efficiency: 4.0,
    },
    // 64-QAM 3/4
    AmcMode {
        min_snr_db: 20.0,
        efficiency: 4.5,
    },
    // 64-QAM 5/6 (threshold extrapolated)
    AmcMode {
        min_snr_db: 22.0,
        efficiency: 5.0,
    },
];

/// Liu, Zhou & Giannakis (2004) Table I: (bits per symbol x code rate, a_n, g_n) of the
/// packet-error-rate fit PER_n(snr) ~ a_n exp(-g_n snr), snr linear, 1080-bit packets.
const LIU2004_FIT: [(f64, f64, f64); 6] = [
    // BPSK 1/2
    (0.5, 274.7229, 7.9932),
    // QPSK 1/2
    (1.0, 90.2514, 3.4998),
    // QPSK 3/4
    (1.5, 67.6181, 1.6883),
    // 16-QAM 9/16
    (2.25, 50.1222, 0.6644),
    // 16-QAM 3/4
    (3.0, 53.3987, 0.3756),
    // 64-QAM 3/4
    (4.5, 35.3508, 0.0900),
];

/// The first `count` (1..=6) modes of Liu, Zhou & Giannakis (2004), each used from the SNR at
/// which its packet error rate falls to `target_per`.
pub fn liu2004_modes(count: usize, target_per: f64) -> Vec<AmcMode> {
    assert!((1..=LIU2004_FIT.len()).contains(&count), "count {count}");
    assert!(
        target_per > 0.0 && target_per < 1.0,
        "target_per {target_per}"
    );
    LIU2004_FIT[..count]
        .iter()
        .map(|&(efficiency, a, g)| AmcMode {
            min_snr_db: linear_to_db((a / target_per).ln() / g),
            efficiency,
        })
        .collect()
}

/// 10^(dB / 10).
pub fn db_to_linear(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// 10 log10(x).
pub fn linear_to_db(x: f64) -> f64 {
    10.0 * x.log10()
}

/// An AMC table evaluated for one bandwidth and slot length.
#[derive(Debug, Clone)]
pub struct AmcTable {
    modes: Vec<AmcMode>,
    /// Linear SNR thresholds, increasing.
    thresholds: Vec<f64>,
    /// Bits per slot of each mode.
    bits: Vec<u64>,
}

impl AmcTable {
    /// The table `modes` for a channel of `bandwidth_hz` and slots of `slot` ns, with a
    /// fraction `rate_scale` of every slot carrying data (frame efficiency x residual factor).
    ///
    /// Panics unless there is at least one mode, thresholds are finite and strictly increasing,
    /// efficiencies are positive and not decreasing, and bandwidth, slot and scale are positive.
    pub fn new(modes: &[AmcMode], bandwidth_hz: f64, slot: Time, rate_scale: f64) -> Self {
        assert!(!modes.is_empty(), "an AMC table needs a mode");
        assert!(bandwidth_hz > 0.0 && bandwidth_hz.is_finite() && slot > 0);
        assert!(rate_scale > 0.0 && rate_scale.is_finite());
        for w in modes.windows(2) {
            assert!(
                w[0].min_snr_db < w[1].min_snr_db,
                "thresholds must increase"
            );
            assert!(
                w[0].efficiency <= w[1].efficiency,
                "efficiency must not fall"
            );
        }
        assert!(modes.iter().all(|m| m.min_snr_db.is_finite()));
        assert!(modes
            .iter()
            .all(|m| m.efficiency > 0.0 && m.efficiency.is_finite()));
        let symbols_per_slot = bandwidth_hz * slot as f64 / 1e9 * rate_scale;
        AmcTable {
            modes: modes.to_vec(),
            thresholds: modes.iter().map(|m| db_to_linear(m.min_snr_db)).collect(),
            // The tiny relative margin keeps exact products (1.5 x 100 000) from flooring to
            // one bit less through rounding.
            bits: modes
                .iter()
                .map(|m| (m.efficiency * symbols_per_slot * (1.0 + 1e-12)).floor() as u64)
                .collect(),
        }
    }

    /// The modes, lowest first.
    pub fn modes(&self) -> &[AmcMode] {
        &self.modes
    }

    /// Bits per slot of mode `k`.
    pub fn mode_bits(&self, k: usize) -> u64 {
        self.bits[k]
    }

    /// The mode used at instantaneous SNR `snr` (linear), or `None` in outage.
    pub fn mode_for(&self, snr: f64) -> Option<usize> {
        // Number of thresholds at or below snr; the table is short (<= a dozen rows), so a
        // linear scan beats a binary search.
        let reached = self.thresholds.iter().take_while(|&&th| snr >= th).count();
        reached.checked_sub(1)
    }

    /// Bits the user can receive in a whole slot at instantaneous SNR `snr` (linear).
    pub fn bits_per_slot(&self, snr: f64) -> u64 {
        self.mode_for(snr).map_or(0, |k| self.bits[k])
    }

    /// Mean bits per slot of a user with mean SNR `mean_snr` (linear) under Rayleigh fading,
    /// whose instantaneous SNR is exponential with that mean:
    /// sum_k bits_k (exp(-th_k / mean) - exp(-th_{k+1} / mean)), th_{K+1} = infinity.
    pub fn expected_bits_rayleigh(&self, mean_snr: f64) -> f64 {
        let tail = |th: f64| (-th / mean_snr).exp();
        (0..self.bits.len())
            .map(|k| {
                let upper = self.thresholds.get(k + 1).map_or(0.0, |&th| tail(th));
                self.bits[k] as f64 * (tail(self.thresholds[k]) - upper)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    fn wimax() -> AmcTable {
        AmcTable::new(&IEEE_802_16E, 10e6, 10 * MILLIS, 1.0)
    }

    #[test]
    fn bits_per_slot_are_efficiency_times_bandwidth_times_slot() {
        let t = wimax();
        // 10 MHz x 10 ms = 100 000 symbols per slot.
        let bits: Vec<u64> = (0..8).map(|k| t.mode_bits(k)).collect();
        assert_eq!(
            bits,
            [100_000, 150_000, 200_000, 300_000, 300_000, 400_000, 450_000, 500_000]
        );
        let half = AmcTable::new(&IEEE_802_16E, 10e6, 10 * MILLIS, 0.5);
        assert_eq!(half.mode_bits(1), 75_000);
    }

    #[test]
    fn lookup_at_the_boundaries() {
        let t = wimax();
        for (k, m) in IEEE_802_16E.iter().enumerate() {
            let th = db_to_linear(m.min_snr_db);
            assert_eq!(t.mode_for(th), Some(k), "exactly at threshold {k}");
            let below = th * (1.0 - 1e-12);
            assert_eq!(
                t.mode_for(below),
                k.checked_sub(1),
                "just below threshold {k}"
            );
        }
        assert_eq!(t.bits_per_slot(db_to_linear(4.99)), 0, "outage");
        assert_eq!(t.bits_per_slot(0.0), 0);
        assert_eq!(t.bits_per_slot(db_to_linear(40.0)), 500_000);
        assert_eq!(t.bits_per_slot(f64::INFINITY), 500_000);
    }

    #[test]
    fn liu2004_thresholds_follow_the_per_fit() {
        let modes = liu2004_modes(6, 0.01);
        // ln(a_n / 0.01) / g_n in dB.
        let expect = [1.068, 4.154, 7.180, 11.080, 13.589, 19.580];
        for (m, e) in modes.iter().zip(expect) {
            assert!((m.min_snr_db - e).abs() < 0.001, "{} vs {e}", m.min_snr_db);
        }
        // At P0 = 1 the threshold is where the fit reaches 1: ln(a_n) / g_n, which the paper
        // tabulates as gamma_pn (BPSK 1/2: 0.7026 linear).
        let edge = liu2004_modes(1, 1.0 - 1e-15)[0].min_snr_db;
        assert!((db_to_linear(edge) - 0.7026).abs() < 1e-4);
        let five = AmcTable::new(&liu2004_modes(5, 0.01), 5e6, 10 * MILLIS, 1.0);
        assert_eq!(five.modes().len(), 5);
        assert_eq!(five.mode_bits(4), 150_000);
    }

    #[test]
    fn rayleigh_expectation_matches_monte_carlo() {
        let t = wimax();
        let mut r = crate::sim::Rng::stream(5, "amc");
        let mean = db_to_linear(13.0);
        let n = 400_000;
        let mc = (0..n)
            .map(|_| t.bits_per_slot(mean * r.exponential(1.0)) as f64)
            .sum::<f64>()
            / n as f64;
        let exact = t.expected_bits_rayleigh(mean);
        assert!((mc / exact - 1.0).abs() < 0.005, "{mc} vs {exact}");
        // Without fading the user would always sit in 16-QAM 1/2 (10.5 <= 13 < 14 dB).
        assert_eq!(t.bits_per_slot(mean), 200_000);
    }
}
