//! Drop-tail FIFO: arrivals are refused when `capacity` packets are queued (ns-2 DropTail,
//! ns-3 DropTailQueue with MaxSize in packets). The packet in the transmitter does not count.
//!
//! Optionally with a lifetime (802.11's dot11MaxTransmitMSDULifetime, ns-3's
//! `WifiMacQueue::MaxDelay`): a packet queued longer than it is removed, for the owner to drop,
//! when the owner asks ([`QueueDisc::expire`], before each arrival and each transmit
//! opportunity, as ns-3 wipes expired MPDUs on enqueue and skips them on peek). The scan stops
//! at the first packet still within its lifetime; only a packet put at the head
//! (`enqueue_front`, younger than those behind it) can hide older expired ones for a while.

use std::collections::VecDeque;

use super::QueueDisc;
use crate::sim::{DropReason, Packet, PacketId, Time};

/// Drop-tail FIFO with a capacity in packets.
#[derive(Debug)]
pub struct DropTail {
    queue: VecDeque<PacketId>,
    /// When each packet of `queue` was queued, in the same order; kept only with a lifetime, so
    /// that a queue without one stays four bytes a packet.
    queued_at: VecDeque<Time>,
    capacity: usize,
    lifetime: Option<Time>,
}

impl DropTail {
    /// A queue holding at most `capacity` packets.
    pub fn new(capacity: usize) -> Self {
        Self::with_lifetime(capacity, None)
    }

    /// A queue holding at most `capacity` packets, each for at most `lifetime` (`None`: for
    /// ever).
    pub fn with_lifetime(capacity: usize, lifetime: Option<Time>) -> Self {
        let reserve = capacity.min(4096);
        DropTail {
            queue: VecDeque::with_capacity(reserve),
            queued_at: VecDeque::with_capacity(if lifetime.is_some() { reserve } else { 0 }),
            capacity,
            lifetime,
        }
    }
}

impl QueueDisc for DropTail {
    fn enqueue(
        &mut self,
        id: PacketId,
        _packet: &Packet,
        now: Time,
    ) -> Result<(), (PacketId, DropReason)> {
        if self.queue.len() >= self.capacity {
            return Err((id, DropReason::QueueFull));
        }
        self.queue.push_back(id);
        if self.lifetime.is_some() {
            self.queued_at.push_back(now);
        }
        Ok(())
    }

    fn enqueue_front(
        &mut self,
        id: PacketId,
        _packet: &Packet,
        now: Time,
    ) -> Result<(), (PacketId, DropReason)> {
        if self.queue.len() >= self.capacity {
            return Err((id, DropReason::QueueFull));
        }
        self.queue.push_front(id);
        if self.lifetime.is_some() {
            self.queued_at.push_front(now);
        }
        Ok(())
    }

    fn expire(&mut self, now: Time, out: &mut Vec<PacketId>) {
        let Some(lifetime) = self.lifetime else {
            return;
        };
        // ns-3: an MPDU has expired once now > queued + MaxDelay.
        while let Some(&at) = self.queued_at.front() {
            if now <= at.saturating_add(lifetime) {
                break;
            }
            self.queued_at.pop_front();
            out.extend(self.queue.pop_front());
        }
    }

    fn dequeue(&mut self) -> Option<PacketId> {
        if self.lifetime.is_some() {
            self.queued_at.pop_front();
        }
        self.queue.pop_front()
    }

    fn head_queued_at(&self) -> Option<Time> {
        self.queued_at.front().copied()
    }

    fn peek_first(&self, pred: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
        self.queue.iter().copied().find(|&id| pred(id))
    }

    fn dequeue_first(
        &mut self,
        pred: &mut dyn FnMut(PacketId) -> bool,
    ) -> Option<(PacketId, Option<Time>)> {
        let i = self.queue.iter().position(|&id| pred(id))?;
        let id = self.queue.remove(i)?;
        let at = if self.lifetime.is_some() {
            self.queued_at.remove(i)
        } else {
            None
        };
        Some((id, at))
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.queue.iter().for_each(|&id| f(id));
    }

