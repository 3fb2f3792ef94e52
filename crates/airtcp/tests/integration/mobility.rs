//! Moving nodes: links appear and vanish as nodes move (the medium's lists follow them), AODV
//! finds a new relay after a route breaks, random waypoint runs are reproducible and conserve
//! packets, a movement file replays, and bad values are refused with their path.
//!
//! Radios as the ns-3 grid comparison's (bench/wifi): 802.11b at 2 Mbps, a 250 m range model.

use crate::common::*;
use serde_json::{json, Value};

use airtcp::metrics::results::RunResults;

fn radio() -> Value {
    json!({"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
           "propagation": {"kind": "range", "range": 250.0}, "reception": "sinr"})
}

fn tcp() -> Value {
    json!({"kind": "tcp", "cc": "newreno", "mss": 1000})
}

/// Nodes at `(name, x, y)`, moving as `mobility`, one bulk TCP flow `src` -> `dst` from 1 s.
fn world(
    nodes: &[(&str, f64, f64)],
    mobility: Value,
    routing: Value,
    src: &str,
    dst: &str,
    secs: u64,
) -> Value {
    let nodes: Vec<Value> = nodes
        .iter()
        .map(|&(n, x, y)| json!({"name": n, "x": x, "y": y}))
        .collect();
    json!({
        "name": "moving", "duration": secs * S, "seed": 1,
        "radio": radio(),
        "topology": {"kind": "explicit", "nodes": nodes},
        "mobility": mobility,
        "routing": routing,
        "flows": [{"id": "f", "src": src, "dst": dst, "start": S, "app": {"kind": "bulk"},
                   "transport": tcp()}],
    })
}

/// Goodput of flow "f" in each 1-s bin, bit/s.
fn bins(r: &RunResults) -> Vec<f64> {
    let g = &r.timeseries.goodput;
    g.flow
        .iter()
        .zip(&g.goodput_bps)
        .filter(|(f, _)| *f == "f")
        .map(|(_, &b)| b)
        .collect()
}

fn sum(b: &[f64], from: usize, to: usize) -> f64 {
    b[from..to.min(b.len())].iter().sum()
}

#[test]
fn a_receiver_walking_out_of_range_stops_receiving_when_it_leaves() {
    // n1 leaves n0 at 10 m/s from 100 m: 250 m apart at 15 s.
    let v = world(
        &[("n0", 0.0, 0.0), ("n1", 100.0, 0.0)],
        json!([{"kind": "constant_velocity", "nodes": ["n1"], "vx": 10.0, "vy": 0.0}]),
        json!({"kind": "static"}),
        "n0",
        "n1",
        25,
    );
    let b = bins(&run(&v));
    for (t, &g) in b.iter().enumerate().take(14).skip(2) {
        assert!(g > 500_000.0, "bin {t}: {g} ({b:?})");
    }
    assert_eq!(sum(&b, 16, 25), 0.0, "{b:?}");
}

#[test]
fn a_receiver_walking_into_range_starts_receiving_after_it_arrives() {
    // n1 approaches from 400 m at 10 m/s: within 250 m from 15 s on.
    let v = world(
        &[("n0", 0.0, 0.0), ("n1", 400.0, 0.0)],
        json!([{"kind": "constant_velocity", "nodes": ["n1"], "vx": -10.0, "vy": 0.0}]),
        json!({"kind": "aodv"}),
        "n0",
        "n1",
        40,
    );
    let r = run(&v);
    let b = bins(&r);
    assert_eq!(sum(&b, 0, 15), 0.0, "{b:?}");
    assert!(sum(&b, 25, 35) > 5e6, "{b:?}");
}

