//! One wireless router's per-flow queue pairs and the choice of what it sends next (TCP-RLC,
//! Ryu, Bhadra & Shakkottai, Allerton 2009, §II-G, §II-H5, §IV; rules the text leaves open follow
//! the spec's §2.2, marked [I]). Pure: packets come in as ids with their priority and block, and
//! the caller supplies each user's success probability when a choice needs it.
//!
//! - Per flow a **high** FIFO (tail drop) and a **low** LIFO [P]: the newest low packet goes first
//!   ("the most relevant one to the current RTT time slot", §II-H5) and a full low queue pushes
//!   out its *oldest* packet [I, A11], so stale coded packets of old blocks never hold the air.
//!   The low queue can be a drop-tail FIFO instead (the ablation that shows the LIFO matters).
//! - **High always first**: while any flow has a high packet, one is sent, flows taken round-robin
//!   [I, A12].
//! - Then a low packet, by the low-priority policy:
//!   - `blind`: round-robin over the flows with low packets [I];
//!   - `channel_aware` [P: the router "uses p_i to control how many coded packets are sent for each
//!     flow"; rule I, A8]: from the TCP-RLC headers it reads each flow's newest block b_i and its
//!     size B_i and counts `sent_i`, the packets (high and low) of b_i sent so far (reset when a
//!     packet of a newer block is first seen). Flow i is *owed* while sent_i < n_i =
//!     ceil((B_i + kappa sqrt(B_i (1 - p_i))) / p_i), p_i its user's success probability now
//!     (the oracle the paper assumes): enough transmissions that B_i arrive with kappa standard
//!     deviations to spare (kappa = 2: about 97.7 %). Owed flows with low packets are served
//!     round-robin; when none is owed, every flow with low packets is (work conserving).

use std::collections::VecDeque;

use serde::Serialize;

use crate::coding::block_quota::quota;
use crate::sim::PacketId;

/// Which end of the low queue is served, and what a full one does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LowOrder {
    /// Newest first; a full queue pushes out its oldest packet (the paper's).
    Lifo,
    /// Oldest first; a full queue refuses the arrival (ablation).
    Fifo,
}

/// How low-priority packets are shared among flows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LowPolicy {
    /// Round-robin over flows with low packets.
    Blind,
    /// Per-block quotas from each user's success probability, then round-robin.
    ChannelAware {
        /// Standard deviations of margin in the quota.
        kappa: f64,
    },
}

/// A packet as the queues keep it: its id and its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The packet.
    pub id: PacketId,
    /// First frame of its block.
    pub block_start: u64,
    /// Frames in its block.
    pub block_size: u32,
}

/// What became of an offered packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Queued.
    Queued,
    /// Queued, and this older low packet was pushed out to make room.
    PushedOut(PacketId),
    /// Refused: the queue was full.
    Refused,
}

/// Counters of one flow's pair (the results' table's columns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PairStats {
    /// High packets queued.
    pub high_queued: u64,
    /// High packets refused (full).
    pub high_dropped: u64,
    /// High packets sent.
    pub high_sent: u64,
    /// Low packets queued.
    pub low_queued: u64,
    /// Low packets pushed out by newer ones (LIFO).
    pub low_pushed_out: u64,
    /// Low packets refused (full FIFO).
    pub low_dropped: u64,
    /// Low packets sent.
    pub low_sent: u64,
    /// Of those, sent while the flow was owed (channel-aware).
    pub low_sent_owed: u64,
    /// Largest high backlog.
    pub max_high: u32,
    /// Largest low backlog.
    pub max_low: u32,
}

/// One flow's queue pair.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The flow.
    pub flow: u32,
    /// The user its packets go to.
    pub user: u32,
    high: VecDeque<Queued>,
    low: VecDeque<Queued>,
    high_capacity: usize,
    low_capacity: usize,
    /// The newest block seen sent, and the packets of it sent.
    block: Option<(u64, u32)>,
    sent_in_block: u64,
    /// The counters.
    pub stats: PairStats,
}

impl Pair {
    fn owed(&self, p: f64, kappa: f64) -> bool {
        let Some((_, size)) = self.block else {
            return true;
        };
        self.sent_in_block < quota(size, p, kappa)
    }

    /// Packets queued (high, low).
    pub fn backlog(&self) -> (usize, usize) {
        (self.high.len(), self.low.len())
    }

