//! Trace tests of the pieces Linux runs: PRR (RFC 9937), pacing and BBR v1, on the same wire as
//! the loss-recovery tests (1 ms per data packet, 20 ms each way, losses by sequence number).

use std::cell::RefCell;
use std::rc::Rc;

use proptest::prelude::*;

use super::*;
use crate::transport::tcp::config::RecoveryWindow;

/// What an observer collects: (time, mode, cwnd, in flight) after each event.
type Samples = Rc<RefCell<Vec<(Time, f64, f64, u32)>>>;

fn prr(cc: CcKind) -> TcpConfig {
    TcpConfig {
        recovery: RecoveryWindow::Prr,
        ..tcp(cc, true)
    }
}

/// The data sends (time, sequence) of a trace, retransmissions included.
fn sends(trace: &str) -> Vec<(f64, u64)> {
    trace
        .lines()
        .filter_map(|l| {
            let (t, rest) = l.trim_start().split_once("ms ")?;
            let seq = rest.strip_prefix("A>B data ")?.split(' ').next()?;
            Some((t.parse().ok()?, seq.parse().ok()?))
        })
        .collect()
}

/// One loss in a window of about 20: with PRR the sender keeps sending through recovery, about
/// one segment for every two delivered, and leaves recovery at ssthresh; with the classic rule
/// it sends nothing until half the window's ACKs have come back.
#[test]
fn prr_sends_through_recovery_half_as_fast_as_data_is_delivered() {
    let mut runs = Vec::new();
    for cfg in [prr(CcKind::Newreno), tcp(CcKind::Newreno, true)] {
        let cfg = TcpConfig {
            initial_cwnd: 20,
            initial_ssthresh: Some(20),
            ..cfg
        };
        let mut w = Wire::new(&cfg, 60_000, &[25]);
        w.run(10_000 * MILLIS);
        w.assert_complete(60);
        assert_eq!(w.sender.stats.recoveries, 1, "{}", w.trace);
        assert_eq!(w.sender.stats.timeouts, 0, "{}", w.trace);
        // The sends between the fast retransmit of 25 and the ACK that ends recovery.
        let s = sends(&w.trace);
        let start = s.iter().position(|&(_, q)| q == 25).unwrap();
        let retx = start + 1 + s[start + 1..].iter().position(|&(_, q)| q == 25).unwrap();
        let first_ack_after = s[retx].0 + 41.0;
        let during: Vec<u64> = s[retx + 1..]
            .iter()
            .filter(|&&(t, _)| t < first_ack_after)
            .map(|&(_, q)| q)
            .collect();
        runs.push((during.len(), w.trace.clone()));
    }
    let (prr_sent, trace) = &runs[0];
    let (classic_sent, _) = &runs[1];
    // ~20 in flight, ssthresh ~10: PRR sends about 9 new segments while the 19 ACKs of the
    // round come in; the classic rule sends only after pipe fell to ssthresh, about as many,
    // but all in the second half.
    assert!((7..=11).contains(prr_sent), "PRR sent {prr_sent}\n{trace}");
    assert!(*classic_sent <= 11, "classic sent {classic_sent}");
}

/// PRR leaves recovery with cwnd = ssthresh, and the window never exceeds what was in flight
/// at the start of recovery.
#[test]
fn prr_ends_recovery_at_ssthresh() {
    let cfg = TcpConfig {
        initial_cwnd: 20,
        initial_ssthresh: Some(20),
        ..prr(CcKind::Newreno)
    };
    let mut w = Wire::new(&cfg, 80_000, &[25, 27, 30]);
    let seen: Rc<RefCell<Vec<(bool, f64, f64)>>> = Rc::default();
    let log = seen.clone();
    w.observer = Some(Box::new(move |_, s| {
        log.borrow_mut()
            .push((s.in_recovery(), s.cwnd(), s.ssthresh()));
    }));
    w.run(10_000 * MILLIS);
    w.assert_complete(80);
    let seen = seen.borrow();
    let exit = seen
        .windows(2)
        .find(|p| p[0].0 && !p[1].0)
        .expect("recovery ended");
    let (_, cwnd, ssthresh) = exit[1];
    assert!(
        (cwnd - ssthresh).abs() < 1e-9 || cwnd > ssthresh,
        "{cwnd} {ssthresh}"
    );
    assert!(
        seen.iter().filter(|x| x.0).all(|x| x.1 <= 21.0),
        "{}",
        w.trace
    );
}

#[test]
fn prr_without_sack_is_refused() {
    let cfg = TcpConfig {
        recovery: RecoveryWindow::Prr,
        ..tcp(CcKind::Newreno, false)
    };
    let err = cfg.check("flows[0].transport").unwrap_err();
    assert_eq!(err.path, "flows[0].transport.recovery");
}

pub(super) fn metric(s: &TcpSender, name: &str) -> f64 {
    s.cc_metrics()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|x| x.1)
        .unwrap_or(f64::NAN)
}

