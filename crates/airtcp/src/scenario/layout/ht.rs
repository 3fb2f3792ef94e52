//! What a model of an 802.11n network needs of the layout beyond the DCF's constants: the HT PHY's
//! airtime parameters (the MCS table of the radio, its preamble, guard interval and signal
//! extension) and the limits of A-MPDU aggregation under Block Ack. The numbers are the MAC's own
//! (`phy::ht`, `mac::block_ack`), so that a model computing an exchange from them computes the
//! exchange the simulator runs.

use serde::Serialize;

use super::micros;
use crate::mac::block_ack::{AggregationParams, BLOCK_ACK_BYTES, DELIMITER_BYTES, PPDU_MAX_TIME};
use crate::phy::ht::{GuardInterval, HtConfig, HtMode, SIGNAL_EXTENSION};

/// The HT PHY's airtime of an HT-mixed PPDU (IEEE 802.11-2016 §19.4.3, eq. 19-89 and 19-90):
/// `preamble_us` then `ceil((16 + 8 bytes + 6) / n_dbps)` data symbols of 4 us (with the short
/// guard interval, 3.6 us each counted in whole 4-us symbols), then `signal_extension_us`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LayoutHt {
    /// Legacy preamble, L-SIG, HT-SIG, HT-STF and one HT-LTF (one spatial stream), us.
    pub preamble_us: f64,
    /// The 400-ns guard interval (3.6-us symbols) rather than the 800-ns one.
    pub short_guard_interval: bool,
    /// The 2.4 GHz band's signal extension after every OFDM frame (HT or not), us.
    pub signal_extension_us: f64,
    /// MCS 0-7 at the radio's width and guard interval: the rate a scenario names each by and
    /// its data bits per OFDM symbol.
    pub mcs: [LayoutMcs; 8],
}

/// One MCS of the radio.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LayoutMcs {
    /// MCS index.
    pub mcs: u8,
    /// Its nominal rate (as the standard's tables print it), bit/s.
    pub rate_bps: u64,
    /// Data bits per OFDM symbol (N_DBPS).
    pub n_dbps: u32,
}

/// A-MPDU aggregation under an HT-immediate Block Ack agreement (`radio.aggregation`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LayoutAggregation {
    /// Largest A-MPDU, bytes.
    pub max_ampdu_bytes: u32,
    /// Most MPDUs in one A-MPDU.
    pub max_mpdus: u32,
    /// aPPDUMaxTime: the longest PPDU, us.
    pub ppdu_max_us: f64,
    /// Bytes of a subframe's delimiter (each subframe but the last padded to 4 bytes).
    pub delimiter_bytes: u32,
    /// Bytes of the compressed Block Ack that answers an A-MPDU.
    pub block_ack_bytes: u32,
    /// The forwarding layer pulls packets at the transmit opportunity and does not let them
    /// aggregate (`LayerNeeds { pulls: true, aggregates: false }`: COPE, BFLY, NCAQM), so each
    /// packet it hands over goes as a single frame outside the agreement; only what passes
    /// through the interface queue aggregates. False for the plain forwarding of static routes
    /// and AODV, and for the pulling layers that fill A-MPDUs (backpressure, Horizon).
    pub single_frames: bool,
}

/// The HT part of the layout of a radio with HT PHY `ht`.
pub(super) fn ht_of(ht: HtConfig) -> LayoutHt {
    let one_stream = HtMode::of(0, ht.channel_width).expect("MCS 0 exists");
    LayoutHt {
        preamble_us: micros(one_stream.preamble()),
        short_guard_interval: ht.guard_interval == GuardInterval::Short,
        signal_extension_us: match ht.band_2_4ghz() {
            true => micros(SIGNAL_EXTENSION),
            false => 0.0,
        },
        mcs: std::array::from_fn(|i| {
            let m = HtMode::of(i as u8, ht.channel_width).expect("MCS 0-7 exist");
            LayoutMcs {
                mcs: m.mcs,
                rate_bps: m.nominal_rate(ht.guard_interval),
                n_dbps: m.n_dbps,
            }
        }),
    }
}

/// The aggregation part of the layout.
pub(super) fn aggregation_of(params: AggregationParams, single_frames: bool) -> LayoutAggregation {
    LayoutAggregation {
        max_ampdu_bytes: params.max_ampdu_bytes,
        max_mpdus: u32::from(params.max_mpdus),
        ppdu_max_us: micros(PPDU_MAX_TIME),
        delimiter_bytes: DELIMITER_BYTES,
        block_ack_bytes: BLOCK_ACK_BYTES,
        single_frames,
    }
}
