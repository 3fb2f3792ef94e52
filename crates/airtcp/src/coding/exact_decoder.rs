//! An exact block decoder over any [`Field`]: online Gauss-Jordan elimination of the packets of
//! one block of `B` source packets, each received packet a coefficient row (a unit row for a
//! systematic packet, a uniform row for a coded one) with, optionally, its payload symbols.
//!
//! TCP-RLC (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-E, §III-B) decodes a block from any `B`
//! innovative packets and acknowledges each innovative one; this decoder answers exactly which
//! packets are innovative, in GF(8191) as the paper specifies or GF(2^8). Two modes:
//!
//! - coefficients only (`symbols = 0`): ranks and innovation, no payload work;
//! - with payloads: every row carries `symbols` payload symbols, and at full rank row `i` holds
//!   source packet `i` (the byte-exact test of the decoder). A payload symbol is a field element, so
//!   in GF(8191) a byte is carried as a symbol below 256 and a coded symbol needs 13 bits.
//!
//! Rows are kept in reduced row-echelon form with the columns *permuted*: the columns that have
//! no pivot yet occupy physical positions `[0, free)`, the pivot columns `[free, size)`. In
//! reduced form a stored row is 1 at its pivot and 0 at every other pivot column, so every row
//! operation, reducing an arriving row by a stored one or clearing a new pivot from the stored
//! rows, touches only the free positions (and the payload): one contiguous slice the compiler
//! vectorises, of `size - rank` elements rather than `size`. Filling a block of `B` then costs
//! about `B^3 / 3` element operations instead of `B^3`. A new pivot column is swapped to the end
//! of the free region (one element per stored row) and the region shrinks by one. All storage is
//! allocated when the decoder is built (or [`ExactDecoder::reset`] grows it), none per packet.
//!
//! [`super::counting_decoder`] gives the same ranks in distribution without the elimination.

use super::field::Field;
use super::rank_tally::RankTally;

/// Online Gauss-Jordan decoder of one block (see the module header).
#[derive(Debug, Clone)]
pub struct ExactDecoder<F: Field> {
    tally: RankTally,
    symbols: usize,
    /// `rank` stored rows of `size + symbols` elements (physical column order), in the order they
    /// were stored.
    rows: Vec<F::Elem>,
    /// The physical position of each stored row's pivot.
    pivot_at: Vec<usize>,
    /// Logical column -> physical position, and back.
    position: Vec<usize>,
    column: Vec<usize>,
    /// Positions `[0, free)` are the columns without a pivot.
    free: usize,
    scratch: Vec<F::Elem>,
}

impl<F: Field> ExactDecoder<F> {
    /// Bytes the decoder holds on the heap (its rows and index vectors), for the memory budget.
    pub fn heap_bytes(&self) -> u64 {
        let elem = std::mem::size_of::<F::Elem>();
        let index = std::mem::size_of::<usize>();
        let elems = self.rows.capacity() + self.scratch.capacity();
        let indices = self.pivot_at.capacity() + self.position.capacity() + self.column.capacity();
        (elems * elem + indices * index) as u64
    }

    /// A decoder for a block of `size` source packets whose payloads are `symbols` symbols long
    /// (0: coefficients only).
    pub fn new(size: usize, symbols: usize) -> Self {
        let mut decoder = ExactDecoder {
            tally: RankTally::default(),
            symbols: 0,
            rows: Vec::new(),
            pivot_at: Vec::new(),
            position: Vec::new(),
            column: Vec::new(),
            free: 0,
            scratch: Vec::new(),
        };
        decoder.reset(size, symbols);
        decoder
    }

    /// Empties the decoder for a new block, reusing its storage.
    pub fn reset(&mut self, size: usize, symbols: usize) {
        self.tally = RankTally::new(size);
        self.symbols = symbols;
        let width = size + symbols;
        self.rows.clear();
        self.rows.resize(size * width, F::ZERO);
        self.pivot_at.clear();
        self.position.clear();
        self.position.extend(0..size);
        self.column.clear();
        self.column.extend(0..size);
        self.free = size;
        self.scratch.clear();
        self.scratch.resize(width, F::ZERO);
    }

