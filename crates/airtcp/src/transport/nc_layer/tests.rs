//! Protocol tests of the NC layer that read like packet traces.
//!
//! A [`Chain`] runs TCP's sender and the NC source at A, a relay R, and the NC receiver and TCP's
//! receiver at B: A->R and R->B serialise a coded packet in 1 ms and take 5 ms each; feedback
//! (NC-ACKs, repair requests) goes back B->A in 10.08 ms. Listed coded packets are lost on R->B
//! (wireless losses, to be masked) or dropped in A's queue (congestion drops at the edge, to be
//! passed up). Every step goes to a trace like
//!
//! ```text
//!    13.000ms A>R b1 p1 (1 src)
//!    17.000ms R>B b0 p3 LOST
//!    23.000ms B NC-ACK b0 r2
//!    33.080ms A NC-ACK b0 r2 -> TCP ack 2
//!    33.080ms A cwnd 6.00
//!    40.000ms B repair-request b0 missing 1
//! ```
//!
//! and a failing test prints the trace. The chain runs the layer in either payload mode; in bytes
//! mode every segment carries distinct bytes and every decoded segment is checked against them.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::config::RelayCongestion;
use super::header::{NcCoded, NcHeader, MISSING_ALL};
use super::sink::{Delivered, NcSink};
use super::source::NcSource;
use super::NcIo;
use crate::coding::rlnc::PayloadMode;
use crate::scenario::config::{CcKind, NcBlock, SsthreshBasis, TcpConfig};
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::time::{MICROS, MILLIS};
use crate::sim::{EventClass, EventQueue, Rng, Time};
use crate::transport::tcp::cc;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::tcp::TcpIo;

const SERIALISE: Time = MILLIS;
const HOP: Time = 5 * MILLIS;
const FEEDBACK: Time = 10 * MILLIS + 80 * MICROS;
const REPAIR_INTERVAL: Time = 30 * MILLIS;
const HEADER_BYTES: u32 = 40;
const MSS: u32 = 1000;

/// The bytes of segment `seq` (`len` of them), distinct for every segment.
fn segment_bytes(seq: u64, len: u32) -> Vec<u8> {
    (0..len as u64)
        .map(|i| (seq.wrapping_mul(131) ^ i.wrapping_mul(7) ^ (i >> 8)) as u8)
        .collect()
}

/// What the loss lists are keyed by: (block, packet id) of a coded packet, (block, rank) of an
/// NC-ACK.
trait Key {
    fn key(&self) -> (u64, u32);
}

impl Key for NcCoded {
    fn key(&self) -> (u64, u32) {
        (self.block, self.packet_id)
    }
}

impl Key for (u64, u32) {
    fn key(&self) -> (u64, u32) {
        *self
    }
}

enum Ev {
    AtRelay(NcCoded, Vec<u8>),
    /// With R's congestion mark if `true`.
    AtReceiver(NcCoded, Vec<u8>, bool),
    AtSource(NcHeader),
    SenderTimer(u32),
    SinkTimer(u32),
}

/// What the layer and TCP's sender emitted during one call.
#[derive(Default)]
struct Out {
    now: Time,
    coded: Vec<(NcCoded, u32, Vec<u8>)>,
    feedback: Vec<(NcHeader, u32)>,
    sink_timer: Option<Option<Time>>,
    sender_timer: Option<Option<Time>>,
}

impl NcIo for Out {
    fn now(&self) -> Time {
        self.now
    }
    fn send_coded(&mut self, header: NcCoded, size: u32, payload: &[u8]) {
        self.coded.push((header, size, payload.to_vec()));
    }
    fn send_feedback(&mut self, header: NcHeader, size: u32) {
        self.feedback.push((header, size));
    }
    fn set_timer(&mut self, deadline: Option<Time>) {
        self.sink_timer = Some(deadline);
    }
}

/// TCP's sender's view of the world: its segments go to the NC source.
struct SenderIo<'a> {
    source: &'a mut NcSource,
    out: &'a mut Out,
    bytes: bool,
}

