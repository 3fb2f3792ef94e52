//! TCP over 802.11b chains.

use crate::common::*;
use serde_json::{json, Value};

/// The chain of the issue: 802.11b at 2 Mbps (basic 1 Mbps), range 250 m, spacing 200 m,
/// one NewReno/SACK flow n0 -> nN from 1 s.
fn chain(hops: u32, duration: u64, rts_cts: bool) -> Value {
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

/// Goodput of one NewReno flow over chains of 1..=8 hops, 100 s.
fn chain_goodputs() -> Vec<f64> {
    (1..=8)
        .map(|h| run(&chain(h, 100 * S, false)).flows[0].goodput_bps)
        .collect()
}

#[test]
fn chain_goodput_falls_with_the_hop_count() {
    let g = chain_goodputs();
    for h in 1..g.len() {
        assert!(
            g[h] < g[h - 1],
            "{} hops: {} not below {} ({g:?})",
            h + 1,
            g[h],
            g[h - 1]
        );
    }
}

#[test]
fn one_hop_tcp_matches_ns3() {
    // ns-3 3.44 on the same configuration: 1402 kbps (the reference figure).
    let g = run(&chain(1, 100 * S, false)).flows[0].goodput_bps;
    assert!((g / 1402e3 - 1.0).abs() <= 0.10, "one hop: {g}");
}

#[test]
fn wireless_runs_are_deterministic() {
    let once = |seed: u64| {
        let mut v = chain(4, 30 * S, false);
        v["seed"] = json!(seed);
        v["radio"]["propagation"] = json!({"kind": "two_ray_ground"});
        v["radio"]["fading"] = json!({"kind": "rayleigh"});
        serde_json::to_string(&run(&v).flows).unwrap()
    };
    assert_eq!(once(1), once(1));
    assert_ne!(once(1), once(2));
}

/// ns-3 3.44's figures for the same chains, measured by `python -m airtcp.bench.wifi` and stored
/// in bench/wifi/ns3_reference.json (mean of seeds 1-3, basic access, classic recovery).
fn ns3_chain_reference() -> Vec<f64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/wifi/ns3_reference.json"
    );
    let text = std::fs::read_to_string(path).expect("bench/wifi/ns3_reference.json");
    let v: Value = serde_json::from_str(&text).expect("reference JSON");
    v["chain"]["variants"]["basic_classic"]
        .as_array()
        .expect("chain rows")
        .iter()
        .map(|row| row["goodput_kbps"].as_f64().expect("goodput") * 1e3)
        .collect()
}

#[test]
fn chains_of_one_to_eight_hops_match_ns3_within_20_percent() {
    // Configured as the ns-3 program is: SINR-only reception (ns-3 has no capture threshold),
    // ACKs at the data rate (ns-3's ad-hoc stations), 52-byte TCP/IP headers (timestamps),
    // ssthresh from the pipe, a 500-packet interface queue, goodput over 99 s.
    let reference = ns3_chain_reference();
    let mut rows = Vec::new();
    let mut worst: f64 = 0.0;
    for hops in 1..=8u32 {
        let mut g = 0.0;
        for seed in 1..=3u64 {
            let mut v = chain(hops, 100 * S, false);
            v["seed"] = json!(seed);
            v["radio"]["reception"] = json!("sinr");
            v["radio"]["ack_rate"] = json!("data");
            v["radio"]["queue"] = json!({"kind": "droptail", "packets": 500});
            v["flows"][0]["transport"]["header_bytes"] = json!(52);
            v["flows"][0]["transport"]["ssthresh_basis"] = json!("pipe");
            g += run(&v).flows[0].goodput_bps * 100.0 / 99.0 / 3.0;
        }
        let ns3 = reference[hops as usize - 1];
        worst = worst.max((g / ns3 - 1.0).abs());
        rows.push(format!(
            "{hops} hops: airtcp {:.1} kbps, ns-3 {:.1} kbps ({:.3})",
            g / 1e3,
            ns3 / 1e3,
            g / ns3
        ));
    }
    eprintln!("{}", rows.join("\n"));
    assert!(worst <= 0.20, "{}", rows.join("\n"));
}
