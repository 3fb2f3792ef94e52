//! The 802.11n HT PHY's modulation and coding schemes and the airtime of an HT-mixed PPDU
//! (IEEE 802.11-2016 §19), for one or two spatial streams, 20 or 40 MHz, long or short guard
//! interval.
//!
//! - MCS 0-7 (one stream) and 8-15 (two; the same constellation and code as MCS i - 8): data bits
//!   per OFDM symbol N_DBPS from the 52 (20 MHz) or 108 (40 MHz) data subcarriers, Tables 19-27
//!   and 19-28 (equal-modulation MCSs). Rate = N_SS · N_DBPS / T_SYM, with T_SYM 4 us (800 ns
//!   guard interval) or 3.6 us (400 ns): MCS 7 is 65 / 72.2 Mbit/s at 20 MHz, 135 / 150 at 40.
//! - Airtime of an HT-mixed PPDU (§19.4.3, eq. 19-89 and 19-90; ns-3's `HtPhy`): the legacy
//!   preamble (L-STF 8 + L-LTF 8 us) and L-SIG (4), HT-SIG (8), HT-STF (4) and one 4-us HT-LTF
//!   per stream (N_LTF = 1, 2 for one, two streams), then N_SYM = ceil((16 + 8 L + 6 N_ES) /
//!   N_DBPS_total) data symbols (BCC, N_ES = 1 at these rates, no STBC). With the short guard
//!   interval the data part is T_SYM · ceil(3.6 N_SYM / 4) us: the receiver counts 4-us symbols.
//!   At 2.4 GHz a 6-us signal extension follows (§19.4.3: aSignalExtension), which counts as
//!   airtime but not as a symbol.
//!
//! Checked against ns-3 3.44's `WifiPhy::CalculateTxDuration` (HT-mixed, a one-off program
//! against the wheel): with the long guard interval every case agrees to the nanosecond (MCS 7
//! and 15 at 20 MHz, 1500 bytes, 5 and 2.4 GHz; MCS 0 at 40 MHz, 14 bytes), and the symbol counts
//! agree in all cases (MCS 12 at 40 MHz, 65,535 bytes: 810). With the short guard interval ns-3
//! charges N_SYM x 3.6 us without the standard's rounding to 4-us symbols (MCS 7, 1500 bytes:
//! 205.2 us where eq. 19-90 gives 208): a difference of under 4 us per PPDU, which the comparison
//! programs must allow for (or the MAC may offer ns-3's count as an option). ns-3 also rounds the
//! 72.2 Mbit/s rate up (72,222,223 bit/s) where this table rounds down.
//!
//! - The control response to an HT frame (ACK, Block ACK, CTS) goes at a non-HT rate
//!   (§10.6.6.5.2): the highest mandatory OFDM rate (6, 12, 24 Mbit/s) not above the frame's
//!   *non-HT reference rate*, the 802.11a rate of the same constellation and code (BPSK 1/2 -> 6,
//!   QPSK 1/2 -> 12, QPSK 3/4 -> 18, 16-QAM 1/2 -> 24, 16-QAM 3/4 -> 36, 64-QAM 2/3 -> 48,
//!   64-QAM 3/4 and 5/6 -> 54; ns-3's `HtPhy::GetNonHtReferenceRate`), whatever the width, guard
//!   interval and streams (the 16 reference rates checked against ns-3 3.44).
//!
//! - A rate names its MCS: a radio's MCS 0-7 at its width and guard interval have eight distinct
//!   rates, none of them a non-HT rate the radio may also send at (the one clash, MCS 3 at 40 MHz
//!   with the long guard interval and 802.11a's 54 Mbit/s, is refused as a basic rate). Scenarios
//!   write the rates as the standard tabulates them, to 0.1 Mbit/s ([`HtMode::nominal_rate`]:
//!   72.2 Mbit/s for MCS 7 at 20 MHz with the short guard interval, whose exact rate is 72.2...);
//!   the airtime always comes from the MCS's bits per symbol, never from the rate.
//!
//! The MCS 8-15 rows are here for the airtime; a radio sends one spatial stream (MCS 0-7).

use serde::{Deserialize, Serialize};

