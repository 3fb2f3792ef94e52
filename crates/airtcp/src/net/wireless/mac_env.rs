//! The context a radio's DCF acts through ([`MacIo`]): the radio, the event list, the packets,
//! the forwarding layer and the medium's frames, borrowed from [`super::Wireless`] for one call
//! (`Wireless::with_mac`). What the MAC hands up is queued as [`Upcall`]s, never acted on here.

use super::{motion, peer_on_channel, FrameSlot, RadioState, Upcall};
use crate::mac::dcf::{MacIo, MacTimer, Pulled, Sent};
use crate::mac::frame::{Frame, FrameKind, Mpdu, Msdu, RadioId};
use crate::mac::rate::RateFeedback;
use crate::net::event::Event;
use crate::net::forwarding::{Forwarding, Frames, LayerNeeds, MacView, TxStatus, UnitArena};
use crate::net::frame_trace::FrameTrace;
use crate::phy::fading::Fading;
use crate::sim::packet::DropReason;
use crate::sim::{EventClass, EventQueue, NodeId, PacketArena, Rng, Time};

/// The per-call context a DCF acts through.
pub(super) struct MacEnv<'a> {
    pub(super) me: RadioId,
    pub(super) radio: &'a mut RadioState,
    pub(super) events: &'a mut EventQueue<Event>,
    pub(super) packets: &'a mut PacketArena,
    pub(super) units: &'a mut UnitArena,
    pub(super) layer_rng: &'a mut Rng,
    pub(super) frames: &'a mut Vec<FrameSlot>,
    pub(super) free_frames: &'a mut Vec<u32>,
    pub(super) radio_of_node: &'a [u32],
    pub(super) next_on_node: &'a [u32],
    pub(super) channel_of: &'a [u32],
    pub(super) upcalls: &'a mut Vec<Upcall>,
    pub(super) fading: &'a Fading,
    pub(super) seed: u64,
    pub(super) layer: &'a mut dyn Forwarding,
    pub(super) needs: LayerNeeds,
    pub(super) trace: &'a mut Option<FrameTrace>,
    pub(super) cca_time: Time,
    pub(super) motion: Option<&'a super::Motion>,
}

