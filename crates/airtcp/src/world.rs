//! The simulated world: the network, the flows on it, and the event loop that drives both.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::error::ConfigError;
use crate::metrics::goodput::GoodputMeter;
use crate::metrics::results::RunResults;
use crate::net::event::{Event, UpperEvent};
use crate::net::Network;
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::memory::{format_bytes, format_count, MemoryBudget};
use crate::sim::packet::Header;
use crate::sim::time::{to_secs, Time};
use crate::sim::{EventClass, FlowId, LazyTimer, NodeId, Packet, TimerFire};
use crate::transport::seam::FlowTransport;
use crate::transport::shim::{ShimTimer, Verdict};
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::tcp::TcpIo;
use crate::transport::udp::{DatagramSource, UdpSink};

mod results;
mod seam_io;
mod shim_io;

pub use shim_io::ShimSlot;

/// An event of the world's, kept in the network's event list as a [`net::event::UpperEvent`]
/// (`Event::Upper`): the network carries it without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldEvent {
    /// A flow's timer (lazy-cancellation generation attached).
    Timer(FlowId, TimerKind, u32),
    /// A flow's application starts.
    AppStart(FlowId),
    /// A flow's application stops sending new data.
    AppStop(FlowId),
    /// A UDP source emits its next datagram (or, flow-controlled, decides its rate).
    SourceTick(FlowId),
    /// Periodic trace sampling.
    Sample,
}

// `UpperEvent::what` of each world event; a shim's timer `t` is `SHIM_TIMER | t`.
const RTO: u16 = 0;
const DELAYED_ACK: u16 = 1;
const APP_START: u16 = 2;
const APP_STOP: u16 = 3;
const SOURCE_TICK: u16 = 4;
const SAMPLE: u16 = 5;
const SHIM_TIMER: u16 = 0x100;

impl From<WorldEvent> for Event {
    fn from(event: WorldEvent) -> Event {
        let (flow, generation, what) = match event {
            WorldEvent::Timer(f, kind, g) => {
                let what = match kind {
                    TimerKind::Rto => RTO,
                    TimerKind::DelayedAck => DELAYED_ACK,
                    TimerKind::Shim(t) => SHIM_TIMER | t as u16,
                };
                (f, g, what)
            }
            WorldEvent::AppStart(f) => (f, 0, APP_START),
            WorldEvent::AppStop(f) => (f, 0, APP_STOP),
            WorldEvent::SourceTick(f) => (f, 0, SOURCE_TICK),
            WorldEvent::Sample => (0, 0, SAMPLE),
        };
        Event::Upper(UpperEvent {
            flow,
            generation,
            what,
        })
    }
}

impl WorldEvent {
    /// The world event an [`UpperEvent`] holds (`None` for a number the world never schedules).
    fn of(event: UpperEvent) -> Option<WorldEvent> {
        let UpperEvent {
            flow: f,
            generation: g,
            what,
        } = event;
        Some(match what {
            RTO => WorldEvent::Timer(f, TimerKind::Rto, g),
            DELAYED_ACK => WorldEvent::Timer(f, TimerKind::DelayedAck, g),
            APP_START => WorldEvent::AppStart(f),
            APP_STOP => WorldEvent::AppStop(f),
            SOURCE_TICK => WorldEvent::SourceTick(f),
            SAMPLE => WorldEvent::Sample,
            w if w & !0xff == SHIM_TIMER => WorldEvent::Timer(f, TimerKind::Shim(w as u8), g),
            _ => return None,
        })
    }
}

/// Which of a flow's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerKind {
    /// The TCP sender's retransmission timer.
    Rto,
    /// The TCP receiver's delayed-ACK timer.
    DelayedAck,
    /// A timer of the flow's shim (`transport::shim`), by the shim's own numbering: one kind for
    /// every shim, so that adding a system adds no event.
    Shim(ShimTimer),
}

