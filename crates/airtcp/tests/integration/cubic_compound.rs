//! Cubic (RFC 9438) and Compound TCP (Tan et al. 2006) over wired bottlenecks: they run,
//! conserve packets and repeat exactly; Cubic's window follows W(t) = C (t - K)^3 + W_max after a
//! loss; both refill a long fat pipe faster than NewReno.

use crate::common::*;
use serde_json::{json, Value};

/// S1, S2 -> R1 -> R2 -> D1, D2: a 10 Mbps, 10 ms bottleneck R1-R2 with 50 packets of buffer,
/// 100 Mbps access links (10 ms on the sender side, 1 ms on the receiver side), two flows of
/// the given TCP, the second starting 0.5 s later.
fn dumbbell(tcp: Value) -> Value {
    let access = |a: &str, b: &str, d: u64| {
        json!({"from": a, "to": b, "rate": 100_000_000u64, "delay": d,
               "queue": {"kind": "droptail", "packets": 1000}})
    };
    json!({
        "name": "dumbbell", "duration": 30 * S, "seed": 1,
        "nodes": ["S1", "S2", "R1", "R2", "D1", "D2"],
        "links": [
            access("S1", "R1", 10 * MS), access("S2", "R1", 10 * MS),
            {"from": "R1", "to": "R2", "rate": 10_000_000, "delay": 10 * MS,
             "queue": {"kind": "droptail", "packets": 50}},
            access("R2", "D1", MS), access("R2", "D2", MS)
        ],
        "flows": [
            {"id": "f1", "src": "S1", "dst": "D1", "app": {"kind": "bulk"}, "transport": tcp},
            {"id": "f2", "src": "S2", "dst": "D2", "start": 500 * MS, "app": {"kind": "bulk"},
             "transport": tcp}
        ]
    })
}

/// The results without the wall-clock timing, as JSON text.
fn results_text(v: &Value) -> String {
    let cfg = serde_json::from_value(v.clone()).unwrap();
    let mut r = serde_json::to_value(airtcp::simulate(&cfg).unwrap()).unwrap();
    r.as_object_mut().unwrap().remove("timing");
    serde_json::to_string(&r).unwrap()
}

#[test]
fn each_runs_over_a_wired_bottleneck_conserves_packets_and_repeats() {
    let capacity = 10e6 * 1000.0 / 1040.0;
    for (cc, sack, params) in [
        ("cubic", true, json!({"c": 0.4, "beta": 0.7})),
        ("cubic", false, Value::Null),
        ("compound", true, json!({"gamma": 30, "k": 0.75})),
        ("compound", false, Value::Null),
    ] {
        let mut tcp = json!({"kind": "tcp", "cc": cc, "sack": sack});
        if !params.is_null() {
            tcp[cc] = params;
        }
        let v = dumbbell(tcp);
        // `run` checks packet conservation.
        let r = run(&v);
        let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
        eprintln!("{cc}/sack={sack}: goodput {g:?} bit/s, Jain {:.3}", r.jain);
        assert!(r.flows.iter().all(|f| f.cc == cc), "{cc}");
        assert!(
            g.iter().sum::<f64>() > 0.9 * capacity,
            "{cc}/{sack}: bottleneck underused {g:?}"
        );
        assert!(
            r.flows.iter().all(|f| f.recoveries > 0),
            "{cc}/{sack}: no losses?"
        );
        assert!(r.jain > 0.8, "{cc}/{sack}: Jain {} {g:?}", r.jain);
        assert_eq!(
            results_text(&v),
            results_text(&v),
            "{cc}/{sack} not deterministic"
        );
    }
}

#[test]
fn parameters_change_the_outcome() {
    // Same scenario, Cubic with another C and beta, Compound with another gamma: different
    // runs, so the parameter blocks reach the controllers.
    let plain = results_text(&dumbbell(json!({"kind": "tcp", "cc": "cubic"})));
    let tuned = results_text(&dumbbell(
        json!({"kind": "tcp", "cc": "cubic", "cubic": {"c": 0.1, "beta": 0.5}}),
    ));
    assert_ne!(plain, tuned);
    let plain = results_text(&dumbbell(json!({"kind": "tcp", "cc": "compound"})));
    let tuned = results_text(&dumbbell(
        json!({"kind": "tcp", "cc": "compound", "compound": {"gamma": 5}}),
    ));
    assert_ne!(plain, tuned);
}

#[test]
fn a_parameter_block_for_another_algorithm_or_out_of_range_is_refused() {
    let cases = [
        (
            json!({"kind": "tcp", "cc": "newreno", "cubic": {}}),
            "flows[0].transport.cubic",
            "only used with cc: cubic (cc is newreno)",
        ),
        (
            json!({"kind": "tcp", "cc": "cubic", "compound": {}}),
            "flows[0].transport.compound",
            "only used with cc: compound (cc is cubic)",
        ),
        (
            json!({"kind": "tcp", "cc": "cubic", "cubic": {"c": 0.0}}),
            "flows[0].transport.cubic.c",
            "must be greater than 0, got 0",
        ),
        (
            json!({"kind": "tcp", "cc": "compound", "compound": {"beta": 1.0}}),
            "flows[0].transport.compound.beta",
            "must be within (0, 1), got 1",
        ),
        (
            json!({"kind": "tcp", "cc": "compound", "compound": {"k": 1.5}}),
            "flows[0].transport.compound.k",
            "must be within (0, 1], got 1.5",
        ),
    ];
    for (tcp, path, message) in cases {
        let cfg = serde_json::from_value(dumbbell(tcp)).unwrap();
        let Err(e) = airtcp::simulate(&cfg) else {
            panic!("{path} accepted")
        };
        assert_eq!((e.path.as_str(), e.message.as_str()), (path, message));
    }
}

