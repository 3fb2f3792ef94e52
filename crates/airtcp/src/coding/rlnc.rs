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

/// The encoder of one block at an edge point (source side of the NC layer).
#[derive(Debug, Clone)]
pub struct BlockEncoder {
    mode: PayloadMode,
    block_id: u64,
    block_size: usize,
    /// `symbols[j]` = length prefix ++ bytes of source `eta_{j+1}`, for `j < pushed`. Entries at
    /// and beyond `pushed` are stale buffers kept for their capacity.
    symbols: Vec<Vec<u8>>,
    pushed: usize,
    /// Longest symbol among the first `pushed` sources: the length of the next coded payload.
    longest_symbol: usize,
    repairs_sent: u32,
}

/// Panics unless `1 <= block_size <= MAX_BLOCK_SIZE` (the decoder holds an H x H matrix).
fn assert_block_size(block_size: usize) {
    assert!(
        (1..=MAX_BLOCK_SIZE).contains(&block_size),
        "block size {block_size} outside 1..={MAX_BLOCK_SIZE}"
    );
}

impl BlockEncoder {
    /// An empty encoder for block `block_id` of `block_size` (= `H`) sources. Panics unless
    /// `1 <= block_size <= MAX_BLOCK_SIZE`.
    pub fn new(mode: PayloadMode, block_id: u64, block_size: usize) -> Self {
        let mut encoder = BlockEncoder {
            mode,
            block_id,
            block_size: 0,
            symbols: Vec::new(),
            pushed: 0,
            longest_symbol: 0,
            repairs_sent: 0,
        };
        encoder.reset(block_id, block_size);
        encoder
    }

    /// Starts a new block, keeping the buffers of the old one. Panics unless
    /// `1 <= block_size <= MAX_BLOCK_SIZE`.
    pub fn reset(&mut self, block_id: u64, block_size: usize) {
        assert_block_size(block_size);
        self.block_id = block_id;
        self.block_size = block_size;
        self.pushed = 0;
        self.longest_symbol = 0;
        self.repairs_sent = 0;
    }

    /// The block id.
    pub fn block_id(&self) -> u64 {
        self.block_id
    }

    /// `H`.
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Source packets pushed so far (`k` of the last incremental packet).
    pub fn sources_pushed(&self) -> usize {
        self.pushed
    }

    /// True once all `H` sources are in (repairs then combine the whole block).
    pub fn is_full(&self) -> bool {
        self.pushed == self.block_size
    }

    /// Repair packets produced for this block so far.
    pub fn repairs_sent(&self) -> u32 {
        self.repairs_sent
    }

    /// Adds source packet `eta_k` (`k = sources_pushed() + 1`) and writes the incremental coded
    /// packet `a_k = sum_{j<=k} alpha_{k,j} eta_j` into `out`, reusing `out`'s buffers.
    /// `alpha_{k,k}` is non-zero. In [`PayloadMode::CoefficientsOnly`] `payload` is ignored.
    pub fn push_source(
        &mut self,
        payload: &[u8],
        rng: &mut Rng,
        out: &mut CodedPacket,
    ) -> Result<(), EncodeError> {
        if self.pushed == self.block_size {
            return Err(EncodeError::BlockFull {
                block_size: self.block_size,
            });
        }
        if self.mode == PayloadMode::Bytes {
            if payload.len() > MAX_SOURCE_LEN {
                return Err(EncodeError::PayloadTooLong { len: payload.len() });
            }
            if self.symbols.len() == self.pushed {
                self.symbols.push(Vec::new());
            }
            let symbol = &mut self.symbols[self.pushed];
            symbol.clear();
            symbol.extend_from_slice(&(payload.len() as u16).to_be_bytes());
            symbol.extend_from_slice(payload);
            self.longest_symbol = self.longest_symbol.max(symbol.len());
        }
        self.pushed += 1;
        let k = self.pushed;

        let coefficients = &mut out.header.coefficients;
        coefficients.clear();
        let mut draw = CoefficientDraw::new(rng);
        coefficients.extend((1..k).map(|_| draw.any()));
        coefficients.push(draw.nonzero());

        out.header.block_id = self.block_id;
        out.header.packet_id = k as u32;
        out.header.block_size = self.block_size as u16;
        self.combine(&out.header.coefficients, &mut out.payload);
        Ok(())
    }

