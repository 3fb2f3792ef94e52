//! Trace tests of RFC 8985 RACK-TLP (`rack_tlp: true`) on the loss-recovery wire (1 ms per data
//! packet, 20 ms each way: an RTT of 41 ms, min_RTT / 4 about 10 ms), after the RFC's examples:
//! a loss in a window too small for three duplicate ACKs found by time (§3.3), a tail loss found
//! by the probe instead of a timeout (§3.3, §7), a lost retransmission found by RACK (§3.4,
//! §6.2 step 5) and reordering that RACK waits out (§6.2 steps 3-4) where DupThresh retransmits.

use proptest::prelude::*;

use super::*;
use crate::transport::tcp::config::RecoveryWindow;

fn rack(cc: CcKind) -> TcpConfig {
    TcpConfig {
        rack_tlp: true,
        ..tcp(cc, true)
    }
}

/// The line of the trace containing `needle`, and its time in ms.
fn at(trace: &str, needle: &str) -> Option<(usize, f64)> {
    trace.lines().enumerate().find_map(|(i, l)| {
        l.contains(needle).then(|| {
            (
                i,
                l.trim_start().split("ms").next().unwrap().parse().unwrap(),
            )
        })
    })
}

/// RFC 8985 §3.3's fast recovery without three duplicate ACKs: 13 segments, segment 10 lost;
/// 11 and 12 are SACKed, two duplicate ACKs only. DupThresh never fires and plain SACK waits for
/// the RTO; RACK deems 10 lost min_RTT / 4 after the RTT of 11 has passed since 10 was sent, on
/// its reordering timer, and retransmits it in fast recovery.
#[test]
fn a_loss_in_a_small_window_is_found_by_time_without_three_dupacks() {
    let mut w = Wire::new(&rack(CcKind::Newreno), 13_000, &[10]);
    w.run(10_000 * MILLIS);
    w.assert_complete(13);
    let s = &w.sender.stats;
    assert_eq!(
        (s.timeouts, s.recoveries, s.retransmissions, s.rack_timeouts),
        (0, 1, 1, 1),
        "{}",
        w.trace
    );
    assert_eq!(w.trace.matches("B>A ack 10 sack").count(), 2, "{}", w.trace);
    let (i_dup, t_dup) = at(&w.trace, "B>A ack 10 sack [11,13)").expect("second dupack");
    let (i_reo, t_reo) = at(&w.trace, "A RACK reordering timer").expect("RACK timer");
    let (i_retx, t_retx) = at(&w.trace, "A>B data 10 (retx)").expect("retransmission");
    assert!(i_dup < i_reo && i_reo < i_retx, "{}", w.trace);
    // The timer fires within min_RTT / 4 (10.26 ms) of the first SACK's arrival (20.04 ms after
    // B sent it), and the retransmission leaves at once.
    let (_, t_sack) = at(&w.trace, "B>A ack 10 sack [11,12)").unwrap();
    assert!(
        t_reo > t_sack + 20.0 && t_reo <= t_sack + 20.04 + 10.3,
        "{}",
        w.trace
    );
    assert_eq!(t_reo, t_retx);
    assert!(t_dup < t_reo);

    // Without RACK the same loss costs a retransmission timeout.
    let mut w = Wire::new(&tcp(CcKind::Newreno, true), 13_000, &[10]);
    w.run(10_000 * MILLIS);
    w.assert_complete(13);
    assert_eq!(w.sender.stats.timeouts, 1, "{}", w.trace);
}

/// A tail loss (RFC 8985 §3.3, §7): the last two segments of a transfer are lost, so no ACK
/// follows them. 2 SRTT after the last ACK the probe retransmits the last segment; its SACK
/// lets RACK deem the one before lost, and fast recovery repairs it: no timeout. Without RACK-TLP
/// the sender waits for the RTO.
#[test]
fn tail_loss_is_repaired_by_the_probe_without_a_timeout() {
    let mut w = Wire::new(&rack(CcKind::Newreno), 20_000, &[18, 19]);
    w.run(10_000 * MILLIS);
    w.assert_complete(20);
    let s = &w.sender.stats;
    assert_eq!(
        (s.timeouts, s.tlp_probes, s.recoveries, s.retransmissions),
        (0, 1, 1, 2),
        "{}",
        w.trace
    );
    let (i_probe, t_probe) = at(&w.trace, "A TLP probe").expect("probe");
    let (i_p19, _) = at(&w.trace, "A>B data 19 (retx)").expect("probe is 19 again");
    let (i_r18, _) = at(&w.trace, "A>B data 18 (retx)").expect("18 repaired");
    assert!(i_probe < i_p19 && i_p19 < i_r18, "{}", w.trace);
    // The probe leaves 2 SRTT after the last ACK (the retransmissions give no RTT sample, so
    // SRTT is still the one the PTO was computed from).
    let (_, t_last_ack) = at(&w.trace, "B>A ack 18").unwrap();
    let srtt = w.sender.srtt().unwrap() as f64 / 1e6;
    let pto = t_probe - (t_last_ack + 20.04);
    assert!(
        (pto - 2.0 * srtt).abs() < 0.01,
        "PTO {pto} ms, SRTT {srtt}\n{}",
        w.trace
    );

    let mut w = Wire::new(&tcp(CcKind::Newreno, true), 20_000, &[18, 19]);
    w.run(10_000 * MILLIS);
    w.assert_complete(20);
    assert_eq!(w.sender.stats.timeouts, 1, "{}", w.trace);
}

