//! AODV over an 802.11b grid: routes are found, and a node failing mid-run is routed around.

mod common;
use common::*;
use serde_json::{json, Value};

fn grid(flows: Value, failures: Value, duration: u64) -> Value {
    json!({
        "name": "grid-aodv", "duration": duration, "seed": 3,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "grid", "rows": 5, "cols": 5, "spacing": 200.0},
        "routing": {"kind": "aodv"},
        "flows": flows,
        "failures": failures,
        "metrics": {"bin": S}
    })
}

fn tcp(id: &str, src: &str, dst: &str) -> Value {
    tcp_from(id, src, dst, S)
}

fn tcp_from(id: &str, src: &str, dst: &str, start: u64) -> Value {
    json!({"id": id, "src": src, "dst": dst, "start": start, "app": {"kind": "bulk"},
           "transport": {"kind": "tcp", "cc": "newreno", "sack": true}})
}

/// Bytes-per-second of `flow` averaged over bins starting in [from, to).
fn goodput_between(
    r: &airtcp::metrics::results::RunResults,
    flow: &str,
    from: f64,
    to: f64,
) -> f64 {
    let g = &r.timeseries.goodput;
    let v: Vec<f64> = (0..g.t_s.len())
        .filter(|&i| g.flow[i] == flow && g.t_s[i] >= from && g.t_s[i] < to)
        .map(|i| g.goodput_bps[i])
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

#[test]
fn aodv_finds_routes_across_a_grid() {
    // Two 8-hop diagonals crossing in the middle, alone and together: every flow finds its
    // route and gets through for most of the run. Together, b starts 0.5 s after a: started
    // at the same instant, their first windows collide while both discover routes, and with
    // some seeds one flow loses them and its RTO backs off for most of the minute (TCP start-up
    // starvation, not a routing failure).
    let runs = [
        json!([tcp("a", "n0", "n24")]),
        json!([tcp("b", "n4", "n20")]),
        json!([tcp("a", "n0", "n24"), tcp_from("b", "n4", "n20", 3 * S / 2)]),
    ];
    for flows in runs {
        let r = run(&grid(flows, json!([]), 60 * S));
        for f in &r.flows {
            assert!(f.goodput_bps > 20e3, "{}: {} bps", f.id, f.goodput_bps);
            assert!(
                goodput_between(&r, &f.id, 30.0, 60.0) > 10e3,
                "{} stalls",
                f.id
            );
        }
    }
}

#[test]
fn a_failed_relay_is_detected_and_routed_around() {
    // n10 -> n14 along the middle row; n12 fails at 20 s. The MAC's retry failures break the
    // route, RERRs reach the source, and a new discovery goes around n12 (through row 1 or 3):
    // with local repair (n11 rediscovers for the packets it holds) and without (n11 drops what
    // it cannot forward and reports the destination; the source rediscovers).
    for local_repair in [true, false] {
        let mut v = grid(
            json!([tcp("f", "n10", "n14")]),
            json!([{"node": "n12", "at": 20 * S}]),
            60 * S,
        );
        v["routing"]["local_repair"] = json!(local_repair);
        check_routed_around(&run(&v), local_repair);
    }
}

fn check_routed_around(with_failure: &airtcp::metrics::results::RunResults, local_repair: bool) {
    let before = goodput_between(with_failure, "f", 5.0, 20.0);
    let after = goodput_between(with_failure, "f", 30.0, 60.0);
    assert!(
        before > 100e3,
        "local repair {local_repair}: before the failure: {before}"
    );
    assert!(
        after > 0.3 * before,
        "local repair {local_repair}: after the failure: {after} (before {before})"
    );
    let drops: u64 = with_failure
        .drops
        .iter()
        .filter(|d| d.reason == "node_down")
        .map(|d| d.packets)
        .sum();
    assert!(
        drops <= 60,
        "local repair {local_repair}: the failed node held {drops} packets"
    );
}

#[test]
fn aodv_runs_are_deterministic() {
    let v = grid(
        json!([tcp("a", "n0", "n24")]),
        json!([{"node": "n6", "at": 10 * S}]),
        20 * S,
    );
    let a = serde_json::to_string(&run(&v).flows).unwrap();
    assert_eq!(a, serde_json::to_string(&run(&v).flows).unwrap());
}
