//! TCP, segment-granular: sequence numbers count segments of `mss` payload bytes (the last
//! segment of a finite transfer may be shorter). Connection set-up and tear-down are not modelled;
//! the papers measure long-lived transfers and ns-2's one-way TCP agents do the same.
//!
//! - [`sender`]: windows, RFC 5681 slow start / congestion avoidance via [`cc`], loss recovery
//!   (ns-2 Reno, RFC 6582 NewReno, RFC 6675 SACK), RFC 6298 retransmission timer.
//! - [`receiver`]: cumulative ACKs, delayed ACKs (RFC 5681 §4.2), SACK blocks (RFC 2018).
//! - [`rtt`]: the RFC 6298 estimator with Karn's rule and exponential backoff.
//! - [`rate`]: delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation), for BBR.
//! - [`prr`]: RFC 9937 Proportional Rate Reduction, the window during fast recovery.
//! - [`pacing`]: spacing transmissions at a rate (BBR's, or Linux's from cwnd and srtt).
//! - [`rack`]: RFC 8985 RACK-TLP, time-based loss detection and the tail loss probe.

pub mod cc;
pub mod config;
pub mod pacing;
pub mod profile;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

#[cfg(test)]
mod tests;

use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::Time;

/// What a TCP endpoint can do to the world around it. The simulator implements it by putting
/// packets into the network and scheduling timer events; tests implement it with a recorder.
pub trait TcpIo {
    /// Current simulated time.
    fn now(&self) -> Time;
    /// Sends a data segment to the peer.
    fn send_data(&mut self, header: DataHeader);
    /// Sends a pure ACK to the peer.
    fn send_ack(&mut self, header: AckHeader);
    /// Arms (`Some`) or cancels (`None`) the endpoint's one timer (RTO at the sender, delayed ACK
    /// at the receiver).
    fn set_timer(&mut self, deadline: Option<Time>);
    /// The sender's window, `min(cwnd, rwnd)` in whole segments, told just before each
    /// [`send_data`](Self::send_data) for a layer below that sizes anything by it (the NC layer's
    /// blocks). Ignored by default.
    fn window_hint(&mut self, _segments: u64) {}
}
