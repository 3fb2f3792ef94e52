//! Delay-based congestion control on a wired dumbbell: Vegas, FAST and QUIC-TCP hold the
//! backlog their parameters ask for, FAST and QUIC-TCP share a bottleneck equally between RTTs
//! of 1:4 where Reno does not, QUIC-TCP converges for every rho and its step size has the
//! stable range the linearised window law predicts, and every run repeats exactly.
//!
//! The queue is read from the RTT samples: a data packet's queueing delay is its RTT minus the
//! flow's smallest RTT (the access links and the reverse path never queue here), so
//! `delay / tx` with `tx` the bottleneck's transmission time of one 1040-byte packet counts
//! the packets it found ahead of it, including the remainder of the one in service. Per flow,
//! Little's law gives the packets a flow keeps queued: its packet rate times the mean delay.

use crate::common::*;
use airtcp::metrics::results::RunResults;
use serde_json::{json, Value};

/// Bottleneck rate, bit/s.
const RATE: f64 = 10e6;
/// Transmission time of a 1000-byte segment plus 40 bytes of headers at the bottleneck, s.
const TX: f64 = 1040.0 * 8.0 / RATE;

/// S1, S2 -> R1 -> R2 -> D1, D2: a 10 Mbps, 10 ms bottleneck R1-R2 holding `buffer` packets,
/// 100 Mbps access links with one-way delays `d1`, `d2` on the sender side and 1 ms on the
/// receiver side. One flow per entry of `tcps` (f1 from S1, f2 from S2), all starting at 0.
fn dumbbell(d1: u64, d2: u64, buffer: u32, duration: u64, tcps: &[Value]) -> Value {
    let access = |a: &str, b: &str, d: u64| {
        json!({"from": a, "to": b, "rate": 100_000_000u64, "delay": d,
               "queue": {"kind": "droptail", "packets": 1000}})
    };
    let flows: Vec<Value> = tcps
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"id": format!("f{}", i + 1), "src": format!("S{}", i + 1),
                   "dst": format!("D{}", i + 1), "app": {"kind": "bulk"}, "transport": t})
        })
        .collect();
    json!({
        "name": "dumbbell", "duration": duration, "seed": 1,
        "nodes": ["S1", "S2", "R1", "R2", "D1", "D2"],
        "links": [
            access("S1", "R1", d1), access("S2", "R1", d2),
            {"from": "R1", "to": "R2", "rate": RATE as u64, "delay": 10 * MS,
             "queue": {"kind": "droptail", "packets": buffer}},
            access("R2", "D1", MS), access("R2", "D2", MS)
        ],
        "flows": flows,
        "metrics": {"trace_rtt": true, "trace_cwnd": true, "trace_interval": 20 * MS}
    })
}

/// One TCP transport: SACK, 1000-byte segments, `cc` with `extra` fields merged in.
fn tcp(cc: &str, extra: Value) -> Value {
    let mut t = json!({"kind": "tcp", "cc": cc, "sack": true, "mss": 1000, "delayed_ack": 2});
    for (k, v) in extra.as_object().expect("an object") {
        t[k] = v.clone();
    }
    t
}

/// RTT 1 = 2 (10 + 10 + 1) = 42 ms; RTT 2 = 2 (73 + 10 + 1) = 168 ms = 4 RTT 1.
const D_SHORT: u64 = 10 * MS;
const D_LONG: u64 = 73 * MS;

/// A flow over the second half of a run.
#[derive(Debug)]
struct Eq {
    goodput_bps: f64,
    /// Mean queueing delay of its packets, s.
    delay: f64,
    /// Packets it keeps queued: packet rate x mean queueing delay.
    own: f64,
    /// Mean number of packets its packets found waiting ahead in the buffer (the one in service
    /// not counted): ceil(delay / tx) - 1 per sample.
    buffer: f64,
    /// RTT without queueing, s.
    base: f64,
    cwnd: f64,
    /// Coefficient of variation of cwnd (sampled every 20 ms).
    cwnd_cv: f64,
}

