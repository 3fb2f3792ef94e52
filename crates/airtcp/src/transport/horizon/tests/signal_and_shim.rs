//! Horizon's congestion signaller (§5.3) and its shim with TCP's sender and receiver.

use super::*;

// ---------------------------------------------------------------------------------------------
// The signaller.
// ---------------------------------------------------------------------------------------------

/// A signaller whose ŷ is `per_bin` segments per 100 ms bin (one bin closed) and whose A_ds is
/// `a_ds_ms`, asked at 100 ms.
fn signaller(p: SignalParams, per_bin: u64, a_ds_ms: f64) -> Signaller {
    let mut s = Signaller::new(p);
    for i in 0..per_bin {
        s.on_segment(i * MILLIS / 2);
    }
    s.on_ack(ms(50.0), (ms(50.0) - ms(a_ds_ms)) as i64);
    s
}

const NOW: Time = 100 * MILLIS;

/// B̂ = ŷ·RTT̂: 20 segments per 100 ms is 200/s; RTT̂ = A_sd + A_ds = 25 + 20 = 45 ms; B̂ = 9.
#[test]
fn the_window_estimate_is_rate_times_the_sum_of_the_one_way_means() {
    let mut s = signaller(SignalParams::default(), 20, 20.0);
    assert_eq!(s.rate(NOW), Some(200.0));
    assert_eq!(s.rtt(Some(ms(25.0) as f64)), Some(ms(45.0) as f64));
    assert_eq!(s.window(NOW, Some(ms(25.0) as f64)), Some(9.0));
}

/// B* = 90/sqrt(100) = 9 = B̂: no signal (strictly above only). A price of 10^6 is clamped to
/// 100, so B* stays 9 and there is still none (unclamped B* would be 0.09). One more segment
/// per bin (B̂ = 9.45) signals.
#[test]
fn no_signal_at_or_below_the_target_and_the_price_is_clamped_at_100() {
    let a_sd = Some(ms(25.0) as f64);
    let mut s = signaller(SignalParams::default(), 20, 20.0);
    assert_eq!(s.target(Some(100.0)), Some(9.0));
    assert_eq!(s.target(Some(1e6)), Some(9.0));
    assert!(!s.decide(NOW, a_sd, Some(100.0)));
    assert!(!s.decide(NOW, a_sd, Some(1e6)));
    // A lower price means a larger target: 90/sqrt(25) = 18.
    assert!(!s.decide(NOW, a_sd, Some(25.0)));
    let mut s = signaller(SignalParams::default(), 21, 20.0);
    assert!((s.window(NOW, a_sd).unwrap() - 9.45).abs() < 1e-9);
    assert!(s.decide(NOW, a_sd, Some(1e6)));
    assert_eq!(s.stats().signals, 1);
}

/// The floor of 5 acts only when the cap lets B* fall below it (A21): with a cap of 1000,
/// B* = 90/sqrt(1000) = 2.85; B̂ = 4 (10 per bin, RTT̂ 40 ms) gives no signal, B̂ = 6 does.
#[test]
fn no_signal_below_a_window_of_5() {
    let p = SignalParams {
        price_cap: 1000.0,
        ..SignalParams::default()
    };
    let a_sd = Some(ms(20.0) as f64);
    let mut s = signaller(p, 10, 20.0);
    assert_eq!(s.window(NOW, a_sd), Some(4.0));
    assert!(!s.decide(NOW, a_sd, Some(1000.0)));
    let mut s = signaller(p, 15, 20.0);
    assert_eq!(s.window(NOW, a_sd), Some(6.0));
    assert!(s.decide(NOW, a_sd, Some(1000.0)));
}

/// No price (no forwarding layer), a price of 0 or below, or NaN: no target, no signal. Nor
/// before the estimates exist: no closed bin, no ACK sample, no A_sd.
#[test]
fn no_signal_without_a_price_or_before_the_estimates_exist() {
    let a_sd = Some(ms(40.0) as f64);
    let mut s = signaller(SignalParams::default(), 100, 40.0);
    for price in [None, Some(0.0), Some(-3.0), Some(f64::NAN)] {
        assert!(!s.decide(NOW, a_sd, price), "{price:?}");
    }
    assert!(!s.decide(NOW, None, Some(100.0)), "no A_sd");
    let mut fresh = Signaller::new(SignalParams::default());
    fresh.on_segment(0);
    fresh.on_ack(ms(10.0), 0);
    assert!(!fresh.decide(ms(99.0), a_sd, Some(100.0)), "no bin closed");
    let mut no_ack = Signaller::new(SignalParams::default());
    no_ack.on_segment(0);
    assert!(!no_ack.decide(NOW, a_sd, Some(100.0)), "no ACK");
    assert!(s.decide(NOW, a_sd, Some(100.0)));
}