    fn record_sent(&mut self, q: &Queued) {
        match self.block {
            Some((start, _)) if q.block_start < start => {}
            Some((start, _)) if q.block_start == start => self.sent_in_block += 1,
            _ => {
                self.block = Some((q.block_start, q.block_size));
                self.sent_in_block = 1;
            }
        }
    }
}

/// The indices 0..n from `start` on, wrapping round.
fn round_robin(start: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |k| (start + k) % n)
}

/// One router's queue pairs (see the module header).
#[derive(Debug, Clone)]
pub struct QueuePairs {
    order: LowOrder,
    policy: LowPolicy,
    pairs: Vec<Pair>,
    /// Pair index of each flow (u32::MAX: none yet).
    slot_of_flow: Vec<u32>,
    next_high: usize,
    next_low: usize,
    held: u64,
    /// Of them, high-priority (so that `next` skips the scan of the high queues when none is).
    held_high: u64,
}

impl QueuePairs {
    /// Empty pairs with the given low order and policy.
    pub fn new(order: LowOrder, policy: LowPolicy) -> Self {
        QueuePairs {
            order,
            policy,
            pairs: Vec::new(),
            slot_of_flow: Vec::new(),
            next_high: 0,
            next_low: 0,
            held: 0,
            held_high: 0,
        }
    }

