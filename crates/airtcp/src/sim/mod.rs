//! The engine: integer-nanosecond time, the event queue, random streams, lazy timers, the packet
//! arena and drop reasons. Nothing here knows about protocols.

pub mod event;
pub mod header;
pub mod memory;
pub mod packet;
pub mod rng;
pub mod time;
pub mod timer;

pub use event::{EventClass, EventQueue};
pub use packet::{DropReason, Packet, PacketArena, PacketId};
pub use rng::Rng;
pub use time::Time;
pub use timer::{LazyTimer, TimerFire};

/// Index of a node in the world's node arena.
pub type NodeId = u32;
/// Index of a flow in the world's flow arena.
pub type FlowId = u32;
/// Index of a channel (one direction of a link) in the world's channel arena.
pub type ChannelId = u32;