/// Records BBR's mode, cwnd and flight after every event of `w`.
fn record_modes(w: &mut Wire) -> Samples {
    let modes: Samples = Rc::default();
    let log = modes.clone();
    w.observer = Some(Box::new(move |now, s| {
        log.borrow_mut()
            .push((now, metric(s, "mode"), s.cwnd(), s.in_flight()));
    }));
    modes
}

/// BBR on the wire (1000 segments/s, 41 ms RTT): Startup finds the bottleneck, Drain empties
/// the queue Startup built, and ProbeBW keeps the RTT near RTprop with the link full.
#[test]
fn bbr_finds_the_bottleneck_rate_and_drains_the_startup_queue() {
    let cfg = tcp(CcKind::Bbr, true);
    let mut w = Wire::new(&cfg, 10_000_000, &[]);
    let modes = record_modes(&mut w);
    w.run(6_000 * MILLIS);
    let btl_bw = metric(&w.sender, "btl_bw");
    let rt_prop = metric(&w.sender, "rt_prop_s");
    assert!((btl_bw - 1000.0).abs() < 30.0, "BtlBw {btl_bw}");
    assert!((rt_prop - 0.0411).abs() < 0.002, "RTprop {rt_prop}");
    let modes = modes.borrow();
    let mut visited: Vec<f64> = modes.iter().map(|m| m.1).collect();
    visited.dedup();
    assert_eq!(&visited[..3], &[0.0, 1.0, 2.0], "Startup, Drain, ProbeBW");
    // In ProbeBW the window is about 2 BDP (41 segments) + 3, never near Startup's 2.89 x.
    let late: Vec<_> = modes.iter().filter(|m| m.0 > 3_000 * MILLIS).collect();
    assert!(
        late.iter().all(|m| m.2 < 2.2 * 41.0 + 6.0),
        "cwnd too large"
    );
    // The link stays busy: 5 s of ProbeBW deliver at least 95 % of 1000 segments/s.
    let done = w.receiver.rcv_nxt();
    assert!(done as f64 > 0.93 * 6000.0, "delivered {done}");
    // The mean RTT of the last seconds stays within 1.5 RTprop (the queue was drained).
    let srtt = w.sender.srtt().unwrap() as f64 / 1e9;
    assert!(srtt < 1.5 * rt_prop, "srtt {srtt} vs RTprop {rt_prop}");
}

/// Pacing spaces BBR's segments: after Startup no two leave closer together than one segment
/// at the highest ProbeBW rate (1.25 x BtlBw), although delayed ACKs acknowledge two at a time.
#[test]
fn bbr_paces_its_segments() {
    let cfg = TcpConfig {
        delayed_ack: 2,
        ..tcp(CcKind::Bbr, true)
    };
    let mut w = Wire::new(&cfg, 3_000_000, &[]);
    w.run(3_000 * MILLIS);
    let s = sends(&w.trace);
    let late: Vec<f64> = s.iter().filter(|x| x.0 > 1500.0).map(|x| x.0).collect();
    let gap = late
        .windows(2)
        .map(|p| p[1] - p[0])
        .fold(f64::MAX, f64::min);
    assert!(gap >= 0.99 / 1.25, "closest sends {gap} ms apart");
    // Without pacing the same ACK clock releases segments in pairs.
    let mut w = Wire::new(
        &TcpConfig {
            delayed_ack: 2,
            ..tcp(CcKind::Newreno, true)
        },
        3_000_000,
        &[],
    );
    w.run(3_000 * MILLIS);
    let s = sends(&w.trace);
    let pairs = s.windows(2).filter(|p| p[1].0 == p[0].0).count();
    assert!(pairs > 100, "{pairs}");
}

/// ProbeRTT: ten seconds without a lower RTT sample, BBR holds 4 segments in flight for at least
/// 200 ms and a round, then returns to ProbeBW with its window restored.
#[test]
fn bbr_probes_rtt_every_ten_seconds() {
    let cfg = tcp(CcKind::Bbr, true);
    let mut w = Wire::new(&cfg, 20_000_000, &[]);
    let modes = record_modes(&mut w);
    w.run(13_000 * MILLIS);
    let modes = modes.borrow();
    let probe: Vec<_> = modes.iter().filter(|m| m.1 == 3.0).collect();
    assert!(!probe.is_empty(), "no ProbeRTT");
    let (t0, t1) = (probe[0].0, probe.last().unwrap().0);
    assert!(
        t0 > 9_000 * MILLIS && t0 < 11_500 * MILLIS,
        "entered at {t0}"
    );
    assert!(t1 - t0 >= 200 * MILLIS, "lasted {} ms", (t1 - t0) / MILLIS);
    assert!(probe.iter().all(|m| m.2 <= 4.0));
    let after = modes.iter().find(|m| m.0 > t1).expect("left ProbeRTT");
    assert_eq!(after.1, 2.0, "back to ProbeBW");
    assert!(after.2 > 20.0, "window restored: {}", after.2);
}

