use super::*;
use crate::sim::time::MILLIS;

fn params(kappa: f64, rho: f64, p_s: f64, update_interval: Time) -> QuicTcpParams {
    QuicTcpParams {
        kappa,
        rho,
        p_s,
        update_interval: Some(update_interval),
        cadence: None,
    }
}

fn with_cadence(kappa: f64, rho: f64, p_s: f64, kind: &str, cap_double: bool) -> QuicTcp {
    QuicTcp::new(QuicTcpParams {
        kappa,
        rho,
        p_s,
        update_interval: None,
        cadence: Some(match kind {
            "per_ack" => QuicCadence::PerAck { cap_double },
            "interval" => QuicCadence::Interval {
                every: 20 * MILLIS,
                cap_double,
            },
            _ => QuicCadence::FastRounds { cap_double },
        }),
    })
}

fn ack(now: Time, rtt: Time, base: Time, in_flight: u32) -> AckSample {
    AckSample {
        now,
        acked: 1,
        rtt: Some(rtt),
        min_rtt: Some(base),
        srtt: Some(rtt),
        in_flight,
    }
}

fn ca(cwnd: f64) -> CcState {
    CcState {
        cwnd,
        ssthresh: 2.0,
    }
}

#[test]
fn avg_rtt_is_eq_8() {
    let mut q = QuicTcp::new(params(0.01, 0.5, 10.0, 0));
    let mut s = ca(10.0);
    q.on_ack(&mut s, &ack(0, 100 * MILLIS, 100 * MILLIS, 10));
    q.on_ack(&mut s, &ack(1, 356 * MILLIS, 100 * MILLIS, 10));
    // 255/256 * 100 ms + 356 ms / 256 = 101 ms.
    assert!((q.avg_rtt.unwrap() - 101e6).abs() < 1.0);
}

#[test]
fn one_step_is_eq_9() {
    let mut q = QuicTcp::new(params(0.1, 0.25, 10.0, 0));
    // r = 0.8, w = 100: v = 100 - 80 - 10 = 10; gain = 0.1 * 0.8 * 100^0.5 = 0.8.
    let w = q.step(100.0, 0.8);
    assert!((w - 92.0).abs() < 1e-9, "{w}");
    assert!((q.v.unwrap() - 10.0).abs() < 1e-9);
    // The paper's ns-2 setting near its equilibrium: kappa 1.5, rho 1/2, p_s 200, w 278.1,
    // r 0.2812: v = 278.1 * 0.7188 - 200 = -0.1017, gain 1.5 * 0.2812 = 0.4218.
    let mut q = QuicTcp::new(params(1.5, 0.5, 200.0, 0));
    let w = q.step(278.1, 0.2812);
    assert!((q.v.unwrap() + 0.1017).abs() < 5e-5, "{:?}", q.v);
    assert!((w - 278.1429).abs() < 5e-5, "{w}");
    // rho = 0 far from equilibrium (Matlab kappa 0.05): v = 50 - 200 = -150, gain
    // 0.05 * 0.5 * 100 = 2.5, w' = 100 + 375.
    let mut q = QuicTcp::new(params(0.05, 0.0, 200.0, 0));
    let w = q.step(100.0, 0.5);
    assert!((q.v.unwrap() + 150.0).abs() < 1e-9, "{:?}", q.v);
    assert!((w - 475.0).abs() < 1e-9, "{w}");
    // rho = 1: gain kappa r / w; rho = 0: kappa r w.
    let mut q = QuicTcp::new(params(0.1, 1.0, 10.0, 0));
    assert!((q.step(100.0, 0.8) - (100.0 - 0.1 * 0.8 / 100.0 * 10.0)).abs() < 1e-12);
    let mut q = QuicTcp::new(params(0.001, 0.0, 10.0, 0));
    assert!((q.step(100.0, 0.8) - (100.0 - 0.001 * 0.8 * 100.0 * 10.0)).abs() < 1e-12);
    // A huge step never takes the window below two segments.
    let mut q = QuicTcp::new(params(100.0, 0.0, 10.0, 0));
    assert_eq!(q.step(100.0, 0.5), 2.0);
}

