//! The transport seam: a flow's two endpoints behind one face, so that a transport beside the
//! world's own TCP and UDP is its own folder plus one registration line
//! (`scenario::config::flow::TransportConfig::scheme`). TCP-RLC (paper 004) is the one there
//! today.
//!
//! The world owns the flow's timer, its goodput meter and the network; a transport behind the
//! seam reaches them through [`TransportIo`]: it sends packets from either end, arms one timer,
//! and reports the application data it delivered in order. The world hands it every packet of
//! its flow that reaches the node it was addressed to.
//!
//! TCP and UDP stay built into the world: TCP's segments pass through the shims below it
//! (`transport::shim`) on the loop's hottest path, and UDP has no feedback to route. A transport
//! behind the seam pays one virtual call per packet and per timer, which a flow of a few
//! thousand packets a second does not notice.

use crate::error::ConfigError;
use crate::metrics::results::FlowResult;
use crate::sim::packet::Header;
use crate::sim::{Packet, Time};

/// Which end of the flow a packet leaves from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The flow's source (data direction).
    Source,
    /// The flow's destination (feedback direction).
    Destination,
}

/// What a transport behind the seam can do to the world around it.
pub trait TransportIo {
    /// Current simulated time.
    fn now(&self) -> Time;
    /// Sends a packet of `size` bytes (headers included) from `from` to the other end, on flow
    /// path `path` (`sim::packet::NO_PATH`: the routing service routes it).
    fn send(&mut self, from: End, size: u32, header: Header, path: u8);
    /// Arms (`Some`) or cancels (`None`) the flow's timer.
    fn set_timer(&mut self, deadline: Option<Time>);
    /// `bytes` of the application's data were delivered in order at the destination, now.
    fn delivered(&mut self, bytes: u64);
    /// A finite transfer has been delivered whole (the first call sets the completion time).
    fn completed(&mut self);
}

/// The window of a flow at a trace sample, segments (the `cwnd` table's columns).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowSample {
    /// Congestion window.
    pub cwnd: f64,
    /// Slow-start threshold (0 for a transport without slow start).
    pub ssthresh: f64,
    /// Packets sent and not yet acknowledged.
    pub in_flight: f64,
}

/// A flow's two endpoints, as the world drives them.
pub trait FlowTransport: Send {
    /// The transport's name in packet captures (the encapsulation of its packets,
    /// docs/pcap.md).
    fn name(&self) -> &'static str {
        "transport"
    }

    /// The application starts.
    fn start(&mut self, io: &mut dyn TransportIo);
    /// The application stops handing over new data.
    fn stop(&mut self);
    /// The timer armed through [`TransportIo::set_timer`] expired.
    fn on_timer(&mut self, io: &mut dyn TransportIo);
    /// A packet of this flow reached the node it was addressed to (either end).
    fn on_packet(&mut self, packet: &Packet, io: &mut dyn TransportIo);
    /// Once the run's flow paths are known (before the first event): the flow has `paths` of
    /// them (0 or 1: the routing service routes it). Default: nothing to fit.
    fn fit_to_paths(&mut self, _paths: usize) {}
    /// The window for the cwnd trace (None: the transport has none to trace).
    fn window(&self) -> Option<WindowSample>;
    /// Bytes the endpoints hold beyond their fixed size (state that grows with what the run
    /// does, e.g. blocks awaiting decoding), for the memory budget's check of a run's growth
    /// (`sim::memory`). Called every few thousand events, not per packet.
    fn heap_bytes(&self) -> u64;
    /// The transport's counters into the flow's row of the results (`transport`, packets sent,
    /// retransmissions, ...); `duration` is the run's.
    fn report(&self, row: &mut FlowResult, duration: Time);
}

/// A transport's config block, as the scenario registers it.
pub trait TransportScheme {
    /// The endpoints of a bulk flow of `bytes` (None: unlimited), flow `index` (0-based,
    /// scenario order) of a run with master seed `seed`; `p` is the path of the transport block
    /// (`flows[0].transport`) for the block's own checks.
    fn endpoints(
        &self,
        p: &str,
        bytes: Option<u64>,
        seed: u64,
        index: usize,
    ) -> Result<Box<dyn FlowTransport>, ConfigError>;
}