impl TcpIo for SenderIo<'_> {
    fn now(&self) -> Time {
        self.out.now
    }
    fn send_data(&mut self, header: DataHeader) {
        let payload = if self.bytes {
            segment_bytes(header.seq, header.len)
        } else {
            Vec::new()
        };
        self.source.on_segment(header, &payload, self.out);
    }
    fn send_ack(&mut self, _header: AckHeader) {
        unreachable!("the sender sends no ACKs");
    }
    fn set_timer(&mut self, deadline: Option<Time>) {
        self.out.sender_timer = Some(deadline);
    }
    fn window_hint(&mut self, segments: u64) {
        self.source.set_window(segments);
    }
}

/// TCP's receiver under the NC layer sends nothing.
struct Silent(Time);

impl TcpIo for Silent {
    fn now(&self) -> Time {
        self.0
    }
    fn send_data(&mut self, _header: DataHeader) {
        unreachable!();
    }
    fn send_ack(&mut self, _header: AckHeader) {}
    fn set_timer(&mut self, _deadline: Option<Time>) {}
}

struct Chain {
    q: EventQueue<Ev>,
    sender: TcpSender,
    receiver: TcpReceiver,
    source: NcSource,
    sink: NcSink,
    bytes: bool,
    /// (block, packet id) -> transmissions still to lose on R->B.
    lose: BTreeMap<(u64, u32), u32>,
    /// (block, packet id) -> transmissions still to drop in A's queue.
    edge: BTreeMap<(u64, u32), u32>,
    /// (block, packet id) -> transmissions still to drop in R's queue.
    relay_drops: BTreeMap<(u64, u32), u32>,
    /// R dropped a packet and has not marked one since.
    relay_owes_mark: bool,
    /// (block, rank) -> NC-ACKs still to lose on B->A.
    lose_acks: BTreeMap<(u64, u32), u32>,
    link_free: [Time; 3],
    timer_gen: [u32; 2],
    trace: String,
    delivered: Vec<Delivered>,
    /// Segments delivered to TCP's receiver, in order.
    segments: Vec<u64>,
    /// (time, cwnd) after every ACK TCP got.
    cwnd: Vec<(Time, f64)>,
}

fn tcp() -> TcpConfig {
    TcpConfig {
        cc: CcKind::Newreno,
        sack: true,
        mss: MSS,
        header_bytes: HEADER_BYTES,
        delayed_ack: 1,
        initial_cwnd: 4,
        min_rto: 200 * MILLIS,
        ssthresh_basis: SsthreshBasis::Cwnd,
        ..TcpConfig::default()
    }
}

impl Chain {
    fn new(block: NcBlock, mode: PayloadMode, bytes: u64) -> Self {
        let cfg = tcp();
        let rng = Rng::stream(7, "flow/0/nc");
        Chain {
            q: EventQueue::new(),
            sender: TcpSender::new(&cfg, cc::build(&cfg), Some(bytes)),
            receiver: TcpReceiver::new(&cfg),
            source: NcSource::new(block, 64, HEADER_BYTES, mode, rng),
            sink: NcSink::new(mode, HEADER_BYTES, REPAIR_INTERVAL),
            bytes: mode == PayloadMode::Bytes,
            lose: BTreeMap::new(),
            edge: BTreeMap::new(),
            relay_drops: BTreeMap::new(),
            relay_owes_mark: false,
            lose_acks: BTreeMap::new(),
            link_free: [0; 3],
            timer_gen: [0; 2],
            trace: String::new(),
            delivered: Vec::new(),
            segments: Vec::new(),
            cwnd: Vec::new(),
        }
    }

    /// Loses the first transmission of each listed coded packet on R->B.
    fn losing(mut self, packets: &[(u64, u32)]) -> Self {
        for &p in packets {
            *self.lose.entry(p).or_insert(0) += 1;
        }
        self
    }

    /// Drops the first transmission of each listed coded packet in A's queue.
    fn dropping_at_source(mut self, packets: &[(u64, u32)]) -> Self {
        for &p in packets {
            *self.edge.entry(p).or_insert(0) += 1;
        }
        self
    }

