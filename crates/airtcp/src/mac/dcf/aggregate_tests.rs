//! A-MPDU exchanges against a scripted world, read as packet traces: what the originator puts on
//! the air, what the recipient hands up and answers.
use super::*;
use crate::mac::block_ack::{AggregationConfig, BLOCK_ACK_BYTES, BLOCK_ACK_REQ_BYTES};
use crate::mac::timing::Timing;
use crate::phy::ht::HtConfig;
use crate::sim::packet::Header;
use crate::sim::time::MICROS;

/// An idle medium, a queue of packets and a record of what the DCF does.
#[derive(Default)]
struct Script {
    now: Time,
    rng: Option<Rng>,
    queue: Vec<Pulled>,
    sent: Vec<(Frame, Vec<Mpdu>)>,
    /// The further MSDUs of each frame's A-MSDUs (empty for frames without).
    sent_msdus: Vec<Vec<Msdu>>,
    timers: [Option<Time>; 3],
    delivered: Vec<u32>,
    /// (packet id, acknowledged) of each outcome reported.
    outcomes: Vec<(u32, bool)>,
    expired: Vec<u32>,
    /// What the next A-MPDU reception holds and which of its MPDUs are decoded.
    rx_mpdus: (Vec<Mpdu>, u64),
    /// The further MSDUs of its A-MSDUs.
    rx_msdus: Vec<Msdu>,
}

impl Script {
    fn new() -> Self {
        Script {
            rng: Some(Rng::stream(1, "ampdu-test")),
            ..Script::default()
        }
    }

    /// Fires timers until the DCF has put one more frame on the air.
    fn next_frame(&mut self, dcf: &mut Dcf) -> (Frame, Vec<Mpdu>) {
        let before = self.sent.len();
        while self.sent.len() == before {
            let (which, at) = [MacTimer::Response, MacTimer::Access]
                .into_iter()
                .find_map(|w| self.timers[w as usize].map(|t| (w, t)))
                .expect("a timer armed");
            self.timers[which as usize] = None;
            self.now = self.now.max(at);
            dcf.on_timer(which, self);
        }
        self.sent.last().cloned().expect("sent")
    }

    /// The frame on the air has ended: the medium is idle again.
    fn end_of(&mut self, dcf: &mut Dcf, frame: &Frame) {
        self.now += frame.airtime;
        dcf.on_phy_idle(self);
    }

    /// `frame` arrives, decoded, and ends now.
    fn hear(&mut self, dcf: &mut Dcf, frame: &Frame) {
        dcf.on_rx(frame, true, self);
        dcf.on_phy_idle(self);
    }
}

impl MacIo for Script {
    fn now(&self) -> Time {
        self.now
    }
    fn rng(&mut self) -> &mut Rng {
        self.rng.as_mut().expect("rng")
    }
    fn phy_busy(&self) -> bool {
        false
    }
    fn phy_idle_since(&self) -> Time {
        self.now
    }
    fn transmit(&mut self, frame: Frame) {
        self.sent.push((frame, Vec::new()));
        self.sent_msdus.push(Vec::new());
    }
    fn transmit_ampdu(&mut self, frame: Frame, mpdus: &[Mpdu], msdus: &[Msdu]) {
        self.sent.push((frame, mpdus.to_vec()));
        self.sent_msdus.push(msdus.to_vec());
    }
    fn received_mpdus(&self, mpdus: &mut Vec<Mpdu>, msdus: &mut Vec<Msdu>) -> u64 {
        mpdus.clone_from(&self.rx_mpdus.0);
        msdus.clone_from(&self.rx_msdus);
        self.rx_mpdus.1
    }
    fn set_timer(&mut self, which: MacTimer, at: Option<Time>) {
        self.timers[which as usize] = at;
    }
    fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }
    fn pull(&mut self) -> Option<Pulled> {
        (!self.queue.is_empty()).then(|| self.queue.remove(0))
    }
    fn pull_for(&mut self, next: crate::sim::NodeId, fits: &dyn Fn(u32) -> bool) -> Option<Pulled> {
        let i = self.queue.iter().position(|p| p.packet.next_hop == next)?;
        fits(self.queue[i].packet.size).then(|| self.queue.remove(i))
    }
    fn deliver(&mut self, frame: &Frame) {
        self.delivered.push(frame.packet.expect("a packet").0 .0);
    }
    fn attempt(&mut self, _next: RadioId, _ok: bool) {}
    fn overheard(&mut self, _frame: &Frame) {}
    fn tx_status(&mut self, sent: Sent, ok: bool, _handed_over: bool) {
        self.outcomes.push((sent.id.0, ok));
    }
    fn expired(&mut self, sent: Sent, _handed_over: bool) {
        self.expired.push(sent.id.0);
    }
}

