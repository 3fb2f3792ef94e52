//! The network layer's side of backpressure forwarding (`net::backpressure` holds the
//! algorithm): packets join their node's per-flow queues instead of a routed interface queue,
//! queue reports travel with frames and control packets, and a node's MAC is woken when a
//! report may have given it something to send.

use super::Network;
use crate::sim::packet::{DropReason, Header};
use crate::sim::{EventClass, NodeId, Packet, PacketId};
use crate::world::Event;

impl Network {
    /// `node` queues packet `id` for backpressure forwarding; on overflow of its shared buffer
    /// the newest packet of its largest per-flow queue is dropped (§4.1.4).
    pub(super) fn offer_backpressure(&mut self, node: NodeId, id: PacketId) {
        let r = self.wireless.radio_of_node[node as usize];
        let shared = self.wireless.bp.as_ref().expect("backpressure");
        let radio = &mut self.wireless.radios[r as usize];
        let (Some(bp), false) = (radio.bp.as_mut(), radio.failed) else {
            radio.stats.count_drop(DropReason::NodeDown);
            self.discard(id);
            return;
        };
        let p = self.packets.get(id);
        let commodity = shared.commodities.of(p.flow, p.dst);
        let now = self.events.now();
        let victim = bp.enqueue(commodity, id, now, &shared.params);
        radio.stats.enqueued += 1;
        let backlog = (radio.ifq.len() + bp.len()) as u32;
        radio.stats.max_backlog = radio.stats.max_backlog.max(backlog);
        if let Some(victim) = victim {
            radio.stats.count_drop(DropReason::QueueFull);
            self.discard_dropped(node, victim, DropReason::QueueFull);
        }
        self.wireless.kick(r, &mut self.events, &self.packets);
    }

    /// Radio `r` decoded a frame of radio `from` (addressed to it or overheard): it records the
    /// sender's report and, if that changed anything, lets its MAC look for a packet to send.
    pub(super) fn hear_report(&mut self, r: u32, from: u32) {
        let sender = self.wireless.radios[from as usize].node;
        let (receiver, sender_radio) = if r < from {
            let (a, b) = self.wireless.radios.split_at_mut(from as usize);
            (&mut a[r as usize], &b[0])
        } else {
            let (a, b) = self.wireless.radios.split_at_mut(r as usize);
            (&mut b[0], &a[from as usize])
        };
        let (Some(bp), Some(report)) = (receiver.bp.as_mut(), sender_radio.bp.as_ref()) else {
            return;
        };
        if bp.hear(sender, report.advertised()) && !bp.is_empty() {
            self.wireless.kick(r, &mut self.events, &self.packets);
        }
    }

    /// The periodic check of radio `r` (every `report_idle`): a control packet with its queue
    /// report if it has sent none for that long and its queues changed since (§4.1.2); and the
    /// loss estimates rolled even when the node sends nothing, or a node whose every link was
    /// judged dead (`p~` = 1) would hold its packets forever.
    pub fn backpressure_tick(&mut self, r: u32) {
        let Some(shared) = self.wireless.bp.as_ref() else {
            return;
        };
        // A copy (a few scalars): the kick below needs the radios mutably.
        let params = shared.params.clone();
        let (idle, bytes) = (params.report_idle, shared.control_bytes());
        let now = self.events.now();
        let radio = &mut self.wireless.radios[r as usize];
        let Some(bp) = radio.bp.as_mut() else { return };
        if bp.refresh_estimates(now, &params) && !bp.is_empty() {
            self.wireless.kick(r, &mut self.events, &self.packets);
        }
        let radio = &mut self.wireless.radios[r as usize];
        let Some(bp) = radio.bp.as_mut() else { return };
        if !radio.failed && bp.control_due(now, &params) {
            bp.snapshot();
            bp.reported_at(now);
            bp.control_sent += 1;
            let node = radio.node;
            // Broadcast one hop: no flow, no destination.
            let report = Packet::new(u32::MAX, node, NodeId::MAX, bytes, now, Header::BpReport);
            let id = self.packets.insert(report);
            self.offer_radio(r, id);
        }
        if !self.wireless.radios[r as usize].failed {
            self.events.schedule(
                now.saturating_add(idle),
                EventClass::Timer,
                Event::BackpressureTick(r),
            );
        }
    }
}