    /// Drops the first transmission of each listed coded packet in R's queue; R marks the next
    /// packet it forwards (`net`'s congestion marks).
    fn dropping_at_relay(mut self, packets: &[(u64, u32)]) -> Self {
        for &p in packets {
            *self.relay_drops.entry(p).or_insert(0) += 1;
        }
        self
    }

    /// Loses the first NC-ACK of each listed (block, rank) on B->A.
    fn losing_acks(mut self, acks: &[(u64, u32)]) -> Self {
        for &a in acks {
            *self.lose_acks.entry(a).or_insert(0) += 1;
        }
        self
    }

    fn log(&mut self, line: String) {
        let _ = writeln!(self.trace, "{:>10.3}ms {line}", self.q.now() as f64 / 1e6);
    }

    fn take(map: &mut BTreeMap<(u64, u32), u32>, key: &impl Key) -> bool {
        map.get_mut(&key.key()).is_some_and(|n| {
            let hit = *n > 0;
            *n = n.saturating_sub(1);
            hit
        })
    }

    fn flush(&mut self, out: Out) {
        let now = self.q.now();
        for (h, size, payload) in out.coded {
            let kind = if h.packet_id > h.block_size as u32 {
                "repair "
            } else {
                ""
            };
            let dropped = Self::take(&mut self.edge, &h);
            self.log(format!(
                "A>R {kind}b{} p{} ({} src{}, {size} B){}",
                h.block,
                h.packet_id,
                h.sources,
                if h.closed { ", closed" } else { "" },
                if dropped {
                    " DROPPED in A's full queue"
                } else {
                    ""
                }
            ));
            if dropped {
                self.source.on_edge_drop(&h);
                continue;
            }
            let start = self.link_free[0].max(now);
            self.link_free[0] = start + SERIALISE;
            self.q.schedule(
                start + SERIALISE + HOP,
                EventClass::Arrival,
                Ev::AtRelay(h, payload),
            );
        }
        for (h, _size) in out.feedback {
            if let NcHeader::Ack(a) = h {
                if Self::take(&mut self.lose_acks, &(a.block, a.rank as u32)) {
                    self.log(format!("B NC-ACK b{} r{} LOST on B>A", a.block, a.rank));
                    continue;
                }
            }
            match h {
                NcHeader::Ack(a) => self.log(format!(
                    "B NC-ACK b{} r{} (decoded below b{}){}",
                    a.block,
                    a.rank,
                    a.decoded_below,
                    if a.ece { " ECE" } else { "" }
                )),
                NcHeader::Repair(r) if r.missing == MISSING_ALL => {
                    self.log(format!("B repair-request b{} missing all", r.block))
                }
                NcHeader::Repair(r) => self.log(format!(
                    "B repair-request b{} missing {}",
                    r.block, r.missing
                )),
                NcHeader::Coded(_) => unreachable!("the receiver sends no data"),
            }
            let start = self.link_free[2].max(now);
            self.link_free[2] = start + SERIALISE / 25;
            self.q
                .schedule(start + FEEDBACK, EventClass::Arrival, Ev::AtSource(h));
        }
        for (side, timer) in [(0, out.sender_timer), (1, out.sink_timer)] {
            let Some(deadline) = timer else { continue };
            self.timer_gen[side] += 1;
            if let Some(t) = deadline {
                let g = self.timer_gen[side];
                let ev = if side == 0 {
                    Ev::SenderTimer(g)
                } else {
                    Ev::SinkTimer(g)
                };
                self.q.schedule(t, EventClass::Timer, ev);
            }
        }
    }

