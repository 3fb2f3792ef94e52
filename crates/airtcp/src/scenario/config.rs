//! The normalised scenario configuration the simulator core accepts.
//!
//! These types (with the config types each layer keeps beside its model) are the scenario format's
//! one description: `scenario::schema` generates its JSON Schema from them, doc comments included.
//! The Python front end reads the user's YAML against it, resolves units (durations become integer
//! nanoseconds, rates integer bits per second, sizes integer bytes) and hands the result to the
//! core as JSON. Every struct here denies unknown fields and every enum is internally tagged by
//! `kind`, exactly like the YAML. A field holding a quantity names it for the schema
//! (`#[schemars(transform = crate::quantity::duration)]`), with its range in base units.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
pub use crate::mac::config::{AckRate, MacProfile, Preamble};
pub use crate::net::backpressure::config::{
    BackpressureConfig, BpDifferentialConfig, BpLossEstimateConfig, BpNextHopsConfig,
    BpSelectionConfig,
};
pub use crate::net::forwarding::cope::config::{
    CodingConfig, CodingKnowledge, CodingQueue, CodingRecovery, CodingScheme,
};
use crate::net::forwarding::{Fifo, Forwarding, LayerSetup, RadioBasics, Surroundings};
pub use crate::net::horizon::config::{
    HorizonConfig, HzMacConfig, HzNextHopConfig, HzPriceConfig, HzRefreshPriorityConfig,
    HzReorderConfig, HzSignalConfig,
};
use crate::net::routing::default_min_delivery;
pub use crate::net::routing::RouteMetric;
use crate::net::{backpressure, horizon};
pub use crate::phy::config::{ErrorProcessConfig, FadingConfig, PropagationConfig, ReceptionModel};
pub use crate::transport::nc_layer::config::{NcBlock, NcConfig};
use crate::transport::shim::Shim;
pub use crate::transport::tcp::cc::compound::CompoundParams;
pub use crate::transport::tcp::cc::cubic::CubicParams;
pub use crate::transport::tcp::cc::fast::FastParams;
pub use crate::transport::tcp::cc::quic_tcp::{QuicCadence, QuicTcpParams};
pub use crate::transport::tcp::cc::vegas::VegasParams;
pub use crate::transport::tcp::config::{CcKind, SsthreshBasis, TcpConfig};

/// Integer nanoseconds (see [`crate::sim::time`]).
pub type Nanos = u64;

/// A whole scenario: topology, flows and what to measure.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioConfig {
    /// Free-form name, copied to the results; a file without one is named after the file.
    #[serde(default = "default_scenario_name")]
    pub name: String,
    /// Simulated time to run, ns (> 0).
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub duration: Nanos,
    /// Master seed; every random stream is derived from it and a component id. A fixed default
    /// keeps runs reproducible when none is given.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Names of nodes without a position (wired-only nodes). Node ids: these first, in order,
    /// then the nodes `topology` places.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Wireless nodes and their positions, generated or explicit.
    #[serde(default)]
    pub topology: Option<TopologyConfig>,
    /// The radio of every node `topology` places (required with a topology).
    #[serde(default)]
    pub radio: Option<RadioConfig>,
    /// Extra packet-error processes on chosen wireless links.
    #[serde(default)]
    pub link_errors: Vec<LinkErrorConfig>,
    /// How routes are found.
    #[serde(default)]
    pub routing: RoutingConfig,
    /// The inter-session coding layer at the relays (paper 001: COPE, or NCAQM's queue;
    /// docs/cope.md); absent: none.
    #[serde(default)]
    pub coding: Option<CodingConfig>,
    /// Nodes that fail during the run.
    #[serde(default)]
    pub failures: Vec<FailureConfig>,
    /// Wired point-to-point links.
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    /// A base station's slotted downlink to users (papers 002, 004), if any.
    #[serde(default)]
    pub downlink: Option<crate::mac::downlink::DownlinkConfig>,
    /// Wireless routers: packet-level shared downlinks to users (paper 004).
    #[serde(default)]
    pub routers: Vec<super::routers::RouterConfig>,
    /// Traffic.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// What to record besides the per-flow totals.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Resource limits of the run.
    #[serde(default)]
    pub limits: LimitsConfig,
}

fn default_scenario_name() -> String {
    "scenario".into()
}

fn default_seed() -> u64 {
    1
}

