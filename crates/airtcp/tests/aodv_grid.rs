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
    json!({"id": id, "src": src, "dst": dst, "start": S, "app": {"kind": "bulk"},
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
    let r = run(&grid(
        json!([tcp("a", "n0", "n24"), tcp("b", "n4", "n20")]),
        json!([]),
        60 * S,
    ));
    for f in &r.flows {
        // 8 hops each, crossing in the middle: both get through for most of the run.
        assert!(f.goodput_bps > 20e3, "{}: {} bps", f.id, f.goodput_bps);
        assert!(
            goodput_between(&r, &f.id, 30.0, 60.0) > 10e3,
            "{} stalls",
            f.id
        );
    }
}

#[test]
fn a_failed_relay_is_detected_and_routed_around() {
    // n10 -> n14 along the middle row; n12 fails at 20 s. The MAC's retry failures break the
    // route, RERRs reach the source, and a new discovery goes around n12 (through row 1 or 3).
    let flows = json!([tcp("f", "n10", "n14")]);
    let with_failure = run(&grid(
        flows.clone(),
        json!([{"node": "n12", "at": 20 * S}]),
        60 * S,
    ));
    let before = goodput_between(&with_failure, "f", 5.0, 20.0);
    let after = goodput_between(&with_failure, "f", 30.0, 60.0);
    assert!(before > 100e3, "before the failure: {before}");
    assert!(
        after > 0.3 * before,
        "after the failure: {after} (before {before})"
    );
    let drops: u64 = with_failure
        .drops
        .iter()
        .filter(|d| d.reason == "node_down")
        .map(|d| d.packets)
        .sum();
    assert!(drops <= 60, "the failed node held {drops} packets");
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