impl MacIo for MacEnv<'_> {
    fn now(&self) -> Time {
        self.events.now()
    }

    fn rng(&mut self) -> &mut Rng {
        &mut self.radio.rng
    }

    fn backoff_drawn(&mut self, slots: u32) {
        if let Some(t) = self.trace.as_mut() {
            t.backoff(self.events.now(), self.me, slots);
        }
    }

    fn phy_busy(&self) -> bool {
        self.radio.phy.busy(self.events.now())
    }

    fn phy_idle_since(&self) -> Time {
        self.radio.idle_since
    }

    fn receiving(&self) -> bool {
        self.radio.phy.reception().is_some()
    }

    fn transmit(&mut self, frame: Frame) {
        self.put_on_air(frame, &[], &[]);
    }

    fn transmit_ampdu(&mut self, frame: Frame, mpdus: &[Mpdu], msdus: &[Msdu]) {
        self.put_on_air(frame, mpdus, msdus);
    }

    fn received_mpdus(&self, mpdus: &mut Vec<Mpdu>, msdus: &mut Vec<Msdu>) -> u64 {
        let slot = &self.frames[self.radio.rx_frame as usize];
        mpdus.clear();
        mpdus.extend_from_slice(&slot.mpdus);
        msdus.clear();
        msdus.extend_from_slice(&slot.msdus);
        self.radio.rx_mpdus
    }

    fn pull_for(&mut self, next: NodeId, fits: &dyn Fn(u32) -> bool) -> Option<Pulled> {
        let packets = &*self.packets;
        let for_next = &mut |id| packets.get(id).next_hop == next;
        let mut pulled = match self.radio.ifq.peek_first(for_next) {
            Some(id) if !fits(packets.get(id).size) => return None,
            Some(_) => {
                let (id, queued_at) = self.radio.ifq.dequeue_first(for_next)?;
                let mut pulled = Pulled::packet(id, *self.packets.get(id), None);
                pulled.queued_at = queued_at;
                pulled
            }
            None if self.needs.aggregates => {
                let (layer, view) = self.layer_view();
                let u = layer.pull_more(view.radio, next, fits, view)?;
                debug_assert!(u.next_hop == next && u.unit == crate::mac::frame::NO_UNIT);
                let mut p = *self.packets.get(u.id);
                p.next_hop = next;
                let mut pulled = Pulled::packet(u.id, p, None);
                // Its lifetime runs from the moment the MAC took it.
                pulled.queued_at = Some(self.events.now());
                pulled
            }
            None => return None,
        };
        pulled.aggregable = true;
        self.address(&mut pulled);
        Some(pulled)
    }

    fn mpdus_sent(&mut self, next: RadioId, mpdus: u32, retried: u32) {
        if let Some(st) = self.stats_of(next) {
            st.mpdus += u64::from(mpdus);
            st.mpdus_retried += u64::from(retried);
            if mpdus > 1 {
                st.ampdus += 1;
                st.ampdu_mpdus += u64::from(mpdus);
            }
        }
    }

    fn amsdu_built(&mut self, next: RadioId, msdus: u32) {
        if let Some(st) = self.stats_of(next) {
            st.amsdus += 1;
            st.amsdu_msdus += u64::from(msdus);
        }
    }

    fn expired(&mut self, sent: Sent, handed_over: bool) {
        let status = match handed_over {
            true => TxStatus::HandedOver,
            false => TxStatus::Expired,
        };
        self.report(sent, status);
    }

    fn set_timer(&mut self, which: MacTimer, at: Option<Time>) {
        if let Some((t, g)) = self.radio.timers[which as usize].set(at) {
            self.events
                .schedule(t, EventClass::Timer, Event::MacTimer(self.me, which, g));
        }
    }

    fn has_pending(&self) -> bool {
        // The interface queue first (control packets, and what a pushing layer pushed), then
        // what the layer holds.
        if !self.radio.ifq.is_empty() {
            return true;
        }
        self.needs.pulls && self.layer.has_pending(self.me, self.events.now())
    }

    fn pull(&mut self) -> Option<Pulled> {
        // Packets past their lifetime are dropped, not sent (ns-3 skips them at the head).
        let mut expired = Vec::new();
        self.radio.ifq.expire(self.events.now(), &mut expired);
        for id in expired {
            self.upcalls.push(Upcall::Dropped {
                radio: self.me,
                id,
                reason: DropReason::Expired,
            });
        }
        let queued_at = self.radio.ifq.head_queued_at();
        let (id, chosen_hop, unit) = match self.radio.ifq.dequeue() {
            Some(id) => (id, None, crate::mac::frame::NO_UNIT),
            None if self.needs.pulls => {
                let (layer, view) = self.layer_view();
                let u = layer.pull(view.radio, view)?;
                (u.id, Some(u.next_hop), u.unit)
            }
            None => return None,
        };
        let mut p = *self.packets.get(id);
        if let Some(next) = chosen_hop {
            // The layer picks the next hop now; the MAC sends its copy of the packet.
            p.next_hop = next;
        }
        let mut pulled = Pulled::packet(id, p, None);
        pulled.unit = unit;
        // What the interface queue held may go in an A-MPDU (an aggregating radio's choice), and
        // a lone packet of a layer that aggregates, whose lifetime runs from now.
        pulled.aggregable = match chosen_hop {
            None => true,
            Some(_) => self.needs.aggregates && unit == crate::mac::frame::NO_UNIT,
        };
        pulled.queued_at = match chosen_hop {
            None => queued_at,
            Some(_) => Some(self.events.now()),
        };
        self.address(&mut pulled);
        Some(pulled)
    }

    fn attempt(&mut self, next: RadioId, ok: bool) {
        if let Some(st) = self.stats_of(next) {
            st.attempts += 1;
            st.answered += ok as u64;
        }
        if self.needs.mac_outcomes {
            self.layer.on_attempt(self.me, next, ok);
        }
    }

    fn attempt_rate(&mut self, next: RadioId, table: u64) -> u64 {
        match self.radio.rate_control.is_some() {
            true => self.managed_rate(next, table),
            false => table,
        }
    }

    fn rate_feedback(&mut self, next: RadioId, feedback: RateFeedback) {
        if self.radio.rate_control.is_some() {
            self.manager_feedback(next, feedback);
        }
    }

    fn attempts_allowed(&mut self, next: RadioId) -> Option<u32> {
        match self.radio.rate_control.is_some() {
            true => self.managed_attempts(next),
            false => None,
        }
    }

    fn rx_snr(&self) -> f64 {
        self.radio.rx_snr
    }

    fn overheard(&mut self, frame: &Frame) {
        if let Some(st) = self.stats_of(frame.src) {
            st.overheard += 1;
        }
        if self.needs.frames == Frames::ReceivedAndOverheard {
            self.units.acquire(frame.unit);
            self.upcalls.push(Upcall::Overheard(self.me, *frame));
        }
    }

    fn deliver(&mut self, frame: &Frame) {
        if !frame.duplicate {
            self.units.acquire(frame.unit);
            self.upcalls.push(Upcall::Received(self.me, *frame));
        } else if self.needs.frames != Frames::None {
            self.units.acquire(frame.unit);
            self.upcalls.push(Upcall::Duplicate(self.me, *frame));
        }
    }

    fn tx_status(&mut self, sent: Sent, ok: bool, handed_over: bool) {
        let status = match (sent.next_hop, ok, handed_over) {
            (None, ..) => TxStatus::Broadcast,
            (Some(_), true, _) => TxStatus::Delivered,
            (Some(_), false, true) => TxStatus::HandedOver,
            (Some(_), false, false) => TxStatus::RetryLimit,
        };
        self.report(sent, status);
    }
}