/// Resource limits of a run (see `scenario::budget`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Memory budget, bytes: a scenario whose allocations would exceed it is refused, and a run
    /// that outgrows it stops with an error.
    #[serde(default = "default_memory_limit")]
    #[schemars(transform = crate::quantity::size, range(min = 1))]
    pub memory: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            memory: default_memory_limit(),
        }
    }
}

fn default_memory_limit() -> u64 {
    4 << 30
}

/// A full-duplex point-to-point link with an independent queue and error process per direction.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// One end (node name). "forward" is from -> to.
    pub from: String,
    /// The other end (node name).
    pub to: String,
    /// Line rate, bits per second (> 0).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub rate: u64,
    /// One-way propagation delay, ns.
    #[schemars(transform = crate::quantity::duration)]
    pub delay: Nanos,
    /// A random part added to `delay`: uniform in [0, `delay_spread`), drawn once per run from the
    /// seed (stream `link/{i}/delay`), the same both ways; 0: none.
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration)]
    pub delay_spread: Nanos,
    /// Queue discipline of each direction's transmit queue.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Optional random packet errors.
    #[serde(default)]
    pub loss: Option<LossConfig>,
}

/// Transmit queue discipline.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// First-in first-out, arrivals dropped when `packets` are already queued.
    Droptail {
        /// Capacity in packets (>= 1). The packet being transmitted does not count.
        #[schemars(range(min = 1))]
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
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossConfig {
    /// Each packet is corrupted independently with probability `per`, decided at the receiver
    /// after it has used the link (like ns-3's ReceiveErrorModel).
    Bernoulli {
        /// Packet error rate in [0, 1].
        #[schemars(transform = crate::quantity::probability)]
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
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
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
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
    #[schemars(transform = crate::quantity::duration)]
    pub start: Nanos,
    /// A random delay added to `start`, uniform in [0, start_jitter), ns, drawn per seed from
    /// the flow's own stream ("flows start at random times within the first 5 s").
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration)]
    pub start_jitter: Nanos,
    /// When the application stops sending new data, ns; the end of the run if absent.
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration)]
    pub stop: Option<Nanos>,
    /// The application.
    pub app: AppConfig,
    /// The transport protocol.
    pub transport: TransportConfig,
    /// The paths the flow's packets follow (`net::flow_paths`); absent: the routes.
    #[serde(default)]
    pub paths: Option<PathsConfig>,
}

/// A flow's paths (`net::flow_paths`, docs/scenario-schema.md#flow-paths): its packets are pinned
/// to them, round robin, and follow them hop by hop under static routing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PathsConfig {
    /// Paths given as node lists.
    Explicit {
        /// Each from the flow's source to its destination, consecutive nodes linked (a wired
        /// link, the downlink, or radios in range), no node twice; 1 to 255 paths.
        paths: Vec<Vec<String>>,
        /// How packets from the destination back to the source travel.
        #[serde(default)]
        reverse: ReverseConfig,
    },
    /// The `k` node-disjoint paths of least total weight (`net::paths::node_disjoint_paths`).
    Disjoint {
        /// How many paths (1 to 255); fewer existing is an error.
        #[schemars(range(min = 1, max = 255))]
        k: u32,
        /// Weight of a link: one per hop, its ETX or its ETT (as static routing weighs it).
        #[serde(default)]
        metric: RouteMetric,
        /// How packets from the destination back to the source travel.
        #[serde(default)]
        reverse: ReverseConfig,
    },
}

impl PathsConfig {
    /// How the flow's packets going back travel.
    pub fn reverse(&self) -> ReverseConfig {
        match self {
            PathsConfig::Explicit { reverse, .. } | PathsConfig::Disjoint { reverse, .. } => {
                *reverse
            }
        }
    }
}

/// How the packets of a flow with paths travel from its destination back to its source (TCP's
/// ACKs, a shim's packets from the destination).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ReverseConfig {
    /// Along the flow's paths reversed, pinned round robin like the packets forward.
    #[default]
    Paths,
    /// By the routing table, like the packets of a flow without paths.
    Routes,
}