/// An 802.11n radio at MCS 7 (65 Mbit/s, 20 MHz, long GI) that aggregates.
fn ht_dcf(me: RadioId, lifetime: Option<Time>) -> Dcf {
    ht_dcf_with(me, lifetime, false)
}

fn ht_dcf_with(me: RadioId, lifetime: Option<Time>, rts_cts: bool) -> Dcf {
    ht_dcf_aggregating(me, lifetime, rts_cts, AggregationConfig::default())
}

fn ht_dcf_aggregating(
    me: RadioId,
    lifetime: Option<Time>,
    rts_cts: bool,
    aggregation: AggregationConfig,
) -> Dcf {
    Dcf::new(
        me,
        DcfParams {
            timing: Timing::dot11n(HtConfig::default(), 65_000_000, 6_000_000),
            rts_cts,
            short_retry_limit: 6,
            long_retry_limit: 4,
            mac_overhead: 38,
            profile: MacProfile::Standard,
            rate_control: false,
            aggregation: aggregation.params(),
            lifetime,
        },
    )
}

/// Packet `id` (1000 bytes) for node 1, from the interface queue.
fn queued(id: u32) -> Pulled {
    let mut p = Packet::new(
        0,
        0,
        1,
        1000,
        0,
        Header::Udp {
            seq: u64::from(id),
            len: 1000,
        },
    );
    p.next_hop = 1;
    let mut pulled = Pulled::packet(PacketId(id), p, Some(1));
    pulled.aggregable = true;
    pulled.queued_at = Some(0);
    pulled
}

fn seqs(mpdus: &[Mpdu]) -> Vec<(u16, bool)> {
    mpdus.iter().map(|m| (m.seq, m.retry)).collect()
}

/// The recipient's Block Ack for `ampdu`, with the bitmap from its first sequence number.
fn block_ack(ampdu: &Frame, bitmap: u64) -> Frame {
    Frame {
        bytes: BLOCK_ACK_BYTES,
        seq: ampdu.seq,
        bitmap,
        ..Frame::new(FrameKind::BlockAck, 1, Some(0))
    }
}

