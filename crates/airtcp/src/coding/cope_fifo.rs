//! COPE's output queue (Katti et al., "XORs in the air", IEEE/ACM ToN 16(3), 2008, §3.3; paper
//! 001's TCP+COPE baseline, "stores native packets in a FIFO"; spec 001 §2.2): a drop-tail FIFO of
//! at most L natives, seen through per-neighbour virtual queues split by size class, from which
//! the coding rule ([`super::cope_rule::choose`]) takes the partners of the head.
//!
//! - The virtual queue of neighbour n and a size class is the natives going to n in that class,
//!   in FIFO order; its head is the first such native from the front (L is small, at most a
//!   few tens, so the views are scans rather than separate lists).
//! - Natives chosen for a frame leave wherever they are ([`CopeFifo::take`]); a native whose COPE
//!   ACK timed out comes back at the head ([`CopeFifo::push_front`]).
//! - Drop-tail: an arrival (or a returning native) that finds L natives queued is refused.

use std::collections::VecDeque;

use super::cope_rule::Native;

/// A drop-tail FIFO of natives with per-neighbour virtual queues.
#[derive(Debug, Clone)]
pub struct CopeFifo {
    capacity: usize,
    natives: VecDeque<Native>,
}

impl CopeFifo {
    /// A queue of at most `capacity` natives (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        CopeFifo {
            capacity,
            natives: VecDeque::with_capacity(capacity),
        }
    }

    /// Natives queued.
    pub fn len(&self) -> usize {
        self.natives.len()
    }

    /// Whether none is queued.
    pub fn is_empty(&self) -> bool {
        self.natives.is_empty()
    }

    /// Appends `native`; refused (returned) when the queue is full.
    pub fn push(&mut self, native: Native) -> Result<(), Native> {
        if self.natives.len() >= self.capacity {
            return Err(native);
        }
        self.natives.push_back(native);
        Ok(())
    }

    /// Puts `native` back at the head (a COPE retransmission); refused when the queue is full.
    pub fn push_front(&mut self, native: Native) -> Result<(), Native> {
        if self.natives.len() >= self.capacity {
            return Err(native);
        }
        self.natives.push_front(native);
        Ok(())
    }

    /// The native at the head.
    pub fn head(&self) -> Option<Native> {
        self.natives.front().copied()
    }

    /// The head of neighbour `next_hop`'s virtual queue of size class `large`.
    pub fn virtual_head(&self, next_hop: u32, large: bool) -> Option<Native> {
        self.first_where(|n| n.next_hop == next_hop && n.large == large)
    }

    /// The first native from the head that satisfies `pred`.
    pub fn first_where(&self, pred: impl Fn(&Native) -> bool) -> Option<Native> {
        self.natives.iter().find(|n| pred(n)).copied()
    }

    /// The natives, head first.
    pub fn iter(&self) -> impl Iterator<Item = &Native> {
        self.natives.iter()
    }

    /// Removes every native, its id into `out` (appended).
    pub fn drain(&mut self, out: &mut Vec<u64>) {
        out.extend(self.natives.drain(..).map(|n| n.id));
    }

    /// Removes the natives of `chosen` (by id) wherever they are; returns how many were queued.
    pub fn take(&mut self, chosen: &[Native]) -> usize {
        let before = self.natives.len();
        self.natives
            .retain(|n| !chosen.iter().any(|c| c.id == n.id));
        before - self.natives.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::cope_rule::{choose, COPE_THRESHOLD};
    use proptest::prelude::*;

    fn native(id: u64, next_hop: u32, large: bool) -> Native {
        Native {
            id,
            next_hop,
            large,
        }
    }

    #[test]
    fn virtual_queues_are_views_by_neighbour_and_size_in_fifo_order() {
        let mut q = CopeFifo::new(10);
        for n in [
            native(1, 7, true),
            native(2, 8, false),
            native(3, 8, true),
            native(4, 7, true),
        ] {
            q.push(n).expect("room");
        }
        assert_eq!(q.head().map(|n| n.id), Some(1));
        assert_eq!(q.virtual_head(8, true).map(|n| n.id), Some(3));
        assert_eq!(q.virtual_head(8, false).map(|n| n.id), Some(2));
        assert_eq!(q.virtual_head(9, true), None);
        // The coding rule pairs the head (to 7) with neighbour 8's large head.
        let mut chosen = Vec::new();
        choose(
            q.head().expect("queued"),
            &[7, 8],
            &mut |n, large| q.virtual_head(n, large),
            &mut |_, _| 1.0,
            COPE_THRESHOLD,
            &mut chosen,
        );
        // Never two natives for one next hop: neighbour 8's small head stays.
        assert_eq!(chosen.iter().map(|n| n.id).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(q.take(&chosen), 2);
        assert_eq!(q.head().map(|n| n.id), Some(2));
    }

    #[test]
    fn drop_tail_and_retransmissions_at_the_head() {
        let mut q = CopeFifo::new(2);
        q.push(native(1, 7, true)).expect("room");
        q.push(native(2, 7, true)).expect("room");
        assert_eq!(q.push(native(3, 7, true)), Err(native(3, 7, true)));
        assert_eq!(q.push_front(native(9, 7, true)), Err(native(9, 7, true)));
        q.take(&[native(1, 7, true)]);
        q.push_front(native(9, 7, true)).expect("room again");
        assert_eq!(q.head().map(|n| n.id), Some(9));
    }

    proptest! {
        /// Random pushes, returns and codings: never more than L natives, every native counted
        /// (pushed = taken + refused + queued), and each neighbour's natives leave in the order
        /// they were pushed when nothing returns.
        #[test]
        fn the_fifo_conserves_natives_and_keeps_order(
            ops in proptest::collection::vec((0u32..4, any::<bool>(), any::<bool>()), 1..200),
            capacity in 1usize..10,
        ) {
            let mut q = CopeFifo::new(capacity);
            let (mut pushed, mut taken, mut refused) = (0usize, 0usize, 0usize);
            // Per (neighbour, size class), the newest native taken so far.
            let mut last = [0u64; 8];
            let mut chosen = Vec::new();
            for (i, &(hop, large, code)) in ops.iter().enumerate() {
                if code {
                    let Some(head) = q.head() else { continue };
                    choose(head, &[0, 1, 2, 3], &mut |n, l| q.virtual_head(n, l), &mut |_, _| 1.0,
                           COPE_THRESHOLD, &mut chosen);
                    for n in &chosen {
                        // The head and the virtual heads are the oldest of their neighbour and
                        // class: newer than everything of theirs taken before.
                        let slot = n.next_hop as usize * 2 + usize::from(n.large);
                        prop_assert!(n.id > last[slot]);
                        last[slot] = n.id;
                    }
                    taken += q.take(&chosen);
                } else {
                    pushed += 1;
                    if q.push(native(i as u64 + 1, hop, large)).is_err() {
                        refused += 1;
                    }
                }
                prop_assert!(q.len() <= capacity);
                prop_assert_eq!(pushed, taken + refused + q.len());
            }
        }
    }
}