/// Applications.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Bulk transfer (FTP): always has data, or exactly `bytes` bytes.
    Bulk {
        /// Total bytes to send; unlimited if absent.
        #[serde(default)]
        #[schemars(transform = crate::quantity::size, range(min = 1))]
        bytes: Option<u64>,
    },
    /// Constant bit rate source (needs a `udp` transport).
    Cbr {
        /// Application rate, bits per second of payload.
        #[schemars(transform = crate::quantity::rate, range(min = 1))]
        rate: u64,
        /// Payload bytes per packet.
        #[schemars(transform = crate::quantity::size, range(min = 1))]
        packet_size: u32,
    },
    /// Poisson source: exponential gaps, mean rate `rate` (needs a `udp` transport).
    Poisson {
        /// Mean application rate, bits per second of payload.
        #[schemars(transform = crate::quantity::rate, range(min = 1))]
        rate: u64,
        /// Payload bytes per packet.
        #[schemars(transform = crate::quantity::size, range(min = 1))]
        packet_size: u32,
    },
    /// Paper 000's flow controller for non-TCP flows (eq. 5; needs a `udp` transport): every
    /// `slot` the rate becomes argmax M g(x) - U x, at most `r_max`, where U is the flow's
    /// backlog at its source.
    Utility {
        /// Payload bytes per packet.
        #[schemars(transform = crate::quantity::size, range(min = 1))]
        packet_size: u32,
        /// R_max, bits per second of payload.
        #[schemars(transform = crate::quantity::rate, range(min = 1))]
        r_max: u64,
        /// M, the weight of utility against backlog (> 0).
        #[schemars(extend("exclusiveMinimum" = 0))]
        m: f64,
        /// g, the utility of the rate.
        #[serde(default)]
        utility: UtilityConfig,
        /// Decision interval, ns.
        #[serde(default = "default_utility_slot")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        slot: Nanos,
    },
}

impl AppConfig {
    /// The `kind` tag, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            AppConfig::Bulk { .. } => "bulk",
            AppConfig::Cbr { .. } => "cbr",
            AppConfig::Poisson { .. } => "poisson",
            AppConfig::Utility { .. } => "utility",
        }
    }
}

/// Utility function of a flow-controlled source.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum UtilityConfig {
    /// g(x) = log x (proportional fairness; paper 000's choice in §5).
    #[default]
    Log,
    /// g(x) = x^(1-alpha) / (1-alpha).
    AlphaFair {
        /// Fairness parameter, > 0.
        #[schemars(extend("exclusiveMinimum" = 0))]
        alpha: f64,
    },
}

/// Transports. (TCP's parameter blocks make its variant large; a configuration is parsed once
/// per run, so boxing it would buy nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransportConfig {
    /// TCP (segment-granular).
    Tcp(TcpConfig),
    /// UDP: no feedback, no retransmission.
    Udp(UdpConfig),
    /// TCP-RLC (paper 004): TCP with feed-forward random linear coding.
    TcpRlc(crate::transport::tcp_rlc::config::TcpRlcConfig),
}

/// UDP parameters.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpConfig {
    /// Bytes of IP + UDP header added to each datagram.
    #[serde(default = "default_udp_header")]
    #[schemars(transform = crate::quantity::size)]
    pub header_bytes: u32,
}

/// Optional recordings.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Bin width of the goodput time series, ns.
    #[serde(default = "default_bin")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub bin: Nanos,
    /// Record every RTT sample of every TCP flow.
    #[serde(default)]
    pub trace_rtt: bool,
    /// Sample cwnd/ssthresh/flight of every TCP flow every `trace_interval`.
    #[serde(default)]
    pub trace_cwnd: bool,
    /// Sample the occupancy of every queue every `trace_interval`.
    #[serde(default)]
    pub trace_queues: bool,
    /// Sampling interval of the cwnd and queue traces, ns.
    #[serde(default = "default_trace_interval")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub trace_interval: Nanos,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            bin: default_bin(),
            trace_rtt: false,
            trace_cwnd: false,
            trace_queues: false,
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

fn default_utility_slot() -> Nanos {
    10_000_000
}
fn default_true() -> bool {
    true
}
fn default_udp_header() -> u32 {
    28
}
fn default_bin() -> Nanos {
    1_000_000_000
}
fn default_trace_interval() -> Nanos {
    100_000_000
}