#[test]
fn interval_mode_updates_once_per_interval() {
    let mut q = QuicTcp::new(params(0.05, 0.5, 10.0, 20 * MILLIS));
    let mut s = ca(100.0);
    let base = 100 * MILLIS;
    // No queueing: v = -p_s = -10, each update adds kappa * 10 = 0.5 segments.
    // ACKs every millisecond for 101 ms: the grid starts at 0, updates at 20, 40, 60, 80, 100.
    for t in 0..=100 {
        q.on_ack(&mut s, &ack(t * MILLIS, base, base, 100));
    }
    assert!((s.cwnd - 102.5).abs() < 1e-9, "cwnd {}", s.cwnd);
    // A gap of 95 ms brings one update, not four.
    q.on_ack(&mut s, &ack(195 * MILLIS, base, base, 100));
    assert!((s.cwnd - 103.0).abs() < 1e-9, "cwnd {}", s.cwnd);
    q.on_ack(&mut s, &ack(199 * MILLIS, base, base, 100));
    assert!((s.cwnd - 103.0).abs() < 1e-9, "cwnd {}", s.cwnd);
    q.on_ack(&mut s, &ack(200 * MILLIS, base, base, 100));
    assert!((s.cwnd - 103.5).abs() < 1e-9, "cwnd {}", s.cwnd);
}

#[test]
fn per_ack_mode_updates_on_every_ack() {
    let mut q = QuicTcp::new(params(0.01, 0.5, 10.0, 0));
    let mut s = ca(100.0);
    for t in 0..10 {
        q.on_ack(&mut s, &ack(t, MILLIS, MILLIS, 100));
    }
    assert!((s.cwnd - 101.0).abs() < 1e-9, "cwnd {}", s.cwnd);
}

#[test]
fn converges_to_p_s_queued_for_every_rho() {
    // Fluid bottleneck of 1000 packet/s, 100 ms propagation RTT, updates every 20 ms with
    // a per-rho step size, AvgRTT fed one sample per packet delivered.
    for (rho, kappa) in [(0.0, 0.0005), (0.25, 0.005), (0.5, 0.05), (1.0, 5.0)] {
        let mut q = QuicTcp::new(params(kappa, rho, 20.0, 20 * MILLIS));
        let mut s = ca(50.0);
        let base = 100 * MILLIS;
        for t in 0..60_000u64 {
            let rtt = ((s.cwnd / 1000.0 * 1e9) as Time).max(base);
            let a = ack(t * MILLIS, rtt, base, s.cwnd as u32);
            q.on_ack(&mut s, &a);
        }
        assert!((s.cwnd - 120.0).abs() < 1.0, "rho {rho}: cwnd {}", s.cwnd);
    }
}

#[test]
fn slow_start_ends_above_p_s() {
    let mut q = QuicTcp::new(params(0.05, 0.5, 10.0, 20 * MILLIS));
    let mut s = CcState {
        cwnd: 10.0,
        ssthresh: f64::INFINITY,
    };
    let base = 100 * MILLIS;
    q.on_ack(&mut s, &ack(0, base, base, 10));
    assert_eq!(s.cwnd, 11.0);
    // 40 in flight, RTT 1.5 BaseRTT: a third of them, 13.3, queued > 10.
    q.on_ack(&mut s, &ack(1, 150 * MILLIS, base, 40));
    assert!(!s.in_slow_start());
    assert_eq!(s.ssthresh, 12.0);
}

#[test]
fn slow_start_grows_on_acks_without_samples() {
    let mut q = QuicTcp::new(params(0.05, 0.5, 10.0, 20 * MILLIS));
    let mut s = CcState {
        cwnd: 1.0,
        ssthresh: f64::INFINITY,
    };
    let mut a = ack(0, MILLIS, MILLIS, 1);
    (a.rtt, a.min_rtt) = (None, None);
    q.on_ack(&mut s, &a);
    assert_eq!(s.cwnd, 2.0);
}

