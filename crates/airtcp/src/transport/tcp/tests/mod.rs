//! Loss-recovery tests that read like packet traces.
//!
//! A [`Wire`] connects one sender (A) and one receiver (B) through a serialiser of 1 ms per
//! packet and 20 ms of propagation each way, losing the data transmissions listed in `drops` and
//! delaying those listed in `delays` (a late segment does not hold the link: it is overtaken).
//! Every step is written to a trace like
//!
//! ```text
//!   41.000ms A>B data 3
//!   41.000ms A>B data 3 LOST
//!   62.000ms B>A ack 3 sack [4,6)
//!  300.000ms A RTO (backoff 1)
//! ```
//!
//! and the tests check the trace and the sender's counters; a failing test prints the trace.
//! A wire can also hold at most `queue_limit` data packets waiting for the serialiser (drop-tail,
//! logged `DROPPED`) and lose each data packet with probability `loss` (logged `LOST`).

mod bbr3;
mod linux;
mod rack;

use std::collections::BTreeMap;
use std::fmt::Write;

use super::cc;
use super::receiver::TcpReceiver;
use super::sender::TcpSender;
use super::TcpIo;
use crate::scenario::config::{CcKind, TcpConfig};
use crate::sim::header::tcp::{AckHeader, DataHeader};
use crate::sim::rng::Rng;
use crate::sim::time::MILLIS;
use crate::sim::{EventClass, EventQueue, Time};

const SERIALISE: Time = MILLIS;
const DELAY: Time = 20 * MILLIS;

#[derive(Clone, Copy)]
enum Ev {
    ToReceiver(DataHeader),
    ToSender(AckHeader),
    SenderTimer(u32),
    ReceiverTimer(u32),
}

#[derive(Default)]
struct Recorder {
    now: Time,
    data: Vec<DataHeader>,
    acks: Vec<AckHeader>,
    timer: Option<Option<Time>>,
}

impl TcpIo for Recorder {
    fn now(&self) -> Time {
        self.now
    }
    fn send_data(&mut self, header: DataHeader) {
        self.data.push(header);
    }
    fn send_ack(&mut self, header: AckHeader) {
        self.acks.push(header);
    }
    fn set_timer(&mut self, deadline: Option<Time>) {
        self.timer = Some(deadline);
    }
}

/// A test's look at the sender after each event that reached it.
type Observer = Box<dyn FnMut(Time, &TcpSender)>;

struct Wire {
    q: EventQueue<Ev>,
    sender: TcpSender,
    receiver: TcpReceiver,
    drops: BTreeMap<u64, u32>,
    /// Extra delay of the next transmissions of a segment: (delay, how many transmissions).
    delays: BTreeMap<u64, (Time, u32)>,
    link_free: [Time; 2],
    timer_gen: [u32; 2],
    trace: String,
    /// (time, RTO before, RTO after) of every timeout.
    rto_times: Vec<(Time, Time, Time)>,
    /// Called with the sender after every event that reached it.
    observer: Option<Observer>,
    /// Data packets that may wait for the serialiser (None: unlimited).
    queue_limit: Option<u64>,
    /// Each data packet is lost with this probability, drawn from `rng`.
    loss: f64,
    rng: Rng,
    /// Data packets dropped by the queue limit.
    dropped: u64,
}

impl Wire {
    fn new(cfg: &TcpConfig, bytes: u64, drops: &[u64]) -> Self {
        let mut d = BTreeMap::new();
        for &s in drops {
            *d.entry(s).or_insert(0) += 1;
        }
        Wire {
            q: EventQueue::new(),
            sender: TcpSender::new(cfg, cc::build(cfg), Some(bytes)),
            receiver: TcpReceiver::new(cfg),
            drops: d,
            delays: BTreeMap::new(),
            link_free: [0; 2],
            timer_gen: [0; 2],
            trace: String::new(),
            rto_times: Vec::new(),
            observer: None,
            queue_limit: None,
            loss: 0.0,
            rng: Rng::stream(1, "wire"),
            dropped: 0,
        }
    }

