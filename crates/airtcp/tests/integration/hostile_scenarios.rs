//! Scenarios a hostile user wrote: each once panicked, hung or aborted the process on memory.
//! Each must now either run (conserving packets) or be refused with the offending field's path.

use crate::common::*;
use serde_json::{json, Value};

fn refused(v: &Value) -> airtcp::ConfigError {
    let cfg = serde_json::from_value(v.clone()).expect("well-formed scenario");
    match airtcp::simulate(&cfg) {
        Ok(r) => panic!("ran instead of being refused: {:?}", r.conservation),
        Err(e) => e,
    }
}

fn wired(duration: u64, flow: Value) -> Value {
    json!({
        "name": "p2p", "duration": duration, "seed": 1, "nodes": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": 2_000_000, "delay": 20 * MS}],
        "flows": [flow]
    })
}

fn bulk(tcp: Value) -> Value {
    json!({"id": "f1", "src": "A", "dst": "B", "app": {"kind": "bulk"}, "transport": tcp})
}

#[test]
fn a_chain_of_a_billion_hops_is_refused_before_it_is_placed() {
    let v = json!({
        "name": "chain", "duration": S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "chain", "hops": 1_000_000_000u64, "spacing": 200.0},
        "flows": []
    });
    let e = refused(&v);
    assert_eq!(e.path, "topology");
    assert!(e.message.contains("1,000,000,001 nodes"), "{}", e.message);
}

#[test]
fn a_dense_crowd_of_radios_is_refused_for_its_neighbour_lists() {
    // 60,000 radios within a metre of each other: 3.6e9 neighbour pairs.
    let v = json!({
        "name": "crowd", "duration": S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "random", "n": 60_000, "width": 1.0, "height": 1.0},
        "flows": []
    });
    let e = refused(&v);
    assert_eq!(e.path, "topology");
    assert!(e.message.contains("radio neighbour pairs"), "{}", e.message);
}

#[test]
fn goodput_bins_of_a_nanosecond_are_refused() {
    let mut v = wired(40 * S, bulk(json!({"kind": "tcp"})));
    v["metrics"] = json!({"bin": 1});
    let e = refused(&v);
    assert_eq!(e.path, "metrics.bin");
}

#[test]
fn a_cwnd_trace_every_nanosecond_is_refused() {
    let mut v = wired(10 * S, bulk(json!({"kind": "tcp"})));
    v["metrics"] = json!({"trace_cwnd": true, "trace_interval": 1});
    let e = refused(&v);
    assert_eq!(e.path, "metrics.trace_interval");
}

#[test]
fn a_window_of_a_billion_one_byte_segments_is_refused() {
    let tcp = json!({"kind": "tcp", "initial_cwnd": u32::MAX, "mss": 1, "rwnd": u32::MAX});
    let e = refused(&wired(S, bulk(tcp)));
    assert_eq!(e.path, "flows[0].transport.rwnd");
}

#[test]
fn a_smaller_budget_refuses_what_the_default_allows() {
    let mut v = wired(100 * S, bulk(json!({"kind": "tcp"})));
    v["metrics"] = json!({"bin": MS});
    run(&v);
    v["limits"] = json!({"memory": 1 << 20});
    assert_eq!(refused(&v).path, "metrics.bin");
}

#[test]
fn a_run_that_outgrows_its_budget_stops_with_an_error() {
    // A 1 Gb/s constant-bit-rate source into a 2 Mb/s link with a queue of 10^9 packets: the
    // queue grows without end; with a 64 MiB budget the run stops early, naming limits.memory.
    let cbr = json!({"id": "f1", "src": "A", "dst": "B",
                     "app": {"kind": "cbr", "rate": 1_000_000_000u64, "packet_size": 1000},
                     "transport": {"kind": "udp"}});
    let mut v = wired(60 * S, cbr);
    v["links"][0]["queue"] = json!({"kind": "droptail", "packets": 1_000_000_000u64});
    v["limits"] = json!({"memory": 64u64 << 20});
    let e = refused(&v);
    assert_eq!(e.path, "limits.memory");
    assert!(e.message.contains("packets alive at once"), "{}", e.message);
}

#[test]
fn a_vanishing_utility_rate_runs() {
    // alpha-fair utility with M = 1e-6 and 1-byte packets: panicked with "event scheduled in
    // the past".
    let flow = json!({"id": "f1", "src": "A", "dst": "B",
        "app": {"kind": "utility", "packet_size": 1, "r_max": 1_000_000, "m": 1e-6,
                "utility": {"kind": "alpha_fair", "alpha": 0.5}},
        "transport": {"kind": "udp"}});
    run(&wired(S, flow));
}

#[test]
fn a_bimodal_process_with_nanosecond_holds_runs() {
    // hold_min 0, hold_max 1 ns: looped forever at simulated time 0.
    let v = json!({
        "name": "bimodal", "duration": 2 * S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "chain", "hops": 1, "spacing": 200.0},
        "link_errors": [{"from": "n0", "to": "n1", "error": {"kind": "bimodal", "low": 0.1,
                         "high": 0.9, "hold_min": 0, "hold_max": 1}}],
        "flows": [{"id": "f1", "src": "n0", "dst": "n1", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp"}}]
    });
    let r = run(&v);
    assert!(r.flows[0].bytes_delivered > 0);
}

#[test]
fn timers_at_the_end_of_time_saturate() {
    // An RTO of 2^64-1 ns was added to the clock and wrapped into the past (a panic); so would a
    // delayed-ACK timeout or a cwnd sampling interval that long.
    let tcp = json!({"kind": "tcp", "initial_rto": u64::MAX, "min_rto": u64::MAX / 4,
                     "max_rto": u64::MAX, "delayed_ack_timeout": u64::MAX});
    let mut v = wired(2 * S, bulk(tcp));
    v["metrics"] = json!({"trace_cwnd": true, "trace_interval": u64::MAX});
    let r = run(&v);
    assert!(r.flows[0].bytes_delivered > 0);
}

#[test]
fn a_frame_longer_than_time_itself_never_ends() {
    // 4 GB datagrams at 1 bit/s: the serialisation time does not fit in 64 bits of nanoseconds.
    let cbr = json!({"id": "f1", "src": "A", "dst": "B",
                     "app": {"kind": "cbr", "rate": 1_000_000, "packet_size": u32::MAX - 100},
                     "transport": {"kind": "udp"}});
    let mut v = wired(S, cbr);
    v["links"][0]["rate"] = json!(1);
    let r = run(&v);
    assert_eq!(r.flows[0].bytes_delivered, 0);
}

#[test]
fn a_dense_crowd_under_etx_is_charged_its_route_search() {
    // 3000 radios in a square metre with ETX routes: 9 million neighbour pairs whose shortest-path
    // search (weights, heap) was not counted: some 580 MB were charged for about 900 MB used.
    let v = json!({
        "name": "crowd", "duration": S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "random", "n": 3000, "width": 1.0, "height": 1.0},
        "routing": {"kind": "static", "metric": "etx"},
        "limits": {"memory": 800u64 << 20},
        "flows": []
    });
    let e = refused(&v);
    assert_eq!(e.path, "topology");
}