/// At most one signal per RTT̂ (80 ms here): refused at +79.999 ms, allowed at +80 ms.
#[test]
fn at_most_one_signal_per_rtt_estimate() {
    let a_sd = Some(ms(40.0) as f64);
    let mut s = signaller(SignalParams::default(), 100, 40.0);
    assert!(s.decide(NOW, a_sd, Some(100.0)));
    assert!(!s.decide(NOW, a_sd, Some(100.0)));
    assert!(!s.decide(NOW + ms(79.999), a_sd, Some(100.0)));
    assert!(s.decide(NOW + ms(80.0), a_sd, Some(100.0)));
    assert_eq!((s.stats().signals, s.stats().rate_limited), (2, 2));
}

/// Idle bins count as zeros, folded lazily: 20 segments in [0, 100 ms), then nothing: at
/// 400 ms three empty bins have closed, ŷ = 20·(7/8)^3 per bin.
#[test]
fn idle_bins_count_as_zero() {
    let mut s = Signaller::new(SignalParams::default());
    for i in 0..20 {
        s.on_segment(i * MILLIS);
    }
    assert_eq!(s.rate(ms(99.0)), None);
    assert_eq!(s.rate(ms(100.0)), Some(200.0));
    assert_eq!(s.rate(ms(400.0)), Some(200.0 * 0.669_921_875));
    // A year of silence is a handful of multiplications, not a loop over 3·10^8 bins.
    assert_eq!(s.rate(365 * 24 * 3600 * SECS), Some(0.0));
}

// ---------------------------------------------------------------------------------------------
// The shim on the seam, against a recording io.
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Rec {
    now: Time,
    price: Option<f64>,
    up: Vec<u64>,
    acks: Vec<AckHeader>,
    timers: Vec<(ShimTimer, Option<Time>)>,
}

impl ShimIo for Rec {
    fn now(&self) -> Time {
        self.now
    }
    fn send(&mut self, _from: End, _size: u32, _header: ShimHeader) {
        unreachable!("Horizon's shim sends no packets of its own");
    }
    fn set_timer(&mut self, timer: ShimTimer, deadline: Option<Time>) {
        self.timers.push((timer, deadline));
    }
    fn deliver(&mut self, segment: DataHeader) {
        self.up.push(segment.seq);
    }
    fn replay_ack(&mut self, ack: AckHeader) {
        self.acks.push(ack);
    }
    fn sender_timing(&self) -> Option<SenderTiming> {
        None
    }
    fn layer_price(&self, _end: End) -> Option<f64> {
        self.price
    }
}

fn segment(seq: u64) -> DataHeader {
    DataHeader {
        seq,
        len: 1460,
        last: false,
        retransmission: false,
    }
}

/// Segment `seq` with PktID `seq`, sent at `sent_ms`, arriving on flow path `path`, `size` on
/// the wire.
fn data_arrival(seq: u64, sent_ms: f64, path: u8, size: u32) -> Arrival {
    Arrival {
        size,
        path,
        created: ms(sent_ms),
        layer_seq: seq as u16,
    }
}

/// What TCP's receiver gets from one arrival: the segment itself if passed, then (as the world
/// applies them after the hook) the segments handed up.
fn arrive(
    shim: &mut HorizonShim,
    io: &mut Rec,
    at: f64,
    seq: u64,
    sent: f64,
    path: u8,
    size: u32,
) -> (Verdict, Vec<u64>) {
    io.now = ms(at);
    let arrival = data_arrival(seq, sent, path, size);
    let verdict = shim.on_arriving_segment(&segment(seq), arrival, io);
    let mut tcp = Vec::new();
    if verdict == Verdict::Pass {
        tcp.push(seq);
    }
    tcp.append(&mut io.up);
    (verdict, tcp)
}

