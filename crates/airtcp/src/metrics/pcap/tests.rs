//! The bytes of the file format and the headers, checked field by field and by their checksums.

use super::dot11::{self, AmpduStatus, Dot11, Kind, Mcs, Phy};
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
        phy: Phy::Ofdm,
        freq_mhz: 5180,
        ghz5: true,
        signal_dbm: Some(-60),
        ampdu: None,
    };
    let mut b = Vec::new();
    dot11::frame(&mut b, &base);
    assert_eq!(u16::from_le_bytes([b[2], b[3]]), 15, "radiotap length");
    assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()), 0b10_1110);
    assert_eq!(b[9], 108, "54 Mbps in 500 kbit/s units");
    assert_eq!(u16::from_le_bytes([b[10], b[11]]), 5180);
    assert_eq!(u16::from_le_bytes([b[12], b[13]]), 0x0140, "OFDM, 5 GHz");
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

/// An HT frame as its radiotap header has it: (length, presence bits, the fields after the
/// channel).
fn radiotap(f: &Dot11) -> (usize, u32, Vec<u8>) {
    let mut b = Vec::new();
    dot11::frame(&mut b, f);
    let len = u16::from_le_bytes([b[2], b[3]]) as usize;
    let present = u32::from_le_bytes(b[4..8].try_into().unwrap());
    (len, present, b[..len].to_vec())
}

fn ht_frame() -> Dot11 {
    Dot11 {
        kind: Kind::QosData,
        src: 1,
        dst: Some(2),
        duration_us: 32,
        seq: 4095 + 7,
        retry: false,
        rate_bps: 72_200_000,
        phy: Phy::Ht(Mcs {
            index: 7,
            bw40: false,
            short_gi: true,
        }),
        freq_mhz: 5180,
        ghz5: true,
        signal_dbm: None,
        ampdu: None,
    }
}

#[test]
fn ht_frames_carry_the_mcs_field_and_no_rate() {
    // Sent: flags at 8, padding at 9 (no Rate), channel at 10-13 (aligned to 2), MCS at 14-16
    // (3 bytes aligned to 1): 17 bytes.
    let (len, present, b) = radiotap(&ht_frame());
    assert_eq!(len, 17);
    assert_eq!(
        present,
        (1 << 1) | (1 << 3) | (1 << 19),
        "flags, channel, MCS"
    );
    assert_eq!((b[8], b[9]), (0, 0), "no flags, then padding");
    assert_eq!(u16::from_le_bytes([b[10], b[11]]), 5180);
    assert_eq!(u16::from_le_bytes([b[12], b[13]]), 0x0140, "OFDM, 5 GHz");
    assert_eq!(
        &b[14..17],
        &[0x1f, 0x04, 7],
        "known: bandwidth, MCS, GI, format, FEC; 20 MHz, short GI; MCS 7"
    );
    // Received: the signal at 14, MCS at 15-17; 40 MHz, long GI; 2.4 GHz: dynamic CCK-OFDM.
    let f = Dot11 {
        signal_dbm: Some(-70),
        phy: Phy::Ht(Mcs {
            index: 3,
            bw40: true,
            short_gi: false,
        }),
        freq_mhz: 2412,
        ghz5: false,
        ..ht_frame()
    };
    let (len, present, b) = radiotap(&f);
    assert_eq!(len, 18);
    assert_eq!(present, (1 << 1) | (1 << 3) | (1 << 5) | (1 << 19));
    assert_eq!(u16::from_le_bytes([b[10], b[11]]), 2412);
    assert_eq!(
        u16::from_le_bytes([b[12], b[13]]),
        0x0480,
        "dynamic CCK-OFDM, 2 GHz"
    );
    assert_eq!(b[14] as i8, -70);
    assert_eq!(&b[15..18], &[0x1f, 0x01, 3]);
    // A non-HT frame of the same radio: the Rate field, OFDM + 2 GHz.
    let f = Dot11 {
        kind: Kind::Ack,
        rate_bps: 24_000_000,
        phy: Phy::Ofdm,
        ..f
    };
    let (len, present, b) = radiotap(&f);
    assert_eq!((len, present), (15, 0b10_1110));
    assert_eq!(b[9], 48);
    assert_eq!(u16::from_le_bytes([b[12], b[13]]), 0x00c0, "OFDM, 2 GHz");
    // 802.11b keeps CCK + 2 GHz.
    let f = Dot11 {
        phy: Phy::Dsss,
        ..f
    };
    assert_eq!(
        u16::from_le_bytes([radiotap(&f).2[12], radiotap(&f).2[13]]),
        0x00a0
    );
}

