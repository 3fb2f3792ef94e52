//! Configuration of a slotted base-station downlink, in the style of
//! [`crate::scenario::config`]: every struct denies unknown fields, every enum with data is
//! internally tagged by `kind`, names are snake_case, durations are integer nanoseconds.
//!
//! The defaults reproduce the ns-2 setup of paper 002 §V-B: 10 ms slots, a 10 MHz WiMax-like
//! downlink with eight AMC modes, Rayleigh fading with a 128 Hz Doppler spread, 2000-packet
//! buffers and the queueing-delay MaxWeight scheduler of its eq. (10). Only the users (and their
//! mean SNRs) must be given. The frame (`ideal`), the MAC overhead (0) and the residual
//! `rate_scale` (1) default to no overhead at all, the behaviour before they were modelled. See `docs/downlink.md` for what is taken from the papers and what
//! is assumed.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::sim::Time;

/// A base station serving several users over one shared, slotted downlink.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownlinkConfig {
    /// The node that acts as the base station (node name).
    #[schemars(transform = crate::quantity::node_name)]
    pub base_station: String,
    /// The users (user equipments), in the order that numbers them 0, 1, ...
    #[schemars(length(min = 1))]
    pub users: Vec<DownlinkUserConfig>,
    /// Slot length, ns (> 0). Paper 002: 10 ms.
    #[serde(default = "default_slot")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub slot: Time,
    /// Channel bandwidth, Hz (> 0). A mode of spectral efficiency e carries
    /// e x bandwidth x slot x (frame efficiency) x `rate_scale` bits per slot. Paper 002:
    /// 10 MHz (ns-2), 5 MHz (fluid).
    #[serde(default = "default_bandwidth")]
    #[schemars(transform = crate::quantity::frequency, extend("exclusiveMinimum" = 0))]
    pub bandwidth: f64,
    /// The downlink frame: how much of the nominal e x bandwidth x slot bits carries user data
    /// (see [`super::frame`]). Default `ideal`: all of it.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub frame: FrameConfig,
    /// Bytes each packet occupies on the air beyond its own size (MAC header, CRC, ...), >= 0.
    /// 0 (default): a packet of n bytes uses n bytes of a slot. IEEE 802.16: 10 (a 6-byte generic
    /// MAC header and a 4-byte CRC).
    #[serde(default)]
    #[schemars(transform = crate::quantity::size)]
    #[schemars(extend("x-omit-default" = true))]
    pub mac_overhead_bytes: u32,
    /// Residual factor on the bits per slot after the frame model, in (0, 1]: a declared
    /// calibration of what the frame model and the MAC overhead leave unexplained (see
    /// `docs/downlink.md`). 1 (default): none.
    #[serde(default = "default_rate_scale")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub rate_scale: f64,
    /// The adaptive modulation and coding table.
    #[serde(default)]
    pub amc: AmcConfig,
    /// Small-scale fading of every user's channel (independent per user).
    #[serde(default)]
    pub fading: SlotFadingConfig,
    /// Who is served in each slot.
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    /// Capacity of each user's drop-tail queue at the base station, packets (>= 1).
    #[serde(default = "default_queue_packets")]
    #[schemars(range(min = 1))]
    pub queue_packets: u32,
    /// What happens to a packet that does not fit in what is left of a slot.
    #[serde(default)]
    pub service: ServiceConfig,
    /// Window of the per-user average throughput, slots (>= 1): the exponentially weighted
    /// average gives weight 1 / window to the newest slot. Paper 002 eq. (8): 256.
    #[serde(default = "default_average_window")]
    #[schemars(range(min = 1))]
    pub average_window: u32,
    /// Optional packet erasures on top of the AMC rate (paper 004's bimodal channel); none if
    /// absent.
    #[serde(default)]
    pub erasure: Option<ErasureConfig>,
    /// Rate of each user's reverse link to the base station (ACKs), bits/s (> 0). The papers
    /// take the uplink as ideal (paper 004: "perfect uplink channel"); the default, 1 Gbps with
    /// no delay, is close to that without being instantaneous.
    #[serde(default = "default_uplink_rate")]
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub uplink_rate: u64,
    /// One-way delay of each user's reverse link, ns.
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration)]
    pub uplink_delay: Time,
}