/// At the destination: a segment that goes up alone passes; one that waits is consumed and
/// handed up with those behind it, in order, when the gap fills or at the deadline (the seam's
/// timer 0); 59 B of IP (78 on the wire with Horizon's 19) bypass, 60 B do not.
#[test]
fn the_shim_holds_segments_and_hands_them_up_in_order() {
    use Verdict::{Consumed, Pass};
    let mut shim = HorizonShim::new(&HorizonShimParams::default(), vec![FAST, SLOW]);
    assert_eq!((shim.timers(), shim.sees_arrivals()), (1, true));
    assert!(!shim.replaces_receiver_acks());
    let mut io = Rec::default();
    let io = &mut io;
    assert_eq!(
        arrive(&mut shim, io, 10.0, 0, 0.0, 0, 1519),
        (Pass, vec![0])
    );
    assert_eq!(
        arrive(&mut shim, io, 12.0, 2, 2.0, 0, 1519),
        (Consumed, vec![])
    );
    // A = 10, D = 7.5: p2's deadline is 2 + 10 + 30 = 42 ms, on timer 0.
    assert_eq!(io.timers, [(REORDER_TIMER, Some(ms(42.0)))]);
    assert_eq!(arrive(&mut shim, io, 13.0, 3, 3.0, 0, 78), (Pass, vec![3]));
    assert_eq!(
        arrive(&mut shim, io, 14.0, 4, 4.0, 0, 79),
        (Consumed, vec![])
    );
    // p1 arrives on the slow path: p1 (itself) p2 p4 go up through deliver, in order, and
    // p3's PktID is passed over.
    assert_eq!(
        arrive(&mut shim, io, 21.0, 1, 1.0, 1, 1519),
        (Consumed, vec![1, 2, 4])
    );
    assert_eq!(io.timers.last(), Some(&(REORDER_TIMER, None)));
    // p6 waits for p5, which never comes: up at its deadline, from the timer.
    assert_eq!(
        arrive(&mut shim, io, 26.0, 6, 6.0, 0, 1519),
        (Consumed, vec![])
    );
    let (_, Some(deadline)) = *io.timers.last().unwrap() else {
        panic!("{:?}", io.timers)
    };
    io.now = deadline;
    shim.on_timer(REORDER_TIMER, io);
    assert_eq!(io.up, [6]);
    let c = shim.counters();
    assert_eq!(
        (
            c.reorder.stats.in_order,
            c.reorder.stats.out_of_order,
            c.reorder.stats.bypassed
        ),
        (4, 1, 1)
    );
    let report = shim.report().unwrap();
    assert_eq!(report.key, "horizon");
    assert!(
        report
            .value
            .get()
            .starts_with(r#"{"reorder":{"arrivals":6,"in_order":4,"out_of_order":1,"#),
        "{}",
        report.value.get()
    );
}

// ---------------------------------------------------------------------------------------------
// The fake triple duplicate ACK against a real TCP sender (spec §6(a) 11).
// ---------------------------------------------------------------------------------------------

/// TCP's sender's io: what it sends is recorded and passes through the shim's source hook.
struct SenderIo<'a> {
    now: Time,
    shim: &'a mut HorizonShim,
    shim_io: &'a mut Rec,
    sent: Vec<DataHeader>,
}

impl TcpIo for SenderIo<'_> {
    fn now(&self) -> Time {
        self.now
    }
    fn send_data(&mut self, header: DataHeader) {
        self.shim_io.now = self.now;
        assert_eq!(
            self.shim.on_sender_segment(header, self.shim_io),
            Verdict::Pass
        );
        self.sent.push(header);
    }
    fn send_ack(&mut self, _header: AckHeader) {
        unreachable!("the sender sends no ACKs");
    }
    fn set_timer(&mut self, _deadline: Option<Time>) {}
}

/// A TCP flow in congestion avoidance with 20 segments out, a Horizon shim at its ends, and
/// the source's price at 100 (B* = 9).
struct Bench {
    sender: TcpSender,
    shim: HorizonShim,
    io: Rec,
}

impl Bench {
    /// NewReno (`CcKind::Newreno`), ns-2 Reno (`CcKind::Reno`), or NewReno with SACK recovery.
    /// cwnd 20 = ssthresh 20 is congestion avoidance; segments 0..20 leave at 0.
    fn new(cc: CcKind, sack: bool) -> Self {
        let cfg = TcpConfig {
            cc,
            sack,
            mss: 1460,
            delayed_ack: 1,
            initial_cwnd: 20,
            initial_ssthresh: Some(20),
            ..TcpConfig::default()
        };
        let mut bench = Bench {
            sender: TcpSender::new(&cfg, cc::build(&cfg), None),
            shim: HorizonShim::new(&HorizonShimParams::default(), vec![FAST, SLOW]),
            io: Rec {
                price: Some(100.0),
                ..Rec::default()
            },
        };
        let sent = bench.tcp(0, |s, io| s.start(io));
        assert_eq!(sent.len(), 20);
        // Segment 0 reaches the destination at 50 ms: A_sd = 50 ms.
        bench.io.now = ms(50.0);
        let v = bench.shim.on_arriving_segment(
            &segment(0),
            data_arrival(0, 0.0, 0, 1519),
            &mut bench.io,
        );
        assert_eq!(v, Verdict::Pass);
        bench
    }

