//! Frame success of the 802.11a OFDM modes against SNR: the NIST error model as ns-3 implements
//! it (`NistErrorRateModel`; Pei & Henderson, "Validation of OFDM error rate model in ns-3",
//! Boeing, 2010), so that airtcp and ns-3 can be compared link for link.
//!
//! - Uncoded bit error rate at SNR s (linear, per symbol over the 20 MHz noise):
//!   BPSK 1/2 erfc(sqrt s); QPSK 1/2 erfc(sqrt(s / 2)); M-QAM
//!   (b - 1) / (b log2 b) erfc(sqrt(s / floor(2 (M - 1) / 3))) with b = sqrt M
//!   (16-QAM: 0.375 erfc(sqrt(s / 10)), 64-QAM: 7/24 erfc(sqrt(s / 42))).
//! - Convolutional code, hard-decision Viterbi: with D = sqrt(4 p (1 - p)), the first-event error
//!   bound over the code's distance spectrum (rate 1/2: distances 10-26; 2/3: 6-15; 3/4: 5-14, each
//!   divided by 2 b for the punctured rates b = 2, 3), capped at 1.
//! - A chunk of n bits succeeds with (1 - Pe)^n. A frame of L bytes: the SIGNAL field, 24 bits at
//!   6 Mbps (BPSK 1/2), then the payload's 16 + 8 L + 6 bits (SERVICE, the bytes, the tail) at the
//!   frame's mode; the preamble is not counted, nor the pad bits (as ns-3 counts the chunks).
//!
//! Checked against the 1555-byte SNRs for 10 % frame loss ns-3 gives (3.97 dB at 6 Mbps ...
//! 22.63 dB at 54 Mbps) and its frame success at 5 dB (6 Mbps) and 22 dB (54 Mbps).

use super::ofdm::{OfdmMode, SIGNAL_BITS};

/// Bits of a payload of `bytes` bytes: SERVICE (16), the bytes, and the tail (6).
pub fn payload_bits(bytes: u32) -> u64 {
    16 + 8 * u64::from(bytes) + 6
}

/// Uncoded bit error rate of `mode`'s constellation at SNR `snr` (linear).
pub fn uncoded_ber(mode: &OfdmMode, snr: f64) -> f64 {
    let snr = snr.max(0.0);
    match mode.constellation {
        2 => 0.5 * libm::erfc(snr.sqrt()),
        4 => 0.5 * libm::erfc((snr / 2.0).sqrt()),
        m => {
            // As ns-3 computes it: the divisor 2 (M - 1) / 3 in integers (10 and 42).
            let divisor = f64::from((2 * (m - 1)) / 3);
            let b = f64::from(m).sqrt();
            (b - 1.0) / (b * b.log2()) * libm::erfc((snr / divisor).sqrt())
        }
    }
}

/// The decoded bit error bound for uncoded bit error rate `p` and the code of puncturing value
/// `b` (1: rate 1/2, 2: rate 2/3, 3: rate 3/4).
pub fn coded_error(p: f64, b: u32) -> f64 {
    let d = (4.0 * p * (1.0 - p)).sqrt();
    // (distance, number of paths) of each code's spectrum.
    let (spectrum, scale): (&[(i32, f64)], f64) = match b {
        1 => (
            &[
                (10, 36.0),
                (12, 211.0),
                (14, 1404.0),
                (16, 11633.0),
                (18, 77433.0),
                (20, 502690.0),
                (22, 3322763.0),
                (24, 21292910.0),
                (26, 134365911.0),
            ],
            0.5,
        ),
        2 => (
            &[
                (6, 3.0),
                (7, 70.0),
                (8, 285.0),
                (9, 1276.0),
                (10, 6160.0),
                (11, 27128.0),
                (12, 117019.0),
                (13, 498860.0),
                (14, 2103891.0),
                (15, 8784123.0),
            ],
            0.25,
        ),
        _ => (
            &[
                (5, 42.0),
                (6, 201.0),
                (7, 1492.0),
                (8, 10469.0),
                (9, 62935.0),
                (10, 379644.0),
                (11, 2253373.0),
                (12, 13073811.0),
                (13, 75152755.0),
                (14, 428005675.0),
            ],
            1.0 / 6.0,
        ),
    };
    scale * spectrum.iter().map(|&(k, n)| n * d.powi(k)).sum::<f64>()
}

/// Probability that `bits` bits sent with `mode` at SNR `snr` (linear) all decode.
pub fn chunk_success(mode: &OfdmMode, snr: f64, bits: u64) -> f64 {
    let p = uncoded_ber(mode, snr);
    if p == 0.0 {
        return 1.0;
    }
    let pe = coded_error(p, mode.code_b).min(1.0);
    (1.0 - pe).powf(bits as f64)
}

/// Probability that a frame of `bytes` bytes sent with `mode` is received at SNR `snr`
/// (linear): its SIGNAL field at 6 Mbps and its payload at the mode.
pub fn frame_success(mode: &OfdmMode, snr: f64, bytes: u32) -> f64 {
    chunk_success(&OfdmMode::BASE, snr, SIGNAL_BITS) * chunk_success(mode, snr, payload_bits(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::ofdm::MODES;

    fn linear(db: f64) -> f64 {
        10f64.powf(db / 10.0)
    }

    /// The SNR (dB) at which a 1555-byte frame is lost 10 % of the time.
    fn snr_for_ten_percent(mode: &OfdmMode) -> f64 {
        let (mut low, mut high) = (-5.0, 40.0);
        for _ in 0..60 {
            let mid = (low + high) / 2.0;
            if frame_success(mode, linear(mid), 1555) < 0.9 {
                low = mid;
            } else {
                high = mid;
            }
        }
        (low + high) / 2.0
    }

    #[test]
    fn ten_percent_loss_points_are_ns3_s() {
        let published = [3.97, 6.87, 6.98, 9.88, 13.52, 16.62, 21.37, 22.63];
        for (mode, want) in MODES.iter().zip(published) {
            let got = snr_for_ten_percent(mode);
            assert!(
                (got - want).abs() <= 0.02,
                "{} Mbps: {got:.3} dB",
                mode.rate / 1_000_000
            );
        }
    }

    #[test]
    fn frame_success_at_two_points() {
        let six = OfdmMode::of(6_000_000).expect("6 Mbps");
        let top = OfdmMode::of(54_000_000).expect("54 Mbps");
        assert!((frame_success(&six, linear(5.0), 1555) - 0.998054).abs() < 1e-4);
        assert!((frame_success(&top, linear(22.0), 1555) - 0.4998).abs() < 1e-4);
    }

    #[test]
    fn success_rises_with_snr_and_falls_with_rate_and_length() {
        for mode in &MODES {
            let mut last = 0.0;
            for db in (-10..40).map(f64::from) {
                let p = frame_success(mode, linear(db), 1000);
                assert!((0.0..=1.0).contains(&p) && p >= last, "{mode:?} at {db} dB");
                last = p;
            }
            assert!(frame_success(mode, linear(35.0), 1500) > 0.9999);
            assert!(
                frame_success(mode, linear(10.0), 1500) <= frame_success(mode, linear(10.0), 100)
            );
        }
        for pair in MODES.windows(2) {
            let s = linear(12.0);
            assert!(frame_success(&pair[1], s, 1000) <= frame_success(&pair[0], s, 1000) + 1e-12);
        }
        // No signal: nothing decodes.
        assert_eq!(frame_success(&MODES[0], 0.0, 100), 0.0);
    }
}
