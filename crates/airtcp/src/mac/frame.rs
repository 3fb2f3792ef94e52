//! 802.11 frames as the simulator carries them.

use crate::sim::{Packet, PacketId, Time};

/// Radio index.
pub type RadioId = u32;

/// The natives a data frame carries coded together, as an index into the network's unit arena
/// (`net::forwarding::UnitArena`); [`NO_UNIT`] for a frame that carries one packet.
pub type UnitId = u32;

/// A frame that carries one packet, not several natives coded together.
pub const NO_UNIT: UnitId = u32::MAX;

/// The sequence number of a frame sent outside a Block Ack agreement (the receiver does not
/// reorder it).
pub const NO_SEQ: u16 = u16::MAX;

/// An MSDU an A-MSDU carries beyond its MPDU's own packet: the packet's arena id and a copy.
pub type Msdu = (PacketId, Packet);

/// One MPDU of an A-MPDU on the air (802.11n aggregation, [`super::block_ack`]).
#[derive(Debug, Clone, Copy)]
pub struct Mpdu {
    /// The packet's arena id and a copy of it.
    pub id: PacketId,
    /// The copy.
    pub packet: Packet,
    /// Its sequence number.
    pub seq: u16,
    /// Its bytes: MAC header, the packet and the FCS (without the A-MPDU delimiter).
    pub bytes: u32,
    /// A retransmission (the Retry bit).
    pub retry: bool,
    /// MSDUs it carries beyond its packet, as an A-MSDU (0: a plain MPDU); they follow in the
    /// PPDU's list of extra MSDUs, in MPDU order.
    pub extra: u16,
}

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
    /// Compressed Block Ack (802.11n): answers an A-MPDU or a BlockAckReq.
    BlockAck,
    /// Compressed BlockAckReq (802.11n): asks for a Block Ack, and moves the recipient's window.
    BlockAckReq,
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
    /// Under a Block Ack agreement (802.11n aggregation): a data frame's sequence number, the
    /// first of an A-MPDU's, a BlockAckReq's or a Block Ack's starting sequence number;
    /// [`NO_SEQ`] outside one.
    pub seq: u16,
    /// An A-MPDU: how many MPDUs it carries (the medium keeps them with the frame); 0 for a
    /// frame that is not one.
    pub mpdus: u8,
    /// A Block Ack's bitmap: bit k says the recipient has MPDU `seq + k`.
    pub bitmap: u64,
}

impl Frame {
    /// A frame of `kind` from `src` to `dst` that carries nothing, outside any Block Ack
    /// agreement: the fields a frame's maker does not set.
    #[inline]
    pub fn new(kind: FrameKind, src: RadioId, dst: Option<RadioId>) -> Frame {
        Frame {
            kind,
            src,
            dst,
            nav: 0,
            bytes: 0,
            rate_bps: 0,
            airtime: 0,
            packet: None,
            unit: NO_UNIT,
            duplicate: false,
            retry: false,
            continues: false,
            snr: 0.0,
            seq: NO_SEQ,
            mpdus: 0,
            bitmap: 0,
        }
    }
}