/// The transport endpoints of a flow.
pub enum Endpoints {
    /// A TCP connection.
    Tcp {
        /// Sender at the flow's source.
        sender: Box<TcpSender>,
        /// Receiver at the flow's destination.
        receiver: TcpReceiver,
        /// IP + TCP header bytes per segment.
        header_bytes: u32,
        /// The sender's retransmission timer.
        rto_timer: LazyTimer,
        /// The receiver's delayed-ACK timer.
        ack_timer: LazyTimer,
        /// The shim between TCP and the network (`transport::shim`), if the flow has one.
        shim: Option<Box<ShimSlot>>,
    },
    /// A transport behind the transport seam (`transport::seam`).
    Seam {
        /// Both endpoints.
        transport: Box<dyn FlowTransport>,
        /// The flow's timer (its events are `TimerKind::Rto`'s).
        timer: LazyTimer,
    },
    /// A UDP constant-bit-rate flow.
    Udp {
        /// Source at the flow's source.
        source: DatagramSource,
        /// Sink at the flow's destination.
        sink: UdpSink,
        /// IP + UDP header bytes per datagram.
        header_bytes: u32,
        /// Whether the source is emitting.
        running: bool,
    },
}

/// One flow.
pub struct Flow {
    /// Flow name.
    pub name: String,
    /// Source node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// Application start.
    pub start: Time,
    /// Application stop (end of run if none was configured).
    pub stop: Time,
    /// Transport endpoints.
    pub endpoints: Endpoints,
    /// Goodput accounting.
    pub meter: GoodputMeter,
    /// When a finite transfer completed.
    pub completion: Option<Time>,
}

/// Optional recordings.
#[derive(Debug, Clone, Default)]
pub struct Traces {
    /// Sampling interval of the sampled traces (None: none is on).
    pub sample_interval: Option<Time>,
    /// Whether cwnd is sampled.
    pub cwnd_on: bool,
    /// Collected cwnd samples.
    pub cwnd: crate::metrics::results::CwndSeries,
    /// Whether queue occupancy is sampled.
    pub queues_on: bool,
    /// Collected queue-occupancy samples.
    pub queues: crate::metrics::results::QueueSeries,
    /// Whether the cwnd samples carry the delay-based laws' estimates (some flow has one).
    pub cwnd_delay: bool,
}

/// A world ready to run.
pub struct World {
    /// Scenario name.
    pub name: String,
    /// Master seed.
    pub seed: u64,
    /// Simulated duration.
    pub duration: Time,
    /// Network.
    pub net: Network,
    /// Flows, in scenario order.
    pub flows: Vec<Flow>,
    /// Recordings.
    pub traces: Traces,
    /// The memory budget (fixed allocations charged while building; growth checked while
    /// running).
    pub budget: MemoryBudget,
    /// The results tables of every forwarding layer a scenario can ask for: each run's results
    /// have them all, empty unless the layer ran (the scenario, which knows the layers, says).
    pub forwarding_tables: &'static [&'static str],
    /// The packet captures to write (`trace:`), opened when the run starts.
    pub pcap: Option<crate::net::pcap_tap::TracePlan>,
    /// Wall-clock seconds the builder took to make this world (`timing.setup_s`).
    pub setup_s: f64,
}

/// Connects a TCP endpoint to the network: segments become packets, timers become events. With
/// a shim, the sender's segments and window hints and the receiver's ACKs pass through it first.
struct NetIo<'a> {
    net: &'a mut Network,
    timer: &'a mut LazyTimer,
    kind: TimerKind,
    flow: FlowId,
    /// (source, destination) of the flow.
    ends: (NodeId, NodeId),
    /// Where this endpoint's packets go from and to (`ends` for the sender, reversed for the
    /// receiver), worked out once rather than per packet.
    from: NodeId,
    to: NodeId,
    header_bytes: u32,
    shim: Option<&'a mut ShimSlot>,
}

