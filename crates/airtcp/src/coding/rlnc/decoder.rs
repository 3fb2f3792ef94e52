//! The block decoder: received rows kept in reduced row-echelon form, each arrival classified as
//! innovative or not on the spot (the parent module has the model and the choices).

use super::*;

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
    pub(super) fn assert_reduced_row_echelon(&self) {
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
