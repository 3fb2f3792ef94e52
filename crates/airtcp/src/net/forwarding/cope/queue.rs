//! The output queue of a coding node: COPE's FIFO of natives, coded at the transmit opportunity
//! (TCP+COPE), or NCAQM's queue of entries coded when they are inserted (paper 001 §V-A, Algs.
//! 1-2). The layer around it (pools, reports, pseudo-broadcast, ACKs) is the same for both; the
//! buffer counts natives in the first and entries in the second, the first practical difference
//! paper 001 names.

use super::params::{CopeParams, QueueKind};
use crate::coding::cope_fifo::CopeFifo;
use crate::coding::cope_rule::{self, Native};
use crate::net::forwarding::ncaqm::queue::{Decodability, Enqueued, NcaqmQueue, Queued};
use crate::sim::{NodeId, Rng, Time};

/// NCAQM's estimation window T_alpha [I: 1 s].
pub const NCAQM_WINDOW: Time = 1_000_000_000;

/// A native arriving at the queue.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    /// The native (id, next hop, size class).
    pub native: Native,
    /// Its stream: a flow's data and its TCP ACKs are two (they have other next hops).
    pub stream: u32,
    /// Never coded (a TCP ACK when ACKs are not coded).
    pub solo: bool,
}

/// How the FIFO chooses a frame: the coder's neighbours in the order the rule tries them, its
/// threshold, and which natives are never coded.
pub struct FifoChoice<'a> {
    /// Neighbours, ascending node id.
    pub neighbours: &'a [NodeId],
    /// COPE's G.
    pub threshold: f64,
    /// Whether a native is never coded (a TCP ACK when ACKs are not coded).
    pub solo: &'a dyn Fn(u64) -> bool,
}

/// One node's output queue.
#[derive(Debug, Clone)]
pub enum OutputQueue {
    /// COPE's drop-tail FIFO of natives.
    Fifo(CopeFifo),
    /// NCAQM's queue of entries.
    Ncaqm(Box<NcaqmQueue>),
}

impl OutputQueue {
    /// The queue `p` asks for.
    pub fn new(p: &CopeParams) -> Self {
        match p.queue {
            QueueKind::Fifo => OutputQueue::Fifo(CopeFifo::new(p.capacity)),
            QueueKind::Ncaqm => OutputQueue::Ncaqm(Box::new(NcaqmQueue::new(
                p.capacity,
                p.threshold,
                NCAQM_WINDOW,
            ))),
        }
    }