use crate::sim::time::MICROS;
use crate::sim::Time;

/// Channel width.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Width {
    /// 20 MHz: 52 data subcarriers.
    #[default]
    #[serde(rename = "20MHz")]
    Mhz20,
    /// 40 MHz: 108 data subcarriers.
    #[serde(rename = "40MHz")]
    Mhz40,
}

impl Width {
    /// The width, MHz.
    pub fn mhz(self) -> u32 {
        match self {
            Width::Mhz20 => 20,
            Width::Mhz40 => 40,
        }
    }
}

/// Guard interval.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum GuardInterval {
    /// 800 ns: 4-us symbols.
    #[default]
    Long,
    /// 400 ns: 3.6-us symbols.
    Short,
}

/// Frequency band.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Band {
    /// 5 GHz: 802.11a's OFDM timing (9-us slot, 16-us SIFS).
    #[default]
    #[serde(rename = "5GHz")]
    Ghz5,
    /// 2.4 GHz: ERP timing (20-us slot, 10-us SIFS, as ns-3 3.44 configures 802.11n there from
    /// its 802.11g set-up, `WifiPhy::Configure80211g`) and a 6-us signal extension after every
    /// OFDM frame.
    #[serde(rename = "2.4GHz")]
    Ghz2_4,
}

/// The HT PHY of an 802.11n radio (`radio.ht`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct HtConfig {
    /// Band.
    #[serde(default)]
    pub band: Band,
    /// Channel width.
    #[serde(default)]
    pub channel_width: Width,
    /// Guard interval of HT frames (non-HT frames always use the long one).
    #[serde(default)]
    pub guard_interval: GuardInterval,
}

impl HtConfig {
    /// The mode of MCS 0-7 whose nominal rate is `rate` bit/s, if one is.
    pub fn mode_of(&self, rate: u64) -> Option<HtMode> {
        (0..8u8)
            .filter_map(|mcs| HtMode::of(mcs, self.channel_width))
            .find(|m| m.nominal_rate(self.guard_interval) == rate)
    }

    /// The nominal rates of MCS 0-7, bit/s, lowest first.
    pub fn rates(&self) -> [u64; 8] {
        let mut out = [0; 8];
        for (mcs, r) in out.iter_mut().enumerate() {
            *r = HtMode::of(mcs as u8, self.channel_width)
                .map_or(0, |m| m.nominal_rate(self.guard_interval));
        }
        out
    }

    /// Whether frames carry the 2.4 GHz band's signal extension.
    pub fn band_2_4ghz(&self) -> bool {
        self.band == Band::Ghz2_4
    }
}

/// One HT MCS on one channel width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HtMode {
    /// MCS index, 0-15.
    pub mcs: u8,
    /// Spatial streams, 1 or 2.
    pub streams: u8,
    /// Points of the constellation: 2 (BPSK), 4 (QPSK), 16, 64 (QAM).
    pub constellation: u32,
    /// The code's rate as ns-3 names it: 1 (1/2), 2 (2/3), 3 (3/4), 5 (5/6).
    pub code_b: u32,
    /// Data bits per OFDM symbol, all streams together.
    pub n_dbps: u32,
}

/// Per stream, 20 MHz: (constellation, code, N_DBPS) of MCS 0-7 (Table 19-27).
const PER_STREAM_20: [(u32, u32, u32); 8] = [
    (2, 1, 26),
    (4, 1, 52),
    (4, 3, 78),
    (16, 1, 104),
    (16, 3, 156),
    (64, 2, 208),
    (64, 3, 234),
    (64, 5, 260),
];

/// Data subcarriers at 40 MHz over those at 20 MHz: N_DBPS scales by 108/52.
const SUBCARRIERS_20: u32 = 52;
const SUBCARRIERS_40: u32 = 108;

/// Legacy preamble, L-SIG and HT-SIG: 16 + 4 + 8 us.
const LEGACY_AND_SIG: Time = 28 * MICROS;
/// HT-STF: 4 us.
const HT_STF: Time = 4 * MICROS;
/// One HT-LTF: 4 us.
const HT_LTF: Time = 4 * MICROS;
/// The 2.4 GHz band's signal extension.
pub const SIGNAL_EXTENSION: Time = 6 * MICROS;
/// SERVICE field and tail bits around the PSDU: 16 + 6 per encoder.
const SERVICE_BITS: u64 = 16;
const TAIL_BITS: u64 = 6;