#[test]
fn aodv_repairs_the_route_through_a_relay_that_arrives() {
    // n0 and n2 are 400 m apart. Relay n1 leaves upwards at 10 m/s (out of n0's and n2's range
    // from 15 s: (200, 150) is 250 m from both); relay n3 comes down from 400 m at 10 m/s (in
    // range of both from 25 s). The flow goes through n1, stalls, and resumes through n3.
    let v = world(
        &[
            ("n0", 0.0, 0.0),
            ("n1", 200.0, 0.0),
            ("n2", 400.0, 0.0),
            ("n3", 200.0, 400.0),
        ],
        json!([
            {"kind": "constant_velocity", "nodes": ["n1"], "vx": 0.0, "vy": 10.0},
            {"kind": "constant_velocity", "nodes": ["n3"], "vx": 0.0, "vy": -10.0}
        ]),
        json!({"kind": "aodv"}),
        "n0",
        "n2",
        50,
    );
    let r = run(&v);
    let b = bins(&r);
    assert!(sum(&b, 2, 14) > 4e6, "through n1: {b:?}");
    assert_eq!(sum(&b, 16, 25), 0.0, "no relay: {b:?}");
    assert!(sum(&b, 32, 50) > 4e6, "through n3: {b:?}");
    // Both relays carried data: the links table counts n0's attempts to each.
    let to = |peer: &str| {
        r.links
            .iter()
            .find(|l| l.from == "n0" && l.to == peer)
            .map_or(0, |l| l.attempts)
    };
    assert!(to("n1") > 100 && to("n3") > 100, "{:?}", r.links);
}

/// 30 nodes in random waypoint over 1000 x 300 m, AODV, three TCP flows.
fn manet(seed: u64, steady: bool) -> Value {
    json!({
        "name": "manet", "duration": 30 * S, "seed": seed,
        "radio": radio(),
        "topology": {"kind": "random", "n": 30, "width": 1000.0, "height": 300.0},
        "mobility": [{"kind": "random_waypoint", "min_speed": 1.0, "max_speed": 20.0,
                      "bounds": {"x_min": 0.0, "x_max": 1000.0, "y_min": 0.0, "y_max": 300.0},
                      "steady_state": steady}],
        "routing": {"kind": "aodv"},
        "flows": [
            {"id": "a", "src": "n0", "dst": "n7", "start": S, "app": {"kind": "bulk"}, "transport": tcp()},
            {"id": "b", "src": "n3", "dst": "n21", "start": S, "app": {"kind": "bulk"}, "transport": tcp()},
            {"id": "c", "src": "n12", "dst": "n28", "start": S, "app": {"kind": "bulk"}, "transport": tcp()}
        ],
    })
}

#[test]
fn random_waypoint_manets_are_reproducible_and_conserve_packets() {
    for steady in [false, true] {
        let a = run(&manet(4, steady));
        let b = run(&manet(4, steady));
        assert_eq!(
            serde_json::to_string(&a.flows).unwrap(),
            serde_json::to_string(&b.flows).unwrap()
        );
        assert_eq!(a.links.len(), b.links.len());
        let delivered: u64 = a.flows.iter().map(|f| f.bytes_delivered).sum();
        assert!(delivered > 0, "steady {steady}: nothing delivered");
    }
    // Another seed moves the nodes elsewhere.
    let c = run(&manet(5, true));
    let a = run(&manet(4, true));
    assert_ne!(
        serde_json::to_string(&a.flows).unwrap(),
        serde_json::to_string(&c.flows).unwrap()
    );
}

