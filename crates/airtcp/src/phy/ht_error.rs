//! Frame success of 802.11n (HT) and 802.11a/g (non-HT OFDM) PPDUs against SNR as ns-3 3.44
//! computes it with its default error model for these PHYs, `TableBasedErrorRateModel`, so that
//! airtcp and ns-3 can be compared link for link.
//!
//! # The tables
//!
//! Packet error rate against SNR for the BCC-coded MCS 0-7 in AWGN, at two reference sizes, 32 and
//! 1458 bytes, in 0.5-dB steps: the IEEE 802.11 TGax link-level simulation results (box-0
//! calibration, document 11-14/0803r1) as ns-3 carries them in `reference/error-rate-tables.cc`
//! (`AwgnErrorTableBcc32`, `AwgnErrorTableBcc1458`); the numbers below are copied from there.
//! MCS 8-9 (VHT 256-QAM) and the LDPC tables are not carried over: 802.11n uses neither here.
//!
//! # One chunk (`TableBasedErrorRateModel::DoGetChunkSuccessRate`)
//!
//! A chunk of `bits` bits of a given table MCS at SNR s (linear):
//! - its size is max(1, bits / 8) bytes (integer division);
//! - s is taken to dB and rounded to 0.01 dB (`RoundSnr`: floor(100 x + 0.5) / 100);
//! - the 32-byte table serves sizes below 400 bytes (`SizeThreshold`), the 1458-byte one the rest;
//! - an SNR equal to an entry takes its PER; one between two entries interpolates linearly; one
//!   below the first entry has PER 1, one above the last PER 0;
//! - the PER is scaled to the size, PER' = 1 - (1 - PER)^(size / reference) (unless the size is
//!   the reference), and a PER' below 1e-5 is taken as 0. The chunk succeeds with 1 - PER'.
//!
//! Success falls with size within each table but can rise across the 400-byte switch, where the
//! curve changes: at MCS 7 near 18 dB a 400-byte chunk gets through up to 0.22 more often than a
//! 399-byte one. That is ns-3's model and is kept.
//!
//! HT MCS i + 8 (two streams) uses MCS i's curve. A non-HT OFDM mode is mapped to the HT MCS of the
//! same constellation and code (`GetMcsForMode`): 6 -> 0, 12 -> 1, 18 -> 2, 24 -> 3, 36 -> 4,
//! 48 -> 5, 54 -> 6 Mbit/s. 9 Mbit/s (BPSK 3/4) has no HT counterpart: ns-3 hands it to its
//! fallback model, `YansErrorRateModel`, which is not here ([`table_mcs_of_ofdm_rate`] says
//! `None`).
//!
//! # One PPDU (`PhyEntity`, `OfdmPhy`, `HtPhy`, `InterferenceHelper`)
//!
//! ns-3 decides a PPDU field by field, each with its own random draw:
//! - the preamble (L-STF, L-LTF) is not drawn: once the preamble detection model (if any) has
//!   accepted the PPDU it is taken as received (`PhyEntity::DoEndReceivePreamble`);
//! - L-SIG (`OfdmPhy::EndReceiveHeader`, via `PhyEntity::GetPhyHeaderSnrPer` and
//!   `InterferenceHelper::CalculatePhyHeaderPer`, which keeps only that field's section of
//!   `PhyEntity::GetPhyHeaderSections` and hands it to `CalculatePhyHeaderSectionPsr`): 4 us at
//!   the 6 Mbit/s mode (`HtPhy::GetLSigMode`; `OfdmPhy::GetHeaderMode` for a non-HT PPDU), table
//!   MCS 0. A failure aborts the reception;
//! - HT-SIG, in an HT-mixed PPDU only (`HtPhy::EndReceiveHtSig`): 8 us at the same 6 Mbit/s mode
//!   (`HtPhy::GetHtSigMode`). The HT-STF and HT-LTFs (`WIFI_PPDU_FIELD_TRAINING`) are always
//!   received (`HtPhy::DoEndReceiveField`);
//! - the data field, per MPDU (`PhyEntity::ScheduleEndOfMpdus`, `EndOfMpdu`,
//!   `GetReceptionStatus`, `InterferenceHelper::CalculatePayloadPer`): each MPDU is one chunk at
//!   the PPDU's mode over the time it occupies in the data field (below), drawn on its own.
//!
//! A field's bit count is its duration times the mode's data rate, truncated
//! (`InterferenceHelper::CalculateChunkSuccessRate`, `CalculatePayloadChunkSuccessRate`:
//! `static_cast<uint64_t>(rate * duration.GetSeconds())`), not the bits the field carries. Two
//! consequences:
//! - ns-3's `Time::GetSeconds` multiplies the nanoseconds by a 128-bit fixed-point reciprocal of
//!   1e9 that falls just short, so 4 us is a little under 4e-6 s and L-SIG counts 23 bits, HT-SIG
//!   47 (not 24, 48): 2 and 5 bytes for the table. `ns3_seconds` reproduces that arithmetic bit
//!   for bit, so every bit count here is ns-3's (checked for all durations up to 300 us at all
//!   rates, below);
//! - the payload of a lone MPDU counts the whole data field: SERVICE, PSDU, tail and pad bits,
//!   N_SYM x N_DBPS, plus, in the 2.4 GHz band, the 6-us signal extension at the data rate
//!   (`HtPhy::GetPayloadDuration` and `OfdmPhy::GetPayloadDuration` add it to the payload's
//!   duration). With the short guard interval the data field is N_SYM x 3.6 us (ns-3 does not
//!   round it to 4-us symbols, see `ht.rs`) and the rate ns-3's, rounded up (72,222,223 bit/s at
//!   MCS 7). For two streams the count is divided by the number of streams
//!   (`CalculatePayloadChunkSuccessRate`).
//!
//! A PPDU is received if every draw succeeds, so a lone MPDU's success is the product
//! P(L-SIG) P(HT-SIG) P(payload) ([`ht_ppdu_success`], [`non_ht_ppdu_success`]; an 802.11a/g
//! PPDU has no HT-SIG).
//!
//! # MPDUs of an A-MPDU (`WifiPhy::GetPayloadDuration` with `MpduType`)
//!
//! Each A-MPDU subframe is the 4-byte delimiter, the MPDU, and, except in the last subframe, pad
//! bytes to a multiple of 4 (`WifiPsdu::GetAmpduSubframeSize`); the PSDU is their sum. ns-3 gives
//! each subframe a stretch of the data field in fractional symbols with N_DBPS = rate x T_SYM
//! (in `double`):
//! - the first: (16 + 8 L + 6) / N_DBPS symbols (SERVICE and tail counted here);
//! - a middle one: 8 L / N_DBPS;
//! - the last: ceil((16 + 8 L_total + 6) / N_DBPS) less the symbols handed out so far, so the
//!   last MPDU carries the pad bits (and, at 2.4 GHz, the signal extension);
//!
//! each converted to time as `FemtoSeconds(uint64(symbols x T_SYM in fs))`, which ns-3's
//! nanosecond clock truncates. What the last subframe's stretch falls short of the data field by
//! is added to it when under one guard interval (`PhyEntity::ScheduleEndOfMpdus`). An MPDU then
//! starts where the previous ended and succeeds, given the headers, with the chunk success of
//! its stretch's bits; MPDUs are drawn independently ([`ampdu_mpdus`]).
//!
//! # SNR
//!
//! `snr` is what ns-3's `InterferenceHelper::CalculateSnr` gives: the received power over the
//! noise floor (kT x the PPDU's width x the noise figure) plus interference. With YansWifiPhy
//! the headers and the payload see the same SNR (`OfdmPhy::GetMeasurementChannelWidth` is the
//! PPDU's width). A two-stream MCS assumes a two-antenna receiver (ns-3 drops a PPDU with more
//! streams than the receiver's antennas): ns-3 then multiplies the header SNR by the antenna
//! count over one stream (a 3-dB diversity gain) and leaves the payload's (2 antennas / 2
//! streams); one-stream MCSs assume one antenna.
//!
//! Not here: the preamble detection model ns-3's helpers install
//! (`ThresholdPreambleDetectionModel`: the PPDU is dropped unless the SNR is at least 4 dB and
//! the power at least -82 dBm at the end of the 4-us detection window), which decides before
//! any of this; interference that changes during the PPDU (the caller gives one SNR per
//! chunk); the fallback model for 9 Mbit/s.
//!
//! # Checked against ns-3 3.44
//!
//! One-off programs against the ns-3 3.44 wheel (not kept; their numbers are in the tests):
//! - `TableBasedErrorRateModel::GetChunkSuccessRate` for HtMcs0-7 and OfdmRate6/12/24/54Mbps at
//!   4,001 SNRs from -11.5 to 43.3 dB times 24 bit counts from 0 to 524,288, and at every
//!   quarter dB from -10 to 30 dB and 0.004-0.006 dB either side (1.2 million points):
//!   [`chunk_success`] gives the same double every time;
//! - `static_cast<uint64_t>(rate * NanoSeconds(t).GetSeconds())` for every t from 1 ns to
//!   300 us at the 8 OFDM and 64 HT rates (21.6 million cases, 123,126 of them a bit short of
//!   the exact product): `ns3_bits` agrees in all, as `ns3_ht_rate` does with
//!   `HtPhy::GetDataRate` for all 64 HT rates;
//! - two YansWifiPhys (802.11n, 5 GHz, no preamble detection model, a `FixedRssLossModel`)
//!   exchanging PPDUs through `WifiPhy::Send`, with the receiver's error model wrapped to log
//!   each chunk: the chunks are those listed above (L-SIG 23 bits, HT-SIG 47, one data chunk a
//!   PSDU or one per MPDU, with these functions' bit counts in all 33 settings, among them two
//!   streams with two antennas and 40 MHz), and the per-MPDU reception times of six A-MPDUs put
//!   each MPDU where [`ampdu_mpdus`] does, to the nanosecond. Over 20,000 PPDUs per setting (MCS 0, 4 and 7 at
//!   3-4 SNRs across their cliffs, the short guard interval, 130-byte PSDUs, non-HT 6, 24 and
//!   54 Mbit/s, A-MPDUs of 2-4 MPDUs at MCS 0, 4, 7 and 15, MCS 12, MCS 4 and 7 at 40 MHz) the
//!   measured success of every PPDU or MPDU is within sampling error of these functions: 53
//!   comparisons, largest deviation 2.7 standard errors.