/// Eq. 9 with r frozen, applied `n` times from `w0`: the windows.
fn frozen(kappa: f64, rho: f64, p_s: f64, r: f64, w0: f64, n: usize) -> Vec<f64> {
    let mut q = QuicTcp::new(params(kappa, rho, p_s, 0));
    let mut w = w0;
    let mut ws = vec![w];
    for _ in 0..n {
        w = q.step(w, r);
        ws.push(w);
    }
    ws
}

#[test]
fn frozen_r_fixed_point_is_reached_below_the_bound_and_missed_above_it() {
    // With r frozen eq. 9 is a scalar map with the fixed point w* = p_s / (1 - r), where its
    // slope is 1 - kappa r (1 - r) w*^(1 - 2 rho): stable while kappa r (1 - r) w*^(1-2rho)
    // < 2 (docs/quic_tcp.md, "Stability of the step size").
    let (p_s, r): (f64, f64) = (20.0, 0.6);
    let star = p_s / (1.0 - r);
    for rho in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let limit = 2.0 / (r * (1.0 - r) * star.powf(1.0 - 2.0 * rho));
        // Below the bound: monotone (0.3x) or oscillating (0.9x) convergence.
        for factor in [0.3, 0.9] {
            let ws = frozen(factor * limit, rho, p_s, r, 1.05 * star, 3000);
            let last = ws[ws.len() - 1];
            assert!(
                (last - star).abs() < 1e-6 * star,
                "rho {rho}, {factor} x bound: {last} vs {star}"
            );
        }
        // Above it: the map leaves w* and keeps swinging across it.
        let ws = frozen(1.1 * limit, rho, p_s, r, 1.01 * star, 3000);
        let tail = &ws[2900..];
        let above = tail.iter().filter(|&&w| w > 1.05 * star).count();
        let below = tail.iter().filter(|&&w| w < 0.95 * star).count();
        assert!(
            above > 10 && below > 10,
            "rho {rho}, 1.1 x bound: {:?}",
            &tail[..6]
        );
    }
}

/// One round trip of ACKs, one per segment of the window at its start, evenly spread from
/// `t0`, each with the RTT sample `rtt` and BaseRTT `base`: the window after each ACK. (A
/// paced increase reaches its target as 104.99999...: that counts as 105 segments.)
fn round(q: &mut QuicTcp, s: &mut CcState, t0: Time, rtt: Time, base: Time) -> Vec<f64> {
    let n = (s.cwnd + 1e-6).floor() as u64;
    (0..n)
        .map(|i| {
            q.on_ack(s, &ack(t0 + i * rtt / n, rtt, base, n as u32));
            s.cwnd
        })
        .collect()
}

/// `rounds` round trips of constant RTT from window `w0`: per round, the computations made,
/// the window after its first ACK and at its end, and whether it rose ACK by ACK ("paced"),
/// stayed ("frozen") or neither.
fn rounds_trace(q: &mut QuicTcp, w0: f64, rtt: Time, base: Time, rounds: usize) -> String {
    use std::fmt::Write;
    let mut s = ca(w0);
    let mut trace = String::new();
    for k in 0..rounds {
        let before = q.computations;
        // (From t = rtt: an ACK cannot arrive sooner than its RTT after time 0.)
        let ws = round(q, &mut s, (k as Time + 1) * rtt, rtt, base);
        let shape = if ws.windows(2).all(|p| p[1] == p[0]) {
            "frozen"
        } else if ws.windows(2).all(|p| p[1] > p[0]) {
            "paced"
        } else {
            "mixed"
        };
        writeln!(
            trace,
            "rtt {k}: computations {} first ack {:.3} end {:.3} {shape}",
            q.computations - before,
            ws[0],
            ws[ws.len() - 1]
        )
        .unwrap();
    }
    trace
}

