//! The normalised scenario configuration the simulator core accepts.
//!
//! These types (with the config types each layer keeps beside its model) are the scenario format's
//! one description: `scenario::schema` generates its JSON Schema from them, doc comments included.
//! The Python front end reads the user's YAML against it, resolves units (durations become integer
//! nanoseconds, rates integer bits per second, sizes integer bytes) and hands the result to the
//! core as JSON. Every struct here denies unknown fields and every enum is internally tagged by
//! `kind`, exactly like the YAML. A field holding a quantity names it for the schema
//! (`#[schemars(transform = crate::quantity::duration)]`), with its range in base units.

use serde::{Deserialize, Serialize};

pub use crate::mac::config::{AckRate, MacProfile, Preamble};
pub use crate::net::backpressure::config::{
    BackpressureConfig, BpDifferentialConfig, BpLossEstimateConfig, BpNextHopsConfig,
    BpSelectionConfig,
};
pub use crate::net::forwarding::cope::config::{
    CodingConfig, CodingKnowledge, CodingQueue, CodingRecovery, CodingScheme,
};
pub use crate::net::horizon::config::{
    HorizonConfig, HzMacConfig, HzNextHopConfig, HzPriceConfig, HzRefreshPriorityConfig,
    HzReorderConfig, HzSignalConfig,
};
pub use crate::net::routing::RouteMetric;
pub use crate::phy::config::{ErrorProcessConfig, FadingConfig, PropagationConfig, ReceptionModel};
pub use crate::phy::mobility::{Bounds, MobilityConfig, WalkMode};
pub use crate::queue::config::QueueConfig;
pub use crate::transport::nc_layer::config::{NcBlock, NcConfig};
pub use crate::transport::tcp::cc::compound::CompoundParams;
pub use crate::transport::tcp::cc::cubic::CubicParams;
pub use crate::transport::tcp::cc::fast::FastParams;
pub use crate::transport::tcp::cc::quic_tcp::{QuicCadence, QuicTcpParams};
pub use crate::transport::tcp::cc::vegas::VegasParams;
pub use crate::transport::tcp::config::{CcKind, CcParams, SsthreshBasis, TcpConfig};

mod flow;
mod link;
mod radio;
mod routing;
mod topology;

pub use flow::*;
pub use link::*;
pub use radio::*;
pub use routing::*;
pub use topology::*;

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
    #[schemars(transform = crate::quantity::node_name)]
    pub nodes: Vec<String>,
    /// Wireless nodes and their positions, generated or explicit.
    #[serde(default)]
    pub topology: Option<TopologyConfig>,
    /// The radio of every node `topology` places (required with a topology).
    #[serde(default)]
    pub radio: Option<RadioConfig>,
    /// How the placed nodes move (docs/mobility.md); absent: they stand still.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub mobility: Vec<MobilityConfig>,
    /// Extra packet-error processes on chosen wireless links.
    #[serde(default)]
    pub link_errors: Vec<LinkErrorConfig>,
    /// How routes are found.
    #[serde(default)]
    pub routing: RoutingConfig,
    /// The inter-session coding layer at the relays (paper 001: COPE, or NCAQM's queue;
    /// docs/cope.md); absent: none.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
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
    #[schemars(extend("x-omit-default" = true))]
    pub routers: Vec<super::routers::RouterConfig>,
    /// Traffic.
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// What to record besides the per-flow totals.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// Packet captures of chosen interfaces, written while the run goes on (docs/pcap.md);
    /// absent: none.
    #[serde(default)]
    #[schemars(extend("x-omit-default" = true))]
    pub trace: Option<crate::metrics::pcap::config::TraceConfig>,
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
    /// Record every change of a wireless link's data rate under adaptive rate control
    /// (`radio.rate_control`).
    #[serde(default)]
    pub trace_rates: bool,
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
            trace_rates: false,
            trace_interval: default_trace_interval(),
        }
    }
}

fn default_bin() -> Nanos {
    1_000_000_000
}
fn default_trace_interval() -> Nanos {
    100_000_000
}

/// A node failure: from `at` on, the node's radio neither sends nor receives and whatever it
/// holds is lost.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailureConfig {
    /// The node.
    #[schemars(transform = crate::quantity::node_name)]
    pub node: String,
    /// When, ns.
    #[schemars(transform = crate::quantity::duration)]
    pub at: Nanos,
}

fn default_one() -> u32 {
    1
}