    fn run(&mut self, until: Time) {
        let mut out = Out::default();
        self.sender.start(&mut SenderIo {
            source: &mut self.source,
            out: &mut out,
            bytes: self.bytes,
        });
        self.flush(out);
        while let Some((now, ev)) = self.q.pop() {
            if now > until {
                break;
            }
            let mut out = Out {
                now,
                ..Default::default()
            };
            match ev {
                Ev::AtRelay(h, payload) => {
                    let start = self.link_free[1].max(now);
                    self.link_free[1] = start + SERIALISE;
                    if Self::take(&mut self.relay_drops, &h) {
                        // R's full buffer: the next packet R forwards carries its mark.
                        self.log(format!(
                            "R b{} p{} DROPPED in R's full queue",
                            h.block, h.packet_id
                        ));
                        self.relay_owes_mark = true;
                        continue;
                    }
                    let lost = Self::take(&mut self.lose, &h);
                    let marked = std::mem::take(&mut self.relay_owes_mark);
                    if lost {
                        self.log(format!("R>B b{} p{} LOST", h.block, h.packet_id));
                    } else {
                        self.q.schedule(
                            start + SERIALISE + HOP,
                            EventClass::Arrival,
                            Ev::AtReceiver(h, payload, marked),
                        );
                    }
                }
                Ev::AtReceiver(h, payload, marked) => {
                    if marked {
                        self.log(format!("B b{} p{} carries R's mark", h.block, h.packet_id));
                    }
                    self.sink.on_coded(
                        &h,
                        &payload,
                        marked,
                        &self.source,
                        &mut out,
                        &mut self.delivered,
                    );
                    let delivered = std::mem::take(&mut self.delivered);
                    if let (Some(first), Some(last)) = (delivered.first(), delivered.last()) {
                        let (a, b) = (first.segment.seq, last.segment.seq);
                        self.log(format!("B decoded -> TCP segments {a}..={b}"));
                    }
                    for d in &delivered {
                        if self.bytes {
                            let expected = segment_bytes(d.segment.seq, d.segment.len);
                            assert_eq!(d.payload, expected, "segment {}", d.segment.seq);
                        } else {
                            assert!(d.payload.is_empty());
                        }
                        self.segments.push(d.segment.seq);
                        self.receiver.on_data(&d.segment, &mut Silent(now));
                    }
                    self.flush(out);
                }
                Ev::AtSource(NcHeader::Ack(a)) => {
                    let rtt = self.sender.srtt().unwrap_or(self.sender.rto());
                    let Some(ack) = self.source.on_ack(&a, rtt, now) else {
                        self.log(format!("A NC-ACK b{} r{} (TCP not told)", a.block, a.rank));
                        continue;
                    };
                    let sacks: Vec<String> = ack
                        .sack_blocks()
                        .iter()
                        .map(|b| format!("[{},{})", b.start, b.end))
                        .collect();
                    let sack = if sacks.is_empty() {
                        String::new()
                    } else {
                        format!(" sack {}", sacks.join(" "))
                    };
                    self.log(format!(
                        "A NC-ACK b{} r{} -> TCP ack {}{sack}",
                        a.block, a.rank, ack.ack
                    ));
                    self.sender.on_ack(
                        &ack,
                        &mut SenderIo {
                            source: &mut self.source,
                            out: &mut out,
                            bytes: self.bytes,
                        },
                    );
                    let (cwnd, ssthresh) = (self.sender.cwnd(), self.sender.ssthresh());
                    self.cwnd.push((now, cwnd));
                    self.log(format!("A cwnd {cwnd:.2} ssthresh {ssthresh:.2}"));
                    self.flush(out);
                }
                Ev::AtSource(NcHeader::Repair(r)) => {
                    let rtt = self.sender.srtt().unwrap_or(self.sender.rto());
                    self.source.on_repair_request(&r, rtt, &mut out);
                    self.flush(out);
                }
                Ev::AtSource(NcHeader::Coded(_)) => unreachable!(),
                Ev::SenderTimer(g) if g == self.timer_gen[0] => {
                    self.sender.on_timer(&mut SenderIo {
                        source: &mut self.source,
                        out: &mut out,
                        bytes: self.bytes,
                    });
                    self.log(format!("A RTO, cwnd {:.2}", self.sender.cwnd()));
                    self.flush(out);
                }
                Ev::SinkTimer(g) if g == self.timer_gen[1] => {
                    self.sink.on_timer(&mut out);
                    self.flush(out);
                }
                Ev::SenderTimer(_) | Ev::SinkTimer(_) => {}
            }
        }
    }