#[test]
fn fast_rounds_compute_every_other_rtt_pace_increases_and_cut_at_once() {
    let rtt = 100 * MILLIS;
    // RTT = BaseRTT: r = 1, v = -p_s = -10, so eq. 9 (kappa 0.5, rho 1/2) asks for w + 5 at
    // each computation: one per two RTTs, reached over the next RTT's ACKs.
    let mut q = with_cadence(0.5, 0.5, 10.0, "fast_rounds", true);
    assert_eq!(
        rounds_trace(&mut q, 100.0, rtt, rtt, 6),
        "\
rtt 0: computations 1 first ack 100.050 end 105.000 paced
rtt 1: computations 0 first ack 105.000 end 105.000 frozen
rtt 2: computations 1 first ack 105.048 end 110.000 paced
rtt 3: computations 0 first ack 110.000 end 110.000 frozen
rtt 4: computations 1 first ack 110.045 end 115.000 paced
rtt 5: computations 0 first ack 115.000 end 115.000 frozen
"
    );
    assert_eq!(q.v, Some(-10.0));
    // RTT twice BaseRTT: r = 1/2, v = w/2 - 10 = 40 at w = 100, eq. 9 asks for
    // 100 - 0.25 * 40 = 90, set by the computing ACK itself; then 90 - 0.25 * 35 = 81.25.
    let mut q = with_cadence(0.5, 0.5, 10.0, "fast_rounds", true);
    assert_eq!(
        rounds_trace(&mut q, 100.0, 2 * rtt, rtt, 4),
        "\
rtt 0: computations 1 first ack 90.000 end 90.000 frozen
rtt 1: computations 0 first ack 90.000 end 90.000 frozen
rtt 2: computations 1 first ack 81.250 end 81.250 frozen
rtt 3: computations 0 first ack 81.250 end 81.250 frozen
"
    );
    // Far below equilibrium (w 10, p_s 200, kappa 1.5): eq. 9 asks for 10 + 1.5 * 200 = 310;
    // FAST's cap holds each computation to twice the window it started from.
    let mut q = with_cadence(1.5, 0.5, 200.0, "fast_rounds", true);
    assert_eq!(
        rounds_trace(&mut q, 10.0, rtt, rtt, 4),
        "\
rtt 0: computations 1 first ack 11.000 end 20.000 paced
rtt 1: computations 0 first ack 20.000 end 20.000 frozen
rtt 2: computations 1 first ack 21.000 end 40.000 paced
rtt 3: computations 0 first ack 40.000 end 40.000 frozen
"
    );
    // Without the cap the whole step is paced over the next RTT.
    let mut q = with_cadence(1.5, 0.5, 200.0, "fast_rounds", false);
    assert_eq!(
        rounds_trace(&mut q, 10.0, rtt, rtt, 2),
        "\
rtt 0: computations 1 first ack 40.000 end 310.000 paced
rtt 1: computations 0 first ack 310.000 end 310.000 frozen
"
    );
    // Over a long constant-RTT trace: exactly one computation per two RTTs.
    let mut q = with_cadence(0.01, 0.5, 10.0, "fast_rounds", true);
    rounds_trace(&mut q, 50.0, rtt, rtt, 40);
    assert_eq!(q.computations, 20);
}

#[test]
fn fast_rounds_start_over_after_a_loss() {
    let rtt = 100 * MILLIS;
    let mut q = with_cadence(0.5, 0.5, 10.0, "fast_rounds", true);
    let mut s = ca(100.0);
    round(&mut q, &mut s, rtt, rtt, rtt);
    assert_eq!(q.computations, 1);
    // The next round would be frozen; after a loss the first sample computes at once.
    q.on_event(&mut s, CongestionEvent::Loss, 2 * rtt);
    q.on_ack(&mut s, &ack(2 * rtt + 1, rtt, rtt, 50));
    assert_eq!(q.computations, 2);
}

