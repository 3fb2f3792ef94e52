//! The shim seam's glue to the world (`transport::shim`): a flow's shim sends packets of the flow
//! (`Header::Shim`), its timers become events (`WorldEvent::Timer` with `TimerKind::Shim`), the
//! segments it hands up reach TCP's receiver and the ACKs it replays reach TCP's sender, and the
//! packets of its own that a full buffer dropped at the node that sent them are reported to it.
//! Nothing here knows which system a shim is.

use super::{Endpoints, Event, NetIo, TimerKind, World, WorldEvent};
use crate::metrics::results::ShimReport;
use crate::net::Network;
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::packet::Header;
use crate::sim::{EventClass, FlowId, LazyTimer, NodeId, Packet, Time, TimerFire};
use crate::transport::shim::{
    Arrival, End, SenderTiming, Shim, ShimHeader, ShimIo, ShimPacket, ShimTimer, Verdict,
};
use crate::transport::tcp::sender::TcpSender;

/// A flow's shim and what the world keeps for it.
pub struct ShimSlot {
    shim: Box<dyn Shim>,
    /// The shim's timers, indexed by [`ShimTimer`].
    timers: Vec<LazyTimer>,
    /// [`Shim::replaces_receiver_acks`], asked once: it is consulted on every ACK and every
    /// delayed-ACK timer request of TCP's receiver.
    replaces_receiver_acks: bool,
    /// [`Shim::sees_arrivals`], asked once: it is consulted on every TCP packet of the flow that
    /// arrives.
    sees_arrivals: bool,
    /// Segments handed up and ACKs replayed during a hook, applied when it returns (see
    /// [`ShimIo`]). Kept between hooks so that their buffers are reused.
    up: Vec<DataHeader>,
    acks: Vec<AckHeader>,
}

impl ShimSlot {
    /// Attaches `shim` to a flow.
    pub fn new(shim: Box<dyn Shim>) -> Self {
        let timers = shim.timers();
        assert!(
            timers <= ShimTimer::MAX as usize + 1,
            "a shim has at most 256 timers"
        );
        ShimSlot {
            replaces_receiver_acks: shim.replaces_receiver_acks(),
            sees_arrivals: shim.sees_arrivals(),
            shim,
            timers: vec![LazyTimer::default(); timers],
            up: Vec::new(),
            acks: Vec::new(),
        }
    }

    /// The shim.
    pub fn shim(&self) -> &dyn Shim {
        &*self.shim
    }

    /// The shim's counters for the results.
    pub fn report(&self) -> Option<ShimReport> {
        self.shim.report()
    }

    /// The shim and an io on `net` for flow `flow` (`ends` = (source, destination)); `sender` is
    /// the TCP sender, unless it is the one calling.
    fn split<'a>(
        &'a mut self,
        net: &'a mut Network,
        flow: FlowId,
        ends: (NodeId, NodeId),
        sender: Option<&'a TcpSender>,
    ) -> (&'a mut dyn Shim, ShimNetIo<'a>) {
        let io = ShimNetIo {
            net,
            flow,
            ends,
            timers: &mut self.timers,
            up: &mut self.up,
            acks: &mut self.acks,
            sender,
        };
        (&mut *self.shim, io)
    }

    /// TCP's sender at `ends.0` sends `segment`: whether it goes on into the network.
    // Out of line: TCP's I/O calls it for every segment (ACK) of a flow with a shim, and keeping
    // it out keeps that I/O as small as it is for the flows without one.
    #[inline(never)]
    pub(super) fn sender_segment(
        &mut self,
        net: &mut Network,
        flow: FlowId,
        ends: (NodeId, NodeId),
        segment: DataHeader,
    ) -> Verdict {
        let (shim, mut io) = self.split(net, flow, ends, None);
        shim.on_sender_segment(segment, &mut io)
    }

    /// TCP's receiver at `ends.1` sends `ack`: whether it goes on into the network.
    // Out of line: TCP's I/O calls it for every segment (ACK) of a flow with a shim, and keeping
    // it out keeps that I/O as small as it is for the flows without one.
    #[inline(never)]
    pub(super) fn receiver_ack(
        &mut self,
        net: &mut Network,
        flow: FlowId,
        ends: (NodeId, NodeId),
        ack: &AckHeader,
    ) -> Verdict {
        if self.replaces_receiver_acks {
            return Verdict::Consumed;
        }
        let (shim, mut io) = self.split(net, flow, ends, None);
        shim.on_receiver_ack(ack, &mut io)
    }

    /// Whether TCP's receiver runs without ACKs (and so without its delayed-ACK timer).
    pub(super) fn silences_receiver(&self) -> bool {
        self.replaces_receiver_acks
    }

    /// The sender's window hint.
    pub(super) fn window_hint(&mut self, segments: u64) {
        self.shim.on_window_hint(segments);
    }

    /// Whether the shim sees TCP's packets arriving ([`Shim::sees_arrivals`]).
    pub(super) fn sees_arrivals(&self) -> bool {
        self.sees_arrivals
    }

    /// Whether a hook left segments to hand up or ACKs to replay (see [`World::settle_shim`]).
    pub(super) fn has_effects(&self) -> bool {
        !self.up.is_empty() || !self.acks.is_empty()
    }
}

