//! COPE's hop-by-hop ACKs and retransmissions (Katti et al., "XORs in the air", IEEE/ACM ToN
//! 16(3), 2008, §3.4 "pseudo-broadcast" and its asynchronous ACKs; spec 001 §2.2 item 7).
//!
//! A coded frame goes to one MAC address; its MAC ACK only says the addressed next hop received
//! the frame, not that each listed next hop could decode its native. So every native sent inside
//! a coded frame waits for a COPE ACK from its next hop:
//!
//! - **Coder** ([`Retransmissions`]): per neighbour, each such native gets the next sequence
//!   number of that link and a deadline `Ta` later (100 ms [I]). An ACK block from the neighbour
//!   (the last number it received and a bitmap of the 16 before it) settles the natives it
//!   covers. At the
//!   deadline a native goes back to the head of the output queue, up to `limit` times (3 [I]);
//!   after that it is dropped.
//! - **Next hop** ([`AckState`]): per coder, the sequence numbers of the natives it decoded
//!   (duplicates included, so a lost ACK is repeated; a native it could not decode is not
//!   acknowledged, and comes back), summarised as the ACK block: the highest number n received
//!   and the bitmap of n - 1 .. n - 16 (COPE's header: "Last_ACK" and "Ack Map"). A number
//!   further back is neither acknowledged nor denied: its coder's timer sends the native again.
//!   (A cumulative number would have to move over the gaps that failed decodings leave, whose
//!   natives come back under new numbers, and so acknowledge natives nobody decoded.)
//!
//! Pure: times come from the caller; storage per neighbour is a ring, no allocation once grown.

use std::collections::VecDeque;

use crate::sim::Time;

/// The bitmap's reach behind the last number.
pub const BITMAP_BITS: u32 = 16;

/// An ACK block: number `last`, and `last - 1 - i` for the bits i set in `bitmap`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckBlock {
    /// The highest number received.
    pub last: u32,
    /// The numbers before it that arrived.
    pub bitmap: u16,
}

impl AckBlock {
    /// Whether the block acknowledges `seq`.
    pub fn covers(&self, seq: u32) -> bool {
        if seq == self.last {
            return true;
        }
        let back = self.last.wrapping_sub(seq);
        seq < self.last && back <= BITMAP_BITS && self.bitmap & (1 << (back - 1)) != 0
    }
}

/// A native waiting for its next hop's ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Waiting {
    seq: u32,
    native: u64,
    deadline: Time,
    /// Retransmissions so far.
    retries: u32,
}

/// What became of a native whose deadline passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expired {
    /// Back to the head of the output queue; `retries` so far, this one included.
    Requeue {
        /// The native.
        native: u64,
        /// Its next hop.
        next_hop: u32,
        /// Retransmissions so far.
        retries: u32,
    },
    /// Out of retries: dropped.
    Drop {
        /// The native.
        native: u64,
        /// Its next hop.
        next_hop: u32,
    },
}

/// The coder's side: per neighbour, the natives sent coded and not yet acknowledged.
#[derive(Debug, Clone)]
pub struct Retransmissions {
    timeout: Time,
    limit: u32,
    neighbours: Vec<u32>,
    next_seq: Vec<u32>,
    waiting: Vec<VecDeque<Waiting>>,
}

impl Retransmissions {
    /// For a node with these `neighbours`, ACK timeout `timeout` (Ta), at most `limit`
    /// retransmissions per native.
    pub fn new(neighbours: &[u32], timeout: Time, limit: u32) -> Self {
        let mut sorted = neighbours.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let n = sorted.len();
        Retransmissions {
            timeout,
            limit,
            neighbours: sorted,
            next_seq: vec![0; n],
            waiting: vec![VecDeque::new(); n],
        }
    }

    /// Native `native` (after `retries` retransmissions) went to `next_hop` inside a coded frame
    /// at `now` (times never go back, so each link's deadlines rise): its sequence number on
    /// that link, or None if `next_hop` is no neighbour.
    pub fn sent(&mut self, native: u64, next_hop: u32, retries: u32, now: Time) -> Option<u32> {
        self.sent_until(native, next_hop, retries, now.saturating_add(self.timeout))
    }

    /// [`sent`](Self::sent) with its own `deadline` (a BFLY coder waits for an ACK relayed over
    /// two hops, 2 Ta): deadlines along a link then need not rise, which [`expire`](Self::expire)
    /// and [`next_deadline`](Self::next_deadline) allow for.
    pub fn sent_until(
        &mut self,
        native: u64,
        next_hop: u32,
        retries: u32,
        deadline: Time,
    ) -> Option<u32> {
        let i = self.neighbours.binary_search(&next_hop).ok()?;
        let seq = self.next_seq[i];
        self.next_seq[i] = seq.wrapping_add(1);
        self.waiting[i].push_back(Waiting {
            seq,
            native,
            deadline,
            retries,
        });
        Some(seq)
    }