/// Placement of wireless nodes. Generated nodes are named `n0..n{N-1}` (row-major for grids);
/// distances are metres.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologyConfig {
    /// Named nodes at given coordinates.
    Explicit {
        /// The nodes.
        #[schemars(length(min = 1))]
        nodes: Vec<PlacedNode>,
    },
    /// `hops + 1` nodes on a line, `spacing` apart.
    Chain {
        /// Number of hops (>= 1).
        #[schemars(range(min = 1))]
        hops: u32,
        /// Distance between neighbours, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// A `rows x cols` lattice, `spacing` apart, numbered row by row.
    Grid {
        /// Rows (>= 1).
        #[schemars(range(min = 1))]
        rows: u32,
        /// Columns (>= 1).
        #[schemars(range(min = 1))]
        cols: u32,
        /// Distance between neighbours, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// `n` nodes uniformly at random in a `width x height` area.
    Random {
        /// Number of nodes.
        #[schemars(range(min = 1))]
        n: u32,
        /// Area width, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        width: f64,
        /// Area height, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        height: f64,
    },
    /// A `width x height` area cut into `rows x cols` cells with `per_cell` nodes placed
    /// uniformly in each (papers 000, 001), plus an optional gateway node (named last).
    Cells {
        /// Rows of cells.
        #[schemars(range(min = 1))]
        rows: u32,
        /// Columns of cells.
        #[schemars(range(min = 1))]
        cols: u32,
        /// Area width, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        width: f64,
        /// Area height, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        height: f64,
        /// Nodes per cell.
        #[serde(default = "default_one")]
        #[schemars(range(min = 1))]
        per_cell: u32,
        /// Position of a gateway node, if any.
        #[serde(default)]
        gateway: Option<Point>,
    },
    // The named topologies of the papers below are laid out so that a receive range of
    // 1.25 x `spacing` (250 m at the default 200 m) yields exactly the paper's links; roles,
    // coordinates and links are in topology.rs and docs/scenario-schema.md.
    /// Paper 000's tree (Fig. 5a): root A `n0`, leaf B `n1`, relay C `n2`, leaf D `n3` below C.
    Tree {
        /// Length of every link, m.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 000's diamond (Fig. 5b): A `n0`, B `n1`, C `n2`, D `n3`; two 2-hop paths A-B-D and
    /// A-C-D.
    Diamond {
        /// Length of every link, m.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's X topology (Fig. 1): relay I `n0`, S1 `n1` -> R1 `n3`, S2 `n2` -> R2 `n4`,
    /// with S1 overheard by R2 and S2 by R1.
    X {
        /// Length of every link, m.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's Alice-and-Bob topology (Fig. 2a): relay I `n0` between A1 `n1` and A2 `n2`.
    AliceBob {
        /// Length of every link, m.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's cross (Fig. 2b): relay I `n0` amid `n1..n4`, each exchanging a flow with the
    /// node opposite and overhearing its two other neighbours.
    Cross {
        /// Distance between neighbouring outer nodes, m (each is spacing/sqrt 2 from I).
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's wheel (Fig. 2c), the cross generalised: relay I `n0` at the centre of `n`
    /// nodes on a circle, each hearing all others but the one opposite.
    Wheel {
        /// Nodes on the circle (even, >= 2).
        #[schemars(range(min = 2), extend("multipleOf" = 2))]
        n: u32,
        /// Scale, m: the rim is sized for a receive range of 1.25 x spacing.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 001's butterfly (Fig. 8): relays I1 `n0` -> I2 `n1`, S1 `n2` -> R1 `n4`,
    /// S2 `n3` -> R2 `n5`, with S1 overheard by R2 and S2 by R1.
    Butterfly {
        /// Length of every link, m.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
    /// Paper 003's ring: `n` nodes on a circle, each hearing only its two neighbours, so every
    /// pair has two disjoint paths.
    Ring {
        /// Nodes (>= 3).
        #[schemars(range(min = 3))]
        n: u32,
        /// Distance between neighbours, m.
        #[serde(default = "super::topology::default_spacing")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        spacing: f64,
    },
}

/// A node with a position.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacedNode {
    /// Node name.
    pub name: String,
    /// x, m.
    #[schemars(transform = crate::quantity::distance)]
    pub x: f64,
    /// y, m.
    #[schemars(transform = crate::quantity::distance)]
    pub y: f64,
}

/// A position.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// x, m.
    #[schemars(transform = crate::quantity::distance)]
    pub x: f64,
    /// y, m.
    #[schemars(transform = crate::quantity::distance)]
    pub y: f64,
}

/// Wireless standards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Standard {
    /// IEEE 802.11b DSSS/CCK (1, 2, 5.5, 11 Mbps).
    #[serde(rename = "802.11b")]
    Dot11b,
    /// IEEE 802.11a OFDM (6, 9, 12, 18, 24, 36, 48, 54 Mbps) in 20 MHz channels at 5 GHz.
    #[serde(rename = "802.11a")]
    Dot11a,
}

impl Standard {
    /// The rates the standard offers, bit/s, lowest first.
    pub fn rates(self) -> &'static [u64] {
        match self {
            Standard::Dot11b => &crate::mac::timing::DOT11B_RATES,
            Standard::Dot11a => &crate::phy::ofdm::RATES,
        }
    }

    /// The slot time, ns.
    pub fn slot(self) -> crate::sim::Time {
        match self {
            Standard::Dot11b => crate::mac::timing::DOT11B_SLOT,
            Standard::Dot11a => crate::mac::timing::DOT11A_SLOT,
        }
    }

    /// The name scenarios use.
    pub fn name(self) -> &'static str {
        match self {
            Standard::Dot11b => "802.11b",
            Standard::Dot11a => "802.11a",
        }
    }

    /// Receive (lock) threshold when the scenario gives none, dBm: ns-2's 250-m two-ray threshold
    /// for 802.11b; for 802.11a the minimum sensitivity of the 6 Mbps mode in 20 MHz
    /// (IEEE 802.11-2016 Table 17-18), which is also the CCA threshold for a detected preamble.
    pub fn default_rx_threshold(self) -> f64 {
        match self {
            Standard::Dot11b => default_rx_threshold(),
            Standard::Dot11a => -82.0,
        }
    }

    /// Carrier-sense (energy) threshold when the scenario gives none, dBm: ns-2's for 802.11b;
    /// for 802.11a the energy-detect CCA threshold of §17.3.10.6 (-62 dBm, ns-3's
    /// `CcaEdThreshold`).
    pub fn default_cs_threshold(self) -> f64 {
        match self {
            Standard::Dot11b => default_cs_threshold(),
            Standard::Dot11a => -62.0,
        }
    }

    /// Noise power when the scenario gives none, dBm: thermal noise kTB at 290 K in the
    /// standard's bandwidth (22 MHz DSSS, 20 MHz OFDM) plus a 7 dB noise figure (ns-3's
    /// `RxNoiseFigure`).
    pub fn default_noise(self) -> f64 {
        match self {
            Standard::Dot11b => default_noise(),
            Standard::Dot11a => -93.97,
        }
    }

    /// The rate of ACKs when the scenario gives none: the basic rate for 802.11b (ns-2's), the
    /// highest mandatory rate not above the data rate for 802.11a (IEEE 802.11-2016 §10.6.6.5.2).
    pub fn default_ack_rate(self) -> AckRate {
        match self {
            Standard::Dot11b => AckRate::Basic,
            Standard::Dot11a => AckRate::Control,
        }
    }

    /// The PLCP preamble when the scenario gives none: long for 802.11b; 802.11a has no DSSS
    /// preamble to choose.
    pub fn default_preamble(self) -> Option<Preamble> {
        match self {
            Standard::Dot11b => Some(Preamble::default()),
            Standard::Dot11a => None,
        }
    }

    /// Every standard, in the order the schema lists them.
    pub const ALL: [Standard; 2] = [Standard::Dot11b, Standard::Dot11a];
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
    /// Rate of data frames, bit/s (one of the standard's rates).
    #[schemars(transform = crate::quantity::rate, range(min = 1))]
    pub data_rate: u64,
    /// Rate of control frames (ACK, RTS, CTS) and broadcasts, bit/s.
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
    pub rx_threshold: Option<f64>,
    /// Energy that makes the medium busy (carrier sense threshold), dBm; absent: the standard's
    /// (802.11b: ns-2's 1.559e-11 W, 550 m with two-ray ground).
    #[serde(default)]
    #[schemars(transform = crate::quantity::power)]
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
    pub ack_rate: Option<AckRate>,
    /// Noise power in the channel, dBm; absent: the standard's (thermal noise in 22 or 20 MHz
    /// plus a 7 dB noise figure).
    #[serde(default)]
    #[schemars(transform = crate::quantity::power)]
    pub noise: Option<f64>,
    /// PLCP preamble (802.11b only; absent: long).
    #[serde(default)]
    pub preamble: Option<Preamble>,
    /// How each link's data rate is chosen.
    #[serde(default)]
    pub rate_control: RateControlConfig,
    /// Data rates set by hand on given links, after rate control (for tests and for scenarios
    /// that pin rates, such as paper 003's Fig. 1).
    #[serde(default)]
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
    pub node_channels: BTreeMap<String, Vec<u32>>,
    /// Probability that a frame is lost at a receiver, independently per frame and receiver,
    /// after the radio's own decision, on every pair of radios without a `link_errors` entry and
    /// for every frame kind (paper 001's "average loss 15 %" on every link); 0: none.
    #[serde(default)]
    #[schemars(transform = crate::quantity::probability)]
    pub frame_error: f64,
    /// What one `frame_error` draw covers: every frame at every receiver (`per_frame`), or, at
    /// the addressee, a whole exchange (`per_exchange`: the RTS, or the data frame sent without
    /// one, is drawn for; the CTS, the data after it and the ACK are not, so the exchange fails
    /// with probability `frame_error` as under GloMoSim's fading, whose replies reuse the fade
    /// of the frame they answer).
    #[serde(default)]
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
    /// `WifiMacQueue::MaxDelay` (500 ms). Absent: for ever, as ns-2's interface queue.
    #[serde(default)]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
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

    /// The noise power, dBm.
    pub fn noise_dbm(&self) -> f64 {
        self.noise.unwrap_or_else(|| self.standard.default_noise())
    }

    /// The ACK rate rule.
    pub fn ack_rule(&self) -> AckRate {
        self.ack_rate
            .unwrap_or_else(|| self.standard.default_ack_rate())
    }
}

/// How the data rate of each link (sender radio, neighbour radio) is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RateControlConfig {
    /// Every unicast data frame at `radio.data_rate`.
    #[default]
    Constant,
    /// Per neighbour, fixed when the scenario is built: the highest rate, up to
    /// `radio.data_rate`, whose frame error rate for a `frame_bytes` frame at the link's mean SNR
    /// (no interference) is at most `max_per`; the lowest rate if none is.
    Ideal {
        /// Largest acceptable frame error rate.
        #[serde(default = "default_max_per")]
        #[schemars(
            transform = crate::quantity::probability,
            extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1)
        )]
        max_per: f64,
        /// Size of the reference frame, bytes (MAC header and FCS included).
        #[serde(default = "default_rate_frame_bytes")]
        #[schemars(range(min = 1))]
        frame_bytes: u32,
    },
}