fn equilibrium(r: &RunResults) -> Vec<Eq> {
    let half = r.duration_s / 2.0;
    let (rtt, cw) = (&r.timeseries.rtt, &r.timeseries.cwnd);
    r.flows
        .iter()
        .map(|f| {
            let samples: Vec<usize> = (0..rtt.flow.len())
                .filter(|&i| rtt.flow[i] == f.id)
                .collect();
            let base = samples
                .iter()
                .map(|&i| rtt.rtt_s[i])
                .fold(f64::INFINITY, f64::min);
            let late: Vec<f64> = samples
                .iter()
                .filter(|&&i| rtt.t_s[i] > half)
                .map(|&i| rtt.rtt_s[i] - base)
                .collect();
            let delay = mean(&late);
            let buffer = mean(
                &late
                    .iter()
                    .map(|d| ((d / TX - 1e-9).ceil() - 1.0).max(0.0))
                    .collect::<Vec<_>>(),
            );
            let w: Vec<f64> = (0..cw.flow.len())
                .filter(|&i| cw.flow[i] == f.id && cw.t_s[i] > half)
                .map(|i| cw.cwnd[i])
                .collect();
            let cwnd = mean(&w);
            let sd = (w.iter().map(|x| (x - cwnd).powi(2)).sum::<f64>() / w.len() as f64).sqrt();
            Eq {
                goodput_bps: f.goodput_bps,
                delay,
                own: f.goodput_bps / 8000.0 * delay,
                buffer,
                base,
                cwnd,
                cwnd_cv: sd / cwnd,
            }
        })
        .collect()
}

fn mean(x: &[f64]) -> f64 {
    assert!(!x.is_empty(), "no samples");
    x.iter().sum::<f64>() / x.len() as f64
}

/// Payload capacity of the bottleneck, bit/s.
const GOODPUT_CAP: f64 = RATE * 1000.0 / 1040.0;

#[test]
fn vegas_keeps_between_alpha_and_beta_packets_queued() {
    // ns-2's defaults (1, 3) and a wider band. The receiver ACKs every segment, as ns-2's
    // TCPSink does: with delayed ACKs each ACK releases two back-to-back segments whose
    // self-inflicted queueing Vegas counts as backlog (docs/vegas.md).
    for (block, alpha, beta) in [
        (None, 1.0, 3.0),
        (Some(json!({"alpha": 4, "beta": 8})), 4.0, 8.0),
    ] {
        let mut t = tcp("vegas", json!({"delayed_ack": 1}));
        if let Some(b) = block {
            t["vegas"] = b;
        }
        let r = run(&dumbbell(D_SHORT, D_SHORT, 500, 60 * S, &[t]));
        let e = &equilibrium(&r)[0];
        eprintln!("vegas alpha {alpha} beta {beta}: {e:?}");
        assert!(
            e.buffer >= alpha && e.buffer <= beta,
            "alpha {alpha} beta {beta}: {e:?}"
        );
        assert!(e.cwnd_cv < 0.01, "not at equilibrium: {e:?}");
        assert!(e.goodput_bps > 0.95 * GOODPUT_CAP, "{e:?}");
        assert_eq!(r.flows[0].retransmissions, 0);
    }
}

#[test]
fn fast_and_quic_tcp_keep_their_target_backlog() {
    for t in [
        tcp("fast", json!({"fast": {"alpha": 20}})),
        tcp("quic_tcp", json!({"quic_tcp": {"p_s": 20}})),
    ] {
        let r = run(&dumbbell(D_SHORT, D_SHORT, 500, 60 * S, &[t]));
        let e = &equilibrium(&r)[0];
        eprintln!("{}: {e:?}", r.flows[0].cc);
        assert!((e.own - 20.0).abs() <= 2.0, "{}: {e:?}", r.flows[0].cc);
        assert!(e.cwnd_cv < 0.01, "{}: {e:?}", r.flows[0].cc);
        assert!(e.goodput_bps > 0.95 * GOODPUT_CAP, "{e:?}");
        assert_eq!(r.flows[0].retransmissions, 0);
    }
}

#[test]
fn fast_and_quic_tcp_share_equally_across_rtts_one_to_four_where_reno_does_not() {
    // A 100-packet bottleneck buffer (about two BDPs of the short flow), 60 s.
    let cases = [
        ("fast", json!({"fast": {"alpha": 20}})),
        ("quic_tcp", json!({"quic_tcp": {"p_s": 20}})),
        ("newreno", json!({})),
        ("reno", json!({"sack": false})),
    ];
    let mut rows = Vec::new();
    for (cc, extra) in cases {
        let t = tcp(cc, extra);
        let r = run(&dumbbell(D_SHORT, D_LONG, 100, 60 * S, &[t.clone(), t]));
        let e = equilibrium(&r);
        let (g1, g2) = (r.flows[0].goodput_bps, r.flows[1].goodput_bps);
        rows.push(format!(
            "{cc:>8}: short {:.0} kbps, long {:.0} kbps, Jain {:.4}, queued {:.1} / {:.1} packets",
            g1 / 1e3,
            g2 / 1e3,
            r.jain,
            e[0].own,
            e[1].own
        ));
        if cc == "fast" || cc == "quic_tcp" {
            assert!(r.jain >= 0.98, "{}", rows.join("\n"));
            for f in &e {
                assert!((f.own - 20.0).abs() <= 3.0, "{}\n{f:?}", rows.join("\n"));
            }
            assert!(g1 + g2 > 0.95 * GOODPUT_CAP, "{}", rows.join("\n"));
        } else {
            assert!(g1 > 2.0 * g2 && r.jain < 0.9, "{}", rows.join("\n"));
        }
    }
    eprintln!("{}", rows.join("\n"));
}

