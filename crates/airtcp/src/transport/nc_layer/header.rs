//! The NC layer's headers as the simulator carries them (small and `Copy`, like the TCP headers).
//!
//! A coded packet names its block, its packet id and the block size, as paper 000 §4.1.3 lists
//! them; a repair packet also echoes the send time of the repair request it answers (the idea of
//! RFC 7323's timestamps: the receiver times each request-repair round from its own clock); its
//! coefficient vector (`sources` bytes on the wire) stays in the flow's block table at
//! the source, where the receiver looks it up by `(block, packet_id)` (see `super::source`), so
//! that `Packet` stays small. Feedback from the receiver is an NC-ACK per innovative packet or a
//! repair request.
//!
//! In the network the headers travel as the shim seam's opaque header
//! ([`NcHeader::to_shim`], [`NcHeader::from_shim`]): a tag byte, then the fields in order.

use crate::coding::rlnc::HEADER_FIXED_BYTES;
use crate::sim::Time;
use crate::transport::shim::{ShimHeader, ShimReader, ShimWriter};

/// `missing` of a repair request for a block of which nothing arrived: the receiver cannot know
/// its size, so the source sends as many repair packets as the block has sources.
pub const MISSING_ALL: u16 = u16::MAX;

/// Bytes a coded payload adds to the longest source packet it combines: the 2-byte length prefix
/// of `coding::rlnc` (so that sources of different lengths decode byte-exact).
pub const PAYLOAD_PREFIX_BYTES: u32 = crate::coding::rlnc::LENGTH_PREFIX_BYTES as u32;

/// `echo` of a repair packet that answers no request (a TCP retransmission turned repair).
pub const NO_ECHO: Time = Time::MAX;

/// Bytes a timestamp takes on the wire: a repair request's send time and a repair packet's echo
/// of it (a 32-bit clock, as RFC 7323's TSval and TSecr).
pub const TIMESTAMP_BYTES: u32 = 4;

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
    /// A repair packet's echo of the send time of the repair request it answers ([`NO_ECHO`]
    /// for none, and in every incremental packet).
    pub echo: Time,
}

impl NcCoded {
    /// Whether the packet is a repair packet (its id is past the block's `H`).
    pub fn is_repair(&self) -> bool {
        self.packet_id > self.block_size as u32
    }

    /// NC header bytes on the wire: block id, packet id, block size, coefficient count and one
    /// byte per coefficient (`coding::rlnc::CodedHeader::wire_len`), and a repair packet's echo.
    pub fn wire_len(&self) -> u32 {
        let echo = if self.is_repair() { TIMESTAMP_BYTES } else { 0 };
        HEADER_FIXED_BYTES as u32 + self.sources as u32 + echo
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
    /// Echoes a congestion mark the network put on a coded packet (TCP's ECE flag, RFC 3168
    /// §6.1.3): a relay dropped one of the flow's packets for a full buffer.
    pub ece: bool,
}

/// A repair request (receiver -> source): block id and missing degrees of freedom, never packet
/// ids (coded packets are interchangeable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NcRepairRequest {
    /// The block.
    pub block: u64,
    /// Degrees of freedom missing, or [`MISSING_ALL`].
    pub missing: u16,
    /// When the receiver sent it; the repair packets that answer it echo it.
    pub sent_at: Time,
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

/// Tags of the three kinds in a [`ShimHeader`].
const TAG_CODED: u8 = 0;
const TAG_ACK: u8 = 1;
const TAG_REPAIR: u8 = 2;

impl NcHeader {
    /// The header as the network carries it (at most 26 of the shim header's bytes).
    #[inline]
    pub fn to_shim(&self) -> ShimHeader {
        let mut w = ShimWriter::new();
        match *self {
            NcHeader::Coded(c) => {
                w.u8(TAG_CODED)
                    .u64(c.block)
                    .u32(c.packet_id)
                    .u16(c.block_size)
                    .u16(c.sources)
                    .bool(c.closed)
                    .u64(c.echo);
            }
            NcHeader::Ack(a) => {
                w.u8(TAG_ACK)
                    .u64(a.block)
                    .u16(a.rank)
                    .u64(a.decoded_below)
                    .bool(a.ece);
            }
            NcHeader::Repair(r) => {
                w.u8(TAG_REPAIR).u64(r.block).u16(r.missing).u64(r.sent_at);
            }
        }
        w.finish()
    }

    /// The header [`to_shim`](Self::to_shim) wrote.
    #[inline]
    pub fn from_shim(h: &ShimHeader) -> NcHeader {
        let mut r = ShimReader::new(h);
        match r.u8() {
            TAG_CODED => NcHeader::Coded(NcCoded {
                block: r.u64(),
                packet_id: r.u32(),
                block_size: r.u16(),
                sources: r.u16(),
                closed: r.bool(),
                echo: r.u64(),
            }),
            TAG_ACK => NcHeader::Ack(NcAck {
                block: r.u64(),
                rank: r.u16(),
                decoded_below: r.u64(),
                ece: r.bool(),
            }),
            TAG_REPAIR => NcHeader::Repair(NcRepairRequest {
                block: r.u64(),
                missing: r.u16(),
                sent_at: r.u64(),
            }),
            tag => unreachable!("not an NC header (tag {tag})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_cross_the_shim_header_unchanged() {
        let headers = [
            NcHeader::Coded(NcCoded {
                block: u64::MAX - 1,
                packet_id: u32::MAX,
                block_size: 4096,
                sources: u16::MAX,
                closed: true,
                echo: NO_ECHO,
            }),
            NcHeader::Coded(NcCoded {
                block: 0,
                packet_id: 1,
                block_size: 1,
                sources: 1,
                closed: false,
                echo: 123_456_789,
            }),
            NcHeader::Ack(NcAck {
                block: 1 << 40,
                rank: 17,
                decoded_below: (1 << 40) - 3,
                ece: true,
            }),
            NcHeader::Repair(NcRepairRequest {
                block: 12,
                missing: MISSING_ALL,
                sent_at: u64::MAX - 7,
            }),
        ];
        for h in headers {
            assert_eq!(NcHeader::from_shim(&h.to_shim()), h);
        }
    }
}