use super::ht::{GuardInterval, HtMode};
use crate::sim::Time;

/// Sizes (bytes) from this one on use the 1458-byte table (ns-3's `SizeThreshold` default).
pub const SIZE_THRESHOLD: u64 = 400;
/// Reference size of the small-frame table, bytes.
const SMALL_REFERENCE: u64 = 32;
/// Reference size of the large-frame table, bytes.
const LARGE_REFERENCE: u64 = 1458;
/// A PER below this is taken as 0 (`TABLED_BASED_ERROR_MODEL_PRECISION`).
const PER_FLOOR: f64 = 1e-5;

/// Bits ns-3 counts for L-SIG: 4 us at 6 Mbit/s, one short of 24 (see the module header).
pub const L_SIG_BITS: u64 = 23;
/// Bits ns-3 counts for HT-SIG: 8 us at 6 Mbit/s, one short of 48.
pub const HT_SIG_BITS: u64 = 47;
/// The table MCS of the 6 Mbit/s mode both SIG fields are sent in (BPSK 1/2).
const SIG_TABLE_MCS: u8 = 0;

/// SERVICE bits before the PSDU and tail bits after it (one BCC encoder at these rates).
const SERVICE_BITS: f64 = 16.0;
const TAIL_BITS: f64 = 6.0;
/// The 2.4 GHz band's signal extension, ns.
const SIGNAL_EXTENSION_NS: u64 = 6_000;
/// A non-HT OFDM symbol, ns.
const OFDM_SYMBOL_NS: u64 = 4_000;

/// PER against SNR (dB) for the 32-byte reference size, MCS 0-7, BCC, AWGN (ns-3's
/// `AwgnErrorTableBcc32`, from IEEE 802.11 TGax link-level simulations).
#[rustfmt::skip]
const BCC_32: [&[(f64, f64)]; 8] = [
    // MCS 0
    &[(-3.50, 1.00000), (-3.00, 0.99500), (-2.50, 0.94080), (-2.00, 0.82590), (-1.50, 0.58950),
      (-1.00, 0.30830), (-0.50, 0.12540), (0.00, 0.03440), (0.50, 0.00850), (1.00, 0.00150),
      (1.50, 0.00024), (2.00, 0.00009), (2.50, 0.00000)],
    // MCS 1
    &[(-0.50, 1.00000), (0.00, 0.99210), (0.50, 0.96710), (1.00, 0.83490), (1.50, 0.58740),
      (2.00, 0.31690), (2.50, 0.11820), (3.00, 0.03640), (3.50, 0.00850), (4.00, 0.00160),
      (4.50, 0.00026), (5.00, 0.00003), (5.50, 0.00000)],
    // MCS 2
    &[(2.00, 1.00000), (2.50, 0.99400), (3.00, 0.95880), (3.50, 0.85120), (4.00, 0.59900),
      (4.50, 0.31250), (5.00, 0.11710), (5.50, 0.03390), (6.00, 0.00780), (6.50, 0.00160),
      (7.00, 0.00028), (7.50, 0.00008), (8.00, 0.00000)],
    // MCS 3
    &[(4.00, 1.00000), (4.50, 0.99900), (5.00, 0.99800), (5.50, 0.96900), (6.00, 0.88430),
      (6.50, 0.74090), (7.00, 0.46510), (7.50, 0.25710), (8.00, 0.10800), (8.50, 0.03810),
      (9.00, 0.01190), (9.50, 0.00320), (10.00, 0.00076), (10.50, 0.00017), (11.00, 0.00003),
      (11.50, 0.00000)],
    // MCS 4
    &[(8.00, 1.00000), (8.50, 0.99900), (9.00, 0.94790), (9.50, 0.79890), (10.00, 0.59230),
      (10.50, 0.33700), (11.00, 0.15720), (11.50, 0.05420), (12.00, 0.01580), (12.50, 0.00400),
      (13.00, 0.00110), (13.50, 0.00027), (14.00, 0.00009), (14.50, 0.00000)],
    // MCS 5
    &[(11.50, 1.00000), (12.00, 0.99800), (12.50, 0.96530), (13.00, 0.89700), (13.50, 0.73010),
      (14.00, 0.52570), (14.50, 0.30580), (15.00, 0.15750), (15.50, 0.06460), (16.00, 0.02410),
      (16.50, 0.00790), (17.00, 0.00230), (17.50, 0.00069), (18.00, 0.00018), (18.50, 0.00004),
      (19.00, 0.00002), (19.50, 0.00000)],
    // MCS 6
    &[(13.00, 1.00000), (13.50, 0.99010), (14.00, 0.96250), (14.50, 0.83980), (15.00, 0.68660),
      (15.50, 0.46340), (16.00, 0.25200), (16.50, 0.11450), (17.00, 0.04610), (17.50, 0.01580),
      (18.00, 0.00490), (18.50, 0.00160), (19.00, 0.00039), (19.50, 0.00011), (20.00, 0.00002),
      (20.50, 0.00000)],
    // MCS 7
    &[(14.00, 1.00000), (14.50, 0.99700), (15.00, 0.98330), (15.50, 0.94260), (16.00, 0.84830),
      (16.50, 0.63470), (17.00, 0.43770), (17.50, 0.22260), (18.00, 0.11110), (18.50, 0.04400),
      (19.00, 0.01730), (19.50, 0.00530), (20.00, 0.00190), (20.50, 0.00052), (21.00, 0.00016),
      (21.50, 0.00004), (22.00, 0.00000)],
];