#[test]
fn a_lost_mpdu_is_resent_first_in_the_next_a_mpdu() {
    let mut dcf = ht_dcf(0, None);
    let mut io = Script::new();
    io.queue.extend((10..15).map(queued));
    dcf.on_frame_ready(&mut io);
    // t0: A-MPDU [0 1 2 3 4] to radio 1.
    let (ampdu, mpdus) = io.next_frame(&mut dcf);
    assert_eq!(
        (ampdu.kind, ampdu.mpdus, ampdu.seq),
        (FrameKind::Data, 5, 0)
    );
    assert_eq!(
        seqs(&mpdus),
        [(0, false), (1, false), (2, false), (3, false), (4, false)]
    );
    // 5 subframes of 4 + 1038 bytes, each padded to 1044 but the last: 5218 bytes at MCS 7.
    assert_eq!(ampdu.bytes, 4 * 1044 + 1042);
    assert_eq!(ampdu.airtime, (36 + 161 * 4) * MICROS);
    // It reserves SIFS and a Block Ack at 24 Mbit/s (20 us + 3 symbols).
    assert_eq!(ampdu.nav, (16 + 32) * MICROS);
    io.end_of(&mut dcf, &ampdu);
    // t1: Block Ack: 1 missing.
    io.now += 16 * MICROS;
    io.hear(&mut dcf, &block_ack(&ampdu, 0b11101));
    assert_eq!(
        io.outcomes,
        [(10, true), (12, true), (13, true), (14, true)]
    );
    // Two more packets arrive; the next A-MPDU leads with the lost MPDU, marked a retry.
    io.queue.extend([queued(15), queued(16)]);
    let (again, mpdus) = io.next_frame(&mut dcf);
    assert_eq!(seqs(&mpdus), [(1, true), (5, false), (6, false)]);
    assert_eq!((again.seq, again.mpdus, again.retry), (1, 3, true));
    io.end_of(&mut dcf, &again);
    io.hear(&mut dcf, &block_ack(&again, 0b11_1111));
    assert_eq!(io.outcomes.len(), 7);
    assert_eq!(dcf.aggregation_stats().unwrap().mpdus_missed, 1);
}

#[test]
fn a_missed_block_ack_is_followed_by_a_block_ack_req() {
    let mut dcf = ht_dcf(0, None);
    let mut io = Script::new();
    io.queue.extend((0..3).map(queued));
    dcf.on_frame_ready(&mut io);
    let (ampdu, _) = io.next_frame(&mut dcf);
    io.end_of(&mut dcf, &ampdu);
    // No Block Ack: the timeout fires.
    let timeout = io.timers[MacTimer::Timeout as usize].expect("armed");
    io.now = timeout;
    io.timers[MacTimer::Timeout as usize] = None;
    dcf.on_timer(MacTimer::Timeout, &mut io);
    assert!(io.outcomes.is_empty());
    // The next opportunity asks first, from the oldest unacknowledged MPDU, at the control rate.
    let (bar, _) = io.next_frame(&mut dcf);
    assert_eq!(bar.kind, FrameKind::BlockAckReq);
    assert_eq!(
        (bar.seq, bar.bytes, bar.rate_bps),
        (0, BLOCK_ACK_REQ_BYTES, 24_000_000)
    );
    io.end_of(&mut dcf, &bar);
    // The Block Ack says 0 and 2 arrived: only 1 is sent again.
    io.hear(&mut dcf, &block_ack(&bar, 0b101));
    assert_eq!(io.outcomes, [(0, true), (2, true)]);
    let (single, mpdus) = io.next_frame(&mut dcf);
    // A lone MPDU goes as a plain QoS data frame, acknowledged by an ACK.
    assert!(mpdus.is_empty());
    assert_eq!(
        (single.kind, single.seq, single.mpdus, single.retry),
        (FrameKind::Data, 1, 0, true)
    );
    assert_eq!(single.nav, (16 + 28) * MICROS);
    io.end_of(&mut dcf, &single);
    let ack = Frame {
        seq: 1,
        ..Frame::new(FrameKind::Ack, 1, Some(0))
    };
    io.hear(&mut dcf, &ack);
    assert_eq!(io.outcomes.last(), Some(&(1, true)));
    assert_eq!(dcf.packets_held(), 0);
}

#[test]
fn mpdus_end_with_their_lifetime_and_the_recipient_is_told() {
    let mut dcf = ht_dcf(0, Some(500 * 1_000_000));
    let mut io = Script::new();
    io.queue.extend((0..2).map(queued));
    dcf.on_frame_ready(&mut io);
    let (ampdu, _) = io.next_frame(&mut dcf);
    io.end_of(&mut dcf, &ampdu);
    io.hear(&mut dcf, &block_ack(&ampdu, 0b10));
    // MPDU 0 is never acknowledged; it has no retry limit, only its lifetime.
    for _ in 0..20 {
        let (f, _) = io.next_frame(&mut dcf);
        io.end_of(&mut dcf, &f);
        let timeout = io.timers[MacTimer::Timeout as usize].take().expect("armed");
        io.now = timeout;
        dcf.on_timer(MacTimer::Timeout, &mut io);
    }
    assert!(io.expired.is_empty());
    io.now = 501 * 1_000_000;
    // At the next opportunity it is given up, and a BlockAckReq moves the window past it.
    let (bar, _) = io.next_frame(&mut dcf);
    assert_eq!(io.expired, [0]);
    assert_eq!((bar.kind, bar.seq), (FrameKind::BlockAckReq, 2));
}

