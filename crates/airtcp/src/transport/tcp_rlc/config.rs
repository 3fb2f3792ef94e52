//! A TCP-RLC flow's parameters as a scenario gives them (`transport: {kind: tcp_rlc, ...}`), and
//! their checks.

use serde::{Deserialize, Serialize};

use super::receiver::{DecoderMode, RlcField};
use super::sender::RlcSenderConfig;
use crate::error::ConfigError;
use crate::sim::Time;

/// The largest block the exact decoder is allowed (its storage is B^2 field elements per block).
pub const MAX_EXACT_BLOCK: u32 = 2048;

/// The field, as a scenario names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FieldConfig {
    /// GF(8191) (the paper's).
    #[default]
    Gf8191,
    /// GF(2^8).
    Gf256,
}

/// The decoder, as a scenario names it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DecoderConfig {
    /// Ranks by counting, exact in distribution (fast).
    #[default]
    Counting,
    /// Gauss-Jordan elimination of the coefficient vectors.
    Exact,
}

/// How a multipath flow's source window W (the coding block) keeps pace with its paths
/// (docs/tcp_rlc.md, "Multipath"). A flow with one path has the single-path sender, whose send
/// rule does this, and ignores the choice.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SourceWindow {
    /// One block per round trip (the default): the paths serve the newest block only, so each
    /// block gets one round's deliveries. A block still missing degrees of freedom when the next
    /// block's packets arrive draws duplicates, which halve W and repair it; a block decoded in
    /// time lets W grow by one.
    #[default]
    PerRound,
    /// The paths serve the oldest block with frames unsent, so a block may take several round
    /// trips and seldom comes up short: W grows by one per block for as long as the run lasts
    /// (the earlier rule, kept for comparison).
    PerBlock,
}

/// TCP-RLC's parameters (spec §2.4, §2.9).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpRlcConfig {
    /// r: low-priority coded packets after each high-priority one (paper: (1 + r) p_min ~ 2).
    #[schemars(range(min = 0, max = 1000))]
    pub redundancy: u32,
    /// The coding field.
    #[serde(default)]
    pub field: FieldConfig,
    /// How the receiver finds ranks.
    #[serde(default)]
    pub decoder: DecoderConfig,
    /// W at the start, packets.
    #[serde(default = "default_initial_cwnd")]
    #[schemars(range(min = 1))]
    pub initial_cwnd: u32,
    /// The largest W, packets (the receiver's buffer).
    #[serde(default = "default_max_cwnd")]
    #[schemars(range(min = 1, max = 1000000))]
    pub max_cwnd: u32,
    /// Duplicates that halve W.
    #[serde(default = "default_dupthresh")]
    #[schemars(range(min = 1))]
    pub dupthresh: u32,
    /// The timeout before the first RTT sample, ns.
    #[serde(default = "default_initial_rto")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub initial_rto: Time,
    /// Answer packets of decoded blocks with duplicates too (the literal reading the spec's A3
    /// rejects; an ablation).
    #[serde(default)]
    pub literal_dup: bool,
    /// With several paths, how the source's window keeps pace with what they deliver
    /// (default `per_round`).
    #[serde(default)]
    pub source_window: SourceWindow,
}

fn default_initial_cwnd() -> u32 {
    1
}
fn default_max_cwnd() -> u32 {
    10_000
}
fn default_dupthresh() -> u32 {
    3
}
fn default_initial_rto() -> Time {
    1_000_000_000
}

impl TcpRlcConfig {
    /// Checks the parameters; `path` is the transport's field path.
    pub fn check(&self, path: &str) -> Result<(), ConfigError> {
        let err = |field: &str, message: &str| {
            Err(ConfigError {
                path: format!("{path}.{field}"),
                message: message.into(),
            })
        };
        if self.redundancy > 1000 {
            return err("redundancy", "must be at most 1000");
        }
        if self.initial_cwnd == 0 {
            return err("initial_cwnd", "must be at least 1");
        }
        if self.max_cwnd < self.initial_cwnd {
            return err("max_cwnd", "must not be smaller than initial_cwnd");
        }
        if self.max_cwnd > 1_000_000 {
            return err("max_cwnd", "must be at most 1000000");
        }
        if self.decoder == DecoderConfig::Exact && self.max_cwnd > MAX_EXACT_BLOCK {
            return err(
                "max_cwnd",
                "the exact decoder keeps B^2 coefficients per block: at most 2048 with it",
            );
        }
        if self.dupthresh == 0 {
            return err("dupthresh", "must be at least 1");
        }
        if self.initial_rto == 0 {
            return err("initial_rto", "must be greater than zero");
        }
        Ok(())
    }

    /// The sender's parameters, for `frames` frames in all (None: bulk).
    pub fn sender(&self, frames: Option<u64>) -> RlcSenderConfig {
        RlcSenderConfig {
            redundancy: self.redundancy,
            initial_cwnd: self.initial_cwnd,
            max_cwnd: self.max_cwnd,
            dupthresh: self.dupthresh,
            initial_rto: self.initial_rto,
            frames,
            source_window: self.source_window,
        }
    }

    /// The receiver's field.
    pub fn field(&self) -> RlcField {
        match self.field {
            FieldConfig::Gf8191 => RlcField::Gf8191,
            FieldConfig::Gf256 => RlcField::Gf256,
        }
    }

    /// The receiver's decoder mode.
    pub fn mode(&self) -> DecoderMode {
        match self.decoder {
            DecoderConfig::Counting => DecoderMode::Counting,
            DecoderConfig::Exact => DecoderMode::Exact,
        }
    }
}