    /// Every segment of an `n`-segment transfer reached TCP's receiver once, in order.
    fn assert_complete(&self, n: u64) {
        assert!(
            self.receiver.complete(),
            "transfer incomplete:\n{}",
            self.trace
        );
        assert_eq!(
            self.segments,
            (0..n).collect::<Vec<_>>(),
            "delivery out of order or repeated:\n{}",
            self.trace
        );
        assert_eq!(self.receiver.rcv_nxt(), n, "{}", self.trace);
    }

    fn assert_trace(&self, line: &str) {
        assert!(
            self.trace.contains(line),
            "no `{line}` in the trace:\n{}",
            self.trace
        );
    }

    /// The cwnd before and after its first cut.
    fn first_window_cut(&self) -> [f64; 2] {
        self.cwnd
            .windows(2)
            .find(|w| w[1].1 < w[0].1)
            .map(|w| [w[0].1, w[1].1])
            .unwrap_or_else(|| panic!("cwnd never went down:\n{}", self.trace))
    }

    /// cwnd never went down.
    fn assert_cwnd_never_shrank(&self) {
        for w in self.cwnd.windows(2) {
            assert!(
                w[1].1 >= w[0].1,
                "cwnd shrank at {}:\n{}",
                w[1].0,
                self.trace
            );
        }
    }
}

#[test]
fn a_lossless_transfer_is_acked_packet_by_packet_and_decoded_block_by_block() {
    let mut c = Chain::new(NcBlock::Fixed(4), PayloadMode::CoefficientsOnly, 12_000);
    c.run(10_000 * MILLIS);
    c.assert_complete(12);
    // a_k combines k sources and is k bytes of coefficients (+ 10 fixed) bigger than eta_k.
    c.assert_trace("     0.000ms A>R b0 p1 (1 src, 1053 B)");
    c.assert_trace("     0.000ms A>R b0 p4 (4 src, 1056 B)");
    // 1 ms + 5 ms per hop: a_1 arrives at 12 ms and is ACKed as segment 0.
    c.assert_trace("    12.000ms B NC-ACK b0 r1 (decoded below b0)");
    c.assert_trace("    22.080ms A NC-ACK b0 r1 -> TCP ack 1");
    c.assert_trace("    15.000ms B decoded -> TCP segments 0..=3");
    c.assert_trace("B NC-ACK b2 r4 (decoded below b3)");
    assert_eq!(c.sender.stats.retransmissions, 0, "{}", c.trace);
    assert_eq!(c.sink.stats.requests_sent, 0, "{}", c.trace);
    assert_eq!(c.source.stats.tcp_acks, 12, "{}", c.trace);
    assert_eq!(c.source.blocks_held(), 0, "every block freed:\n{}", c.trace);
    c.assert_cwnd_never_shrank();
}

#[test]
fn wireless_losses_are_repaired_and_tcp_never_sees_them() {
    // Blocks of 4; a_3 of block 0, a_2 of block 1 and the first repair of block 1 are lost on
    // R->B; block 4 is closed after 1 segment, the last of the transfer.
    let mut c = Chain::new(NcBlock::Fixed(4), PayloadMode::CoefficientsOnly, 17_000).losing(&[
        (0, 3),
        (1, 2),
        (1, 5),
    ]);
    c.run(10_000 * MILLIS);
    c.assert_complete(17);
    // a_4 of block 0 is ACKed as eta_3: TCP's ACKs keep coming.
    c.assert_trace("A NC-ACK b0 r3 -> TCP ack 3");
    // The first packet of block 1 shows block 0 incomplete: ask for it at once ...
    c.assert_trace("B repair-request b0 missing 1");
    // ... and its ACK stands for eta_1 of block 1, so TCP's ACK passes block 0's hole.
    c.assert_trace("A NC-ACK b1 r1 -> TCP ack 5");
    c.assert_trace("A>R repair b0 p5 (4 src, 1060 B)");
    // Block 1's repair is lost too: the receiver asks again after the repair interval, and the
    // source answers (its first repair left more than a round trip before).
    c.assert_trace("    38.080ms B repair-request b1 missing 1");
    c.assert_trace("    48.200ms A>R repair b1 p5 (4 src, 1060 B)");
    c.assert_trace("    68.080ms B repair-request b1 missing 1");
    c.assert_trace("    78.160ms A>R repair b1 p6 (4 src, 1060 B)");
    c.assert_trace("B decoded -> TCP segments 4..=16");
    c.assert_trace("A>R b4 p1 (1 src, closed, 1053 B)");
    let s = &c.sender.stats;
    assert_eq!(
        (s.retransmissions, s.recoveries, s.timeouts),
        (0, 0, 0),
        "TCP saw a loss:\n{}",
        c.trace
    );
    c.assert_cwnd_never_shrank();
    assert_eq!(c.source.stats.repairs_requested, 3, "{}", c.trace);
    assert_eq!(c.source.stats.edge_drops, 0);
}

