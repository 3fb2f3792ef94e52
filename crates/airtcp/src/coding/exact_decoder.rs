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
//! Rows are kept in reduced row-echelon form, stored at the slot of their pivot column: reducing an
//! arriving row costs one row operation per non-zero entry at a pivot column, and a new pivot is
//! then cleared from the other rows. Both are at most rank x width element operations; all storage
//! is allocated when the decoder is built (or [`ExactDecoder::reset`] grows it), none per packet.
//!
//! [`super::counting_decoder`] gives the same ranks in distribution without the elimination.

use super::field::Field;
use super::rank_tally::RankTally;

/// Online Gauss-Jordan decoder of one block (see the module header).
#[derive(Debug, Clone)]
pub struct ExactDecoder<F: Field> {
    tally: RankTally,
    symbols: usize,
    /// `size` rows of `size + symbols` elements; row `c` is meaningful when `has_pivot[c]`.
    rows: Vec<F::Elem>,
    has_pivot: Vec<bool>,
    scratch: Vec<F::Elem>,
}

impl<F: Field> ExactDecoder<F> {
    /// A decoder for a block of `size` source packets whose payloads are `symbols` symbols long
    /// (0: coefficients only).
    pub fn new(size: usize, symbols: usize) -> Self {
        let mut decoder = ExactDecoder {
            tally: RankTally::default(),
            symbols: 0,
            rows: Vec::new(),
            has_pivot: Vec::new(),
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
        self.has_pivot.clear();
        self.has_pivot.resize(size, false);
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
        self.scratch[index] = F::ONE;
        self.scratch[size..].copy_from_slice(payload);
        self.eliminate()
    }

    /// Receives a coded packet: its coefficient row (`size` long) and payload. Returns whether it
    /// was innovative.
    pub fn receive_coded(&mut self, coefficients: &[F::Elem], payload: &[F::Elem]) -> bool {
        let size = self.tally.size();
        debug_assert_eq!(coefficients.len(), size);
        self.scratch[..size].copy_from_slice(coefficients);
        self.scratch[size..].copy_from_slice(payload);
        self.eliminate()
    }

    /// Source packet `index`'s payload, once the block is decoded.
    pub fn source(&self, index: usize) -> Option<&[F::Elem]> {
        let size = self.tally.size();
        if !self.tally.is_complete() || index >= size {
            return None;
        }
        let width = size + self.symbols;
        Some(&self.rows[index * width + size..(index + 1) * width])
    }

    /// Reduces the row in `scratch` against the stored rows; stores it if it has a new pivot.
    fn eliminate(&mut self) -> bool {
        if self.tally.is_complete() {
            return self.tally.record(false);
        }
        let size = self.tally.size();
        let width = size + self.symbols;
        for c in 0..size {
            let factor = self.scratch[c];
            if factor != F::ZERO && self.has_pivot[c] {
                F::mul_sub(
                    &mut self.scratch,
                    &self.rows[c * width..(c + 1) * width],
                    factor,
                );
            }
        }
        let Some(pivot) = (0..size).find(|&c| self.scratch[c] != F::ZERO) else {
            return self.tally.record(false);
        };
        let normaliser = F::inv(self.scratch[pivot]);
        F::scale(&mut self.scratch, normaliser);
        // Clear the new pivot column from every stored row (reduced echelon form).
        for c in 0..size {
            if !self.has_pivot[c] {
                continue;
            }
            let row = &mut self.rows[c * width..(c + 1) * width];
            let factor = row[pivot];
            if factor != F::ZERO {
                F::mul_sub(row, &self.scratch, factor);
            }
        }
        self.rows[pivot * width..(pivot + 1) * width].copy_from_slice(&self.scratch);
        self.has_pivot[pivot] = true;
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