/// One user of the downlink.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownlinkUserConfig {
    /// The user's node (node name).
    #[schemars(transform = crate::quantity::node_name)]
    pub node: String,
    /// Average received signal-to-noise ratio, dB. Paper 002: 12, 19, 13, 16 (ns-2) and
    /// 11, 17, 12, 15 (fluid model).
    #[schemars(transform = crate::quantity::ratio)]
    pub mean_snr: f64,
}

/// Adaptive modulation and coding tables (see [`super::amc`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AmcConfig {
    /// The eight IEEE 802.16e modes QPSK 1/2 ... 64-QAM 5/6 (paper 002's ns-2 downlink).
    #[default]
    #[serde(rename = "ieee802_16e")]
    Ieee80216e,
    /// The first `count` convolutionally coded modes of Liu, Zhou & Giannakis (2004), Table I,
    /// switched where each mode's packet error rate falls to `target_per` (paper 002's fluid
    /// model: 5 modes).
    Liu2004 {
        /// Number of modes, 1..=6, lowest first.
        #[serde(default = "default_liu_count")]
        #[schemars(range(min = 1, max = 6))]
        count: u32,
        /// Packet error rate at which a mode becomes usable, in (0, 1).
        #[serde(default = "default_target_per")]
        #[schemars(extend("exclusiveMinimum" = 0), extend("exclusiveMaximum" = 1))]
        target_per: f64,
    },
    /// A table given mode by mode.
    Custom {
        /// Modes in increasing order of threshold.
        #[schemars(length(min = 1))]
        modes: Vec<AmcModeConfig>,
    },
}

/// One row of a custom AMC table.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AmcModeConfig {
    /// Lowest instantaneous SNR at which the mode is used, dB. Thresholds must increase.
    #[schemars(transform = crate::quantity::ratio)]
    pub min_snr: f64,
    /// Spectral efficiency: information bits per second per hertz (modulation bits per symbol
    /// times code rate), > 0 and not decreasing along the table.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub efficiency: f64,
}