#[test]
fn the_recipient_hands_packets_up_in_order_and_answers_with_its_bitmap() {
    let mut dcf = ht_dcf(1, None);
    let mut io = Script::new();
    let mpdu = |seq: u16| Mpdu {
        id: PacketId(100 + u32::from(seq)),
        packet: queued(0).packet,
        seq,
        bytes: 1038,
        retry: false,
        extra: 0,
    };
    let ampdu = |first: u16, n: u8| Frame {
        rate_bps: 65_000_000,
        seq: first,
        mpdus: n,
        ..Frame::new(FrameKind::Data, 0, Some(1))
    };
    // A-MPDU [0 1 2 3 4]; MPDU 1 fails its check.
    io.rx_mpdus = ((0..5).map(mpdu).collect(), 0b11101);
    dcf.on_rx(&ampdu(0, 5), true, &mut io);
    assert_eq!(io.delivered, [100], "2-4 wait for 1");
    let (ba, _) = io.next_frame(&mut dcf);
    assert_eq!(
        (ba.kind, ba.seq, ba.bitmap & 0x1f),
        (FrameKind::BlockAck, 0, 0b11101)
    );
    assert_eq!(ba.rate_bps, 24_000_000);
    // A-MPDU [1 5]: 1 fills the hole, and 1-5 go up in order.
    io.rx_mpdus = (vec![mpdu(1), mpdu(5)], 0b11);
    dcf.on_rx(&ampdu(1, 2), true, &mut io);
    assert_eq!(io.delivered, [100, 101, 102, 103, 104, 105]);
    // A retransmission of what it has is acknowledged, not handed up again.
    io.rx_mpdus = (vec![mpdu(4), mpdu(6)], 0b11);
    dcf.on_rx(&ampdu(4, 2), true, &mut io);
    assert_eq!(io.delivered.len(), 7);
    let (ba, _) = io.next_frame(&mut dcf);
    assert_eq!(ba.bitmap & 0b111, 0b111);
    // A BlockAckReq past a hole releases what waits behind it.
    io.rx_mpdus = (vec![mpdu(8)], 0b1);
    dcf.on_rx(&ampdu(8, 1), true, &mut io);
    io.next_frame(&mut dcf);
    assert_eq!(dcf.packets_held(), 1);
    let bar = Frame {
        seq: 8,
        rate_bps: 24_000_000,
        ..Frame::new(FrameKind::BlockAckReq, 0, Some(1))
    };
    io.hear(&mut dcf, &bar);
    assert_eq!(io.delivered.last(), Some(&108));
    assert_eq!(dcf.packets_held(), 0);
}

