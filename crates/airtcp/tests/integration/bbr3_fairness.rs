//! BBR v3 (`cc: bbr3`) and BBR v1 (`cc: bbr`) against Cubic on a shared bottleneck with a
//! shallow buffer: v1, which does not answer loss, takes most of the link from Cubic; v3, whose
//! bandwidth probes are bounded by loss, leaves Cubic a far larger share. docs/bbr3.md lists the
//! shares (`--nocapture` prints them).

use crate::common::*;
use serde_json::{json, Value};

/// The bottleneck: 10 Mbit/s, 20 ms one way.
const RATE: u64 = 10_000_000;
/// Packets on the wire: 1000 bytes of payload and 40 of headers.
const PACKET_BITS: f64 = 1040.0 * 8.0;
/// Propagation RTT: 2 x (1 ms access + 20 ms bottleneck + 1 ms access).
const RTT_S: f64 = 0.044;

/// One BDP of buffer, packets (53).
fn bdp_packets() -> u64 {
    (RATE as f64 * RTT_S / PACKET_BITS).round() as u64
}

/// S1, S2 -> R1 -> R2 -> D1, D2: the bottleneck R1-R2 with one BDP of drop-tail buffer, 100
/// Mbit/s access links of 1 ms; f1 (`first`) starts at 0, f2 (`second`) at `start2`; 60 s.
fn shared(first: &str, second: &str, start2: u64) -> Value {
    let access = |a: &str, b: &str| {
        json!({"from": a, "to": b, "rate": 100_000_000u64, "delay": MS,
               "queue": {"kind": "droptail", "packets": 1000}})
    };
    let tcp = |cc: &str| {
        json!({"kind": "tcp", "cc": cc, "sack": true, "mss": 1000, "delayed_ack": 2,
               "initial_cwnd": 10})
    };
    json!({
        "name": "bbr3_fairness", "duration": 60 * S, "seed": 1,
        "nodes": ["S1", "S2", "R1", "R2", "D1", "D2"],
        "links": [
            access("S1", "R1"), access("S2", "R1"),
            {"from": "R1", "to": "R2", "rate": RATE, "delay": 20 * MS,
             "queue": {"kind": "droptail", "packets": bdp_packets()}},
            access("R2", "D1"), access("R2", "D2")
        ],
        "flows": [
            {"id": "f1", "src": "S1", "dst": "D1", "app": {"kind": "bulk"},
             "transport": tcp(first)},
            {"id": "f2", "src": "S2", "dst": "D2", "start": start2, "app": {"kind": "bulk"},
             "transport": tcp(second)}
        ]
    })
}

/// The second flow starts at these offsets (a drop-tail dumbbell without random loss is prone
/// to phase effects, so the replications vary the start rather than the seed).
const STARTS: [u64; 3] = [100 * MS, 333 * MS, 1000 * MS];

/// Over the three replications: Cubic's mean share of the two flows' goodput, the mean total
/// goodput (bit/s), the other flow's mean retransmissions per packet sent, and Jain's index.
fn against_cubic(cc: &str) -> (f64, f64, f64, f64) {
    let (mut share, mut total, mut retx, mut jain) = (0.0, 0.0, 0.0, 0.0);
    for start2 in STARTS {
        let r = run(&shared("cubic", cc, start2));
        let (cubic, other) = (&r.flows[0], &r.flows[1]);
        assert_eq!((cubic.cc.as_str(), other.cc.as_str()), ("cubic", cc));
        let sum = cubic.goodput_bps + other.goodput_bps;
        eprintln!(
            "  cubic vs {cc}, f2 at {} ms: cubic {:.2} Mbit/s, {cc} {:.2} Mbit/s, mean RTT {:.1} / \
             {:.1} ms",
            start2 / MS,
            cubic.goodput_bps / 1e6,
            other.goodput_bps / 1e6,
            cubic.mean_rtt_s.unwrap_or(0.0) * 1e3,
            other.mean_rtt_s.unwrap_or(0.0) * 1e3
        );
        share += cubic.goodput_bps / sum;
        total += sum;
        retx += other.retransmissions as f64 / other.packets_sent as f64;
        jain += r.jain;
    }
    let n = STARTS.len() as f64;
    (share / n, total / n, retx / n, jain / n)
}

#[test]
fn bbr3_leaves_cubic_a_far_larger_share_than_bbr_v1_in_a_one_bdp_buffer() {
    let v1 = against_cubic("bbr");
    let v3 = against_cubic("bbr3");
    let cubic = against_cubic("cubic");
    for (name, (share, total, retx, jain)) in [("bbr", v1), ("bbr3", v3), ("cubic", cubic)] {
        eprintln!(
            "cubic vs {name}: cubic's share {:.1} %, total {:.2} Mbit/s, {name}'s retransmissions \
             {:.2} %, Jain {jain:.3}",
            share * 100.0,
            total / 1e6,
            retx * 100.0
        );
    }
    // v1 takes most of the link.
    assert!(v1.0 < 0.3, "Cubic's share against v1: {}", v1.0);
    // v3 leaves Cubic much more, and retransmits far less than v1.
    assert!(
        v3.0 > v1.0 + 0.15,
        "Cubic's share against v3 {} vs v1 {}",
        v3.0,
        v1.0
    );
    assert!(v3.3 > v1.3, "Jain v3 {} vs v1 {}", v3.3, v1.3);
    assert!(v3.2 < v1.2, "retransmissions v3 {} vs v1 {}", v3.2, v1.2);
    // The link stays busy.
    for (share, total, _, _) in [v1, v3, cubic] {
        assert!(
            total > 0.9 * RATE as f64 * 1000.0 / 1040.0,
            "{share} {total}"
        );
    }
}