/// The last segment alone is lost: the probe (a retransmission of it) repairs it; one segment
/// outstanding adds WCDelAckT (200 ms) to the PTO.
#[test]
fn a_lone_lost_last_segment_is_probed_after_two_srtt_plus_the_delayed_ack_allowance() {
    let cfg = TcpConfig {
        initial_cwnd: 1,
        ..rack(CcKind::Newreno)
    };
    // One segment at a time: 0, then 1 (lost).
    let mut w = Wire::new(&cfg, 2_000, &[1]);
    w.run(10_000 * MILLIS);
    w.assert_complete(2);
    let s = &w.sender.stats;
    assert_eq!((s.timeouts, s.tlp_probes), (0, 1), "{}", w.trace);
    let (_, t_ack) = at(&w.trace, "B>A ack 1").unwrap();
    let (_, t_probe) = at(&w.trace, "A TLP probe").unwrap();
    // PTO = min(2 SRTT + 200 ms, RTO) from the ACK's arrival; RTO = max(200 ms, ...) here.
    let pto = t_probe - (t_ack + 20.04);
    let rto = w.sender.rto() as f64 / 1e6;
    assert!(
        (pto - (2.0f64 * 41.04 + 200.0).min(rto)).abs() < 1.0,
        "PTO {pto} ms\n{}",
        w.trace
    );
}

/// A lost retransmission (RFC 8985 §3.4): segment 5 and its fast retransmission are lost. The
/// segments sent after the retransmission are SACKed, so RACK deems the retransmission lost an
/// RTT after it left and sends it again, in the same recovery. RFC 6675 alone cannot see it and
/// needs a timeout.
#[test]
fn a_lost_retransmission_is_found_by_rack_without_a_timeout() {
    for recovery in [RecoveryWindow::Classic, RecoveryWindow::Prr] {
        let cfg = TcpConfig {
            recovery,
            ..rack(CcKind::Newreno)
        };
        let mut w = Wire::new(&cfg, 60_000, &[5, 5]);
        w.run(10_000 * MILLIS);
        w.assert_complete(60);
        let s = &w.sender.stats;
        assert_eq!(
            (s.timeouts, s.recoveries, s.retransmissions),
            (0, 1, 2),
            "{recovery:?}\n{}",
            w.trace
        );
        // The second retransmission leaves on the SACK of the first segment sent after the
        // first one, an RTT (41.04 ms, plus its wait at the serialiser) after that segment was
        // sent: reo_wnd is 0 in recovery before any reordering is seen.
        let (i_first, _) = at(&w.trace, "A>B data 5 (retx)").unwrap();
        let after: Vec<(f64, &str)> = w
            .trace
            .lines()
            .skip(i_first + 1)
            .map(|l| {
                let (t, rest) = l.trim_start().split_once("ms ").unwrap();
                (t.parse().unwrap(), rest)
            })
            .collect();
        let t_next = after
            .iter()
            .find(|x| x.1.starts_with("A>B data"))
            .unwrap()
            .0;
        let t_second = after
            .iter()
            .find(|x| x.1.starts_with("A>B data 5 (retx)"))
            .unwrap()
            .0;
        let gap = t_second - t_next;
        assert!(
            (41.04..51.04).contains(&gap),
            "{t_next} {t_second}\n{}",
            w.trace
        );
    }
    let mut w = Wire::new(&tcp(CcKind::Newreno, true), 60_000, &[5, 5]);
    w.run(10_000 * MILLIS);
    w.assert_complete(60);
    assert_eq!(w.sender.stats.timeouts, 1, "{}", w.trace);
}