    /// Slots in use: natives (FIFO) or entries (NCAQM).
    pub fn len(&self) -> usize {
        match self {
            OutputQueue::Fifo(q) => q.len(),
            OutputQueue::Ncaqm(q) => q.len(),
        }
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Visits every native queued.
    pub fn for_each(&self, f: &mut dyn FnMut(u64)) {
        match self {
            OutputQueue::Fifo(q) => q.iter().for_each(|n| f(n.id)),
            OutputQueue::Ncaqm(q) => q
                .entries()
                .flat_map(|e| e.natives())
                .for_each(|n| f(n.native.id)),
        }
    }

    /// Removes every native, into `out` (appended).
    pub fn drain(&mut self, out: &mut Vec<u64>) {
        match self {
            OutputQueue::Fifo(q) => q.drain(out),
            OutputQueue::Ncaqm(q) => q.drain(out),
        }
    }

    /// `a` arrives (`front`: back from a COPE retransmission, to the head); the native dropped,
    /// if the queue overflowed: the arrival, or (NCAQM's Alg. 2) a queued one.
    pub fn push(
        &mut self,
        a: Arrival,
        front: bool,
        holds: &mut impl Decodability,
        now: Time,
        rng: &mut Rng,
    ) -> Option<u64> {
        match self {
            OutputQueue::Fifo(q) => {
                let pushed = if front {
                    q.push_front(a.native)
                } else {
                    q.push(a.native)
                };
                pushed.err().map(|n| n.id)
            }
            OutputQueue::Ncaqm(q) => {
                let queued = Queued {
                    native: a.native,
                    flow: a.stream,
                    solo: a.solo,
                };
                match q.insert(queued, holds, now, rng, front) {
                    Enqueued::Dropped(id) => Some(id),
                    Enqueued::Joined(_) | Enqueued::Appended => None,
                }
            }
        }
    }

    /// The natives of the next frame into `out` (cleared; empty if nothing waits), removed from
    /// the queue: a BFLY two-hop pair with the head if `holds` pairs one, else COPE's rule over
    /// the head and the virtual queues; or NCAQM's head entry after trying the later ones on it.
    pub fn next_frame(
        &mut self,
        choice: &FifoChoice<'_>,
        holds: &mut impl Decodability,
        now: Time,
        out: &mut Vec<Native>,
    ) {
        out.clear();
        match self {
            OutputQueue::Fifo(q) => {
                let Some(head) = q.head() else {
                    return;
                };
                let is_solo = |n: &Native| (choice.solo)(n.id);
                // BFLY first [I]: the first native behind the head with its next hop that
                // pairs with it over two hops.
                let partner = if is_solo(&head) {
                    None
                } else {
                    q.iter()
                        .find(|c| {
                            c.id != head.id
                                && c.next_hop == head.next_hop
                                && !is_solo(c)
                                && holds.two_hop(head.id, c.id)
                        })
                        .copied()
                };
                if is_solo(&head) {
                    out.push(head);
                } else if let Some(partner) = partner {
                    out.extend([head, partner]);
                } else {
                    let mut virtual_head = |n: NodeId, large: bool| {
                        q.first_where(|c| c.next_hop == n && c.large == large && !is_solo(c))
                    };
                    cope_rule::choose(
                        head,
                        choice.neighbours,
                        &mut virtual_head,
                        &mut |r, id| holds.holds(r, id),
                        choice.threshold,
                        out,
                    );
                    // A subset of a decodable set stays decodable.
                    out.truncate(super::MAX_NATIVES);
                }
                q.take(out);
            }
            OutputQueue::Ncaqm(q) => {
                if let Some(entry) = q.dequeue(holds, now) {
                    out.extend(entry.natives().iter().map(|n| n.native));
                }
            }
        }
    }

    /// What a node knows changed (a reception report): NCAQM runs Alg. 1's re-coding pass; the
    /// FIFO codes at the transmit opportunity anyway.
    pub fn recode(&mut self, holds: &mut impl Decodability) {
        if let OutputQueue::Ncaqm(q) = self {
            q.recode(holds);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn arrival(id: u64, next_hop: NodeId) -> Arrival {
        Arrival {
            native: Native {
                id,
                next_hop,
                large: true,
            },
            stream: id as u32,
            solo: false,
        }
    }

    /// Everyone holds everything; natives 1 and 3 pair over two hops.
    struct PairsOneAndThree;

    impl Decodability for PairsOneAndThree {
        fn holds(&mut self, _: NodeId, _: u64) -> f64 {
            1.0
        }

        fn two_hop(&mut self, a: u64, b: u64) -> bool {
            matches!((a, b), (1, 3) | (3, 1))
        }
    }

    #[test]
    fn the_fifo_pairs_its_head_over_two_hops_before_coding_it_for_one() {
        let mut q = OutputQueue::new(&CopeParams::default());
        let mut rng = Rng::stream(1, "queue");
        let mut c = PairsOneAndThree;
        // 1 and 3 go to relay 10, 2 to 20 (COPE could code 1 with 2).
        for (id, hop) in [(1, 10), (2, 20), (3, 10)] {
            assert_eq!(q.push(arrival(id, hop), false, &mut c, 0, &mut rng), None);
        }
        let solo = |_: u64| false;
        let choice = FifoChoice {
            neighbours: &[10, 20],
            threshold: 0.8,
            solo: &solo,
        };
        let mut out = Vec::new();
        q.next_frame(&choice, &mut c, 0, &mut out);
        assert_eq!(out.iter().map(|n| n.id).collect::<Vec<_>>(), [1, 3]);
        q.next_frame(&choice, &mut c, 0, &mut out);
        assert_eq!(out.iter().map(|n| n.id).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn a_solo_native_goes_alone_and_is_nobody_s_partner() {
        let mut q = OutputQueue::new(&CopeParams::default());
        let mut rng = Rng::stream(1, "queue");
        let mut holds = |_: NodeId, _: u64| 1.0;
        // Natives 1 (to 10), 2 (to 20, solo), 3 (to 30).
        for (id, hop) in [(1, 10), (2, 20), (3, 30)] {
            assert_eq!(
                q.push(arrival(id, hop), false, &mut holds, 0, &mut rng),
                None
            );
        }
        let solo = |id: u64| id == 2;
        let choice = FifoChoice {
            neighbours: &[10, 20, 30],
            threshold: 0.8,
            solo: &solo,
        };
        let mut out = Vec::new();
        q.next_frame(&choice, &mut holds, 0, &mut out);
        assert_eq!(out.iter().map(|n| n.id).collect::<Vec<_>>(), [1, 3]);
        q.next_frame(&choice, &mut holds, 0, &mut out);
        assert_eq!(out.iter().map(|n| n.id).collect::<Vec<_>>(), [2]);
        assert!(q.is_empty());
    }
}