impl<'a> NetIo<'a> {
    /// The I/O of flow `flow`'s sender, which owns the RTO timer and sends from `ends.0`.
    fn sender(
        net: &'a mut Network,
        timer: &'a mut LazyTimer,
        flow: FlowId,
        ends: (NodeId, NodeId),
        header_bytes: u32,
        shim: Option<&'a mut ShimSlot>,
    ) -> Self {
        NetIo {
            net,
            timer,
            kind: TimerKind::Rto,
            flow,
            ends,
            from: ends.0,
            to: ends.1,
            header_bytes,
            shim,
        }
    }

    /// The I/O of flow `flow`'s receiver, which owns the delayed-ACK timer and sends from
    /// `ends.1`.
    fn receiver(
        net: &'a mut Network,
        timer: &'a mut LazyTimer,
        flow: FlowId,
        ends: (NodeId, NodeId),
        header_bytes: u32,
        shim: Option<&'a mut ShimSlot>,
    ) -> Self {
        NetIo {
            net,
            timer,
            kind: TimerKind::DelayedAck,
            flow,
            ends,
            from: ends.1,
            to: ends.0,
            header_bytes,
            shim,
        }
    }

    fn packet(&self, size: u32, header: Header) -> Packet {
        let now = self.net.events.now();
        Packet::new(self.flow, self.from, self.to, size, now, header)
    }
}

impl TcpIo for NetIo<'_> {
    fn now(&self) -> Time {
        self.net.events.now()
    }

    fn send_data(&mut self, header: DataHeader) {
        if let Some(slot) = self.shim.as_deref_mut() {
            let verdict = slot.sender_segment(self.net, self.flow, self.ends, header);
            if verdict == Verdict::Consumed {
                return;
            }
        }
        let p = self.packet(header.len + self.header_bytes, Header::TcpData(header));
        self.net.originate(p);
    }

    fn send_ack(&mut self, header: AckHeader) {
        if let Some(slot) = self.shim.as_deref_mut() {
            let verdict = slot.receiver_ack(self.net, self.flow, self.ends, &header);
            if verdict == Verdict::Consumed {
                return;
            }
        }
        let p = self.packet(self.header_bytes, Header::TcpAck(header));
        self.net.originate(p);
    }

    fn set_timer(&mut self, deadline: Option<Time>) {
        // A receiver whose ACKs a shim replaces never needs its delayed-ACK timer. (The kind
        // first: the sender restarts its RTO on every ACK.)
        if self.kind == TimerKind::DelayedAck
            && self
                .shim
                .as_deref()
                .is_some_and(ShimSlot::silences_receiver)
        {
            return;
        }
        if let Some((at, generation)) = self.timer.set(deadline) {
            let ev: Event = WorldEvent::Timer(self.flow, self.kind, generation).into();
            self.net.events.schedule(at, EventClass::Timer, ev);
        }
    }

    fn window_hint(&mut self, segments: u64) {
        if let Some(slot) = self.shim.as_deref_mut() {
            slot.window_hint(segments);
        }
    }
}

/// Lets another thread watch a run and stop it: the loop publishes the simulated time every
/// [`RunControl::PUBLISH_EVERY`] events and checks for a stop request at the same points. Neither
/// touches the simulation's state, so a watched run gives the same results as an unwatched one.
///
/// Before the loop, the world's set-up publishes how far its longest step has got (the route
/// searches, one per flow end: seconds on a mesh of 100,000 nodes) and stops short of it on a
/// stop request; the run then returns no results without running an event.
#[derive(Debug, Default)]
pub struct RunControl {
    setup_done: AtomicU64,
    setup_total: AtomicU64,
    now_ns: AtomicU64,
    stop: AtomicBool,
}

impl RunControl {
    /// Events between two publications: often enough for a progress display (a few hundred
    /// microseconds of wall time), rare enough to cost nothing measurable.
    pub const PUBLISH_EVERY: u64 = 4096;

    /// The simulated time the run had reached at its latest publication.
    pub fn now(&self) -> Time {
        self.now_ns.load(Ordering::Relaxed)
    }

