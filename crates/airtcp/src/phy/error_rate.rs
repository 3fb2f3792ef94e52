//! Bit and frame error rates of the 802.11b DSSS/CCK modes as a function of SINR, following
//! the closed forms ns-3's `DsssErrorRateModel` uses (without its GSL-based CCK integrals).
//!
//! Eb/N0 = SINR x 22 MHz (chip bandwidth) / bit rate (the spreading gain).
//! - DBPSK, 1 Mbps: BER = exp(-Eb/N0) / 2.
//! - DQPSK, 2 Mbps: BER = (sqrt 2 + 1) / sqrt(8 pi sqrt 2) x exp(-(2 - sqrt 2) Eb/N0) / sqrt(Eb/N0)
//!   (an approximation for differential QPSK with Gray coding).
//! - CCK 5.5 and 11 Mbps: the DQPSK expression at their own Eb/N0. Deviation: ns-3 integrates
//!   the CCK codeword error probability numerically when built with GSL; this approximation is
//!   within about 1 dB of it in the region where frames start to fail.
//!
//! The PLCP header (48 bits) is sent with DBPSK at 1 Mbps; the frame succeeds when header and
//! payload bits all do: (1 - BER_1M)^48 x (1 - BER_rate)^bits.

/// Probability that a frame of `bytes` bytes at `rate_bps` is received without error at `sinr`
/// (linear).
pub fn frame_success(sinr: f64, rate_bps: u64, bytes: u32) -> f64 {
    let header = (1.0 - ber(sinr, 1_000_000)).powi(48);
    let payload = (1.0 - ber(sinr, rate_bps)).powf(bytes as f64 * 8.0);
    header * payload
}

/// Bit error rate at `sinr` (linear) for the mode of `rate_bps`.
pub fn ber(sinr: f64, rate_bps: u64) -> f64 {
    let ebn0 = sinr * 22e6 / rate_bps as f64;
    if ebn0 <= 0.0 {
        return 0.5;
    }
    let b = if rate_bps <= 1_000_000 {
        0.5 * (-ebn0).exp()
    } else {
        let s2 = std::f64::consts::SQRT_2;
        let k = (s2 + 1.0) / (8.0 * std::f64::consts::PI * s2).sqrt();
        k * (-(2.0 - s2) * ebn0).exp() / ebn0.sqrt()
    };
    b.min(0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn high_sinr_is_error_free_and_low_sinr_is_not() {
        for rate in [1_000_000, 2_000_000, 5_500_000, 11_000_000] {
            assert!(frame_success(db(30.0), rate, 1500) > 0.999_999);
            assert!(frame_success(db(-10.0), rate, 1500) < 0.01);
        }
    }

    #[test]
    fn faster_modes_need_more_sinr() {
        let s = db(0.0);
        let p1 = frame_success(s, 1_000_000, 1000);
        let p11 = frame_success(s, 11_000_000, 1000);
        assert!(p1 > p11, "{p1} {p11}");
    }
}
