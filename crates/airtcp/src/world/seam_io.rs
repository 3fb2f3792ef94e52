//! The world's side of the transport seam (`transport::seam`): a transport behind it sends
//! through the network, arms the flow's timer (`WorldEvent::Timer` with `TimerKind::Rto`) and
//! reports what it delivered to the flow's goodput meter and completion time.

use super::{Endpoints, Event, Flow, TimerKind, World, WorldEvent};
use crate::metrics::goodput::GoodputMeter;
use crate::net::Network;
use crate::sim::packet::Header;
use crate::sim::{EventClass, FlowId, LazyTimer, NodeId, Packet, Time, TimerFire};
use crate::transport::seam::{End, FlowTransport, TransportIo};

/// A flow's view of the world, for the transport behind the seam.
struct SeamIo<'a> {
    net: &'a mut Network,
    timer: &'a mut LazyTimer,
    meter: &'a mut GoodputMeter,
    completion: &'a mut Option<Time>,
    flow: FlowId,
    src: NodeId,
    dst: NodeId,
}

impl TransportIo for SeamIo<'_> {
    fn now(&self) -> Time {
        self.net.events.now()
    }

    fn send(&mut self, from: End, size: u32, header: Header, path: u8) {
        let (src, dst) = match from {
            End::Source => (self.src, self.dst),
            End::Destination => (self.dst, self.src),
        };
        let mut p = Packet::new(self.flow, src, dst, size, self.now(), header);
        p.path = path;
        self.net.originate(p);
    }

    fn set_timer(&mut self, deadline: Option<Time>) {
        if let Some((at, generation)) = self.timer.set(deadline) {
            let ev: Event = WorldEvent::Timer(self.flow, TimerKind::Rto, generation).into();
            self.net.events.schedule(at, EventClass::Timer, ev);
        }
    }

    fn delivered(&mut self, bytes: u64) {
        self.meter.record(self.net.events.now(), bytes);
    }

    fn completed(&mut self) {
        if self.completion.is_none() {
            *self.completion = Some(self.net.events.now());
        }
    }
}

impl World {
    /// Runs `act` on flow `f`'s transport behind the seam with its view of the world (nothing
    /// for a flow of another transport).
    fn with_seam(&mut self, f: FlowId, act: impl FnOnce(&mut dyn FlowTransport, &mut SeamIo<'_>)) {
        let Flow {
            src,
            dst,
            endpoints,
            meter,
            completion,
            ..
        } = &mut self.flows[f as usize];
        let Endpoints::Seam { transport, timer } = endpoints else {
            return;
        };
        let mut io = SeamIo {
            net: &mut self.net,
            timer,
            meter,
            completion,
            flow: f,
            src: *src,
            dst: *dst,
        };
        act(transport.as_mut(), &mut io);
    }

    /// Flow `f`'s application starts.
    pub(super) fn seam_start(&mut self, f: FlowId) {
        self.with_seam(f, |transport, io| transport.start(io));
    }

    /// Flow `f`'s timer event.
    pub(super) fn seam_timer(&mut self, f: FlowId, generation: u32, now: Time) {
        let Endpoints::Seam { timer, .. } = &mut self.flows[f as usize].endpoints else {
            return;
        };
        match timer.on_event(now, generation) {
            TimerFire::Ignore => {}
            TimerFire::Reschedule(at, g) => {
                let ev: Event = WorldEvent::Timer(f, TimerKind::Rto, g).into();
                self.net.events.schedule(at, EventClass::Timer, ev);
            }
            TimerFire::Expired => self.with_seam(f, |transport, io| transport.on_timer(io)),
        }
    }

    /// A packet of flow `p.flow` reached the node it was addressed to.
    pub(super) fn seam_packet(&mut self, p: &Packet) {
        self.with_seam(p.flow, |transport, io| transport.on_packet(p, io));
    }
}