/// PER against SNR (dB) for the 1458-byte reference size, MCS 0-7, BCC, AWGN (ns-3's
/// `AwgnErrorTableBcc1458`, from IEEE 802.11 TGax link-level simulations).
#[rustfmt::skip]
const BCC_1458: [&[(f64, f64)]; 8] = [
    // MCS 0
    &[(-1.00, 1.00000), (-0.50, 0.99400), (0.00, 0.81850), (0.50, 0.29080), (1.00, 0.06630),
      (1.50, 0.01120), (2.00, 0.00150), (2.50, 0.00015), (3.00, 0.00001), (3.50, 0.00000)],
    // MCS 1
    &[(2.00, 1.00000), (2.50, 0.99700), (3.00, 0.79440), (3.50, 0.30080), (4.00, 0.07280),
      (4.50, 0.01200), (5.00, 0.00150), (5.50, 0.00023), (6.00, 0.00000)],
    // MCS 2
    &[(4.50, 1.00000), (5.00, 0.99800), (5.50, 0.75780), (6.00, 0.30100), (6.50, 0.06760),
      (7.00, 0.01220), (7.50, 0.00230), (8.00, 0.00035), (8.50, 0.00004), (9.00, 0.00000)],
    // MCS 3
    &[(7.50, 1.00000), (8.00, 0.99400), (8.50, 0.84050), (9.00, 0.43410), (9.50, 0.14190),
      (10.00, 0.03740), (10.50, 0.00860), (11.00, 0.00190), (11.50, 0.00036), (12.00, 0.00005),
      (12.50, 0.00000)],
    // MCS 4
    &[(11.00, 1.00000), (11.50, 0.92690), (12.00, 0.51390), (12.50, 0.18260), (13.00, 0.04650),
      (13.50, 0.01100), (14.00, 0.00260), (14.50, 0.00041), (15.00, 0.00010), (15.50, 0.00000)],
    // MCS 5
    &[(14.50, 1.00000), (15.00, 0.99900), (15.50, 0.94790), (16.00, 0.66250), (16.50, 0.29780),
      (17.00, 0.10580), (17.50, 0.03340), (18.00, 0.00910), (18.50, 0.00230), (19.00, 0.00064),
      (19.50, 0.00017), (20.00, 0.00002), (20.50, 0.00000)],
    // MCS 6
    &[(16.00, 1.00000), (16.50, 0.99500), (17.00, 0.87960), (17.50, 0.51390), (18.00, 0.20910),
      (18.50, 0.06390), (19.00, 0.01860), (19.50, 0.00460), (20.00, 0.00130), (20.50, 0.00023),
      (21.00, 0.00002), (21.50, 0.00000)],
    // MCS 7
    &[(17.50, 1.00000), (18.00, 0.97850), (18.50, 0.73930), (19.00, 0.33750), (19.50, 0.12340),
      (20.00, 0.03550), (20.50, 0.01000), (21.00, 0.00270), (21.50, 0.00050), (22.00, 0.00009),
      (22.50, 0.00001), (23.00, 0.00000)],
];

/// The table MCS ns-3 uses for a non-HT OFDM rate (`GetMcsForMode`): the HT MCS of the same
/// constellation and code. `None` for 9 Mbit/s (BPSK 3/4, no HT counterpart: ns-3 falls back to
/// `YansErrorRateModel`) and for rates that are not OFDM's.
pub fn table_mcs_of_ofdm_rate(rate_bps: u64) -> Option<u8> {
    match rate_bps {
        6_000_000 => Some(0),
        12_000_000 => Some(1),
        18_000_000 => Some(2),
        24_000_000 => Some(3),
        36_000_000 => Some(4),
        48_000_000 => Some(5),
        54_000_000 => Some(6),
        _ => None,
    }
}

/// The PER a table gives at `snr_db` (already rounded to 0.01 dB): the entry's own if the SNR is
/// one, else interpolated between the entries either side; 1 below the table, 0 above it.
fn table_per(table: &[(f64, f64)], snr_db: f64) -> f64 {
    // ns-3 looks for an exact entry first; the rounded SNR and the entries are both the nearest
    // doubles to hundredths of a dB, so an SNR on the grid matches exactly.
    if let Some(&(_, per)) = table.iter().find(|&&(s, _)| s == snr_db) {
        return per;
    }
    let (Some(&(min, _)), Some(&(max, _))) = (table.first(), table.last()) else {
        return 1.0;
    };
    if snr_db < min {
        return 1.0;
    }
    if snr_db > max {
        return 0.0;
    }
    // The last entry below and the first at or above, as ns-3's loop finds them (the same
    // arithmetic in the same order, so the result is bit-identical).
    let mut below = (0.0, 0.0);
    let mut above = (0.0, 0.0);
    for &entry in table {
        if entry.0 < snr_db {
            below = entry;
        } else {
            above = entry;
            break;
        }
    }
    below.1 + (snr_db - below.0) * (above.1 - below.1) / (above.0 - below.0)
}

/// Probability that a chunk of `bits` bits coded with table MCS `table_mcs` (0-7; an HT MCS
/// modulo 8, or [`table_mcs_of_ofdm_rate`]) is received at SNR `snr` (linear), as ns-3's
/// `TableBasedErrorRateModel::DoGetChunkSuccessRate` computes it for BCC (see the module
/// header). 0 for an MCS without a table here.
pub fn chunk_success(table_mcs: u8, snr: f64, bits: u64) -> f64 {
    let size = (bits / 8).max(1);
    let snr_db = 10.0 * snr.log10();
    let rounded = (snr_db * 100.0 + 0.5).floor() / 100.0;
    let (tables, reference) = if size < SIZE_THRESHOLD {
        (&BCC_32, SMALL_REFERENCE)
    } else {
        (&BCC_1458, LARGE_REFERENCE)
    };
    let Some(table) = tables.get(usize::from(table_mcs)) else {
        return 0.0;
    };
    let mut per = table_per(table, rounded);
    if size != reference {
        // IEEE 802.11-14/0803r1: the reference PER spread over `size` bytes as if each block of
        // the reference size failed independently.
        per = 1.0 - (1.0 - per).powf(size as f64 / reference as f64);
    }
    if per < PER_FLOOR {
        per = 0.0;
    }
    1.0 - per
}

