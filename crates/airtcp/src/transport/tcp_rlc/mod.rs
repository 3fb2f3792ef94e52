//! TCP-RLC: TCP with feed-forward random linear coding (Ryu, Bhadra & Shakkottai, "TCP with
//! random linear coding over wireless", Allerton 2009). The sender codes each congestion window
//! as a block, sends its W data frames at high priority and r random linear combinations of the
//! block after each at low priority; a wireless router serves high before low (the low queue a
//! LIFO, `net::forwarding::priority_pairs`), so coded packets fill exactly the capacity the
//! window leaves and replace the frames the channel erases; the receiver acknowledges degrees of
//! freedom (pseudo-ACKs), so the window slides as if nothing were lost when enough coded packets
//! arrive, and W follows AIMD per block.
//!
//! - `sim::header::rlc`: the data-direction and feedback headers (data every layer may carry).
//! - [`source`]: the source controller (blocks, AIMD, repairs, timer).
//! - [`sender`]: the single-path sender (the source and the window's send rule).
//! - [`multipath`]: the multipath sender (the source feeding M path controllers).
//! - [`endpoint`]: either sender behind one face.
//! - [`flow`]: the flow's two endpoints behind the transport seam (`transport::seam`), and its
//!   config's registration there.
//! - [`receiver`]: decoding (exact or counting) and the feedback rules.
//! - [`decode_delay`]: the receiver's measure of how long frames wait for their blocks.
//! - [`rtt`]: the paper's 0.9/0.1 round-trip filter and 3 x srtt timeout.
//! - [`slotted`]: the RTT-slotted model of §II that Theorems 1-3 are proved in, as a Monte Carlo
//!   simulation.
//!
//! Every rule the paper leaves open is marked [I] where it is made, with the spec's number; see
//! docs/tcp_rlc.md.

pub mod config;
pub mod decode_delay;
pub mod endpoint;
pub mod flow;
pub mod multipath;
pub mod receiver;
pub mod rtt;
pub mod sender;
pub mod slotted;
pub mod source;

#[cfg(test)]
mod tests;

use crate::sim::header::rlc::{PathMark, Payload, Priority, RlcData};
use crate::sim::Time;
use source::Block;

/// What a TCP-RLC sender can do to the world around it: the simulator puts packets into the
/// network and schedules timer events; tests record.
pub trait RlcIo {
    /// Current simulated time.
    fn now(&self) -> Time;
    /// Sends one data-direction packet.
    fn send(&mut self, packet: RlcData);
    /// Arms (`Some`) or cancels (`None`) the retransmission timer.
    fn set_timer(&mut self, deadline: Option<Time>);
}

/// Sends one data-direction packet of `block`, stamped now.
fn emit(
    io: &mut impl RlcIo,
    block: Block,
    frame: u64,
    payload: Payload,
    priority: Priority,
    mark: PathMark,
) {
    let sent_at = io.now();
    io.send(RlcData {
        frame,
        payload,
        priority,
        block_start: block.start,
        block_size: block.size,
        sent_at,
        mark,
    });
}