    /// Delays the first transmission of each segment of `seqs` by `by`.
    fn delay(&mut self, seqs: &[u64], by: Time) {
        for &s in seqs {
            self.delays.insert(s, (by, 1));
        }
    }

    fn log(&mut self, line: String) {
        let _ = writeln!(self.trace, "{:>10.3}ms {line}", self.q.now() as f64 / 1e6);
    }

    /// Puts what an endpoint emitted on the wire. `side` 0 = A (sender), 1 = B (receiver).
    fn flush(&mut self, side: usize, rec: Recorder) {
        let now = self.q.now();
        for h in rec.data {
            let retx = if h.retransmission { " (retx)" } else { "" };
            // Packets ahead of this one, the one being serialised included.
            let ahead = (self.link_free[0].saturating_sub(now)).div_ceil(SERIALISE);
            if self.queue_limit.is_some_and(|limit| ahead > limit) {
                self.dropped += 1;
                self.log(format!("A>B data {}{retx} DROPPED", h.seq));
                continue;
            }
            let start = self.link_free[0].max(now);
            self.link_free[0] = start + SERIALISE;
            let listed = self.drops.get_mut(&h.seq).is_some_and(|n| {
                let hit = *n > 0;
                *n = n.saturating_sub(1);
                hit
            });
            let lost = listed || (self.loss > 0.0 && self.rng.bernoulli(self.loss));
            let late = match self.delays.get_mut(&h.seq) {
                Some((by, n)) if *n > 0 && !lost => {
                    *n -= 1;
                    *by
                }
                _ => 0,
            };
            self.log(format!(
                "A>B data {}{retx}{}{}",
                h.seq,
                if lost { " LOST" } else { "" },
                if late > 0 {
                    format!(" LATE +{}ms", late / MILLIS)
                } else {
                    String::new()
                }
            ));
            if !lost {
                self.q.schedule(
                    start + SERIALISE + DELAY + late,
                    EventClass::Arrival,
                    Ev::ToReceiver(h),
                );
            }
        }
        for a in rec.acks {
            let start = self.link_free[1].max(now);
            self.link_free[1] = start + SERIALISE / 25;
            let sacks: Vec<String> = a
                .sack_blocks()
                .iter()
                .map(|b| format!("[{},{})", b.start, b.end))
                .collect();
            let sack = if sacks.is_empty() {
                String::new()
            } else {
                format!(" sack {}", sacks.join(" "))
            };
            self.log(format!("B>A ack {}{sack}", a.ack));
            self.q.schedule(
                start + SERIALISE / 25 + DELAY,
                EventClass::Arrival,
                Ev::ToSender(a),
            );
        }
        if let Some(deadline) = rec.timer {
            self.timer_gen[side] += 1;
            if let Some(t) = deadline {
                let g = self.timer_gen[side];
                let ev = if side == 0 {
                    Ev::SenderTimer(g)
                } else {
                    Ev::ReceiverTimer(g)
                };
                self.q.schedule(t, EventClass::Timer, ev);
            }
        }
    }

