//! The bytes of the file format and the headers, checked field by field and by their checksums.

use super::dot11::{self, Dot11, Kind};
use super::ip::{checksum, ipv4, Ip, TcpFields, Transport};
use super::*;

fn u16be(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn u32be(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[test]
fn the_file_starts_with_a_nanosecond_header_and_records_follow() {
    let mut w = PcapWriter::new(Vec::new(), LINKTYPE_RAW).expect("in memory");
    w.record(3_000_000_007, &[1, 2, 3]).expect("in memory");
    assert_eq!(w.records(), 1);
    let bytes = w.finish().expect("in memory");
    assert_eq!(&bytes[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
    assert_eq!(&bytes[4..8], &[2, 0, 4, 0]);
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 101);
    let rec = &bytes[24..];
    assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 3);
    assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 7);
    assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), 3);
    assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 3);
    assert_eq!(&rec[16..], &[1, 2, 3]);
}

#[test]
fn tcp_segments_carry_their_options_and_valid_checksums() {
    let fields = TcpFields {
        src_port: 49152,
        dst_port: 5001,
        seq: 1_000_001,
        ack: Some(77),
        push: true,
        window: 1 << 20,
        timestamps: Some((1234, 1200)),
        // Four blocks beside timestamps: only three fit (RFC 2018).
        sack: vec![(10, 20), (30, 40), (50, 60), (70, 80)],
    };
    let mut p = Vec::new();
    let ip = Ip {
        src: [10, 0, 0, 1],
        dst: [10, 0, 0, 2],
        ecn: 2,
        id: 9,
        options: &[],
    };
    ipv4(&mut p, &ip, &Transport::Tcp(fields), 1448);
    // IPv4: 20 bytes, total length, the header's checksum sums to zero.
    assert_eq!(p[0], 0x45);
    assert_eq!(p[1], 2, "ECN bits");
    let tcp_len = 20 + 12 + 4 + 24;
    assert_eq!(u16be(&p, 2) as usize, 20 + tcp_len + 1448);
    assert_eq!(p[9], 6);
    assert_eq!(checksum(0, &p[..20]), 0);
    // TCP: offset 15 words, ACK|PSH, window capped to 16 bits.
    let t = &p[20..];
    assert_eq!(u32be(t, 4), 1_000_001);
    assert_eq!(u32be(t, 8), 77);
    assert_eq!(t[12] >> 4, 15);
    assert_eq!(t[13], 0x18);
    assert_eq!(u16be(t, 14), u16::MAX);
    assert_eq!(&t[20..24], &[1, 1, 8, 10]);
    assert_eq!(u32be(t, 24), 1234);
    assert_eq!(&t[32..36], &[1, 1, 5, 26]);
    assert_eq!((u32be(t, 36), u32be(t, 40)), (10, 20));
    assert_eq!((u32be(t, 52), u32be(t, 56)), (50, 60));
    // The payload is not written; the transport checksum over pseudo header + segment (with its
    // zero payload) sums to zero.
    assert_eq!(t.len(), tcp_len);
    let mut pseudo = vec![10, 0, 0, 1, 10, 0, 0, 2, 0, 6];
    pseudo.extend_from_slice(&((tcp_len + 1448) as u16).to_be_bytes());
    pseudo.extend_from_slice(t);
    pseudo.resize(pseudo.len() + 1448, 0);
    assert_eq!(checksum(0, &pseudo), 0);
}

#[test]
fn udp_datagrams_have_their_length_and_checksum() {
    let mut p = Vec::new();
    let udp = Transport::Udp {
        src_port: 7,
        dst_port: 9,
    };
    let ip = Ip {
        src: [10, 0, 0, 3],
        dst: [10, 0, 0, 4],
        ecn: 0,
        id: 1,
        options: &[],
    };
    ipv4(&mut p, &ip, &udp, 100);
    assert_eq!(p.len(), 20 + 8);
    assert_eq!(u16be(&p, 2), 128);
    assert_eq!(p[9], 17);
    assert_eq!(u16be(&p, 24), 108);
    let mut pseudo = vec![10, 0, 0, 3, 10, 0, 0, 4, 0, 17, 0, 108];
    pseudo.extend_from_slice(&p[20..]);
    pseudo.resize(pseudo.len() + 100, 0);
    assert_eq!(checksum(0, &pseudo), 0);
}

#[test]
fn dot11_frames_have_their_lengths_and_fields() {
    let base = Dot11 {
        kind: Kind::Data,
        src: 0x0102,
        dst: Some(3),
        duration_us: 44,
        seq: 4097,
        retry: true,
        rate_bps: 54_000_000,
        freq_mhz: 5180,
        ofdm: true,
        signal_dbm: Some(-60),
    };
    let mut b = Vec::new();
    dot11::frame(&mut b, &base);
    assert_eq!(u16::from_le_bytes([b[2], b[3]]), 15, "radiotap length");
    assert_eq!(b[9], 108, "54 Mbps in 500 kbit/s units");
    assert_eq!(u16::from_le_bytes([b[10], b[11]]), 5180);
    assert_eq!(b[14] as i8, -60);
    let mac = &b[15..];
    assert_eq!(mac.len(), 24 + 8, "header and LLC/SNAP");
    assert_eq!(&mac[0..2], &[0x08, 0x08], "data, retry");
    assert_eq!(&mac[4..10], &dot11::address(3));
    assert_eq!(&mac[10..16], &[2, 0, 0, 0, 1, 2]);
    assert_eq!(
        u16::from_le_bytes([mac[22], mac[23]]) >> 4,
        1,
        "sequence number mod 4096"
    );
    assert_eq!(&mac[24..32], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]);
    for (kind, len, fc) in [
        (Kind::Ack, 10, 0xd4),
        (Kind::Cts, 10, 0xc4),
        (Kind::Rts, 16, 0xb4),
    ] {
        let mut b = Vec::new();
        dot11::frame(
            &mut b,
            &Dot11 {
                kind,
                signal_dbm: None,
                ..base
            },
        );
        assert_eq!(u16::from_le_bytes([b[2], b[3]]), 14);
        assert_eq!(b.len() - 14, len, "{kind:?}");
        assert_eq!(b[14], fc);
    }
}