/// A data rate set by hand on one link.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkRateConfig {
    /// One end.
    pub from: String,
    /// The other end.
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
fn default_max_per() -> f64 {
    0.1
}
fn default_rate_frame_bytes() -> u32 {
    1555
}

/// An extra error process on a wireless link.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkErrorConfig {
    /// Transmitting node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// `forward` (from -> to), `reverse` or `both`.
    #[serde(default)]
    pub direction: Direction,
    /// The process.
    pub error: ErrorProcessConfig,
}

/// A node failure: from `at` on, the node's radio neither sends nor receives and whatever it
/// holds is lost.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailureConfig {
    /// The node.
    pub node: String,
    /// When, ns.
    #[schemars(transform = crate::quantity::duration)]
    pub at: Nanos,
}

/// Route computation.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RoutingConfig {
    /// Shortest paths computed once over the links that deliver data (`min_delivery`).
    Static {
        /// Path metric.
        #[serde(default)]
        metric: RouteMetric,
        /// The delivery threshold of a radio link (`scenario::usable_links`): routes and flow
        /// paths use a link only if a full-size data frame at its rate gets through with at
        /// least this probability both ways; 0 uses every link the receiver locks onto.
        #[serde(default = "default_min_delivery")]
        #[schemars(transform = crate::quantity::probability)]
        min_delivery: f64,
    },
    /// AODV (RFC 3561).
    Aodv {
        /// What a node does with a packet it must forward but has no route for (after a link
        /// break or a RERR): `true` buffers it and starts a discovery there (local repair in
        /// the manner of ns-2's AODV); `false` drops it and reports the destination unreachable
        /// with a RERR, RFC 3561 §6.11 case (ii) without the optional §6.12 repair (ns-3's AODV).
        #[serde(default = "default_true")]
        local_repair: bool,
        /// HELLO messages (RFC 3561 §6.9) and a neighbour table whose expired entries break
        /// links, as ns-3's AODV has them (`EnableHello`, on by default there as here); `false`:
        /// links are watched by the MAC alone (ns-2's default, and airtcp's before HELLOs).
        #[serde(default = "default_true")]
        hello: bool,
        /// HELLO_INTERVAL, ns (ns-3's `HelloInterval`, 1 s).
        #[serde(default = "default_hello_interval")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        hello_interval: Nanos,
        /// ALLOWED_HELLO_LOSS: HELLO intervals a neighbour may stay silent before its link is
        /// broken (ns-3's `AllowedHelloLoss`, 2).
        #[serde(default = "default_allowed_hello_loss")]
        #[schemars(range(min = 1))]
        allowed_hello_loss: u32,
        /// A node ignores control messages that reach it over a link below this delivery
        /// threshold (as `Static`'s), so that discovered routes consist of links that carry
        /// data; 0: every message is processed, as RFC 3561 (and ns-2, ns-3) do.
        #[serde(default = "default_min_delivery")]
        #[schemars(transform = crate::quantity::probability)]
        min_delivery: f64,
    },
    /// Backpressure forwarding (paper 000): next hop and flow chosen at every transmit
    /// opportunity from per-flow queue differentials (see `net::backpressure`).
    Backpressure(crate::net::backpressure::config::BackpressureConfig),
    /// Horizon (paper 003): multipath back-pressure for unmodified TCP over each flow's
    /// node-disjoint paths, with the destination's reorder buffer and the source's congestion
    /// signal (see `net::horizon`, `transport::horizon`).
    Horizon(crate::net::horizon::config::HorizonConfig),
}