/// The downlink frame's data-carrying fraction of the nominal bits (see [`super::frame`]).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FrameConfig {
    /// No frame overhead: every slot carries e x bandwidth x slot bits (frame efficiency 1).
    #[default]
    Ideal,
    /// An IEEE 802.16e OFDMA (WirelessMAN-OFDMA) TDD frame whose downlink subframe uses PUSC
    /// subchannelisation: the frame efficiency is the downlink's data subcarriers x data
    /// symbols per second over the bandwidth. The defaults are the 10 MHz profile (IEEE Std
    /// 802.16-2009 §8.4.2.3-8.4.2.4, DL PUSC 1024-FFT carrier allocation; WiMAX Forum 5 ms
    /// frame with a 29:18 DL:UL split), efficiency 0.3456 at 10 MHz.
    #[serde(rename = "ieee802_16e_pusc")]
    Ieee80216ePusc {
        /// Sampling factor n (> 0): the sampling rate is floor(n x bandwidth / 8000) x 8000 Hz.
        /// 802.16: 28/25 for bandwidths that are multiples of 1.25, 1.5, 2 or 2.75 MHz (10 MHz),
        /// 8/7 for multiples of 1.75 MHz.
        #[serde(default = "default_sampling_factor")]
        #[schemars(extend("exclusiveMinimum" = 0))]
        sampling_factor: f64,
        /// FFT size N_FFT (>= 1): subcarrier spacing = sampling rate / N_FFT. 1024 at 10 MHz.
        #[serde(default = "default_fft_size")]
        #[schemars(range(min = 1))]
        fft_size: u32,
        /// Cyclic-prefix ratio G, [0, 1): a symbol lasts (1 + G) N_FFT / sampling rate. 1/8.
        #[serde(default = "default_cyclic_prefix")]
        #[schemars(range(min = 0), extend("exclusiveMaximum" = 1))]
        cyclic_prefix: f64,
        /// Frame duration, ns (> 0). 5 ms.
        #[serde(default = "default_frame_duration")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        duration: Time,
        /// Transmit/receive transition gap, ns. 105.714 us (296 physical slots of 4 / 11.2 MHz).
        #[serde(default = "default_ttg")]
        #[schemars(transform = crate::quantity::duration)]
        ttg: Time,
        /// Receive/transmit transition gap, ns. 60 us (168 physical slots).
        #[serde(default = "default_rtg")]
        #[schemars(transform = crate::quantity::duration)]
        rtg: Time,
        /// OFDMA symbols of the downlink subframe, preamble included (>= 1). 29.
        #[serde(default = "default_dl_symbols")]
        #[schemars(range(min = 1))]
        dl_symbols: u32,
        /// OFDMA symbols of the uplink subframe; with `dl_symbols` and the gaps they must fit in
        /// the frame. 18.
        #[serde(default = "default_ul_symbols")]
        ul_symbols: u32,
        /// Preamble symbols opening the downlink subframe. 1.
        #[serde(default = "default_preamble_symbols")]
        preamble_symbols: u32,
        /// Symbols taken by the FCH, DL-MAP and UL-MAP (their size depends on the number of
        /// bursts; an assumption). 4.
        #[serde(default = "default_map_symbols")]
        map_symbols: u32,
        /// Data subcarriers per downlink symbol (>= 1, <= `fft_size`). DL PUSC at 1024 FFT:
        /// 30 subchannels x 24 = 720 (of 840 used; the other 120 are pilots).
        #[serde(default = "default_data_subcarriers")]
        #[schemars(range(min = 1))]
        data_subcarriers: u32,
    },
}

/// Small-scale fading of the per-user channels, one gain per slot (block fading).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SlotFadingConfig {
    /// No fading: every slot sees the mean SNR.
    None,
    /// Rayleigh, independent from slot to slot: an Exp(1) power gain per slot.
    Rayleigh,
    /// Rayleigh with a first-order Gauss-Markov (AR(1)) complex gain whose slot-to-slot
    /// correlation is J0(2 pi f_d T) (Clarke's autocorrelation at one slot lag).
    GaussMarkov {
        /// Maximum Doppler frequency f_d, Hz (>= 0). Paper 002: 128 Hz (ns-2), 20 Hz (fluid).
        #[schemars(transform = crate::quantity::frequency, range(min = 0))]
        doppler: f64,
    },
    /// Rayleigh from a sum of sinusoids with random phases and arrival angles (Zheng & Xiao
    /// 2003): Clarke's autocorrelation J0(2 pi f_d tau) at every lag, not only the first.
    Clarke {
        /// Maximum Doppler frequency f_d, Hz (>= 0).
        #[schemars(transform = crate::quantity::frequency, range(min = 0))]
        doppler: f64,
        /// Number of sinusoids M (>= 1; 8 or more for a Rayleigh-like envelope).
        #[serde(default = "default_sinusoids")]
        #[schemars(range(min = 1, max = 4096))]
        sinusoids: u32,
    },
}

impl Default for SlotFadingConfig {
    fn default() -> Self {
        SlotFadingConfig::GaussMarkov { doppler: 128.0 }
    }
}

/// Slot schedulers (see [`super::scheduler`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SchedulerConfig {
    /// Backlogged users in turn, blind to the channel.
    RoundRobin,
    /// The backlogged user with the highest instantaneous SNR.
    MaxSnr,
    /// The backlogged user with the largest queue length x instantaneous rate.
    MaxWeight,
    /// Paper 002 eq. (10): the largest queue length / average throughput x instantaneous rate
    /// (a queueing-delay estimate times the rate).
    #[default]
    DelayMaxWeight,
    /// M-LWDF (Andrews et al. 2001): the largest head-of-line delay x instantaneous rate /
    /// average throughput.
    Mlwdf,
}