#[test]
fn a_lost_tail_is_left_to_tcp_and_its_retransmission_becomes_a_repair() {
    // The transfer's last packet (closing block 4) is lost with nothing after it: the receiver
    // cannot know block 4 exists, so TCP times out, as it would without the NC layer, and its
    // retransmission becomes a repair packet (which says the block is closed).
    let mut c =
        Chain::new(NcBlock::Fixed(4), PayloadMode::CoefficientsOnly, 17_000).losing(&[(4, 1)]);
    c.run(10_000 * MILLIS);
    c.assert_complete(17);
    c.assert_trace("R>B b4 p1 LOST");
    c.assert_trace("A>R repair b4 p5 (1 src, closed, 1057 B)");
    assert_eq!(c.sender.stats.timeouts, 1, "{}", c.trace);
    assert_eq!(c.source.stats.repairs_retransmitted, 1, "{}", c.trace);
    assert_eq!(c.sink.stats.requests_sent, 0, "{}", c.trace);
}

#[test]
fn a_congestion_drop_at_the_source_makes_tcp_back_off() {
    // H = cwnd; a_3 of block 2 is dropped in A's full queue.
    let mut c = Chain::new(NcBlock::Cwnd, PayloadMode::CoefficientsOnly, 60_000)
        .dropping_at_source(&[(2, 3)]);
    c.run(10_000 * MILLIS);
    c.assert_complete(60);
    c.assert_trace("A>R b2 p3 (3 src, 1055 B) DROPPED in A's full queue");
    let s = &c.sender.stats;
    assert_eq!(s.recoveries, 1, "{}", c.trace);
    assert_eq!(s.timeouts, 0, "{}", c.trace);
    assert_eq!(s.retransmissions, 1, "{}", c.trace);
    // Halved: with ssthresh_basis cwnd, ssthresh is half the window at the loss, and cwnd
    // drops to it.
    let peak = c.cwnd.iter().map(|&(_, w)| w).fold(0.0, f64::max);
    let drop = c.first_window_cut();
    assert_eq!(drop[1], (drop[0] / 2.0).max(2.0), "{}", c.trace);
    assert_eq!(drop[0], peak, "{}", c.trace);
    // No repair on the dropped packet's behalf: the receiver's request for block 2 is answered
    // by TCP's retransmission, which becomes a repair packet of block 2.
    c.assert_trace("B repair-request b2 missing 1");
    assert_eq!(c.source.stats.repairs_requested, 0, "{}", c.trace);
    assert_eq!(c.source.stats.repairs_retransmitted, 1, "{}", c.trace);
    assert!(
        c.trace.contains("A>R repair b2 p"),
        "TCP's retransmission did not become a repair of block 2:\n{}",
        c.trace
    );
}

#[test]
fn edge_drops_withhold_the_newest_segments_and_at_most_max_withheld() {
    // 400 segments sent, none acknowledged, 300 dropped at the edge: the newest 256 are
    // withheld, and further drops withhold nothing more.
    use super::source::MAX_WITHHELD;
    let rng = Rng::stream(1, "t");
    let mut source = NcSource::new(
        NcBlock::Fixed(64),
        64,
        40,
        PayloadMode::CoefficientsOnly,
        rng,
    );
    let mut out = Out::default();
    for seq in 0..400 {
        let seg = DataHeader {
            seq,
            len: MSS,
            last: false,
            retransmission: false,
        };
        source.on_segment(seg, &[], &mut out);
    }
    let dropped = out.coded[0].0;
    for k in 0..300 {
        source.on_edge_drop(&dropped);
        assert_eq!(
            source.withheld(),
            (k + 1).min(MAX_WITHHELD),
            "after {k} drops"
        );
    }
    assert_eq!(source.stats.edge_drops, 300);
}