    fn remove_where(&mut self, pred: &mut dyn FnMut(PacketId) -> bool, out: &mut Vec<PacketId>) {
        // The times follow their packets: `retain` visits the queue in order.
        let mut times = std::mem::take(&mut self.queued_at).into_iter();
        let mut kept_times = VecDeque::with_capacity(times.len());
        self.queue.retain(|&id| {
            let at = times.next();
            let remove = pred(id);
            if remove {
                out.push(id);
            } else {
                kept_times.extend(at);
            }
            !remove
        });
        self.queued_at = kept_times;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::packet::Header;
    use proptest::prelude::*;

    fn pkt() -> Packet {
        Packet {
            uid: 0,
            flow: 0,
            src: 0,
            dst: 1,
            next_hop: u32::MAX,
            size: 100,
            path: crate::net::flow_paths::NO_PATH,
            link_seq: 0,
            layer_seq: 0,
            created: 0,
            header: Header::Udp { seq: 0, len: 72 },
        }
    }

    proptest! {
        /// Under any sequence of offers and takes the queue is FIFO, never exceeds its capacity,
        /// and refuses exactly the arrivals that find it full.
        #[test]
        fn fifo_and_bounded(cap in 1usize..20, ops in proptest::collection::vec(any::<bool>(), 0..200)) {
            let mut q = DropTail::new(cap);
            let mut model: VecDeque<u32> = VecDeque::new();
            let mut next = 0u32;
            for offer in ops {
                if offer {
                    let r = q.enqueue(PacketId(next), &pkt(), 0);
                    if model.len() < cap {
                        prop_assert!(r.is_ok());
                        model.push_back(next);
                    } else {
                        prop_assert_eq!(r, Err((PacketId(next), DropReason::QueueFull)));
                    }
                    next += 1;
                } else {
                    prop_assert_eq!(q.dequeue().map(|p| p.0), model.pop_front());
                }
                prop_assert!(q.len() <= cap);
                prop_assert_eq!(q.len(), model.len());
            }
        }

        /// With a lifetime, under any mix of offers (at the tail or the head), takes, expiries
        /// and removals at advancing times, the queue holds what a list of (packet, queued at)
        /// holds: expiry removes from the head exactly the packets older than the lifetime, up
        /// to the first that is not.
        #[test]
        fn lifetime_follows_the_packets(
            ops in proptest::collection::vec((0u8..5, 0u64..40), 0..300),
        ) {
            const LIFETIME: Time = 50;
            let mut q = DropTail::with_lifetime(30, Some(LIFETIME));
            let mut model: VecDeque<(u32, Time)> = VecDeque::new();
            let (mut now, mut next) = (0, 0u32);
            for (op, step) in ops {
                now += step;
                match op {
                    0 | 1 => {
                        let r = if op == 0 {
                            q.enqueue(PacketId(next), &pkt(), now)
                        } else {
                            q.enqueue_front(PacketId(next), &pkt(), now)
                        };
                        if model.len() < 30 {
                            prop_assert!(r.is_ok());
                            if op == 0 { model.push_back((next, now)) } else { model.push_front((next, now)) }
                        }
                        next += 1;
                    }
                    2 => prop_assert_eq!(q.dequeue().map(|p| p.0), model.pop_front().map(|m| m.0)),
                    3 => {
                        let mut out = Vec::new();
                        q.expire(now, &mut out);
                        let mut want = Vec::new();
                        while model.front().is_some_and(|&(_, at)| now > at + LIFETIME) {
                            want.push(model.pop_front().unwrap().0);
                        }
                        prop_assert_eq!(out.iter().map(|p| p.0).collect::<Vec<_>>(), want);
                    }
                    _ => {
                        let mut out = Vec::new();
                        q.remove_where(&mut |p| p.0 % 3 == 0, &mut out);
                        let want: Vec<u32> = model.iter().filter(|m| m.0 % 3 == 0).map(|m| m.0).collect();
                        model.retain(|m| m.0 % 3 != 0);
                        prop_assert_eq!(out.iter().map(|p| p.0).collect::<Vec<_>>(), want);
                    }
                }
                prop_assert_eq!(q.len(), model.len());
                prop_assert_eq!(q.queued_at.len(), model.len());
            }
        }
    }
}
