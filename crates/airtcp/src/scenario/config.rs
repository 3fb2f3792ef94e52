//! The normalised scenario configuration the simulator core accepts.
//!
//! The Python front end validates the user's YAML with pydantic models that mirror these serde types
//! field for field, resolves units (durations become integer nanoseconds, rates integer bits per
//! second, sizes integer bytes) and hands the result to the core as JSON. Every struct here denies
//! unknown fields and every enum is internally tagged by `kind`, exactly like the YAML.

use serde::{Deserialize, Serialize};

/// Integer nanoseconds (see [`crate::sim::time`]).
pub type Nanos = u64;

/// A whole scenario: topology, flows and what to measure.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioConfig {
    /// Free-form name, copied to the results.
    pub name: String,
    /// Simulated time to run, ns (> 0).
    pub duration: Nanos,
    /// Master seed; every random stream is derived from it and a component id.
    pub seed: u64,
    /// Node names; their order defines the node ids 0..N-1.
    pub nodes: Vec<String>,
    /// Wired point-to-point links.
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    /// Traffic.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// What to record besides the per-flow totals.
    #[serde(default)]
    pub metrics: MetricsConfig,
}

/// A full-duplex point-to-point link with an independent queue and error process per direction.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// One end (node name). "forward" is from -> to.
    pub from: String,
    /// The other end (node name).
    pub to: String,
    /// Line rate, bits per second (> 0).
    pub rate: u64,
    /// One-way propagation delay, ns.
    pub delay: Nanos,
    /// Queue discipline of each direction's transmit queue.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Optional random packet errors.
    #[serde(default)]
    pub loss: Option<LossConfig>,
}

/// Transmit queue discipline.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// First-in first-out, arrivals dropped when `packets` are already queued.
    Droptail {
        /// Capacity in packets (>= 1). The packet being transmitted does not count.
        packets: u32,
    },
}

impl Default for QueueConfig {
    fn default() -> Self {
        // ns-2's DropTail default limit (queue-limit 50) and ns-3's 100p differ; 100 packets is
        // what the papers' scenarios use.
        QueueConfig::Droptail { packets: 100 }
    }
}

/// Random packet error process of a link.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossConfig {
    /// Each packet is corrupted independently with probability `per`, decided at the receiver
    /// after it has used the link (like ns-3's ReceiveErrorModel).
    Bernoulli {
        /// Packet error rate in [0, 1].
        per: f64,
        /// Which direction(s) suffer the errors.
        #[serde(default)]
        direction: Direction,
    },
    /// Deterministic losses for protocol experiments: the first transmission(s) of the TCP data
    /// segments numbered in `seqs` are lost (a number listed twice loses the first two
    /// transmissions of that segment). Other packets pass. Like ns-3's ReceiveListErrorModel,
    /// but keyed by segment number.
    Segments {
        /// Segment numbers (0-based), repeated to lose retransmissions too.
        seqs: Vec<u64>,
        /// Which direction(s) suffer the losses.
        #[serde(default)]
        direction: Direction,
    },
}

/// Direction(s) of a link an error process applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// from -> to only.
    #[default]
    Forward,
    /// to -> from only.
    Reverse,
    /// Both directions, independently.
    Both,
}

/// One flow: an application over a transport between two nodes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Unique flow name.
    pub id: String,
    /// Sending node.
    pub src: String,
    /// Receiving node.
    pub dst: String,
    /// When the application starts, ns.
    #[serde(default)]
    pub start: Nanos,
    /// When the application stops sending new data, ns; the end of the run if absent.
    #[serde(default)]
    pub stop: Option<Nanos>,
    /// The application.
    pub app: AppConfig,
    /// The transport protocol.
    pub transport: TransportConfig,
}

/// Applications.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Bulk transfer (FTP): always has data, or exactly `bytes` bytes.
    Bulk {
        /// Total bytes to send; unlimited if absent.
        #[serde(default)]
        bytes: Option<u64>,
    },
    /// Constant bit rate source (needs a `udp` transport).
    Cbr {
        /// Application rate, bits per second of payload.
        rate: u64,
        /// Payload bytes per packet.
        packet_size: u32,
    },
}

/// Transports.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransportConfig {
    /// TCP (segment-granular).
    Tcp(TcpConfig),
    /// UDP: no feedback, no retransmission.
    Udp(UdpConfig),
}