    /// Runs `f` on the sender at `now`; returns what it sent.
    fn tcp(&mut self, now: Time, f: impl FnOnce(&mut TcpSender, &mut SenderIo)) -> Vec<DataHeader> {
        let mut io = SenderIo {
            now,
            shim: &mut self.shim,
            shim_io: &mut self.io,
            sent: Vec::new(),
        };
        f(&mut self.sender, &mut io);
        io.sent
    }

    /// ACK `ack`, sent by the destination at `sent_ms`, arrives at `at_ms`: through the shim,
    /// then (as the world does after the hook) whatever reaches TCP's sender. Returns the
    /// shim's verdict, the ACKs TCP got and what it sent, per ACK.
    fn ack(&mut self, at_ms: f64, ack: u64, sent_ms: f64) -> (Verdict, Vec<Vec<DataHeader>>) {
        let now = ms(at_ms);
        self.io.now = now;
        let h = AckHeader::cumulative(ack);
        let arrival = Arrival {
            size: 59,
            path: 0,
            created: ms(sent_ms),
            layer_seq: 0,
        };
        let verdict = self.shim.on_arriving_ack(&h, arrival, &mut self.io);
        let acks: Vec<_> = match verdict {
            Verdict::Pass => vec![h],
            Verdict::Consumed => self.io.acks.drain(..).collect(),
        };
        let sent = acks
            .iter()
            .map(|a| self.tcp(now, |s, io| s.on_ack(a, io)))
            .collect();
        (verdict, sent)
    }

    fn state(&self) -> (f64, f64, u64, u64, u64) {
        let s = &self.sender;
        (
            s.cwnd(),
            s.ssthresh(),
            s.stats.retransmissions,
            s.stats.recoveries,
            s.stats.packets_sent,
        )
    }
}

/// One signal: the shim consumes ACK 1 (B̂ = ŷ·RTT̂ = 200/s · (50 + 50) ms = 20 > B* = 9) and
/// replays it four times. The real one is new data (cwnd 20.05, segment 20 goes out, 20 in
/// flight); the three duplicates put TCP into recovery with exactly one retransmission, of
/// snd_una = 1, and ssthresh = FlightSize/2 = 10. Same for every recovery flavour.
#[test]
fn a_fake_triple_duplicate_ack_retransmits_snd_una_once_and_halves_flight_size() {
    for (cc, sack) in [
        (CcKind::Newreno, true),
        (CcKind::Newreno, false),
        (CcKind::Reno, false),
    ] {
        let mut b = Bench::new(cc, sack);
        let (verdict, sent) = b.ack(100.0, 1, 50.0);
        assert_eq!(verdict, Verdict::Consumed, "{cc:?} sack {sack}");
        assert_eq!(sent.len(), 4, "the ACK and three duplicates");
        let new: Vec<u64> = sent[0].iter().map(|h| h.seq).collect();
        assert_eq!(
            new,
            [20],
            "the real ACK: one new segment in congestion avoidance"
        );
        assert!(sent[1].is_empty() && sent[2].is_empty());
        assert_eq!(sent[3].len(), 1, "{cc:?} sack {sack}: {:?}", sent[3]);
        let retx = sent[3][0];
        assert!(retx.retransmission);
        assert_eq!(retx.seq, 1);
        assert_eq!(b.sender.snd_una(), 1);
        // FlightSize when recovery began: segments 1..=20.
        assert_eq!(b.sender.ssthresh(), 20.0 / 2.0);
        assert_eq!(
            (b.sender.stats.retransmissions, b.sender.stats.recoveries),
            (1, 1)
        );
        assert!(b.sender.in_recovery());
        let c = b.shim.counters().signal;
        assert_eq!((c.stats.signals, c.signal_retransmits), (1, 1));
    }
}

