//! The radio of every placed node (`radio:`): standard, rates, powers, propagation, fading, the
//! MAC's profile and rate control; and the extra error processes on chosen links (`link_errors:`).
//! The PHY's and the MAC's own config types live beside their models (`phy::config`, `mac::config`).

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

pub use crate::mac::block_ack::AggregationConfig;
pub use crate::mac::rate::RateControlConfig;
pub use crate::phy::ht::HtConfig;

use super::{
    default_one, AckRate, Direction, ErrorProcessConfig, FadingConfig, MacProfile, Nanos, Preamble,
    PropagationConfig, QueueConfig, ReceptionModel,
};

/// Wireless standards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Standard {
    /// IEEE 802.11b DSSS/CCK (1, 2, 5.5, 11 Mbps).
    #[serde(rename = "802.11b")]
    Dot11b,
    /// IEEE 802.11a OFDM (6, 9, 12, 18, 24, 36, 48, 54 Mbps) in 20 MHz channels at 5 GHz.
    #[serde(rename = "802.11a")]
    Dot11a,
    /// IEEE 802.11n HT: MCS 0-7 (one spatial stream) in 20 or 40 MHz channels at 5 or 2.4 GHz
    /// (`radio.ht`), with 802.11a's OFDM rates for control frames and broadcasts.
    #[serde(rename = "802.11n")]
    Dot11n,
}

impl Standard {
    /// The rates the standard offers, bit/s, lowest first (802.11n: MCS 0-7 in a 20 MHz channel
    /// with the long guard interval; [`RadioConfig::data_rates`] has a radio's own).
    pub fn rates(self) -> Vec<u64> {
        match self {
            Standard::Dot11b => crate::mac::timing::DOT11B_RATES.to_vec(),
            Standard::Dot11a => crate::phy::ofdm::RATES.to_vec(),
            Standard::Dot11n => HtConfig::default().rates().to_vec(),
        }
    }

    /// The slot time, ns (802.11n: at 5 GHz).
    pub fn slot(self) -> crate::sim::Time {
        match self {
            Standard::Dot11b => crate::mac::timing::DOT11B_SLOT,
            Standard::Dot11a | Standard::Dot11n => crate::mac::timing::DOT11A_SLOT,
        }
    }

    /// The name scenarios use.
    pub fn name(self) -> &'static str {
        match self {
            Standard::Dot11b => "802.11b",
            Standard::Dot11a => "802.11a",
            Standard::Dot11n => "802.11n",
        }
    }

    /// Receive (lock) threshold when the scenario gives none, dBm: ns-2's 250-m two-ray threshold
    /// for 802.11b; for 802.11a the minimum sensitivity of the 6 Mbps mode in 20 MHz
    /// (IEEE 802.11-2016 Table 17-18), which is also the CCA threshold for a detected preamble.
    pub fn default_rx_threshold(self) -> f64 {
        match self {
            Standard::Dot11b => default_rx_threshold(),
            Standard::Dot11a | Standard::Dot11n => -82.0,
        }
    }

    /// Carrier-sense (energy) threshold when the scenario gives none, dBm: ns-2's for 802.11b;
    /// for 802.11a the energy-detect CCA threshold of §17.3.10.6 (-62 dBm, ns-3's
    /// `CcaEdThreshold`).
    pub fn default_cs_threshold(self) -> f64 {
        match self {
            Standard::Dot11b => default_cs_threshold(),
            Standard::Dot11a | Standard::Dot11n => -62.0,
        }
    }

    /// Noise power when the scenario gives none, dBm: thermal noise kTB at 290 K in the
    /// standard's bandwidth (22 MHz DSSS, 20 MHz OFDM) plus a 7 dB noise figure (ns-3's
    /// `RxNoiseFigure`). An 802.11n radio in a 40 MHz channel adds 3.01 dB
    /// ([`RadioConfig::noise_dbm`]).
    pub fn default_noise(self) -> f64 {
        match self {
            Standard::Dot11b => default_noise(),
            Standard::Dot11a | Standard::Dot11n => -93.97,
        }
    }

    /// The rate of ACKs when the scenario gives none: the basic rate for 802.11b (ns-2's), the
    /// highest mandatory rate not above the data rate for 802.11a (IEEE 802.11-2016 §10.6.6.5.2).
    pub fn default_ack_rate(self) -> AckRate {
        match self {
            Standard::Dot11b => AckRate::Basic,
            Standard::Dot11a | Standard::Dot11n => AckRate::Control,
        }
    }

    /// The PLCP preamble when the scenario gives none: long for 802.11b; 802.11a has no DSSS
    /// preamble to choose.
    pub fn default_preamble(self) -> Option<Preamble> {
        match self {
            Standard::Dot11b => Some(Preamble::default()),
            Standard::Dot11a | Standard::Dot11n => None,
        }
    }

    /// The MSDU lifetime when the scenario gives none: for ever, but for 802.11n, whose Block
    /// Ack agreements retry an MPDU until it ends (ns-3's `WifiMacQueue::MaxDelay`, 500 ms).
    pub fn default_msdu_lifetime(self) -> Option<Nanos> {
        match self {
            Standard::Dot11n => Some(500_000_000),
            _ => None,
        }
    }

    /// Every standard, in the order the schema lists them.
    pub const ALL: [Standard; 3] = [Standard::Dot11b, Standard::Dot11a, Standard::Dot11n];
}