#[test]
fn a_burst_of_edge_drops_beyond_the_bound_still_completes() {
    // Every packet of blocks 2 to 9 (8 x 8 = 64 drops, first transmissions) dropped in A's
    // queue; a bound of withheld segments must not strand the transfer.
    let drops: Vec<(u64, u32)> = (2..10).flat_map(|b| (1..=8).map(move |p| (b, p))).collect();
    let mut c = Chain::new(NcBlock::Fixed(8), PayloadMode::CoefficientsOnly, 200_000)
        .dropping_at_source(&drops);
    c.run(60_000 * MILLIS);
    c.assert_complete(200);
}

#[test]
fn a_drop_at_the_source_is_not_hidden_by_a_later_wireless_repair() {
    // The edge drop and a wireless loss in one block: the wireless one is repaired on request,
    // the congestion one only by TCP's retransmission.
    let mut c = Chain::new(NcBlock::Fixed(6), PayloadMode::CoefficientsOnly, 30_000)
        .dropping_at_source(&[(1, 2)])
        .losing(&[(1, 4)]);
    c.run(10_000 * MILLIS);
    c.assert_complete(30);
    c.assert_trace("B repair-request b1 missing 2");
    assert_eq!(c.source.stats.repairs_requested, 1, "{}", c.trace);
    assert_eq!(c.sender.stats.recoveries, 1, "{}", c.trace);
    assert_eq!(c.sender.stats.timeouts, 0, "{}", c.trace);
}

#[test]
fn decoding_is_real_the_bytes_come_back() {
    // Bytes mode end to end through the layer: random losses on R->B (a third of the
    // transmissions listed by a seeded draw), two congestion drops at the source, and a short
    // last segment. Every delivered segment is checked against its bytes (see `run`).
    let mut rng = Rng::stream(11, "test/losses");
    let mut lost = Vec::new();
    for block in 0..40u64 {
        for pid in 1..=80u32 {
            if rng.bernoulli(0.3) {
                lost.push((block, pid));
            }
        }
    }
    let bytes = 150_000 - 333;
    let mut c = Chain::new(NcBlock::Cwnd, PayloadMode::Bytes, bytes)
        .losing(&lost)
        .dropping_at_source(&[(3, 2), (6, 5)]);
    c.run(100_000 * MILLIS);
    c.assert_complete(150);
    assert!(c.sink.stats.requests_sent > 10, "{}", c.trace);
    assert!(c.source.stats.repairs_requested > 10, "{}", c.trace);
    assert_eq!(c.sender.stats.timeouts, 0, "{}", c.trace);
    // One back-off per congestion drop (they are in different windows).
    assert_eq!(c.sender.stats.recoveries, 2, "{}", c.trace);
}

#[test]
fn the_two_payload_modes_run_the_same_protocol() {
    let lost = [(0, 2), (2, 3), (3, 1), (3, 7)];
    let mut a = Chain::new(NcBlock::Cwnd, PayloadMode::Bytes, 40_000).losing(&lost);
    let mut b = Chain::new(NcBlock::Cwnd, PayloadMode::CoefficientsOnly, 40_000).losing(&lost);
    a.run(10_000 * MILLIS);
    b.run(10_000 * MILLIS);
    a.assert_complete(40);
    assert_eq!(a.trace, b.trace);
}