    /// The block's size, rank and innovation counts.
    pub fn tally(&self) -> &RankTally {
        &self.tally
    }

    /// Receives systematic packet `index` (a unit coefficient row) with its payload (`payload`
    /// must be `symbols` long, or empty in coefficients-only mode). Returns whether it was
    /// innovative.
    pub fn receive_systematic(&mut self, index: usize, payload: &[F::Elem]) -> bool {
        let size = self.tally.size();
        debug_assert!(index < size);
        self.scratch.fill(F::ZERO);
        self.scratch[self.position[index]] = F::ONE;
        self.scratch[size..].copy_from_slice(payload);
        self.eliminate()
    }

    /// Receives a coded packet: its coefficient row (`size` long, logical order) and payload.
    /// Returns whether it was innovative.
    pub fn receive_coded(&mut self, coefficients: &[F::Elem], payload: &[F::Elem]) -> bool {
        let size = self.tally.size();
        debug_assert_eq!(coefficients.len(), size);
        for (&c, &at) in coefficients.iter().zip(&self.position) {
            self.scratch[at] = c;
        }
        self.scratch[size..].copy_from_slice(payload);
        self.eliminate()
    }

    /// Source packet `index`'s payload, once the block is decoded.
    pub fn source(&self, index: usize) -> Option<&[F::Elem]> {
        let size = self.tally.size();
        if !self.tally.is_complete() || index >= size {
            return None;
        }
        // At full rank every column is a pivot: the row whose pivot is `index`'s position holds
        // the source.
        let at = self.position[index];
        let k = self.pivot_at.iter().position(|&p| p == at)?;
        let width = size + self.symbols;
        Some(&self.rows[k * width + size..(k + 1) * width])
    }