/// What one draw of `radio.frame_error` covers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FrameErrorMode {
    /// Each frame at each receiver, independently.
    #[default]
    PerFrame,
    /// Each exchange between a sender and its addressee (overhearers still draw per frame).
    PerExchange,
}

/// The radio (PHY and 802.11 DCF MAC) of every wireless node.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// The standard.
    pub standard: Standard,
    /// Rate of data frames, bit/s (one of the standard's rates; 802.11n: an MCS 0-7 rate at the
    /// radio's channel width and guard interval, as the standard tabulates it, e.g. 65 Mbit/s
    /// for MCS 7 in 20 MHz).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub data_rate: u64,
    /// Rate of control frames (RTS, CTS; ACKs under `ack_rate: basic`) and broadcasts, bit/s
    /// (802.11n: a non-HT OFDM rate).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub basic_rate: u64,
    /// Use RTS/CTS before unicast data frames.
    #[serde(default)]
    pub rts_cts: bool,
    /// Path loss.
    pub propagation: PropagationConfig,
    /// Fading on top of the path loss.
    #[serde(default)]
    pub fading: FadingConfig,
    /// Transmit power, dBm (ns-2's 0.28183815 W).
    #[serde(default = "default_tx_power")]
    #[schemars(transform = crate::quantity::power)]
    pub tx_power: f64,
    /// Weakest signal a radio locks onto (receive threshold), dBm; absent: the standard's
    /// ([`Standard::default_rx_threshold`]; 802.11b: ns-2's 3.652e-10 W, 250 m with two-ray
    /// ground). Read it through [`RadioConfig::rx_threshold_dbm`].
    #[serde(default)]
    #[schemars(transform = crate::quantity::power)]
    #[schemars(extend("x-omit-default" = true))]
    pub rx_threshold: Option<f64>,
    /// Energy that makes the medium busy (carrier sense threshold), dBm; absent: the standard's
    /// (802.11b: ns-2's 1.559e-11 W, 550 m with two-ray ground).
    #[serde(default)]
    #[schemars(transform = crate::quantity::power)]
    #[schemars(extend("x-omit-default" = true))]
    pub cs_threshold: Option<f64>,
    /// A frame survives interference while its power exceeds the sum of the others by this
    /// ratio, dB (ns-2's CPThresh).
    #[serde(default = "default_capture")]
    #[schemars(transform = crate::quantity::ratio)]
    pub capture_threshold: f64,
    /// How a locked frame fares against interference.
    #[serde(default)]
    pub reception: ReceptionModel,
    /// Rate of ACK frames; absent: `basic` for 802.11b, `control` for 802.11a.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub ack_rate: Option<AckRate>,
    /// Noise power in the channel, dBm; absent: the standard's (thermal noise in 22 or 20 MHz
    /// plus a 7 dB noise figure).
    #[serde(default)]
    #[schemars(transform = crate::quantity::power)]
    #[schemars(extend("x-omit-default" = true))]
    pub noise: Option<f64>,
    /// PLCP preamble (802.11b only; absent: long).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub preamble: Option<Preamble>,
    /// How each link's data rate is chosen.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub rate_control: RateControlConfig,
    /// The HT PHY (802.11n only; absent: 5 GHz, 20 MHz, long guard interval).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub ht: Option<HtConfig>,
    /// A-MPDU aggregation under Block Ack (802.11n only; absent: 65,535 bytes and 64 MPDUs,
    /// ns-3's defaults; `max_ampdu_bytes: 0` turns it off).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub aggregation: Option<AggregationConfig>,
    /// Data rates set by hand on given links, after rate control (for tests and for scenarios
    /// that pin rates, such as paper 003's Fig. 1).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub link_rates: Vec<LinkRateConfig>,
    /// Interface queue of each radio (ns-2's IFQ: drop-tail 50).
    #[serde(default = "default_ifq")]
    pub queue: QueueConfig,
    /// Retry limit of frames sent without RTS (and of RTS frames).
    #[serde(default = "default_short_retry")]
    pub short_retry_limit: u32,
    /// Retry limit of data frames sent after RTS/CTS.
    #[serde(default = "default_long_retry")]
    pub long_retry_limit: u32,
    /// Bytes the MAC adds to a network packet: 24 header + 4 FCS + 8 LLC/SNAP.
    #[serde(default = "default_mac_overhead")]
    #[schemars(transform = crate::quantity::size)]
    pub mac_overhead: u32,
    /// Channel of every radio not given others in `node_channels`. Channels are orthogonal:
    /// radios on different channels neither hear nor disturb each other.
    #[serde(default = "default_one")]
    pub channel: u32,
    /// Placed nodes with radios of their own: one radio per listed channel (distinct), in
    /// order (e.g. a bridge between two halves of a network on channels 1 and 6).
    #[serde(default)]
    #[schemars(transform = crate::quantity::node_name)]
    pub node_channels: BTreeMap<String, Vec<u32>>,
    /// Probability that a frame is lost at a receiver, independently per frame and receiver,
    /// after the radio's own decision, on every pair of radios without a `link_errors` entry and
    /// for every frame kind (paper 001's "average loss 15 %" on every link); 0: none.
    #[serde(default)]
    #[schemars(transform = crate::quantity::probability)]
    #[schemars(extend("x-omit-default" = true))]
    pub frame_error: f64,
    /// What one `frame_error` draw covers: every frame at every receiver (`per_frame`), or, at
    /// the addressee, a whole exchange (`per_exchange`: the RTS, or the data frame sent without
    /// one, is drawn for; the CTS, the data after it and the ACK are not, so the exchange fails
    /// with probability `frame_error` as under GloMoSim's fading, whose replies reuse the fade
    /// of the frame they answer).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub frame_error_mode: FrameErrorMode,
    /// Time from the first energy of a frame reaching a radio to the radio reporting the medium
    /// busy (its clear-channel assessment, or preamble detection), ns: two stations whose backoff
    /// ends within it of each other both transmit. 4 us is ns-3's `PreambleDetectionDuration`
    /// and the OFDM aCCATime bound (IEEE 802.11-2016 17.4.4); 0 senses a frame the instant it
    /// arrives, as ns-2 and GloMoSim do.
    #[serde(default = "default_cca_time")]
    #[schemars(transform = crate::quantity::duration)]
    pub cca_time: Nanos,
    /// Weakest signal a radio processes at all under `reception: sinr`, dBm: weaker ones neither
    /// lock it nor add to its interference (ns-3's `RxSensitivity`). Under `capture` the floor
    /// is the lower of the receive and carrier-sense thresholds, as ns-2 drops what it cannot
    /// sense.
    #[serde(default = "default_rx_sensitivity")]
    #[schemars(transform = crate::quantity::power)]
    pub rx_sensitivity: f64,
    /// How long a packet may wait in a radio's interface queue before it is dropped (`expired`)
    /// instead of sent, ns: 802.11's dot11MaxTransmitMSDULifetime, ns-3's
    /// `WifiMacQueue::MaxDelay` (500 ms). Absent: for ever, as ns-2's interface queue; for
    /// 802.11n ns-3's 500 ms, which also ends the MPDUs a Block Ack agreement retries (they
    /// have no retry limit).
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    #[schemars(extend("x-omit-default" = true))]
    pub msdu_lifetime: Option<Nanos>,
    /// Whose DCF rules the radios follow where implementations differ: `standard` (IEEE
    /// 802.11-2016 as ns-3 models it), `ns2` or `glomosim` (the papers' simulators).
    #[serde(default)]
    pub mac: MacProfile,
}

