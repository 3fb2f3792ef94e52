//! The eight 802.11a OFDM modes (IEEE 802.11-2016 §17, Table 17-4): rate, constellation,
//! convolutional code rate and data bits per 4-us symbol (N_DBPS), and the rate a control
//! response (ACK, CTS) is sent at (§10.6.6.5: the highest mandatory rate, 6, 12 or 24 Mbps, not
//! above the rate of the frame it answers).

/// Bits of the SIGNAL field, sent at 6 Mbps after the preamble.
pub const SIGNAL_BITS: u64 = 24;

/// The mandatory rates, bit/s.
pub const MANDATORY: [u64; 3] = [6_000_000, 12_000_000, 24_000_000];

/// One OFDM mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OfdmMode {
    /// Data rate, bit/s.
    pub rate: u64,
    /// Points of the constellation: 2 (BPSK), 4 (QPSK), 16, 64 (QAM).
    pub constellation: u32,
    /// The code's puncturing, as ns-3 names it: 1 (rate 1/2), 2 (2/3), 3 (3/4).
    pub code_b: u32,
    /// Data bits per symbol.
    pub n_dbps: u32,
}

const fn mode(mbps: u64, constellation: u32, code_b: u32, n_dbps: u32) -> OfdmMode {
    OfdmMode {
        rate: mbps * 1_000_000,
        constellation,
        code_b,
        n_dbps,
    }
}

/// The modes, slowest first.
pub const MODES: [OfdmMode; 8] = [
    mode(6, 2, 1, 24),
    mode(9, 2, 3, 36),
    mode(12, 4, 1, 48),
    mode(18, 4, 3, 72),
    mode(24, 16, 1, 96),
    mode(36, 16, 3, 144),
    mode(48, 64, 2, 192),
    mode(54, 64, 3, 216),
];

/// The rates, bit/s, slowest first.
pub const RATES: [u64; 8] = [
    6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
];

impl OfdmMode {
    /// BPSK 1/2 at 6 Mbps: the SIGNAL field's mode.
    pub const BASE: OfdmMode = MODES[0];

    /// The mode of `rate` bit/s, if 802.11a has one.
    pub fn of(rate: u64) -> Option<OfdmMode> {
        MODES.iter().copied().find(|m| m.rate == rate)
    }
}

/// The rate of a control response to a frame sent at `rate`: the highest mandatory rate not
/// above it (6 Mbps below 12).
pub fn control_rate(rate: u64) -> u64 {
    MANDATORY
        .iter()
        .copied()
        .filter(|&m| m <= rate)
        .max()
        .unwrap_or(MANDATORY[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_the_standard_s() {
        for (m, rate) in MODES.iter().zip(RATES) {
            assert_eq!(m.rate, rate);
            // N_DBPS is the rate times the 4-us symbol.
            assert_eq!(u64::from(m.n_dbps), m.rate * 4 / 1_000_000);
            assert_eq!(OfdmMode::of(rate), Some(*m));
        }
        assert_eq!(OfdmMode::of(11_000_000), None);
    }

    #[test]
    fn control_responses_follow_the_mandatory_rates() {
        let mbps = |r: u64| control_rate(r * 1_000_000) / 1_000_000;
        let got: Vec<u64> = [6, 9, 12, 18, 24, 36, 48, 54]
            .into_iter()
            .map(mbps)
            .collect();
        assert_eq!(got, [6, 6, 12, 12, 24, 24, 24, 24]);
    }
}
