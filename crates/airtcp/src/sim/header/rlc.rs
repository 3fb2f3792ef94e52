//! TCP-RLC's two headers as the simulator carries them (Ryu, Bhadra & Shakkottai, Allerton 2009,
//! §III): the data-direction packet (a systematic data frame or a random linear combination of a
//! block, marked high or low priority) and the feedback the receiver returns for every such
//! packet (ACK, pseudo-ACK or duplicate). Both are `Copy` and small: they live inline in
//! [`crate::sim::Packet`].
//!
//! A coded packet's coefficients are not carried: a block reaches hundreds of packets and 13-bit
//! coefficients for each would outgrow a 256-byte packet, so it carries the 64-bit seed they are
//! regenerated from (`coding::field::coefficients_from_seed`) [spec §2.3, I].

use crate::sim::Time;

/// What a data-direction packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// Data frame `frame` itself (a unit coefficient row of its block).
    Systematic,
    /// A combination of the whole block with the coefficients of `seed`.
    Coded {
        /// The seed the coefficient vector is regenerated from.
        seed: u64,
    },
}

/// The router's service class of a packet (§II-G): high before low, always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// Data frames and repairs (at most W in transit).
    High,
    /// The r coded packets sent after every high one.
    Low,
}

/// Path-controller marks of a multipath flow (§II-F): the path, its round number and the
/// round's size (its window when the round began). Zero on a single-path flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PathMark {
    /// The path's index.
    pub path: u8,
    /// The round the packet was sent in.
    pub round: u32,
    /// How many high-priority packets the round has.
    pub round_size: u32,
}

/// A data-direction packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RlcData {
    /// The frame (systematic), or the number of the coded packet in the flow (coded; traces and
    /// scripted losses only, the receiver does not use it).
    pub frame: u64,
    /// Systematic or coded.
    pub payload: Payload,
    /// High or low.
    pub priority: Priority,
    /// First frame of the packet's block.
    pub block_start: u64,
    /// Frames in the block.
    pub block_size: u32,
    /// When the sender sent it (echoed in the feedback for the RTT).
    pub sent_at: Time,
    /// Multipath marks.
    pub mark: PathMark,
}

impl RlcData {
    /// One past the block's last frame.
    pub fn block_end(&self) -> u64 {
        self.block_start + self.block_size as u64
    }

    /// Whether it is a coded packet.
    pub fn is_coded(&self) -> bool {
        matches!(self.payload, Payload::Coded { .. })
    }
}

/// The receiver's feedback for one data-direction packet (§III-B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RlcFeedback {
    /// The smallest frame not decoded ("next expected"): the cumulative ACK.
    pub cum: u64,
    /// The first frame of the block `cum` lies in plus that block's rank: "next expected +
    /// innovative packets that help decode it", the pseudo-ACK.
    pub seen: u64,
    /// The packet did not help decode the next expected frame (a duplicate ACK).
    pub dup: bool,
    /// The packet's send time.
    pub echo: Time,
    /// The packet's path marks, echoed.
    pub mark: PathMark,
    /// Packets of the marked path and round received so far (multipath; 0 otherwise).
    pub count: u32,
}

/// Every TCP-RLC data-direction packet is this long on the air, headers included [P §IV].
pub const PACKET_BYTES: u32 = 256;

/// A feedback packet's length [I: an IP + TCP header; the paper's uplink is perfect].
pub const FEEDBACK_BYTES: u32 = 40;

/// The bytes a capture writes for a header (docs/pcap.md, "Scheme headers"): its fields in
/// declaration order, big-endian, a `u8` for each enum (data: systematic 0 / coded 1, then the
/// seed, 0 for a systematic frame; priority: high 0 / low 1; a flag: 0 or 1).
impl RlcData {
    /// Appends the header's bytes to `out` (47 bytes).
    pub fn write_bytes(&self, out: &mut Vec<u8>) {
        let (coded, seed) = match self.payload {
            Payload::Systematic => (0, 0),
            Payload::Coded { seed } => (1, seed),
        };
        out.extend_from_slice(&self.frame.to_be_bytes());
        out.push(coded);
        out.extend_from_slice(&seed.to_be_bytes());
        out.push((self.priority == Priority::Low) as u8);
        out.extend_from_slice(&self.block_start.to_be_bytes());
        out.extend_from_slice(&self.block_size.to_be_bytes());
        out.extend_from_slice(&self.sent_at.to_be_bytes());
        self.mark.write_bytes(out);
    }
}

impl RlcFeedback {
    /// Appends the header's bytes to `out` (38 bytes).
    pub fn write_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.cum.to_be_bytes());
        out.extend_from_slice(&self.seen.to_be_bytes());
        out.push(self.dup as u8);
        out.extend_from_slice(&self.echo.to_be_bytes());
        self.mark.write_bytes(out);
        out.extend_from_slice(&self.count.to_be_bytes());
    }
}

impl PathMark {
    fn write_bytes(&self, out: &mut Vec<u8>) {
        out.push(self.path);
        out.extend_from_slice(&self.round.to_be_bytes());
        out.extend_from_slice(&self.round_size.to_be_bytes());
    }
}