/// A shim's io on the network.
struct ShimNetIo<'a> {
    net: &'a mut Network,
    flow: FlowId,
    /// (source, destination).
    ends: (NodeId, NodeId),
    timers: &'a mut [LazyTimer],
    up: &'a mut Vec<DataHeader>,
    acks: &'a mut Vec<AckHeader>,
    sender: Option<&'a TcpSender>,
}

impl ShimIo for ShimNetIo<'_> {
    fn now(&self) -> Time {
        self.net.events.now()
    }

    fn send(&mut self, from: End, size: u32, header: ShimHeader) {
        let (src, dst) = self.ends;
        let (from, to) = match from {
            End::Source => (src, dst),
            End::Destination => (dst, src),
        };
        let now = self.net.events.now();
        let packet = Packet::new(self.flow, from, to, size, now, Header::Shim(header));
        self.net.originate(packet);
    }

    fn set_timer(&mut self, timer: ShimTimer, deadline: Option<Time>) {
        if let Some((at, generation)) = self.timers[timer as usize].set(deadline) {
            let ev: Event = WorldEvent::Timer(self.flow, TimerKind::Shim(timer), generation).into();
            self.net.events.schedule(at, EventClass::Timer, ev);
        }
    }

    fn deliver(&mut self, segment: DataHeader) {
        self.up.push(segment);
    }

    fn replay_ack(&mut self, ack: AckHeader) {
        self.acks.push(ack);
    }

    fn sender_timing(&self) -> Option<SenderTiming> {
        self.sender.map(|s| SenderTiming {
            srtt: s.srtt(),
            rto: s.rto(),
        })
    }

    fn layer_price(&self, end: End) -> Option<f64> {
        let (src, dst) = self.ends;
        let (at, to) = match end {
            End::Source => (src, dst),
            End::Destination => (dst, src),
        };
        self.net
            .forwarding
            .as_ref()
            .and_then(|layer| layer.flow_price(at, self.flow, to))
    }
}