/// ns-3's 2^128 / 10^9 for `Time::GetSeconds` at nanosecond resolution, as
/// `int64x64_t::Invert(1000000000)` computes it: the 128-bit long division `int64x64_t::Udiv`,
/// then one added if multiplying back does not give 1.
const NS_TO_SECONDS: u128 = {
    let inv = ns3_udiv(1 << 64, 1_000_000_000);
    if ns3_umul_by_invert(1_000_000_000u128 << 64, inv) >> 64 != 1 {
        inv + 1
    } else {
        inv
    }
};

/// `int64x64_t::Udiv` (128-bit implementation): a / b with 64 fraction bits, by ns-3's own
/// shift-and-divide steps (which drop divisor bits, so not always the exact quotient).
const fn ns3_udiv(a: u128, b: u128) -> u128 {
    const DIGITS: u64 = 64;
    const HIGH_BIT: u128 = 1 << 127;
    let mut rem = a % b;
    let mut den = b;
    let mut result = a / b;
    let mut digits = 0u64;
    let mut shift = 0u64;
    while shift < DIGITS && den & 1 == 0 {
        shift += 1;
        den >>= 1;
    }
    while digits < DIGITS && rem != 0 {
        while digits + shift < DIGITS && rem & HIGH_BIT == 0 {
            shift += 1;
            rem <<= 1;
        }
        while digits + shift < DIGITS && (den & 1 == 0 || rem < den) {
            shift += 1;
            den >>= 1;
        }
        let quotient = rem / den;
        rem %= den;
        result = (result << shift) + quotient;
        digits += shift;
        shift = 0;
    }
    if digits < DIGITS {
        result <<= DIGITS - digits;
    }
    result
}

/// `int64x64_t::UmulByInvert`: the high 128 bits of a x b, without the low halves' product.
const fn ns3_umul_by_invert(a: u128, b: u128) -> u128 {
    const LOW: u128 = u64::MAX as u128;
    let (al, bl, ah, bh) = (a & LOW, b & LOW, a >> 64, b >> 64);
    ah * bh + ((ah * bl + al * bh) >> 64)
}

/// ns-3's `Time::GetSeconds()` of `ns` nanoseconds: a fixed-point product with a reciprocal a
/// little under 1e-9, so 4,000 ns gives a little under 4e-6 s. Exact to ns-3's double below
/// one second (where the integer part is 0 and the `long double` sum adds nothing); above, the
/// `long double` sum is done in `f64`.
fn ns3_seconds(ns: u64) -> f64 {
    let fixed = ns3_umul_by_invert(u128::from(ns) << 64, NS_TO_SECONDS);
    let whole = (fixed >> 64) as u64;
    let fraction = fixed as u64 as f64 / 18_446_744_073_709_551_616.0;
    whole as f64 + fraction
}

/// The bits ns-3 counts for a chunk of `ns` nanoseconds at `rate_bps`:
/// `static_cast<uint64_t>(rate * duration.GetSeconds())`.
fn ns3_bits(rate_bps: u64, ns: u64) -> u64 {
    (rate_bps as f64 * ns3_seconds(ns)) as u64
}

/// ns-3's data rate of an HT mode, bit/s (`HtPhy::GetDataRate`): per stream, the rate rounded up
/// to a whole bit/s (72,222,223 at MCS 7 with the short guard interval), times the streams.
fn ns3_ht_rate(mode: &HtMode, gi: GuardInterval) -> u64 {
    let streams = u64::from(mode.streams.max(1));
    let per_stream = u64::from(mode.n_dbps) / streams;
    let rate = match gi {
        GuardInterval::Long => per_stream * 250_000,
        GuardInterval::Short => (per_stream * 10_000_000).div_ceil(36),
    };
    rate * streams
}

/// An HT data symbol with guard interval `gi`, ns.
fn ht_symbol_ns(gi: GuardInterval) -> u64 {
    match gi {
        GuardInterval::Long => 4_000,
        GuardInterval::Short => 3_600,
    }
}

/// `symbols` symbols of `symbol_ns` as ns-3 turns them into time: femtoseconds, truncated, then
/// truncated again to its nanosecond clock.
fn symbols_to_ns(symbols: f64, symbol_ns: u64) -> u64 {
    ((symbols * (symbol_ns * 1_000_000) as f64) as u64) / 1_000_000
}

fn signal_extension_ns(band_2_4ghz: bool) -> u64 {
    if band_2_4ghz {
        SIGNAL_EXTENSION_NS
    } else {
        0
    }
}

/// Data bits per symbol as ns-3 derives them from the rate: rate x T_SYM (ns) / 1e9, a double
/// (260.0000028 at MCS 7 with the short guard interval).
fn bits_per_symbol(rate_bps: u64, symbol_ns: u64) -> f64 {
    (rate_bps * symbol_ns) as f64 / 1e9
}

/// The data field of a PSDU of `bytes`, ns (`GetPayloadDuration` for a lone MPDU).
fn data_field_ns(rate_bps: u64, symbol_ns: u64, bytes: u32, band_2_4ghz: bool) -> u64 {
    let bits = SERVICE_BITS + f64::from(bytes) * 8.0 + TAIL_BITS;
    let symbols = (bits / bits_per_symbol(rate_bps, symbol_ns)).ceil();
    symbols_to_ns(symbols, symbol_ns) + signal_extension_ns(band_2_4ghz)
}

/// Probability that L-SIG and HT-SIG of an HT-mixed PPDU in `mode` are received at SNR `snr`
/// (linear): the part of [`ht_ppdu_success`] an A-MPDU's MPDUs share, to be drawn once per
/// PPDU before [`ampdu_mpdus`]' per-MPDU draws. A two-stream mode's headers get the two-antenna
/// receiver's diversity gain (see the module header).
pub fn ht_header_success(mode: &HtMode, snr: f64) -> f64 {
    let header_snr = snr * f64::from(mode.streams.max(1));
    chunk_success(SIG_TABLE_MCS, header_snr, L_SIG_BITS)
        * chunk_success(SIG_TABLE_MCS, header_snr, HT_SIG_BITS)
}

/// Probability that the data field of a lone MPDU (not aggregated) of `psdu_bytes` sent in
/// `mode` is received at SNR `snr` (linear), given its headers were: one chunk over the whole
/// data field, pad bits and (at 2.4 GHz) the signal extension included.
pub fn ht_payload_success(
    mode: &HtMode,
    gi: GuardInterval,
    band_2_4ghz: bool,
    snr: f64,
    psdu_bytes: u32,
) -> f64 {
    let rate = ns3_ht_rate(mode, gi);
    let ns = data_field_ns(rate, ht_symbol_ns(gi), psdu_bytes, band_2_4ghz);
    let bits = ns3_bits(rate, ns) / u64::from(mode.streams.max(1));
    chunk_success(mode.mcs % 8, snr, bits)
}

/// Probability that an HT-mixed PPDU carrying one MPDU (`psdu_bytes`, not aggregated) in `mode`
/// is received at SNR `snr` (linear), as ns-3 3.44 decides it: L-SIG, HT-SIG and the data field,
/// each drawn on its own.
pub fn ht_ppdu_success(
    mode: &HtMode,
    gi: GuardInterval,
    band_2_4ghz: bool,
    snr: f64,
    psdu_bytes: u32,
) -> f64 {
    ht_header_success(mode, snr) * ht_payload_success(mode, gi, band_2_4ghz, snr, psdu_bytes)
}

