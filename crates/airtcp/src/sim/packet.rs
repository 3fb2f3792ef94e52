//! Packets and the arena that owns them.
//!
//! A packet is created once by its source, lives in the arena while it is queued or on a link,
//! and is freed when it is delivered or dropped. Queues and events carry the 4-byte
//! [`PacketId`]; slots are recycled through a free list, so after warm-up no packet allocates.

use super::header::aodv::AodvMsg;
use super::header::rlc::{Priority, RlcData, RlcFeedback};
use super::header::shim::ShimHeader;
use super::header::tcp::{AckHeader, DataHeader};

use super::time::Time;
use super::{FlowId, NodeId};

/// `Packet::path` of a packet that follows no path (`net::flow_paths`): the routing service
/// routes it.
pub const NO_PATH: u8 = u8::MAX;

/// Index of a live packet in the [`PacketArena`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PacketId(pub u32);

/// Protocol header carried by a packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Header {
    /// A TCP segment carrying data (sender -> receiver).
    TcpData(DataHeader),
    /// A pure TCP acknowledgement (receiver -> sender).
    TcpAck(AckHeader),
    /// A TCP-RLC data frame or coded packet (sender -> receiver).
    RlcData(RlcData),
    /// A TCP-RLC feedback (receiver -> sender).
    RlcFeedback(RlcFeedback),
    /// A UDP datagram with its per-flow sequence number and payload length.
    Udp {
        /// Sequence number of the datagram within its flow.
        seq: u64,
        /// Payload bytes.
        len: u32,
    },
    /// A control message of the on-demand routing protocol, AODV (sent one hop at a time).
    RoutingControl(AodvMsg),
    /// A control packet of the forwarding layer's (`net::forwarding`), whose header only the
    /// layer reads (opaque bytes, as a shim's are: `header::shim`).
    Forwarding(ShimHeader),
    /// A packet of the shim between a flow's transport and the network (`transport::shim`),
    /// whose header only the shim reads.
    Shim(ShimHeader),
}

/// A data packet's place in a coded block and its service class, for the routers that schedule
/// by them (`net::forwarding`'s priority pairs): high before low, and the block it codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockTag {
    /// Whether the packet is served before every low one (a data frame or a repair).
    pub high: bool,
    /// First frame of the packet's block.
    pub block_start: u64,
    /// Frames in the block.
    pub block_size: u32,
}

impl Header {
    /// The packet's [`BlockTag`], if it is a data packet of a block-coded transport (today
    /// TCP-RLC's).
    pub fn block_tag(&self) -> Option<BlockTag> {
        match self {
            Header::RlcData(h) => Some(BlockTag {
                high: h.priority == Priority::High,
                block_start: h.block_start,
                block_size: h.block_size,
            }),
            _ => None,
        }
    }
}

impl Header {
    /// The bytes of a header of a transport behind the transport seam (today TCP-RLC's data and
    /// feedback), appended to `out` for a capture (`metrics::pcap`); false, and nothing
    /// appended, for every other header.
    pub fn write_seam_bytes(&self, out: &mut Vec<u8>) -> bool {
        match self {
            Header::RlcData(h) => h.write_bytes(out),
            Header::RlcFeedback(h) => h.write_bytes(out),
            _ => return false,
        }
        true
    }
}

// Every packet holds its header inline, so the largest variant sets the size of every packet
// (and packets are copied between the arena, queues and MACs): a shim's header must not be the
// one that grows it. TCP's ACK, with its SACK blocks, is the largest.
const _: () = assert!(std::mem::size_of::<ShimHeader>() <= std::mem::size_of::<AckHeader>());
const _: () = assert!(std::mem::size_of::<RlcData>() <= std::mem::size_of::<AckHeader>());
const _: () = assert!(std::mem::size_of::<RlcFeedback>() <= std::mem::size_of::<AckHeader>());

