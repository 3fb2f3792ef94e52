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
//! A partly sent head packet still occupies its place (it counts toward the capacity) and is
//! reported by the backlog in bytes net of what has already been sent.

use std::collections::VecDeque;

use crate::sim::{DropReason, PacketId, Time};

/// A packet waiting at the base station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The packet.
    pub id: PacketId,
    /// Bytes on the air.
    pub size: u32,
    /// When it joined the queue.
    pub enqueued: Time,
}

/// One user's drop-tail queue.
#[derive(Debug, Clone)]
pub struct UserQueue {
    packets: VecDeque<Queued>,
    capacity: usize,
    /// Sum of the sizes of queued packets.
    bytes: u64,
    /// Bytes of the head packet already sent (fragment service).
    head_sent: u32,
}

impl UserQueue {
    /// A queue holding at most `capacity` (>= 1) packets.
    pub fn new(capacity: usize) -> Self {
        assert!(capacity >= 1);
        UserQueue {
            packets: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
            bytes: 0,
            head_sent: 0,
        }
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
        self.bytes += size as u64;
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

    /// Bytes still to send.
    pub fn backlog_bytes(&self) -> u64 {
        self.bytes - self.head_sent as u64
    }

    /// How long the head packet has waited at `now` (0 when empty).
    pub fn head_wait(&self, now: Time) -> Time {
        self.packets
            .front()
            .map_or(0, |p| now.saturating_sub(p.enqueued))
    }

    /// Sends up to `budget` bytes. Every packet completed is passed to `done` with the number
    /// of budget bytes used up to and including its last byte. Returns the bytes sent.
    pub fn serve(
        &mut self,
        budget: u64,
        whole_packets: bool,
        done: &mut dyn FnMut(Queued, u64),
    ) -> u64 {
        let mut used = 0u64;
        while let Some(&head) = self.packets.front() {
            let left = (head.size - self.head_sent) as u64;
            if left <= budget - used {
                used += left;
                self.packets.pop_front();
                self.bytes -= head.size as u64;
                self.head_sent = 0;
                done(head, used);
            } else {
                if !whole_packets {
                    // The head packet takes the rest and finishes in a later grant.
                    self.head_sent += (budget - used) as u32;
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
        let mut q = UserQueue::new(10);
        for (i, &s) in sizes.iter().enumerate() {
            q.push(PacketId(i as u32), s, i as Time).unwrap();
        }
        q
    }

    #[test]
    fn drop_tail_at_capacity() {
        let mut q = UserQueue::new(2);
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
        assert_eq!(UserQueue::new(1).head_wait(10), 0);
    }
}
