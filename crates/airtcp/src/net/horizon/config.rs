//! The `routing: {kind: horizon, ...}` block (paper 003; docs/horizon.md): the paths, the custody
//! threshold and prices of the multipath back-pressure, the refreshments, and the destination's
//! reorder buffer and source's congestion signal. `setup` checks it against the scenario and
//! builds the layer and the shim.

use serde::{Deserialize, Serialize};

use crate::sim::Time;

use crate::net::routing::{default_min_delivery, RouteMetric};

/// Horizon: multipath back-pressure for unmodified TCP over each flow's node-disjoint paths.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HorizonConfig {
    /// Node-disjoint paths per flow (§5.4: 2); fewer where fewer exist.
    #[serde(default = "default_hz_paths")]
    #[schemars(range(min = 1, max = 255))]
    pub paths: u32,
    /// Weight of a link when the paths are found (§5.4's routing; spec: ETT).
    #[serde(default = "default_hz_metric")]
    pub metric: RouteMetric,
    /// The paths use only links above this delivery threshold (as `Static`'s).
    #[serde(default = "default_min_delivery")]
    #[schemars(transform = crate::quantity::probability)]
    #[schemars(extend("x-omit-default" = true))]
    pub min_delivery: f64,
    /// `T`, the custody threshold per flow and neighbour (§5.2.2: 10-15).
    #[serde(default = "default_hz_threshold")]
    #[schemars(range(min = 1, max = 100))]
    pub threshold: u32,
    /// Update events (packets received from a neighbour, changes of the node's price) per
    /// refreshment (§5.2.2: about 5).
    #[serde(default = "default_hz_refresh_every")]
    #[schemars(range(min = 1))]
    pub refresh_every: u32,
    /// Eqs. (12)-(13): `per_rate` (the reading that reproduces §3.5) or `queue` (literal).
    #[serde(default)]
    pub price: HzPriceConfig,
    /// Eq. (15) when the cheapest neighbour's window is full: `strict` waits,
    /// `cheapest_open` takes the cheapest open one.
    #[serde(default)]
    pub next_hop: HzNextHopConfig,
    /// `push` (the paper's implementation, §5.2.1) or `pull` (§3.1's ideal, an ablation).
    #[serde(default)]
    pub mac: HzMacConfig,
    /// Refreshments at the `head` of the interface queue, or at its tail (`fifo`).
    #[serde(default)]
    pub refresh_priority: HzRefreshPriorityConfig,
    /// When refreshments go besides every `refresh_every` receptions: `paced` (those telling only
    /// a new price within `refresh_budget`, the liveness timers only once the upstream link has
    /// gone quiet) or `eager` (the earlier rule: every `refresh_every` update events, and by the
    /// timers whenever the advertised state changed, without a budget).
    #[serde(default)]
    pub refresh_rule: HzRefreshRuleConfig,
    /// The share of its time a node's refreshments telling only a new price (counted or timed)
    /// may keep the air busy (`refresh_rule: paced` only; a token bucket holding a second's
    /// worth).
    #[serde(default = "default_hz_refresh_budget")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub refresh_budget: f64,
    /// A changed price goes upstream after this long without anything sent there (under `paced`,
    /// once the link has gone quiet), ns.
    #[serde(default = "default_hz_refresh_idle")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub refresh_idle: Time,
    /// The last refreshment is repeated this often: while packets keep coming (`eager`), for a
    /// second after the link went quiet (`paced`), ns.
    #[serde(default = "default_hz_refresh_repeat")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub refresh_repeat: Time,
    /// How each flow's paths after the first are chosen: `interference_aware` (the lightest
    /// node-disjoint path, a hop weighing more for every hop of the paths already chosen that
    /// it contends with) or `lightest` (the lightest node-disjoint path).
    #[serde(default)]
    pub path_choice: HzPathChoiceConfig,
    /// Packets a node's queues hold in all.
    #[serde(default = "default_hz_buffer")]
    #[schemars(range(min = 1))]
    pub buffer: u32,
    /// Interval of the custody/price samples and the per-path series in the results, ns.
    #[serde(default = "default_hz_sample_interval")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub sample_interval: Time,
    /// K of the target window `B* = K / sqrt(C_s)` (§5.3.2: 90).
    #[serde(default = "default_hz_k")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub k: f64,
    /// The source price is capped here (§5.3.2: 100).
    #[serde(default = "default_hz_price_cap")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub price_cap: f64,
    /// No signal below this window estimate, packets (§5.3.2: 5).
    #[serde(default = "default_hz_min_window")]
    #[schemars(range(min = 0))]
    pub min_window: f64,
    /// The congestion signal to TCP: `fake_dupack` (§5.3.3) or `none`.
    #[serde(default)]
    pub signal: HzSignalConfig,
    /// The destination's delayed reordering (§4.2, eq. 16).
    #[serde(default)]
    pub reorder: HzReorderConfig,
}

