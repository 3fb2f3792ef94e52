//! Drop-tail FIFO: arrivals are refused when `capacity` packets are queued (ns-2 DropTail,
//! ns-3 DropTailQueue with MaxSize in packets). The packet in the transmitter does not count.

use std::collections::VecDeque;

use super::QueueDisc;
use crate::sim::{DropReason, Packet, PacketId};

/// Drop-tail FIFO with a capacity in packets.
#[derive(Debug)]
pub struct DropTail {
    queue: VecDeque<PacketId>,
    capacity: usize,
}

impl DropTail {
    /// A queue holding at most `capacity` packets.
    pub fn new(capacity: usize) -> Self {
        DropTail {
            queue: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
        }
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, id: PacketId, _packet: &Packet) -> Result<(), (PacketId, DropReason)> {
        if self.queue.len() >= self.capacity {
            return Err((id, DropReason::QueueFull));
        }
        self.queue.push_back(id);
        Ok(())
    }

    fn enqueue_front(
        &mut self,
        id: PacketId,
        _packet: &Packet,
    ) -> Result<(), (PacketId, DropReason)> {
        if self.queue.len() >= self.capacity {
            return Err((id, DropReason::QueueFull));
        }
        self.queue.push_front(id);
        Ok(())
    }

    fn dequeue(&mut self) -> Option<PacketId> {
        self.queue.pop_front()
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.queue.iter().for_each(|&id| f(id));
    }

    fn remove_where(&mut self, pred: &mut dyn FnMut(PacketId) -> bool, out: &mut Vec<PacketId>) {
        self.queue.retain(|&id| {
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
                    let r = q.enqueue(PacketId(next), &pkt());
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
