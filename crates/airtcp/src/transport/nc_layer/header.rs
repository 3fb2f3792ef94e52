//! The NC layer's headers as the simulator carries them (small and `Copy`, like the TCP headers).
//!
//! A coded packet names its block, its packet id and the block size, as paper 000 §4.1.3 lists
//! them; its coefficient vector (`sources` bytes on the wire) stays in the flow's block table at
//! the source, where the receiver looks it up by `(block, packet_id)` (see `super::source`), so
//! that `Packet` stays small. Feedback from the receiver is an NC-ACK per innovative packet or a
//! repair request.

use crate::coding::rlnc::HEADER_FIXED_BYTES;

/// `missing` of a repair request for a block of which nothing arrived: the receiver cannot know
/// its size, so the source sends as many repair packets as the block has sources.
pub const MISSING_ALL: u16 = u16::MAX;

/// Bytes a coded payload adds to the longest source packet it combines: the 2-byte length prefix
/// of `coding::rlnc` (so that sources of different lengths decode byte-exact).
pub const PAYLOAD_PREFIX_BYTES: u32 = crate::coding::rlnc::LENGTH_PREFIX_BYTES as u32;

/// The header of a coded packet (source -> receiver).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NcCoded {
    /// The block (generation).
    pub block: u64,
    /// 1-based: `k` for the incremental packet `a_k`, `H + r` for the `r`-th repair packet.
    pub packet_id: u32,
    /// `H`, the block size.
    pub block_size: u16,
    /// Sources the packet combines (the length of its coefficient vector): `k` for `a_k`, all
    /// sources pushed so far for a repair packet.
    pub sources: u16,
    /// The block will get no more sources: it ends at `sources` (the last segment of a finite
    /// transfer came before the block was full).
    pub closed: bool,
}

impl NcCoded {
    /// NC header bytes on the wire: block id, packet id, block size, coefficient count and one
    /// byte per coefficient (`coding::rlnc::CodedHeader::wire_len`).
    pub fn wire_len(&self) -> u32 {
        HEADER_FIXED_BYTES as u32 + self.sources as u32
    }
}

/// An NC-ACK (receiver -> source): one per innovative packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NcAck {
    /// The block the packet was innovative for.
    pub block: u64,
    /// The receiver's rank of that block after the packet (0 in the answer to a packet of a
    /// block already decoded).
    pub rank: u16,
    /// Every block below this one has been decoded and handed to TCP (lets the source free its
    /// blocks even when the NC-ACK that completed one was lost).
    pub decoded_below: u64,
}

/// A repair request (receiver -> source): block id and missing degrees of freedom, never packet
/// ids (coded packets are interchangeable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NcRepairRequest {
    /// The block.
    pub block: u64,
    /// Degrees of freedom missing, or [`MISSING_ALL`].
    pub missing: u16,
}

/// The NC layer's packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcHeader {
    /// A coded data packet.
    Coded(NcCoded),
    /// An NC-ACK.
    Ack(NcAck),
    /// A repair request.
    Repair(NcRepairRequest),
}
