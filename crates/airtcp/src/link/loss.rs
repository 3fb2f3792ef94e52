//! Packet error processes of a channel, decided when a packet reaches the receiving end (after it
//! has used the link, like ns-3's ReceiveErrorModel).

use std::collections::BTreeMap;

use crate::sim::packet::Header;
use crate::sim::{Packet, Rng};

/// A channel's error process.
#[derive(Debug, Clone)]
pub enum LossProcess {
    /// Error-free.
    None,
    /// Independent errors with probability `per` per packet.
    Bernoulli {
        /// Packet error rate.
        per: f64,
        /// The channel's own random stream.
        rng: Rng,
    },
    /// Loses listed transmissions of TCP data segments: segment number -> losses left.
    Segments(BTreeMap<u64, u32>),
}

impl LossProcess {
    /// Decides whether `packet` is lost.
    pub fn loses(&mut self, packet: &Packet) -> bool {
        match self {
            LossProcess::None => false,
            LossProcess::Bernoulli { per, rng } => rng.bernoulli(*per),
            LossProcess::Segments(left) => match packet.header {
                Header::TcpData(h) => match left.get_mut(&h.seq) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                },
                _ => false,
            },
        }
    }
}