    fn run(&mut self, until: Time) {
        let mut rec = Recorder::default();
        self.sender.start(&mut rec);
        self.flush(0, rec);
        while let Some((now, ev)) = self.q.pop() {
            if now > until {
                break;
            }
            let mut rec = Recorder {
                now,
                ..Default::default()
            };
            match ev {
                Ev::ToReceiver(h) => {
                    self.receiver.on_data(&h, &mut rec);
                    self.flush(1, rec);
                }
                Ev::ToSender(a) => {
                    self.sender.on_ack(&a, &mut rec);
                    let (cwnd, pipe) = (self.sender.cwnd(), self.sender.in_flight());
                    self.log(format!("A cwnd {cwnd:.2} pipe {pipe}"));
                    self.flush(0, rec);
                    self.observe(now);
                }
                Ev::SenderTimer(g) if g == self.timer_gen[0] => {
                    let (before, timeouts) = (self.sender.rto(), self.sender.stats.timeouts);
                    let (probes, reo) = (
                        self.sender.stats.tlp_probes,
                        self.sender.stats.rack_timeouts,
                    );
                    self.sender.on_timer(&mut rec);
                    let st = self.sender.stats.clone();
                    if st.rack_timeouts > reo {
                        self.log("A RACK reordering timer".to_string());
                    }
                    if st.tlp_probes > probes {
                        self.log("A TLP probe".to_string());
                    }
                    if self.sender.stats.timeouts > timeouts {
                        self.rto_times.push((now, before, self.sender.rto()));
                        self.log(format!("A RTO (rto now {} ms)", self.sender.rto() / MILLIS));
                    } else if st.rack_timeouts == reo && st.tlp_probes == probes {
                        self.log("A pacing timer".to_string());
                    }
                    self.flush(0, rec);
                    self.observe(now);
                }
                Ev::ReceiverTimer(g) if g == self.timer_gen[1] => {
                    self.receiver.on_timer(&mut rec);
                    self.flush(1, rec);
                }
                _ => {}
            }
        }
    }

    /// Watches that no event leaves more in flight than both cwnd (+ the one segment a fast
    /// retransmit or a tail-loss probe may add) and what was in flight before it (a window cut
    /// below the pipe stops sending, it does not recall segments): the returned cell holds the
    /// largest excess seen (<= 0 when the window was respected). `first` is the first window.
    fn watch_window(&mut self, first: u32) -> std::rc::Rc<std::cell::RefCell<f64>> {
        let worst: std::rc::Rc<std::cell::RefCell<f64>> = Default::default();
        let log = worst.clone();
        let mut before = first;
        self.observer = Some(Box::new(move |_, s| {
            let allowed = (s.cwnd().ceil() + 1.0).max(before as f64);
            let over = s.in_flight() as f64 - allowed;
            before = s.in_flight();
            let mut w = log.borrow_mut();
            *w = w.max(over);
        }));
        worst
    }

    fn observe(&mut self, now: Time) {
        if let Some(f) = self.observer.as_mut() {
            f(now, &self.sender);
        }
    }

    fn assert_complete(&self, segments: u64) {
        assert!(
            self.receiver.complete(),
            "transfer incomplete:\n{}",
            self.trace
        );
        assert_eq!(self.receiver.rcv_nxt(), segments, "{}", self.trace);
    }
}

fn tcp(cc: CcKind, sack: bool) -> TcpConfig {
    TcpConfig {
        cc,
        sack,
        mss: 1000,
        delayed_ack: 1,
        initial_cwnd: 10,
        min_rto: 200 * MILLIS,
        ..TcpConfig::default()
    }
}

const ALL: [(CcKind, bool); 3] = [
    (CcKind::Reno, false),
    (CcKind::Newreno, false),
    (CcKind::Newreno, true),
];

/// The window laws that reuse NewReno / SACK loss recovery, with either.
const GROWTH_LAWS: [(CcKind, bool); 6] = [
    (CcKind::LinuxReno, false),
    (CcKind::LinuxReno, true),
    (CcKind::Cubic, false),
    (CcKind::Cubic, true),
    (CcKind::Compound, false),
    (CcKind::Compound, true),
];

/// The delay-based algorithms, with and without SACK (they use NewReno or SACK recovery).
const DELAY_BASED: [(CcKind, bool); 6] = [
    (CcKind::Vegas, false),
    (CcKind::Vegas, true),
    (CcKind::Fast, false),
    (CcKind::Fast, true),
    (CcKind::QuicTcp, false),
    (CcKind::QuicTcp, true),
];