#[test]
fn quic_tcp_with_fast_rounds_keeps_its_target_backlog_at_the_papers_step_size() {
    // Paper 002's ns-2 step size, kappa = 1.5, belongs to the cadence of the FAST module it was
    // made from: one window computation every other RTT. Two flows, RTTs 1:4.
    let t = tcp(
        "quic_tcp",
        json!({"quic_tcp": {"kappa": 1.5, "p_s": 20, "cadence": {"kind": "fast_rounds"}}}),
    );
    let r = run(&dumbbell(D_SHORT, D_LONG, 500, 60 * S, &[t.clone(), t]));
    let e = equilibrium(&r);
    eprintln!("fast_rounds kappa 1.5: Jain {:.4} {e:?}", r.jain);
    assert!(r.jain >= 0.98, "Jain {}", r.jain);
    for f in &e {
        assert!((f.own - 20.0).abs() <= 3.0, "{f:?}");
        assert!(f.cwnd_cv < 0.02, "{f:?}");
    }
    // The trace says the same from the controller's side: v, the flow's own backlog estimate
    // minus p_s, is near 0 over the second half.
    let c = &r.timeseries.cwnd;
    let late: Vec<f64> = (0..c.flow.len())
        .filter(|&i| c.t_s[i] > 30.0)
        .map(|i| c.v[i].expect("v after the first computation"))
        .collect();
    assert!(late.iter().all(|v| v.abs() < 3.0), "{late:?}");
}

#[test]
fn the_cwnd_trace_carries_the_delay_laws_estimates() {
    let quic = tcp("quic_tcp", json!({"quic_tcp": {"p_s": 20}}));
    let r = run(&dumbbell(
        D_SHORT,
        D_LONG,
        100,
        10 * S,
        &[quic, tcp("newreno", json!({}))],
    ));
    let c = &r.timeseries.cwnd;
    let rows = c.flow.len();
    assert!(rows > 0);
    assert_eq!(
        (c.avg_rtt_s.len(), c.base_rtt_s.len(), c.v.len()),
        (rows, rows, rows)
    );
    for i in 0..rows {
        let (avg, base, v) = (c.avg_rtt_s[i], c.base_rtt_s[i], c.v[i]);
        if c.flow[i] == "f2" {
            // NewReno has none of them.
            assert_eq!((avg, base, v), (None, None, None), "row {i}");
        } else if c.t_s[i] >= 1.0 {
            // QUIC-TCP's AvgRTT (eq. 8) is at least BaseRTT, which is the path's 42 ms.
            let (avg, base) = (avg.unwrap(), base.unwrap());
            assert!(
                (base - 0.042).abs() < 0.002 && avg >= base,
                "row {i}: {avg} {base}"
            );
            assert!(v.unwrap().is_finite(), "row {i}");
        }
    }
    // Before the first sample the estimates are null, not zero.
    assert_eq!(c.avg_rtt_s[0], None);
    // In the results' JSON they are columns of the trace, nulls included...
    let json = serde_json::to_value(&r).unwrap();
    let v = json["timeseries"]["cwnd"]["v"].as_array().unwrap();
    assert_eq!(v.len(), rows);
    assert!(v.iter().any(Value::is_null) && v.iter().any(Value::is_f64));
    // ...and a run without a delay-based law writes the trace as before, without them.
    let reno = tcp("newreno", json!({}));
    let r = run(&dumbbell(D_SHORT, D_LONG, 100, S, &[reno.clone(), reno]));
    let json = serde_json::to_value(&r).unwrap();
    let keys: Vec<&String> = json["timeseries"]["cwnd"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["flow", "t_s", "cwnd", "ssthresh", "in_flight"]);
}

/// Two QUIC-TCP flows (RTTs 42 and 168 ms, p_s = 20, updates every 20 ms) over a 500-packet
/// buffer for 60 s.
fn quic_pair(rho: f64, kappa: f64) -> RunResults {
    quic_pair_at(rho, kappa, json!({"kind": "interval", "every": 20 * MS}))
}

