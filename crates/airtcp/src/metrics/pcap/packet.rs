//! airtcp's packets as IPv4 packets (docs/pcap.md, "Packets"): what each header becomes.
//!
//! - Addresses: node `n` is 10.a.b.c with a.b.c = n + 1 (node 0 is 10.0.0.1); a broadcast is
//!   255.255.255.255. The identification field is the packet's number in the run (its low 16
//!   bits), the same at every hop, so that one packet can be followed across captures.
//! - TCP: ports from the flow (the sender's 49152 + flow id mod 16384, the receiver's 5001).
//!   airtcp counts in segments; the capture counts bytes: segment k starts at byte 1 + k * MSS
//!   (as after a SYN with initial sequence number 0), the cumulative ACK of k segments is
//!   1 + k * MSS, capped at the end of a finite transfer (whose last segment may be short), and so
//!   are SACK blocks (RFC 2018). Data segments carry ACK 1 (nothing flows back). A flow whose
//!   header has room for it (`header_bytes` >= 52) carries the timestamps option (RFC 7323) with
//!   TSval the packet's creation time in milliseconds and TSecr 0 (airtcp's ACKs echo no
//!   timestamp). The window is 65535 (airtcp's ACKs advertise none). ECN (RFC 3168): Not-ECT,
//!   or CE on a packet the network marked.
//! - UDP: the same ports; AODV's messages are UDP datagrams from and to port 654 with their RFC
//!   3561 bytes.
//! - A forwarding layer's per-hop numbers (`Packet::link_seq`, `Packet::layer_seq`: Horizon's
//!   PLID and PktID) ride in an IPv4 option of the experimental type 0x9E (RFC 4727 §8: copied,
//!   class 0, number 30), so that the TCP inside stays readable: type, length 6, link number,
//!   0, packet number (16 bits), two EOL bytes of padding.
//! - The headers of shims, forwarding layers and seam transports: the encapsulation of
//!   [`super::encap`] (IP protocol 253).
//!
//! Payloads are not written: a record holds the headers and gives the packet's full length.

use super::encap;
use super::ip::{ipv4, Ip, Ipv4, TcpFields, Transport};
use crate::sim::header::tcp::SackBlock;
use crate::sim::packet::Header;
use crate::sim::{NodeId, Packet};

/// What a capture needs to know of a flow to write its packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowWire {
    /// TCP's segment size, bytes (0 for a flow that is not TCP).
    pub mss: u32,
    /// Bytes of a finite transfer (`None`: unlimited).
    pub total: Option<u64>,
    /// Whether TCP's header has room for the timestamps option.
    pub timestamps: bool,
    /// Name of the scheme whose packets the flow's shim or seam transport sends (`""`: none).
    pub scheme: &'static str,
}

/// The sender's port of a flow.
pub const fn sender_port(flow: u32) -> u16 {
    49152 + (flow % 16384) as u16
}
/// The receiver's port.
pub const RECEIVER_PORT: u16 = 5001;
/// The port of the routing protocol's control messages (AODV's, RFC 3561 §11).
pub const ROUTING_CONTROL_PORT: u16 = 654;
/// The IPv4 option of a forwarding layer's per-hop numbers (RFC 4727 experimental, copied).
pub const STAMP_OPTION: u8 = 0x9e;

/// The IPv4 address of node `n`.
pub fn address(n: NodeId) -> Ipv4 {
    if n == NodeId::MAX {
        return [255; 4];
    }
    let [_, a, b, c] = (n.wrapping_add(1)).to_be_bytes();
    [10, a, b, c]
}

/// Writes airtcp's packets as IPv4 headers.
#[derive(Debug, Clone, Default)]
pub struct Encoder {
    /// The flows, by id.
    pub flows: Vec<FlowWire>,
    /// Name of the forwarding layer (for its packets' encapsulation).
    pub layer: &'static str,
}