    /// The pairs, in the order their flows first arrived.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs
    }

    /// Packets queued in all pairs.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Visits every queued packet.
    pub fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        for p in &self.pairs {
            p.high.iter().chain(&p.low).for_each(|q| f(q.id));
        }
    }

    /// The pair of `flow`, made (for user `user`, with the given capacities) on its first packet.
    fn pair_of(&mut self, flow: u32, user: u32, capacity: (usize, usize)) -> &mut Pair {
        let f = flow as usize;
        if self.slot_of_flow.len() <= f {
            self.slot_of_flow.resize(f + 1, u32::MAX);
        }
        if self.slot_of_flow[f] == u32::MAX {
            self.slot_of_flow[f] = self.pairs.len() as u32;
            self.pairs.push(Pair {
                flow,
                user,
                high: VecDeque::with_capacity(capacity.0.min(4096)),
                low: VecDeque::with_capacity(capacity.1.min(4096)),
                high_capacity: capacity.0,
                low_capacity: capacity.1,
                block: None,
                sent_in_block: 0,
                stats: PairStats::default(),
            });
        }
        &mut self.pairs[self.slot_of_flow[f] as usize]
    }

    /// Offers packet `q` of `flow` (to `user`), high or low, with the flow's capacities
    /// (high, low) for a pair made now.
    pub fn offer(
        &mut self,
        flow: u32,
        user: u32,
        high: bool,
        q: Queued,
        capacity: (usize, usize),
    ) -> Offer {
        let order = self.order;
        let pair = self.pair_of(flow, user, capacity);
        let outcome = if high {
            if pair.high.len() >= pair.high_capacity {
                pair.stats.high_dropped += 1;
                Offer::Refused
            } else {
                pair.high.push_back(q);
                pair.stats.high_queued += 1;
                Offer::Queued
            }
        } else if pair.low.len() < pair.low_capacity {
            pair.low.push_back(q);
            pair.stats.low_queued += 1;
            Offer::Queued
        } else if order == LowOrder::Lifo && !pair.low.is_empty() {
            let oldest = pair.low.pop_front().expect("non-empty");
            pair.low.push_back(q);
            pair.stats.low_queued += 1;
            pair.stats.low_pushed_out += 1;
            Offer::PushedOut(oldest.id)
        } else {
            pair.stats.low_dropped += 1;
            Offer::Refused
        };
        pair.stats.max_high = pair.stats.max_high.max(pair.high.len() as u32);
        pair.stats.max_low = pair.stats.max_low.max(pair.low.len() as u32);
        if outcome == Offer::Queued {
            self.held += 1;
            self.held_high += u64::from(high);
        }
        outcome
    }

    /// The next packet to send, if any: high first, then low by the policy; `p_of_user(u)` is
    /// user u's success probability now (asked only by the channel-aware policy).
    pub fn next(&mut self, p_of_user: &mut dyn FnMut(u32) -> f64) -> Option<PacketId> {
        let n = self.pairs.len();
        if n == 0 || self.held == 0 {
            return None;
        }
        if self.held_high > 0 {
            let i = round_robin(self.next_high, n)
                .find(|&i| !self.pairs[i].high.is_empty())
                .expect("held_high counts a queued packet");
            self.next_high = (i + 1) % n;
            let pair = &mut self.pairs[i];
            let q = pair.high.pop_front().expect("non-empty");
            pair.stats.high_sent += 1;
            pair.record_sent(&q);
            self.held -= 1;
            self.held_high -= 1;
            return Some(q.id);
        }
        let with_low = |pairs: &[Pair], i: usize| !pairs[i].low.is_empty();
        let mut chosen = None;
        let mut owed = false;
        if let LowPolicy::ChannelAware { kappa } = self.policy {
            chosen = round_robin(self.next_low, n).find(|&i| {
                let pair = &self.pairs[i];
                with_low(&self.pairs, i) && pair.owed(p_of_user(pair.user), kappa)
            });
            owed = chosen.is_some();
        }
        let i = match chosen {
            Some(i) => i,
            None => round_robin(self.next_low, n).find(|&i| with_low(&self.pairs, i))?,
        };
        self.next_low = (i + 1) % n;
        let order = self.order;
        let pair = &mut self.pairs[i];
        let q = match order {
            LowOrder::Lifo => pair.low.pop_back(),
            LowOrder::Fifo => pair.low.pop_front(),
        }
        .expect("non-empty");
        pair.stats.low_sent += 1;
        pair.stats.low_sent_owed += u64::from(owed);
        pair.record_sent(&q);
        self.held -= 1;
        Some(q.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn q(id: u32, block_start: u64, block_size: u32) -> Queued {
        Queued {
            id: PacketId(id),
            block_start,
            block_size,
        }
    }

    #[test]
    fn high_goes_first_fifo_and_low_newest_first() {
        let mut pairs = QueuePairs::new(LowOrder::Lifo, LowPolicy::Blind);
        let cap = (10, 10);
        for id in 0..3 {
            pairs.offer(0, 0, false, q(id, 0, 4), cap);
        }
        for id in 10..13 {
            pairs.offer(0, 0, true, q(id, 0, 4), cap);
        }
        let order: Vec<u32> = std::iter::from_fn(|| pairs.next(&mut |_| 1.0))
            .map(|p| p.0)
            .collect();
        assert_eq!(order, [10, 11, 12, 2, 1, 0]);
    }

    #[test]
    fn a_full_lifo_pushes_out_its_oldest_and_a_full_fifo_refuses() {
        let mut lifo = QueuePairs::new(LowOrder::Lifo, LowPolicy::Blind);
        let mut fifo = QueuePairs::new(LowOrder::Fifo, LowPolicy::Blind);
        for id in 0..2 {
            assert_eq!(lifo.offer(0, 0, false, q(id, 0, 1), (1, 2)), Offer::Queued);
            assert_eq!(fifo.offer(0, 0, false, q(id, 0, 1), (1, 2)), Offer::Queued);
        }
        assert_eq!(
            lifo.offer(0, 0, false, q(2, 0, 1), (1, 2)),
            Offer::PushedOut(PacketId(0))
        );
        assert_eq!(fifo.offer(0, 0, false, q(2, 0, 1), (1, 2)), Offer::Refused);
        assert_eq!(lifo.next(&mut |_| 1.0), Some(PacketId(2)));
        assert_eq!(fifo.next(&mut |_| 1.0), Some(PacketId(0)));
        // High: tail drop.
        assert_eq!(lifo.offer(0, 0, true, q(5, 0, 1), (1, 2)), Offer::Queued);
        assert_eq!(lifo.offer(0, 0, true, q(6, 0, 1), (1, 2)), Offer::Refused);
    }

    #[test]
    fn channel_aware_serves_each_flow_its_quota_before_any_surplus() {
        // Spec §6(a) 6: two users, p = 1 and p = 0.5, blocks of 10, a backlog of low packets:
        // user 1 gets 10 transmissions and user 2 29 before the surplus is shared.
        let mut pairs = QueuePairs::new(LowOrder::Lifo, LowPolicy::ChannelAware { kappa: 2.0 });
        let cap = (100, 100);
        for id in 0..100 {
            pairs.offer(0, 0, false, q(id, 0, 10), cap);
            pairs.offer(1, 1, false, q(1000 + id, 0, 10), cap);
        }
        let p = |u: u32| if u == 0 { 1.0 } else { 0.5 };
        let mut sent = [0u32; 2];
        for _ in 0..39 {
            let id = pairs.next(&mut |u| p(u)).expect("backlog").0;
            sent[usize::from(id >= 1000)] += 1;
        }
        assert_eq!(sent, [10, 29]);
        let owed: Vec<u64> = pairs
            .pairs()
            .iter()
            .map(|x| x.stats.low_sent_owed)
            .collect();
        assert_eq!(owed, [10, 29]);
        // Then round-robin.
        let a = pairs.next(&mut |u| p(u)).expect("backlog").0 >= 1000;
        let b = pairs.next(&mut |u| p(u)).expect("backlog").0 >= 1000;
        assert_ne!(a, b);
    }

    #[test]
    fn a_newer_block_resets_the_count() {
        let mut pairs = QueuePairs::new(LowOrder::Fifo, LowPolicy::ChannelAware { kappa: 0.0 });
        let cap = (100, 100);
        // Block 0 of size 2 at p = 1: owed for 2 packets; then block 2 (size 3) arrives.
        for id in 0..4 {
            pairs.offer(0, 0, false, q(id, 0, 2), cap);
        }
        pairs.offer(0, 0, false, q(10, 2, 3), cap);
        pairs.offer(1, 1, false, q(20, 0, 100), cap);
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(pairs.next(&mut |_| 1.0).expect("backlog").0);
        }
        // Flows alternate while both owed; flow 1 is owed for 100.
        assert_eq!(ids, [0, 20, 1]);
        let stats = pairs.pairs()[0].stats;
        assert_eq!(stats.low_sent_owed, 2);
    }

    /// Spec §6(a) 5: random arrivals of both priorities for 1-30 flows; never a low packet while
    /// a high one is queued; high FIFO per flow; low newest first; capacities never exceeded;
    /// work conserving; packets conserved.
    #[test]
    fn property_priority_order_capacity_and_conservation() {
        let mut rng = Rng::stream(7, "pairs");
        for case in 0..200 {
            let flows = 1 + (rng.next_u64() % 30) as u32;
            let cap = (
                1 + (rng.next_u64() % 8) as usize,
                1 + (rng.next_u64() % 8) as usize,
            );
            let policy = if case % 2 == 0 {
                LowPolicy::Blind
            } else {
                LowPolicy::ChannelAware { kappa: 2.0 }
            };
            let mut pairs = QueuePairs::new(LowOrder::Lifo, policy);
            // Model: per flow the queued ids of each class in arrival order.
            let mut high: Vec<VecDeque<u32>> = vec![VecDeque::new(); flows as usize];
            let mut low: Vec<VecDeque<u32>> = vec![VecDeque::new(); flows as usize];
            let (mut offered, mut sent, mut dropped) = (0u64, 0u64, 0u64);
            let mut next_id = 0;
            for _ in 0..2000 {
                if rng.bernoulli(0.55) {
                    let f = (rng.next_u64() % flows as u64) as u32;
                    let is_high = rng.bernoulli(0.3);
                    let id = next_id;
                    next_id += 1;
                    offered += 1;
                    let block = rng.next_u64() % 4;
                    match pairs.offer(f, f, is_high, q(id, block * 10, 10), cap) {
                        Offer::Queued => {
                            let m = if is_high { &mut high } else { &mut low };
                            m[f as usize].push_back(id);
                        }
                        Offer::PushedOut(old) => {
                            assert_eq!(low[f as usize].pop_front(), Some(old.0));
                            low[f as usize].push_back(id);
                            dropped += 1;
                        }
                        Offer::Refused => dropped += 1,
                    }
                    for f in 0..flows as usize {
                        assert!(high[f].len() <= cap.0 && low[f].len() <= cap.1);
                    }
                } else {
                    let any_high = high.iter().any(|h| !h.is_empty());
                    let any = any_high || low.iter().any(|l| !l.is_empty());
                    let got = pairs.next(&mut |u| 0.5 + 0.5 * f64::from(u % 2));
                    assert_eq!(got.is_some(), any, "work conserving");
                    let Some(id) = got else { continue };
                    sent += 1;
                    if any_high {
                        let f = high.iter().position(|h| h.front() == Some(&id.0));
                        let f = f.expect("the head of some flow's high queue");
                        high[f].pop_front();
                    } else {
                        let f = low.iter().position(|l| l.back() == Some(&id.0));
                        let f = f.expect("the newest of some flow's low queue");
                        low[f].pop_back();
                    }
                }
                let queued: usize = high.iter().chain(&low).map(VecDeque::len).sum();
                assert_eq!(pairs.held(), queued as u64);
                assert_eq!(offered, sent + dropped + queued as u64);
            }
        }
    }
}