/// How Horizon prices custody (paper 003 eqs. 12-13).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzPriceConfig {
    /// `C_i = min_j (C_j + S_i / R_ij)`, `S_i = max_g P_i^g R_{i,j(g)}`.
    #[default]
    PerRate,
    /// `C_i = S_i + min_j C_j`, `S_i = max_g P_i^g`.
    Queue,
}

/// Eq. (15) when the cheapest neighbour's window is full.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzNextHopConfig {
    /// The flow waits.
    #[default]
    Strict,
    /// The cheapest neighbour with an open window.
    CheapestOpen,
}

/// How Horizon hands packets to the MAC.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzMacConfig {
    /// Into the interface queue while the custody gate allows.
    #[default]
    Push,
    /// Only at the MAC's transmit opportunities.
    Pull,
}

/// Where refreshments join the interface queue.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzRefreshPriorityConfig {
    /// Ahead of queued data.
    #[default]
    Head,
    /// Behind it.
    Fifo,
}

/// When Horizon sends refreshments besides every `refresh_every` receptions (§5.2.2, spec A7,
/// A8).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzRefreshRuleConfig {
    /// After `refresh_every` update events with fewer receptions among them (price changes), and
    /// by the liveness timers once nothing came from the upstream neighbour for `refresh_every`
    /// of its usual gaps (at least `refresh_idle`); those telling only a new price within the
    /// node's `refresh_budget`.
    #[default]
    Paced,
    /// After every `refresh_every` update events, and by the timers whenever the advertised
    /// state changed and nothing went upstream for `refresh_idle` (and the repeat while packets
    /// come); no budget.
    Eager,
}

/// How a flow's paths after the first are chosen (§5.4's routing gives two node-disjoint paths).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzPathChoiceConfig {
    /// The lightest node-disjoint path, each hop weighing its metric times one plus the number
    /// of hops of the paths already chosen that it contends with (same channel, within the
    /// range the radios hear each other's signals).
    #[default]
    InterferenceAware,
    /// The lightest node-disjoint path.
    Lightest,
}

/// Horizon's congestion signal to an unmodified TCP sender.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HzSignalConfig {
    /// Three duplicates of the last ACK (§5.3.3).
    #[default]
    FakeDupack,
    /// None.
    None,
}

/// The destination's delayed reordering (paper 003 §4.2, eq. 16, §5.3.1).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HzReorderConfig {
    /// Gain of the one-way delay mean A.
    #[serde(default = "default_hz_alpha")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub alpha: f64,
    /// Gain of its deviation D.
    #[serde(default = "default_hz_beta")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub beta: f64,
    /// D before the first sample, ns.
    #[serde(default = "default_hz_d0")]
    #[schemars(transform = crate::quantity::duration)]
    pub d0: Time,
    /// Declare a gap lost once every path has delivered past it (§5.3.1).
    #[serde(default = "default_loss_detection")]
    pub loss_detection: bool,
}

impl Default for HzReorderConfig {
    fn default() -> Self {
        HzReorderConfig {
            alpha: default_hz_alpha(),
            beta: default_hz_beta(),
            d0: default_hz_d0(),
            loss_detection: default_loss_detection(),
        }
    }
}

fn default_hz_paths() -> u32 {
    2
}
fn default_hz_metric() -> RouteMetric {
    RouteMetric::Ett
}
fn default_hz_threshold() -> u32 {
    12
}
fn default_hz_refresh_every() -> u32 {
    5
}
fn default_hz_refresh_budget() -> f64 {
    0.002
}
fn default_hz_refresh_idle() -> Time {
    20_000_000
}
fn default_hz_refresh_repeat() -> Time {
    200_000_000
}
fn default_hz_buffer() -> u32 {
    1000
}
fn default_hz_sample_interval() -> Time {
    1_000_000_000
}
fn default_hz_k() -> f64 {
    90.0
}
fn default_hz_price_cap() -> f64 {
    100.0
}
fn default_hz_min_window() -> f64 {
    5.0
}
fn default_hz_alpha() -> f64 {
    0.125
}
fn default_hz_beta() -> f64 {
    0.25
}
fn default_hz_d0() -> Time {
    10_000_000
}

fn default_loss_detection() -> bool {
    true
}