#[test]
fn an_unknown_field_beside_the_parameter_blocks_or_in_one_is_refused() {
    // The blocks are flattened into the TCP block, where serde cannot deny unknown fields; the
    // JSON entry point's round trip names the field instead.
    let tcp = json!({"kind": "tcp", "cc": "cubic", "cubic": {"c": 0.4}, "sacks": true});
    let e = airtcp::simulate_json(&dumbbell(tcp).to_string()).expect_err("sacks");
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("flows[0].transport.sacks", "unknown field")
    );
    // A block still denies unknown fields itself.
    let tcp = json!({"kind": "tcp", "cc": "cubic", "cubic": {"beta_cubic": 0.7}});
    let e = airtcp::simulate_json(&dumbbell(tcp).to_string()).expect_err("beta_cubic");
    assert!(e.message.starts_with("unknown field `beta_cubic`"), "{e}");
}

/// A: 50 Mbps, 50 ms one way (RTT 100 ms, BDP 601 segments of 1040 bytes), 3000 packets of
/// buffer, no receiver-window limit; one flow whose data segment `lost` is lost once.
fn long_fat_pipe(tcp: Value, lost: u64, duration: u64) -> Value {
    json!({
        "name": "lfn", "duration": duration, "seed": 1, "nodes": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": 50_000_000u64, "delay": 50 * MS,
                   "queue": {"kind": "droptail", "packets": 3000},
                   "loss": {"kind": "segments", "seqs": [lost], "direction": "forward"}}],
        "flows": [{"id": "f1", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                   "transport": tcp}],
        "metrics": {"trace_cwnd": true, "trace_interval": 10 * MS}
    })
}

#[test]
fn cubic_window_follows_the_cubic_function_in_a_simulated_flow() {
    // Segment 400 is lost in slow start. With ssthresh_basis: cwnd, ssthresh = 0.7 W_max
    // exactly, so the trace gives W_max and K; the stage starts when recovery ends, at the
    // first sample with cwnd above ssthresh.
    let tcp = json!({"kind": "tcp", "cc": "cubic", "sack": true, "ssthresh_basis": "cwnd",
                     "rwnd": 1u64 << 32});
    let r = run(&long_fat_pipe(tcp, 400, 25 * S));
    let f = &r.flows[0];
    assert_eq!((f.recoveries, f.timeouts, f.retransmissions), (1, 0, 1));
    let cw = &r.timeseries.cwnd;
    let first_ca = (0..cw.t_s.len())
        .find(|&i| cw.ssthresh[i] < 1e9 && cw.cwnd[i] > cw.ssthresh[i])
        .expect("congestion avoidance");
    let ssthresh = cw.ssthresh[first_ca];
    let w_max = ssthresh / 0.7;
    let k = (w_max * 0.3 / 0.4).cbrt();
    // The epoch began between the previous sample and this one; take the midpoint.
    let t0 = cw.t_s[first_ca] - 0.005;
    let mut worst: f64 = 0.0;
    let mut n = 0;
    for i in first_ca..cw.t_s.len() {
        let t = cw.t_s[i] - t0;
        if t > 1.8 * k {
            break;
        }
        let want = 0.4 * (t - k).powi(3) + w_max;
        worst = worst.max((cw.cwnd[i] - want).abs() / want);
        n += 1;
    }
    eprintln!(
        "W_max {w_max:.1}, K {k:.2} s, epoch at {t0:.3} s: {n} samples, \
         largest relative error {worst:.4}"
    );
    assert!(w_max > 200.0 && 1.8 * k < 25.0 - t0, "W_max {w_max} K {k}");
    assert!(n > 500, "{n} samples");
    assert!(worst < 0.05, "largest relative error {worst}");
}

#[test]
fn after_a_loss_both_refill_a_long_fat_pipe_faster_than_newreno() {
    let goodput = |cc: &str| {
        let tcp = json!({"kind": "tcp", "cc": cc, "sack": true, "rwnd": 1u64 << 32});
        run(&long_fat_pipe(tcp, 400, 20 * S)).flows[0].goodput_bps
    };
    let (newreno, cubic, compound) = (goodput("newreno"), goodput("cubic"), goodput("compound"));
    eprintln!("20 s after one loss at segment 400: newreno {newreno:.0}, cubic {cubic:.0}, compound {compound:.0} bit/s");
    assert!(cubic > 1.2 * newreno, "cubic {cubic} newreno {newreno}");
    assert!(
        compound > 1.2 * newreno,
        "compound {compound} newreno {newreno}"
    );
}