/// The same pair with the window law run at `cadence`.
fn quic_pair_at(rho: f64, kappa: f64, cadence: Value) -> RunResults {
    let t = tcp(
        "quic_tcp",
        json!({"quic_tcp": {"kappa": kappa, "rho": rho, "p_s": 20, "cadence": cadence}}),
    );
    run(&dumbbell(D_SHORT, D_LONG, 500, 60 * S, &[t.clone(), t]))
}

#[test]
fn quic_tcp_converges_for_every_rho() {
    // The step size scales with w^(2 rho - 1), as paper 002 §V-B advises (small kappa for
    // rho < 1/2, large for rho > 1/2); 0.05 at rho = 1/2 is §V-A's.
    for (rho, kappa) in [(0.0, 0.01), (0.25, 0.1), (0.5, 0.05), (1.0, 50.0)] {
        let r = quic_pair(rho, kappa);
        let e = equilibrium(&r);
        eprintln!("rho {rho} kappa {kappa}: Jain {:.4} {e:?}", r.jain);
        assert!(r.jain >= 0.98, "rho {rho}: Jain {}", r.jain);
        for f in &e {
            assert!(f.cwnd_cv < 0.02, "rho {rho}: {f:?}");
            assert!((f.own - 20.0).abs() <= 3.0, "rho {rho}: {f:?}");
        }
    }
}