/// A packet in the network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    /// Unique number in the run (creation order).
    pub uid: u64,
    /// Flow it belongs to.
    pub flow: FlowId,
    /// Node that created it.
    pub src: NodeId,
    /// Node it is addressed to.
    pub dst: NodeId,
    /// Neighbour it is being sent to on a shared medium (`NodeId::MAX`: broadcast or unset).
    pub next_hop: NodeId,
    /// Bytes on the wire (payload + headers).
    pub size: u32,
    /// Which of its flow's paths the packet follows (`net::flow_paths`; `NO_PATH`: none, it is
    /// routed). One byte in what was the struct's padding.
    pub path: u8,
    /// A per-link number the forwarding layer stamps at each hop (Horizon's PLID, paper 003
    /// §5.2.1: one byte on the air, numbered per link and flow); 0 when the layer stamps none.
    /// One byte of what was the struct's padding.
    pub link_seq: u8,
    /// A per-flow number the forwarding layer stamps at the packet's first hop and the
    /// destination reads (Horizon's PktID, paper 003 §5.1, which the reorder buffer orders by);
    /// 0 when the layer stamps none. Two bytes of what was the struct's padding.
    pub layer_seq: u16,
    /// Creation time.
    pub created: Time,
    /// Protocol header.
    pub header: Header,
}

// Packets are copied between the arena, queues and MACs: the path byte and the layer's two
// numbers must not make them larger. Without them a packet is its header and 36 bytes of fields
// (five 4-byte ones, two 8-byte ones), padded to 40 (112 bytes with today's 72-byte header); the
// four bytes fill that padding exactly.
const _: () = assert!(std::mem::size_of::<Packet>() == std::mem::size_of::<Header>() + 40);
const _: () = assert!(std::mem::size_of::<Packet>() == 112);

impl Packet {
    /// A new packet of `flow` from `src` to `dst`, not yet numbered (the arena numbers it) and
    /// with no next hop chosen (routing or the MAC sets it; `NodeId::MAX` also means broadcast)
    /// and following no path.
    pub fn new(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        size: u32,
        created: Time,
        header: Header,
    ) -> Self {
        Packet {
            uid: 0,
            flow,
            src,
            dst,
            next_hop: NodeId::MAX,
            size,
            path: NO_PATH,
            link_seq: 0,
            layer_seq: 0,
            created,
            header,
        }
    }
}

/// Why a packet was dropped. The framework, not the queue, counts drops per reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// A queue was full on arrival.
    QueueFull,
    /// The channel corrupted it (random error process).
    ChannelError,
    /// The node had no route to its destination.
    NoRoute,
    /// The MAC gave up after its retry limit.
    RetryLimit,
    /// The node holding it failed.
    NodeDown,
    /// The forwarding layer gave up on it after its own retransmissions, above the MAC's, went
    /// unacknowledged. A layer with such retransmissions may give the reason its own name in the
    /// results (`net::forwarding::Forwarding::drop_name`).
    LayerRetryLimit,
    /// A coded frame reached the native's next hop, which could not decode it, and nobody
    /// keeps the native to send again (BFLY without recovery, `net::forwarding::cope`).
    Undecodable,
    /// It waited in a radio's interface queue longer than the MSDU lifetime
    /// (`radio.msdu_lifetime`).
    Expired,
}

impl DropReason {
    /// All reasons, in reporting order.
    pub const ALL: [DropReason; 8] = [
        DropReason::QueueFull,
        DropReason::ChannelError,
        DropReason::NoRoute,
        DropReason::RetryLimit,
        DropReason::NodeDown,
        DropReason::LayerRetryLimit,
        DropReason::Undecodable,
        DropReason::Expired,
    ];

    /// Stable snake_case name used in results, unless the forwarding layer names the reason
    /// itself.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::ChannelError => "channel_error",
            DropReason::NoRoute => "no_route",
            DropReason::RetryLimit => "retry_limit",
            DropReason::NodeDown => "node_down",
            DropReason::LayerRetryLimit => "layer_retry_limit",
            DropReason::Undecodable => "undecodable",
            DropReason::Expired => "expired",
        }
    }
}