#[test]
fn delay_based_algorithms_repair_losses_and_complete() {
    // Single and burst losses, a lost retransmission (segment 60 twice): every transfer ends.
    for (cc, sack) in DELAY_BASED {
        let mut w = Wire::new(&tcp(cc, sack), 300_000, &[5, 40, 41, 42, 60, 60, 200]);
        w.run(60_000 * MILLIS);
        w.assert_complete(300);
        assert!(w.sender.stats.recoveries >= 2, "{cc:?} sack {sack}");
        assert_eq!(
            w.sender.cc_name(),
            match cc {
                CcKind::Vegas => "vegas",
                CcKind::Fast => "fast",
                _ => "quic_tcp",
            }
        );
    }
}

#[test]
fn one_loss_is_repaired_by_fast_retransmit_without_timeout() {
    for (cc, sack) in ALL.into_iter().chain(GROWTH_LAWS) {
        let mut w = Wire::new(&tcp(cc, sack), 40_000, &[5]);
        w.run(10_000 * MILLIS);
        w.assert_complete(40);
        let s = &w.sender.stats;
        assert_eq!(
            (s.timeouts, s.recoveries, s.retransmissions),
            (0, 1, 1),
            "{cc:?}/{sack}\n{}",
            w.trace
        );
        // The retransmission follows the third duplicate ACK.
        let dup3 = w
            .trace
            .match_indices("B>A ack 5")
            .nth(3)
            .expect("three dupacks")
            .0;
        let retx = w.trace.find("A>B data 5 (retx)").expect("fast retransmit");
        assert!(retx > dup3, "{}", w.trace);
    }
}

#[test]
fn three_losses_in_one_window_sack_repairs_in_one_episode() {
    let mut w = Wire::new(&tcp(CcKind::Newreno, true), 40_000, &[3, 5, 7]);
    w.run(10_000 * MILLIS);
    if std::env::var_os("AIRTCP_SHOW_TRACE").is_some() {
        eprintln!("{}", w.trace);
    }
    w.assert_complete(40);
    let s = &w.sender.stats;
    assert_eq!(
        (s.timeouts, s.recoveries, s.retransmissions),
        (0, 1, 3),
        "{}",
        w.trace
    );
    // SACK blocks describe the holes: after segment 4 arrives, B reports [4,5).
    assert!(w.trace.contains("B>A ack 3 sack [4,5)"), "{}", w.trace);
    assert!(w.trace.contains("sack [8,11) [6,7) [4,5)"), "{}", w.trace);
}

#[test]
fn three_losses_in_one_window_newreno_repairs_by_partial_acks() {
    let mut w = Wire::new(&tcp(CcKind::Newreno, false), 40_000, &[3, 5, 7]);
    w.run(10_000 * MILLIS);
    w.assert_complete(40);
    let s = &w.sender.stats;
    assert_eq!(
        (s.timeouts, s.recoveries, s.retransmissions),
        (0, 1, 3),
        "{}",
        w.trace
    );
    // Each partial ACK (5, then 7) triggers the next retransmission.
    let p5 = w.trace.find("B>A ack 5\n").expect("partial ack 5");
    let r5 = w.trace.find("A>B data 5 (retx)").expect("retx 5");
    let p7 = w.trace.find("B>A ack 7\n").expect("partial ack 7");
    let r7 = w.trace.find("A>B data 7 (retx)").expect("retx 7");
    assert!(p5 < r5 && r5 < p7 && p7 < r7, "{}", w.trace);
}

#[test]
fn three_losses_in_one_window_reno_needs_more_than_one_episode() {
    // ns-2 Reno leaves recovery on the first partial ACK, so the later holes need new duplicate
    // ACKs or a timeout: the classic Reno multi-loss problem (Fall & Floyd 1996).
    let mut w = Wire::new(&tcp(CcKind::Reno, false), 40_000, &[3, 5, 7]);
    w.run(10_000 * MILLIS);
    w.assert_complete(40);
    let s = &w.sender.stats;
    assert!(s.recoveries + s.timeouts >= 2, "{}", w.trace);
}