fn default_hello_interval() -> Nanos {
    1_000_000_000
}

fn default_allowed_hello_loss() -> u32 {
    2
}

/// The results tables of the forwarding layers a scenario can ask for
/// (`net::forwarding::Forwarding::report`): every run's results have each of them, empty unless
/// its layer ran, so that every run has the same keys.
pub const FORWARDING_TABLES: &[&str] = &[backpressure::TABLE];

impl RoutingConfig {
    /// The checks of the forwarding layer this block asks for (its own parameters, and what it
    /// needs of the scenario), in `cfg`.
    pub fn check_forwarding(&self, cfg: &ScenarioConfig) -> Result<(), ConfigError> {
        match self {
            RoutingConfig::Backpressure(bp) => {
                backpressure::setup::check(bp, &Self::surroundings(cfg))?
            }
            RoutingConfig::Horizon(hz) => horizon::setup::check(hz, &Self::surroundings(cfg))?,
            _ => {}
        }
        if let RoutingConfig::Horizon { .. } = self {
            for (i, f) in cfg.flows.iter().enumerate() {
                if let TransportConfig::Tcp(TcpConfig { nc: Some(_), .. }) = &f.transport {
                    return Err(ConfigError::new(
                        format!("flows[{i}].transport.nc"),
                        "Horizon's reorder buffer and signal sit between TCP and the network; a \
                         flow cannot also have the NC layer there",
                    ));
                }
            }
        }
        Ok(())
    }