    /// Writes a repair packet into `out`: all sources pushed so far (the whole block once
    /// [`is_full`](Self::is_full)) with uniformly random coefficients, not all zero. Call it
    /// `missing` times to answer a [`RepairRequest`]; each call draws fresh coefficients.
    pub fn repair(&mut self, rng: &mut Rng, out: &mut CodedPacket) -> Result<(), EncodeError> {
        if self.pushed == 0 {
            return Err(EncodeError::NoSources);
        }
        let coefficients = &mut out.header.coefficients;
        let mut draw = CoefficientDraw::new(rng);
        loop {
            coefficients.clear();
            coefficients.extend((0..self.pushed).map(|_| draw.any()));
            // An all-zero vector carries nothing (probability 256^-k); draw again.
            if coefficients.iter().any(|&c| c != 0) {
                break;
            }
        }
        self.repairs_sent += 1;
        out.header.block_id = self.block_id;
        out.header.packet_id = (self.block_size as u32).saturating_add(self.repairs_sent);
        out.header.block_size = self.block_size as u16;
        self.combine(&out.header.coefficients, &mut out.payload);
        Ok(())
    }

    /// `payload = sum_j coefficients[j] * symbol_j` (empty in coefficients-only mode).
    fn combine(&self, coefficients: &[u8], payload: &mut Vec<u8>) {
        payload.clear();
        if self.mode == PayloadMode::CoefficientsOnly {
            return;
        }
        payload.resize(self.longest_symbol, 0);
        for (symbol, &c) in self.symbols.iter().zip(coefficients) {
            gf256::mul_acc(&mut payload[..symbol.len()], symbol, c);
        }
    }
}

/// Whether a received packet increased the decoder's rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reception {
    /// It did; `rank` is the new rank. The NC layer ACKs the `rank`-th source packet of the block.
    Innovative {
        /// Rank after this packet.
        rank: usize,
    },
    /// Linearly dependent on what was already received (a duplicate, or an unlucky random
    /// combination): counted and dropped.
    NotInnovative,
}

impl Reception {
    /// True for [`Reception::Innovative`].
    pub fn is_innovative(&self) -> bool {
        matches!(self, Reception::Innovative { .. })
    }
}

/// Marks a column without a pivot row in [`BlockDecoder::slot_of_column`].
const NO_PIVOT: u32 = u32::MAX;

/// The decoder of one block at a receiver (sink side of the NC layer): online Gauss-Jordan
/// elimination over GF(2^8).
///
/// Invariant (reduced row-echelon form): the `rank` stored rows ("slots") each have a pivot
/// column whose entry is 1 and which is zero in every other stored row; a row's entries left of
/// its pivot are zero. So a stored row whose only non-zero entry is its pivot `j` *is* source
/// `eta_{j+1}`, and at full rank every row is.
#[derive(Debug, Clone)]
pub struct BlockDecoder {
    mode: PayloadMode,
    block_id: u64,
    block_size: usize,
    /// Slot-major `H x H` coefficient rows; slot `s` occupies `[s*H, (s+1)*H)`. Slots `< rank`
    /// are stored rows; slot `rank` is the scratch row of the packet being received.
    coefficients: Vec<u8>,
    /// Per slot: 1 + the column of its last non-zero coefficient, so row operations touch only
    /// `[pivot, span)` (incremental packets make rows short).
    spans: Vec<usize>,
    /// Per slot: the coded payload row, zero-extended implicitly (bytes mode only).
    payloads: Vec<Vec<u8>>,
    /// Per column: the slot whose pivot it is, or [`NO_PIVOT`].
    slot_of_column: Vec<u32>,
    rank: usize,
    innovative: u64,
    non_innovative: u64,
}

impl BlockDecoder {
    /// An empty decoder for block `block_id` of `block_size` (= `H`) sources. Panics unless
    /// `1 <= block_size <= MAX_BLOCK_SIZE`.
    pub fn new(mode: PayloadMode, block_id: u64, block_size: usize) -> Self {
        let mut decoder = BlockDecoder {
            mode,
            block_id,
            block_size: 0,
            coefficients: Vec::new(),
            spans: Vec::new(),
            payloads: Vec::new(),
            slot_of_column: Vec::new(),
            rank: 0,
            innovative: 0,
            non_innovative: 0,
        };
        decoder.reset(block_id, block_size);
        decoder
    }

