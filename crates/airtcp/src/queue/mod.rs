//! Queue disciplines of transmit queues.
//!
//! A discipline only decides what to keep and in which order; the channel that owns it counts
//! enqueues, drops (with their [`DropReason`]) and transmissions.

pub mod config;
pub mod droptail;

use crate::sim::{DropReason, Packet, PacketId, Time};

/// A queue discipline holding packet ids.
pub trait QueueDisc {
    /// Offers a packet at time `now`. On refusal the packet (the arriving one or a victim already
    /// queued) is returned with the reason; the caller drops it.
    fn enqueue(
        &mut self,
        id: PacketId,
        packet: &Packet,
        now: Time,
    ) -> Result<(), (PacketId, DropReason)>;
    /// Offers a packet to the head of the queue, ahead of everything queued (a control packet
    /// that must not wait behind data: Horizon's refreshments, paper 003 §5.2.2). Default: as
    /// [`enqueue`](Self::enqueue), for disciplines with no head to jump to.
    fn enqueue_front(
        &mut self,
        id: PacketId,
        packet: &Packet,
        now: Time,
    ) -> Result<(), (PacketId, DropReason)> {
        self.enqueue(id, packet, now)
    }
    /// Removes the packets whose lifetime has run out by `now` and appends them to `out`, for
    /// the caller to drop (`DropReason::Expired`). Default: packets never expire.
    fn expire(&mut self, _now: Time, _out: &mut Vec<PacketId>) {}
    /// Takes the next packet to transmit.
    fn dequeue(&mut self) -> Option<PacketId>;
    /// When the head packet was queued, where the discipline keeps it (a lifetime).
    fn head_queued_at(&self) -> Option<Time> {
        None
    }
    /// The first packet, in queue order, for which `pred` holds, left in the queue. Default:
    /// none.
    fn peek_first(&self, _pred: &mut dyn FnMut(PacketId) -> bool) -> Option<PacketId> {
        None
    }
    /// Takes the first packet, in queue order, for which `pred` holds, with when it was queued
    /// (where the discipline keeps it): what an 802.11n radio adds to an A-MPDU for one next
    /// hop. Default: none.
    fn dequeue_first(
        &mut self,
        _pred: &mut dyn FnMut(PacketId) -> bool,
    ) -> Option<(PacketId, Option<Time>)> {
        None
    }
    /// Packets queued.
    fn len(&self) -> usize;
    /// Whether nothing is queued.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Visits every queued packet (for end-of-run accounting).
    fn for_each(&self, f: &mut dyn FnMut(PacketId));
    /// Removes the packets for which `pred` holds (in queue order) and appends them to `out`
    /// (rerouting after a link break, emptying the queue of a failed node).
    fn remove_where(&mut self, pred: &mut dyn FnMut(PacketId) -> bool, out: &mut Vec<PacketId>);
}
