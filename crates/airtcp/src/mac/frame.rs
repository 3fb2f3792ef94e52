//! 802.11 frames as the simulator carries them.

use crate::sim::{Packet, PacketId, Time};

/// Radio index.
pub type RadioId = u32;

/// The natives a data frame carries coded together, as an index into the network's unit arena
/// (`net::forwarding::UnitArena`); [`NO_UNIT`] for a frame that carries one packet.
pub type UnitId = u32;

/// A frame that carries one packet, not several natives coded together.
pub const NO_UNIT: UnitId = u32::MAX;

/// Frame types used by the DCF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// A data frame carrying a network packet.
    Data,
    /// Acknowledgement.
    Ack,
    /// Request to send.
    Rts,
    /// Clear to send.
    Cts,
}

/// A frame on the air.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// Type.
    pub kind: FrameKind,
    /// Transmitting radio.
    pub src: RadioId,
    /// Addressed radio; `None` for broadcast.
    pub dst: Option<RadioId>,
    /// Duration field: how long after this frame's end the medium stays reserved (NAV).
    pub nav: Time,
    /// Bytes on the air after the PLCP preamble and header.
    pub bytes: u32,
    /// Rate of the MAC part, bit/s.
    pub rate_bps: u64,
    /// Air time including preamble.
    pub airtime: Time,
    /// The carried packet (data frames): its arena id and a copy of its contents. For a frame
    /// of several natives coded together, the packet the layer made for it (its size is the
    /// frame's network-layer bytes), and the natives in `unit`.
    pub packet: Option<(PacketId, Packet)>,
    /// The natives coded into the frame ([`NO_UNIT`]: none, the frame carries `packet` alone).
    pub unit: UnitId,
    /// The receiver already has this packet (the ACK of an earlier copy was lost): a receiver
    /// acknowledges it again but does not deliver it twice. 802.11 detects this with sequence
    /// numbers and the retry bit; the flag is the exact equivalent.
    pub duplicate: bool,
    /// The Retry bit: a retransmission of a data frame or an RTS (for traces; receivers use
    /// `duplicate`).
    pub retry: bool,
    /// The frame continues an exchange its receiver is part of: a CTS, an ACK, or data sent
    /// after a CTS (per-exchange loss draws nothing for it at the addressee).
    pub continues: bool,
    /// In an ACK or a CTS: the SNR (linear) its sender measured of the frame it answers, for the
    /// rate control of the frame's sender (as ns-3's `SnrTag`); 0 in other frames (single
    /// precision is plenty for a rate decision).
    pub snr: f32,
}
