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
    /// Packets and the time each was queued.
    queue: VecDeque<(PacketId, Time)>,
    capacity: usize,
    lifetime: Option<Time>,
}

impl DropTail {
    /// A queue holding at most `capacity` packets.
    pub fn new(capacity: usize) -> Self {
        DropTail {
            queue: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
            lifetime: None,
        }
    }

    /// A queue holding at most `capacity` packets, each for at most `lifetime` (`None`: for
    /// ever).
    pub fn with_lifetime(capacity: usize, lifetime: Option<Time>) -> Self {
        DropTail {
            lifetime,
            ..DropTail::new(capacity)
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
        self.queue.push_back((id, now));
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
        self.queue.push_front((id, now));
        Ok(())
    }

    fn expire(&mut self, now: Time, out: &mut Vec<PacketId>) {
        let Some(lifetime) = self.lifetime else {
            return;
        };
        // ns-3: an MPDU has expired once now > queued + MaxDelay.
        while let Some(&(id, at)) = self.queue.front() {
            if now <= at.saturating_add(lifetime) {
                break;
            }
            self.queue.pop_front();
            out.push(id);
        }
    }

    fn dequeue(&mut self) -> Option<PacketId> {
        self.queue.pop_front().map(|(id, _)| id)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.queue.iter().for_each(|&(id, _)| f(id));
    }

    fn remove_where(&mut self, pred: &mut dyn FnMut(PacketId) -> bool, out: &mut Vec<PacketId>) {
        self.queue.retain(|&(id, _)| {
            let remove = pred(id);
            if remove {
                out.push(id);
            }
            !remove
        });
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
    }
}