    /// Asks the run to stop at its next check; it then returns no results.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The set-up's route searches: how many of how many are done (0 of 0 before they start or
    /// without any).
    pub fn setup_progress(&self) -> (u64, u64) {
        (
            self.setup_done.load(Ordering::Relaxed),
            self.setup_total.load(Ordering::Relaxed),
        )
    }

    /// Publishes that `done` of the set-up's `total` route searches are done; false if the run
    /// is to stop.
    pub fn setup_step(&self, done: usize, total: usize) -> bool {
        self.setup_done.store(done as u64, Ordering::Relaxed);
        self.setup_total.store(total as u64, Ordering::Relaxed);
        !self.stop_requested()
    }
}

impl World {
    /// Puts `shim` between flow `flow`'s TCP endpoints and the network (in place of the one its
    /// configuration asked for, if any), before the run starts: for systems built outside the
    /// scenario format, and tests. False, and nothing changed, if the flow is not a TCP flow.
    pub fn install_shim(
        &mut self,
        flow: usize,
        shim: Box<dyn crate::transport::shim::Shim>,
    ) -> bool {
        match self.flows.get_mut(flow).map(|f| &mut f.endpoints) {
            Some(Endpoints::Tcp { shim: slot, .. }) => {
                *slot = Some(Box::new(ShimSlot::new(shim)));
                true
            }
            _ => false,
        }
    }

    /// Runs to the end and returns the results; an error if the run outgrew its memory budget.
    pub fn run(self) -> Result<RunResults, ConfigError> {
        let results = self.run_controlled(&RunControl::default())?;
        Ok(results.expect("nobody else holds the control, so nobody stopped the run"))
    }

    /// Runs to the end, publishing progress to `control`; `Ok(None)` if a stop was requested,
    /// an error if the run outgrew its memory budget (checked at the same points).
    pub fn run_controlled(
        mut self,
        control: &RunControl,
    ) -> Result<Option<RunResults>, ConfigError> {
        if control.stop_requested() {
            // Asked during the set-up, whose route searches were then cut short.
            return Ok(None);
        }
        if let Some(plan) = self.pcap.take() {
            self.net.open_traces(plan)?;
        }
        let wall = Instant::now();
        let mut until_publish = RunControl::PUBLISH_EVERY;
        while let Some(t) = self.net.events.peek_time() {
            if t > self.duration {
                break;
            }
            let (now, ev) = self.net.events.pop().expect("peeked");
            self.dispatch(now, ev);
            until_publish -= 1;
            if until_publish == 0 {
                until_publish = RunControl::PUBLISH_EVERY;
                control.now_ns.store(now, Ordering::Relaxed);
                if control.stop_requested() {
                    return Ok(None);
                }
                self.check_growth(now)?;
            }
        }
        control.now_ns.store(self.duration, Ordering::Relaxed);
        let wall_s = wall.elapsed().as_secs_f64();
        let events = self.net.events.events_processed();
        Ok(Some(self.results(wall_s, events)))
    }

