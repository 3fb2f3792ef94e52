//! Two TCP flows through one bottleneck: equal RTTs share fairly, unequal RTTs favour the short.
//!
//! Without random losses a drop-tail dumbbell is deterministic and prone to phase effects
//! (Floyd & Jacobson 1992), so instead of seeds the replications vary the second flow's start.

use crate::common::*;
use serde_json::{json, Value};

/// S1, S2 -> R1 -> R2 -> D1, D2 with a 10 Mbps, 10 ms bottleneck R1-R2 (50 packets, about one
/// BDP of the short flow) and 100 Mbps access links whose one-way delays are `d1`, `d2` on the
/// sender side. f2 starts at `start2`.
fn dumbbell(d1: u64, d2: u64, start2: u64) -> Value {
    let access = |a: &str, b: &str, d: u64| {
        json!({"from": a, "to": b, "rate": 100_000_000u64, "delay": d,
               "queue": {"kind": "droptail", "packets": 1000}})
    };
    let tcp = json!({"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000,
                     "delayed_ack": 2, "initial_cwnd": 10});
    json!({
        "name": "dumbbell", "duration": 100 * S, "seed": 1,
        "nodes": ["S1", "S2", "R1", "R2", "D1", "D2"],
        "links": [
            access("S1", "R1", d1), access("S2", "R1", d2),
            {"from": "R1", "to": "R2", "rate": 10_000_000, "delay": 10 * MS,
             "queue": {"kind": "droptail", "packets": 50}},
            access("R2", "D1", MS), access("R2", "D2", MS)
        ],
        "flows": [
            {"id": "f1", "src": "S1", "dst": "D1", "start": 0, "app": {"kind": "bulk"}, "transport": tcp},
            {"id": "f2", "src": "S2", "dst": "D2", "start": start2, "app": {"kind": "bulk"}, "transport": tcp}
        ]
    })
}

const STARTS: [u64; 3] = [100 * MS, 333 * MS, 1000 * MS];

#[test]
fn equal_rtts_share_the_bottleneck_fairly() {
    // RTT = 2 (10 + 10 + 1) = 42 ms for both.
    for start2 in STARTS {
        let r = run(&dumbbell(10 * MS, 10 * MS, start2));
        let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
        assert!(r.jain >= 0.95, "f2 at {start2} ns: Jain {} {g:?}", r.jain);
        assert!(
            g.iter().sum::<f64>() > 0.9 * 10e6 * 1000.0 / 1040.0,
            "bottleneck underused {g:?}"
        );
    }
}

#[test]
fn the_short_rtt_flow_gets_more_with_rtts_one_to_three() {
    // RTT1 = 42 ms, RTT2 = 2 (52 + 10 + 1) = 126 ms.
    for start2 in STARTS {
        let r = run(&dumbbell(10 * MS, 52 * MS, start2));
        let (g1, g2) = (r.flows[0].goodput_bps, r.flows[1].goodput_bps);
        assert!(g1 > 1.5 * g2, "f2 at {start2} ns: short {g1} long {g2}");
    }
}
