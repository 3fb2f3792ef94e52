//! A base station's slotted downlink as an interface of the network layer (papers 002 §V and
//! 004 §IV): the glue between store-and-forward routing and the slot model of
//! [`crate::mac::downlink`].
//!
//! - Forward direction: a packet whose next hop is a user leaves the base station by
//!   [`Iface::Downlink`](super::routing::Iface::Downlink) and joins that user's queue
//!   (`Downlink::enqueue`; a full queue drops the arrival, `queue_full`).
//! - One event per slot, at `k x slot` from time 0, in the transmitter event class so that
//!   packets arriving exactly at a boundary are eligible in that slot (the model decides at slot
//!   boundaries; see `docs/downlink.md`). Every packet the slot completes reaches its user at its
//!   `finish` time (no propagation delay at cell scale), or is dropped as a channel error if the
//!   erasure process took it.
//! - Reverse direction: each user has an ordinary wired channel to the base station (rate
//!   `uplink_rate`, delay `uplink_delay`), built with the scenario's wired links; the papers
//!   treat the uplink as ideal, which the defaults approximate.

use super::Network;
use crate::mac::downlink::{Downlink, Served};
use crate::net::event::Event;
use crate::sim::{DropReason, EventClass, NodeId, PacketId};

/// The base station, its users and the downlink model.
pub struct BaseStation {
    /// The base station's node.
    pub node: NodeId,
    /// The users' nodes, in user order.
    pub users: Vec<NodeId>,
    /// The slot model.
    pub downlink: Downlink,
    /// Each user's mean SNR as configured, dB.
    pub mean_snr_db: Vec<f64>,
    /// Queue names for the results, `downlink BS->USER`, in user order.
    pub queue_names: Vec<String>,
    /// Largest backlog each user's queue reached, packets.
    pub max_backlog: Vec<u32>,
    /// Packets served and on their way to a user (their arrival is scheduled).
    pub on_air: u64,
    /// Reused copy of a slot's served packets (the model lends them only until its next call).
    served: Vec<Served>,
}

impl BaseStation {
    /// The base station at `node` serving `users` (user u is `users[u]`).
    pub fn new(
        node: NodeId,
        users: Vec<NodeId>,
        mean_snr_db: Vec<f64>,
        downlink: Downlink,
        names: &[String],
    ) -> Self {
        let queue_names = users
            .iter()
            .map(|&u| format!("downlink {}->{}", names[node as usize], names[u as usize]))
            .collect();
        BaseStation {
            node,
            max_backlog: vec![0; users.len()],
            users,
            downlink,
            mean_snr_db,
            queue_names,
            on_air: 0,
            served: Vec::new(),
        }
    }

    /// Packets waiting in the base station's queues.
    pub fn queued(&self) -> u64 {
        (0..self.downlink.users())
            .map(|u| self.downlink.queue_len(u) as u64)
            .sum()
    }
}

impl Network {
    /// Offers packet `id` to the queue of downlink user `user`.
    pub(super) fn offer_downlink(&mut self, user: u32, id: PacketId) {
        let now = self.events.now();
        let size = self.packets.get(id).size;
        let bs = self
            .base_station
            .as_mut()
            .expect("a downlink route needs a base station");
        let u = user as usize;
        match bs.downlink.enqueue(u, id, size, now) {
            Ok(()) => {
                let len = bs.downlink.queue_len(u) as u32;
                bs.max_backlog[u] = bs.max_backlog[u].max(len);
            }
            Err((victim, reason)) => {
                let node = bs.node;
                self.discard_dropped(node, victim, reason);
            }
        }
    }

    /// Runs the downlink slot that starts now and schedules the next one.
    pub fn on_slot(&mut self) {
        let now = self.events.now();
        let Some(bs) = self.base_station.as_mut() else {
            return;
        };
        let mut served = std::mem::take(&mut bs.served);
        served.clear();
        served.extend_from_slice(bs.downlink.on_slot(now));
        let next = now.saturating_add(bs.downlink.slot_len());
        for s in &served {
            if s.delivered {
                bs.on_air += 1;
                self.events.schedule(
                    s.finish,
                    EventClass::Arrival,
                    Event::DownlinkArrive(s.user as u32, s.id),
                );
            }
        }
        self.events
            .schedule(next, EventClass::Transmit, Event::Slot);
        for s in &served {
            if !s.delivered {
                self.discard(s.id);
            }
        }
        if let Some(bs) = self.base_station.as_mut() {
            bs.served = served;
        }
    }

    /// A served packet reaches downlink user `user`.
    pub fn on_downlink_arrival(&mut self, user: u32, id: PacketId) {
        let bs = self
            .base_station
            .as_mut()
            .expect("downlink arrival without a base station");
        bs.on_air -= 1;
        let node = bs.users[user as usize];
        self.receive(node, id, None);
        self.process_upcalls();
    }

    /// Drops the downlink counted, by queue name and reason (for the results).
    pub fn downlink_drops(&self) -> Vec<(String, DropReason, u64)> {
        let Some(bs) = &self.base_station else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (u, st) in bs.downlink.stats().iter().enumerate() {
            for (reason, n) in [
                (DropReason::QueueFull, st.packets_dropped),
                (DropReason::ChannelError, st.packets_erased),
            ] {
                if n > 0 {
                    out.push((bs.queue_names[u].clone(), reason, n));
                }
            }
        }
        out
    }
}