impl World {
    /// Runs `hook` on flow `f`'s shim with its io and the flow's ends (source, destination),
    /// then applies what the hook left to do. Nothing happens for a flow without a shim.
    fn run_shim_hook(
        &mut self,
        f: FlowId,
        now: Time,
        hook: impl FnOnce(&mut dyn Shim, &mut ShimNetIo<'_>, (NodeId, NodeId)),
    ) {
        let flow = &mut self.flows[f as usize];
        let ends = (flow.src, flow.dst);
        let Endpoints::Tcp {
            sender,
            shim: Some(slot),
            ..
        } = &mut flow.endpoints
        else {
            return;
        };
        let (shim, mut io) = slot.split(&mut self.net, f, ends, Some(&**sender));
        hook(shim, &mut io, ends);
        if slot.has_effects() {
            self.settle_shim(f, now);
        }
    }

    /// One of TCP's packets of flow `p.flow` arrived at its end, and the flow's shim sees
    /// arrivals: whether the shim consumed it (TCP does not see it then).
    #[inline(never)]
    pub(super) fn arrival_through_shim(&mut self, now: Time, p: &Packet) -> bool {
        let arrival = Arrival {
            size: p.size,
            path: p.path,
            created: p.created,
            layer_seq: p.layer_seq,
        };
        let mut verdict = Verdict::Pass;
        self.run_shim_hook(p.flow, now, |shim, io, _| {
            verdict = match &p.header {
                Header::TcpData(h) => shim.on_arriving_segment(h, arrival, io),
                Header::TcpAck(h) => shim.on_arriving_ack(h, arrival, io),
                _ => Verdict::Pass,
            };
        });
        verdict == Verdict::Consumed
    }

    /// A packet of flow `p.flow`'s shim reached the end it was sent to.
    pub(super) fn deliver_shim(&mut self, now: Time, p: Packet, header: ShimHeader) {
        let packet = ShimPacket {
            header,
            size: p.size,
            path: p.path,
            created: p.created,
        };
        self.run_shim_hook(p.flow, now, |shim, io, (_, dst)| {
            let at = if p.dst == dst {
                End::Destination
            } else {
                End::Source
            };
            shim.on_packet(at, &packet, io);
        });
    }

    /// An event of flow `f`'s shim timer `timer` fired.
    pub(super) fn on_shim_timer(
        &mut self,
        f: FlowId,
        timer: ShimTimer,
        generation: u32,
        now: Time,
    ) {
        let Endpoints::Tcp {
            shim: Some(slot), ..
        } = &mut self.flows[f as usize].endpoints
        else {
            return;
        };
        match slot.timers[timer as usize].on_event(now, generation) {
            TimerFire::Ignore => {}
            TimerFire::Reschedule(at, g) => {
                let ev: Event = WorldEvent::Timer(f, TimerKind::Shim(timer), g).into();
                self.net.events.schedule(at, EventClass::Timer, ev);
            }
            TimerFire::Expired => {
                self.run_shim_hook(f, now, |shim, io, _| shim.on_timer(timer, io));
            }
        }
    }

    /// Hands the shims' packets that a full buffer dropped at the node that sent them to their
    /// flows' shims.
    pub(super) fn take_shim_drops(&mut self, now: Time) {
        if self.net.shim_drops.is_empty() {
            return;
        }
        let mut drops = std::mem::take(&mut self.net.shim_drops);
        for p in &drops {
            let Header::Shim(header) = p.header else {
                unreachable!("only shims' packets are noted");
            };
            let packet = ShimPacket {
                header,
                size: p.size,
                path: p.path,
                created: p.created,
            };
            self.run_shim_hook(p.flow, now, |shim, io, (src, _)| {
                let from = if p.src == src {
                    End::Source
                } else {
                    End::Destination
                };
                shim.on_dropped_at_origin(from, &packet, io);
            });
        }
        drops.clear();
        if self.net.shim_drops.is_empty() {
            self.net.shim_drops = drops;
        }
    }

    /// Applies what flow `f`'s shim left to do (see [`ShimIo`]): segments up to TCP's receiver,
    /// then ACKs into TCP's sender, until neither is left (TCP's answers go through the shim
    /// again, which may leave more). Callers call it only if [`ShimSlot::has_effects`]: most
    /// hooks leave nothing, and looking the flow up again would cost every packet.
    pub(super) fn settle_shim(&mut self, f: FlowId, now: Time) {
        let flow = &mut self.flows[f as usize];
        let ends = (flow.src, flow.dst);
        let Endpoints::Tcp {
            sender,
            receiver,
            header_bytes,
            rto_timer,
            ack_timer,
            shim: Some(slot),
        } = &mut flow.endpoints
        else {
            return;
        };
        while slot.has_effects() {
            if !slot.up.is_empty() {
                // Taken out while TCP's receiver runs (its ACKs go through the shim, which may
                // hand up more); given back afterwards so that its buffer is reused.
                let mut up = std::mem::take(&mut slot.up);
                for segment in &up {
                    let mut io = NetIo::receiver(
                        &mut self.net,
                        ack_timer,
                        f,
                        ends,
                        *header_bytes,
                        Some(&mut **slot),
                    );
                    let bytes = receiver.on_data(segment, &mut io);
                    flow.meter.record(now, bytes);
                }
                if flow.completion.is_none() && receiver.complete() {
                    flow.completion = Some(now);
                }
                up.clear();
                if slot.up.is_empty() {
                    slot.up = up;
                }
            } else {
                let mut acks = std::mem::take(&mut slot.acks);
                for ack in &acks {
                    let mut io = NetIo::sender(
                        &mut self.net,
                        rto_timer,
                        f,
                        ends,
                        *header_bytes,
                        Some(&mut **slot),
                    );
                    sender.on_ack(ack, &mut io);
                }
                acks.clear();
                if slot.acks.is_empty() {
                    slot.acks = acks;
                }
            }
        }
    }
}