/// What the base station does with a packet that does not fit in the rest of a slot.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ServiceConfig {
    /// Send as much of it as fits and continue in the user's next slot (802.16 MAC
    /// fragmentation, without the fragmentation subheader): every granted byte carries data
    /// while the queue lasts.
    #[default]
    Fragment,
    /// Send whole packets only and leave the rest of the slot unused. A packet larger than the
    /// user's whole budget waits until a slot with a larger budget comes.
    WholePackets,
}

/// Packet erasures decided per served packet after the AMC rate is applied.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErasureConfig {
    /// Paper 004 §IV: each user's packet success probability is `low` or `high`; a state lasts
    /// a duration uniform in [`hold_min`, `hold_max`], after which the next state is drawn,
    /// `low` with probability `low_probability` (it may repeat).
    Bimodal {
        /// Success probability of the bad state, [0, 1].
        #[schemars(transform = crate::quantity::probability)]
        low: f64,
        /// Success probability of the good state, [0, 1]. Paper 004: 1.
        #[schemars(transform = crate::quantity::probability)]
        high: f64,
        /// Probability that a new state is the bad one, [0, 1]. Paper 004: 0.1 and 0.25.
        #[schemars(transform = crate::quantity::probability)]
        low_probability: f64,
        /// Shortest state duration, ns (> 0). Paper 004: 100 ms.
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        hold_min: Time,
        /// Longest state duration, ns (>= `hold_min`). Paper 004: 200 ms.
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        hold_max: Time,
    },
}

impl ErasureConfig {
    /// Checks the parameters; `path` is the erasure block's field path.
    pub fn check(&self, path: &str) -> Result<(), ConfigError> {
        let ErasureConfig::Bimodal {
            low,
            high,
            low_probability,
            hold_min,
            hold_max,
        } = self;
        let err = |field: &str, message: &str| ConfigError {
            path: format!("{path}.{field}"),
            message: message.into(),
        };
        for (field, p) in [
            ("low", low),
            ("high", high),
            ("low_probability", low_probability),
        ] {
            if !(0.0..=1.0).contains(p) {
                return Err(err(field, "must be in [0, 1]"));
            }
        }
        if *hold_min == 0 {
            return Err(err("hold_min", "must be > 0"));
        }
        if hold_max < hold_min {
            return Err(err("hold_max", "must be >= hold_min"));
        }
        Ok(())
    }

    /// The process (checked parameters), drawing from `rng`.
    pub fn erasure(&self, rng: crate::sim::Rng) -> super::erasure::BimodalErasure {
        let ErasureConfig::Bimodal {
            low,
            high,
            low_probability,
            hold_min,
            hold_max,
        } = *self;
        super::erasure::BimodalErasure::new(low, high, low_probability, hold_min, hold_max, rng)
    }
}

