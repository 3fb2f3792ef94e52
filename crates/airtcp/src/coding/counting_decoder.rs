//! A counting block decoder: the rank of a block without the elimination, exact in distribution
//! for uniform coefficients (TCP-RLC's Assumption 1, Ryu, Bhadra & Shakkottai, Allerton 2009,
//! §II-E, made exact).
//!
//! With `r` of a block's `B` degrees of freedom received, a coded packet whose coefficients are
//! i.i.d. uniform over F_q, zero included, lies in the received span with probability
//! q^r / q^B = q^-(B - r): the span holds q^r of the q^B possible rows. So a coded packet is
//! non-innovative with probability q^-m, m the missing degrees of freedom, whatever the rows
//! received before. A systematic packet is innovative unless its source is already known (it
//! was received itself, or the block is complete); this neglects the chance, about q^-m, that
//! coded packets alone already span its unit row.
//!
//! The caller supplies the uniform draw of each coded packet, from its own simulation stream, so
//! runs stay reproducible and a test can switch the draws off ([`NEVER_DEPENDENT`]) to compare
//! ranks with [`super::exact_decoder`] packet by packet.

use super::rank_tally::RankTally;

/// A draw that makes every coded packet innovative while degrees of freedom are missing.
pub const NEVER_DEPENDENT: f64 = 1.0;

/// The rank of one block by counting (see the module header).
#[derive(Debug, Clone)]
pub struct CountingDecoder {
    order: f64,
    tally: RankTally,
    known: Vec<bool>,
}

impl CountingDecoder {
    /// Bytes the decoder holds on the heap, for the memory budget.
    pub fn heap_bytes(&self) -> u64 {
        self.known.capacity() as u64
    }

    /// A decoder for a block of `size` packets coded over a field of `order` elements.
    pub fn new(order: u32, size: usize) -> Self {
        let mut decoder = CountingDecoder {
            order: order as f64,
            tally: RankTally::default(),
            known: Vec::new(),
        };
        decoder.reset(size);
        decoder
    }

    /// Empties the decoder for a new block, reusing its storage.
    pub fn reset(&mut self, size: usize) {
        self.tally = RankTally::new(size);
        self.known.clear();
        self.known.resize(size, false);
    }

    /// The block's size, rank and innovation counts.
    pub fn tally(&self) -> &RankTally {
        &self.tally
    }

    /// The probability that the next coded packet is non-innovative, q^-m (1 when complete).
    pub fn dependence_probability(&self) -> f64 {
        self.order.powi(-(self.tally.missing() as i32))
    }

    /// Receives systematic packet `index`; returns whether it was innovative.
    pub fn receive_systematic(&mut self, index: usize) -> bool {
        let innovative = !self.tally.is_complete() && !self.known[index];
        self.known[index] = true;
        self.tally.record(innovative)
    }

