//! BFLY's two-hop codes inside the COPE layer (Omiwade, Zheng & Hua, "Butterflies in the mesh:
//! lightweight localized wireless network coding", NetCod 2008; paper 001 §VII; spec 001 §2.4).
//! The layer (`mod.rs`) sends and receives the frames; this file holds what is BFLY's own:
//!
//! - *The decision* ([`pairable`]): at a coder i, natives a and b pair when they go to the same
//!   next hop j and on to different hops d_a != d_b after it, d_a hears b's previous hop and d_b
//!   hears a's (each overheard the other's native on its way to i). From the two-hop topology
//!   (the radios' decode-range neighbours) and the packets' routes (the static routes the layer
//!   forwards on, read at j), not from reception reports [B; I: the exact steady state of BFLY's
//!   neighbour-list messages]. A native i originated was never on the air, so nobody overheard
//!   it. The coder tries BFLY's pair for its head first, then COPE's one-hop codes [I].
//! - *The relay j* cannot decode a XOR b: it takes both as one in-transit unit
//!   ([`PendingPair`] until the framework has made its copies), keeps them in one queue slot,
//!   never codes them with anything else, never adds them to its pool, and forwards the XOR
//!   unchanged: one frame listing a for d_a and b for d_b, MAC-unicast to d_a while d_b
//!   overhears. Each decodes with the native it overheard, as a COPE next hop does.
//! - *Recovery* (the paper has none [I], [`super::Recovery`]): with `coder_ack`, i keeps a and b
//!   until d_a and d_b acknowledge them. Their COPE ACKs go to j, which then owes i an ACK for
//!   the sequence numbers i gave them (an ACK block in j's next header: "relayed by j"); i's
//!   deadline is 2 Ta, after which it sends each again uncoded. j's own copy, unacknowledged
//!   after Ta, is released without a retransmission of its own (the coder still holds the
//!   original). With `none`, each hop's MAC ACK settles the pair and a native its decoder
//!   cannot decode is lost.

use super::node::CopeNode;
use super::NativeMeta;
use crate::coding::bfly_rule::{self, RoutedNative};
use crate::sim::{NodeId, PacketId};

/// "No such node": a native whose next hop is its destination has no hop after it.
pub(super) const NO_NODE: NodeId = NodeId::MAX;

/// Whether natives `a` and `b` (arena slots) at `coder` travel as one BFLY two-hop code.
pub(super) fn pairable(
    nodes: &[CopeNode],
    meta: &[NativeMeta],
    coder: NodeId,
    a: u64,
    b: u64,
) -> bool {
    let routed = |id: u64| {
        let m = &meta[id as usize];
        RoutedNative {
            id,
            previous: m.previous,
            next: m.next_hop,
            after_next: (m.after_next != NO_NODE).then_some(m.after_next),
        }
    };
    let mut hears = |talker: NodeId, listener: NodeId| {
        talker != coder && nodes[listener as usize].neighbour_index(talker).is_some()
    };
    bfly_rule::pairable(&routed(a), &routed(b), &mut hears)
}

/// A XOR of two natives a relay took, while the framework makes the relay's copies of them
/// (they reach the layer one by one, right after the frame's hook returns).
#[derive(Debug, Clone, Copy)]
pub(super) struct PendingPair {
    /// The relay.
    pub(super) node: NodeId,
    /// The coder the natives came from (whom their ACKs are relayed to).
    pub(super) coder: NodeId,
    /// The natives' uids.
    pub(super) uids: [u64; 2],
    /// The sequence numbers the coder gave them (`NO_SEQ`: settled by the MAC).
    pub(super) seqs: [u32; 2],
    /// The relay's copies, as they arrive.
    pub(super) ids: [Option<PacketId>; 2],
}

impl PendingPair {
    /// Which of the two natives `uid` is, if this pair waits for it at `node`.
    pub(super) fn slot_of(&self, node: NodeId, uid: u64) -> Option<usize> {
        if self.node != node {
            return None;
        }
        (0..2).find(|&k| self.uids[k] == uid && self.ids[k].is_none())
    }

    /// Both copies, once both arrived.
    pub(super) fn both(&self) -> Option<(PacketId, PacketId)> {
        Some((self.ids[0]?, self.ids[1]?))
    }
}