impl RadioConfig {
    /// The receive threshold, dBm.
    pub fn rx_threshold_dbm(&self) -> f64 {
        self.rx_threshold
            .unwrap_or_else(|| self.standard.default_rx_threshold())
    }

    /// The carrier-sense threshold, dBm.
    pub fn cs_threshold_dbm(&self) -> f64 {
        self.cs_threshold
            .unwrap_or_else(|| self.standard.default_cs_threshold())
    }

    /// The noise power, dBm: the standard's in a 20 MHz channel, 3.01 dB more in a 40 MHz one.
    pub fn noise_dbm(&self) -> f64 {
        self.noise.unwrap_or_else(|| {
            let wide = self.ht_phy().is_some_and(|ht| ht.channel_width.mhz() == 40);
            self.standard.default_noise() + if wide { 10.0 * 2f64.log10() } else { 0.0 }
        })
    }

    /// The MSDU lifetime, ns (`None`: for ever).
    pub fn lifetime(&self) -> Option<Nanos> {
        self.msdu_lifetime
            .or_else(|| self.standard.default_msdu_lifetime())
    }

    /// The aggregation of an 802.11n radio (`None`: off, and for the other standards).
    pub fn aggregation_params(&self) -> Option<crate::mac::block_ack::AggregationParams> {
        match self.standard {
            Standard::Dot11n => self.aggregation.unwrap_or_default().params(),
            _ => None,
        }
    }

