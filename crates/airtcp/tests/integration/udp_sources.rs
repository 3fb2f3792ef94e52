//! UDP sources over a 1 Mbps link: Poisson arrivals at their mean rate, and paper 000's
//! utility-controlled source (eq. 5) settling where its admitted rate meets the link's.

use crate::common::*;
use serde_json::{json, Value};

/// A -> B at 1 Mbps, 10 ms, a 100-packet queue, one UDP flow with `app`.
fn link(app: Value, duration: u64, seed: u64) -> Value {
    let mut v = p2p(1_000_000, 10 * MS, 0.0, duration, json!({"kind": "udp"}));
    v["seed"] = json!(seed);
    v["flows"][0]["app"] = app;
    v["flows"][0]["start"] = json!(S);
    v
}

fn drops(r: &airtcp::metrics::results::RunResults) -> u64 {
    r.drops.iter().map(|d| d.packets).sum()
}

#[test]
fn poisson_delivers_its_mean_rate_with_random_gaps() {
    // 400 kbps of 500-byte datagrams (40 % load): 100 per second on average.
    let app = json!({"kind": "poisson", "rate": 400_000, "packet_size": 500});
    let r = run(&link(app.clone(), 101 * S, 1));
    let f = &r.flows[0];
    let rate = f.packets_sent as f64 / 100.0;
    // 10,000 expected arrivals: the count's standard deviation is 100 (1 %).
    assert!((rate / 100.0 - 1.0).abs() < 0.04, "{rate} datagrams/s");
    assert_eq!(drops(&r), 0);
    // A Poisson stream queues now and then at 40 % load; a CBR one never does.
    assert!(r.queues[0].max_backlog >= 2, "{}", r.queues[0].max_backlog);
    let cbr = run(&link(
        json!({"kind": "cbr", "rate": 400_000, "packet_size": 500}),
        101 * S,
        1,
    ));
    assert!(cbr.queues[0].max_backlog <= 1);
    // Same seed, same run; another seed, other gaps.
    let again = run(&link(app.clone(), 101 * S, 1));
    assert_eq!(again.flows[0].packets_sent, f.packets_sent);
    let other = run(&link(app, 101 * S, 2));
    assert_ne!(other.flows[0].packets_sent, f.packets_sent);
}

#[test]
fn the_utility_source_fills_the_link_without_overflowing_its_queue() {
    // 1000-byte datagrams (1028 B on the wire: 121.6 per second fit 1 Mbps, 972.8 kb/s of
    // payload), R_max 4 Mbps, 10 ms slots. With log utility the source sends M / U packets per
    // slot, so it settles where M / U matches the link's 1.216 packets per slot: U about
    // M / 1.216. The link stays busy and the queue holds about that backlog, below its 100.
    for (m, backlog) in [(12.0, 9.9), (36.0, 29.6)] {
        let app = json!({"kind": "utility", "packet_size": 1000, "r_max": 4_000_000, "m": m});
        let r = run(&link(app, 31 * S, 1));
        let goodput = r.flows[0].goodput_bps;
        assert!(goodput > 0.95 * 972.8e3, "M {m}: {goodput} b/s");
        assert_eq!(drops(&r), 0, "M {m}");
        let peak = r.queues[0].max_backlog as f64;
        assert!(
            peak > 0.8 * backlog && peak < 2.5 * backlog,
            "M {m}: peak backlog {peak} (equilibrium {backlog})"
        );
    }
    // At R_max a constant source would overflow the queue.
    let cbr = run(&link(
        json!({"kind": "cbr", "rate": 4_000_000, "packet_size": 1000}),
        31 * S,
        1,
    ));
    assert!(drops(&cbr) > 1000);
}

#[test]
fn alpha_fair_utility_settles_at_the_alpha_root() {
    // g'(x) = x^-2: x = sqrt(M / U); at 1.216 packets per slot U is about M / 1.479.
    let app = json!({"kind": "utility", "packet_size": 1000, "r_max": 4_000_000, "m": 30.0,
                     "utility": {"kind": "alpha_fair", "alpha": 2.0}});
    let r = run(&link(app, 31 * S, 1));
    assert!(r.flows[0].goodput_bps > 0.95 * 972.8e3);
    let peak = r.queues[0].max_backlog as f64;
    assert!(
        peak > 0.8 * 20.3 && peak < 2.5 * 20.3,
        "peak backlog {peak}"
    );
}

#[test]
fn bad_utility_parameters_name_the_field() {
    let cases = [
        (
            json!({"kind": "utility", "packet_size": 1000, "r_max": 1_000_000, "m": 0.0}),
            "flows[0].app.m",
        ),
        (
            json!({"kind": "utility", "packet_size": 1000, "r_max": 0, "m": 1.0}),
            "flows[0].app.r_max",
        ),
        (
            json!({"kind": "utility", "packet_size": 1000, "r_max": 1_000_000, "m": 1.0,
                   "utility": {"kind": "alpha_fair", "alpha": -1.0}}),
            "flows[0].app.utility.alpha",
        ),
        (
            json!({"kind": "poisson", "rate": 0, "packet_size": 100}),
            "flows[0].app.rate",
        ),
        // Faster than one datagram per nanosecond: simulated time would stand still.
        (
            json!({"kind": "cbr", "rate": u64::MAX, "packet_size": 1}),
            "flows[0].app.rate",
        ),
        (
            json!({"kind": "poisson", "rate": 8_000_000_001u64, "packet_size": 1}),
            "flows[0].app.rate",
        ),
        (
            json!({"kind": "utility", "packet_size": 1, "r_max": 8_000_000_001u64, "m": 1.0}),
            "flows[0].app.r_max",
        ),
    ];
    for (app, path) in cases {
        let cfg = serde_json::from_value(link(app, 2 * S, 1)).unwrap();
        let e = airtcp::simulate(&cfg).expect_err(path);
        assert_eq!(e.path, path, "{e}");
    }
}

#[test]
fn a_field_beside_a_unit_variant_is_refused_with_its_path() {
    // serde's deny_unknown_fields lets `alpha` beside `"kind": "log"` through; the JSON entry
    // point names it.
    let app = json!({"kind": "utility", "packet_size": 1000, "r_max": 1_000_000, "m": 1.0,
                     "utility": {"kind": "log", "alpha": 3.0}});
    let text = link(app, 2 * S, 1).to_string();
    let e = airtcp::simulate_json(&text).expect_err("alpha beside log");
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("flows[0].app.utility.alpha", "unknown field")
    );
}
