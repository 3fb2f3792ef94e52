//! A node that fails while it is sending: the frame on the air is cut off with it, so the packet
//! it carried is dropped once (`node_down`) and never also delivered. Before this was so, a TCP
//! source failing mid-run had a packet counted dropped and delivered, and the arena's live count
//! wrapped below zero.

use crate::common::*;
use serde_json::{json, Value};

/// Two radios 200 m apart, n0 -> n1 bulk TCP, n0 fails at `fail_at`.
fn two_node_chain(routing: Value, fail_at: u64, seed: u64) -> Value {
    json!({
        "name": "fail", "duration": 5 * S, "seed": seed,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "chain", "hops": 1, "spacing": 200.0},
        "routing": routing,
        "failures": [{"node": "n0", "at": fail_at}],
        "flows": [{"id": "f1", "src": "n0", "dst": "n1", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "sack": true}}]
    })
}

#[test]
fn a_source_failing_mid_frame_conserves_packets() {
    let routings = [
        json!({"kind": "static"}),
        json!({"kind": "aodv"}),
        json!({"kind": "backpressure"}),
    ];
    for routing in routings {
        // Failure instants spread over a few frame times, so some land while a data frame or
        // an ACK is on the air.
        for k in 0..40u64 {
            let v = two_node_chain(routing.clone(), S + k * 317 * 1_000, 1);
            let r = run(&v); // asserts conservation
            assert!(
                r.conservation.in_flight < 1_000,
                "{routing}: {:?}",
                r.conservation
            );
        }
    }
}

#[test]
fn a_relay_failing_mid_frame_conserves_packets() {
    for k in 0..40u64 {
        let mut v = two_node_chain(json!({"kind": "static"}), S + k * 211 * 1_000, 2);
        v["topology"]["hops"] = json!(2);
        v["failures"] = json!([{"node": "n1", "at": S + k * 211 * 1_000}]);
        v["flows"][0]["dst"] = json!("n2");
        run(&v);
    }
}
