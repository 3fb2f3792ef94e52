//! AODV's control messages as packets carry them (RFC 3561 §5: RREQ, RREP, RERR); the protocol
//! that sends and reads them is `net::aodv`.

use crate::sim::{NodeId, Time};

/// Most unreachable destinations one RERR carries (more are sent in several RERRs).
pub const RERR_MAX: usize = 4;
/// IP + UDP header bytes of a control message.
const IP_UDP: u32 = 28;

/// A control message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AodvMsg {
    /// Route request.
    Rreq {
        /// Originator.
        orig: NodeId,
        /// Originator's sequence number.
        orig_seq: u32,
        /// RREQ ID.
        id: u32,
        /// Destination sought.
        dst: NodeId,
        /// Last known destination sequence number.
        dst_seq: u32,
        /// No sequence number known for the destination (U flag).
        unknown_seq: bool,
        /// Hops travelled.
        hops: u8,
        /// Remaining time to live.
        ttl: u8,
    },
    /// Route reply.
    Rrep {
        /// Originator of the RREQ (where the reply goes).
        orig: NodeId,
        /// Destination the route leads to.
        dst: NodeId,
        /// Destination sequence number.
        dst_seq: u32,
        /// Hops to the destination.
        hops: u8,
        /// Route lifetime.
        lifetime: Time,
    },
    /// Route error.
    Rerr {
        /// Entries used in `unreachable`.
        count: u8,
        /// (destination, its sequence number).
        unreachable: [(NodeId, u32); RERR_MAX],
    },
}

impl AodvMsg {
    /// Bytes on the wire including the IP/UDP header.
    pub fn size(&self) -> u32 {
        IP_UDP
            + match self {
                AodvMsg::Rreq { .. } => 24,
                AodvMsg::Rrep { .. } => 20,
                AodvMsg::Rerr { count, .. } => 4 + 8 * *count as u32,
            }
    }
}
