//! A user's queue at the base station: drop-tail FIFO with a capacity in packets (ns-2
//! DropTail, as in [`crate::queue::droptail`]), remembering each packet's size and arrival time
//! because the scheduler weighs queues by bytes and head-of-line delay.
//!
//! Service in a granted slot is one of:
//! - fragment (default): the budget goes to the head packet's unsent bytes, then the next
//!   packet's, and so on; a packet cut by the end of the budget keeps its progress
//!   (`head_sent`) and completes in the user's next grant. This is 802.16 MAC fragmentation
//!   (IEEE Std 802.16-2009 §6.3.3, MAC PDU construction) without the bytes of the
//!   fragmentation subheader; every granted byte carries data while the queue lasts, like the
//!   fluid model of paper 002.
//! - whole packets: only packets that fit entirely in what is left of the budget are sent,
//!   the rest of the budget is unused.
//!
//! On the air a packet takes its size plus a fixed per-packet MAC overhead (IEEE 802.16: the
//! 6-byte generic MAC header and the 4-byte CRC of its MAC PDU), charged once per packet:
//! budgets, the backlog in bytes and the bytes sent all count air bytes. (A fragmented packet
//! would carry a fragmentation subheader and a header and CRC per fragment; like the subheader,
//! those extra bytes are not charged.)
//!
//! A partly sent head packet still occupies its place (it counts toward the capacity) and is
//! reported by the backlog in bytes net of what has already been sent.

use std::collections::VecDeque;

use crate::sim::{DropReason, PacketId, Time};

/// A packet waiting at the base station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The packet.
    pub id: PacketId,
    /// Its size, bytes (on the air it takes this plus the queue's MAC overhead).
    pub size: u32,
    /// When it joined the queue.
    pub enqueued: Time,
}

/// One user's drop-tail queue.
#[derive(Debug, Clone)]
pub struct UserQueue {
    packets: VecDeque<Queued>,
    capacity: usize,
    /// Bytes each packet takes on the air beyond its size.
    overhead: u32,
    /// Sum of the air sizes (size + overhead) of queued packets.
    bytes: u64,
    /// Air bytes of the head packet already sent (fragment service).
    head_sent: u64,
}

impl UserQueue {
    /// A queue holding at most `capacity` (>= 1) packets, each taking `overhead` bytes on the
    /// air beyond its size.
    pub fn new(capacity: usize, overhead: u32) -> Self {
        assert!(capacity >= 1);
        UserQueue {
            packets: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
            overhead,
            bytes: 0,
            head_sent: 0,
        }
    }

    /// Bytes a packet of `size` bytes takes on the air.
    fn air(&self, size: u32) -> u64 {
        size as u64 + self.overhead as u64
    }

    /// Offers a packet; refused (returned with [`DropReason::QueueFull`]) when `capacity`
    /// packets are queued.
    pub fn push(
        &mut self,
        id: PacketId,
        size: u32,
        now: Time,
    ) -> Result<(), (PacketId, DropReason)> {
        if self.packets.len() >= self.capacity {
            return Err((id, DropReason::QueueFull));
        }
        self.packets.push_back(Queued {
            id,
            size,
            enqueued: now,
        });
        self.bytes += self.air(size);
        Ok(())
    }

