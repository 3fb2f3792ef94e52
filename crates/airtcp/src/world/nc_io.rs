//! The NC layer's glue to the network (paper 000 §4.1.3, §4.2.1; `transport::nc_layer`): coded
//! packets, NC-ACKs and repair requests travel as packets of their flow (coded packets like the
//! flow's data, from source to destination; feedback like its ACKs, the other way), the
//! receiver's repair timer becomes events, decoded segments go up to TCP's receiver, and coded
//! packets dropped on overflow at their source node are reported to their flow's NC layer.

use super::{Endpoints, Event, NetIo, TimerKind, World};
use crate::net::Network;
use crate::sim::packet::Header;
use crate::sim::{EventClass, FlowId, LazyTimer, NodeId, Packet, Time, TimerFire};
use crate::transport::nc_layer::{NcCoded, NcHeader, NcIo};
use crate::transport::tcp::segment::{AckHeader, DataHeader};
use crate::transport::tcp::TcpIo;

/// Connects one end of a flow's NC layer to the network.
pub(super) struct NcNetIo<'a> {
    pub(super) net: &'a mut Network,
    /// The repair timer (at the receiver only).
    pub(super) timer: Option<&'a mut LazyTimer>,
    pub(super) flow: FlowId,
    pub(super) from: NodeId,
    pub(super) to: NodeId,
}

impl<'a> NcNetIo<'a> {
    /// The receiver's end of flow `flow` (`ends` = (source, destination)): it sends NC-ACKs and
    /// repair requests back to the source and owns the repair timer.
    fn receiver(
        net: &'a mut Network,
        timer: &'a mut LazyTimer,
        flow: FlowId,
        (src, dst): (NodeId, NodeId),
    ) -> Self {
        NcNetIo {
            net,
            timer: Some(timer),
            flow,
            from: dst,
            to: src,
        }
    }

    fn originate(&mut self, size: u32, header: NcHeader) {
        let now = self.net.events.now();
        let packet = Packet::new(self.flow, self.from, self.to, size, now, Header::Nc(header));
        self.net.originate(packet);
    }
}

impl NcIo for NcNetIo<'_> {
    fn now(&self) -> Time {
        self.net.events.now()
    }

    fn send_coded(&mut self, header: NcCoded, size: u32, _payload: &[u8]) {
        self.originate(size, NcHeader::Coded(header));
    }

    fn send_feedback(&mut self, header: NcHeader, size: u32) {
        self.originate(size, header);
    }

    fn set_timer(&mut self, deadline: Option<Time>) {
        let Some(timer) = self.timer.as_deref_mut() else {
            return;
        };
        if let Some((at, generation)) = timer.set(deadline) {
            let ev = Event::Timer(self.flow, TimerKind::NcRepair, generation);
            self.net.events.schedule(at, EventClass::Timer, ev);
        }
    }
}

/// TCP's receiver under the NC layer: the NC-ACKs replace its ACKs, so it sends none and never
/// arms its delayed-ACK timer.
struct Silent(Time);

impl TcpIo for Silent {
    fn now(&self) -> Time {
        self.0
    }
    fn send_data(&mut self, _header: DataHeader) {
        unreachable!("the receiver sends no data");
    }
    fn send_ack(&mut self, _header: AckHeader) {}
    fn set_timer(&mut self, _deadline: Option<Time>) {}
}

impl World {
    /// A packet of flow `f`'s NC layer reached its destination.
    pub(super) fn deliver_nc(&mut self, now: Time, f: FlowId, h: NcHeader) {
        let flow = &mut self.flows[f as usize];
        let (src, dst) = (flow.src, flow.dst);
        let Endpoints::Tcp {
            sender,
            receiver,
            header_bytes,
            rto_timer,
            nc: Some(nc),
            ..
        } = &mut flow.endpoints
        else {
            unreachable!("an NC packet delivered to flow {f}, which has no NC layer");
        };
        let nc = &mut **nc;
        match h {
            NcHeader::Coded(coded) => {
                let mut io = NcNetIo::receiver(&mut self.net, &mut nc.timer, f, (src, dst));
                nc.sink
                    .on_coded(&coded, &[], &nc.source, &mut io, &mut nc.delivered);
                for d in nc.delivered.drain(..) {
                    let bytes = receiver.on_data(&d.segment, &mut Silent(now));
                    flow.meter.record(now, bytes);
                }
                if flow.completion.is_none() && receiver.complete() {
                    flow.completion = Some(now);
                }
            }
            NcHeader::Ack(ack) => {
                if let Some(tcp_ack) = nc.source.on_ack(&ack) {
                    let mut io = NetIo::endpoint(
                        &mut self.net,
                        rto_timer,
                        TimerKind::Rto,
                        f,
                        (src, dst),
                        *header_bytes,
                    )
                    .with_nc(Some(nc));
                    sender.on_ack(&tcp_ack, &mut io);
                }
            }
            NcHeader::Repair(req) => {
                let rtt = sender.srtt().unwrap_or_else(|| sender.rto());
                let mut io = NcNetIo {
                    net: &mut self.net,
                    timer: None,
                    flow: f,
                    from: src,
                    to: dst,
                };
                nc.source.on_repair_request(&req, rtt, &mut io);
            }
        }
    }

    /// Flow `f`'s NC repair timer fired.
    pub(super) fn on_nc_timer(&mut self, f: FlowId, generation: u32, now: Time) {
        let flow = &mut self.flows[f as usize];
        let (src, dst) = (flow.src, flow.dst);
        let Endpoints::Tcp { nc: Some(nc), .. } = &mut flow.endpoints else {
            return;
        };
        let nc = &mut **nc;
        match nc.timer.on_event(now, generation) {
            TimerFire::Ignore => {}
            TimerFire::Reschedule(at, g) => {
                let ev = Event::Timer(f, TimerKind::NcRepair, g);
                self.net.events.schedule(at, EventClass::Timer, ev);
            }
            TimerFire::Expired => {
                let mut io = NcNetIo::receiver(&mut self.net, &mut nc.timer, f, (src, dst));
                nc.sink.on_timer(&mut io);
            }
        }
    }

    /// Hands the coded packets dropped on overflow at their source node to their flows' NC
    /// layers, which pass the loss up to TCP (paper 000 §4.2.1).
    pub(super) fn take_edge_drops(&mut self) {
        if self.net.edge_drops.is_empty() {
            return;
        }
        let mut drops = std::mem::take(&mut self.net.edge_drops);
        for p in &drops {
            let endpoints = &mut self.flows[p.flow as usize].endpoints;
            if let (Endpoints::Tcp { nc: Some(nc), .. }, Header::Nc(NcHeader::Coded(c))) =
                (endpoints, p.header)
            {
                nc.source.on_edge_drop(&c);
            }
        }
        drops.clear();
        if self.net.edge_drops.is_empty() {
            self.net.edge_drops = drops;
        }
    }
}
