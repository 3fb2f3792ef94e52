//! Radios on different channels: orthogonal channels share no air, and a node with a radio on
//! each of two channels bridges them (paper 003 §6: Horizon's multi-homed bridges).

use crate::common::*;
use serde_json::{json, Value};

/// A 250 m range radio at 2 Mbps; `node_channels` as given.
fn radio(node_channels: Value) -> Value {
    json!({"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
           "propagation": {"kind": "range", "range": 250.0}, "node_channels": node_channels})
}

fn cbr(id: &str, src: &str, dst: &str) -> Value {
    // Far above what 2 Mbps 802.11b carries: the interface queue never empties.
    json!({"id": id, "src": src, "dst": dst, "start": S,
           "app": {"kind": "cbr", "rate": 4_000_000, "packet_size": 1000},
           "transport": {"kind": "udp"}})
}

/// Two one-hop links 50 m apart (every node hears every other), saturated with UDP; `pairs` of
/// them carry traffic, the second link's nodes on `second_channel`.
fn two_links(pairs: usize, second_channel: u32) -> Value {
    let nodes = json!([
        {"name": "s1", "x": 0.0, "y": 0.0}, {"name": "r1", "x": 100.0, "y": 0.0},
        {"name": "s2", "x": 0.0, "y": 50.0}, {"name": "r2", "x": 100.0, "y": 50.0},
    ]);
    let flows: Vec<Value> = [cbr("f1", "s1", "r1"), cbr("f2", "s2", "r2")]
        .into_iter()
        .take(pairs)
        .collect();
    json!({
        "name": "two-links", "duration": 11 * S, "seed": 3,
        "topology": {"kind": "explicit", "nodes": nodes},
        "radio": radio(json!({"s2": [second_channel], "r2": [second_channel]})),
        "flows": flows,
    })
}

fn goodputs(v: &Value) -> Vec<f64> {
    run(v).flows.iter().map(|f| f.goodput_bps).collect()
}

#[test]
fn links_on_one_channel_share_the_air_and_on_two_channels_do_not() {
    let solo = goodputs(&two_links(1, 1))[0];
    let same = goodputs(&two_links(2, 1));
    let apart = goodputs(&two_links(2, 6));
    eprintln!("solo {solo:.0} b/s, same channel {same:.0?}, channels 1 and 6 {apart:.0?}");
    assert!(
        solo > 1.0e6,
        "a saturated 2 Mbps link carries over 1 Mb/s: {solo}"
    );
    for g in &same {
        let share = g / solo;
        assert!(
            (0.35..0.65).contains(&share),
            "same channel: {share:.3} of solo"
        );
    }
    let total = (same[0] + same[1]) / solo;
    assert!(
        (0.8..1.05).contains(&total),
        "same channel together: {total:.3} of solo"
    );
    for g in &apart {
        let share = g / solo;
        assert!(
            (0.97..1.03).contains(&share),
            "own channel: {share:.3} of solo"
        );
    }
}

/// a0 - a1 - b - c1 - c0, 200 m apart: the a side on channel 1, the c side on channel 6, and the
/// bridge b on `bridge` channels. One bulk TCP flow a0 -> c0.
fn bridged(bridge: &[u32], routing: &str) -> Value {
    let nodes: Vec<Value> = ["a0", "a1", "b", "c1", "c0"]
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "x": 200.0 * i as f64, "y": 0.0}))
        .collect();
    json!({
        "name": "bridge", "duration": 20 * S, "seed": 5,
        "topology": {"kind": "explicit", "nodes": nodes},
        "radio": radio(json!({"b": bridge, "c1": [6], "c0": [6]})),
        "routing": {"kind": routing},
        "flows": [{"id": "f", "src": "a0", "dst": "c0", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000,
                                 "delayed_ack": 2, "initial_cwnd": 2}}],
    })
}

#[test]
fn a_two_radio_bridge_joins_two_channels_with_static_routes_aodv_and_backpressure() {
    for routing in ["static", "aodv", "backpressure"] {
        let r = run(&bridged(&[1, 6], routing));
        let f = &r.flows[0];
        eprintln!(
            "{routing}: {} bytes, {:.0} b/s",
            f.bytes_delivered, f.goodput_bps
        );
        assert!(f.goodput_bps > 100e3, "{routing}: {:.0} b/s", f.goodput_bps);
        // The bridge's interface queues and link ends are named by channel; both carried
        // traffic (ch1 mostly ACKs: about one per two segments).
        for q in ["radio b ch1", "radio b ch6"] {
            let row = r.queues.iter().find(|row| row.queue == q).expect(q);
            assert!(
                row.transmitted > 300,
                "{routing}: {q} sent {}",
                row.transmitted
            );
        }
        assert!(r.queues.iter().any(|row| row.queue == "radio a1"));
        let link = |from: &str, to: &str| r.links.iter().any(|l| l.from == from && l.to == to);
        assert!(link("a1", "b ch1") && link("b ch6", "c1") && link("c1", "b ch6"));
        assert!(!r.links.iter().any(|l| l.from == "b" || l.to == "b"));
        // Backpressure keeps one state per node across its radios: one row per node, the bridge
        // once.
        let json = serde_json::to_value(&r).unwrap();
        let nodes: Vec<&str> = json["backpressure"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["node"].as_str().unwrap())
            .collect();
        if routing == "backpressure" {
            assert_eq!(nodes, ["a0", "a1", "b", "c1", "c0"]);
        } else {
            assert!(nodes.is_empty());
        }
    }
}

