//! TCP headers as the simulator carries them (segment-granular sequence numbers).

/// Most SACK blocks an ACK carries: 3, the limit when the timestamp option is also present
/// (RFC 2018 §3; Linux and ns-3 send timestamps by default).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A SACK block: segments `[start, end)` were received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlock {
    /// First segment of the block.
    pub start: u64,
    /// One past the last segment of the block.
    pub end: u64,
}

/// Header of a data segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataHeader {
    /// Segment number.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// The last segment of a finite transfer.
    pub last: bool,
    /// Sent before (for traces only: the receiver cannot tell in real TCP).
    pub retransmission: bool,
}

/// Header of a pure acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckHeader {
    /// Next segment expected (cumulative ACK).
    pub ack: u64,
    /// SACK blocks, most recent first (RFC 2018 §4).
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// How many entries of `sack` are used.
    pub n_sack: u8,
}

impl AckHeader {
    /// A cumulative ACK without SACK blocks.
    pub fn cumulative(ack: u64) -> Self {
        AckHeader {
            ack,
            ..Default::default()
        }
    }

    /// The SACK blocks in use.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
}
