//! TCP's configuration: the `transport: {kind: tcp, ...}` block of a scenario (the congestion
//! control, SACK, segment and header sizes, delayed ACKs, windows, RFC 6298's timer bounds, each
//! controller's parameters and the NC layer below it). The scenario composes it
//! (`scenario::config::TransportConfig`); the defaults are listed in docs/scenario-fields.md.

use serde::{Deserialize, Serialize};

use super::cc::default_true;
use crate::error::{positive, ConfigError};
use crate::sim::Time;
use crate::transport::nc_layer::config::NcConfig;
use crate::transport::nc_layer::NcLayer;
use crate::transport::shim::Shim;
use crate::transport::tcp::profile::TcpProfile;

pub use super::cc::registry::{CcKind, CcParams};

/// What the slow-start threshold is halved from at a congestion event. The RFCs, ns-2 and ns-3
/// disagree, and the choice moves goodput under random loss by 20-30 %.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshBasis {
    /// FlightSize, the data sent and not cumulatively acknowledged (RFC 5681 eq. 4, RFC 6675 §5).
    #[default]
    FlightSize,
    /// The congestion window (ns-2's `window()`, Linux's `tcp_reno_ssthresh`).
    Cwnd,
    /// The data believed in the network: RFC 6675 pipe with SACK, FlightSize minus duplicate
    /// ACKs without (ns-3's `BytesInFlight`).
    Pipe,
}

/// How the window is set during fast recovery.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryWindow {
    /// cwnd = ssthresh at once with SACK (RFC 6675); window inflation by duplicate ACKs without
    /// (RFC 6582). ns-3's TcpClassicRecovery.
    #[default]
    Classic,
    /// RFC 9937 Proportional Rate Reduction (SACK only): the reduction spread over the recovery
    /// round trip, cwnd = ssthresh when it ends. Linux's, and ns-3's default recovery.
    Prr,
}

/// TCP parameters. Defaults are listed in `docs/scenario-fields.md`.
///
/// serde does not support `deny_unknown_fields` beside a flattened field (`cc_params`), so an
/// unknown field here is refused by the round trip of `scenario::strict`, which names its path;
/// the schema still says `additionalProperties: false`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TcpConfig {
    /// A named set of settings this block starts from (`linux`: Linux's defaults, see
    /// docs/tcp.md); the block's own fields override it. Absent: the fields' own defaults.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub profile: Option<TcpProfile>,
    /// Congestion control.
    #[serde(default = "default_cc")]
    pub cc: CcKind,
    /// Use the SACK option and RFC 6675 loss recovery.
    #[serde(default = "default_true")]
    pub sack: bool,
    /// Segment payload size, bytes.
    #[serde(default = "default_mss")]
    #[schemars(transform = crate::quantity::size, range(min = 1))]
    pub mss: u32,
    /// Bytes of IP + TCP header (+ options) added to each segment and to each pure ACK.
    #[serde(default = "default_tcp_header")]
    #[schemars(transform = crate::quantity::size)]
    pub header_bytes: u32,
    /// Acknowledge every `delayed_ack` full segments (1 = no delayed ACKs).
    #[serde(default = "default_delack")]
    #[schemars(range(min = 1))]
    pub delayed_ack: u32,
    /// Delayed-ACK timer, ns.
    #[serde(default = "default_delack_timeout")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub delayed_ack_timeout: Time,
    /// Initial congestion window, segments.
    #[serde(default = "default_iw")]
    #[schemars(range(min = 1))]
    pub initial_cwnd: u32,
    /// Initial slow-start threshold, segments (unbounded if absent).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub initial_ssthresh: Option<u32>,
    /// Receiver window, bytes.
    #[serde(default = "default_rwnd")]
    #[schemars(transform = crate::quantity::size, range(min = 1))]
    pub rwnd: u64,
    /// Duplicate-ACK threshold.
    #[serde(default = "default_dupthresh")]
    #[schemars(range(min = 1))]
    pub dupthresh: u32,
    /// What ssthresh is halved from after a loss or timeout.
    #[serde(default)]
    pub ssthresh_basis: SsthreshBasis,
    /// How the window is set during fast recovery (`prr` needs `sack`).
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub recovery: RecoveryWindow,
    /// RACK-TLP loss detection (RFC 8985, as Linux runs it; needs `sack`): a segment is deemed
    /// lost once a segment sent after it has been delivered and an RTT plus a reordering window
    /// has passed since it was sent, instead of after `dupthresh` duplicate ACKs or SACKed
    /// segments, and a Tail Loss Probe sends one segment 2 SRTT after the last ACK, so that a
    /// loss at the end of a flight is repaired without a retransmission timeout.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub rack_tlp: bool,
    /// Pace transmissions at Linux's rate (2 x cwnd / srtt in slow start, 1.2 x in congestion
    /// avoidance) for a controller without a rate of its own; BBR always paces at its own.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub pacing: bool,
    /// Lower bound of the retransmission timeout, ns (RFC 6298 (2.4): 1 s).
    #[serde(default = "default_min_rto")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub min_rto: Time,
    /// Upper bound of the retransmission timeout, ns (RFC 6298 (2.5): at least 60 s).
    #[serde(default = "default_max_rto")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub max_rto: Time,
    /// RTO before the first RTT sample, ns (RFC 6298 (2.1): 1 s).
    #[serde(default = "default_initial_rto")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub initial_rto: Time,
    /// Clock granularity G of RFC 6298, ns.
    #[serde(default = "default_granularity")]
    #[schemars(transform = crate::quantity::duration)]
    pub clock_granularity: Time,
    /// The controllers' parameter blocks (`cubic`, `vegas`, ...), one per controller that takes
    /// parameters (`cc::registry`); flattened, so that they sit in the TCP block itself.
    #[serde(flatten)]
    pub cc_params: CcParams,
    /// The NC layer of paper 000 §4.1.3 between this TCP and the network (absent: none).
    #[serde(default)]
    pub nc: Option<NcConfig>,
}

