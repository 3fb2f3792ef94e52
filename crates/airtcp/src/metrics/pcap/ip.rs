//! IPv4 packets with TCP or UDP headers, as captures show them: RFC 791's header (no options),
//! RFC 9293's TCP header with the options airtcp's segments carry, RFC 768's UDP header; every
//! checksum valid (RFC 1071 one's-complement sums, the transport's over the RFC 9293 / 768 pseudo
//! header); the payload zero bytes.

/// An IPv4 address (`a.b.c.d` as `[a, b, c, d]`).
pub type Ipv4 = [u8; 4];

/// The transport header of a packet.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A TCP segment.
    Tcp(TcpFields),
    /// A UDP datagram.
    Udp {
        /// Source port.
        src_port: u16,
        /// Destination port.
        dst_port: u16,
    },
    /// Another protocol's header, written as it is (no checksum): airtcp's encapsulation of
    /// scheme headers ([`super::encap`]).
    Raw {
        /// IP protocol number.
        protocol: u8,
        /// The header's bytes.
        header: Vec<u8>,
    },
}

/// The IPv4 header's fields a packet sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ip<'a> {
    /// Source address.
    pub src: Ipv4,
    /// Destination address.
    pub dst: Ipv4,
    /// The two ECN bits (RFC 3168 §5).
    pub ecn: u8,
    /// Identification field.
    pub id: u16,
    /// Options, already padded to a multiple of 4 bytes (at most 40).
    pub options: &'a [u8],
}

/// The TCP header's fields airtcp knows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TcpFields {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number (bytes, from the connection's initial sequence number).
    pub seq: u32,
    /// Acknowledgement number (with the ACK flag; 0 without).
    pub ack: Option<u32>,
    /// PSH flag.
    pub push: bool,
    /// Advertised window, bytes (scaled down to 16 bits if larger: no window scaling option).
    pub window: u32,
    /// Timestamps option (TSval, TSecr), if the connection uses it.
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks ([left, right) byte ranges), at most 4 (3 beside timestamps, RFC 2018).
    pub sack: Vec<(u32, u32)>,
}

/// IP protocol numbers.
pub const TCP: u8 = 6;
/// UDP's.
pub const UDP: u8 = 17;

/// Appends an IPv4 packet's headers to `out`: `ip`'s header, then `transport`'s, with lengths
/// and checksums for `payload` bytes after them (zero bytes, not written).
pub fn ipv4(out: &mut Vec<u8>, ip: &Ip<'_>, transport: &Transport, payload: usize) {
    debug_assert!(ip.options.len().is_multiple_of(4) && ip.options.len() <= 40);
    let Ip {
        src,
        dst,
        ecn,
        id,
        options,
    } = *ip;
    let start = out.len();
    let (protocol, header) = match transport {
        Transport::Tcp(t) => (TCP, tcp_header(t)),
        Transport::Udp { src_port, dst_port } => {
            let len = (8 + payload).min(u16::MAX as usize) as u16;
            let mut h = Vec::with_capacity(8);
            h.extend_from_slice(&src_port.to_be_bytes());
            h.extend_from_slice(&dst_port.to_be_bytes());
            h.extend_from_slice(&len.to_be_bytes());
            h.extend_from_slice(&[0, 0]);
            (UDP, h)
        }
        Transport::Raw { protocol, header } => (*protocol, header.clone()),
    };
    let ihl = 20 + options.len();
    let total = (ihl + header.len() + payload).min(u16::MAX as usize) as u16;
    out.extend_from_slice(&[0x40 | (ihl / 4) as u8, ecn & 3]);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&id.to_be_bytes());
    // Don't fragment, TTL 64.
    out.extend_from_slice(&[0x40, 0x00, 64, protocol, 0, 0]);
    out.extend_from_slice(&src);
    out.extend_from_slice(&dst);
    out.extend_from_slice(options);
    let sum = checksum(0, &out[start..start + ihl]);
    out[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
    // The transport checksum covers the pseudo header, the header and the (zero) payload.
    if !matches!(protocol, TCP | UDP) {
        out.extend_from_slice(&header);
        return;
    }
    let segment_len = (header.len() + payload) as u32;
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&src);
    pseudo[4..8].copy_from_slice(&dst);
    pseudo[9] = protocol;
    pseudo[10..12].copy_from_slice(&(segment_len as u16).to_be_bytes());
    let mut sum = checksum(partial(0, &pseudo), &header);
    if protocol == UDP && sum == 0 {
        sum = 0xffff; // RFC 768: a computed 0 is sent as all ones.
    }
    let at = if protocol == TCP { 16 } else { 6 };
    let t0 = out.len();
    out.extend_from_slice(&header);
    out[t0 + at..t0 + at + 2].copy_from_slice(&sum.to_be_bytes());
}

/// The TCP header with its options (NOP-padded to 4 bytes), checksum 0.
fn tcp_header(t: &TcpFields) -> Vec<u8> {
    let mut options = Vec::new();
    if let Some((val, ecr)) = t.timestamps {
        options.extend_from_slice(&[1, 1, 8, 10]);
        options.extend_from_slice(&val.to_be_bytes());
        options.extend_from_slice(&ecr.to_be_bytes());
    }
    let room = if t.timestamps.is_some() { 3 } else { 4 };
    let blocks = &t.sack[..t.sack.len().min(room)];
    if !blocks.is_empty() {
        options.extend_from_slice(&[1, 1, 5, (2 + 8 * blocks.len()) as u8]);
        for &(left, right) in blocks {
            options.extend_from_slice(&left.to_be_bytes());
            options.extend_from_slice(&right.to_be_bytes());
        }
    }
    let offset = (20 + options.len()) / 4;
    let mut flags = 0u8;
    if t.ack.is_some() {
        flags |= 0x10;
    }
    if t.push {
        flags |= 0x08;
    }
    let mut h = Vec::with_capacity(20 + options.len());
    h.extend_from_slice(&t.src_port.to_be_bytes());
    h.extend_from_slice(&t.dst_port.to_be_bytes());
    h.extend_from_slice(&t.seq.to_be_bytes());
    h.extend_from_slice(&t.ack.unwrap_or(0).to_be_bytes());
    h.extend_from_slice(&[(offset as u8) << 4, flags]);
    h.extend_from_slice(&(t.window.min(u16::MAX as u32) as u16).to_be_bytes());
    h.extend_from_slice(&[0, 0, 0, 0]);
    h.extend_from_slice(&options);
    h
}

/// The 16-bit one's-complement sum of `data` added to `sum` (not folded).
fn partial(mut sum: u32, data: &[u8]) -> u32 {
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u32::from(*last) << 8;
    }
    sum
}

/// The Internet checksum of `data` after the partial sum `sum` (RFC 1071).
pub fn checksum(sum: u32, data: &[u8]) -> u16 {
    let mut s = partial(sum, data);
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}
