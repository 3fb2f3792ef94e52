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
mod tests;
