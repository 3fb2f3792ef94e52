//! Store-and-forward over the routing service, the forwarding of a plain router: a packet to send
//! on goes to its routed next hop's interface queue (a wired channel's, a radio's, or the base
//! station's per-user downlink queue, each drop-tail FIFO), and a packet without a route is
//! dropped at the node. The layer holds nothing itself; every hook keeps its default.

use super::Forwarding;

/// The plain forwarding layer (see the module header).
#[derive(Debug, Clone, Copy, Default)]
pub struct Fifo;

impl Forwarding for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
}
