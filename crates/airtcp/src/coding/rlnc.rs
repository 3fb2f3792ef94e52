//! Generation-based random linear network coding (RLNC) over GF(2^8), as the NC layer of paper
//! 000 (Seferoglu & Modiano, "TCP-aware backpressure routing and scheduling", TMC 2016) §4.1.3
//! uses it at the edge points of the wireless network.
//!
//! # Model (paper 000 §4.1.3, symbols as in the paper)
//!
//! The stream of source packets `eta_1, eta_2, ...` of a flow is cut into blocks (generations,
//! Chou & Wu 2007) of `H` packets; the NC layer sets `H` to the TCP congestion window. Within a
//! block the encoder is *incremental*: as soon as source packet `eta_k` arrives it emits
//!
//! ```text
//! a_k = alpha_{k,1} eta_1 + ... + alpha_{k,k} eta_k          (k = 1..H)
//! ```
//!
//! so coding never waits for the rest of the block ("to avoid coding delay"). `alpha_{k,j}` for
//! `j < k` is uniform over GF(2^8) and `alpha_{k,k}` uniform over its non-zero elements: a receiver
//! holding `k - 1` packets that span `eta_1..eta_{k-1}` always finds `a_k` innovative, because
//! `a_k` is the only one with a non-zero `eta_k` term. Once all `H` sources are in, the encoder
//! produces any number of *repair* packets `sum_{j=1..H} alpha_j eta_j` with all coefficients
//! uniform (not all zero), answering a receiver's request "block `b` misses `m` degrees of
//! freedom"; the request names no packet ids because coded packets are sequence agnostic.
//!
//! The decoder keeps the received coefficient rows in reduced row-echelon form (online
//! Gauss-Jordan elimination), so every arrival is classified on the spot as innovative (the rank
//! grew; the NC layer sends one ACK per such packet, the "ACK every degree of freedom" idea of
//! Sundararajan et al., INFOCOM 2009) or not (counted and dropped). When the rank reaches `H` the
//! rows have become the identity and the payload rows are the source packets.
//!
//! # Choices and deviations
//!
//! - **Coefficient vector length.** An incremental packet `k` carries `k` coefficients
//!   (`alpha_{k,1..k}`), a repair packet one per source packet the encoder holds (`H` once the
//!   block is complete); missing trailing coefficients are zero. This is what the paper's header
//!   ("coding coefficients") needs to carry and saves `H - k` bytes per incremental packet.
//! - **Packet ids** are 1-based like the paper's `a_k`: incremental packets are `1..=H`, repair
//!   packets `H+1, H+2, ...` in the order they were produced.
//! - **Lengths.** Sources may have different lengths (a TCP stream's last segment is short). Each
//!   source is coded as the *symbol* `[len as u16 big-endian] ++ bytes`, zero-extended to the
//!   longest symbol it is combined with. Because zero-extension is linear, a coded payload only needs
//!   to be as long as the longest symbol in its combination, and the decoder zero-extends shorter
//!   rows; the coded length prefix gives `decode` the exact original bytes back (trailing zero
//!   bytes included). Cost: 2 bytes per coded payload. The paper does not say how it pads.
//! - **Coefficients-only mode** ([`PayloadMode::CoefficientsOnly`]) carries no payload bytes at all;
//!   encoder and decoder run exactly the same coefficient draws and elimination, so the simulator
//!   can track degrees of freedom of large runs without moving bytes.
//! - **Field size is honest.** A uniformly random repair packet is non-innovative with probability
//!   `(256^r - 1) / (256^H - 1) ~ 256^-m` for a receiver of rank `r` missing `m = H - r`
//!   dimensions: about 1/256 when one is missing. Nothing here assumes otherwise; a receiver simply
//!   asks again.
//! - **Partial blocks.** [`BlockEncoder::repair`] also works before the block is full (it combines
//!   the sources pushed so far), and [`BlockDecoder::decoded_prefix`] reports how many leading
//!   sources are already decodable, so the last, never-filled block of a finite transfer can still
//!   be delivered. The paper only describes full blocks.
//!
//! Allocation: encoder and decoder own all their buffers and reuse them across packets and (via
//! `reset`) across blocks; [`BlockEncoder::push_source`], [`BlockEncoder::repair`] and
//! [`BlockDecoder::receive`] write into caller-supplied or internal buffers and allocate only while
//! those grow to their working size. [`BlockDecoder::decode`] allocates the returned vectors (once
//! per block); [`BlockDecoder::decoded_source`] borrows instead.