    /// What the forwarding schemes may ask of scenario `cfg` (`net::forwarding::Surroundings`).
    pub fn surroundings(cfg: &ScenarioConfig) -> Surroundings {
        Surroundings {
            wired_or_cell: !cfg.links.is_empty()
                || cfg.downlink.is_some()
                || !cfg.routers.is_empty(),
            radio: cfg.radio.as_ref().map(|radio| RadioBasics {
                queue_packets: match radio.queue {
                    QueueConfig::Droptail { packets } => packets as usize,
                },
                data_rate: radio.data_rate,
                rx_threshold_dbm: radio.rx_threshold_dbm(),
            }),
        }
    }

    /// The delivery threshold of the links this block routes over (`min_delivery`, checked to
    /// be a probability), or `None` for backpressure, which weighs every link by the loss it
    /// measures itself (paper 000 runs it over links losing up to half their frames).
    pub fn min_delivery(&self) -> Result<Option<f64>, ConfigError> {
        let threshold = match *self {
            RoutingConfig::Static { min_delivery, .. }
            | RoutingConfig::Aodv { min_delivery, .. }
            | RoutingConfig::Horizon(HorizonConfig { min_delivery, .. }) => min_delivery,
            RoutingConfig::Backpressure { .. } => return Ok(None),
        };
        // Worded as the Python front end's probabilities (`units.parse_probability`).
        if !(0.0..=1.0).contains(&threshold) {
            return Err(ConfigError::new(
                "routing.min_delivery",
                format!("must be between 0 and 1, got {threshold}"),
            ));
        }
        Ok(Some(threshold))
    }

