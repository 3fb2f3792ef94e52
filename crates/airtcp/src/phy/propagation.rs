//! Path-loss models: mean received power as a function of distance.
//!
//! - `Range`: full transmit power within the range, nothing beyond (ns-3's
//!   `RangePropagationLossModel`; used to compare with ns-3 without interference effects).
//! - `FreeSpace`: Friis, Pr = Pt (lambda / (4 pi d))^2 (unit gains, no system loss).
//! - `TwoRayGround`: Friis below the crossover distance dc = 4 pi ht hr / lambda and
//!   Pr = Pt ht^2 hr^2 / d^4 beyond (ns-2's `TwoRayGround`, Rappaport eq. 4.52). With ns-2's
//!   defaults (914 MHz, 1.5 m antennas, 0.2818 W) the 3.652e-10 W receive threshold is reached at
//!   250 m and the 1.559e-11 W carrier-sense threshold at 550 m.
//! - `LogDistance`: L(d) = L0 + 10 n log10(d / d0) dB (ns-3's `LogDistancePropagationLossModel`,
//!   defaults n = 3, d0 = 1 m, L0 = 46.6777 dB).

use super::config::PropagationConfig;

/// Speed of light, m/s.
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// A path-loss model.
#[derive(Debug, Clone)]
pub enum PathLoss {
    /// Full power within `range` metres.
    Range(f64),
    /// Friis with wavelength `lambda`.
    FreeSpace {
        /// Wavelength, m.
        lambda: f64,
    },
    /// Two-ray ground with wavelength `lambda` and antenna heights `h` (both ends).
    TwoRayGround {
        /// Wavelength, m.
        lambda: f64,
        /// Antenna height, m.
        h: f64,
    },
    /// Log-distance.
    LogDistance {
        /// Exponent n.
        exponent: f64,
        /// Reference distance d0, m.
        d0: f64,
        /// Loss at d0, dB.
        l0: f64,
    },
}

impl PathLoss {
    /// The model a scenario selects.
    pub fn from_config(cfg: &PropagationConfig) -> Self {
        match *cfg {
            PropagationConfig::Range { range } => PathLoss::Range(range),
            PropagationConfig::FreeSpace { frequency } => PathLoss::FreeSpace {
                lambda: SPEED_OF_LIGHT / frequency,
            },
            PropagationConfig::TwoRayGround {
                frequency,
                antenna_height,
            } => PathLoss::TwoRayGround {
                lambda: SPEED_OF_LIGHT / frequency,
                h: antenna_height,
            },
            PropagationConfig::LogDistance {
                exponent,
                reference_distance,
                reference_loss,
            } => PathLoss::LogDistance {
                exponent,
                d0: reference_distance,
                l0: reference_loss,
            },
        }
    }

    /// Mean received power (dBm) at distance `d` (m) for transmit power `tx_dbm`, or `None`
    /// when nothing arrives (beyond a range model's range).
    pub fn rx_dbm(&self, tx_dbm: f64, d: f64) -> Option<f64> {
        match *self {
            PathLoss::Range(r) => (d <= r).then_some(tx_dbm),
            PathLoss::FreeSpace { lambda } => Some(tx_dbm + friis_gain_db(lambda, d)),
            PathLoss::TwoRayGround { lambda, h } => {
                let crossover = 4.0 * std::f64::consts::PI * h * h / lambda;
                if d <= crossover {
                    Some(tx_dbm + friis_gain_db(lambda, d))
                } else {
                    Some(tx_dbm + 10.0 * (h.powi(4) / d.powi(4)).log10())
                }
            }
            PathLoss::LogDistance { exponent, d0, l0 } => {
                let d = d.max(d0);
                Some(tx_dbm - l0 - 10.0 * exponent * (d / d0).log10())
            }
        }
    }

    /// The largest distance at which the mean power is still at least `floor_dbm`
    /// (used to bound neighbour searches).
    pub fn reach(&self, tx_dbm: f64, floor_dbm: f64) -> f64 {
        if let PathLoss::Range(r) = *self {
            return if tx_dbm >= floor_dbm { r } else { 0.0 };
        }
        // Power falls monotonically with distance: bisect.
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while self.rx_dbm(tx_dbm, hi).is_some_and(|p| p >= floor_dbm) && hi < 1e7 {
            hi *= 2.0;
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if self.rx_dbm(tx_dbm, mid).is_some_and(|p| p >= floor_dbm) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

fn friis_gain_db(lambda: f64, d: f64) -> f64 {
    let d = d.max(1e-3);
    20.0 * (lambda / (4.0 * std::f64::consts::PI * d)).log10()
}

/// Milliwatts from dBm.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// dBm from milliwatts.
pub fn mw_to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns2_two_ray() -> PathLoss {
        PathLoss::from_config(&PropagationConfig::TwoRayGround {
            frequency: 914e6,
            antenna_height: 1.5,
        })
    }

    #[test]
    fn two_ray_reproduces_ns2_ranges() {
        let m = ns2_two_ray();
        let tx = mw_to_dbm(281.838_15);
        // ns-2's thresholds give 250 m receive range and 550 m carrier-sense range.
        let rx_range = m.reach(tx, mw_to_dbm(3.652e-7));
        let cs_range = m.reach(tx, mw_to_dbm(1.559e-8));
        assert!((rx_range - 250.0).abs() < 0.5, "{rx_range}");
        assert!((cs_range - 550.0).abs() < 0.5, "{cs_range}");
    }

    #[test]
    fn range_model_is_a_step() {
        let m = PathLoss::Range(250.0);
        assert_eq!(m.rx_dbm(16.0, 249.0), Some(16.0));
        assert_eq!(m.rx_dbm(16.0, 251.0), None);
    }

    #[test]
    fn log_distance_loses_ten_n_db_per_decade() {
        let m = PathLoss::LogDistance {
            exponent: 3.0,
            d0: 1.0,
            l0: 46.6777,
        };
        let a = m.rx_dbm(16.0, 10.0).unwrap();
        let b = m.rx_dbm(16.0, 100.0).unwrap();
        assert!((a - b - 30.0).abs() < 1e-9);
    }
}