    /// Starts over for another block, keeping the buffers (they only grow). Panics unless
    /// `1 <= block_size <= MAX_BLOCK_SIZE`.
    pub fn reset(&mut self, block_id: u64, block_size: usize) {
        assert_block_size(block_size);
        self.block_id = block_id;
        self.block_size = block_size;
        // Rows are zeroed when a packet is written into a slot, so no clearing here.
        self.coefficients.resize(block_size * block_size, 0);
        self.spans.clear();
        self.spans.resize(block_size, 0);
        if self.mode == PayloadMode::Bytes && self.payloads.len() < block_size {
            self.payloads.resize_with(block_size, Vec::new);
        }
        self.slot_of_column.clear();
        self.slot_of_column.resize(block_size, NO_PIVOT);
        self.rank = 0;
        self.innovative = 0;
        self.non_innovative = 0;
    }

    /// The block id.
    pub fn block_id(&self) -> u64 {
        self.block_id
    }

    /// `H`.
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Degrees of freedom received (linearly independent packets).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// `H - rank`: how many more innovative packets decoding needs.
    pub fn missing(&self) -> usize {
        self.block_size - self.rank
    }

    /// True once rank = `H`.
    pub fn is_complete(&self) -> bool {
        self.rank == self.block_size
    }

    /// Innovative packets received (equals [`rank`](Self::rank)).
    pub fn innovative_received(&self) -> u64 {
        self.innovative
    }

    /// Non-innovative packets received and dropped (duplicates, dependent combinations, packets
    /// arriving after completion).
    pub fn non_innovative_received(&self) -> u64 {
        self.non_innovative
    }

    /// The request to send to the encoder, or `None` if the block is complete.
    pub fn repair_request(&self) -> Option<RepairRequest> {
        (!self.is_complete()).then_some(RepairRequest {
            block_id: self.block_id,
            missing: self.missing(),
        })
    }

    /// Feeds one coded packet. `payload` is ignored in [`PayloadMode::CoefficientsOnly`].
    /// Packets may come in any order and repeat. Returns whether the packet was innovative.
    pub fn receive(
        &mut self,
        header: &CodedHeader,
        payload: &[u8],
    ) -> Result<Reception, ReceiveError> {
        let h = self.block_size;
        if header.block_id != self.block_id {
            return Err(ReceiveError::WrongBlock {
                expected: self.block_id,
                got: header.block_id,
            });
        }
        if header.block_size as usize != h {
            return Err(ReceiveError::BlockSizeMismatch {
                expected: h,
                got: header.block_size as usize,
            });
        }
        let n = header.coefficients.len();
        if n > h {
            return Err(ReceiveError::TooManyCoefficients {
                len: n,
                block_size: h,
            });
        }
        if self.rank == h {
            self.non_innovative += 1;
            return Ok(Reception::NotInnovative);
        }

        let bytes = self.mode == PayloadMode::Bytes;
        let slot = self.rank;
        let BlockDecoder {
            coefficients,
            spans,
            payloads,
            slot_of_column,
            ..
        } = self;
        let (stored, rest) = coefficients.split_at_mut(slot * h);
        let row = &mut rest[..h];
        row[..n].copy_from_slice(&header.coefficients);
        row[n..].fill(0);
        let mut span = trimmed_span(row, n);
        // Taken out of the vector (no allocation) so that it can be updated while other payload
        // rows are read.
        let mut row_payload = if bytes {
            let mut buffer = std::mem::take(&mut payloads[slot]);
            buffer.clear();
            buffer.extend_from_slice(payload);
            buffer
        } else {
            Vec::new()
        };

        // Forward pass: cancel the entry under every existing pivot. Stored rows are zero in all
        // other pivot columns, so one pass in column order suffices; it can lengthen `span`.
        let mut column = 0;
        while column < span {
            let c = row[column];
            let pivot_slot = slot_of_column[column];
            if c != 0 && pivot_slot != NO_PIVOT {
                let pivot_slot = pivot_slot as usize;
                let pivot_span = spans[pivot_slot];
                let pivot_row = &stored[pivot_slot * h..pivot_slot * h + h];
                gf256::mul_acc(
                    &mut row[column..pivot_span],
                    &pivot_row[column..pivot_span],
                    c,
                );
                span = span.max(pivot_span);
                if bytes {
                    payload_mul_acc(&mut row_payload, &payloads[pivot_slot], c);
                }
            }
            column += 1;
        }

        span = trimmed_span(row, span);
        let Some(pivot) = row[..span].iter().position(|&c| c != 0) else {
            // Reduced to zero: nothing new. The scratch buffer goes back for reuse.
            if bytes {
                payloads[slot] = row_payload;
            }
            self.non_innovative += 1;
            return Ok(Reception::NotInnovative);
        };

        // Normalise the pivot to 1.
        let pivot_inverse = gf256::inv(row[pivot]);
        gf256::scale(&mut row[pivot..span], pivot_inverse);
        if bytes {
            gf256::scale(&mut row_payload, pivot_inverse);
        }

        // Backward pass: clear the new pivot column from every stored row (keeps the form
        // reduced, so complete rows are decoded sources without a final back-substitution).
        for other in 0..slot {
            let other_row = &mut stored[other * h..other * h + h];
            let c = other_row[pivot];
            if c == 0 {
                continue;
            }
            gf256::mul_acc(&mut other_row[pivot..span], &row[pivot..span], c);
            let other_span = spans[other].max(span);
            spans[other] = trimmed_span(other_row, other_span);
            if bytes {
                payload_mul_acc(&mut payloads[other], &row_payload, c);
            }
        }

        spans[slot] = span;
        slot_of_column[pivot] = slot as u32;
        if bytes {
            payloads[slot] = row_payload;
        }
        self.rank += 1;
        self.innovative += 1;
        Ok(Reception::Innovative { rank: self.rank })
    }