    /// Receives a coded packet with the uniform draw `u` in [0, 1) (or [`NEVER_DEPENDENT`]): it
    /// is non-innovative when `u < q^-m`. Returns whether it was innovative.
    pub fn receive_coded(&mut self, u: f64) -> bool {
        let innovative = !self.tally.is_complete() && u >= self.dependence_probability();
        self.tally.record(innovative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::exact_decoder::ExactDecoder;
    use crate::coding::field::{coefficients_from_seed, Field, Gf256, Gf8191};
    use crate::sim::Rng;

    /// One received packet of a trace: systematic `index`, or coded with a coefficient seed.
    #[derive(Clone, Copy)]
    enum Arrival {
        Systematic(usize),
        Coded(u64),
    }

    fn trace(size: usize, seed: u64) -> Vec<Arrival> {
        let mut rng = Rng::stream(seed, "test/counting/trace");
        (0..3 * size)
            .map(|_| {
                if rng.bernoulli(0.5) {
                    Arrival::Systematic((rng.next_u64() % size as u64) as usize)
                } else {
                    Arrival::Coded(rng.next_u64())
                }
            })
            .collect()
    }

    #[test]
    fn ranks_equal_the_exact_decoders_packet_by_packet_with_the_draws_off() {
        // In GF(8191) a uniform row is dependent with probability 1.2e-4 per missing dof: over
        // these traces the exact decoder meets none, so the two rank sequences must agree.
        for seed in 0..20 {
            let size = 30;
            let mut exact = ExactDecoder::<Gf8191>::new(size, 0);
            let mut counting = CountingDecoder::new(Gf8191::ORDER, size);
            let mut row = vec![0u16; size];
            for (step, arrival) in trace(size, seed).into_iter().enumerate() {
                let (a, b) = match arrival {
                    Arrival::Systematic(i) => (
                        exact.receive_systematic(i, &[]),
                        counting.receive_systematic(i),
                    ),
                    Arrival::Coded(s) => {
                        coefficients_from_seed::<Gf8191>(s, &mut row);
                        (
                            exact.receive_coded(&row, &[]),
                            counting.receive_coded(NEVER_DEPENDENT),
                        )
                    }
                };
                assert_eq!(a, b, "seed {seed}, packet {step}");
                assert_eq!(exact.tally().rank(), counting.tally().rank());
            }
        }
    }

    /// Over many blocks of coded packets only, the number of non-innovative packets met at one
    /// missing degree of freedom: exact elimination against the counting rule.
    fn dependent_at_one_missing<F: Field>(blocks: usize, seed: u64) -> (u64, u64, u64) {
        let size = 3;
        let mut rng = Rng::stream(seed, "test/counting/distribution");
        let mut exact = ExactDecoder::<F>::new(size, 0);
        let mut counting = CountingDecoder::new(F::ORDER, size);
        let mut row = vec![F::ZERO; size];
        let (mut exact_dependent, mut counting_dependent, mut trials) = (0, 0, 0);
        for _ in 0..blocks {
            exact.reset(size, 0);
            counting.reset(size);
            while !exact.tally().is_complete() {
                let one_missing = exact.tally().missing() == 1;
                coefficients_from_seed::<F>(rng.next_u64(), &mut row);
                if !exact.receive_coded(&row, &[]) && one_missing {
                    exact_dependent += 1;
                }
                trials += u64::from(one_missing);
            }
            while !counting.tally().is_complete() {
                let one_missing = counting.tally().missing() == 1;
                if !counting.receive_coded(rng.uniform()) && one_missing {
                    counting_dependent += 1;
                }
            }
        }
        (exact_dependent, counting_dependent, trials)
    }

    #[test]
    fn non_innovation_matches_the_exact_decoder_in_distribution() {
        // GF(2^8): P(dependent | m = 1) = 1/256. 200 000 blocks give about 780 such packets in
        // each decoder (sd about 28); both must sit within 5 sd of the expectation.
        let blocks = 200_000;
        let (exact, counting, trials) = dependent_at_one_missing::<Gf256>(blocks, 11);
        let expected = trials as f64 / 256.0;
        for (name, n) in [("exact", exact), ("counting", counting)] {
            assert!(
                (n as f64 - expected).abs() < 5.0 * expected.sqrt(),
                "{name}: {n} against {expected:.0}"
            );
        }
        // GF(8191): 1.22e-4 per packet, about 24 in 200 000 blocks (Poisson): both within [5, 55].
        let (exact, counting, _) = dependent_at_one_missing::<Gf8191>(blocks, 12);
        for (name, n) in [("exact", exact), ("counting", counting)] {
            assert!((5..=55).contains(&n), "{name} in GF(8191): {n}");
        }
    }

    #[test]
    fn systematic_packets_count_once_and_nothing_counts_after_completion() {
        let mut d = CountingDecoder::new(8191, 2);
        assert!(d.receive_systematic(1));
        assert!(!d.receive_systematic(1));
        assert!((d.dependence_probability() - 1.0 / 8191.0).abs() < 1e-15);
        assert!(!d.receive_coded(0.0), "a draw below q^-1 is dependent");
        assert!(d.receive_coded(0.5));
        assert!(d.tally().is_complete());
        assert!(!d.receive_coded(NEVER_DEPENDENT));
        assert!(!d.receive_systematic(0));
        assert_eq!(d.tally().counts(), (2, 4));
    }
}