    /// What the run allocated beyond the fixed part, against the memory budget: the packet
    /// arena, the event list, the RTT traces and what the transports behind the seam hold (the
    /// only structures that grow with what the run produces rather than with the scenario).
    fn check_growth(&self, now: Time) -> Result<(), ConfigError> {
        let packets = self.net.packets.slots_allocated();
        let events = self.net.events.capacity() as u64;
        let (mut rtt_samples, mut transports) = (0u64, 0u64);
        for flow in &self.flows {
            match &flow.endpoints {
                Endpoints::Tcp { sender, .. } => {
                    rtt_samples += sender.rtt_log.as_ref().map_or(0, |l| l.len() as u64);
                }
                Endpoints::Seam { transport, .. } => transports += transport.heap_bytes(),
                Endpoints::Udp { .. } => {}
            }
        }
        let neighbours = self
            .net
            .wireless
            .motion
            .as_ref()
            .map_or(0, |m| m.grown_bytes());
        let bytes = packets * (std::mem::size_of::<Packet>() as u64 + 4)
            + events * self.net.events.entry_bytes()
            + rtt_samples * crate::sim::memory::SERIES_ROW_BYTES
            + transports
            + neighbours;
        self.budget.check_growth(bytes, now, &|| {
            let mut detail = format!(
                "{} packets alive at once, {} events pending, {} RTT samples",
                format_count(packets),
                format_count(self.net.events.len() as u64),
                format_count(rtt_samples)
            );
            if transports > 0 {
                detail += &format!(", {} held by transports", format_bytes(transports));
            }
            if neighbours > 0 {
                detail += &format!(
                    ", {} of neighbour records of moving nodes",
                    format_bytes(neighbours)
                );
            }
            detail
        })
    }

    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::TxDone(ch) => self.net.on_tx_done(ch),
            Event::Arrive(ch, id) => self.net.on_arrival(ch, id),
            Event::Upper(upper) => match WorldEvent::of(upper) {
                Some(WorldEvent::Timer(f, kind, generation)) => {
                    self.on_timer(f, kind, generation, now)
                }
                Some(WorldEvent::AppStart(f)) => self.on_app_start(f, now),
                Some(WorldEvent::AppStop(f)) => match &mut self.flows[f as usize].endpoints {
                    Endpoints::Tcp { sender, .. } => sender.stop(),
                    Endpoints::Seam { transport, .. } => transport.stop(),
                    Endpoints::Udp { running, .. } => *running = false,
                },
                Some(WorldEvent::SourceTick(f)) => self.on_source_tick(f),
                Some(WorldEvent::Sample) => self.sample(now),
                // Only the world schedules upper events, and only through `WorldEvent`.
                None => debug_assert!(false, "an upper event the world never scheduled: {upper:?}"),
            },
            Event::SignalStart(r, fid, mw) => self.net.on_signal_start(r, fid, mw),
            Event::SignalEnd(r, fid) => self.net.on_signal_end(r, fid),
            Event::RadioTxEnd(r, fid) => self.net.on_radio_tx_end(r, fid),
            Event::MacTimer(r, which, g) => self.net.on_mac_timer(r, which, g),
            Event::Deferred(id) => self.net.send_deferred(id),
            Event::OnDemand(timer) => self.net.on_demand_timer(timer),
            Event::NodeDown(node) => self.net.node_down(node),
            Event::Motion => self.net.on_motion(),
            Event::Slot => self.net.on_slot(),
            Event::DownlinkArrive(user, id) => self.net.on_downlink_arrival(user, id),
            Event::Forwarding(token) => self.net.on_forwarding_timer(token),
            Event::RouterTxDone(r) => self.net.on_router_tx_done(r),
        }
        // In arrival order; delivering may originate packets but never completes another
        // arrival at the same instant, yet index so that it would still be handled. Shims'
        // packets dropped at the node that sent them go to their shims first (for the NC layer,
        // congestion drops at the source that TCP must see, paper 000 §4.2.1).
        let mut i = 0;
        loop {
            self.take_shim_drops(now);
            let Some(&p) = self.net.arrived.get(i) else {
                break;
            };
            i += 1;
            self.deliver(now, p);
        }
        self.net.arrived.clear();
    }

    fn on_app_start(&mut self, f: FlowId, now: Time) {
        let flow = &mut self.flows[f as usize];
        let ends = (flow.src, flow.dst);
        match &mut flow.endpoints {
            Endpoints::Tcp {
                sender,
                rto_timer,
                header_bytes,
                shim,
                ..
            } => {
                let mut io = NetIo::sender(
                    &mut self.net,
                    rto_timer,
                    f,
                    ends,
                    *header_bytes,
                    shim.as_deref_mut(),
                );
                sender.start(&mut io);
                if shim.as_deref().is_some_and(ShimSlot::has_effects) {
                    self.settle_shim(f, now);
                }
            }
            Endpoints::Seam { .. } => self.seam_start(f),
            Endpoints::Udp {
                running, source, ..
            } => {
                *running = true;
                // A Poisson source's first datagram comes one random gap after the start.
                let first = source.next_time().max(now);
                self.net
                    .events
                    .schedule(first, EventClass::App, WorldEvent::SourceTick(f).into());
            }
        }
    }

    fn on_source_tick(&mut self, f: FlowId) {
        let now = self.net.events.now();
        let flow = &mut self.flows[f as usize];
        let Endpoints::Udp {
            source,
            header_bytes,
            running,
            ..
        } = &mut flow.endpoints
        else {
            unreachable!("source tick for a non-UDP flow")
        };
        if !*running {
            return;
        }
        let datagram = match source {
            DatagramSource::Cbr(s) => Some(s.emit()),
            DatagramSource::Poisson(s) => Some(s.emit()),
            DatagramSource::Utility(s) => {
                if s.decision_due(now) {
                    s.decide(now, self.net.flow_backlog(flow.src, f));
                }
                s.try_emit(now)
            }
        };
        if let Some((seq, len)) = datagram {
            let header = Header::Udp { seq, len };
            let size = len + *header_bytes;
            self.net
                .originate(Packet::new(f, flow.src, flow.dst, size, now, header));
        }
        let next = source.next_time();
        if next <= self.duration {
            self.net
                .events
                .schedule(next, EventClass::App, WorldEvent::SourceTick(f).into());
        }
    }

    fn on_timer(&mut self, f: FlowId, kind: TimerKind, generation: u32, now: Time) {
        if let TimerKind::Shim(timer) = kind {
            self.on_shim_timer(f, timer, generation, now);
            return;
        }
        if let Endpoints::Seam { .. } = self.flows[f as usize].endpoints {
            self.seam_timer(f, generation, now);
            return;
        }
        let flow = &mut self.flows[f as usize];
        let ends = (flow.src, flow.dst);
        let Endpoints::Tcp {
            sender,
            receiver,
            header_bytes,
            rto_timer,
            ack_timer,
            shim,
        } = &mut flow.endpoints
        else {
            return;
        };
        let timer = match kind {
            TimerKind::Rto => rto_timer,
            TimerKind::DelayedAck => ack_timer,
            TimerKind::Shim(_) => unreachable!("handled above"),
        };
        match timer.on_event(now, generation) {
            TimerFire::Ignore => {}
            TimerFire::Reschedule(at, g) => {
                self.net.events.schedule(
                    at,
                    EventClass::Timer,
                    WorldEvent::Timer(f, kind, g).into(),
                );
            }
            TimerFire::Expired => {
                let (net, slot) = (&mut self.net, shim.as_deref_mut());
                if kind == TimerKind::Rto {
                    let mut io = NetIo::sender(net, timer, f, ends, *header_bytes, slot);
                    sender.on_timer(&mut io);
                } else {
                    let mut io = NetIo::receiver(net, timer, f, ends, *header_bytes, slot);
                    receiver.on_timer(&mut io);
                }
                if shim.as_deref().is_some_and(ShimSlot::has_effects) {
                    self.settle_shim(f, now);
                }
            }
        }
    }

    fn deliver(&mut self, now: Time, p: Packet) {
        if let Header::Shim(h) = p.header {
            self.deliver_shim(now, p, h);
            return;
        }
        let f = p.flow;
        let endpoints = &self.flows[f as usize].endpoints;
        if let Endpoints::Seam { .. } = endpoints {
            self.seam_packet(&p);
            return;
        }
        let shim_sees =
            matches!(endpoints, Endpoints::Tcp { shim: Some(slot), .. } if slot.sees_arrivals());
        if shim_sees && self.arrival_through_shim(now, &p) {
            return;
        }
        let flow = &mut self.flows[f as usize];
        let ends = (flow.src, flow.dst);
        let settle = match (&mut flow.endpoints, p.header) {
            (
                Endpoints::Tcp {
                    receiver,
                    header_bytes,
                    ack_timer,
                    shim,
                    ..
                },
                Header::TcpData(h),
            ) => {
                let mut io = NetIo::receiver(
                    &mut self.net,
                    ack_timer,
                    f,
                    ends,
                    *header_bytes,
                    shim.as_deref_mut(),
                );
                let bytes = receiver.on_data(&h, &mut io);
                flow.meter.record(now, bytes);
                if flow.completion.is_none() && receiver.complete() {
                    flow.completion = Some(now);
                }
                shim.as_deref().is_some_and(ShimSlot::has_effects)
            }
            (
                Endpoints::Tcp {
                    sender,
                    header_bytes,
                    rto_timer,
                    shim,
                    ..
                },
                Header::TcpAck(h),
            ) => {
                let mut io = NetIo::sender(
                    &mut self.net,
                    rto_timer,
                    f,
                    ends,
                    *header_bytes,
                    shim.as_deref_mut(),
                );
                sender.on_ack(&h, &mut io);
                shim.as_deref().is_some_and(ShimSlot::has_effects)
            }
            (Endpoints::Udp { sink, .. }, Header::Udp { len, .. }) => {
                sink.packets += 1;
                sink.bytes += len as u64;
                flow.meter.record(now, len as u64);
                false
            }
            _ => unreachable!("packet of the wrong transport delivered to flow {f}"),
        };
        if settle {
            self.settle_shim(f, now);
        }
    }

    fn sample(&mut self, now: Time) {
        let Some(interval) = self.traces.sample_interval else {
            return;
        };
        if self.traces.queues_on {
            self.sample_queues(now);
        }
        let cwnd_flows = if self.traces.cwnd_on {
            &self.flows[..]
        } else {
            &[]
        };
        for flow in cwnd_flows {
            if now < flow.start {
                continue;
            }
            // (cwnd, ssthresh, in flight, the delay-based laws' estimates)
            let row = match &flow.endpoints {
                Endpoints::Tcp { sender, .. } => (
                    sender.cwnd(),
                    sender.ssthresh().min(1e9),
                    sender.in_flight() as f64,
                    sender.delay_state().unwrap_or_default(),
                ),
                Endpoints::Seam { transport, .. } => match transport.window() {
                    Some(w) => (w.cwnd, w.ssthresh, w.in_flight, Default::default()),
                    None => continue,
                },
                Endpoints::Udp { .. } => continue,
            };
            let c = &mut self.traces.cwnd;
            c.flow.push(flow.name.clone());
            c.t_s.push(to_secs(now));
            c.cwnd.push(row.0);
            c.ssthresh.push(row.1);
            c.in_flight.push(row.2);
            if self.traces.cwnd_delay {
                c.avg_rtt_s.push(row.3.avg_rtt_s);
                c.base_rtt_s.push(row.3.base_rtt_s);
                c.v.push(row.3.v);
            }
        }
        let next = now.saturating_add(interval);
        if next <= self.duration {
            self.net
                .events
                .schedule(next, EventClass::Sample, WorldEvent::Sample.into());
        }
    }

    /// One queue-occupancy sample: the packets waiting in every wired channel's queue, every
    /// radio's interface queue and every wireless router's queue (the packet being sent is not
    /// counted, as in `max_backlog`), under the names of the `queues` table.
    fn sample_queues(&mut self, now: Time) {
        let t_s = to_secs(now);
        let net = &self.net;
        let channels = net.channels.iter().map(|c| (&c.name, c.queue.len()));
        let radios = net.wireless.radios.iter().map(|r| (&r.name, r.ifq.len()));
        let routers = net.routers.list.iter().map(|r| (&r.name, r.ifq.len()));
        let q = &mut self.traces.queues;
        for (name, packets) in channels.chain(radios).chain(routers) {
            q.queue.push(name.clone());
            q.t_s.push(t_s);
            q.packets.push(packets as u64);
        }
    }
}

#[cfg(test)]
mod tests;