impl Encoder {
    /// Appends the headers of `p` as an IPv4 packet to `out`; `natives` are the packets coded
    /// into the frame `p` carries (none for a frame of one packet). Returns the packet's full
    /// length (its headers and the payload, which is not written).
    pub fn packet(&self, out: &mut Vec<u8>, p: &Packet, natives: &[Packet]) -> usize {
        let start = out.len();
        let flow = self.flows.get(p.flow as usize);
        let stamp;
        let options: &[u8] = if p.link_seq != 0 || p.layer_seq != 0 {
            let [hi, lo] = p.layer_seq.to_be_bytes();
            stamp = [STAMP_OPTION, 6, p.link_seq, 0, hi, lo, 0, 0];
            &stamp
        } else {
            &[]
        };
        let (from, to) = (address(p.src), address(p.dst));
        let ip = |ecn| Ip {
            src: from,
            dst: to,
            ecn,
            id: p.uid as u16,
            options,
        };
        let (sport, dport) = (sender_port(p.flow), RECEIVER_PORT);
        let ip_bytes = 20 + options.len();
        match &p.header {
            Header::TcpData(h) => {
                let wire = flow.copied().unwrap_or_else(default_wire);
                let fields = TcpFields {
                    src_port: sport,
                    dst_port: dport,
                    seq: wire.byte(h.seq),
                    ack: Some(1),
                    push: false,
                    window: 65535,
                    timestamps: wire.timestamps.then_some((ms(p.created), 0)),
                    sack: Vec::new(),
                };
                ipv4(out, &ip(0), &Transport::Tcp(fields), h.len as usize);
            }
            Header::TcpAck(h) => {
                let wire = flow.copied().unwrap_or_else(default_wire);
                let fields = TcpFields {
                    src_port: dport,
                    dst_port: sport,
                    seq: 1,
                    ack: Some(wire.byte(h.ack)),
                    push: false,
                    window: 65535,
                    timestamps: wire.timestamps.then_some((ms(p.created), 0)),
                    sack: h
                        .sack_blocks()
                        .iter()
                        .map(|&SackBlock { start, end }| (wire.byte(start), wire.byte(end)))
                        .collect(),
                };
                ipv4(out, &ip(0), &Transport::Tcp(fields), 0);
            }
            Header::Udp { len, .. } => {
                let udp = Transport::Udp {
                    src_port: sport,
                    dst_port: dport,
                };
                ipv4(out, &ip(0), &udp, *len as usize);
            }
            Header::RoutingControl(msg) => {
                let mut body = Vec::with_capacity(40);
                msg.write_bytes(&mut body, address);
                out.extend_from_slice(&udp_with_body(&ip(0), &body));
            }
            Header::Shim(h) => {
                let scheme = flow.map_or("", |f| f.scheme);
                let marked = h.congestion_marked();
                let mut body = Vec::with_capacity(48);
                encap::header(&mut body, encap::Kind::Shim, scheme, h.bytes(), 0, marked);
                self.raw(out, &ip(if marked { 3 } else { 0 }), body, p.size, ip_bytes);
            }
            Header::Forwarding(h) => {
                let mut body = Vec::with_capacity(48 + 64 * natives.len());
                let count = natives.len().min(u8::MAX as usize);
                let kind = encap::Kind::Forwarding;
                encap::header(&mut body, kind, self.layer, h.bytes(), count as u8, false);
                let mut inner = Vec::with_capacity(64);
                for n in &natives[..count] {
                    inner.clear();
                    self.packet(&mut inner, n, &[]);
                    encap::inner(&mut body, &inner);
                }
                self.raw(out, &ip(0), body, p.size, ip_bytes);
            }
            other => {
                let mut bytes = Vec::with_capacity(48);
                other.write_seam_bytes(&mut bytes);
                let scheme = flow.map_or("", |f| f.scheme);
                let mut body = Vec::with_capacity(64);
                encap::header(&mut body, encap::Kind::Seam, scheme, &bytes, 0, false);
                self.raw(out, &ip(0), body, p.size, ip_bytes);
            }
        }
        // The packet's full length: the header's total length field.
        let total = u16::from_be_bytes([out[start + 2], out[start + 3]]) as usize;
        total.max(out.len() - start)
    }

    /// An encapsulated packet: `body` after the IP header, padded (in length only) to the
    /// packet's `size` on the wire.
    fn raw(&self, out: &mut Vec<u8>, ip: &Ip<'_>, body: Vec<u8>, size: u32, ip_bytes: usize) {
        let payload = (size as usize).saturating_sub(ip_bytes + body.len());
        let raw = Transport::Raw {
            protocol: encap::PROTOCOL,
            header: body,
        };
        ipv4(out, ip, &raw, payload);
    }
}

/// A flow the encoder has no entry for (a test's, or one added after the capture began).
fn default_wire() -> FlowWire {
    FlowWire {
        mss: 1448,
        total: None,
        timestamps: true,
        scheme: "",
    }
}

impl FlowWire {
    /// The sequence number of the first byte of segment `k` (or the ACK of `k` segments).
    fn byte(&self, k: u64) -> u32 {
        let bytes = k.saturating_mul(u64::from(self.mss));
        let bytes = self.total.map_or(bytes, |t| bytes.min(t));
        bytes.wrapping_add(1) as u32
    }
}

/// A time in whole milliseconds, as a 32-bit timestamp clock.
fn ms(t: crate::sim::Time) -> u32 {
    (t / 1_000_000) as u32
}

/// An IPv4 + UDP packet whose payload `body` is written (AODV's messages).
fn udp_with_body(ip: &Ip<'_>, body: &[u8]) -> Vec<u8> {
    // Build the headers for the body's length, then put the body in and fix the UDP checksum
    // (the headers were summed over a zero payload).
    let mut out = Vec::with_capacity(28 + body.len() + ip.options.len());
    let udp = Transport::Udp {
        src_port: ROUTING_CONTROL_PORT,
        dst_port: ROUTING_CONTROL_PORT,
    };
    ipv4(&mut out, ip, &udp, body.len());
    let at = 20 + ip.options.len();
    out.extend_from_slice(body);
    out[at + 6..at + 8].copy_from_slice(&[0, 0]);
    let mut pseudo = Vec::with_capacity(12 + out.len() - at);
    pseudo.extend_from_slice(&ip.src);
    pseudo.extend_from_slice(&ip.dst);
    pseudo.extend_from_slice(&[0, super::ip::UDP]);
    pseudo.extend_from_slice(&((out.len() - at) as u16).to_be_bytes());
    pseudo.extend_from_slice(&out[at..]);
    let mut sum = super::ip::checksum(0, &pseudo);
    if sum == 0 {
        sum = 0xffff;
    }
    out[at + 6..at + 8].copy_from_slice(&sum.to_be_bytes());
    out
}