/// The medium's side of [`MacIo`]: a frame put on the air, a pulled packet addressed, an outcome
/// reported.
impl MacEnv<'_> {
    /// The forwarding layer, and the view of this MAC call that its transmit-side hooks get.
    fn layer_view(&mut self) -> (&mut dyn Forwarding, MacView<'_>) {
        let view = MacView {
            now: self.events.now(),
            packets: self.packets,
            units: self.units,
            rng: self.layer_rng,
            radio: self.me,
            upcalls: self.upcalls,
            events: self.events,
        };
        (&mut *self.layer, view)
    }

    /// Puts `frame` on the air (with the MPDUs of an A-MPDU): the sender's PHY, the trace, the
    /// capture, and the frame's arrival at every neighbour.
    // Inlined into `transmit` and `transmit_ampdu`: called, it took the frame by value through a
    // second copy (a memcpy per frame sent).
    #[inline(always)]
    fn put_on_air(&mut self, frame: Frame, mpdus: &[Mpdu], msdus: &[Msdu]) {
        let now = self.events.now();
        let end = now.saturating_add(frame.airtime);
        self.radio.phy.start_transmission(end);
        if let Some(t) = self.trace.as_mut() {
            t.tx(now, self.me, &frame);
        }
        if let Some(c) = self.radio.pcap.as_mut() {
            c.frame(now, &frame, (mpdus, msdus), u64::MAX, None, self.units);
        }
        // The MAC knows it is transmitting; record the busy state so that the end of the
        // transmission is reported to it as an idle transition.
        self.radio.was_busy = true;
        if frame.kind == FrameKind::Data {
            self.radio.stats.transmitted += 1;
            // The frame on the air holds its natives until its last neighbour has seen it.
            self.units.acquire(frame.unit);
        }
        // Every neighbour that gets the frame holds a reference, and the sender one more.
        let refs = self.radio.neighbors.len() as u32 + 1;
        // A receiver notices a frame (carrier sense, locking on, interference) only once it has
        // detected its preamble, `cca_time` after its first energy arrives; never after its end.
        let detect = self.cca_time.min(frame.airtime.saturating_sub(1));
        let fid = match self.free_frames.pop() {
            Some(i) => {
                // Field by field: the slot's MPDU list keeps its capacity.
                let slot = &mut self.frames[i as usize];
                slot.frame = frame;
                slot.refs = refs;
                slot.cut_off = false;
                slot.mpdus.clear();
                slot.msdus.clear();
                i
            }
            None => {
                self.frames.push(FrameSlot {
                    frame,
                    refs,
                    cut_off: false,
                    mpdus: Vec::new(),
                    msdus: Vec::new(),
                });
                (self.frames.len() - 1) as u32
            }
        };
        if !mpdus.is_empty() {
            let slot = &mut self.frames[fid as usize];
            slot.mpdus.extend_from_slice(mpdus);
            slot.msdus.extend_from_slice(msdus);
        }
        if let Some(motion) = self.motion {
            // Moving nodes: the powers and delays of this instant; a candidate out of reach now
            // gets nothing, and holds no reference.
            let reached = motion.update_powers(self.me, now, &mut self.radio.neighbors);
            self.frames[fid as usize].refs = reached + 1;
        }
        for nb in &self.radio.neighbors {
            if nb.delay == motion::OUT_OF_REACH {
                continue;
            }
            let gain = self
                .fading
                .gain(self.seed, now, self.me, nb.radio, &mut self.radio.rng);
            let at = now.saturating_add(nb.delay as Time);
            self.events.schedule(
                at.saturating_add(detect),
                EventClass::Arrival,
                Event::SignalStart(nb.radio, fid, nb.mean_mw * gain),
            );
            self.events.schedule(
                at.saturating_add(frame.airtime),
                EventClass::Arrival,
                Event::SignalEnd(nb.radio, fid),
            );
        }
        self.events
            .schedule(end, EventClass::Transmit, Event::RadioTxEnd(self.me, fid));
    }

    /// The link statistics of neighbour `peer` (`None`: not a neighbour now).
    fn stats_of(&mut self, peer: RadioId) -> Option<&mut super::NeighborStats> {
        let nbs = &self.radio.neighbors;
        let i = nbs.binary_search_by_key(&peer, |n| n.radio).ok()?;
        Some(&mut self.radio.neighbor_stats[nbs[i].slot as usize])
    }

    /// Addresses a pulled packet: the neighbour radio of its next hop on this radio's channel,
    /// and the rate table's entry for it (a stale route to a radio out of range has none: the
    /// MAC's own rate, whose retries will fail anyway).
    // Inlined into `pull` (as the code was before `pull_for` shared it): called, it kept the
    // pulled packet in `pull`'s frame, copied out through memcpy on return.
    #[inline(always)]
    fn address(&mut self, pulled: &mut Pulled) {
        let hop = pulled.packet.next_hop;
        if hop == NodeId::MAX {
            return;
        }
        let (first, channel) = (self.radio_of_node[hop as usize], self.radio.channel);
        let next =
            peer_on_channel(first, channel, self.next_on_node, self.channel_of).unwrap_or(first);
        pulled.next_hop = Some(next);
        let nbs = &self.radio.neighbors;
        if let Ok(i) = nbs.binary_search_by_key(&next, |n| n.radio) {
            pulled.rate = (nbs[i].rate_bps != 0).then_some(nbs[i].rate_bps as u64);
        }
    }

    #[inline]
    /// Reports what became of a packet the radio sent: to the layer at once (if it asked), to the
    /// network as an upcall.
    fn report(&mut self, sent: Sent, status: TxStatus) {
        if self.needs.mac_outcomes {
            // At once, inside the MAC's call: what the MAC asks next (`has_pending`) sees it.
            let (layer, view) = self.layer_view();
            layer.on_tx_status(view.radio, sent.id, sent.next_hop, status, view);
        }
        // The MAC is done with the unit (the frames on the air and the receptions it made keep
        // their own references).
        self.units.release(sent.unit);
        self.upcalls.push(Upcall::Status {
            radio: self.me,
            sent,
            status,
        });
    }
}

