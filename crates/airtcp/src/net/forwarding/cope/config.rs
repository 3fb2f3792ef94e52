//! The scenario's `coding:` block: inter-session network coding at the relays (paper 001; COPE,
//! Katti et al., IEEE/ACM ToN 16(3), 2008), its own checks, and the mapping onto the layer's
//! [`CopeParams`] (docs/cope.md); the block's defaults are [`CopeParams::default`]'s. What the
//! block needs of the rest of the scenario (radios, static routes) is checked where the scenario
//! is composed (`scenario::coding`).

use serde::{Deserialize, Serialize};

use super::{
    default_control_period, ControlTiming, Cope, CopeParams, KnowledgeModel, QueueKind, Recovery,
    Scheme,
};
use crate::error::ConfigError;
use crate::net::forwarding::{Forwarding, LayerSetup};
use crate::sim::Time;

/// Inter-session coding at the relays (the scenario's `coding:` block). Every field has a
/// default, so `coding: {}` asks for COPE as the paper runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodingConfig {
    /// The coding scheme: `cope` (one-hop codes) or `bfly` (two-hop pairs first, then COPE's).
    #[serde(default)]
    pub scheme: CodingScheme,
    /// BFLY's recovery rule (`bfly` only): `coder_ack` (default) or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-omit-default" = true))]
    pub recovery: Option<CodingRecovery>,
    /// The output queue of every coding node: COPE's `fifo` of natives, or NCAQM's queue of
    /// entries (`ncaqm`). Its capacity is the radio's `queue.packets`.
    #[serde(default)]
    pub queue: CodingQueue,
    /// How a coder learns what its neighbours hold.
    #[serde(default)]
    pub knowledge: CodingKnowledge,
    /// COPE's decodability threshold G: a coding is sent only if every next hop decodes it with
    /// at least this probability; in (0, 1].
    #[serde(default = "default_cope_threshold")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub threshold: f64,
    /// How long a native stays in a node's pool (and a report about it stays valid), T, ns (> 0).
    #[serde(default = "default_cope_pool_lifetime")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub pool_lifetime: Time,
    /// When reception reports and COPE ACKs go in control packets of their own (every frame
    /// carries them besides): COPE's `periodic` (default) or the `idle_timer`s.
    #[serde(default)]
    pub control: CodingControl,
    /// How long a coder waits for a native's COPE ACK before it queues the native again, Ta, ns
    /// (> 0).
    #[serde(default = "default_cope_ack_timeout")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub ack_timeout: Time,
    /// COPE retransmissions of a native before it is dropped (0: none).
    #[serde(default = "default_cope_retry_limit")]
    pub retry_limit: u32,
    /// Whether TCP's ACKs are coded like any native (COPE codes them).
    #[serde(default = "default_cope_code_acks")]
    pub code_acks: bool,
    /// The most natives one reception report lists (>= 1); the rest wait for the next header.
    #[serde(default = "default_cope_max_report")]
    #[schemars(range(min = 1))]
    pub max_report: u32,
    /// COPE's ordering agent at every TCP flow's destination node (`transport::ordering`): it
    /// holds data segments that arrive out of order and hands them up in order, so that the
    /// reordering coding and COPE's retransmissions cause does not look like loss to TCP.
    /// `false`: TCP's receiver sees the packets as they come.
    #[serde(default = "default_cope_ordering")]
    pub ordering: bool,
    /// The longest the ordering agent holds a segment waiting for the gap below it, ns (> 0).
    #[serde(default = "default_cope_ordering_hold")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub ordering_hold: Time,
}

impl Default for CodingConfig {
    fn default() -> Self {
        CodingConfig {
            scheme: CodingScheme::default(),
            recovery: None,
            queue: CodingQueue::default(),
            knowledge: CodingKnowledge::default(),
            threshold: default_cope_threshold(),
            pool_lifetime: default_cope_pool_lifetime(),
            control: CodingControl::default(),
            ack_timeout: default_cope_ack_timeout(),
            retry_limit: default_cope_retry_limit(),
            code_acks: default_cope_code_acks(),
            max_report: default_cope_max_report(),
            ordering: default_cope_ordering(),
            ordering_hold: default_cope_ordering_hold(),
        }
    }
}

/// When reports and ACKs go in control packets of their own ([`ControlTiming`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CodingControl {
    /// COPE's: what a node owes waits `period` for a frame of its own; then, if the node has
    /// nothing to send, a control packet carries it, else it looks again a period later.
    Periodic {
        /// The period, ns (> 0); absent: half of `ack_timeout`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        #[schemars(extend("x-omit-default" = true))]
        period: Option<Time>,
    },
    /// A node that owes reports (ACKs) and sends nothing for `report_idle` (`ack_delay`) sends a
    /// control packet, whatever it holds (airtcp's timers before COPE's periodic ones).
    IdleTimer {
        /// How long unreported natives wait for a frame, ns (> 0).
        #[serde(default = "default_cope_report_idle")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        report_idle: Time,
        /// How long natives to acknowledge wait for a frame, ns (> 0).
        #[serde(default = "default_cope_ack_delay")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        ack_delay: Time,
    },
}

impl Default for CodingControl {
    fn default() -> Self {
        CodingControl::Periodic { period: None }
    }
}

impl CodingControl {
    /// The timing this block asks for, with a retransmission timer `ack_timeout`.
    fn timing(&self, ack_timeout: Time) -> ControlTiming {
        match *self {
            CodingControl::Periodic { period } => ControlTiming::Periodic {
                period: period.unwrap_or_else(|| default_control_period(ack_timeout)),
            },
            CodingControl::IdleTimer {
                report_idle,
                ack_delay,
            } => ControlTiming::IdleTimer {
                report_idle,
                ack_delay,
            },
        }
    }

