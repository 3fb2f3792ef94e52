//! Transmit units of several natives: the packets a relay codes together into one frame (COPE's
//! XOR of packets for different next hops, Katti et al., SIGCOMM 2006, §3-4), and the arena that
//! holds them while the frame is tried and decoded.
//!
//! A coded frame is sent like any other: the MAC carries one packet, the *carrier* the layer
//! made for the frame (a `Header::Forwarding` packet whose size is the frame's network-layer
//! bytes: the coded payload and the layer's header), to one MAC destination, and reports that
//! packet's fate. The natives ride beside it as a unit: each with a copy of its contents as it
//! left the relay and the next hop it is meant for. Every radio that decodes the frame, the MAC
//! destination and the radios overhearing it, sees the unit ([`super::ForwardingCtx::natives`])
//! and decides what it can decode; the relay keeps the natives themselves until it knows their
//! fate (its own acknowledgements), then retires or drops them.
//!
//! A unit lives as long as something refers to it: the MAC trying the frame, the frame on the
//! air, the receptions not yet handed to the layer. Slots and their native lists are reused, so
//! a run in steady state allocates nothing per frame.

use crate::mac::frame::{UnitId, NO_UNIT};
use crate::sim::{NodeId, Packet, PacketId};

/// One native packet of a coded frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Native {
    /// Its id at the relay, which keeps the packet until it knows its fate.
    pub id: PacketId,
    /// A copy of its contents as it left the relay: what a next hop decodes.
    pub packet: Packet,
    /// The neighbour it is meant for.
    pub next_hop: NodeId,
}

#[derive(Debug, Default)]
struct Slot {
    natives: Vec<Native>,
    /// References: the MAC trying the frame, frames on the air, receptions not yet handled.
    refs: u32,
}

/// The units of the network's frames in flight.
#[derive(Debug, Default)]
pub struct UnitArena {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
}

impl UnitArena {
    /// A new, empty unit with one reference (the MAC that will send it).
    pub(crate) fn open(&mut self) -> UnitId {
        self.live += 1;
        match self.free.pop() {
            Some(u) => {
                let slot = &mut self.slots[u as usize];
                slot.natives.clear();
                slot.refs = 1;
                u
            }
            None => {
                self.slots.push(Slot {
                    natives: Vec::new(),
                    refs: 1,
                });
                (self.slots.len() - 1) as UnitId
            }
        }
    }

    /// Adds a native to unit `u` (while it is being built).
    pub(crate) fn push(&mut self, u: UnitId, native: Native) {
        self.slots[u as usize].natives.push(native);
    }

    /// The natives of unit `u`; none for [`NO_UNIT`].
    #[inline]
    pub fn natives(&self, u: UnitId) -> &[Native] {
        if u == NO_UNIT {
            return &[];
        }
        &self.slots[u as usize].natives
    }

    /// One more reference to `u` (a frame put on the air, a reception queued). No-op for
    /// [`NO_UNIT`].
    #[inline]
    pub(crate) fn acquire(&mut self, u: UnitId) {
        if u != NO_UNIT {
            self.slots[u as usize].refs += 1;
        }
    }

    /// One reference fewer; the last frees the unit. No-op for [`NO_UNIT`].
    #[inline]
    pub(crate) fn release(&mut self, u: UnitId) {
        if u == NO_UNIT {
            return;
        }
        let slot = &mut self.slots[u as usize];
        debug_assert!(slot.refs > 0, "unit released more often than acquired");
        slot.refs = slot.refs.saturating_sub(1);
        if slot.refs == 0 {
            self.live -= 1;
            self.free.push(u);
        }
    }

    /// Units alive (a run's end: none, once every frame's fate is known and no radio is busy).
    pub fn live(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::packet::Header;

    fn native(i: u32, next_hop: NodeId) -> Native {
        Native {
            id: PacketId(i),
            packet: Packet::new(
                0,
                0,
                2,
                100,
                0,
                Header::Udp {
                    seq: i as u64,
                    len: 72,
                },
            ),
            next_hop,
        }
    }

    #[test]
    fn a_unit_lives_until_its_last_reference_and_its_slot_is_reused() {
        let mut units = UnitArena::default();
        let u = units.open();
        units.push(u, native(1, 0));
        units.push(u, native(2, 2));
        units.acquire(u); // the frame on the air
        units.acquire(u); // a reception queued
        assert_eq!(units.natives(u).len(), 2);
        units.release(u);
        units.release(u);
        assert_eq!(units.live(), 1);
        units.release(u); // the MAC is done
        assert_eq!(units.live(), 0);
        let v = units.open();
        assert_eq!(
            (v, units.natives(v).len()),
            (u, 0),
            "slot reused, natives cleared"
        );
        let w = units.open();
        assert_ne!(w, v);
        assert_eq!(units.live(), 2);
    }

    #[test]
    fn no_unit_is_empty_and_ignored() {
        let mut units = UnitArena::default();
        units.acquire(NO_UNIT);
        units.release(NO_UNIT);
        assert!(units.natives(NO_UNIT).is_empty());
        assert_eq!(units.live(), 0);
    }
}