#[test]
fn each_repair_round_is_timed_from_the_request_it_answers() {
    // Block 1's a_2 and its first three repairs are lost on R->B: four rounds of requests. A
    // round trip (request back to A, repair out to B) takes about 22 ms. Each repair echoes the
    // send time of the request it answers, so the round that succeeds is timed alone; timing
    // from the block's first unanswered request counted the three lost rounds into the sample
    // (about 110 ms) and spaced the next requests twice that.
    let mut c = Chain::new(NcBlock::Fixed(4), PayloadMode::CoefficientsOnly, 17_000).losing(&[
        (1, 2),
        (1, 5),
        (1, 6),
        (1, 7),
    ]);
    c.run(10_000 * MILLIS);
    c.assert_complete(17);
    c.assert_trace("R>B b1 p7 LOST");
    c.assert_trace("A>R repair b1 p8 (4 src, 1060 B)");
    let rtt = c.sink.repair_rtt().expect("a round was timed");
    assert!(
        (20 * MILLIS..=25 * MILLIS).contains(&rtt),
        "request-to-repair delay {rtt} ns:\n{}",
        c.trace
    );
    assert_eq!(c.sink.repeat_interval(), 2 * rtt, "{}", c.trace);
}

#[test]
fn a_relay_drop_is_signalled_to_tcp_once_per_round_trip() {
    // R's full queue drops a_3 and a_5 of block 2 (H = cwnd, so block 2 is large); R marks the
    // packet after each, and B echoes the marks on its NC-ACKs (ECE). Both drops are one
    // congestion episode: A withholds one segment, TCP sees duplicate ACKs, retransmits once
    // and halves its window once. The lost degrees of freedom come back through B's request and
    // TCP's retransmission, which becomes a repair packet.
    let run = |relay_congestion| {
        let mut c = Chain::new(NcBlock::Cwnd, PayloadMode::CoefficientsOnly, 60_000)
            .dropping_at_relay(&[(2, 3), (2, 5)]);
        c.source.relay_congestion = relay_congestion;
        c.run(10_000 * MILLIS);
        c.assert_complete(60);
        c
    };
    let c = run(RelayCongestion::Signal);
    c.assert_trace("R b2 p3 DROPPED in R's full queue");
    c.assert_trace("B b2 p4 carries R's mark");
    c.assert_trace("B b2 p6 carries R's mark");
    assert!(c.trace.contains(") ECE"), "{}", c.trace);
    assert_eq!(c.sink.stats.marks_received, 2, "{}", c.trace);
    assert_eq!(c.source.stats.ece_received, 2, "{}", c.trace);
    assert_eq!(c.source.stats.congestion_signals, 1, "{}", c.trace);
    let s = &c.sender.stats;
    assert_eq!(
        (s.recoveries, s.timeouts, s.retransmissions),
        (1, 0, 1),
        "{}",
        c.trace
    );
    let drop = c.first_window_cut();
    assert_eq!(drop[1], (drop[0] / 2.0).max(2.0), "{}", c.trace);

    // Masked, as paper 000's layer hides every loss but the source's: TCP never hears of it.
    let c = run(RelayCongestion::Mask);
    assert_eq!(c.source.stats.ece_received, 2, "{}", c.trace);
    assert_eq!(c.source.stats.congestion_signals, 0, "{}", c.trace);
    assert_eq!(c.sender.stats.retransmissions, 0, "{}", c.trace);
    c.assert_cwnd_never_shrank();
}

#[test]
fn a_retransmission_the_receiver_already_has_is_answered_so_tcp_gets_its_ack() {
    // Blocks of 8, TCP's first window of 4: block 0 gets sources 0-3 and B decodes all four
    // degrees of freedom, but the four NC-ACKs are lost on B->A. TCP's window is full and it
    // times out; its retransmission of segment 0 becomes a repair of block 0, which adds
    // nothing at B. B answers it anyway with block 0's rank, as TCP answers a duplicate
    // segment, and TCP's ACK 4 follows. Unanswered, TCP timed out again and again, for good.
    let mut c = Chain::new(NcBlock::Fixed(8), PayloadMode::CoefficientsOnly, 12_000)
        .losing_acks(&[(0, 1), (0, 2), (0, 3), (0, 4)]);
    c.run(10_000 * MILLIS);
    c.assert_complete(12);
    c.assert_trace("B NC-ACK b0 r4 LOST on B>A");
    c.assert_trace("A>R repair b0 p9 (4 src, 1060 B)");
    c.assert_trace("A NC-ACK b0 r4 -> TCP ack 4");
    assert_eq!(c.sender.stats.timeouts, 1, "{}", c.trace);
    assert_eq!(c.sink.stats.non_innovative, 1, "{}", c.trace);
}