    /// An ACK block from `from`: the natives it settles leave, into `settled` (appended).
    pub fn on_ack(&mut self, from: u32, block: AckBlock, settled: &mut Vec<u64>) {
        let Ok(i) = self.neighbours.binary_search(&from) else {
            return;
        };
        self.waiting[i].retain(|w| {
            let covered = block.covers(w.seq);
            if covered {
                settled.push(w.native);
            }
            !covered
        });
    }

    /// Moves the deadline of every native waiting on the link to `next_hop` for which `which`
    /// holds to `deadline` (a BFLY coder hears its relay forward a pair: the ACKs now have two
    /// legs to come back over).
    pub fn postpone(&mut self, next_hop: u32, mut which: impl FnMut(u64) -> bool, deadline: Time) {
        let Ok(i) = self.neighbours.binary_search(&next_hop) else {
            return;
        };
        for w in self.waiting[i].iter_mut().filter(|w| which(w.native)) {
            w.deadline = deadline;
        }
    }

    /// Every native waiting, into `out` (appended), and none waits any more (the node failed).
    pub fn drain(&mut self, out: &mut Vec<u64>) {
        for queue in &mut self.waiting {
            out.extend(queue.drain(..).map(|w| w.native));
        }
    }

    /// The earliest deadline, if anything waits (a scan: a link holds a few natives at most).
    pub fn next_deadline(&self) -> Option<Time> {
        self.waiting
            .iter()
            .flat_map(|q| q.iter().map(|w| w.deadline))
            .min()
    }

    /// Natives whose deadline is at or before `now`, into `out` (cleared), neighbour by
    /// neighbour in sequence order: re-queued, or dropped after `limit` retransmissions.
    pub fn expire(&mut self, now: Time, out: &mut Vec<Expired>) {
        out.clear();
        for (i, queue) in self.waiting.iter_mut().enumerate() {
            let next_hop = self.neighbours[i];
            let limit = self.limit;
            queue.retain(|w| {
                if w.deadline > now {
                    return true;
                }
                out.push(if w.retries >= limit {
                    Expired::Drop {
                        native: w.native,
                        next_hop,
                    }
                } else {
                    Expired::Requeue {
                        native: w.native,
                        next_hop,
                        retries: w.retries + 1,
                    }
                });
                false
            });
        }
    }

    /// Natives waiting for an ACK.
    pub fn len(&self) -> usize {
        self.waiting.iter().map(VecDeque::len).sum()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The next hop's side for one coder: which sequence numbers arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AckState {
    block: Option<AckBlock>,
}

impl AckState {
    /// Number `seq` arrived; true if it is a duplicate (already acknowledged by the block).
    pub fn received(&mut self, seq: u32) -> bool {
        let Some(mut block) = self.block else {
            self.block = Some(AckBlock {
                last: seq,
                bitmap: 0,
            });
            return false;
        };
        if block.covers(seq) {
            return true;
        }
        if seq > block.last {
            // The window moves on: the old last number becomes a bit, the oldest bits fall off.
            let shift = seq - block.last;
            block.bitmap = if shift > BITMAP_BITS {
                0
            } else {
                ((u32::from(block.bitmap) << shift) | (1 << (shift - 1))) as u16
            };
            block.last = seq;
        } else if block.last - seq <= BITMAP_BITS {
            block.bitmap |= 1 << (block.last - seq - 1);
        }
        // Further back than the bitmap reaches: not acknowledged (its native comes back).
        self.block = Some(block);
        false
    }

