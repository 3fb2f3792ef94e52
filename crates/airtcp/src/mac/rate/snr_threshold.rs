//! The SNR-threshold manager: each frame to a neighbour goes at the highest rate whose SNR
//! threshold is below the SNR the neighbour last reported, as ns-3's `IdealWifiManager` does.
//!
//! - A rate's threshold is the SNR at which one payload bit at that rate fails with probability
//!   `ber` (1e-6, ns-3's `BerThreshold`), found by bisection on the standard's error curves
//!   ([`crate::phy::ErrorModel::bit_error`]; ns-3's `ErrorRateModel::CalculateSnr` bisects the
//!   success of a one-bit chunk the same way).
//! - The SNR is the one the addressee measured of the latest acknowledged data frame (or
//!   answered RTS), carried back in the ACK (CTS): under per-frame fading it follows the channel
//!   frame by frame, one exchange late. Unanswered attempts change nothing; a packet given up
//!   resets the neighbour to "nothing reported" (SNR 0), i.e. the lowest rate, as ns-3 does.
//! - Before any report the lowest rate is used (ns-3's default mode).
//!
//! Deviation: ns-3's SNR is the frame's mean SINR over its chunks, airtcp's the lowest SINR the
//! receiver saw during it (the same for a frame without interference).

use super::RateManager;
use crate::phy::ErrorModel;
use crate::sim::Time;

/// ns-3's `IdealWifiManager::BerThreshold`.
pub const DEFAULT_BER: f64 = 1e-6;

/// The SNR-threshold manager for all of a radio's neighbours.
#[derive(Debug, Clone)]
pub struct SnrThreshold {
    /// Per ladder index, the SNR (linear) a rate needs.
    thresholds: Vec<f64>,
    /// Per neighbour, the SNR it last reported (linear; 0: none).
    reported: Vec<f64>,
}

impl SnrThreshold {
    /// The manager over `ladder` (bit/s, lowest first) under `model`'s curves, at bit error
    /// rate `ber`, for `neighbours` neighbours.
    pub fn new(ladder: &[u64], model: ErrorModel, ber: f64, neighbours: usize) -> Self {
        SnrThreshold {
            thresholds: ladder.iter().map(|&r| threshold(model, r, ber)).collect(),
            reported: vec![0.0; neighbours],
        }
    }

    /// The thresholds, linear SNR per ladder index.
    pub fn thresholds(&self) -> &[f64] {
        &self.thresholds
    }
}

/// The SNR (linear) at which a bit at `rate` fails with probability `ber`: bisection over
/// -100..100 dB to 1e-9 dB.
pub fn threshold(model: ErrorModel, rate: u64, ber: f64) -> f64 {
    let (mut low, mut high) = (-100.0f64, 100.0f64);
    while high - low > 1e-9 {
        let mid = 0.5 * (low + high);
        if model.bit_error(10f64.powf(mid / 10.0), rate) > ber {
            low = mid;
        } else {
            high = mid;
        }
    }
    10f64.powf(high / 10.0)
}

impl RateManager for SnrThreshold {
    fn pick(&mut self, nb: usize) -> usize {
        let snr = self.reported[nb];
        self.thresholds.iter().rposition(|&t| t < snr).unwrap_or(0)
    }

    fn add_neighbour(&mut self) {
        self.reported.push(0.0);
    }

    fn on_data(&mut self, nb: usize, _rate: usize, acked: Option<f64>, _now: Time) {
        // ns-3 ignores a report of exactly 0 (no measurement).
        if let Some(snr) = acked.filter(|&s| s > 0.0) {
            self.reported[nb] = snr;
        }
    }

    fn on_rts_answered(&mut self, nb: usize, snr: f64) {
        self.reported[nb] = snr;
    }

    fn on_given_up(&mut self, nb: usize, _now: Time) {
        self.reported[nb] = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn thresholds_rise_with_the_rate_and_sit_where_the_bit_error_rate_crosses() {
        let ladder = crate::phy::ofdm::RATES;
        let m = SnrThreshold::new(&ladder, ErrorModel::OfdmNist, DEFAULT_BER, 1);
        let t = m.thresholds();
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        for (&rate, &snr) in ladder.iter().zip(t) {
            let at = ErrorModel::OfdmNist.bit_error(snr, rate);
            let below = ErrorModel::OfdmNist.bit_error(snr / db(0.01), rate);
            assert!(
                at <= DEFAULT_BER && below > DEFAULT_BER,
                "{rate}: {at} {below}"
            );
        }
        // 6 Mbps (BPSK 1/2) needs a few dB, 54 Mbps (64-QAM 3/4) over 20.
        let t_db: Vec<f64> = t.iter().map(|x| 10.0 * x.log10()).collect();
        assert!(t_db[0] > 0.0 && t_db[0] < 6.0, "{t_db:?}");
        assert!(t_db[7] > 20.0 && t_db[7] < 26.0, "{t_db:?}");
    }

    #[test]
    fn follows_the_latest_report_and_starts_over_after_a_give_up() {
        let ladder = crate::mac::timing::DOT11B_RATES;
        let mut m = SnrThreshold::new(&ladder, ErrorModel::Dsss, DEFAULT_BER, 2);
        assert_eq!(m.pick(0), 0, "nothing reported: the lowest rate");
        let top = m.thresholds()[3];
        m.on_data(0, 0, Some(top * 1.01), 0);
        assert_eq!(m.pick(0), 3);
        assert_eq!(m.pick(1), 0, "the other neighbour reported nothing");
        m.on_data(0, 3, None, 0);
        assert_eq!(m.pick(0), 3, "a failure is no report");
        m.on_data(0, 3, Some(m.thresholds()[1] * 1.01), 0);
        assert_eq!(m.pick(0), 1);
        m.on_data(0, 1, Some(0.0), 0);
        assert_eq!(m.pick(0), 1, "a report of 0 is ignored");
        m.on_rts_answered(0, top);
        assert_eq!(m.pick(0), 2, "at the threshold exactly: not above it");
        m.on_given_up(0, 0);
        assert_eq!(m.pick(0), 0);
    }
}