#[test]
fn backpressure_sends_to_a_neighbour_on_either_channel_both_share() {
    // b and c1 both have radios on channels 1 and 6: b reaches c1 on either, and each of b's
    // radios takes packets from b's one set of queues at its own transmit opportunities.
    let mut v = bridged(&[1, 6], "backpressure");
    v["radio"]["node_channels"]["c1"] = json!([1, 6]);
    let r = run(&v);
    let f = &r.flows[0];
    let carried = |from: &str, to: &str| {
        r.links
            .iter()
            .find(|l| l.from == from && l.to == to)
            .map_or(0, |l| l.answered)
    };
    let (on1, on6) = (carried("b ch1", "c1 ch1"), carried("b ch6", "c1 ch6"));
    eprintln!(
        "{:.0} b/s; b -> c1 answered on ch1 {on1}, on ch6 {on6}",
        f.goodput_bps
    );
    assert!(f.goodput_bps > 100e3, "{:.0} b/s", f.goodput_bps);
    assert!(on1 > 100 && on6 > 100, "ch1 {on1}, ch6 {on6}");
    // A radio only ever addresses neighbours on its own channel: no attempt goes astray.
    let astray: u64 = r
        .drops
        .iter()
        .filter(|d| d.queue.starts_with("radio b") && d.reason == "retry_limit")
        .map(|d| d.packets)
        .sum();
    let attempts: u64 = r
        .links
        .iter()
        .filter(|l| l.from.starts_with("b "))
        .map(|l| l.attempts)
        .sum();
    assert!(
        astray * 20 < attempts,
        "{astray} retry drops of {attempts} attempts"
    );
}

#[test]
fn without_the_second_radio_there_is_no_route() {
    for routing in ["static", "aodv", "backpressure"] {
        let cfg = serde_json::from_value(bridged(&[1], routing)).unwrap();
        let e = airtcp::simulate(&cfg).expect_err("the two channels are not joined");
        assert_eq!(e.path, "flows[0].dst", "{routing}: {e}");
        assert!(e.message.contains("no route"), "{routing}: {e}");
    }
}

#[test]
fn multi_radio_runs_are_deterministic() {
    for routing in ["static", "aodv", "backpressure"] {
        let v = bridged(&[1, 6], routing);
        let strip = |r: airtcp::metrics::results::RunResults| {
            let mut j = serde_json::to_value(r).unwrap();
            j.as_object_mut().unwrap().remove("timing");
            j
        };
        let (a, b) = (strip(run(&v)), strip(run(&v)));
        assert_eq!(a, b, "{routing}");
        let mut other = v.clone();
        other["seed"] = json!(6);
        assert_ne!(a, strip(run(&other)), "{routing}: the seed matters");
    }
}

#[test]
fn a_failed_bridge_takes_both_radios_down() {
    for routing in ["aodv", "backpressure"] {
        a_failed_bridge_takes_both_radios_down_with(routing);
    }
}

fn a_failed_bridge_takes_both_radios_down_with(routing: &str) {
    let mut v = bridged(&[1, 6], routing);
    v["failures"] = json!([{"node": "b", "at": 10 * S}]);
    let r = run(&v);
    let sent = |q: &str| {
        r.queues
            .iter()
            .find(|row| row.queue == q)
            .unwrap()
            .transmitted
    };
    let before = r.flows[0].bytes_delivered;
    assert!(before > 0);
    // Nothing crosses after the failure: the goodput of the last bins is zero.
    let late: f64 = r
        .timeseries
        .goodput
        .t_s
        .iter()
        .zip(&r.timeseries.goodput.goodput_bps)
        .filter(|(t, _)| **t >= 11.0)
        .map(|(_, g)| g)
        .sum();
    assert_eq!(late, 0.0);
    assert!(sent("radio b ch1") > 0 && sent("radio b ch6") > 0);
}