/// Owner of all live packets.
///
/// A freed slot is marked (its `uid` becomes [`PacketArena::FREED`]), so freeing a packet twice
/// is caught: the second time is counted in [`PacketArena::double_frees`] and changes nothing
/// else, which keeps the free list sound and makes the run's conservation check fail instead of
/// two later packets sharing one slot.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u64,
    created: u64,
    retired: u64,
    double_frees: u64,
}

impl PacketArena {
    /// The `uid` a freed slot carries.
    pub const FREED: u64 = u64::MAX;

    /// Stores a new packet; its `uid` is assigned here.
    pub fn insert(&mut self, mut p: Packet) -> PacketId {
        p.uid = self.created;
        self.created += 1;
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                PacketId(i)
            }
            None => {
                self.slots.push(p);
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    /// Stores a copy of a live packet that keeps its `uid` (a native a node decoded from a coded
    /// frame is the same packet as the relay's, which the relay retires): counted as created,
    /// so conservation still balances, but the identity that coding layers key their pools on
    /// survives the hop.
    pub fn insert_copy(&mut self, p: Packet) -> PacketId {
        let uid = p.uid;
        let id = self.insert(p);
        self.slots[id.0 as usize].uid = uid;
        id
    }

    /// The packet behind `id` (must be live).
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    /// Mutable access to the packet behind `id`.
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Frees the slot and returns the packet. Freeing a slot that is already free is counted
    /// (see [`PacketArena::double_frees`]) and otherwise ignored.
    pub fn remove(&mut self, id: PacketId) -> Packet {
        let slot = &mut self.slots[id.0 as usize];
        let p = *slot;
        if p.uid == Self::FREED {
            self.double_frees += 1;
            return p;
        }
        slot.uid = Self::FREED;
        self.live -= 1;
        self.free.push(id.0);
        p
    }

    /// Frees a packet that is neither delivered nor dropped: a copy of it carries on (a native a
    /// relay coded into a frame and each next hop took a copy of, a coded frame's container
    /// that was given up while its natives stay queued). Counted apart, so that packet
    /// conservation reads created = delivered + dropped + retired + alive.
    pub fn retire(&mut self, id: PacketId) -> Packet {
        let before = self.double_frees;
        let p = self.remove(id);
        if self.double_frees == before {
            self.retired += 1;
        }
        p
    }

    /// Packets retired so far ([`PacketArena::retire`]).
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Packets freed a second time (a bug in whoever freed them; the run's conservation check
    /// reports it).
    pub fn double_frees(&self) -> u64 {
        self.double_frees
    }

    /// Packets created so far.
    pub fn created(&self) -> u64 {
        self.created
    }

    /// Packets currently alive (queued or on a link).
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Slots the arena has allocated: the most packets alive at once so far.
    pub fn slots_allocated(&self) -> u64 {
        self.slots.capacity() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet() -> Packet {
        Packet::new(0, 0, 1, 100, 0, Header::Udp { seq: 0, len: 72 })
    }

    #[test]
    fn freeing_twice_is_counted_and_keeps_the_free_list_sound() {
        let mut arena = PacketArena::default();
        let a = arena.insert(packet());
        arena.remove(a);
        arena.remove(a);
        assert_eq!((arena.live(), arena.double_frees()), (0, 1));
        // The slot is handed out once, not twice.
        let b = arena.insert(packet());
        let c = arena.insert(packet());
        assert_ne!(b, c);
        assert_eq!(arena.live(), 2);
    }

    #[test]
    fn retiring_counts_apart_and_only_once() {
        let mut arena = PacketArena::default();
        let a = arena.insert(packet());
        let b = arena.insert(packet());
        arena.retire(a);
        arena.retire(a);
        arena.remove(b);
        assert_eq!(
            (
                arena.created(),
                arena.retired(),
                arena.live(),
                arena.double_frees()
            ),
            (2, 1, 0, 1)
        );
    }
}