    /// The HT PHY of an 802.11n radio (the block's, or the defaults); `None` for the others.
    pub fn ht_phy(&self) -> Option<HtConfig> {
        (self.standard == Standard::Dot11n).then(|| self.ht.unwrap_or_default())
    }

    /// The rates data frames may go at, bit/s, lowest first: the standard's, or an 802.11n
    /// radio's MCS 0-7 at its width and guard interval.
    pub fn data_rates(&self) -> Vec<u64> {
        match self.ht_phy() {
            Some(ht) => ht.rates().to_vec(),
            None => self.standard.rates(),
        }
    }

    /// The rates control frames and broadcasts may go at, bit/s: the standard's, or for
    /// 802.11n the 802.11a rates the HT error model has curves for (all but 9 Mbit/s) that no
    /// HT rate of the radio shares (54 Mbit/s is MCS 3 at 40 MHz with the long guard interval).
    pub fn basic_rates(&self) -> Vec<u64> {
        match self.ht_phy() {
            Some(ht) => crate::phy::ofdm::RATES
                .iter()
                .copied()
                .filter(|&r| r != 9_000_000 && ht.mode_of(r).is_none())
                .collect(),
            None => self.standard.rates(),
        }
    }

    /// The ACK rate rule.
    pub fn ack_rule(&self) -> AckRate {
        self.ack_rate
            .unwrap_or_else(|| self.standard.default_ack_rate())
    }
}

/// A data rate set by hand on one link.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkRateConfig {
    /// One end.
    #[schemars(transform = crate::quantity::node_name)]
    pub from: String,
    /// The other end.
    #[schemars(transform = crate::quantity::node_name)]
    pub to: String,
    /// Which direction(s) the rate applies to; both unless given.
    #[serde(default = "default_both")]
    pub direction: Direction,
    /// The rate, bit/s (one of the standard's).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub rate: u64,
}

fn default_both() -> Direction {
    Direction::Both
}

/// An extra error process on a wireless link.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkErrorConfig {
    /// Transmitting node.
    #[schemars(transform = crate::quantity::node_name)]
    pub from: String,
    /// Receiving node.
    #[schemars(transform = crate::quantity::node_name)]
    pub to: String,
    /// `forward` (from -> to), `reverse` or `both`.
    #[serde(default)]
    pub direction: Direction,
    /// The process.
    pub error: ErrorProcessConfig,
}

fn default_tx_power() -> f64 {
    // 10 log10(281.83815 mW)
    24.499998
}

fn default_rx_threshold() -> f64 {
    // 10 log10(3.652e-7 mW)
    -64.374692
}

fn default_cs_threshold() -> f64 {
    // 10 log10(1.559e-8 mW)
    -78.071539
}

fn default_capture() -> f64 {
    10.0
}

fn default_noise() -> f64 {
    // -174 dBm/Hz + 10 log10(22 MHz) + 7 dB
    -93.58
}

fn default_ifq() -> QueueConfig {
    QueueConfig::Droptail { packets: 50 }
}

fn default_short_retry() -> u32 {
    7
}

fn default_long_retry() -> u32 {
    4
}

fn default_mac_overhead() -> u32 {
    36
}

fn default_cca_time() -> Nanos {
    4_000
}

fn default_rx_sensitivity() -> f64 {
    -101.0
}