use std::fmt;

use super::gf256;
use crate::sim::Rng;

/// Largest block size `H` accepted. The decoder holds an `H x H` coefficient matrix and every
/// repair header carries `H` coefficient bytes, so blocks far beyond a few hundred packets are
/// impractical anyway (at 4096 the header alone outgrows an MTU); the NC layer should cap `H`.
pub const MAX_BLOCK_SIZE: usize = 4096;

/// Longest source packet, in bytes: the coded length prefix is a `u16`.
pub const MAX_SOURCE_LEN: usize = u16::MAX as usize;

/// Bytes of length prefix in front of every source packet inside a coded payload.
pub const LENGTH_PREFIX_BYTES: usize = 2;

/// Fixed part of the coding header on the wire, for airtime and overhead accounting: block id
/// (4 bytes, wrapping; only a window of blocks is ever in flight), packet id (2), block size (2)
/// and the number of coefficients that follow (2). Not serialised by this module.
pub const HEADER_FIXED_BYTES: usize = 10;

/// Whether coded packets carry real coded bytes or only their coefficient vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadMode {
    /// Payloads are coded and decoded byte for byte.
    Bytes,
    /// No payload bytes: only coefficients (and thus ranks) are tracked. Payloads handed to the
    /// encoder or decoder are ignored and coded payloads are left empty.
    CoefficientsOnly,
}

/// The NC-layer header of a coded packet (paper 000 §4.1.3: "block ID, packet ID, block size,
/// and coding coefficients").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CodedHeader {
    /// The block (generation) the packet was coded from.
    pub block_id: u64,
    /// 1-based: `k` for the incremental packet `a_k` (`1..=H`), `H + r` for the `r`-th repair.
    pub packet_id: u32,
    /// `H`, the number of source packets in the block.
    pub block_size: u16,
    /// `alpha_{k,1..}`: the coefficient of source `j` (1-based) at index `j - 1`. Length `k` for
    /// incremental packet `k`, the number of sources the encoder held (`H` for a full block) for a
    /// repair packet; sources past the end have coefficient zero.
    pub coefficients: Vec<u8>,
}

impl CodedHeader {
    /// True for a repair packet (produced after, or beyond, the incremental ones).
    pub fn is_repair(&self) -> bool {
        self.packet_id as usize > self.block_size as usize
    }

    /// Header size on the wire: [`HEADER_FIXED_BYTES`] plus one byte per coefficient.
    pub fn wire_len(&self) -> usize {
        HEADER_FIXED_BYTES + self.coefficients.len()
    }
}

/// A coded packet: header plus coded payload (empty in [`PayloadMode::CoefficientsOnly`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CodedPacket {
    /// The coding header.
    pub header: CodedHeader,
    /// `sum_j alpha_j * symbol_j`, as long as the longest symbol it combines (see the module
    /// header for the symbol format).
    pub payload: Vec<u8>,
}

/// A receiver's request for more coded packets of a block (paper 000 §4.1.3): which block, and how
/// many degrees of freedom it misses. No packet ids: coded packets are interchangeable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepairRequest {
    /// The block concerned.
    pub block_id: u64,
    /// `H - rank` at the receiver.
    pub missing: usize,
}

/// Errors of [`BlockEncoder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// All `H` sources of the block have already been pushed.
    BlockFull {
        /// `H`.
        block_size: usize,
    },
    /// The source packet is longer than [`MAX_SOURCE_LEN`].
    PayloadTooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A repair packet was asked for before any source was pushed.
    NoSources,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::BlockFull { block_size } => {
                write!(f, "block already holds its {block_size} source packets")
            }
            EncodeError::PayloadTooLong { len } => {
                write!(f, "source packet of {len} bytes exceeds {MAX_SOURCE_LEN}")
            }
            EncodeError::NoSources => write!(f, "no source packet to code a repair packet from"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Errors of [`BlockDecoder::receive`]: the packet does not belong to this decoder's block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiveError {
    /// The packet is of another block.
    WrongBlock {
        /// This decoder's block id.
        expected: u64,
        /// The packet's.
        got: u64,
    },
    /// The packet claims another block size.
    BlockSizeMismatch {
        /// This decoder's `H`.
        expected: usize,
        /// The packet's.
        got: usize,
    },
    /// More coefficients than sources in the block.
    TooManyCoefficients {
        /// Number of coefficients in the packet.
        len: usize,
        /// `H`.
        block_size: usize,
    },
}

