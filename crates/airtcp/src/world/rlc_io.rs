//! TCP-RLC's glue to the world (`transport::tcp_rlc`): the sender's packets become network
//! packets of 256 bytes (`Header::RlcData`), its timer an event (`WorldEvent::Timer` with
//! `TimerKind::Rto`), each data-direction packet reaching the destination is decoded there and
//! answered with one 40-byte feedback (`Header::RlcFeedback`), and the frames it decodes in order
//! are the flow's goodput.

use super::{Endpoints, Event, TimerKind, World, WorldEvent};
use crate::net::Network;
use crate::sim::header::rlc::{RlcData, RlcFeedback, FEEDBACK_BYTES, PACKET_BYTES};
use crate::sim::packet::Header;
use crate::sim::{EventClass, FlowId, LazyTimer, NodeId, Packet, Time, TimerFire};
use crate::transport::tcp_rlc::endpoint::AnySender;
use crate::transport::tcp_rlc::RlcIo;

/// A TCP-RLC sender's view of the network.
struct RlcNetIo<'a> {
    net: &'a mut Network,
    timer: &'a mut LazyTimer,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
}

impl RlcIo for RlcNetIo<'_> {
    fn now(&self) -> Time {
        self.net.events.now()
    }

    fn send(&mut self, packet: RlcData) {
        let now = self.net.events.now();
        let header = Header::RlcData(packet);
        let mut p = Packet::new(self.flow, self.src, self.dst, PACKET_BYTES, now, header);
        if packet.mark.round > 0 {
            // A multipath packet goes by its path controller's path.
            p.path = packet.mark.path;
        }
        self.net.originate(p);
    }

    fn set_timer(&mut self, deadline: Option<Time>) {
        if let Some((at, generation)) = self.timer.set(deadline) {
            let ev: Event = WorldEvent::Timer(self.flow, TimerKind::Rto, generation).into();
            self.net.events.schedule(at, EventClass::Timer, ev);
        }
    }
}

impl World {
    /// Runs `act` on flow `f`'s TCP-RLC sender with its view of the network (nothing for another
    /// transport).
    fn with_rlc_sender(&mut self, f: FlowId, act: impl FnOnce(&mut AnySender, &mut RlcNetIo<'_>)) {
        let flow = &mut self.flows[f as usize];
        let (src, dst) = (flow.src, flow.dst);
        let Endpoints::TcpRlc {
            sender, rto_timer, ..
        } = &mut flow.endpoints
        else {
            return;
        };
        let mut io = RlcNetIo {
            net: &mut self.net,
            timer: rto_timer,
            flow: f,
            src,
            dst,
        };
        act(sender, &mut io);
    }

    /// Flow `f`'s TCP-RLC application starts.
    pub(super) fn rlc_start(&mut self, f: FlowId) {
        self.with_rlc_sender(f, |sender, io| sender.start(io));
    }

    /// Flow `f`'s TCP-RLC timer event.
    pub(super) fn rlc_timer(&mut self, f: FlowId, generation: u32, now: Time) {
        let Endpoints::TcpRlc { rto_timer, .. } = &mut self.flows[f as usize].endpoints else {
            return;
        };
        match rto_timer.on_event(now, generation) {
            TimerFire::Ignore => {}
            TimerFire::Reschedule(at, g) => {
                let ev: Event = WorldEvent::Timer(f, TimerKind::Rto, g).into();
                self.net.events.schedule(at, EventClass::Timer, ev);
            }
            TimerFire::Expired => self.with_rlc_sender(f, |sender, io| sender.on_timer(io)),
        }
    }

    /// A data-direction packet reached flow `f`'s destination: decode it, count what it decoded,
    /// answer it.
    pub(super) fn rlc_data(&mut self, f: FlowId, h: &RlcData, now: Time) {
        let flow = &mut self.flows[f as usize];
        let Endpoints::TcpRlc {
            sender, receiver, ..
        } = &mut flow.endpoints
        else {
            return;
        };
        let got = receiver.on_data(h);
        if got.frames > 0 {
            // A finite transfer counts its last partial packet whole: the paper's throughput is
            // decoded packets (spec A17).
            flow.meter.record(now, got.bytes());
            let done = sender
                .source()
                .cfg
                .frames
                .is_some_and(|n| receiver.next_expected() >= n);
            if done && flow.completion.is_none() {
                flow.completion = Some(now);
            }
        }
        let header = Header::RlcFeedback(got.feedback);
        let p = Packet::new(f, flow.dst, flow.src, FEEDBACK_BYTES, now, header);
        self.net.originate(p);
    }

    /// A feedback reached flow `f`'s source.
    pub(super) fn rlc_feedback(&mut self, f: FlowId, fb: &RlcFeedback) {
        self.with_rlc_sender(f, |sender, io| sender.on_feedback(fb, io));
    }
}