/// Congestion control algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// RFC 5681 AIMD; without SACK, ns-2 TCP-Reno loss recovery (a partial ACK ends recovery).
    Reno,
    /// RFC 5681 AIMD; without SACK, RFC 6582 NewReno loss recovery.
    Newreno,
}

/// What the slow-start threshold is halved from at a congestion event. The RFCs, ns-2 and ns-3
/// disagree, and the choice moves goodput under random loss by 20-30 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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

/// TCP parameters. Defaults are listed in `docs/scenario-schema.md`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpConfig {
    /// Congestion control.
    #[serde(default = "default_cc")]
    pub cc: CcKind,
    /// Use the SACK option and RFC 6675 loss recovery.
    #[serde(default = "default_true")]
    pub sack: bool,
    /// Segment payload size, bytes.
    #[serde(default = "default_mss")]
    pub mss: u32,
    /// Bytes of IP + TCP header (+ options) added to each segment and to each pure ACK.
    #[serde(default = "default_tcp_header")]
    pub header_bytes: u32,
    /// Acknowledge every `delayed_ack` full segments (1 = no delayed ACKs).
    #[serde(default = "default_delack")]
    pub delayed_ack: u32,
    /// Delayed-ACK timer, ns.
    #[serde(default = "default_delack_timeout")]
    pub delayed_ack_timeout: Nanos,
    /// Initial congestion window, segments.
    #[serde(default = "default_iw")]
    pub initial_cwnd: u32,
    /// Initial slow-start threshold, segments (unbounded if absent).
    #[serde(default)]
    pub initial_ssthresh: Option<u32>,
    /// Receiver window, bytes.
    #[serde(default = "default_rwnd")]
    pub rwnd: u64,
    /// Duplicate-ACK threshold.
    #[serde(default = "default_dupthresh")]
    pub dupthresh: u32,
    /// What ssthresh is halved from after a loss or timeout.
    #[serde(default)]
    pub ssthresh_basis: SsthreshBasis,
    /// Lower bound of the retransmission timeout, ns (RFC 6298 (2.4): 1 s).
    #[serde(default = "default_min_rto")]
    pub min_rto: Nanos,
    /// Upper bound of the retransmission timeout, ns (RFC 6298 (2.5): at least 60 s).
    #[serde(default = "default_max_rto")]
    pub max_rto: Nanos,
    /// RTO before the first RTT sample, ns (RFC 6298 (2.1): 1 s).
    #[serde(default = "default_initial_rto")]
    pub initial_rto: Nanos,
    /// Clock granularity G of RFC 6298, ns.
    #[serde(default = "default_granularity")]
    pub clock_granularity: Nanos,
}

/// UDP parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpConfig {
    /// Bytes of IP + UDP header added to each datagram.
    #[serde(default = "default_udp_header")]
    pub header_bytes: u32,
}

/// Optional recordings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Bin width of the goodput time series, ns.
    #[serde(default = "default_bin")]
    pub bin: Nanos,
    /// Record every RTT sample of every TCP flow.
    #[serde(default)]
    pub trace_rtt: bool,
    /// Sample cwnd/ssthresh/flight of every TCP flow every `trace_interval`.
    #[serde(default)]
    pub trace_cwnd: bool,
    /// Sampling interval of the cwnd trace, ns.
    #[serde(default = "default_trace_interval")]
    pub trace_interval: Nanos,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            bin: default_bin(),
            trace_rtt: false,
            trace_cwnd: false,
            trace_interval: default_trace_interval(),
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("all TCP fields have defaults")
    }
}

impl Default for UdpConfig {
    fn default() -> Self {
        UdpConfig {
            header_bytes: default_udp_header(),
        }
    }
}

fn default_true() -> bool {
    true
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
fn default_udp_header() -> u32 {
    28
}
fn default_delack() -> u32 {
    2
}
fn default_delack_timeout() -> Nanos {
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
fn default_min_rto() -> Nanos {
    1_000_000_000
}
fn default_max_rto() -> Nanos {
    60_000_000_000
}
fn default_initial_rto() -> Nanos {
    1_000_000_000
}
fn default_granularity() -> Nanos {
    1_000_000
}
fn default_bin() -> Nanos {
    1_000_000_000
}
fn default_trace_interval() -> Nanos {
    100_000_000
}