impl HtMode {
    /// MCS `mcs` (0-15) at `width`, if 802.11n's equal-modulation table has it.
    pub fn of(mcs: u8, width: Width) -> Option<HtMode> {
        let streams = match mcs {
            0..=7 => 1,
            8..=15 => 2,
            _ => return None,
        };
        let (constellation, code_b, n20) = PER_STREAM_20[(mcs % 8) as usize];
        let per_stream = match width {
            Width::Mhz20 => n20,
            Width::Mhz40 => n20 * SUBCARRIERS_40 / SUBCARRIERS_20,
        };
        Some(HtMode {
            mcs,
            streams,
            constellation,
            code_b,
            n_dbps: per_stream * u32::from(streams),
        })
    }

    /// Data rate, bit/s (rounded down to a whole bit/s: 72,222,222 for 72.2 Mbit/s).
    pub fn rate(&self, gi: GuardInterval) -> u64 {
        let bits = u64::from(self.n_dbps) * 10_000_000;
        match gi {
            GuardInterval::Long => bits / 40,
            GuardInterval::Short => bits / 36,
        }
    }

    /// The rate as the standard's tables print it (Tables 19-27 ff.), rounded to 0.1 Mbit/s,
    /// bit/s: the rate scenarios write and results report.
    pub fn nominal_rate(&self, gi: GuardInterval) -> u64 {
        let exact = self.rate(gi);
        (exact + 50_000) / 100_000 * 100_000
    }

    /// The non-HT reference rate, bit/s: the 802.11a rate of the same constellation and code.
    pub fn non_ht_reference(&self) -> u64 {
        let mbps = match (self.constellation, self.code_b) {
            (2, _) => 6,
            (4, 1) => 12,
            (4, _) => 18,
            (16, 1) => 24,
            (16, _) => 36,
            (64, 2) => 48,
            _ => 54,
        };
        mbps * 1_000_000
    }

    /// The rate of a control response to a frame sent in this mode, bit/s.
    pub fn control_rate(&self) -> u64 {
        super::ofdm::control_rate(self.non_ht_reference())
    }

    /// Data symbols of a PSDU of `bytes`.
    pub fn symbols(&self, bytes: u32) -> u64 {
        (SERVICE_BITS + 8 * u64::from(bytes) + TAIL_BITS).div_ceil(u64::from(self.n_dbps))
    }

    /// The preamble and headers of an HT-mixed PPDU in this mode: where its data field starts.
    pub fn preamble(&self) -> Time {
        LEGACY_AND_SIG + HT_STF + HT_LTF * u64::from(self.streams)
    }