fn default_slot() -> Time {
    10_000_000
}
fn default_bandwidth() -> f64 {
    10e6
}
fn default_rate_scale() -> f64 {
    1.0
}
fn default_sampling_factor() -> f64 {
    1.12
}
fn default_fft_size() -> u32 {
    1024
}
fn default_cyclic_prefix() -> f64 {
    0.125
}
fn default_frame_duration() -> Time {
    5_000_000
}
fn default_ttg() -> Time {
    105_714
}
fn default_rtg() -> Time {
    60_000
}
fn default_dl_symbols() -> u32 {
    29
}
fn default_ul_symbols() -> u32 {
    18
}
fn default_preamble_symbols() -> u32 {
    1
}
fn default_map_symbols() -> u32 {
    4
}
fn default_data_subcarriers() -> u32 {
    720
}
fn default_queue_packets() -> u32 {
    2000
}
fn default_average_window() -> u32 {
    256
}
fn default_uplink_rate() -> u64 {
    1_000_000_000
}
fn default_liu_count() -> u32 {
    5
}
fn default_target_per() -> f64 {
    0.01
}
fn default_sinusoids() -> u32 {
    16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_paper_002_ns2_setup() {
        let cfg: DownlinkConfig = serde_json::from_str(
            r#"{"base_station": "bs", "users": [{"node": "ue0", "mean_snr": 12}]}"#,
        )
        .unwrap();
        assert_eq!(cfg.slot, 10_000_000);
        assert_eq!(cfg.bandwidth, 10e6);
        assert!(matches!(cfg.amc, AmcConfig::Ieee80216e));
        assert!(
            matches!(cfg.fading, SlotFadingConfig::GaussMarkov { doppler } if doppler == 128.0)
        );
        assert_eq!(cfg.scheduler, SchedulerConfig::DelayMaxWeight);
        assert_eq!(cfg.queue_packets, 2000);
        assert_eq!(cfg.service, ServiceConfig::Fragment);
        assert_eq!(cfg.average_window, 256);
        assert!(cfg.erasure.is_none());
        // Before frames and MAC overhead were modelled: e x bandwidth x slot x rate_scale bits
        // per slot, a packet of n bytes takes n bytes.
        assert_eq!(cfg.frame, FrameConfig::Ideal);
        assert_eq!((cfg.mac_overhead_bytes, cfg.rate_scale), (0, 1.0));
    }

    #[test]
    fn the_802_16e_frame_defaults_are_the_10_mhz_profile() {
        let frame: FrameConfig = serde_json::from_str(r#"{"kind": "ieee802_16e_pusc"}"#).unwrap();
        assert_eq!(
            frame,
            FrameConfig::Ieee80216ePusc {
                sampling_factor: 1.12,
                fft_size: 1024,
                cyclic_prefix: 0.125,
                duration: 5_000_000,
                ttg: 105_714,
                rtg: 60_000,
                dl_symbols: 29,
                ul_symbols: 18,
                preamble_symbols: 1,
                map_symbols: 4,
                data_subcarriers: 720,
            }
        );
        assert!(serde_json::from_str::<FrameConfig>(
            r#"{"kind": "ieee802_16e_pusc", "symbols": 29}"#
        )
        .is_err());
        assert!(serde_json::from_str::<FrameConfig>(r#"{"kind": "ofdm"}"#).is_err());
    }

    #[test]
    fn tagged_enums_and_unknown_fields() {
        let cfg: DownlinkConfig = serde_json::from_str(
            r#"{"base_station": "bs", "users": [],
                "amc": {"kind": "liu2004"},
                "fading": {"kind": "clarke", "doppler": 20},
                "scheduler": {"kind": "round_robin"},
                "service": "whole_packets",
                "erasure": {"kind": "bimodal", "low": 0.5, "high": 1, "low_probability": 0.1,
                            "hold_min": 100000000, "hold_max": 200000000}}"#,
        )
        .unwrap();
        assert!(matches!(
            cfg.amc,
            AmcConfig::Liu2004 { count: 5, target_per } if target_per == 0.01
        ));
        assert!(matches!(
            cfg.fading,
            SlotFadingConfig::Clarke { sinusoids: 16, .. }
        ));
        assert_eq!(cfg.scheduler, SchedulerConfig::RoundRobin);
        assert_eq!(cfg.service, ServiceConfig::WholePackets);
        let amc: AmcConfig = serde_json::from_str(r#"{"kind": "ieee802_16e"}"#).unwrap();
        assert!(matches!(amc, AmcConfig::Ieee80216e));
        assert!(serde_json::from_str::<DownlinkConfig>(
            r#"{"base_station": "bs", "users": [], "slots": 5}"#
        )
        .is_err());
        assert!(
            serde_json::from_str::<SchedulerConfig>(r#"{"kind": "max_sinr"}"#).is_err(),
            "unknown kind"
        );
        // serde's deny_unknown_fields does not reach the unit variants of an internally tagged
        // enum ({"kind": "max_snr", "x": 1} parses), as for `FadingConfig`; the front end's
        // schema rejects such input before it gets here.
    }
}