#[test]
fn with_rts_cts_the_a_mpdu_follows_the_cts() {
    let mut dcf = ht_dcf_with(0, None, true);
    let mut io = Script::new();
    io.queue.extend((0..4).map(queued));
    dcf.on_frame_ready(&mut io);
    // RTS at 6 Mbit/s (20 bytes: 20 us + 8 symbols = 52 us).
    let (rts, _) = io.next_frame(&mut dcf);
    assert_eq!(
        (rts.kind, rts.rate_bps, rts.airtime),
        (FrameKind::Rts, 6_000_000, 52 * MICROS)
    );
    // It reserves SIFS + CTS (44 us at 6 Mbit/s) + SIFS + the A-MPDU + SIFS + the Block Ack.
    // 4 subframes: 3 x 1044 + 1042 bytes, ceil((16 + 8 x 4174 + 6) / 260) = 129 symbols.
    let ampdu_us = 36 + 129 * 4;
    assert_eq!(rts.nav, (16 + 44 + 16 + ampdu_us + 16 + 32) * MICROS);
    // No CTS: the RTS times out; nothing was sent, and the same MPDUs go after the next RTS.
    io.end_of(&mut dcf, &rts);
    let timeout = io.timers[MacTimer::Timeout as usize].take().expect("armed");
    io.now = timeout;
    dcf.on_timer(MacTimer::Timeout, &mut io);
    let (again, _) = io.next_frame(&mut dcf);
    assert_eq!(again.kind, FrameKind::Rts);
    io.end_of(&mut dcf, &again);
    let cts = Frame::new(FrameKind::Cts, 1, Some(0));
    let cts_at = io.now;
    io.hear(&mut dcf, &cts);
    let (ampdu, mpdus) = io.next_frame(&mut dcf);
    assert_eq!(
        seqs(&mpdus),
        [(0, false), (1, false), (2, false), (3, false)]
    );
    assert_eq!(ampdu.airtime, ampdu_us as Time * MICROS);
    // SIFS after the CTS.
    assert_eq!(io.now, cts_at + 16 * MICROS);
    io.end_of(&mut dcf, &ampdu);
    io.hear(&mut dcf, &block_ack(&ampdu, 0b1111));
    assert_eq!(io.outcomes.len(), 4);
    assert_eq!(dcf.packets_held(), 0);
}

/// An 802.11n radio at MCS 7 that also builds A-MSDUs of up to `amsdu` bytes.
fn amsdu_dcf(me: RadioId, amsdu: u32, lifetime: Option<Time>) -> Dcf {
    let config = AggregationConfig {
        max_amsdu_bytes: amsdu,
        ..AggregationConfig::default()
    };
    ht_dcf_aggregating(me, lifetime, false, config)
}

fn ids(msdus: &[Msdu]) -> Vec<u32> {
    msdus.iter().map(|(id, _)| id.0).collect()
}

#[test]
fn a_msdus_fill_each_mpdu_and_a_lost_one_is_resent_whole() {
    let mut dcf = amsdu_dcf(0, 3839, None);
    let mut io = Script::new();
    io.queue.extend((20..27).map(queued));
    dcf.on_frame_ready(&mut io);
    // An MSDU is 1008 bytes (LLC/SNAP + 1000), a subframe 14 + 1008 = 1022, padded to 1024 but
    // the last: three fit 3839 bytes (3070), a fourth would not (4094). Each A-MSDU's MPDU is
    // 30 + 3070 = 3100 bytes (header and FCS); the seventh packet goes alone, a plain MPDU.
    let (ampdu, mpdus) = io.next_frame(&mut dcf);
    assert_eq!(seqs(&mpdus), [(0, false), (1, false), (2, false)]);
    let shape: Vec<_> = mpdus.iter().map(|m| (m.id.0, m.extra, m.bytes)).collect();
    assert_eq!(shape, [(20, 2, 3100), (23, 2, 3100), (26, 0, 1038)]);
    assert_eq!(ids(&io.sent_msdus[0]), [21, 22, 24, 25]);
    assert_eq!(ampdu.bytes, (4 + 3100) + (4 + 3100) + (4 + 1038));
    io.end_of(&mut dcf, &ampdu);
    // Block Ack: MPDU 1 missing. The three packets of MPDU 0 and the lone one are through.
    io.now += 16 * MICROS;
    io.hear(&mut dcf, &block_ack(&ampdu, 0b101));
    assert_eq!(
        io.outcomes,
        [(20, true), (21, true), (22, true), (26, true)]
    );
    assert_eq!(dcf.packets_held(), 3);
    // MPDU 1 goes again whole, alone: a QoS data frame with its A-MSDU, answered by an ACK.
    let (again, mpdus) = io.next_frame(&mut dcf);
    assert_eq!((again.seq, again.mpdus, again.retry), (1, 0, true));
    assert_eq!((again.bytes, mpdus.len()), (3100, 1));
    assert_eq!(ids(io.sent_msdus.last().unwrap()), [24, 25]);
    io.end_of(&mut dcf, &again);
    let ack = Frame {
        seq: 1,
        ..Frame::new(FrameKind::Ack, 1, Some(0))
    };
    io.hear(&mut dcf, &ack);
    assert_eq!(io.outcomes[4..], [(23, true), (24, true), (25, true)]);
    let stats = dcf.aggregation_stats().unwrap();
    assert_eq!((stats.amsdus, stats.amsdu_msdus), (2, 6));
    assert_eq!(dcf.packets_held(), 0);
}