    /// The paths a flow without a `paths` block follows under this block (Horizon's own:
    /// `paths` node-disjoint ones by its metric, the reverse traffic on them too); `None`: such a
    /// flow is routed.
    pub fn implied_paths(&self) -> Option<PathsConfig> {
        match *self {
            RoutingConfig::Horizon(HorizonConfig { paths, metric, .. }) => {
                Some(PathsConfig::Disjoint {
                    k: paths,
                    metric,
                    reverse: ReverseConfig::Paths,
                })
            }
            _ => None,
        }
    }

    /// The `k` paths of an implied block ([`implied_paths`](Self::implied_paths)) from `src` to
    /// `dst`, fewer where fewer exist: Horizon's, the least-weight path first
    /// (`net::horizon::setup::default_first_paths`).
    pub fn implied_paths_between(
        &self,
        n: usize,
        edges: &[crate::net::routing::Edge],
        weight: &dyn Fn(usize) -> f64,
        (src, dst): (crate::sim::NodeId, crate::sim::NodeId),
        k: usize,
    ) -> Vec<crate::net::paths::DisjointPath> {
        horizon::setup::default_first_paths(n, edges, weight, src, dst, k)
    }

    /// The shim this block puts on TCP flow `index` (Horizon's reorder buffer and congestion
    /// signal, with the PathIDs of the flow's paths), if any; `seed` is the run's.
    pub fn transport_shim(
        &self,
        cfg: &ScenarioConfig,
        paths: &crate::net::flow_paths::FlowPaths,
        index: usize,
    ) -> Option<Box<dyn Shim>> {
        let RoutingConfig::Horizon(hz) = self else {
            return None;
        };
        let params = crate::transport::horizon::HorizonShimParams::of_config(hz);
        let ids = horizon::setup::path_ids(cfg.seed, paths, index as u32);
        Some(Box::new(crate::transport::horizon::HorizonShim::new(
            &params, ids,
        )))
    }

    /// Why flows cannot have paths (`flows[].paths`, `net::flow_paths`) under this block, if they
    /// cannot: the routing service answers for pinned packets with their paths' hops, and the
    /// plain layer follows it; AODV's routes and backpressure's choices do not.
    pub fn ignores_flow_paths(&self) -> Option<&'static str> {
        match self {
            RoutingConfig::Static { .. } => None,
            RoutingConfig::Aodv { .. } => {
                Some("aodv finds its routes itself; flow paths are followed under static routing")
            }
            RoutingConfig::Backpressure { .. } => Some(
                "backpressure chooses next hops itself; flow paths are followed under static \
                 routing",
            ),
            // Horizon forwards over the flows' paths (its own disjoint ones unless given).
            RoutingConfig::Horizon { .. } => None,
        }
    }

    /// The forwarding layer (`net::forwarding`) this block asks for, in the checked scenario
    /// `cfg`: backpressure's own layer for `backpressure` (paper 000 §4.1), Horizon's for
    /// `horizon` (paper 003), plain store-and-forward over the routes otherwise (`static`,
    /// `aodv`).
    pub fn forwarding(&self, cfg: &ScenarioConfig, setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        match self {
            RoutingConfig::Horizon(hz) => Box::new(horizon::setup::layer(
                horizon::setup::params(hz, &Self::surroundings(cfg)),
                setup,
            )),
            RoutingConfig::Backpressure(bp) => {
                let around = Self::surroundings(cfg);
                let rx_threshold_dbm = around
                    .radio
                    .expect("checked: backpressure needs radios")
                    .rx_threshold_dbm;
                let params = backpressure::setup::params(bp, &around);
                Box::new(backpressure::setup::layer(params, rx_threshold_dbm, setup))
            }
            _ => Box::new(Fifo),
        }
    }
}

impl Default for RoutingConfig {
    fn default() -> Self {
        RoutingConfig::Static {
            metric: RouteMetric::Hops,
            // default_min_delivery()
            min_delivery: 0.5,
        }
    }
}

fn default_one() -> u32 {
    1
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
