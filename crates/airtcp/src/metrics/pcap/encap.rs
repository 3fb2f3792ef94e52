//! airtcp's encapsulation of the headers of its schemes (a shim's packets, a forwarding layer's
//! packets, the packets of a transport behind the transport seam), which have no wire format of
//! their own: an IPv4 packet of protocol 253, one of the two numbers RFC 3692 §2.1 and RFC 4727
//! §7.2 set aside for experiments, whose payload starts with this header (docs/pcap.md, where
//! the layout is drawn for a dissector):
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 1 | version, 1 |
//! | 1 | 1 | kind: 1 a shim's packet, 2 a forwarding layer's packet, 3 a seam transport's packet |
//! | 2 | 1 | L, the length of the scheme's name |
//! | 3 | 1 | M, the number of inner packets |
//! | 4 | 2 | N, the length of the scheme's bytes (big-endian) |
//! | 6 | 2 | flags (big-endian): bit 0, the network marked the packet (congestion) |
//! | 8 | L | the scheme's name, ASCII (`nc`, `cope`, `tcp_rlc`, ...) |
//! | 8 + L | N | the scheme's header as airtcp carries it |
//! | 8 + L + N | ... | M inner packets, each a 2-byte length K (big-endian) and K bytes: the headers of an IPv4 packet, whose total length field gives its full size |
//!
//! The inner packets are the natives a coded frame carries (COPE, BFLY): what a node that
//! decodes the frame recovers. What follows is the packet's payload (zero bytes, not written).

/// The IP protocol number of the encapsulation (RFC 3692 experimentation and testing).
pub const PROTOCOL: u8 = 253;

/// The encapsulation's version.
pub const VERSION: u8 = 1;

/// What kind of packet an encapsulation carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A packet a transport shim sent of its own (`transport::shim`).
    Shim = 1,
    /// A forwarding layer's packet (`net::forwarding`): a control packet, or the carrier of a
    /// coded frame.
    Forwarding = 2,
    /// A packet of a transport behind the transport seam (`transport::seam`).
    Seam = 3,
}

/// Appends the encapsulation header for a packet of `kind` from scheme `name` with the
/// scheme's `bytes` and the congestion `marked` flag; the caller appends `inner` packets after
/// it with [`inner`].
pub fn header(out: &mut Vec<u8>, kind: Kind, name: &str, bytes: &[u8], inner: u8, marked: bool) {
    let name = &name.as_bytes()[..name.len().min(u8::MAX as usize)];
    out.push(VERSION);
    out.push(kind as u8);
    out.push(name.len() as u8);
    out.push(inner);
    out.extend_from_slice(&(bytes.len().min(u16::MAX as usize) as u16).to_be_bytes());
    out.extend_from_slice(&u16::from(marked).to_be_bytes());
    out.extend_from_slice(name);
    out.extend_from_slice(&bytes[..bytes.len().min(u16::MAX as usize)]);
}

/// Appends an inner packet's headers (`packet`, already encoded) with their length.
pub fn inner(out: &mut Vec<u8>, packet: &[u8]) {
    let kept = packet.len().min(u16::MAX as usize);
    out.extend_from_slice(&(kept as u16).to_be_bytes());
    out.extend_from_slice(&packet[..kept]);
}