    /// True if source `eta_{index+1}` (0-based `index`) is already known: its pivot row has no
    /// other non-zero coefficient.
    pub fn is_source_decoded(&self, index: usize) -> bool {
        index < self.block_size && {
            let slot = self.slot_of_column[index];
            slot != NO_PIVOT && self.spans[slot as usize] == index + 1
        }
    }

    /// The number `n` of leading sources `eta_1..eta_n` already decodable, for in-order delivery
    /// before the block is complete (and for a last block that never fills). `H` once complete.
    pub fn decoded_prefix(&self) -> usize {
        (0..self.block_size)
            .take_while(|&index| self.is_source_decoded(index))
            .count()
    }

    /// The bytes of source `eta_{index+1}` (0-based `index`), borrowed, once it is decoded.
    pub fn decoded_source(&self, index: usize) -> Result<&[u8], DecodeError> {
        if self.mode == PayloadMode::CoefficientsOnly {
            return Err(DecodeError::CoefficientsOnly);
        }
        if !self.is_source_decoded(index) {
            return Err(DecodeError::NotDecoded { index });
        }
        let row = &self.payloads[self.slot_of_column[index] as usize];
        // The row is the symbol zero-extended, so missing prefix bytes read as zero.
        let prefix = [
            row.first().copied().unwrap_or(0),
            row.get(1).copied().unwrap_or(0),
        ];
        let len = u16::from_be_bytes(prefix) as usize;
        if len == 0 {
            return Ok(&[]);
        }
        row.get(LENGTH_PREFIX_BYTES..LENGTH_PREFIX_BYTES + len)
            .ok_or(DecodeError::CorruptLength { index })
    }

    /// All `H` source packets, byte-exact, in order (`result[j]` is `eta_{j+1}`). Allocates the
    /// result; see [`decoded_source`](Self::decoded_source) to borrow instead.
    pub fn decode(&self) -> Result<Vec<Vec<u8>>, DecodeError> {
        if self.mode == PayloadMode::CoefficientsOnly {
            return Err(DecodeError::CoefficientsOnly);
        }
        if !self.is_complete() {
            return Err(DecodeError::Incomplete {
                missing: self.missing(),
            });
        }
        (0..self.block_size)
            .map(|index| self.decoded_source(index).map(<[u8]>::to_vec))
            .collect()
    }