    /// Reduces the row in `scratch` against the stored rows; stores it if it has a new pivot.
    fn eliminate(&mut self) -> bool {
        if self.tally.is_complete() {
            return self.tally.record(false);
        }
        let size = self.tally.size();
        let width = size + self.symbols;
        let free = self.free;
        let rank = self.pivot_at.len();
        let (scratch_free, scratch_rest) = self.scratch.split_at_mut(free);
        for (k, &at) in self.pivot_at.iter().enumerate() {
            let factor = scratch_rest[at - free];
            if factor != F::ZERO {
                let row = &self.rows[k * width..(k + 1) * width];
                F::mul_sub(scratch_free, &row[..free], factor);
                F::mul_sub(&mut scratch_rest[size - free..], &row[size..], factor);
                scratch_rest[at - free] = F::ZERO;
            }
        }
        let Some(pivot) = (0..free).find(|&c| self.scratch[c] != F::ZERO) else {
            return self.tally.record(false);
        };
        let normaliser = F::inv(self.scratch[pivot]);
        F::scale(&mut self.scratch[..free], normaliser);
        F::scale(&mut self.scratch[size..], normaliser);
        // Clear the new pivot column from every stored row (reduced echelon form).
        for k in 0..rank {
            let row = &mut self.rows[k * width..(k + 1) * width];
            let factor = row[pivot];
            if factor != F::ZERO {
                F::mul_sub(&mut row[..free], &self.scratch[..free], factor);
                F::mul_sub(&mut row[size..], &self.scratch[size..], factor);
            }
        }
        // Move the pivot column to the end of the free region.
        let last = free - 1;
        if pivot != last {
            for k in 0..rank {
                self.rows.swap(k * width + pivot, k * width + last);
            }
            self.scratch.swap(pivot, last);
            let (a, b) = (self.column[pivot], self.column[last]);
            self.column.swap(pivot, last);
            self.position[a] = last;
            self.position[b] = pivot;
        }
        self.free = last;
        self.rows[rank * width..(rank + 1) * width].copy_from_slice(&self.scratch);
        self.pivot_at.push(last);
        self.tally.record(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::field::{coefficients_from_seed, Gf256, Gf8191};
    use crate::sim::Rng;

    /// `coefficients . sources`, the payload of a coded packet.
    fn encode<F: Field>(coefficients: &[F::Elem], sources: &[Vec<F::Elem>]) -> Vec<F::Elem> {
        let mut out = vec![F::ZERO; sources[0].len()];
        for (&c, source) in coefficients.iter().zip(sources) {
            // out += c * source, as out -= (-c) * source: use mul_sub with the additive inverse
            // computed as 0 - c through a one-element row.
            let mut negated = [F::ZERO];
            F::mul_sub(&mut negated, &[F::ONE], c);
            F::mul_sub(&mut out, source, negated[0]);
        }
        out
    }

    fn decodes_byte_exact<F: Field>(size: usize, seed: u64) {
        let mut rng = Rng::stream(seed, "test/exact_decoder");
        let symbols = 64;
        let sources: Vec<Vec<F::Elem>> = (0..size)
            .map(|_| {
                (0..symbols)
                    .map(|_| F::from_u32((rng.next_u64() % 256) as u32))
                    .collect()
            })
            .collect();
        let mut decoder = ExactDecoder::<F>::new(size, symbols);
        // Half the systematic packets arrive (every other one), then coded ones until full rank.
        for i in (0..size).step_by(2) {
            assert!(decoder.receive_systematic(i, &sources[i]));
        }
        // A repeated systematic packet is never innovative.
        assert!(!decoder.receive_systematic(0, &sources[0]));
        let mut coefficients = vec![F::ZERO; size];
        let mut coded = 0;
        while !decoder.tally().is_complete() {
            coefficients_from_seed::<F>(rng.next_u64(), &mut coefficients);
            let payload = encode::<F>(&coefficients, &sources);
            decoder.receive_coded(&coefficients, &payload);
            coded += 1;
            assert!(coded < 10 * size, "{}: no full rank", F::NAME);
        }
        for (i, source) in sources.iter().enumerate() {
            assert_eq!(
                decoder.source(i).unwrap(),
                source.as_slice(),
                "{} source {i}",
                F::NAME
            );
        }
        let (innovative, _) = decoder.tally().counts();
        assert_eq!(innovative as usize, size);
        assert!(!decoder.receive_coded(&coefficients, &encode::<F>(&coefficients, &sources)));
    }

    #[test]
    fn systematic_and_random_rows_decode_byte_exact_in_both_fields() {
        for (size, seed) in [(1, 1), (4, 2), (17, 3), (150, 4)] {
            decodes_byte_exact::<Gf8191>(size, seed);
            decodes_byte_exact::<Gf256>(size, seed);
        }
    }

    #[test]
    fn dependent_rows_are_not_innovative() {
        let mut decoder = ExactDecoder::<Gf8191>::new(3, 0);
        assert!(decoder.receive_coded(&[1, 2, 3], &[]));
        assert!(decoder.receive_coded(&[0, 1, 5], &[]));
        // 2 (1, 2, 3) + 3 (0, 1, 5) = (2, 7, 21): in the span.
        assert!(!decoder.receive_coded(&[2, 7, 21], &[]));
        assert!(!decoder.receive_coded(&[0, 0, 0], &[]));
        assert_eq!(decoder.tally().rank(), 2);
        assert_eq!(decoder.tally().missing(), 1);
        assert!(decoder.receive_systematic(2, &[]));
        assert!(decoder.tally().is_complete());
        assert_eq!(decoder.tally().counts(), (3, 2));
        decoder.reset(2, 0);
        assert_eq!((decoder.tally().rank(), decoder.tally().size()), (0, 2));
    }
}