    /// Airtime of an HT-mixed PPDU carrying `bytes` (its preamble, headers and data symbols), and
    /// the signal extension in the 2.4 GHz band.
    pub fn airtime(&self, bytes: u32, gi: GuardInterval, band_2_4ghz: bool) -> Time {
        let preamble = self.preamble();
        let n_sym = self.symbols(bytes);
        let data = match gi {
            GuardInterval::Long => n_sym * 4 * MICROS,
            // 3.6 us a symbol, counted in whole 4-us symbols.
            GuardInterval::Short => (n_sym * 36).div_ceil(40) * 4 * MICROS,
        };
        preamble + data + if band_2_4ghz { SIGNAL_EXTENSION } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mbps(mcs: u8, w: Width, gi: GuardInterval) -> f64 {
        HtMode::of(mcs, w).unwrap().rate(gi) as f64 / 1e6
    }

    #[test]
    fn rates_are_the_standard_s() {
        // Tables 19-27 and 19-28, one and two streams, in Mbit/s.
        let long20 = [6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0];
        let short20 = [7.2, 14.4, 21.7, 28.9, 43.3, 57.8, 65.0, 72.2];
        let long40 = [13.5, 27.0, 40.5, 54.0, 81.0, 108.0, 121.5, 135.0];
        let short40 = [15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 135.0, 150.0];
        for mcs in 0..16u8 {
            let i = (mcs % 8) as usize;
            let k = if mcs < 8 { 1.0 } else { 2.0 };
            // The tables round to 0.1 Mbit/s; twice a rounded one-stream rate may be 0.1 off.
            let near = |a: f64, b: f64| (a - b).abs() < 0.06 * k;
            assert!(
                near(mbps(mcs, Width::Mhz20, GuardInterval::Long), k * long20[i]),
                "{mcs}"
            );
            assert!(
                near(
                    mbps(mcs, Width::Mhz20, GuardInterval::Short),
                    k * short20[i]
                ),
                "{mcs}"
            );
            assert!(
                near(mbps(mcs, Width::Mhz40, GuardInterval::Long), k * long40[i]),
                "{mcs}"
            );
            assert!(
                near(
                    mbps(mcs, Width::Mhz40, GuardInterval::Short),
                    k * short40[i]
                ),
                "{mcs}"
            );
        }
        assert_eq!(HtMode::of(16, Width::Mhz20), None);
        assert_eq!(
            HtMode::of(7, Width::Mhz20)
                .unwrap()
                .rate(GuardInterval::Short),
            72_222_222
        );
    }

    #[test]
    fn airtime_of_an_ht_mixed_ppdu() {
        let mcs7 = HtMode::of(7, Width::Mhz20).unwrap();
        // 1500 bytes: (16 + 12000 + 6) / 260 -> 47 symbols; 36 us of preamble and headers.
        assert_eq!(mcs7.symbols(1500), 47);
        assert_eq!(mcs7.airtime(1500, GuardInterval::Long, false), 224 * MICROS);
        // Short GI: 47 x 3.6 = 169.2 us, counted as 43 four-us symbols (172 us).
        assert_eq!(
            mcs7.airtime(1500, GuardInterval::Short, false),
            208 * MICROS
        );
        // 2.4 GHz adds the 6-us signal extension.
        assert_eq!(mcs7.airtime(1500, GuardInterval::Long, true), 230 * MICROS);
        // Two streams: a second HT-LTF, twice the bits per symbol.
        let mcs15 = HtMode::of(15, Width::Mhz20).unwrap();
        assert_eq!(mcs15.symbols(1500), 24);
        assert_eq!(
            mcs15.airtime(1500, GuardInterval::Long, false),
            (40 + 96) * MICROS
        );
        // MCS 0 at 40 MHz: 54 bits a symbol; a 14-byte Block ACK-sized PSDU: 3 symbols.
        let mcs0 = HtMode::of(0, Width::Mhz40).unwrap();
        assert_eq!(mcs0.symbols(14), 3);
        assert_eq!(
            mcs0.airtime(14, GuardInterval::Long, false),
            (36 + 12) * MICROS
        );
    }

    #[test]
    fn control_responses_go_at_the_mandatory_rate_below_the_reference() {
        let refs: Vec<u64> = (0..8u8)
            .map(|m| HtMode::of(m, Width::Mhz20).unwrap().non_ht_reference() / 1_000_000)
            .collect();
        assert_eq!(refs, [6, 12, 18, 24, 36, 48, 54, 54]);
        let ctrl: Vec<u64> = (0..16u8)
            .map(|m| HtMode::of(m, Width::Mhz40).unwrap().control_rate() / 1_000_000)
            .collect();
        assert_eq!(
            ctrl,
            [6, 12, 12, 24, 24, 24, 24, 24, 6, 12, 12, 24, 24, 24, 24, 24]
        );
    }

    #[test]
    fn airtime_never_falls_as_the_psdu_grows() {
        for mcs in 0..16u8 {
            for w in [Width::Mhz20, Width::Mhz40] {
                let m = HtMode::of(mcs, w).unwrap();
                for gi in [GuardInterval::Long, GuardInterval::Short] {
                    let mut last = 0;
                    for bytes in (0..70_000).step_by(97) {
                        let t = m.airtime(bytes, gi, false);
                        assert!(t >= last);
                        last = t;
                    }
                }
            }
        }
    }
}