/// Probability that a non-HT OFDM PPDU (802.11a, or 802.11g's ERP-OFDM) of `bytes` sent at
/// `rate_bps` is received at SNR `snr` (linear) by a radio using ns-3's table-based model:
/// L-SIG, then the data field (pad bits and, at 2.4 GHz, the signal extension included), at the
/// rate's table MCS. `None` where ns-3 would use its fallback model (9 Mbit/s) or the rate is not
/// OFDM's.
pub fn non_ht_ppdu_success(rate_bps: u64, band_2_4ghz: bool, snr: f64, bytes: u32) -> Option<f64> {
    let mcs = table_mcs_of_ofdm_rate(rate_bps)?;
    let ns = data_field_ns(rate_bps, OFDM_SYMBOL_NS, bytes, band_2_4ghz);
    let payload = chunk_success(mcs, snr, ns3_bits(rate_bps, ns));
    Some(chunk_success(SIG_TABLE_MCS, snr, L_SIG_BITS) * payload)
}

/// Bytes of A-MPDU subframe `i` of `n` carrying an MPDU of `mpdu_bytes`: the 4-byte delimiter,
/// the MPDU, and pad to a multiple of 4 except in the last subframe
/// (`WifiPsdu::GetAmpduSubframeSize`).
pub fn ampdu_subframe_bytes(mpdu_bytes: u32, last: bool) -> u32 {
    let bytes = mpdu_bytes.saturating_add(4);
    if last {
        bytes
    } else {
        bytes.saturating_add(3) & !3
    }
}

/// The PSDU of an A-MPDU of MPDUs of `mpdu_bytes` (MAC header, body and FCS each): the sum of
/// its subframes.
pub fn ampdu_psdu_bytes(mpdu_bytes: &[u32]) -> u32 {
    let n = mpdu_bytes.len();
    mpdu_bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| ampdu_subframe_bytes(b, i + 1 == n))
        .fold(0u32, u32::saturating_add)
}

/// One MPDU of an A-MPDU as ns-3's receiver sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AmpduMpdu {
    /// Where its stretch starts, from the start of the data field.
    pub start: Time,
    /// Its stretch of the data field (ns-3's `mpduDuration`).
    pub duration: Time,
    /// The bits ns-3 counts for it: its stretch times the rate, per stream.
    pub bits: u64,
    /// Probability it is received, given the PPDU's headers were ([`ht_header_success`]).
    pub success: f64,
}

/// The MPDUs of an HT A-MPDU of MPDUs of `mpdu_bytes` (each its MAC header, body and FCS; the
/// subframes' delimiters and pad are added here, [`ampdu_subframe_bytes`]) sent in `mode`: where
/// each lies in the data field and the probability it is received at SNR `snr` (linear) given
/// the headers were. ns-3 draws each MPDU on its own, after one draw for the headers shared by
/// all. With one MPDU this is an A-MPDU of one subframe (4 + L bytes, priced like a lone PSDU
/// of that size); an HT MPDU sent without aggregation is [`ht_payload_success`]'s.
pub fn ampdu_mpdus(
    mode: &HtMode,
    gi: GuardInterval,
    band_2_4ghz: bool,
    snr: f64,
    mpdu_bytes: &[u32],
) -> Vec<AmpduMpdu> {
    let mut out = Vec::with_capacity(mpdu_bytes.len());
    ampdu_mpdus_into(mode, gi, band_2_4ghz, snr, mpdu_bytes, &mut out);
    out
}