    /// Test helper: checks the reduced row-echelon invariant and the span bookkeeping.
    #[cfg(test)]
    fn assert_reduced_row_echelon(&self) {
        let h = self.block_size;
        let mut pivots = 0;
        for (column, &slot) in self.slot_of_column.iter().enumerate() {
            if slot == NO_PIVOT {
                continue;
            }
            pivots += 1;
            let slot = slot as usize;
            assert!(slot < self.rank);
            let row = &self.coefficients[slot * h..slot * h + h];
            assert_eq!(row[column], 1, "pivot of column {column} not normalised");
            assert!(
                row[..column].iter().all(|&c| c == 0),
                "entries left of pivot"
            );
            assert_eq!(
                self.spans[slot],
                trimmed_span(row, h),
                "span of slot {slot}"
            );
            for other in 0..self.rank {
                if other != slot {
                    assert_eq!(self.coefficients[other * h + column], 0, "column {column}");
                }
            }
        }
        assert_eq!(pivots, self.rank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    // proptest's prelude also exports a `Rng` trait; the simulator's stream is meant here.
    use crate::sim::Rng;

    /// Source packets of distinct lengths and contents.
    fn sources(count: usize, seed: u64) -> Vec<Vec<u8>> {
        let mut rng = Rng::stream(seed, "test/sources");
        (0..count)
            .map(|_| {
                let len = (rng.next_u64() % 120) as usize;
                (0..len).map(|_| rng.next_u64() as u8).collect()
            })
            .collect()
    }

    /// Encodes a whole block incrementally: the `H` coded packets in emission order.
    fn encode_block(
        encoder: &mut BlockEncoder,
        payloads: &[Vec<u8>],
        rng: &mut Rng,
    ) -> Vec<CodedPacket> {
        payloads
            .iter()
            .map(|payload| {
                let mut packet = CodedPacket::default();
                encoder.push_source(payload, rng, &mut packet).unwrap();
                packet
            })
            .collect()
    }

    fn feed(decoder: &mut BlockDecoder, packet: &CodedPacket) -> Reception {
        let reception = decoder.receive(&packet.header, &packet.payload).unwrap();
        decoder.assert_reduced_row_echelon();
        reception
    }

    #[test]
    fn incremental_packet_k_is_innovative_after_the_first_k_minus_1() {
        // In-order trace: a_1, a_2, ... each raise the rank by one, for many coefficient draws.
        for seed in 0..200 {
            let h = 16;
            let payloads = sources(h, seed);
            let mut rng = Rng::stream(seed, "test/encoder");
            let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 3, h);
            let coded = encode_block(&mut encoder, &payloads, &mut rng);
            let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 3, h);
            for (k, packet) in coded.iter().enumerate() {
                assert_eq!(packet.header.packet_id as usize, k + 1);
                assert_eq!(packet.header.coefficients.len(), k + 1);
                assert_ne!(
                    packet.header.coefficients[k], 0,
                    "alpha_kk must be non-zero"
                );
                assert!(!packet.header.is_repair());
                assert_eq!(
                    feed(&mut decoder, packet),
                    Reception::Innovative { rank: k + 1 }
                );
                // Receiving a_1..a_k in order decodes eta_1..eta_k at once: no coding delay.
                assert_eq!(decoder.decoded_prefix(), k + 1);
                assert_eq!(decoder.decoded_source(k).unwrap(), &payloads[k][..]);
            }
            assert_eq!(decoder.decode().unwrap(), payloads);
        }
    }

    #[test]
    fn repair_packet_fills_a_lost_degree_of_freedom() {
        // a_1 .. a_8 sent, a_3 lost; the receiver reports (block 9, missing 1); one repair packet.
        let h = 8;
        let payloads = sources(h, 11);
        let mut rng = Rng::stream(11, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 9, h);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 9, h);
        for packet in coded.iter().filter(|p| p.header.packet_id != 3) {
            assert!(feed(&mut decoder, packet).is_innovative());
        }
        // Sources 1 and 2 are already decodable; 3 onwards wait for the missing dimension.
        assert_eq!(decoder.decoded_prefix(), 2);
        assert_eq!(
            decoder.decode(),
            Err(DecodeError::Incomplete { missing: 1 })
        );
        let request = decoder.repair_request().unwrap();
        assert_eq!(
            request,
            RepairRequest {
                block_id: 9,
                missing: 1
            }
        );

