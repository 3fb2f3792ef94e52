//! Flows (`flows:`): their ends, timing, paths, application and transport (docs/apps.md, docs/tcp.md).

use serde::{Deserialize, Serialize};

use super::{Nanos, RouteMetric, TcpConfig};
use crate::transport::seam::TransportScheme;

/// One flow: an application over a transport between two nodes.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Unique flow name.
    #[schemars(transform = crate::quantity::node_name)]
    pub id: String,
    /// Sending node.
    #[schemars(transform = crate::quantity::node_name)]
    pub src: String,
    /// Receiving node.
    #[schemars(transform = crate::quantity::node_name)]
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
    #[schemars(extend("x-omit-default" = true))]
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
        #[schemars(transform = crate::quantity::node_name, length(min = 1, max = 255))]
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

impl TransportConfig {
    /// What a bulk application may run on, for the message that refuses another transport.
    pub const BULK_TRANSPORTS: &'static str = "a tcp or tcp_rlc transport";

    /// The transport behind the transport seam (`transport::seam`) this block registers: one
    /// line per such transport. None for TCP and UDP, which the world drives itself.
    pub fn scheme(&self) -> Option<&dyn TransportScheme> {
        match self {
            TransportConfig::TcpRlc(t) => Some(t),
            TransportConfig::Tcp(_) | TransportConfig::Udp(_) => None,
        }
    }
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

fn default_udp_header() -> u32 {
    28
}
