//! The forwarding layers that hold packets and hand them over at transmit opportunities, on
//! 802.11n radios that aggregate: backpressure and Horizon fill A-MPDUs (each further packet a
//! decision of their own, for the neighbour the first went to), COPE's frames stay single.
//!
//! The chain: four nodes 30 m apart under log-distance loss (SNR 63.31 - 30 log10(d) dB, 18.9 dB
//! per hop: MCS 4, 39 Mbit/s, delivers; 60 m, 9.9 dB, is out of reach), one bulk TCP flow end
//! to end.

use crate::common::*;
use serde_json::{json, Value};

use airtcp::metrics::results::RunResults;

fn chain(routing: Value, max_ampdu_bytes: u32) -> Value {
    json!({
        "name": "agg", "duration": 8 * S, "seed": 2,
        "radio": {
            "standard": "802.11n", "data_rate": 39_000_000, "basic_rate": 6_000_000,
            "tx_power": 16.0206, "reception": "sinr",
            "aggregation": {"max_ampdu_bytes": max_ampdu_bytes},
            "queue": {"kind": "droptail", "packets": 200},
            "propagation": {"kind": "log_distance", "exponent": 3.0, "reference_distance": 1.0,
                            "reference_loss": 46.6777},
        },
        "topology": {"kind": "chain", "hops": 3, "spacing": 30.0},
        "routing": routing,
        "flows": [{"id": "f", "src": "n0", "dst": "n3", "start": S, "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "cubic", "sack": true, "mss": 1448,
                                 "delayed_ack": 2, "initial_cwnd": 10}}]
    })
}

/// MPDUs per A-MPDU on the data link `from` -> `to` (0 if it sent none).
fn mpdus_per_ampdu(r: &RunResults, from: &str, to: &str) -> f64 {
    r.links
        .iter()
        .find(|l| l.from == from && l.to == to)
        .and_then(|l| l.mpdus_per_ampdu)
        .unwrap_or(0.0)
}

fn ampdus(r: &RunResults) -> u64 {
    r.links.iter().filter_map(|l| l.ampdus).sum()
}

#[test]
fn backpressure_and_horizon_fill_ampdus_and_gain_from_them() {
    for routing in [
        json!({"kind": "backpressure", "differential": "tcp_aware"}),
        json!({"kind": "horizon"}),
        json!({"kind": "horizon", "mac": "pull"}),
    ] {
        let aggregated = run(&chain(routing.clone(), 65_535));
        let single = run(&chain(routing.clone(), 0));
        let (g, g1) = (aggregated.flows[0].goodput_bps, single.flows[0].goodput_bps);
        let per = mpdus_per_ampdu(&aggregated, "n0", "n1");
        eprintln!("{routing}: {g:.0} b/s with A-MPDUs ({per:.1} MPDUs each), {g1:.0} without");
        assert!(per > 3.0, "{routing}: {per} MPDUs per A-MPDU");
        assert!(g > 1.4 * g1, "{routing}: {g} vs {g1} b/s");
        assert_eq!(ampdus(&single), 0, "{routing}");
    }
}

#[test]
fn backpressure_aggregates_what_it_decides_for_the_chosen_neighbour() {
    // With aggregation, the same traffic over the same chain takes far fewer transmit
    // opportunities at the source: each A-MPDU carries several of backpressure's decisions.
    let bp = json!({"kind": "backpressure", "differential": "tcp_aware"});
    let attempts = |r: &RunResults| {
        r.links
            .iter()
            .find(|l| l.from == "n0" && l.to == "n1")
            .map_or(0, |l| l.attempts)
    };
    let (a, s) = (run(&chain(bp.clone(), 65_535)), run(&chain(bp, 0)));
    let per_packet = |r: &RunResults| attempts(r) as f64 / r.flows[0].goodput_bps;
    assert!(
        per_packet(&a) < 0.5 * per_packet(&s),
        "attempts per delivered bit: {} vs {}",
        per_packet(&a),
        per_packet(&s)
    );
}

#[test]
fn cope_sends_its_frames_single_on_an_aggregating_radio() {
    // Alice and Bob through the relay, every node in range of every other: COPE codes at the
    // relay, and none of its frames goes in an A-MPDU (docs/cope.md).
    let v = json!({
        "name": "cope11n", "duration": 5 * S, "seed": 1,
        "radio": {
            "standard": "802.11n", "data_rate": 65_000_000, "basic_rate": 6_000_000,
            "tx_power": 16.0206,
            "queue": {"kind": "droptail", "packets": 50},
            "propagation": {"kind": "log_distance", "exponent": 3.0, "reference_distance": 1.0,
                            "reference_loss": 46.6777},
        },
        "topology": {"kind": "alice_bob", "spacing": 20.0},
        "routing": {"kind": "static"},
        "coding": {"scheme": "cope", "queue": "fifo"},
        "flows": [
            {"id": "a", "src": "n1", "dst": "n2", "start": S, "app": {"kind": "bulk"},
             "transport": {"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000}},
            {"id": "b", "src": "n2", "dst": "n1", "start": S, "app": {"kind": "bulk"},
             "transport": {"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000}}
        ]
    });
    let r = run(&v);
    assert!(r.flows.iter().all(|f| f.goodput_bps > 1e5), "{:?}", r.flows);
    assert_eq!(ampdus(&r), 0);
}

#[test]
fn a_msdu_settings_the_standard_does_not_allow_are_refused_with_their_path() {
    let routing = json!({"kind": "static"});
    for (aggregation, message) in [
        (
            json!({"max_amsdu_bytes": 7936}),
            "an HT A-MSDU holds at most 7935 bytes; got 7936",
        ),
        (
            json!({"max_ampdu_bytes": 0, "max_amsdu_bytes": 3839}),
            "A-MSDUs are sent under the Block Ack agreement, which max_ampdu_bytes 0 turns off",
        ),
    ] {
        let mut v = chain(routing.clone(), 65_535);
        v["radio"]["aggregation"] = aggregation;
        let cfg: airtcp::scenario::config::ScenarioConfig =
            serde_json::from_value(v).expect("parses");
        let e = airtcp::simulate(&cfg).expect_err("refused");
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("radio.aggregation.max_amsdu_bytes", message)
        );
    }
}

#[test]
fn a_msdus_carry_a_chains_packets_and_keep_them_conserved() {
    // The same chain with A-MSDUs of up to 7935 bytes under static routes and under
    // backpressure: each MPDU carries several packets, and every packet is accounted for (`run`
    // checks conservation).
    for routing in [
        json!({"kind": "static"}),
        json!({"kind": "backpressure", "differential": "tcp_aware"}),
    ] {
        let mut v = chain(routing.clone(), 65_535);
        v["radio"]["aggregation"]["max_amsdu_bytes"] = json!(7935);
        let r = run(&v);
        let link = r.links.iter().find(|l| l.from == "n0" && l.to == "n1");
        let per = link.and_then(|l| l.msdus_per_amsdu).unwrap_or(0.0);
        assert!(per > 2.0, "{routing}: {per} packets per A-MSDU");
        assert!(r.flows[0].goodput_bps > 1e6, "{routing}: {:?}", r.flows[0]);
    }
}