impl TcpConfig {
    /// The shim between this TCP and the network (`transport::shim`) that the configuration asks
    /// for, if any, for flow `index` (0-based, scenario order) of a run with master seed `seed`:
    /// today only paper 000's NC layer (`nc`), whose coefficients come from the flow's own random
    /// stream.
    pub fn shim(&self, seed: u64, index: usize) -> Option<Box<dyn Shim>> {
        let nc = self.nc.as_ref()?;
        Some(Box::new(NcLayer::for_flow(
            nc,
            self.header_bytes,
            seed,
            index,
        )))
    }

    /// The checks of the shim's block, `p` being the path of this TCP block
    /// (`flows[0].transport`).
    pub fn check_shim(&self, p: &str) -> Result<(), ConfigError> {
        match &self.nc {
            Some(nc) => nc.check(&format!("{p}.nc")),
            None => Ok(()),
        }
    }

    /// Bytes the shim may keep per segment of the window, for the memory budget
    /// (`scenario::budget`): 0 without a shim.
    pub fn shim_bytes_per_segment(&self) -> u64 {
        self.nc.as_ref().map_or(0, NcLayer::bytes_per_segment)
    }
}

fn default_cc() -> CcKind {
    CcKind::Newreno
}

fn default_mss() -> u32 {
    1000
}

fn default_tcp_header() -> u32 {
    40
}

fn default_delack() -> u32 {
    2
}

fn default_delack_timeout() -> Time {
    200_000_000
}

fn default_iw() -> u32 {
    10
}

fn default_rwnd() -> u64 {
    1 << 20
}

fn default_dupthresh() -> u32 {
    3
}

fn default_min_rto() -> Time {
    1_000_000_000
}

fn default_max_rto() -> Time {
    60_000_000_000
}

fn default_initial_rto() -> Time {
    1_000_000_000
}

fn default_granularity() -> Time {
    1_000_000
}

impl TcpConfig {
    /// Checks the values serde cannot: the whole numbers that must be positive, the windows and
    /// timers against each other, the shim, and each controller's parameter block (only beside
    /// its own `cc`, every value in range), worded as the Python front end words them; `p` is the
    /// block's path (`flows[0].transport`).
    pub fn check(&self, p: &str) -> Result<(), ConfigError> {
        let t = self;
        positive(format!("{p}.mss"), t.mss as u64)?;
        positive(format!("{p}.delayed_ack"), t.delayed_ack as u64)?;
        positive(format!("{p}.initial_cwnd"), t.initial_cwnd as u64)?;
        positive(format!("{p}.dupthresh"), t.dupthresh as u64)?;
        positive(format!("{p}.min_rto"), t.min_rto)?;
        if t.rwnd < t.mss as u64 {
            return Err(ConfigError::new(
                format!("{p}.rwnd"),
                "the receiver window must hold at least one segment",
            ));
        }
        if t.max_rto < t.min_rto {
            return Err(ConfigError::new(
                format!("{p}.max_rto"),
                "must not be smaller than min_rto",
            ));
        }
        if t.recovery == RecoveryWindow::Prr && !t.sack {
            return Err(ConfigError::new(
                format!("{p}.recovery"),
                "prr needs sack: true (PRR counts the data each ACK delivers from SACK blocks)",
            ));
        }
        if t.rack_tlp && !t.sack {
            return Err(ConfigError::new(
                format!("{p}.rack_tlp"),
                "rack_tlp needs sack: true (RACK judges each segment by the SACK blocks that report \
                 the segments sent after it)",
            ));
        }
        if t.initial_ssthresh == Some(0) {
            return Err(ConfigError::new(
                format!("{p}.initial_ssthresh"),
                "must be greater than zero",
            ));
        }
        t.check_shim(p)?;
        t.cc_params.check(t.cc, p)
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all TCP fields have defaults")
    }
}
