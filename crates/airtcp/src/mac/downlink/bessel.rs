//! The Bessel function of the first kind of order zero, J0, for Clarke's fading autocorrelation
//! J0(2 pi f_d tau).
//!
//! Polynomial approximations of Abramowitz & Stegun, "Handbook of Mathematical Functions"
//! (1964): eq. 9.4.1 for |x| <= 3 (absolute error < 5e-8) and eq. 9.4.3 for |x| > 3
//! (J0 = f0 cos(theta0) / sqrt(x), errors < 1.6e-8 in f0 and 7e-8 in theta0). Written out here
//! because the standard library has no Bessel functions; 1e-7 is far below any statistical
//! tolerance the fading processes are used at.

/// J0(x).
pub fn bessel_j0(x: f64) -> f64 {
    let x = x.abs(); // J0 is even
    if x <= 3.0 {
        // A&S 9.4.1, in powers of (x/3)^2.
        let y = (x / 3.0) * (x / 3.0);
        1.0 + y
            * (-2.249_999_7
                + y * (1.265_620_8
                    + y * (-0.316_386_6
                        + y * (0.044_447_9 + y * (-0.003_944_4 + y * 0.000_210_0)))))
    } else {
        // A&S 9.4.3, in powers of 3/x.
        let z = 3.0 / x;
        let f0 = 0.797_884_56
            + z * (-0.000_000_77
                + z * (-0.005_527_40
                    + z * (-0.000_095_12
                        + z * (0.001_372_37 + z * (-0.000_728_05 + z * 0.000_144_76)))));
        // A&S print pi/4 to eight digits as 0.78539816.
        let theta0 = x - std::f64::consts::FRAC_PI_4
            + z * (-0.041_663_97
                + z * (-0.000_039_54
                    + z * (0.002_625_73
                        + z * (-0.000_541_25 + z * (-0.000_293_33 + z * 0.000_135_58)))));
        f0 * theta0.cos() / x.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The power series sum_k (-x^2/4)^k / (k!)^2, accurate in f64 for moderate x.
    fn series(x: f64) -> f64 {
        let q = -x * x / 4.0;
        let (mut term, mut sum) = (1.0, 1.0);
        for k in 1..80 {
            term *= q / (k * k) as f64;
            sum += term;
        }
        sum
    }

    #[test]
    fn matches_the_power_series_and_known_values() {
        for i in 0..=1200 {
            let x = i as f64 * 0.01; // 0 .. 12
            let (a, s) = (bessel_j0(x), series(x));
            assert!((a - s).abs() < 2e-7, "x = {x}: {a} vs {s}");
        }
        // Reference values (DLMF / tables): J0(1), J0(8), J0(10), and the first two zeros.
        assert!((bessel_j0(1.0) - 0.765_197_686_557_966_6).abs() < 1e-7);
        assert!((bessel_j0(8.0) - 0.171_650_807_137_553_9).abs() < 1e-7);
        assert!((bessel_j0(10.0) + 0.245_935_764_451_348_3).abs() < 1e-7);
        assert!(bessel_j0(2.404_825_557_695_773).abs() < 1e-7);
        assert!(bessel_j0(5.520_078_110_286_311).abs() < 1e-7);
        assert_eq!(bessel_j0(-2.0), bessel_j0(2.0));
        assert!(bessel_j0(1e6).abs() < 1e-3);
    }
}