    /// The packets queued, head first (a partly sent head packet included).
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.packets.iter().map(|q| q.id)
    }

    /// Packets queued (a partly sent head packet included).
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    /// Air bytes still to send.
    pub fn backlog_bytes(&self) -> u64 {
        self.bytes - self.head_sent
    }

    /// How long the head packet has waited at `now` (0 when empty).
    pub fn head_wait(&self, now: Time) -> Time {
        self.packets
            .front()
            .map_or(0, |p| now.saturating_sub(p.enqueued))
    }

    /// Sends up to `budget` air bytes. Every packet completed is passed to `done` with the
    /// number of budget bytes used up to and including its last byte. Returns the air bytes
    /// sent.
    pub fn serve(
        &mut self,
        budget: u64,
        whole_packets: bool,
        done: &mut dyn FnMut(Queued, u64),
    ) -> u64 {
        let mut used = 0u64;
        while let Some(&head) = self.packets.front() {
            let air = self.air(head.size);
            let left = air - self.head_sent;
            if left <= budget - used {
                used += left;
                self.packets.pop_front();
                self.bytes -= air;
                self.head_sent = 0;
                done(head, used);
            } else {
                if !whole_packets {
                    // The head packet takes the rest and finishes in a later grant.
                    self.head_sent += budget - used;
                    used = budget;
                }
                break;
            }
        }
        used
    }

    /// Visits every queued packet (for end-of-run accounting).
    pub fn for_each(&self, f: &mut dyn FnMut(PacketId)) {
        self.packets.iter().for_each(|p| f(p.id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(sizes: &[u32]) -> UserQueue {
        let mut q = UserQueue::new(10, 0);
        for (i, &s) in sizes.iter().enumerate() {
            q.push(PacketId(i as u32), s, i as Time).unwrap();
        }
        q
    }

    #[test]
    fn drop_tail_at_capacity() {
        let mut q = UserQueue::new(2, 0);
        assert!(q.push(PacketId(0), 100, 0).is_ok());
        assert!(q.push(PacketId(1), 100, 0).is_ok());
        assert_eq!(
            q.push(PacketId(2), 100, 0),
            Err((PacketId(2), DropReason::QueueFull))
        );
        assert_eq!((q.len(), q.backlog_bytes()), (2, 200));
    }

    #[test]
    fn whole_packets_leave_the_remainder_unused() {
        let mut q = filled(&[200, 200, 200]);
        let mut done = vec![];
        let sent = q.serve(450, true, &mut |p, used| done.push((p.id.0, used)));
        assert_eq!(sent, 400);
        assert_eq!(done, [(0, 200), (1, 400)]);
        assert_eq!((q.len(), q.backlog_bytes()), (1, 200));
    }

    #[test]
    fn fragments_carry_over_to_the_next_grant() {
        let mut q = filled(&[200, 200, 200]);
        let mut done = vec![];
        assert_eq!(
            q.serve(450, false, &mut |p, used| done.push((p.id.0, used))),
            450
        );
        assert_eq!(done, [(0, 200), (1, 400)]);
        // 50 bytes of packet 2 are gone; 150 remain.
        assert_eq!((q.len(), q.backlog_bytes()), (1, 150));
        done.clear();
        assert_eq!(
            q.serve(450, false, &mut |p, used| done.push((p.id.0, used))),
            150
        );
        assert_eq!(done, [(2, 150)]);
        assert!(q.is_empty());
        assert_eq!(q.backlog_bytes(), 0);
    }

    #[test]
    fn head_wait_is_the_head_packets_age() {
        let q = filled(&[1, 1]);
        assert_eq!(q.head_wait(10), 10);
        assert_eq!(UserQueue::new(1, 0).head_wait(10), 0);
    }

    #[test]
    fn the_mac_overhead_is_charged_once_per_packet() {
        // 240-byte packets with 10 bytes of MAC overhead take 250 bytes each.
        let mut q = UserQueue::new(10, 10);
        for i in 0..3 {
            q.push(PacketId(i), 240, 0).unwrap();
        }
        assert_eq!(q.backlog_bytes(), 750);
        let mut done = vec![];
        // Whole packets: 600 bytes fit two (500), not a third.
        assert_eq!(
            q.serve(600, true, &mut |p, used| done.push((p.id.0, p.size, used))),
            500
        );
        assert_eq!(done, [(0, 240, 250), (1, 240, 500)]);
        assert_eq!(q.backlog_bytes(), 250);
        // Fragments: 100 of the third packet's 250 air bytes, then the other 150.
        done.clear();
        assert_eq!(
            q.serve(100, false, &mut |p, used| done.push((p.id.0, p.size, used))),
            100
        );
        assert!(done.is_empty());
        assert_eq!(q.backlog_bytes(), 150);
        assert_eq!(
            q.serve(1000, false, &mut |p, used| done
                .push((p.id.0, p.size, used))),
            150
        );
        assert_eq!(done, [(2, 240, 150)]);
        assert!(q.is_empty() && q.backlog_bytes() == 0);
    }
}