/// The largest stable step size the linearised law predicts. Between updates AvgRTT barely
/// moves (weight 1/256 per ACK), so with r = BaseRTT/AvgRTT frozen eq. 9 is the iteration
/// w <- w - kappa r w^(1-2rho) ((1 - r) w - p_s), whose fixed point is stable while
/// kappa r (1 - r) w^(1-2rho) < 2. The tightest flow sets the bound.
fn predicted_kappa_limit(e: &[Eq], rho: f64) -> f64 {
    e.iter()
        .map(|f| {
            let r = f.base / (f.base + f.delay);
            2.0 / (r * (1.0 - r) * f.cwnd.powf(1.0 - 2.0 * rho))
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn quic_tcp_step_size_sweep_shows_the_stable_range() {
    // The bound is per window computation, so it holds at the 20 ms interval and at FAST's
    // every-other-RTT cadence alike (docs/quic_tcp.md, "Stability of the step size").
    let mut rows = Vec::new();
    let cadences = [
        json!({"kind": "interval", "every": 20 * MS}),
        json!({"kind": "fast_rounds"}),
    ];
    for cadence in cadences {
        rows.push(format!("cadence {cadence}"));
        quic_step_size_sweep(&cadence, &mut rows);
    }
    eprintln!("{}", rows.join("\n"));
}

fn quic_step_size_sweep(cadence: &Value, rows: &mut Vec<String>) {
    for (rho, reference) in [(0.0, 0.01), (0.5, 0.05), (1.0, 50.0)] {
        let e = equilibrium(&quic_pair_at(rho, reference, cadence.clone()));
        let limit = predicted_kappa_limit(&e, rho);
        rows.push(format!("rho {rho}: predicted kappa limit {limit:.4}"));
        for factor in [0.1, 0.5, 0.8, 1.25, 2.0] {
            let kappa = factor * limit;
            let r = quic_pair_at(rho, kappa, cadence.clone());
            let e = equilibrium(&r);
            let cv = e.iter().map(|f| f.cwnd_cv).fold(0.0, f64::max);
            let delay = e[0].delay * 1e3;
            rows.push(format!(
                "  kappa {kappa:10.4} ({factor:4} x limit): max cwnd CV {cv:.4}, queueing delay {delay:6.1} ms, \
                 goodput {:.0} + {:.0} kbps, Jain {:.4}",
                r.flows[0].goodput_bps / 1e3,
                r.flows[1].goodput_bps / 1e3,
                r.jain
            ));
            if factor < 1.0 {
                assert!(cv < 0.02, "converges below the limit\n{}", rows.join("\n"));
            } else {
                assert!(cv > 0.2, "oscillates above the limit\n{}", rows.join("\n"));
            }
        }
    }
}

#[test]
fn each_delay_based_controller_repeats_exactly_and_survives_losses() {
    let strip = |v: &Value| {
        let cfg = serde_json::from_value(v.clone()).unwrap();
        let r = airtcp::simulate(&cfg).unwrap();
        assert!(r.conservation.ok, "{:?}", r.conservation);
        assert!(r
            .flows
            .iter()
            .all(|f| f.retransmissions > 0 && f.bytes_delivered > 0));
        let mut r = serde_json::to_value(r).unwrap();
        r.as_object_mut().unwrap().remove("timing");
        serde_json::to_string(&r).unwrap()
    };
    for (cc, sack) in [
        ("vegas", false),
        ("vegas", true),
        ("fast", true),
        ("fast", false),
    ]
    .into_iter()
    .chain([("quic_tcp", true), ("quic_tcp", false)])
    {
        let t = tcp(cc, json!({"sack": sack}));
        let mut v = dumbbell(D_SHORT, D_LONG, 50, 20 * S, &[t.clone(), t]);
        v["links"][2]["loss"] = json!({"kind": "bernoulli", "per": 0.01, "direction": "forward"});
        let a = strip(&v);
        assert_eq!(a, strip(&v), "{cc} sack {sack}");
        v["seed"] = json!(2);
        assert_ne!(a, strip(&v), "{cc} sack {sack}");
    }
}

#[test]
fn the_core_rejects_misplaced_and_out_of_range_parameters() {
    let cases = [
        (
            tcp("newreno", json!({"vegas": {}})),
            "flows[0].transport.vegas",
            "only used with cc: vegas (cc is newreno)",
        ),
        (
            tcp("fast", json!({"quic_tcp": {"rho": 0.5}})),
            "flows[0].transport.quic_tcp",
            "only used with cc: quic_tcp (cc is fast)",
        ),
        (
            tcp("vegas", json!({"vegas": {"alpha": 4, "beta": 2}})),
            "flows[0].transport.vegas.beta",
            "must not be smaller than alpha (4), got 2",
        ),
        (
            tcp("fast", json!({"fast": {"gamma": 0}})),
            "flows[0].transport.fast.gamma",
            "must be greater than 0, got 0",
        ),
        (
            tcp("quic_tcp", json!({"quic_tcp": {"rho": 1.5}})),
            "flows[0].transport.quic_tcp.rho",
            "must be within [0, 1], got 1.5",
        ),
        (
            tcp("quic_tcp", json!({"quic_tcp": {"kappa": -1}})),
            "flows[0].transport.quic_tcp.kappa",
            "must be greater than 0, got -1",
        ),
        (
            tcp("quic_tcp", json!({"quic_tcp": {"rho": -0.1}})),
            "flows[0].transport.quic_tcp.rho",
            "must be within [0, 1], got -0.1",
        ),
        (
            tcp("quic_tcp", json!({"quic_tcp": {"p_s": 0}})),
            "flows[0].transport.quic_tcp.p_s",
            "must be greater than 0, got 0",
        ),
        (
            tcp(
                "quic_tcp",
                json!({"quic_tcp": {"cadence": {"kind": "interval", "every": 0}}}),
            ),
            "flows[0].transport.quic_tcp.cadence.every",
            "must be greater than zero",
        ),
        (
            tcp(
                "quic_tcp",
                json!({"quic_tcp": {"update_interval": 0, "cadence": {"kind": "per_ack"}}}),
            ),
            "flows[0].transport.quic_tcp.cadence",
            "give either cadence or update_interval (its older spelling), not both",
        ),
    ];
    for (t, path, message) in cases {
        let cfg = serde_json::from_value(dumbbell(D_SHORT, D_SHORT, 50, S, &[t])).unwrap();
        let e = airtcp::simulate(&cfg).expect_err("refused");
        assert_eq!((e.path.as_str(), e.message.as_str()), (path, message));
    }
    // FAST's gamma may exceed 1 (paper 002 uses 1.5 and sweeps beyond).
    let ok = dumbbell(
        D_SHORT,
        D_SHORT,
        50,
        S,
        &[tcp("fast", json!({"fast": {"gamma": 3.0}}))],
    );
    run(&ok);
    // Unknown fields in a block are refused by serde.
    let bad = dumbbell(
        D_SHORT,
        D_SHORT,
        50,
        S,
        &[tcp("fast", json!({"fast": {"beta": 1}}))],
    );
    assert!(serde_json::from_value::<airtcp::scenario::config::ScenarioConfig>(bad).is_err());
    // So are unknown cadence kinds, a missing kind, and `every` outside the interval cadence.
    for cadence in [
        json!({"kind": "sometimes"}),
        json!({"every": MS}),
        json!({"kind": "fast_rounds", "every": MS}),
    ] {
        let bad = dumbbell(
            D_SHORT,
            D_SHORT,
            50,
            S,
            &[tcp("quic_tcp", json!({"quic_tcp": {"cadence": cadence}}))],
        );
        let parsed = serde_json::from_value::<airtcp::scenario::config::ScenarioConfig>(bad);
        assert!(parsed.is_err(), "{cadence}");
    }
}