/// A random loss pattern and every controller: the window is respected (no event leaves more in
/// flight than both cwnd, plus the one segment a fast retransmit may add, and what was in flight
/// before it: a window cut below the pipe stops sending, it does not recall segments) and every
/// transfer completes.
fn window_is_respected(cc: CcKind, recovery: RecoveryWindow, pacing: bool, drops: &[u64]) {
    let cfg = TcpConfig {
        recovery,
        pacing,
        ..tcp(cc, true)
    };
    let mut w = Wire::new(&cfg, 400_000, drops);
    // The first window leaves before any event is observed.
    let worst = w.watch_window(cfg.initial_cwnd);
    w.run(120_000 * MILLIS);
    w.assert_complete(400);
    assert!(
        *worst.borrow() <= 0.0,
        "{cc:?}: pipe exceeded cwnd by {}",
        worst.borrow()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn no_controller_sends_beyond_its_window(
        drops in proptest::collection::vec(0u64..400, 0..12),
        which in 0usize..5,
    ) {
        let (cc, recovery, pacing) = [
            (CcKind::Bbr, RecoveryWindow::Classic, false),
            (CcKind::Bbr3, RecoveryWindow::Classic, false),
            (CcKind::Newreno, RecoveryWindow::Prr, false),
            (CcKind::Cubic, RecoveryWindow::Prr, true),
            (CcKind::Newreno, RecoveryWindow::Classic, true),
        ][which];
        window_is_respected(cc, recovery, pacing, &drops);
    }
}

/// HyStart on the wire (1000 segments/s, 41 ms RTT, an unbounded queue): plain slow start never
/// ends without a loss, Linux's HyStart ends it once the queue adds an eighth of the RTT (about
/// 5 segments beyond the BDP of 41), HyStart++ after its 5 rounds of Conservative Slow Start.
#[test]
fn hystart_ends_slow_start_near_the_bdp() {
    use crate::transport::tcp::cc::hystart::HyStartKind;
    use crate::transport::tcp::config::CcParams;
    let exit = |kind: HyStartKind| {
        let cfg = TcpConfig {
            cc_params: CcParams {
                cubic: Some(crate::transport::tcp::cc::cubic::CubicParams {
                    hystart: kind,
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..tcp(CcKind::Cubic, true)
        };
        let mut w = Wire::new(&cfg, 10_000_000, &[]);
        w.run(3_000 * MILLIS);
        assert_eq!(w.sender.stats.retransmissions, 0);
        w.sender.ssthresh()
    };
    assert!(exit(HyStartKind::None).is_infinite());
    let linux = exit(HyStartKind::Linux);
    assert!(
        (41.0..70.0).contains(&linux),
        "Linux HyStart left at {linux}"
    );
    let plus = exit(HyStartKind::Rfc9406);
    assert!(plus.is_finite() && plus > linux, "HyStart++ left at {plus}");
    // ns-3's threshold (the RTT doubles) lets the queue reach about a BDP first.
    let ns3 = exit(HyStartKind::Ns3);
    assert!(ns3 > linux, "ns-3 HyStart left at {ns3}");
}

/// A window law that records what each ACK's sample says was in flight before it.
struct FlightRecorder(std::sync::Arc<std::sync::Mutex<Vec<u32>>>);

impl cc::CongestionControl for FlightRecorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, state: &mut cc::CcState, ack: &cc::AckSample) {
        self.0.lock().unwrap().push(ack.in_flight);
        state.cwnd += 1.0 / state.cwnd;
    }
    fn ssthresh(&mut self, state: &cc::CcState, _in_flight: f64) -> f64 {
        state.cwnd / 2.0
    }
}

/// The window laws' "in flight before this ACK" is the pipe after the ACK's SACK blocks (what
/// Vegas and Cubic's cwnd-limited test have always read), not before them: an ACK that advances
/// and also SACKs segments (its predecessor, which carried the block, was lost on a wireless hop)
/// reports the pipe without the segments it SACKs.
#[test]
fn window_laws_see_the_pipe_after_the_acks_sack_blocks() {
    let cfg = TcpConfig {
        initial_cwnd: 10,
        initial_ssthresh: Some(2),
        ..tcp(CcKind::Newreno, true)
    };
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut sender = TcpSender::new(&cfg, Box::new(FlightRecorder(seen.clone())), None);
    let mut rec = Recorder::default();
    sender.start(&mut rec);
    assert_eq!(rec.data.len(), 10);
    let mut ack = AckHeader::cumulative(2);
    ack.sack[0] = crate::sim::header::tcp::SackBlock { start: 4, end: 6 };
    ack.n_sack = 1;
    let mut rec = Recorder {
        now: 50 * MILLIS,
        ..Default::default()
    };
    sender.on_ack(&ack, &mut rec);
    // 10 outstanding, 2 of them SACKed by this ACK: the law sees 8, not 10.
    assert_eq!(*seen.lock().unwrap(), vec![8]);
}