#[test]
fn an_ns2_movement_file_replays() {
    let dir = std::env::temp_dir().join(format!("airtcp-mobility-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("walk.ns_movements");
    // The same walk as the first test, as setdest writes it.
    std::fs::write(
        &file,
        "$node_(1) set X_ 100.0\n$node_(1) set Y_ 0.0\n$node_(1) set Z_ 0.0\n\
         $ns_ at 0.0 \"$node_(1) setdest 600.0 0.0 10.0\"\n",
    )
    .unwrap();
    let v = world(
        &[("n0", 0.0, 0.0), ("n1", 5.0, 5.0)],
        json!([{"kind": "ns2", "file": file.to_str().unwrap()}]),
        json!({"kind": "static"}),
        "n0",
        "n1",
        25,
    );
    let b = bins(&run(&v));
    assert!(sum(&b, 2, 14) > 5e6, "{b:?}");
    assert_eq!(sum(&b, 16, 25), 0.0, "{b:?}");
    std::fs::remove_dir_all(&dir).ok();
}

fn refused(v: &Value) -> (String, String) {
    let cfg = serde_json::from_value(v.clone()).expect("parses");
    let e = airtcp::simulate(&cfg).expect_err("refused");
    (e.path, e.message)
}

#[test]
fn bad_mobility_is_refused_with_its_path() {
    let two = [("n0", 0.0, 0.0), ("n1", 100.0, 0.0)];
    let case = |m: Value| refused(&world(&two, m, json!({"kind": "aodv"}), "n0", "n1", 5));
    let (p, m) = case(
        json!([{"kind": "random_waypoint", "min_speed": -1.0, "max_speed": 2.0,
                               "bounds": {"x_min": 0.0, "x_max": 10.0, "y_min": 0.0, "y_max": 10.0}}]),
    );
    assert_eq!(p, "mobility[0].min_speed", "{m}");
    let (p, _) =
        case(json!([{"kind": "constant_velocity", "nodes": ["zz"], "vx": 1.0, "vy": 0.0}]));
    assert_eq!(p, "mobility[0].nodes[0]");
    let (p, m) = case(json!([{"kind": "ns2", "file": "/nonexistent/airtcp/moves"}]));
    assert_eq!(p, "mobility[0].file");
    assert!(m.contains("cannot read"), "{m}");
    // The two nodes lie on a line: a random model needs bounds.
    let (p, _) = case(json!([{"kind": "random_walk"}]));
    assert_eq!(p, "mobility[0].bounds");
    let (p, m) = case(
        json!([{"kind": "random_waypoint", "min_speed": 3.0, "max_speed": 2.0,
                               "bounds": {"x_min": 0.0, "x_max": 10.0, "y_min": 0.0, "y_max": 10.0}}]),
    );
    assert_eq!(p, "mobility[0].max_speed", "{m}");
}

#[test]
fn candidate_lists_hold_every_radio_in_reach_between_refreshes() {
    // 150 walkers at up to 30 m/s in 1500 x 1500 m: at random instants between refreshes, every
    // radio within 250 m of another is on its list (so its frames reach it).
    let v = json!({
        "name": "lists", "duration": 100 * S, "seed": 3,
        "radio": radio(),
        "topology": {"kind": "random", "n": 150, "width": 1500.0, "height": 1500.0},
        "mobility": [{"kind": "random_walk", "min_speed": 10.0, "max_speed": 30.0,
                      "mode": "time", "time": 2 * S,
                      "bounds": {"x_min": 0.0, "x_max": 1500.0, "y_min": 0.0, "y_max": 1500.0}}],
        "routing": {"kind": "aodv"},
    });
    let cfg = serde_json::from_value(v).unwrap();
    let mut world = airtcp::scenario::build::build(&cfg).unwrap();
    let w = &mut world.net.wireless;
    let interval = w.motion.as_ref().unwrap().interval;
    let mut rng = airtcp::sim::Rng::stream(7, "test");
    let mut t = 0;
    let (mut checked, mut close) = (0u64, 0u64);
    for _ in 0..400 {
        let next = w.refresh_motion(t).unwrap();
        let at = t + (rng.uniform() * interval as f64) as u64;
        let m = w.motion.as_ref().unwrap();
        for a in 0..w.radios.len() as u32 {
            let pa = m.position(a, at);
            for b in 0..w.radios.len() as u32 {
                if a == b {
                    continue;
                }
                let pb = m.position(b, at);
                checked += 1;
                if (pa.0 - pb.0).hypot(pa.1 - pb.1) <= 250.0 {
                    close += 1;
                    let listed = w.radios[a as usize].neighbors.iter().any(|n| n.radio == b);
                    assert!(
                        listed,
                        "radio {b} within reach of {a} at {at} ns but not listed"
                    );
                }
            }
        }
        t = next;
    }
    assert!(close > 1000 && checked > close, "{close} of {checked}");
}
