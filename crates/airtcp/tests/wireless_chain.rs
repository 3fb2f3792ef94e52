//! TCP over 802.11b chains.

mod common;
use common::*;
use serde_json::{json, Value};

/// The chain of the issue: 802.11b at 2 Mbps (basic 1 Mbps), range 250 m, spacing 200 m,
/// one NewReno/SACK flow n0 -> nN from 1 s.
pub fn chain(hops: u32, duration: u64, rts_cts: bool) -> Value {
    json!({
        "name": "chain", "duration": duration, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "rts_cts": rts_cts, "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "chain", "hops": hops, "spacing": 200.0},
        "routing": {"kind": "static"},
        "flows": [{"id": "f1", "src": "n0", "dst": format!("n{hops}"), "start": S,
                   "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000,
                                 "delayed_ack": 2, "initial_cwnd": 10}}]
    })
}

#[test]
fn scratch_chain() {
    let only: Option<u32> = std::env::var("XHOPS").ok().map(|v| v.parse().unwrap());
    for hops in 1..=8 {
        if only.is_some_and(|o| o != hops) {
            continue;
        }
        let r = run(&chain(hops, 100 * S, false));
        let f = &r.flows[0];
        eprintln!(
            "  cons {:?} queues {:?}",
            r.conservation,
            r.queues
                .iter()
                .map(|q| (q.queue.clone(), q.enqueued, q.transmitted))
                .collect::<Vec<_>>()
        );
        eprintln!(
            "hops {hops}: goodput {:.1} kbps retx {} rto {} events {} wall {:.3}s drops {:?}",
            f.goodput_bps / 1e3,
            f.retransmissions,
            f.timeouts,
            r.timing.events,
            r.timing.wall_s,
            r.drops
                .iter()
                .map(|d| format!("{}:{}={}", d.queue, d.reason, d.packets))
                .collect::<Vec<_>>()
        );
    }
}