/// [`ampdu_mpdus`] into `out` (cleared first), for a caller that reuses the vector.
pub fn ampdu_mpdus_into(
    mode: &HtMode,
    gi: GuardInterval,
    band_2_4ghz: bool,
    snr: f64,
    mpdu_bytes: &[u32],
    out: &mut Vec<AmpduMpdu>,
) {
    out.clear();
    let n = mpdu_bytes.len();
    let rate = ns3_ht_rate(mode, gi);
    let symbol_ns = ht_symbol_ns(gi);
    let streams = u64::from(mode.streams.max(1));
    let n_dbps = bits_per_symbol(rate, symbol_ns);
    let gi_ns: u64 = match gi {
        GuardInterval::Long => 800,
        GuardInterval::Short => 400,
    };
    let data_ns = data_field_ns(rate, symbol_ns, ampdu_psdu_bytes(mpdu_bytes), band_2_4ghz);

    let mut start: u64 = 0;
    // What `PhyEntity::ScheduleEndOfMpdus` has left of the data field (signed, as ns-3's Time).
    let mut remaining = data_ns as i64;
    // `totalAmpduSize` and `totalAmpduNumSymbols` of `HtPhy::GetPayloadDuration`.
    let mut bytes_so_far: u32 = 0;
    let mut symbols_so_far = 0.0f64;
    for (i, &mpdu) in mpdu_bytes.iter().enumerate() {
        let last = i + 1 == n;
        let size = ampdu_subframe_bytes(mpdu, last);
        let mut duration = if n == 1 {
            // One subframe (`SINGLE_MPDU`): the whole data field, as for a lone PSDU.
            data_ns
        } else if last {
            let total =
                SERVICE_BITS + f64::from(bytes_so_far.saturating_add(size)) * 8.0 + TAIL_BITS;
            let symbols = (total / n_dbps).ceil() - symbols_so_far;
            symbols_to_ns(symbols, symbol_ns) + signal_extension_ns(band_2_4ghz)
        } else {
            let bits = if i == 0 {
                SERVICE_BITS + f64::from(size) * 8.0 + TAIL_BITS
            } else {
                f64::from(size) * 8.0
            };
            let symbols = bits / n_dbps;
            bytes_so_far = bytes_so_far.saturating_add(size);
            symbols_so_far += symbols;
            symbols_to_ns(symbols, symbol_ns)
        };
        remaining -= duration as i64;
        if last && remaining != 0 && remaining < gi_ns as i64 {
            // ns-3's correction for rounding: the last MPDU takes what is left of the field
            // (or gives back what it overran, which the truncations above never produce).
            duration = duration.saturating_add_signed(remaining);
        }
        // The chunk ends with the MPDU's stretch or the PPDU, whichever is first
        // (`InterferenceHelper::CalculatePayloadPer`).
        let chunk_ns = (start + duration).min(data_ns).saturating_sub(start);
        let bits = ns3_bits(rate, chunk_ns) / streams;
        let success = if chunk_ns == 0 {
            1.0
        } else {
            chunk_success(mode.mcs % 8, snr, bits)
        };
        out.push(AmpduMpdu {
            start,
            duration,
            bits,
            success,
        });
        start += duration;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::ht::GuardInterval::{Long, Short};
    use crate::phy::ht::Width::{self, Mhz20, Mhz40};

    fn linear(db: f64) -> f64 {
        10f64.powf(db / 10.0)
    }

    fn ht(mcs: u8, width: Width) -> HtMode {
        HtMode::of(mcs, width).expect("an HT MCS")
    }

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn table_edges_entries_and_interpolation() {
        let large = LARGE_REFERENCE * 8;
        let small = SMALL_REFERENCE * 8;
        // Below the first entry nothing gets through, above the last everything does.
        assert_eq!(chunk_success(4, linear(10.99), large), 0.0);
        assert_eq!(chunk_success(4, linear(15.51), large), 1.0);
        assert_eq!(chunk_success(0, linear(-3.51), small), 0.0);
        assert_eq!(chunk_success(7, linear(22.01), small), 1.0);
        // An entry at its reference size: the table's PER itself.
        assert!(near(chunk_success(4, linear(12.0), large), 1.0 - 0.51390));
        assert!(near(chunk_success(7, linear(18.0), small), 1.0 - 0.11110));
        // The first entry is PER 1 (not "below the table").
        assert_eq!(chunk_success(4, linear(11.0), large), 0.0);
        // Halfway between two entries: the mean of their PERs.
        assert!(near(
            chunk_success(4, linear(12.25), large),
            1.0 - (0.51390 + 0.18260) / 2.0
        ));
        // The SNR is rounded to 0.01 dB first: 12.004 dB is the 12-dB entry, 12.006 dB is 12.01.
        assert_eq!(
            chunk_success(4, linear(12.004), large),
            chunk_success(4, linear(12.0), large)
        );
        assert!(near(
            chunk_success(4, linear(12.006), large),
            1.0 - (0.51390 + (0.18260 - 0.51390) * 0.01 / 0.5)
        ));
        // No signal, and an MCS without a table.
        assert_eq!(chunk_success(0, 0.0, 100), 0.0);
        assert_eq!(chunk_success(8, linear(40.0), 100), 0.0);
    }

    #[test]
    fn per_scales_with_size_and_tiny_pers_vanish() {
        // Twice the reference: both halves must get through.
        let per = 0.51390;
        assert!(near(
            chunk_success(4, linear(12.0), 2 * LARGE_REFERENCE * 8),
            (1.0 - per) * (1.0 - per)
        ));
        // Half the small reference (16 bytes).
        assert!(near(
            chunk_success(0, linear(0.0), 16 * 8),
            (1.0 - 0.03440f64).sqrt()
        ));
        // Bits are counted in whole bytes, at least one.
        assert_eq!(
            chunk_success(0, linear(0.0), 16 * 8 + 7),
            chunk_success(0, linear(0.0), 16 * 8)
        );
        assert_eq!(
            chunk_success(0, linear(0.0), 0),
            chunk_success(0, linear(0.0), 8)
        );
        // 2 bytes at a PER of 9e-5 per 32 bytes: 5.6e-6, under the 1e-5 floor.
        assert_eq!(chunk_success(0, linear(2.0), 16), 1.0);
        // 32 bytes at the same entry: 9e-5, kept.
        assert!(near(chunk_success(0, linear(2.0), 256), 1.0 - 0.00009));
    }

    #[test]
    fn sizes_from_400_bytes_use_the_large_table() {
        let snr = linear(0.0);
        assert!(near(
            chunk_success(0, snr, 399 * 8),
            (1.0 - 0.03440f64).powf(399.0 / 32.0)
        ));
        assert!(near(
            chunk_success(0, snr, 400 * 8),
            (1.0 - 0.81850f64).powf(400.0 / 1458.0)
        ));
        // The switch is not monotone in size (ns-3's behaviour, kept): at MCS 7 around 18 dB a
        // 400-byte chunk gets through far more often than a 399-byte one.
        let snr = linear(18.0);
        let (a, b) = (
            chunk_success(7, snr, 399 * 8),
            chunk_success(7, snr, 400 * 8),
        );
        assert!(b > a + 0.1, "399 B: {a}, 400 B: {b}");
    }

    #[test]
    fn ofdm_rates_map_to_the_ht_mcs_of_their_code() {
        let got: Vec<Option<u8>> = [6, 9, 12, 18, 24, 36, 48, 54]
            .into_iter()
            .map(|m| table_mcs_of_ofdm_rate(m * 1_000_000))
            .collect();
        assert_eq!(
            got,
            [
                Some(0),
                None,
                Some(1),
                Some(2),
                Some(3),
                Some(4),
                Some(5),
                Some(6)
            ]
        );
        assert_eq!(table_mcs_of_ofdm_rate(11_000_000), None);
        assert_eq!(
            non_ht_ppdu_success(9_000_000, false, linear(30.0), 100),
            None
        );
        // The same code as the HT MCS: a non-HT reference rate's table MCS is the HT MCS.
        for mcs in 0..7u8 {
            let r = ht(mcs, Mhz20).non_ht_reference();
            assert_eq!(table_mcs_of_ofdm_rate(r), Some(mcs));
        }
    }

    #[test]
    fn success_rises_with_snr_and_falls_with_size_for_every_mcs() {
        for mcs in 0..8u8 {
            let mut last = 0.0;
            for k in -600..3000 {
                let s = chunk_success(mcs, linear(f64::from(k) / 100.0), 1000 * 8);
                assert!((0.0..=1.0).contains(&s) && s >= last, "MCS {mcs} at {k}");
                last = s;
            }
            assert_eq!(last, 1.0);
            // Within each table, more bytes never fare better.
            for k in (-600..3000).step_by(7) {
                let snr = linear(f64::from(k) / 100.0);
                for range in [1..400u64, 400..70_000] {
                    let mut last = 1.0;
                    for bytes in range.step_by(13) {
                        let s = chunk_success(mcs, snr, bytes * 8);
                        assert!(s <= last, "MCS {mcs} at {k}, {bytes} B");
                        last = s;
                    }
                }
            }
        }
        // A whole PPDU, too, and a faster MCS never fares better at the same SNR.
        for db in (-50..300).map(|k| f64::from(k) / 10.0) {
            let mut last = 1.0;
            for mcs in 0..8u8 {
                let s = ht_ppdu_success(&ht(mcs, Mhz20), Long, false, linear(db), 1500);
                assert!(s <= last + 1e-12, "MCS {mcs} at {db} dB");
                last = s;
            }
        }
    }

    #[test]
    fn chunks_are_ns3_s() {
        // (table MCS, SNR, bits, ns-3 3.44's TableBasedErrorRateModel::GetChunkSuccessRate).
        let points: [(u8, f64, u64, f64); 13] = [
            // L-SIG, HT-SIG and the data field of an MCS 0 PPDU of 1030 bytes at 0.63 dB.
            (0, 1.1561122421920946, 23, 0.9995811870354149),
            (0, 1.1561122421920946, 47, 0.9989532964486403),
            (0, 1.1561122421920946, 8268, 0.8290973861272672),
            (7, 83.45070307953499, 3199, 0.8574334784661682),
            (7, 94.53660459579653, 3200, 0.9780561299032516),
            (4, 23.746521436516744, 11664, 0.993368),
            (0, 1.2451452036514383, 100000, 0.4507720428005668),
            (2, 4.328824710082655, 256, 0.996664),
            // OfdmRate54Mbps, 6Mbps, 24Mbps.
            (6, 63.222257603289144, 12000, 0.7885411560313751),
            (0, 0.5628594992827296, 24, 0.7671939334364142),
            (3, 9.346521299243651, 3208, 0.9720283629638025),
            // MCS 12's data field (two streams: half the bits), MCS 4 at 40 MHz.
            (4, 16.710906143107017, 4211, 0.8505654999114732),
            (4, 16.710906143107024, 8423, 0.7234616696396543),
        ];
        for (mcs, snr, bits, want) in points {
            let got = chunk_success(mcs, snr, bits);
            assert!(
                near(got, want),
                "MCS {mcs}, {snr}, {bits} bits: {got} vs {want}"
            );
        }
    }

    #[test]
    fn bit_counts_are_ns3_s() {
        // ns-3's GetSeconds falls just short: 4 us at 6 Mbit/s is 23 bits, 8 us 47.
        assert_eq!(ns3_bits(6_000_000, 4_000), L_SIG_BITS);
        assert_eq!(ns3_bits(6_000_000, 8_000), HT_SIG_BITS);
        assert!(ns3_seconds(4_000) < 4e-6);
        // Some durations ns-3 counts one bit short (of 123,126 up to 300 us), and some it does
        // not.
        assert_eq!(ns3_bits(6_000_000, 500), 2);
        assert_eq!(ns3_bits(6_500_000, 4_000), 25);
        assert_eq!(ns3_bits(65_000_000, 4_000), 259);
        assert_eq!(ns3_bits(6_000_000, 96_000), 575);
        assert_eq!(ns3_bits(6_000_000, 100_000), 600);
        assert_eq!(ns3_bits(6_000_000, 136_000), 816);
        // ns-3's HT rates with the short guard interval, rounded up per stream.
        let short: Vec<u64> = [0u8, 4, 7, 8, 15]
            .iter()
            .map(|&m| ns3_ht_rate(&ht(m, Mhz20), Short))
            .collect();
        assert_eq!(
            short,
            [7_222_223, 43_333_334, 72_222_223, 14_444_446, 144_444_446]
        );
        assert_eq!(ns3_ht_rate(&ht(7, Mhz40), Short), 150_000_000);
        assert_eq!(ns3_ht_rate(&ht(15, Mhz40), Long), 270_000_000);
        // The data-field chunks ns-3 evaluated for lone PSDUs (logged by a wrapping error
        // model): (mode, guard interval, PSDU bytes, bits).
        let lone: [(HtMode, GuardInterval, u32, u64); 7] = [
            (ht(0, Mhz20), Long, 1030, 8268),
            (ht(0, Mhz20), Long, 130, 1065),
            (ht(4, Mhz20), Long, 1030, 8267),
            (ht(7, Mhz20), Long, 1030, 8319),
            (ht(7, Mhz20), Short, 1030, 8320),
            (ht(12, Mhz20), Long, 1030, 4211),
            (ht(4, Mhz40), Long, 1030, 8423),
        ];
        for (mode, gi, bytes, want) in lone {
            let rate = ns3_ht_rate(&mode, gi);
            let ns = data_field_ns(rate, ht_symbol_ns(gi), bytes, false);
            let got = ns3_bits(rate, ns) / u64::from(mode.streams);
            assert_eq!(got, want, "MCS {}, {gi:?}, {bytes} B", mode.mcs);
        }
        for (mbps, want) in [(6, 8280), (24, 8351), (54, 8424)] {
            let rate = mbps * 1_000_000;
            let ns = data_field_ns(rate, OFDM_SYMBOL_NS, 1030, false);
            assert_eq!(ns3_bits(rate, ns), want, "{mbps} Mbit/s");
        }
        // At 2.4 GHz the 6-us signal extension counts at the data rate: 39 more bits at MCS 0.
        let rate = ns3_ht_rate(&ht(0, Mhz20), Long);
        let ns = data_field_ns(rate, 4_000, 1030, true);
        assert_eq!(ns, 318 * 4_000 + 6_000);
        assert_eq!(ns3_bits(rate, ns), 8268 + 39);
    }

    #[test]
    fn ampdu_layout_is_ns3_s() {
        // (mode, guard interval, MPDU bytes, [(start, duration, bits)]): the MPDU end times
        // ns-3 3.44 reported (the receiver's per-MPDU receive-OK notifications, less the
        // preamble and headers, 36 us or 40 with two streams, and the 33-ns propagation delay)
        // and the bits its error model was asked about.
        type Case = (
            HtMode,
            GuardInterval,
            &'static [u32],
            &'static [(Time, Time, u64)],
        );
        let cases: [Case; 6] = [
            (
                ht(0, Mhz20),
                Long,
                &[430, 1530],
                &[(0, 540_000, 3509), (540_000, 1_888_000, 12_272)],
            ),
            (
                ht(4, Mhz20),
                Long,
                &[1230, 330, 1530],
                &[
                    (0, 254_102, 9909),
                    (254_102, 68_923, 2687),
                    (323_025, 316_975, 12_362),
                ],
            ),
            (
                ht(7, Mhz20),
                Long,
                &[1030, 1030, 1030, 230],
                &[
                    (0, 127_846, 8309),
                    (127_846, 127_507, 8287),
                    (255_353, 127_507, 8287),
                    (382_860, 29_140, 1894),
                ],
            ),
            (
                ht(7, Mhz20),
                Short,
                &[1030, 1030, 1030, 230],
                &[
                    (0, 115_061, 8309),
                    (115_061, 114_756, 8287),
                    (229_817, 114_756, 8287),
                    (344_573, 26_227, 1894),
                ],
            ),
            (
                ht(7, Mhz40),
                Short,
                &[1030, 1030, 1030, 230],
                &[
                    (0, 55_400, 8309),
                    (55_400, 55_253, 8287),
                    (110_653, 55_253, 8287),
                    (165_906, 14_094, 2114),
                ],
            ),
            (
                ht(15, Mhz20),
                Long,
                &[1030, 1030, 1030, 230],
                &[
                    (0, 63_923, 4154),
                    (63_923, 63_753, 4143),
                    (127_676, 63_753, 4143),
                    (191_429, 16_571, 1077),
                ],
            ),
        ];
        for (mode, gi, mpdus, want) in cases {
            let got: Vec<(Time, Time, u64)> = ampdu_mpdus(&mode, gi, false, 1.0, mpdus)
                .iter()
                .map(|m| (m.start, m.duration, m.bits))
                .collect();
            assert_eq!(got, want, "MCS {}, {gi:?}", mode.mcs);
            // The MPDUs fill the data field.
            let psdu = ampdu_psdu_bytes(mpdus);
            let end = got.last().map_or(0, |&(s, d, _)| s + d);
            let field = mode.airtime(psdu, Long, false) - (32 + 4 * u64::from(mode.streams)) * 1000;
            if gi == Long {
                assert_eq!(end, field);
            }
        }
        // Subframes: delimiter and pad (not after the last).
        assert_eq!(ampdu_subframe_bytes(1030, false), 1036);
        assert_eq!(ampdu_subframe_bytes(1030, true), 1034);
        assert_eq!(ampdu_psdu_bytes(&[1030, 1030, 1030, 230]), 3342);
        assert_eq!(ampdu_psdu_bytes(&[]), 0);
        assert!(ampdu_mpdus(&ht(0, Mhz20), Long, false, 1.0, &[]).is_empty());
    }

    #[test]
    fn the_functions_compose() {
        let mode = ht(4, Mhz20);
        for db in [11.0, 12.3, 13.0, 20.0] {
            let snr = linear(db);
            assert_eq!(
                ht_ppdu_success(&mode, Long, false, snr, 1000),
                ht_header_success(&mode, snr) * ht_payload_success(&mode, Long, false, snr, 1000)
            );
            // An A-MPDU of one subframe is priced like a lone PSDU of 4 + L bytes.
            let one = ampdu_mpdus(&mode, Long, false, snr, &[1000]);
            assert_eq!(
                one[0].success,
                ht_payload_success(&mode, Long, false, snr, 1004)
            );
            // Later MPDUs of the same size fare the same, the first (SERVICE and tail) a little
            // worse, the last (pad) too.
            let m = ampdu_mpdus(&mode, Long, false, snr, &[1000, 1000, 1000]);
            assert!(m[0].success <= m[1].success);
            // A middle 1004-byte subframe: 8,032 bits, counted one short as ns-3 does.
            assert_eq!(m[1].bits, 8031);
        }
        // The headers of a two-stream PPDU see twice the SNR (a two-antenna receiver).
        let snr = linear(-1.0);
        assert_eq!(
            ht_header_success(&ht(8, Mhz20), snr),
            ht_header_success(&ht(0, Mhz20), 2.0 * snr)
        );
    }

    /// A PPDU ns-3 sent in the measurements below.
    enum Sent {
        Ht(u8, Width, GuardInterval),
        Ofdm(u64),
    }
    use Sent::{Ht, Ofdm};

    #[test]
    fn success_matches_ns3_measurements() {
        // 20,000 PPDUs per row between two YansWifiPhys (802.11n, 5 GHz, TableBasedErrorRateModel,
        // no preamble detection model, FixedRssLossModel; two antennas for two streams), sent
        // with WifiPhy::Send; counted by the receiver's receive-OK callback and its per-MPDU
        // status: (what was sent, ns-3's SNR of the data field, MPDU bytes, MPDUs received).
        // One MPDU is a lone PSDU; more, an A-MPDU.
        type Row = (Sent, f64, &'static [u32], &'static [u32]);
        #[rustfmt::skip]
        let rows: [Row; 33] = [
            // MCS 0, 0.23, 0.63, 1.03, 1.43 dB; 130 bytes at -0.97, -0.47, 0.03 dB.
            (Ht(0, Mhz20, Long), 1.054386896391257, &[1030], &[10885]),
            (Ht(0, Mhz20, Long), 1.1561122421920946, &[1030], &[16495]),
            (Ht(0, Mhz20, Long), 1.2676518658578435, &[1030], &[19126]),
            (Ht(0, Mhz20, Long), 1.3899526312133483, &[1030], &[19736]),
            (Ht(0, Mhz20, Long), 0.7998342550070252, &[130], &[4277]),
            (Ht(0, Mhz20, Long), 0.8974287945007463, &[130], &[11401]),
            (Ht(0, Mhz20, Long), 1.0069316688517993, &[130], &[17258]),
            // MCS 4, 11.73-13.23 dB.
            (Ht(4, Mhz20, Long), 14.89361077710914, &[1030], &[7827]),
            (Ht(4, Mhz20, Long), 16.710906143107017, &[1030], &[14490]),
            (Ht(4, Mhz20, Long), 18.749945080674156, &[1030], &[18248]),
            (Ht(4, Mhz20, Long), 21.037784397664666, &[1030], &[19626]),
            // MCS 7, 18.23-19.73 dB; short guard interval at 18.73, 19.23.
            (Ht(7, Mhz20, Long), 66.52731562017385, &[1030], &[4666]),
            (Ht(7, Mhz20, Long), 74.64487584100647, &[1030], &[11261]),
            (Ht(7, Mhz20, Long), 83.75292821268818, &[1030], &[16486]),
            (Ht(7, Mhz20, Long), 93.97233105646346, &[1030], &[18784]),
            (Ht(7, Mhz20, Short), 74.64487584100647, &[1030], &[11119]),
            (Ht(7, Mhz20, Short), 83.75292821268818, &[1030], &[16466]),
            // Non-HT: 6 Mbit/s at 0.53 dB, 24 at 9.03, 9.53, 10.03, 54 at 17.73.
            (Ofdm(6_000_000), 1.1297959146727943, &[1030], &[15909]),
            (Ofdm(24_000_000), 7.998342550070252, &[1030], &[13562]),
            (Ofdm(24_000_000), 8.974287945007465, &[1030], &[17925]),
            (Ofdm(24_000_000), 10.069316688517993, &[1030], &[19518]),
            (Ofdm(54_000_000), 59.29253245799988, &[1030], &[14282]),
            // A-MPDUs: MCS 0 at 0.63 dB, MCS 4 at 12.23, 12.73, MCS 7 at 18.73, 19.23.
            (Ht(0, Mhz20, Long), 1.1561122421920946, &[430, 1530], &[18436, 15074]),
            (Ht(4, Mhz20, Long), 16.710906143107017, &[1230, 330, 1530], &[13645, 17914, 12371]),
            (Ht(4, Mhz20, Long), 18.749945080674156, &[1230, 330, 1530], &[17978, 19435, 17449]),
            (Ht(7, Mhz20, Long), 74.64487584100647, &[1030, 1030, 1030, 230], &[11307, 11262, 11365, 15836]),
            (Ht(7, Mhz20, Long), 83.75292821268818, &[1030, 1030, 1030, 230], &[16364, 16496, 16479, 18317]),
            (Ht(7, Mhz20, Short), 83.75292821268818, &[1030, 1030, 1030, 230], &[16481, 16395, 16499, 18321]),
            // Two streams (MCS 12 at 12.23, 12.73 dB), 40 MHz (MCS 4 at 12.23 dB, an MCS 7
            // A-MPDU at 19.23 dB), a two-stream A-MPDU (MCS 15 at 18.73 dB).
            (Ht(12, Mhz20, Long), 16.710906143107017, &[1030], &[17057]),
            (Ht(12, Mhz20, Long), 18.749945080674156, &[1030], &[19110]),
            (Ht(4, Mhz40, Long), 16.710906143107024, &[1030], &[14445]),
            (Ht(7, Mhz40, Short), 83.75292821268819, &[1030, 1030, 1030, 230], &[16394, 16473, 16515, 18134]),
            (Ht(15, Mhz20, Long), 74.64487584100647, &[1030, 1030, 1030, 230], &[15026, 15014, 15070, 17469]),
        ];
        let n = 20_000.0;
        let mut worst = 0.0f64;
        for (sent, snr, mpdus, received) in rows {
            let predicted: Vec<f64> = match sent {
                Ofdm(rate) => {
                    vec![non_ht_ppdu_success(rate, false, snr, mpdus[0]).expect("a tabled rate")]
                }
                Ht(mcs, width, gi) if mpdus.len() == 1 => {
                    vec![ht_ppdu_success(&ht(mcs, width), gi, false, snr, mpdus[0])]
                }
                Ht(mcs, width, gi) => {
                    let mode = ht(mcs, width);
                    let header = ht_header_success(&mode, snr);
                    ampdu_mpdus(&mode, gi, false, snr, mpdus)
                        .iter()
                        .map(|m| header * m.success)
                        .collect()
                }
            };
            for (p, &k) in predicted.iter().zip(received) {
                let z = (f64::from(k) / n - p) / (p * (1.0 - p) / n).sqrt();
                assert!(z.abs() < 4.0, "{mpdus:?} at {snr}: {p} vs {k} of {n}");
                worst = worst.max(z.abs());
            }
        }
        // 53 comparisons (largest deviation 2.70 standard errors): an ordinary spread.
        assert!(worst < 3.0, "{worst}");
    }
}