#[test]
fn mpdus_carry_the_ampdu_status_aligned_to_four() {
    // Sent: MCS ends at 17; the A-MPDU status is aligned to 4, at 20-27: 28 bytes.
    let sent = Dot11 {
        ampdu: Some(AmpduStatus {
            reference: 0x0102_0304,
            last: false,
        }),
        ..ht_frame()
    };
    let (len, present, b) = radiotap(&sent);
    assert_eq!(len, 28);
    assert_eq!(present, (1 << 1) | (1 << 3) | (1 << 19) | (1 << 20));
    assert_eq!(&b[17..20], &[0, 0, 0], "padding");
    assert_eq!(
        u32::from_le_bytes(b[20..24].try_into().unwrap()),
        0x0102_0304
    );
    assert_eq!(
        u16::from_le_bytes([b[24], b[25]]),
        0x0004,
        "last subframe known"
    );
    assert_eq!(&b[26..28], &[0, 0], "delimiter CRC, reserved");
    // Received, the last MPDU: MCS ends at 18, the status at 20 again.
    let last = Dot11 {
        signal_dbm: Some(-50),
        ampdu: Some(AmpduStatus {
            reference: 9,
            last: true,
        }),
        ..sent
    };
    let (len, _, b) = radiotap(&last);
    assert_eq!(len, 28);
    assert_eq!(&b[18..20], &[0, 0]);
    assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 9);
    assert_eq!(
        u16::from_le_bytes([b[24], b[25]]),
        0x000c,
        "known, and the last"
    );
    // A non-HT MPDU (no MCS field): the status after the channel, aligned to 4 at 16.
    let plain = Dot11 {
        phy: Phy::Ofdm,
        signal_dbm: None,
        ..sent
    };
    let (len, present, _) = radiotap(&plain);
    assert_eq!((len, present), (24, 0b1110 | (1 << 20)));
}

#[test]
fn qos_data_has_the_qos_control_field_and_the_agreement_s_number() {
    let f = Dot11 {
        retry: true,
        ..ht_frame()
    };
    let mut b = Vec::new();
    dot11::frame(&mut b, &f);
    let mac = &b[17..];
    assert_eq!(mac.len(), 26 + 8, "QoS data header and LLC/SNAP");
    assert_eq!(&mac[0..2], &[0x88, 0x08], "QoS data, retry");
    assert_eq!(u16::from_le_bytes([mac[2], mac[3]]), 32);
    assert_eq!(&mac[4..10], &dot11::address(2));
    assert_eq!(&mac[10..16], &dot11::address(1));
    assert_eq!(
        u16::from_le_bytes([mac[22], mac[23]]),
        6 << 4,
        "4102 mod 4096"
    );
    assert_eq!(&mac[24..26], &[0, 0], "TID 0, normal ack");
    assert_eq!(&mac[26..34], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]);
}

#[test]
fn channels_map_to_their_band() {
    assert_eq!(dot11::channel_mhz(true, 36), 5180);
    assert_eq!(dot11::channel_mhz(false, 1), 2412);
    assert_eq!(dot11::channel_mhz(false, 14), 2484);
}

mod packets {
    use super::super::encap;
    use super::super::packet::{address, Encoder, FlowWire, RECEIVER_PORT, STAMP_OPTION};
    use super::{u16be, u32be};
    use crate::sim::header::shim::ShimWriter;
    use crate::sim::header::tcp::{AckHeader, DataHeader, SackBlock};
    use crate::sim::packet::Header;
    use crate::sim::Packet;

    fn encoder() -> Encoder {
        Encoder {
            flows: vec![FlowWire {
                mss: 1000,
                total: Some(2500),
                timestamps: true,
                scheme: "nc",
            }],
            layer: "cope",
        }
    }

    fn packet(header: Header, size: u32) -> Packet {
        let mut p = Packet::new(0, 0, 3, size, 7_000_000, header);
        p.uid = 0x1_0005;
        p
    }