/// Rate control's side of [`MacIo`], out of line: a radio without adaptive rate control pays one
/// check per call, and the DCF's code inlined into the medium's handlers stays small.
impl MacEnv<'_> {
    #[inline(never)]
    fn managed_rate(&mut self, next: RadioId, table: u64) -> u64 {
        let now = self.events.now();
        let radio = &mut *self.radio;
        let Some(rc) = radio.rate_control.as_mut() else {
            return table;
        };
        match radio.neighbors.binary_search_by_key(&next, |n| n.radio) {
            Ok(i) => rc.rate(radio.neighbors[i].slot as usize, now),
            // A stale route to a radio out of range: its attempts fail anyway.
            Err(_) => table,
        }
    }

    #[inline(never)]
    fn manager_feedback(&mut self, next: RadioId, feedback: RateFeedback) {
        let now = self.events.now();
        let radio = &mut *self.radio;
        if let Some(rc) = radio.rate_control.as_mut() {
            if let Ok(i) = radio.neighbors.binary_search_by_key(&next, |n| n.radio) {
                rc.feedback(radio.neighbors[i].slot as usize, feedback, now);
            }
        }
    }

    #[inline(never)]
    fn managed_attempts(&mut self, next: RadioId) -> Option<u32> {
        let radio = &*self.radio;
        let rc = radio.rate_control.as_deref()?;
        let i = radio
            .neighbors
            .binary_search_by_key(&next, |n| n.radio)
            .ok()?;
        rc.attempts_allowed(radio.neighbors[i].slot as usize)
    }
}