    /// The block to send, if anything arrived.
    pub fn block(&self) -> Option<AckBlock> {
        self.block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    const TA: Time = 100 * MILLIS;

    #[test]
    fn an_acknowledged_native_is_settled_and_an_unacknowledged_one_comes_back() {
        let mut r = Retransmissions::new(&[2, 1], TA, 3);
        assert_eq!(r.sent(10, 1, 0, 0), Some(0));
        assert_eq!(r.sent(11, 1, 0, 0), Some(1));
        assert_eq!(r.sent(20, 2, 0, 5 * MILLIS), Some(0));
        assert_eq!(r.sent(99, 7, 0, 0), None, "not a neighbour");
        // Neighbour 1 acknowledges number 1 only (the bitmap's first bit).
        let block = AckBlock { last: 1, bitmap: 0 };
        let mut settled = Vec::new();
        r.on_ack(1, block, &mut settled);
        assert_eq!(settled, [11]);
        assert_eq!(r.next_deadline(), Some(TA));
        let mut out = Vec::new();
        r.expire(TA, &mut out);
        assert_eq!(
            out,
            [Expired::Requeue {
                native: 10,
                next_hop: 1,
                retries: 1
            }]
        );
        r.expire(TA + 5 * MILLIS, &mut out);
        assert_eq!(out.len(), 1, "neighbour 2's native");
        assert!(r.is_empty());
    }

    #[test]
    fn a_longer_deadline_on_a_link_does_not_hold_back_a_shorter_one_behind_it() {
        let mut r = Retransmissions::new(&[1], TA, 3);
        // A BFLY pair's native waits 2 Ta, a one-hop native sent after it Ta.
        assert_eq!(r.sent_until(10, 1, 0, 2 * TA), Some(0));
        assert_eq!(r.sent(11, 1, 0, 0), Some(1));
        assert_eq!(r.next_deadline(), Some(TA));
        let mut out = Vec::new();
        r.expire(TA, &mut out);
        assert_eq!(
            out,
            [Expired::Requeue {
                native: 11,
                next_hop: 1,
                retries: 1
            }]
        );
        assert_eq!(r.next_deadline(), Some(2 * TA));
        // Its relay was heard forwarding it: two ACK legs from now.
        r.postpone(1, |n| n == 10, 3 * TA);
        r.postpone(1, |n| n == 99, TA);
        assert_eq!(r.next_deadline(), Some(3 * TA));
        r.expire(2 * TA, &mut out);
        assert!(out.is_empty());
        r.expire(3 * TA, &mut out);
        assert_eq!(out.len(), 1);
        assert!(r.is_empty());
    }

    #[test]
    fn after_the_limit_a_native_is_dropped() {
        let mut r = Retransmissions::new(&[1], TA, 3);
        let mut out = Vec::new();
        let mut retries = 0;
        let mut now = 0;
        loop {
            r.sent(10, 1, retries, now);
            now += TA;
            r.expire(now, &mut out);
            match out[..] {
                [Expired::Requeue { retries: n, .. }] => retries = n,
                [Expired::Drop { native, .. }] => {
                    assert_eq!((native, retries), (10, 3));
                    break;
                }
                _ => panic!("{out:?}"),
            }
        }
    }

    #[test]
    fn the_next_hop_summarises_what_arrived_and_flags_duplicates() {
        let mut s = AckState::default();
        assert_eq!(s.block(), None);
        assert!(!s.received(0));
        assert!(!s.received(2));
        assert!(!s.received(3));
        assert_eq!(
            s.block(),
            Some(AckBlock {
                last: 3,
                bitmap: 0b101
            })
        );
        assert!(s.received(2), "a duplicate is re-acknowledged");
        assert!(!s.received(1));
        assert_eq!(
            s.block(),
            Some(AckBlock {
                last: 3,
                bitmap: 0b111
            })
        );
        // Far ahead: the window moves; what it leaves behind is neither acknowledged nor denied.
        assert!(!s.received(40));
        let block = s.block().expect("some");
        assert!(block.covers(40) && !block.covers(41) && !block.covers(3) && !block.covers(39));
        // A gap never gets acknowledged by numbers after it.
        let mut s = AckState::default();
        for seq in (0..60).filter(|&k| k != 5) {
            s.received(seq);
        }
        assert!(!s.block().expect("some").covers(5));
    }

    proptest::proptest! {
        /// Whatever arrives: the block covers exactly the numbers received within its reach
        /// (the last one and the 16 before it), never one that was not received.
        #[test]
        fn the_block_tells_the_truth(arrivals in proptest::collection::vec(0u32..40, 1..60)) {
            let mut s = AckState::default();
            let mut got = std::collections::BTreeSet::new();
            for &seq in &arrivals {
                let duplicate = s.received(seq);
                let last_before = got.iter().next_back().copied();
                proptest::prop_assert!(!duplicate || got.contains(&seq));
                got.insert(seq);
                let block = s.block().expect("something arrived");
                let last = *got.iter().next_back().expect("some");
                proptest::prop_assert_eq!(block.last, last);
                for k in 0..45u32 {
                    if block.covers(k) {
                        proptest::prop_assert!(got.contains(&k), "claims {} it never got", k);
                    }
                }
                // Within reach, what arrived after the window last moved past it is covered.
                if last_before.is_none_or(|b| seq + BITMAP_BITS >= b) && seq + BITMAP_BITS >= last {
                    proptest::prop_assert!(block.covers(seq));
                }
            }
        }
    }
}