#[test]
fn an_a_msdu_ends_with_its_first_msdus_lifetime() {
    let mut dcf = amsdu_dcf(0, 7935, Some(1000 * MICROS));
    let mut io = Script::new();
    io.queue.extend((0..3).map(queued));
    dcf.on_frame_ready(&mut io);
    let (frame, mpdus) = io.next_frame(&mut dcf);
    // One MPDU of three MSDUs: a lone A-MSDU.
    assert_eq!((frame.mpdus, mpdus.len(), mpdus[0].extra), (0, 1, 2));
    io.end_of(&mut dcf, &frame);
    let timeout = io.timers[MacTimer::Timeout as usize].take().expect("armed");
    io.now = timeout;
    dcf.on_timer(MacTimer::Timeout, &mut io);
    assert!(io.expired.is_empty());
    // Past the first MSDU's lifetime, the next opportunity gives up all three together and
    // tells the recipient.
    io.now = 1001 * MICROS;
    let (bar, _) = io.next_frame(&mut dcf);
    assert_eq!(io.expired, [0, 1, 2]);
    assert_eq!((bar.kind, bar.seq), (FrameKind::BlockAckReq, 1));
    assert_eq!(dcf.packets_held(), 0);
}

#[test]
fn the_recipient_hands_up_an_a_msdus_packets_in_order_after_the_hole_fills() {
    let mut dcf = amsdu_dcf(1, 7935, None);
    let mut io = Script::new();
    let mpdu = |seq: u16, id: u32, extra: u16| Mpdu {
        id: PacketId(id),
        packet: queued(0).packet,
        seq,
        bytes: 3100,
        retry: false,
        extra,
    };
    let msdu = |id: u32| (PacketId(id), queued(0).packet);
    let ampdu = |first: u16, n: u8| Frame {
        rate_bps: 65_000_000,
        seq: first,
        mpdus: n,
        ..Frame::new(FrameKind::Data, 0, Some(1))
    };
    // A-MPDU [0: 10 11 12] [1: 20 21]; MPDU 0 fails its check: MPDU 1's packets wait.
    io.rx_mpdus = (vec![mpdu(0, 10, 2), mpdu(1, 20, 1)], 0b10);
    io.rx_msdus = vec![msdu(11), msdu(12), msdu(21)];
    dcf.on_rx(&ampdu(0, 2), true, &mut io);
    assert!(io.delivered.is_empty());
    assert_eq!(dcf.packets_held(), 2);
    io.next_frame(&mut dcf);
    // MPDU 0 again, alone: all five go up in order.
    io.rx_mpdus = (vec![mpdu(0, 10, 2)], 0);
    io.rx_msdus = vec![msdu(11), msdu(12)];
    let lone = Frame {
        rate_bps: 65_000_000,
        seq: 0,
        packet: Some((PacketId(10), queued(0).packet)),
        ..Frame::new(FrameKind::Data, 0, Some(1))
    };
    dcf.on_rx(&lone, true, &mut io);
    assert_eq!(io.delivered, [10, 11, 12, 20, 21]);
    assert_eq!(dcf.packets_held(), 0);
}
