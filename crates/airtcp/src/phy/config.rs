//! The radio channel's configuration, as a scenario file spells it (`radio.propagation`,
//! `radio.fading`, `radio.reception`, `link_errors[i].error`): the models of this folder read
//! it, the scenario composes it. Units: metres, hertz, dB, nanoseconds.

use serde::{Deserialize, Serialize};

use crate::sim::Time;

/// Reception under interference.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ReceptionModel {
    /// ns-2: the frame is lost once its power is not `capture_threshold` above the sum of the
    /// other signals; otherwise the SINR error model decides.
    #[default]
    Capture,
    /// ns-3: only the SINR-based error model decides (no capture threshold).
    Sinr,
}

/// Path loss models.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PropagationConfig {
    /// Full transmit power within `range`, nothing beyond (ns-3's RangePropagationLossModel).
    Range {
        /// Range, m.
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        range: f64,
    },
    /// Friis free space.
    FreeSpace {
        /// Carrier frequency, Hz.
        #[serde(default = "default_frequency")]
        #[schemars(transform = crate::quantity::frequency, extend("exclusiveMinimum" = 0))]
        frequency: f64,
    },
    /// Two-ray ground reflection beyond the crossover distance, Friis below it (ns-2).
    TwoRayGround {
        /// Carrier frequency, Hz (ns-2: 914 MHz).
        #[serde(default = "default_frequency")]
        #[schemars(transform = crate::quantity::frequency, extend("exclusiveMinimum" = 0))]
        frequency: f64,
        /// Antenna height, m (ns-2: 1.5 m).
        #[serde(default = "default_antenna_height")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        antenna_height: f64,
    },
    /// Log-distance: L(d) = L0 + 10 n log10(d / d0) (ns-3's LogDistancePropagationLossModel).
    LogDistance {
        /// Path-loss exponent n.
        #[serde(default = "default_exponent")]
        #[schemars(extend("exclusiveMinimum" = 0))]
        exponent: f64,
        /// Reference distance d0, m.
        #[serde(default = "default_one_f64")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        reference_distance: f64,
        /// Loss at d0, dB.
        #[serde(default = "default_reference_loss")]
        #[schemars(transform = crate::quantity::ratio)]
        reference_loss: f64,
    },
}

/// Fading.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FadingConfig {
    /// None.
    #[default]
    None,
    /// Rayleigh: the received power of every frame is scaled by an independent Exp(1) draw.
    Rayleigh,
    /// Rayleigh block fading: one Exp(1) gain per link per coherence interval.
    Block {
        /// Coherence time, ns (give this or `doppler`).
        #[serde(default)]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        coherence: Option<Time>,
        /// Maximum Doppler frequency, Hz: coherence time 0.423 / f_d (Clarke's model).
        #[serde(default)]
        #[schemars(transform = crate::quantity::frequency, extend("exclusiveMinimum" = 0))]
        doppler: Option<f64>,
    },
}

/// Packet-error processes of a link, applied after the radio's own reception decision.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorProcessConfig {
    /// Independent errors with probability `per`.
    Bernoulli {
        /// Packet error rate.
        #[schemars(transform = crate::quantity::probability)]
        per: f64,
    },
    /// Gilbert-Elliott two-state Markov chain, one step per frame.
    GilbertElliott {
        /// P(good -> bad) per frame.
        #[schemars(transform = crate::quantity::probability)]
        p_good_bad: f64,
        /// P(bad -> good) per frame.
        #[schemars(transform = crate::quantity::probability)]
        p_bad_good: f64,
        /// Error rate in the good state.
        #[schemars(transform = crate::quantity::probability)]
        per_good: f64,
        /// Error rate in the bad state.
        #[schemars(transform = crate::quantity::probability)]
        per_bad: f64,
    },
    /// Success probability `low` or `high`, each state lasting a duration uniform in
    /// [`hold_min`, `hold_max`]; each new state drawn independently (low with
    /// `low_probability`, paper 004 §II-C), or, without `low_probability`, the two alternating
    /// (half the time each; not paper 004's process).
    Bimodal {
        /// Success probability in the bad state.
        #[schemars(transform = crate::quantity::probability)]
        low: f64,
        /// Success probability in the good state.
        #[schemars(transform = crate::quantity::probability)]
        high: f64,
        /// P(a new state is the bad one); absent: the states alternate.
        #[serde(default)]
        #[schemars(transform = crate::quantity::probability)]
        #[schemars(extend("x-omit-default" = true))]
        low_probability: Option<f64>,
        /// Shortest state duration, ns.
        #[schemars(transform = crate::quantity::duration)]
        hold_min: Time,
        /// Longest state duration, ns.
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        hold_max: Time,
    },
}

fn default_one_f64() -> f64 {
    1.0
}
fn default_frequency() -> f64 {
    914e6
}
fn default_antenna_height() -> f64 {
    1.5
}
fn default_exponent() -> f64 {
    3.0
}
fn default_reference_loss() -> f64 {
    46.6777
}
