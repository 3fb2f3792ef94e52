//! The `routing: {kind: backpressure, ...}` block (paper 000 §4.1; docs/backpressure.md): the
//! queue differential, the intervals of the loss estimate and of the queue reports, and how a
//! flow and its next hop are chosen. `setup` checks it against the scenario and builds the layer.

use serde::{Deserialize, Serialize};

use crate::sim::Time;

/// Backpressure forwarding: flow and next hop chosen at every transmit opportunity from per-flow
/// queue differentials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackpressureConfig {
    /// `classical` (U_i - U_j) or `tcp_aware` (eq. 2, max{K, U_i} - U_j).
    #[serde(default)]
    pub differential: BpDifferentialConfig,
    /// Fixed K of eq. (2); absent: B_i / |S_i| (§4.1.4). Only with `tcp_aware`.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub k: Option<f64>,
    /// Interval of the link loss estimate and of "flows passing through", ns (paper's T).
    #[serde(default = "default_bp_estimate_interval")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub estimate_interval: Time,
    /// Idle time after which a node sends its queue report in a control packet, ns.
    #[serde(default = "default_bp_report_idle")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub report_idle: Time,
    /// An idle node repeats an unchanged report this often, ns: a lost control packet
    /// would otherwise leave its neighbours holding a stale report for good.
    #[serde(default = "default_bp_report_repeat")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub report_repeat: Time,
    /// Which neighbours a packet may be sent to.
    #[serde(default)]
    pub next_hops: BpNextHopsConfig,
    /// What the link loss estimate counts: `per_packet` or `per_attempt`.
    #[serde(default)]
    pub loss_estimate: BpLossEstimateConfig,
    /// How flow and next hop are chosen: `per_link` or `flow_first`.
    #[serde(default)]
    pub selection: BpSelectionConfig,
}

/// The queue differential of backpressure.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BpDifferentialConfig {
    /// `U_i^s - U_j^s`.
    Classical,
    /// `max{K, U_i^s} - U_j^s` (paper 000 eq. 2).
    #[default]
    TcpAware,
}

/// The neighbours backpressure may forward to.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BpNextHopsConfig {
    /// Any neighbour.
    Any,
    /// Only neighbours nearer (in hops) to the flow's destination.
    #[default]
    Closer,
    /// Only neighbours nearer to the flow's destination in ETX (from the links' delivery ratios).
    CloserEtx,
}

/// What backpressure's link loss estimate counts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BpLossEstimateConfig {
    /// Packets, delivered within the MAC's retries or not.
    PerPacket,
    /// MAC attempts, answered or not.
    #[default]
    PerAttempt,
}

/// How backpressure chooses flow and next hop at a transmit opportunity.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BpSelectionConfig {
    /// The (flow, link) pair with the largest `D R (1 - p)`.
    PerLink,
    /// The flow with the largest differential, then its next hop by `D R (1 - p)`.
    #[default]
    FlowFirst,
}

fn default_bp_estimate_interval() -> Time {
    1_000_000_000
}

fn default_bp_report_idle() -> Time {
    100_000_000
}

fn default_bp_report_repeat() -> Time {
    1_000_000_000
}