#[test]
fn lost_retransmission_is_repaired_by_timeout_with_backoff() {
    for (cc, sack) in ALL.into_iter().chain(GROWTH_LAWS) {
        // Segment 5 is lost, then its fast retransmission, then the first timeout's
        // retransmission: two timeouts, the second after twice the first RTO.
        let mut w = Wire::new(&tcp(cc, sack), 20_000, &[5, 5, 5]);
        w.run(60_000 * MILLIS);
        w.assert_complete(20);
        let s = &w.sender.stats;
        assert_eq!(s.timeouts, 2, "{cc:?}/{sack}\n{}", w.trace);
        let [(t1, before1, after1), (t2, _, _)] = w.rto_times[..] else {
            unreachable!()
        };
        assert_eq!(after1, 2 * before1, "{}", w.trace);
        // The first timeout's retransmission armed the timer with the backed-off RTO.
        assert_eq!(t2 - t1, after1, "{}", w.trace);
    }
}

#[test]
fn delayed_acks_acknowledge_every_second_segment() {
    let cfg = TcpConfig {
        delayed_ack: 2,
        ..tcp(CcKind::Newreno, true)
    };
    let mut w = Wire::new(&cfg, 10_000, &[]);
    w.run(10_000 * MILLIS);
    w.assert_complete(10);
    let acks: Vec<&str> = w.trace.lines().filter(|l| l.contains("B>A ack")).collect();
    assert_eq!(acks.len(), 5, "{}", w.trace);
    assert!(acks[0].ends_with("ack 2"), "{}", w.trace);
}

#[test]
fn delayed_ack_timer_acknowledges_a_lone_segment() {
    let cfg = TcpConfig {
        delayed_ack: 2,
        ..tcp(CcKind::Newreno, true)
    };
    let mut w = Wire::new(&cfg, 1_000, &[]);
    w.run(10_000 * MILLIS);
    w.assert_complete(1);
    // Data leaves at 0, arrives at 21 ms; the ACK waits for the 200 ms delayed-ACK timer.
    assert!(w.trace.contains("   221.000ms B>A ack 1"), "{}", w.trace);
}