    #[test]
    fn segments_count_bytes_from_one_and_the_last_is_short() {
        let e = encoder();
        let mut out = Vec::new();
        let seg = |seq, len| {
            Header::TcpData(DataHeader {
                seq,
                len,
                last: seq == 2,
                retransmission: false,
            })
        };
        let len = e.packet(&mut out, &packet(seg(1, 1000), 1052), &[]);
        assert_eq!(len, 1052, "IP + TCP + timestamps + payload: airtcp's size");
        assert_eq!(&out[12..20], &[10, 0, 0, 1, 10, 0, 0, 4]);
        assert_eq!(u16be(&out, 4), 5, "identification: the packet's number");
        let t = &out[20..];
        assert_eq!((u16be(t, 0), u16be(t, 2)), (49152, RECEIVER_PORT));
        assert_eq!(u32be(t, 4), 1001);
        assert_eq!(u32be(t, 8), 1, "ACK 1: nothing flows back");
        assert_eq!(u32be(t, 24), 7, "TSval: the creation time in ms");
        out.clear();
        e.packet(&mut out, &packet(seg(2, 500), 552), &[]);
        assert_eq!(u32be(&out[20..], 4), 2001);
        assert_eq!(u16be(&out, 2), 552);
    }

    #[test]
    fn acks_and_sack_blocks_stop_at_the_end_of_the_transfer() {
        let mut ack = AckHeader::cumulative(1);
        ack.sack[0] = SackBlock { start: 2, end: 3 };
        ack.n_sack = 1;
        let mut out = Vec::new();
        let mut p = packet(Header::TcpAck(ack), 52);
        (p.src, p.dst) = (3, 0);
        encoder().packet(&mut out, &p, &[]);
        let t = &out[20..];
        assert_eq!((u16be(t, 0), u16be(t, 2)), (RECEIVER_PORT, 49152));
        assert_eq!(u32be(t, 8), 1001);
        // Timestamps (12 bytes with their NOPs), then SACK: kind 5, one block.
        assert_eq!(&t[32..36], &[1, 1, 5, 10]);
        assert_eq!((u32be(t, 36), u32be(t, 40)), (2001, 2501));
    }

    #[test]
    fn per_hop_numbers_ride_in_an_ip_option() {
        let mut p = packet(Header::Udp { seq: 0, len: 100 }, 128);
        (p.link_seq, p.layer_seq) = (9, 0x0102);
        let mut out = Vec::new();
        let len = encoder().packet(&mut out, &p, &[]);
        assert_eq!(out[0], 0x47, "IHL 7");
        assert_eq!(&out[20..28], &[STAMP_OPTION, 6, 9, 0, 1, 2, 0, 0]);
        assert_eq!(super::checksum(0, &out[..28]), 0);
        assert_eq!(out[9], 17);
        assert_eq!(len, 28 + 8 + 100);
    }

    #[test]
    fn scheme_packets_are_encapsulated_with_their_natives() {
        let e = encoder();
        let mut w = ShimWriter::new();
        w.u8(0xab).u32(7);
        let mut shim = w.finish();
        shim.mark_congestion();
        let mut out = Vec::new();
        let len = e.packet(&mut out, &packet(Header::Shim(shim), 300), &[]);
        assert_eq!(len, 300);
        assert_eq!(out[9], encap::PROTOCOL);
        assert_eq!(out[1] & 3, 3, "CE: the network marked it");
        let b = &out[20..];
        assert_eq!(&b[..8], &[1, 1, 2, 0, 0, 32, 0, 1]);
        assert_eq!(&b[8..10], b"nc");
        assert_eq!(&b[10..15], &[0xab, 7, 0, 0, 0]);

        let native = packet(Header::Udp { seq: 1, len: 400 }, 428);
        let carrier = Packet::new(u32::MAX, 1, 2, 900, 0, Header::Forwarding(w.finish()));
        out.clear();
        e.packet(&mut out, &carrier, &[native, native]);
        assert_eq!(&out[12..20], &[10, 0, 0, 2, 10, 0, 0, 3]);
        let b = &out[20..];
        assert_eq!(&b[..4], &[1, 2, 4, 2], "a forwarding layer's, 2 natives");
        assert_eq!(&b[8..12], b"cope");
        let first = 12 + 32;
        assert_eq!(u16be(b, first), 28);
        let inner = &b[first + 2..first + 30];
        assert_eq!(u16be(inner, 2), 428);
        assert_eq!(&inner[12..20], &[10, 0, 0, 1, 10, 0, 0, 4]);
    }

    #[test]
    fn addresses_number_nodes_from_one() {
        assert_eq!(address(0), [10, 0, 0, 1]);
        assert_eq!(address(255), [10, 0, 1, 0]);
        assert_eq!(address(u32::MAX), [255; 4]);
    }
}