    /// Its durations by field name (each must be positive).
    fn durations(&self) -> Vec<(&'static str, Time)> {
        match *self {
            CodingControl::Periodic { period } => {
                period.map(|p| ("period", p)).into_iter().collect()
            }
            CodingControl::IdleTimer {
                report_idle,
                ack_delay,
            } => vec![("report_idle", report_idle), ("ack_delay", ack_delay)],
        }
    }
}

/// The coding scheme of a `coding:` block.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CodingScheme {
    /// COPE: opportunistic XOR coding of packets of different flows at the relays.
    #[default]
    Cope,
    /// BFLY (Omiwade, Zheng & Hua, NetCod 2008): a relay XORs two natives for the same next hop,
    /// which forwards the XOR undecoded to their two next hops after it; COPE's codes besides.
    Bfly,
}

/// BFLY's recovery rule ([`Recovery`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CodingRecovery {
    /// The coder keeps a pair's natives until their decoders acknowledge them, through the
    /// second relay, and re-sends them uncoded after 2 Ta.
    CoderAck,
    /// None: each hop's MAC ACK settles the pair.
    None,
}

/// The output queue of every coding node ([`QueueKind`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CodingQueue {
    /// COPE's drop-tail FIFO of natives, coding at the transmit opportunity (TCP+COPE).
    #[default]
    Fifo,
    /// NCAQM's queue of entries (paper 001 §V-A, Algs. 1-2).
    Ncaqm,
}

/// How a coder learns what its neighbours hold ([`KnowledgeModel`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CodingKnowledge {
    /// Reception reports, and COPE's guess from link delivery where no report says (COPE's own).
    #[default]
    ReportsAndGuessing,
    /// Reception reports only.
    Reports,
    /// Guessing only: no reception reports are sent.
    Guessing,
    /// The coder reads its neighbours' pools (tests; no reports are sent).
    Oracle,
}

// The defaults are written out (not `CopeParams::default()`'s fields) so that the Python side's
// test reads them from this file; a test below holds them equal to `CopeParams::default()`.
fn default_cope_threshold() -> f64 {
    0.8
}
fn default_cope_pool_lifetime() -> Time {
    500_000_000
}
fn default_cope_report_idle() -> Time {
    10_000_000
}
fn default_cope_ack_delay() -> Time {
    10_000_000
}
fn default_cope_ack_timeout() -> Time {
    100_000_000
}
fn default_cope_retry_limit() -> u32 {
    3
}
fn default_cope_code_acks() -> bool {
    true
}
fn default_cope_max_report() -> u32 {
    32
}
fn default_cope_ordering() -> bool {
    true
}
fn default_cope_ordering_hold() -> Time {
    200_000_000
}

impl CodingConfig {
    /// The block's own checks, worded as the Python front end words them, for the values as the
    /// core receives them.
    pub fn check(&self) -> Result<(), ConfigError> {
        let threshold = self.threshold;
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(ConfigError::new(
                "coding.threshold",
                format!("must be within (0, 1], got {threshold}"),
            ));
        }
        let own = [
            ("pool_lifetime", self.pool_lifetime),
            ("ack_timeout", self.ack_timeout),
            ("ordering_hold", self.ordering_hold),
        ]
        .map(|(field, value)| (format!("coding.{field}"), value));
        let control = self
            .control
            .durations()
            .into_iter()
            .map(|(field, value)| (format!("coding.control.{field}"), value));
        for (path, value) in own.into_iter().chain(control) {
            if value == 0 {
                return Err(ConfigError::new(path, "must be greater than 0, got 0"));
            }
        }
        if self.max_report == 0 {
            return Err(ConfigError::new(
                "coding.max_report",
                "must be at least 1, got 0",
            ));
        }
        if self.recovery.is_some() && self.scheme != CodingScheme::Bfly {
            return Err(ConfigError::new(
                "coding.recovery",
                "is BFLY's recovery rule; it needs scheme: bfly",
            ));
        }
        Ok(())
    }

    /// The COPE layer's parameters for this checked block, with an output queue of `capacity`
    /// packets (the radio's `queue.packets`).
    pub fn params(&self, capacity: usize) -> CopeParams {
        CopeParams {
            scheme: match self.scheme {
                CodingScheme::Cope => Scheme::Cope,
                CodingScheme::Bfly => Scheme::Bfly,
            },
            recovery: match self.recovery {
                None | Some(CodingRecovery::CoderAck) => Recovery::CoderAck,
                Some(CodingRecovery::None) => Recovery::None,
            },
            queue: match self.queue {
                CodingQueue::Fifo => QueueKind::Fifo,
                CodingQueue::Ncaqm => QueueKind::Ncaqm,
            },
            capacity,
            knowledge: match self.knowledge {
                CodingKnowledge::ReportsAndGuessing => KnowledgeModel::ReportsAndGuessing,
                CodingKnowledge::Reports => KnowledgeModel::Reports,
                CodingKnowledge::Guessing => KnowledgeModel::Guessing,
                CodingKnowledge::Oracle => KnowledgeModel::Oracle,
            },
            threshold: self.threshold,
            pool_lifetime: self.pool_lifetime,
            control: self.control.timing(self.ack_timeout),
            ack_timeout: self.ack_timeout,
            retry_limit: self.retry_limit,
            code_acks: self.code_acks,
            max_report: self.max_report as usize,
        }
    }

    /// The coding layer this block asks for, over a network checked to suit it (radios only, one
    /// per node, static routes), with output queues of `capacity` packets.
    pub fn forwarding(&self, capacity: usize, setup: &LayerSetup<'_>) -> Box<dyn Forwarding> {
        Box::new(Cope::new(self.params(capacity), setup))
    }
}