/// A second signal within the same window (snd_una below `recover` = 20) changes nothing:
/// no second recovery, no retransmission, no new segment, ssthresh kept. What absorbs it
/// depends on the flavour:
/// - SACK (RFC 6675, the testbed's TCP): still in recovery, and duplicates with nothing new
///   SACKed move neither pipe nor cwnd: nothing at all changes.
/// - NewReno: still in recovery too, and each duplicate inflates cwnd by one (RFC 6582 takes
///   it for a segment that left the network, which a fake one did not): cwnd + 3, but the
///   window does not reach past what is out, so nothing is sent.
/// - ns-2 Reno: the first new ACK ended recovery, so the duplicates meet the `recover` guard
///   (RFC 6582 §3.2 step 2) and are ignored.
///
/// The shim itself sends the second signal only RTT̂ = 100 ms after the first: ACK 2 arrives
/// at 200 ms, partial (below `recover`).
#[test]
fn a_second_signal_within_the_same_window_changes_nothing() {
    for (cc, sack, inflation) in [
        (CcKind::Newreno, true, 0.0),
        (CcKind::Newreno, false, 3.0),
        (CcKind::Reno, false, 0.0),
    ] {
        let mut b = Bench::new(cc, sack);
        b.ack(100.0, 1, 50.0);
        // Within RTT̂ of the first the shim would not signal (not handed to TCP here).
        b.io.now = ms(150.0);
        let dup = Arrival {
            size: 59,
            path: 0,
            created: ms(100.0),
            layer_seq: 0,
        };
        let v = b
            .shim
            .on_arriving_ack(&AckHeader::cumulative(1), dup, &mut b.io);
        assert_eq!(v, Verdict::Pass);
        // The segments of the window arrive in order: ACK 2 at 200 ms, sent at 150 ms.
        b.io.now = ms(200.0);
        let h = AckHeader::cumulative(2);
        let arrival = Arrival {
            size: 59,
            path: 0,
            created: ms(150.0),
            layer_seq: 0,
        };
        assert_eq!(
            b.shim.on_arriving_ack(&h, arrival, &mut b.io),
            Verdict::Consumed
        );
        let replays: Vec<_> = b.io.acks.drain(..).collect();
        assert_eq!(replays, [h; 4]);
        // The real ACK is TCP's business (a partial ACK); then the three fake duplicates.
        b.tcp(ms(200.0), |s, io| s.on_ack(&replays[0], io));
        let before = b.state();
        let mut sent = Vec::new();
        for a in &replays[1..] {
            sent.extend(b.tcp(ms(200.0), |s, io| s.on_ack(a, io)));
        }
        let after = b.state();
        let what = format!("{cc:?} sack {sack}");
        assert!(sent.is_empty(), "{what}: {sent:?}");
        assert_eq!(after.0, before.0 + inflation, "{what}: cwnd");
        assert_eq!(
            (after.1, after.2, after.3, after.4),
            (before.1, before.2, before.3, before.4)
        );
        assert_eq!(
            (after.1, after.3),
            (10.0, 1),
            "{what}: one recovery, ssthresh 10"
        );
        assert_eq!(b.shim.counters().signal.stats.signals, 2);
    }
}

/// The rest of the window's ACKs after one fake signal (the original segments all arrived):
/// with SACK or Reno the spurious retransmission of snd_una stays the only one; NewReno
/// without SACK takes each of them for a partial ACK and retransmits the next segment every
/// time, 19 more spurious retransmissions (RFC 6582's known cost of a spurious fast
/// retransmit), which a Horizon run with non-SACK TCP pays in air time.
#[test]
fn after_a_fake_signal_only_newreno_without_sack_retransmits_the_rest_of_the_window() {
    for (cc, sack, extra) in [
        (CcKind::Newreno, true, 0),
        (CcKind::Reno, false, 0),
        (CcKind::Newreno, false, 19),
    ] {
        let mut b = Bench::new(cc, sack);
        b.ack(100.0, 1, 50.0);
        b.io.price = None; // no further signals
        let mut retx = 0;
        for ack in 2..=21 {
            let (_, sent) = b.ack(100.0 + ack as f64, ack, 50.0 + ack as f64);
            retx += sent.iter().flatten().filter(|h| h.retransmission).count();
        }
        assert_eq!(retx, extra, "{cc:?} sack {sack}");
        assert_eq!(b.sender.stats.recoveries, 1);
    }
}

/// With no price (no forwarding layer prices the flow) or signalling off, ACKs pass.
#[test]
fn acks_pass_without_a_price_or_with_signalling_off() {
    let mut b = Bench::new(CcKind::Newreno, true);
    b.io.price = None;
    assert_eq!(b.ack(100.0, 1, 50.0).0, Verdict::Pass);
    let off = HorizonShimParams {
        signal_mode: SignalMode::Off,
        ..HorizonShimParams::default()
    };
    let mut b = Bench::new(CcKind::Newreno, true);
    b.shim = HorizonShim::new(&off, vec![FAST, SLOW]);
    b.io.now = ms(50.0);
    let arrival = data_arrival(0, 0.0, 0, 1519);
    b.shim.on_arriving_segment(&segment(0), arrival, &mut b.io);
    for i in 0..20 {
        b.shim.on_sender_segment(segment(i), &mut b.io);
    }
    assert_eq!(b.ack(100.0, 1, 50.0).0, Verdict::Pass);
    assert_eq!(b.shim.counters().signal.stats.signals, 0);
}
