//! The NC layer's configuration: the `nc` block of a TCP transport (paper 000 §4.1.3).

use serde::{Deserialize, Serialize};

use crate::coding::rlnc::MAX_BLOCK_SIZE;
use crate::error::ConfigError;
use crate::sim::Time;

impl NcConfig {
    /// The largest block the layer can open, segments.
    pub fn largest_block(&self) -> u32 {
        match self.block {
            NcBlock::Cwnd => self.max_block,
            NcBlock::Fixed(h) => h,
        }
    }

    /// Block sizes within the codec's limit and a repair interval above zero; `p` is this
    /// block's path (`flows[0].transport.nc`).
    pub(crate) fn check(&self, p: &str) -> Result<(), ConfigError> {
        let within = |path: String, v: u32| {
            if (1..=MAX_BLOCK_SIZE as u32).contains(&v) {
                Ok(())
            } else {
                Err(ConfigError {
                    path,
                    message: format!("must be from 1 to {MAX_BLOCK_SIZE}"),
                })
            }
        };
        if let NcBlock::Fixed(h) = self.block {
            within(format!("{p}.block"), h)?;
        }
        within(format!("{p}.max_block"), self.max_block)?;
        if self.repair_interval == 0 {
            return Err(ConfigError {
                path: format!("{p}.repair_interval"),
                message: "must be greater than zero".into(),
            });
        }
        Ok(())
    }
}

/// The NC layer (paper 000 §4.1.3, §4.2.1; `transport::nc_layer`, docs/nc_layer.md): the source
/// codes TCP's segments in blocks with random linear network coding, the receiver ACKs every
/// innovative packet and asks for repairs, and congestion drops at the source are passed to TCP.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NcConfig {
    /// Block size H_s: `cwnd` (the sender's window when the block opens) or a fixed number of
    /// segments (1 to 4096).
    #[serde(default)]
    pub block: NcBlock,
    /// Largest H_s with `block: cwnd`, segments (1 to 4096): the header carries one coefficient
    /// per source.
    #[serde(default = "default_nc_max_block")]
    #[schemars(range(min = 1, max = 4096))]
    pub max_block: u32,
    /// How often the receiver asks again for a block still missing degrees of freedom (and how
    /// long the newest block must be silent before it is asked for), ns.
    #[serde(default = "default_nc_repair_interval")]
    #[schemars(transform = crate::quantity::duration, range(min = 1))]
    pub repair_interval: Time,
    /// What the layer does when a relay's full buffer dropped one of the flow's packets (the
    /// relay marks the next one it forwards, the receiver echoes the mark): `signal` makes it a
    /// loss TCP sees, once per round trip; `mask` hides it like a wireless loss (the layer
    /// repairs the packet and TCP never learns: what paper 000's layer does, its analysis
    /// assuming that only the source overflows, §4.2.1 footnote 5).
    #[serde(default)]
    pub relay_congestion: RelayCongestion,
}

/// The NC layer's answer to congestion marks from relays (docs/nc_layer.md, "Congestion at
/// relays").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RelayCongestion {
    /// Withhold one segment's ACK per round trip with marks, as for a drop at the source.
    #[default]
    Signal,
    /// Ignore the marks: relays' drops are repaired and hidden from TCP.
    Mask,
}

/// The NC layer's block size: the TCP sender's window at the moment a block opens (the paper's
/// choice, "H_s is set to the TCP congestion window size"), written `cwnd`, or a fixed number of
/// segments, written as that number. (Not a `kind`-tagged choice: a keyword or a number.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NcBlock {
    /// `min(cwnd, rwnd)` in whole segments when the block opens, at most `max_block`.
    #[default]
    Cwnd,
    /// A fixed number of segments.
    Fixed(u32),
}

impl Serialize for NcBlock {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            NcBlock::Cwnd => s.serialize_str("cwnd"),
            NcBlock::Fixed(h) => s.serialize_u32(*h),
        }
    }
}

impl<'de> Deserialize<'de> for NcBlock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = NcBlock;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`cwnd` or a number of segments")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<NcBlock, E> {
                match v {
                    "cwnd" => Ok(NcBlock::Cwnd),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<NcBlock, E> {
                u32::try_from(v)
                    .map(NcBlock::Fixed)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<NcBlock, E> {
                u32::try_from(v)
                    .map(NcBlock::Fixed)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl schemars::JsonSchema for NcBlock {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NcBlock".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`cwnd`, or a number of segments.",
            "oneOf": [
                {"type": "string", "const": "cwnd"},
                {"type": "integer", "minimum": 1, "maximum": MAX_BLOCK_SIZE},
            ],
        })
    }
}

fn default_nc_max_block() -> u32 {
    64
}

fn default_nc_repair_interval() -> Time {
    100_000_000
}