mod properties {
    //! The sender under arbitrary ACK streams: whatever arrives (cumulative ACKs, duplicates with
    //! SACK blocks, timeouts), its window stays finite and at least one segment, what it believes
    //! in flight never exceeds what is outstanding, it sends only segments that exist, and its
    //! timer runs exactly while data is outstanding.
    use super::*;
    use crate::sim::header::tcp::SackBlock;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        /// Cumulative ACK advancing by this many segments (clamped), with a SACK block.
        Ack(u64, u64, u64),
        /// Duplicate ACK with a SACK block at (offset, length) above snd_una.
        Dup(u64, u64),
        /// The retransmission timer fires.
        Timeout,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..5, 0u64..20, 0u64..4).prop_map(|(a, o, l)| Op::Ack(a, o, l)),
            4 => (1u64..20, 1u64..4).prop_map(|(o, l)| Op::Dup(o, l)),
            1 => Just(Op::Timeout),
        ]
    }

    proptest! {
        #[test]
        fn sender_invariants(
            flavour in 0usize..ALL.len() + GROWTH_LAWS.len() + DELAY_BASED.len(),
            iw in 1u32..12,
            ops in proptest::collection::vec(op(), 1..150),
        ) {
            let (cc, sack) = ALL.iter().chain(&GROWTH_LAWS).chain(&DELAY_BASED).nth(flavour).copied().unwrap();
            let cfg = TcpConfig { initial_cwnd: iw, ..tcp(cc, sack) };
            let total = 200u64;
            let mut s = TcpSender::new(&cfg, cc::build(&cfg), Some(total * 1000));
            let mut rec = Recorder::default();
            s.start(&mut rec);
            let mut timer_armed = rec.timer.flatten().is_some();
            let mut sent = rec.data.len() as u64;
            let mut snd_max = rec.data.iter().map(|d| d.seq + 1).max().unwrap_or(0);
            for (i, op) in ops.into_iter().enumerate() {
                let now = (i as Time + 1) * MILLIS;
                let mut rec = Recorder { now, ..Default::default() };
                let una = s.snd_una();
                match op {
                    Op::Ack(adv, off, len) => {
                        let ack = (una + adv).min(snd_max);
                        let mut h = AckHeader::cumulative(ack);
                        let start = ack + 1 + off;
                        if len > 0 && start + len <= snd_max {
                            h.sack[0] = SackBlock { start, end: start + len };
                            h.n_sack = 1;
                        }
                        s.on_ack(&h, &mut rec);
                    }
                    Op::Dup(off, len) => {
                        let mut h = AckHeader::cumulative(una);
                        let start = una + off;
                        if sack && start + len <= snd_max {
                            h.sack[0] = SackBlock { start, end: start + len };
                            h.n_sack = 1;
                        }
                        s.on_ack(&h, &mut rec);
                    }
                    Op::Timeout => {
                        if timer_armed {
                            s.on_timer(&mut rec);
                            timer_armed = false;
                        }
                    }
                }
                if let Some(t) = rec.timer {
                    timer_armed = t.is_some();
                }
                for d in &rec.data {
                    prop_assert!(d.seq < total, "sent segment {} of {}", d.seq, total);
                    prop_assert!(d.seq >= s.snd_una() || d.retransmission);
                    snd_max = snd_max.max(d.seq + 1);
                }
                sent += rec.data.len() as u64;
                prop_assert_eq!(sent, s.stats.packets_sent);
                prop_assert!(s.cwnd().is_finite() && s.cwnd() >= 1.0, "cwnd {}", s.cwnd());
                prop_assert!(s.ssthresh() >= 2.0, "ssthresh {}", s.ssthresh());
                let outstanding = snd_max - s.snd_una();
                prop_assert!(s.in_flight() as u64 <= 2 * outstanding, "pipe {} outstanding {}", s.in_flight(), outstanding);
                prop_assert_eq!(timer_armed, outstanding > 0, "timer vs outstanding {}", outstanding);
            }
        }
    }
}

#[test]
fn ssthresh_is_halved_from_the_configured_basis() {
    use crate::scenario::config::SsthreshBasis;
    use crate::sim::header::tcp::SackBlock;
    // Ten segments out, segment 0 lost, three duplicate ACKs SACK 1, 1-2, 1-3. With SACK the
    // first two duplicates each release a new segment (the pipe rule = limited transmit), so 12
    // are outstanding at the third.
    for (basis, sack, expect) in [
        (SsthreshBasis::FlightSize, true, 6.0),
        (SsthreshBasis::Cwnd, true, 5.0),
        // pipe = 12 outstanding - 3 SACKed - 1 lost = 8.
        (SsthreshBasis::Pipe, true, 4.0),
        (SsthreshBasis::FlightSize, false, 5.0),
        // Without SACK: FlightSize 10 minus 3 duplicate ACKs = 7.
        (SsthreshBasis::Pipe, false, 3.5),
    ] {
        let cfg = TcpConfig {
            ssthresh_basis: basis,
            ..tcp(CcKind::Newreno, sack)
        };
        let mut s = TcpSender::new(&cfg, cc::build(&cfg), None);
        let mut rec = Recorder::default();
        s.start(&mut rec);
        assert_eq!(rec.data.len(), 10);
        for end in 2..5 {
            let mut h = AckHeader::cumulative(0);
            if sack {
                h.sack[0] = SackBlock { start: 1, end };
                h.n_sack = 1;
            }
            s.on_ack(
                &h,
                &mut Recorder {
                    now: MILLIS,
                    ..Default::default()
                },
            );
        }
        assert!(s.in_recovery(), "{basis:?}");
        assert_eq!(s.ssthresh(), expect, "{basis:?} sack={sack}");
    }
}