#[test]
fn the_cadence_comes_from_cadence_or_the_older_update_interval() {
    let cadence = |p: QuicTcpParams| QuicTcp::new(p).cadence;
    assert_eq!(
        cadence(QuicTcpParams::default()),
        QuicCadence::Interval {
            every: 20 * MILLIS,
            cap_double: false
        }
    );
    assert_eq!(
        cadence(params(1.0, 0.5, 1.0, 0)),
        QuicCadence::PerAck { cap_double: false }
    );
    assert_eq!(
        with_cadence(1.0, 0.5, 1.0, "fast_rounds", true).cadence,
        QuicCadence::FastRounds { cap_double: true }
    );
    // Defaults of the written forms: FAST's cap only with FAST's cadence.
    let written = |cadence: &str| -> QuicTcpParams {
        serde_json::from_str(&format!(r#"{{"cadence": {cadence}}}"#)).unwrap()
    };
    assert_eq!(
        cadence(written(r#"{"kind": "fast_rounds"}"#)),
        QuicCadence::FastRounds { cap_double: true }
    );
    assert_eq!(
        cadence(written(r#"{"kind": "interval"}"#)),
        QuicCadence::Interval {
            every: 20 * MILLIS,
            cap_double: false
        }
    );
    assert_eq!(
        cadence(written(r#"{"kind": "per_ack"}"#)),
        QuicCadence::PerAck { cap_double: false }
    );
}

#[test]
fn interval_cadence_caps_at_twice_the_window_on_request() {
    // No queueing, w 10, p_s 200, kappa 1 per ACK: eq. 9 asks for 210.
    let mut q = with_cadence(1.0, 0.5, 200.0, "per_ack", true);
    let mut s = ca(10.0);
    q.on_ack(&mut s, &ack(0, MILLIS, MILLIS, 10));
    assert_eq!(s.cwnd, 20.0);
    let mut q = with_cadence(1.0, 0.5, 200.0, "per_ack", false);
    let mut s = ca(10.0);
    q.on_ack(&mut s, &ack(0, MILLIS, MILLIS, 10));
    assert_eq!(s.cwnd, 210.0);
}

#[test]
fn the_delay_state_is_what_the_law_used() {
    let mut q = QuicTcp::new(params(0.1, 0.5, 10.0, 0));
    assert_eq!(q.delay_state(), Some(DelayState::default()));
    let mut s = ca(100.0);
    q.on_ack(&mut s, &ack(0, 125 * MILLIS, 100 * MILLIS, 100));
    let d = q.delay_state().unwrap();
    assert_eq!(d.avg_rtt_s, Some(0.125));
    assert_eq!(d.base_rtt_s, Some(0.1));
    // r = 0.8: v = 100 - 80 - 10.
    assert!((d.v.unwrap() - 10.0).abs() < 1e-9, "{d:?}");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_window_stays_finite_and_at_least_two(
            rho in 0.0f64..=1.0,
            log_kappa in -4.0f64..=4.0,
            p_s in 1.0f64..1000.0,
            kind in 0usize..3,
            cap_double in any::<bool>(),
            start in (2.0f64..1e4, any::<bool>()),
            acks in proptest::collection::vec(
                (
                    0u64..200_000_000,
                    proptest::option::weighted(0.9, 100_000u64..2_000_000_000),
                    0u32..3,
                    0u8..50,
                ),
                1..300,
            ),
        ) {
            let kind = ["per_ack", "interval", "fast_rounds"][kind];
            let mut q = with_cadence(10f64.powf(log_kappa), rho, p_s, kind, cap_double);
            let (cwnd, slow_start) = start;
            let ssthresh = if slow_start { f64::INFINITY } else { cwnd };
            let mut s = CcState { cwnd, ssthresh };
            let (mut now, mut base) = (0, None::<Time>);
            for (gap, rtt, acked, event) in acks {
                now += gap;
                if let Some(rtt) = rtt {
                    base = Some(base.map_or(rtt, |b| b.min(rtt)));
                }
                if event == 0 {
                    // A loss as the sender applies it: halve, then tell the controller.
                    s.ssthresh = q.ssthresh(&s, s.cwnd);
                    s.cwnd = s.ssthresh;
                    q.on_event(&mut s, CongestionEvent::Loss, now);
                }
                let a = AckSample {
                    now,
                    acked,
                    rtt,
                    min_rtt: base,
                    srtt: rtt,
                    in_flight: s.cwnd as u32,
                };
                q.on_ack(&mut s, &a);
                prop_assert!(s.cwnd.is_finite() && s.cwnd >= 2.0, "cwnd {}", s.cwnd);
                let d = q.delay_state().unwrap();
                for x in [d.avg_rtt_s, d.base_rtt_s, d.v].into_iter().flatten() {
                    prop_assert!(x.is_finite(), "{d:?}");
                }
            }
        }
    }
}