        let mut repair = CodedPacket::default();
        encoder.repair(&mut rng, &mut repair).unwrap();
        assert_eq!(repair.header.packet_id, 9, "first repair is numbered H + 1");
        assert!(repair.header.is_repair());
        assert_eq!(repair.header.coefficients.len(), h);
        // With this seed the repair is innovative; in general it is with probability 255/256 (see
        // `repair_is_non_innovative_about_once_in_256`).
        assert_eq!(
            feed(&mut decoder, &repair),
            Reception::Innovative { rank: h }
        );
        assert!(decoder.is_complete());
        assert_eq!(decoder.repair_request(), None);
        assert_eq!(decoder.decode().unwrap(), payloads);
    }

    #[test]
    fn duplicates_and_late_packets_are_not_innovative() {
        let h = 4;
        let payloads = sources(h, 5);
        let mut rng = Rng::stream(5, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 0, h);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 0, h);
        assert!(feed(&mut decoder, &coded[1]).is_innovative());
        assert_eq!(feed(&mut decoder, &coded[1]), Reception::NotInnovative);
        for packet in &coded {
            feed(&mut decoder, packet);
        }
        assert!(decoder.is_complete());
        assert_eq!(feed(&mut decoder, &coded[0]), Reception::NotInnovative);
        assert_eq!(decoder.innovative_received(), 4);
        assert_eq!(decoder.non_innovative_received(), 3);
        assert_eq!(decoder.decode().unwrap(), payloads);
    }

    #[test]
    fn reverse_order_decodes() {
        let h = 32;
        let payloads = sources(h, 8);
        let mut rng = Rng::stream(8, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 1, h);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 1, h);
        for packet in coded.iter().rev() {
            assert!(feed(&mut decoder, packet).is_innovative());
            // Nothing is decodable until a_1 arrives (every row involves a later source).
            if !decoder.is_complete() {
                assert_eq!(decoder.decoded_prefix(), 0);
            }
        }
        assert_eq!(decoder.decode().unwrap(), payloads);
    }

    #[test]
    fn empty_and_zero_padded_payloads_are_byte_exact() {
        // Trailing zero bytes and empty packets survive: lengths travel coded in the payload.
        let payloads = vec![
            vec![],
            vec![0, 0, 0],
            vec![7],
            vec![1, 0],
            vec![],
            vec![0; 40],
        ];
        let h = payloads.len();
        let mut rng = Rng::stream(1, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 2, h);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        // Coded payloads are only as long as the longest symbol they combine.
        assert_eq!(coded[0].payload.len(), LENGTH_PREFIX_BYTES);
        assert_eq!(coded[1].payload.len(), LENGTH_PREFIX_BYTES + 3);
        assert_eq!(coded[5].payload.len(), LENGTH_PREFIX_BYTES + 40);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 2, h);
        for packet in coded.iter().rev() {
            feed(&mut decoder, packet);
        }
        assert_eq!(decoder.decode().unwrap(), payloads);
    }

    #[test]
    fn block_of_one_and_block_larger_than_the_field() {
        for h in [1, 255, 256, 300] {
            let payloads = sources(h, h as u64);
            let mut rng = Rng::stream(h as u64, "test/encoder");
            let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 4, h);
            let coded = encode_block(&mut encoder, &payloads, &mut rng);
            let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 4, h);
            // Lose every third packet, then repair until complete.
            for packet in coded.iter().filter(|p| p.header.packet_id % 3 != 0) {
                assert!(decoder
                    .receive(&packet.header, &packet.payload)
                    .unwrap()
                    .is_innovative());
            }
            let mut repair = CodedPacket::default();
            let mut sent = 0;
            while let Some(request) = decoder.repair_request() {
                for _ in 0..request.missing {
                    encoder.repair(&mut rng, &mut repair).unwrap();
                    decoder.receive(&repair.header, &repair.payload).unwrap();
                    sent += 1;
                }
                assert!(sent < h + 50, "repair did not converge");
            }
            assert_eq!(decoder.decode().unwrap(), payloads, "H = {h}");
        }
    }

    #[test]
    fn malformed_and_foreign_packets_are_rejected() {
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 5, 4);
        let mut header = CodedHeader {
            block_id: 6,
            packet_id: 1,
            block_size: 4,
            coefficients: vec![1],
        };
        assert_eq!(
            decoder.receive(&header, &[0, 0]),
            Err(ReceiveError::WrongBlock {
                expected: 5,
                got: 6
            })
        );
        header.block_id = 5;
        header.block_size = 3;
        assert!(matches!(
            decoder.receive(&header, &[0, 0]),
            Err(ReceiveError::BlockSizeMismatch { .. })
        ));
        header.block_size = 4;
        header.coefficients = vec![1; 5];
        assert!(matches!(
            decoder.receive(&header, &[0, 0]),
            Err(ReceiveError::TooManyCoefficients { .. })
        ));
        header.coefficients = vec![0, 0];
        assert_eq!(
            decoder.receive(&header, &[]),
            Ok(Reception::NotInnovative),
            "an all-zero combination carries nothing"
        );
        assert_eq!(decoder.rank(), 0);
    }

    #[test]
    fn encoder_limits() {
        let mut rng = Rng::stream(0, "test/encoder");
        let mut out = CodedPacket::default();
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 0, 1);
        assert_eq!(
            encoder.repair(&mut rng, &mut out),
            Err(EncodeError::NoSources)
        );
        assert_eq!(
            encoder.push_source(&vec![0; MAX_SOURCE_LEN + 1], &mut rng, &mut out),
            Err(EncodeError::PayloadTooLong {
                len: MAX_SOURCE_LEN + 1
            })
        );
        encoder.push_source(&[1, 2], &mut rng, &mut out).unwrap();
        assert!(encoder.is_full());
        assert_eq!(
            encoder.push_source(&[3], &mut rng, &mut out),
            Err(EncodeError::BlockFull { block_size: 1 })
        );
        // Reset reuses the encoder for the next block.
        encoder.reset(1, 2);
        encoder.push_source(&[3], &mut rng, &mut out).unwrap();
        assert_eq!(out.header.block_id, 1);
        assert_eq!(out.header.packet_id, 1);
        assert_eq!(out.header.wire_len(), HEADER_FIXED_BYTES + 1);
    }

    #[test]
    fn partial_block_is_delivered_through_repairs_over_pushed_sources() {
        // The flow ends after 3 of H = 10 sources; a_2 is lost. Repairs over the 3 pushed
        // sources complete the decodable prefix although rank never reaches H.
        let payloads = sources(3, 21);
        let mut rng = Rng::stream(21, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 0, 10);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 0, 10);
        feed(&mut decoder, &coded[0]);
        feed(&mut decoder, &coded[2]);
        assert_eq!(decoder.decoded_prefix(), 1);
        let mut repair = CodedPacket::default();
        while decoder.decoded_prefix() < 3 {
            encoder.repair(&mut rng, &mut repair).unwrap();
            assert_eq!(repair.header.coefficients.len(), 3);
            feed(&mut decoder, &repair);
        }
        for (index, payload) in payloads.iter().enumerate() {
            assert_eq!(decoder.decoded_source(index).unwrap(), &payload[..]);
        }
        assert_eq!(decoder.missing(), 7);
    }

    #[test]
    fn decoder_reset_reuses_buffers_for_the_next_block() {
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 0, 20);
        for (block, h) in [(0u64, 20usize), (1, 5), (2, 40)] {
            decoder.reset(block, h);
            let payloads = sources(h, block);
            let mut rng = Rng::stream(block, "test/encoder");
            let mut encoder = BlockEncoder::new(PayloadMode::Bytes, block, h);
            for packet in encode_block(&mut encoder, &payloads, &mut rng).iter().rev() {
                feed(&mut decoder, packet);
            }
            assert_eq!(decoder.decode().unwrap(), payloads);
        }
    }

    #[test]
    fn same_seed_same_coded_bytes() {
        let payloads = sources(24, 3);
        let run = |seed: u64, mode: PayloadMode| {
            let mut rng = Rng::stream(seed, "rlnc/test");
            let mut encoder = BlockEncoder::new(mode, 17, payloads.len());
            let mut coded = encode_block(&mut encoder, &payloads, &mut rng);
            for _ in 0..5 {
                let mut repair = CodedPacket::default();
                encoder.repair(&mut rng, &mut repair).unwrap();
                coded.push(repair);
            }
            coded
        };
        let first = run(42, PayloadMode::Bytes);
        assert_eq!(first, run(42, PayloadMode::Bytes));
        assert_ne!(first, run(43, PayloadMode::Bytes));
        // Coefficients-only mode draws exactly the same coefficients: payloads consume no
        // randomness, so the two modes can be swapped without changing a run's rank trajectory.
        let headers_only = run(42, PayloadMode::CoefficientsOnly);
        for (full, light) in first.iter().zip(&headers_only) {
            assert_eq!(full.header, light.header);
            assert!(light.payload.is_empty());
        }
    }

    #[test]
    fn repair_is_non_innovative_about_once_in_256() {
        // Rank 3 of H = 4 (one incremental packet lost): a uniform repair is non-innovative with
        // probability (256^3 - 1) / (256^4 - 1) ~ 1/256. Over 20000 trials expect ~78 (sd ~8.8).
        let trials = 20_000;
        let h = 4;
        let mut rng = Rng::stream(99, "test/field-size");
        let mut encoder = BlockEncoder::new(PayloadMode::CoefficientsOnly, 0, h);
        let mut decoder = BlockDecoder::new(PayloadMode::CoefficientsOnly, 0, h);
        let mut packet = CodedPacket::default();
        let mut non_innovative = 0;
        for trial in 0..trials {
            encoder.reset(trial, h);
            decoder.reset(trial, h);
            let lost = (rng.next_u64() % h as u64) as usize + 1;
            for k in 1..=h {
                encoder.push_source(&[], &mut rng, &mut packet).unwrap();
                if k != lost {
                    decoder.receive(&packet.header, &[]).unwrap();
                }
            }
            assert_eq!(decoder.missing(), 1);
            encoder.repair(&mut rng, &mut packet).unwrap();
            if !decoder
                .receive(&packet.header, &[])
                .unwrap()
                .is_innovative()
            {
                non_innovative += 1;
                // Asking again fills it.
                while !decoder.is_complete() {
                    encoder.repair(&mut rng, &mut packet).unwrap();
                    decoder.receive(&packet.header, &[]).unwrap();
                }
            }
        }
        let expected = trials as f64 / 256.0;
        let sd = (expected * (1.0 - 1.0 / 256.0)).sqrt();
        assert!(
            (non_innovative as f64 - expected).abs() < 5.0 * sd,
            "{non_innovative} non-innovative repairs in {trials}, expected ~{expected:.0}"
        );
    }

    /// Channel of the property test: loss with probability `loss`, occasional duplication, and a
    /// shuffle (Fisher-Yates) of what survives.
    fn channel(packets: Vec<CodedPacket>, loss: f64, rng: &mut Rng) -> Vec<CodedPacket> {
        let mut delivered = Vec::new();
        for packet in packets {
            if rng.bernoulli(loss) {
                continue;
            }
            if rng.bernoulli(0.1) {
                delivered.push(packet.clone());
            }
            delivered.push(packet);
        }
        for i in (1..delivered.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            delivered.swap(i, j);
        }
        delivered
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Encode a block, lose/duplicate/shuffle, then repair (repairs lost too) until complete.
        /// A coefficients-only encoder/decoder pair runs alongside and must agree on every verdict.
        #[test]
        fn any_loss_pattern_decodes_byte_exact(
            payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..=200), 1..=64),
            loss in 0.0f64..=0.5,
            seed in any::<u64>(),
        ) {
            let h = payloads.len();
            let mut coding_rng = Rng::stream(seed, "test/encoder");
            let mut coding_rng_light = coding_rng.clone();
            let mut channel_rng = Rng::stream(seed, "test/channel");
            let mut encoder = BlockEncoder::new(PayloadMode::Bytes, seed, h);
            let mut encoder_light = BlockEncoder::new(PayloadMode::CoefficientsOnly, seed, h);
            let mut decoder = BlockDecoder::new(PayloadMode::Bytes, seed, h);
            let mut decoder_light = BlockDecoder::new(PayloadMode::CoefficientsOnly, seed, h);

            let mut light = CodedPacket::default();
            let mut sent = Vec::with_capacity(h);
            for payload in &payloads {
                let mut packet = CodedPacket::default();
                encoder.push_source(payload, &mut coding_rng, &mut packet).unwrap();
                encoder_light.push_source(payload, &mut coding_rng_light, &mut light).unwrap();
                prop_assert_eq!(&packet.header, &light.header);
                sent.push(packet);
            }

            let mut innovative = 0;
            let mut delivered = 0u64;
            let mut deliver = |packet: &CodedPacket,
                               decoder: &mut BlockDecoder,
                               decoder_light: &mut BlockDecoder|
             -> Result<(), TestCaseError> {
                let verdict = decoder.receive(&packet.header, &packet.payload).unwrap();
                let verdict_light = decoder_light.receive(&packet.header, &[]).unwrap();
                prop_assert_eq!(verdict, verdict_light);
                decoder.assert_reduced_row_echelon();
                delivered += 1;
                if verdict.is_innovative() {
                    innovative += 1;
                }
                Ok(())
            };
            for packet in channel(sent, loss, &mut channel_rng) {
                deliver(&packet, &mut decoder, &mut decoder_light)?;
            }

            // Repair rounds: each asks for `missing` packets, each may be lost or (rarely, with
            // GF(2^8)) non-innovative; the receiver then simply asks again.
            let mut rounds = 0;
            let mut repair = CodedPacket::default();
            while let Some(request) = decoder.repair_request() {
                rounds += 1;
                prop_assert!(rounds <= 200, "no completion after 200 repair rounds");
                prop_assert_eq!(request.block_id, seed);
                prop_assert_eq!(decoder_light.missing(), request.missing);
                for _ in 0..request.missing {
                    encoder.repair(&mut coding_rng, &mut repair).unwrap();
                    encoder_light.repair(&mut coding_rng_light, &mut light).unwrap();
                    prop_assert_eq!(&repair.header, &light.header);
                    prop_assert!(repair.header.packet_id as usize > h);
                    if channel_rng.bernoulli(loss) {
                        continue;
                    }
                    deliver(&repair, &mut decoder, &mut decoder_light)?;
                }
            }

            prop_assert_eq!(innovative, h);
            prop_assert_eq!(decoder.innovative_received(), h as u64);
            prop_assert_eq!(
                decoder.innovative_received() + decoder.non_innovative_received(),
                delivered
            );
            prop_assert!(decoder_light.is_complete());
            prop_assert_eq!(decoder.decoded_prefix(), h);
            prop_assert_eq!(decoder.decode().unwrap(), payloads);
        }
    }
}