impl fmt::Display for ReceiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReceiveError::WrongBlock { expected, got } => {
                write!(
                    f,
                    "packet of block {got} given to the decoder of block {expected}"
                )
            }
            ReceiveError::BlockSizeMismatch { expected, got } => {
                write!(f, "packet says block size {got}, decoder has {expected}")
            }
            ReceiveError::TooManyCoefficients { len, block_size } => {
                write!(f, "{len} coefficients for a block of {block_size}")
            }
        }
    }
}

impl std::error::Error for ReceiveError {}

/// Errors of [`BlockDecoder::decode`] and [`BlockDecoder::decoded_source`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Rank below `H`.
    Incomplete {
        /// Degrees of freedom still missing.
        missing: usize,
    },
    /// Source `index` (0-based) is not decodable yet.
    NotDecoded {
        /// 0-based source index (`eta_{index+1}`).
        index: usize,
    },
    /// The decoder runs in [`PayloadMode::CoefficientsOnly`] and has no bytes.
    CoefficientsOnly,
    /// The decoded length prefix of source `index` exceeds its row: the coded packets were not
    /// produced by a consistent encoder (never happens with [`BlockEncoder`]).
    CorruptLength {
        /// 0-based source index.
        index: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Incomplete { missing } => {
                write!(f, "block incomplete: {missing} degrees of freedom missing")
            }
            DecodeError::NotDecoded { index } => write!(f, "source {index} not decoded yet"),
            DecodeError::CoefficientsOnly => write!(f, "decoder tracks coefficients only"),
            DecodeError::CorruptLength { index } => {
                write!(f, "decoded length of source {index} exceeds its row")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// Draws GF(2^8) coefficients, eight per `next_u64`, so that a block costs `~H/8` generator calls
/// per coded packet rather than `H`. Leftover bytes are discarded at the end of each packet, which
/// keeps every packet's draws a pure function of the stream position (determinism).
struct CoefficientDraw<'a> {
    rng: &'a mut Rng,
    bits: u64,
    bytes_left: u32,
}

impl<'a> CoefficientDraw<'a> {
    fn new(rng: &'a mut Rng) -> Self {
        CoefficientDraw {
            rng,
            bits: 0,
            bytes_left: 0,
        }
    }

    /// Uniform over all 256 field elements.
    fn any(&mut self) -> u8 {
        if self.bytes_left == 0 {
            self.bits = self.rng.next_u64();
            self.bytes_left = 8;
        }
        let byte = self.bits as u8;
        self.bits >>= 8;
        self.bytes_left -= 1;
        byte
    }

    /// Uniform over the 255 non-zero elements (rejection, so no modulo bias).
    fn nonzero(&mut self) -> u8 {
        loop {
            let byte = self.any();
            if byte != 0 {
                return byte;
            }
        }
    }
}

/// `dst += c * src` for payload rows of possibly different lengths: rows are implicitly
/// zero-extended, so `dst` grows (with zeros) if `src` is longer.
fn payload_mul_acc(dst: &mut Vec<u8>, src: &[u8], c: u8) {
    if dst.len() < src.len() {
        dst.resize(src.len(), 0);
    }
    gf256::mul_acc(&mut dst[..src.len()], src, c);
}

/// 1 + the index of the last non-zero entry of `row[..upper]`, or 0 if those are all zero.
fn trimmed_span(row: &[u8], upper: usize) -> usize {
    row[..upper]
        .iter()
        .rposition(|&c| c != 0)
        .map_or(0, |i| i + 1)
}

fn assert_block_size(block_size: usize) {
    assert!(
        (1..=MAX_BLOCK_SIZE).contains(&block_size),
        "block size {block_size} outside 1..={MAX_BLOCK_SIZE}"
    );
}

mod decoder;
mod encoder;

pub use decoder::{BlockDecoder, Reception};
pub use encoder::BlockEncoder;

#[cfg(test)]
mod tests;