/// A window of about 100 segments in congestion avoidance, more than the 41 of the path, so
/// that the link stays busy and the sender ACK-clocked at 1 segment per ms even after a
/// halving: a segment 8 ms late is overtaken by about 8, which SACK and three duplicate ACKs
/// take for a loss.
fn reordered(cfg: &TcpConfig, teach: bool) -> Wire {
    let cfg = TcpConfig {
        initial_cwnd: 100,
        initial_ssthresh: Some(100),
        ..cfg.clone()
    };
    let mut w = Wire::new(&cfg, 600_000, &[]);
    if teach {
        // One segment 1.5 ms late: overtaken by one or two, no loss by any rule; RACK sees
        // reordering (§6.2 step 3).
        w.delay(&[50], 1_500_000);
    }
    w.delay(&[150, 300, 450], 8 * MILLIS);
    w.run(60_000 * MILLIS);
    w.assert_complete(600);
    w
}

/// Reordering (RFC 8985 §3.2, §6.2 steps 3-4): three segments arrive 8 ms late. DupThresh
/// retransmits each spuriously (the receiver counts the duplicates). RACK that has seen
/// reordering once waits min_RTT / 4 (10 ms) before deeming a segment lost, and the late
/// segments arrive first: no retransmission. RACK that has not seen it yet retransmits the
/// first, infers from the ACK of the original (sooner than min_RTT after the retransmission)
/// that the retransmission was spurious, widens its window (reo_wnd_mult 2: 20 ms) and waits out
/// the other two.
#[test]
fn reordering_is_waited_out_by_rack_where_dupthresh_retransmits() {
    let dupthresh = reordered(&tcp(CcKind::Newreno, true), false);
    let s = &dupthresh.sender.stats;
    assert_eq!(
        (s.retransmissions, s.recoveries),
        (3, 3),
        "{}",
        dupthresh.trace
    );
    assert_eq!(dupthresh.receiver.stats.duplicates, 3);

    let taught = reordered(&rack(CcKind::Newreno), true);
    let s = &taught.sender.stats;
    assert_eq!(
        (s.retransmissions, s.recoveries, s.timeouts),
        (0, 0, 0),
        "{}",
        taught.trace
    );
    // Each wait ended with the late segment's arrival, before the reordering timer fired.
    assert_eq!(s.rack_timeouts, 0, "{}", taught.trace);
    assert_eq!(taught.receiver.stats.duplicates, 0);

    let learns = reordered(&rack(CcKind::Newreno), false);
    let s = &learns.sender.stats;
    assert_eq!(
        (s.retransmissions, s.recoveries, s.spurious_inferred),
        (1, 1, 1),
        "{}",
        learns.trace
    );
    assert!(learns.trace.contains("A>B data 150 (retx)"));
    assert_eq!(learns.receiver.stats.duplicates, 1);
    // Taught and untaught RACK both finish well before DupThresh.
    let done = |w: &Wire| {
        at(&w.trace, "B>A ack 600")
            .map(|x| x.1)
            .expect("all acknowledged")
    };
    assert!(done(&taught) < done(&dupthresh), "{}", taught.trace);
}

#[test]
fn rack_tlp_without_sack_is_refused() {
    let cfg = TcpConfig {
        rack_tlp: true,
        ..tcp(CcKind::Newreno, false)
    };
    let err = cfg.check("flows[0].transport").unwrap_err();
    assert_eq!(err.path, "flows[0].transport.rack_tlp");
}

/// Whatever is lost or reordered, every transfer with RACK-TLP completes, and no event leaves
/// more in flight than cwnd plus one (the probe or the fast retransmit, each sent beyond the
/// window) or than before it (a window cut below the pipe stops sending, it recalls nothing).
fn rack_window_is_respected(
    cc: CcKind,
    recovery: RecoveryWindow,
    pacing: bool,
    drops: &[u64],
    late: &[(u64, u32)],
) {
    let cfg = TcpConfig {
        recovery,
        pacing,
        ..rack(cc)
    };
    let mut w = Wire::new(&cfg, 400_000, drops);
    for &(seq, ms) in late {
        w.delay(&[seq], ms as Time * MILLIS);
    }
    // The first window leaves before any event is observed.
    let worst = w.watch_window(cfg.initial_cwnd);
    w.run(120_000 * MILLIS);
    w.assert_complete(400);
    assert!(
        *worst.borrow() <= 0.0,
        "{cc:?}: pipe exceeded cwnd by {}\n{}",
        worst.borrow(),
        w.trace
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn rack_tlp_completes_and_respects_the_window(
        drops in proptest::collection::vec(0u64..400, 0..20),
        late in proptest::collection::vec((0u64..400, 1u32..30), 0..12),
        which in 0usize..4,
    ) {
        let (cc, recovery, pacing) = [
            (CcKind::Newreno, RecoveryWindow::Classic, false),
            (CcKind::Newreno, RecoveryWindow::Prr, false),
            (CcKind::Cubic, RecoveryWindow::Prr, true),
            (CcKind::Bbr, RecoveryWindow::Classic, false),
        ][which];
        rack_window_is_respected(cc, recovery, pacing, &drops, &late);
    }
}
