//! The bookkeeping both block decoders share ([`super::exact_decoder`] and
//! [`super::counting_decoder`]): the block size, the rank reached and how many packets were and
//! were not innovative. The decoders differ only in how they decide innovation.

/// A block's size, rank and innovation counts.
#[derive(Debug, Clone, Default)]
pub struct RankTally {
    size: usize,
    rank: usize,
    innovative: u64,
    non_innovative: u64,
}

impl RankTally {
    /// An empty tally for a block of `size` packets.
    pub fn new(size: usize) -> Self {
        RankTally {
            size,
            ..RankTally::default()
        }
    }

    /// The block size B.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Innovative packets received so far.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Degrees of freedom still missing, `B - rank`.
    pub fn missing(&self) -> usize {
        self.size - self.rank
    }

    /// Whether the block is decoded (full rank).
    pub fn is_complete(&self) -> bool {
        self.rank == self.size
    }

    /// Counts of innovative and non-innovative packets received.
    pub fn counts(&self) -> (u64, u64) {
        (self.innovative, self.non_innovative)
    }

    /// Records one received packet; returns `innovative`.
    pub fn record(&mut self, innovative: bool) -> bool {
        if innovative {
            debug_assert!(self.rank < self.size);
            self.rank += 1;
            self.innovative += 1;
        } else {
            self.non_innovative += 1;
        }
        innovative
    }
}
