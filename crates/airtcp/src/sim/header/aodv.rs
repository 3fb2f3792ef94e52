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

impl AodvMsg {
    /// Appends the message as RFC 3561 §5.1-5.3 lays it out (the UDP payload, `size() - 28`
    /// bytes), each node's address from `address`: for a capture (`metrics::pcap`), which
    /// Wireshark's AODV dissector reads. Flags airtcp does not model (J, R, G, D; A) are 0; a
    /// lifetime is in milliseconds.
    pub fn write_bytes(&self, out: &mut Vec<u8>, address: impl Fn(NodeId) -> [u8; 4]) {
        match *self {
            AodvMsg::Rreq {
                orig,
                orig_seq,
                id,
                dst,
                dst_seq,
                unknown_seq,
                hops,
                ..
            } => {
                out.extend_from_slice(&[1, if unknown_seq { 0x08 } else { 0 }, 0, hops]);
                out.extend_from_slice(&id.to_be_bytes());
                out.extend_from_slice(&address(dst));
                out.extend_from_slice(&dst_seq.to_be_bytes());
                out.extend_from_slice(&address(orig));
                out.extend_from_slice(&orig_seq.to_be_bytes());
            }
            AodvMsg::Rrep {
                orig,
                dst,
                dst_seq,
                hops,
                lifetime,
            } => {
                out.extend_from_slice(&[2, 0, 0, hops]);
                out.extend_from_slice(&address(dst));
                out.extend_from_slice(&dst_seq.to_be_bytes());
                out.extend_from_slice(&address(orig));
                let ms = (lifetime / 1_000_000).min(u32::MAX as u64) as u32;
                out.extend_from_slice(&ms.to_be_bytes());
            }
            AodvMsg::Rerr { count, unreachable } => {
                out.extend_from_slice(&[3, 0, 0, count]);
                for &(node, seq) in &unreachable[..(count as usize).min(RERR_MAX)] {
                    out.extend_from_slice(&address(node));
                    out.extend_from_slice(&seq.to_be_bytes());
                }
            }
        }
    }
}
