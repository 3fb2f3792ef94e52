//! Adaptive rate control on one 802.11a hop: ARF climbs the ladder on a clean link, the managers
//! spread their frames over several rates under Rayleigh fading, the per-rate table and the
//! trace of rate changes agree with each other, and bad parameters are refused with their path.
//! On one 802.11n hop with A-MPDUs, Minstrel-HT settles on the MCSs that work.
//!
//! Propagation as the differential matrix's (bench/wifi): log-distance, exponent 3, 46.68 dB at
//! 1 m, 16.02 dBm: the mean SNR is 63.3 - 30 log10(d) dB (33.3 dB at 10 m, 15.2 dB at 40 m).

use crate::common::*;
use serde_json::{json, Value};

use airtcp::metrics::results::RunResults;

/// Two nodes `d` m apart, 802.11a up to 54 Mbps, one bulk TCP flow n0 -> n1 for 5 s.
fn hop(d: f64, rate_control: Value, fading: Value) -> Value {
    json!({
        "name": "rate", "duration": 6 * S, "seed": 1,
        "radio": {
            "standard": "802.11a", "data_rate": 54_000_000, "basic_rate": 6_000_000,
            "tx_power": 16.02, "rate_control": rate_control, "fading": fading,
            "propagation": {"kind": "log_distance", "exponent": 3.0, "reference_distance": 1.0,
                            "reference_loss": 46.68},
        },
        "topology": {"kind": "explicit", "nodes": [
            {"name": "n0", "x": 0.0, "y": 0.0}, {"name": "n1", "x": d, "y": 0.0}]},
        "routing": {"kind": "static"},
        "flows": [{"id": "f", "src": "n0", "dst": "n1", "start": S, "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "mss": 1460}}],
        "metrics": {"trace_rates": true}
    })
}

/// (rate Mbit/s, attempts, acked) of the data link n0 -> n1.
fn per_rate(r: &RunResults) -> Vec<(f64, u64, u64)> {
    r.link_rates
        .iter()
        .filter(|row| row.from == "n0" && row.to == "n1")
        .map(|row| (row.rate_mbps, row.attempts, row.acked))
        .collect()
}

fn attempts(rows: &[(f64, u64, u64)]) -> u64 {
    rows.iter().map(|r| r.1).sum()
}

#[test]
fn arf_climbs_to_the_top_rate_on_a_clean_link_one_rung_per_ten_successes() {
    let r = run(&hop(10.0, json!({"kind": "arf"}), json!({"kind": "none"})));
    let rows = per_rate(&r);
    let total = attempts(&rows);
    let top = rows.iter().find(|row| row.0 == 54.0).expect("54 Mbps used");
    assert!(top.1 as f64 > 0.95 * total as f64, "{rows:?}");
    // Each rung below the top got its ten acknowledged frames on the way up (no loss at 33 dB
    // but collisions of the data with the TCP ACKs, after which ARF steps down and back).
    for row in rows.iter().filter(|row| row.0 < 54.0) {
        assert!(row.2 >= 10, "{rows:?}");
    }
    let low: Vec<_> = rows.iter().filter(|row| row.0 < 48.0).collect();
    assert!(low.iter().all(|row| (row.1, row.2) == (10, 10)), "{rows:?}");
    // The trace: the first frame at 6 Mbps, then one rung at a time up to 54.
    let s = &r.timeseries.rates;
    let ups: Vec<f64> = (0..s.from.len())
        .filter(|&i| s.from[i] == "n0" && s.to[i] == "n1")
        .map(|i| s.rate_mbps[i])
        .collect();
    assert_eq!(ups[..8], [6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0]);
    // Later changes only ever go between 48 and 54 Mbps.
    assert!(ups[8..].iter().all(|&r| r == 48.0 || r == 54.0), "{ups:?}");
    let link = r.links.iter().find(|l| l.from == "n0").expect("link row");
    assert!(
        link.rate_mbps > 53.0 && link.rate_mbps < 54.0,
        "{}",
        link.rate_mbps
    );
}

#[test]
fn under_rayleigh_fading_the_managers_spread_over_rates_and_beat_a_fixed_top_rate() {
    // The fixed rate's link fails the routing's delivery check at its mean SNR: allow it.
    let mut v = hop(
        25.0,
        json!({"kind": "constant"}),
        json!({"kind": "rayleigh"}),
    );
    v["routing"]["min_delivery"] = json!(0.0);
    let fixed = run(&v);
    let fixed_goodput = fixed.flows[0].goodput_bps;
    for kind in ["arf", "aarf", "minstrel", "snr_threshold"] {
        let r = run(&hop(
            25.0,
            json!({"kind": kind}),
            json!({"kind": "rayleigh"}),
        ));
        let rows = per_rate(&r);
        let used = rows.iter().filter(|row| row.1 >= 10).count();
        assert!(used >= 3, "{kind}: {rows:?}");
        let goodput = r.flows[0].goodput_bps;
        assert!(
            goodput > 2.0 * fixed_goodput,
            "{kind}: {goodput} vs fixed 54 Mbps {fixed_goodput}"
        );
        // The link table's mean rate is the per-rate table's.
        let frames = attempts(&rows) as f64;
        let mean = rows.iter().map(|row| row.0 * row.1 as f64).sum::<f64>() / frames;
        let link = r.links.iter().find(|l| l.from == "n0").expect("link row");
        assert!((link.rate_mbps - mean).abs() < 1e-9, "{kind}");
        assert_eq!(
            link.attempts,
            attempts(&rows),
            "{kind}: every data attempt counted once"
        );
    }
}

#[test]
fn without_adaptive_control_the_results_have_no_rate_tables() {
    let r = run(&hop(
        10.0,
        json!({"kind": "constant"}),
        json!({"kind": "none"}),
    ));
    assert!(r.link_rates.is_empty());
    assert!(r.timeseries.rates.is_empty());
    let v = serde_json::to_value(&r).expect("json");
    assert!(v.get("link_rates").is_none());
    assert!(v["timeseries"].get("rates").is_none());
}

#[test]
fn bad_parameters_are_refused_with_their_path() {
    let cases = [
        (
            json!({"kind": "aarf", "min_success_threshold": 20, "max_success_threshold": 10}),
            "radio.rate_control.max_success_threshold",
        ),
        (
            json!({"kind": "aarf", "timer_k": 0.5}),
            "radio.rate_control.timer_k",
        ),
        (
            json!({"kind": "arf", "success_threshold": 0}),
            "radio.rate_control.success_threshold",
        ),
        (
            json!({"kind": "snr_threshold", "ber": 0.7}),
            "radio.rate_control.ber",
        ),
        (
            json!({"kind": "minstrel", "lookaround": 101}),
            "radio.rate_control.lookaround",
        ),
        (
            json!({"kind": "minstrel", "update_interval": 0}),
            "radio.rate_control.update_interval",
        ),
    ];
    for (rc, path) in cases {
        let cfg: airtcp::scenario::config::ScenarioConfig =
            serde_json::from_value(hop(10.0, rc.clone(), json!({"kind": "none"}))).expect("parses");
        match airtcp::simulate(&cfg) {
            Ok(_) => panic!("{rc} ran"),
            Err(e) => assert_eq!(e.path, path, "{rc}: {}", e.message),
        }
    }
}

#[test]
fn the_snr_threshold_manager_tracks_a_slow_channel_and_not_a_per_frame_one() {
    // It sends at the rate the previous exchange's SNR allows. Under block fading that changes
    // every 100 ms, the next frame sees the same channel and nearly every frame gets through;
    // under independent per-frame fading a good fade says nothing of the next frame, and
    // after one it overshoots (as ns-3's IdealWifiManager does under per-frame Nakagami).
    let delivery = |fading: Value| {
        let rows = per_rate(&run(&hop(25.0, json!({"kind": "snr_threshold"}), fading)));
        rows.iter().map(|r| r.2).sum::<u64>() as f64 / attempts(&rows) as f64
    };
    let slow = delivery(json!({"kind": "block", "coherence": 100 * MS}));
    let fast = delivery(json!({"kind": "rayleigh"}));
    assert!(slow > 0.85 && fast < 0.6, "block {slow} per frame {fast}");
}

/// Two 802.11n nodes `d` m apart (5 GHz, 20 MHz, long GI, MCS 0-7 up to `data_rate`, A-MPDUs of
/// up to 64 MPDUs), one bulk TCP flow n0 -> n1 for 5 s; the propagation as `hop`'s (SNR 63.31 -
/// 30 log10(d) dB in 20 MHz).
fn ht_hop(d: f64, data_rate: u64, rate_control: Value) -> Value {
    json!({
        "name": "rate_ht", "duration": 6 * S, "seed": 1,
        "radio": {
            "standard": "802.11n", "data_rate": data_rate, "basic_rate": 6_000_000,
            "tx_power": 16.0206, "rate_control": rate_control,
            "propagation": {"kind": "log_distance", "exponent": 3.0, "reference_distance": 1.0,
                            "reference_loss": 46.6777},
        },
        "topology": {"kind": "explicit", "nodes": [
            {"name": "n0", "x": 0.0, "y": 0.0}, {"name": "n1", "x": d, "y": 0.0}]},
        "routing": {"kind": "static", "min_delivery": 0.0},
        "flows": [{"id": "f", "src": "n0", "dst": "n1", "start": S, "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "mss": 1460}}],
    })
}

/// The share of `rows`' MPDUs sent at the rates (Mbit/s) in `rates`.
fn share(rows: &[(f64, u64, u64)], rates: &[f64]) -> f64 {
    let at: u64 = rows
        .iter()
        .filter(|r| rates.contains(&r.0))
        .map(|r| r.1)
        .sum();
    at as f64 / attempts(rows) as f64
}

#[test]
fn minstrel_ht_concentrates_on_the_mcss_that_work_and_beats_a_fixed_mcs_7() {
    // At 33 m (SNR 17.7 dB) MCS 7 gets almost nothing through (0.3 Mbit/s of TCP goodput), MCS 6
    // loses much, MCS 5 is best (42 Mbit/s) and MCS 4 safe; at 30 m (19.0 dB) MCS 7 loses about
    // half of its MPDUs and MCS 6 is best.
    let goodput =
        |d: f64, rate: u64| run(&ht_hop(d, rate, json!({"kind": "constant"}))).flows[0].goodput_bps;
    for (d, working, best_fixed) in [
        (33.0, vec![39.0, 52.0], 52_000_000),
        (30.0, vec![58.5], 58_500_000),
    ] {
        let r = run(&ht_hop(d, 65_000_000, json!({"kind": "minstrel_ht"})));
        let rows = per_rate(&r);
        // By MPDU: the working MCSs carry nearly all, MCS 7 only its samples.
        assert!(share(&rows, &working) > 0.9, "{d} m: {rows:?}");
        assert!(share(&rows, &[65.0]) < 0.03, "{d} m: {rows:?}");
        let (adaptive, top, best) = (
            r.flows[0].goodput_bps,
            goodput(d, 65_000_000),
            goodput(d, best_fixed),
        );
        assert!(adaptive > 1.3 * top, "{d} m: {adaptive} vs MCS 7 {top}");
        assert!(
            adaptive > 0.85 * best,
            "{d} m: {adaptive} vs the best MCS {best}"
        );
        // Under aggregation the link's mean rate is still the per-MPDU table's.
        let frames = attempts(&rows) as f64;
        let mean = rows.iter().map(|row| row.0 * row.1 as f64).sum::<f64>() / frames;
        let link = r.links.iter().find(|l| l.from == "n0").expect("link row");
        assert!(
            (link.rate_mbps - mean).abs() < 1e-9,
            "{d} m: {} vs {mean}",
            link.rate_mbps
        );
    }
}

#[test]
fn minstrel_ht_is_refused_off_802_11n_and_for_bad_parameters() {
    let cases = [
        (
            hop(
                10.0,
                json!({"kind": "minstrel_ht"}),
                json!({"kind": "none"}),
            ),
            "radio.rate_control.kind",
        ),
        (
            ht_hop(
                10.0,
                65_000_000,
                json!({"kind": "minstrel_ht", "ewma": 101}),
            ),
            "radio.rate_control.ewma",
        ),
        (
            ht_hop(
                10.0,
                65_000_000,
                json!({"kind": "minstrel_ht", "sample_columns": 0}),
            ),
            "radio.rate_control.sample_columns",
        ),
        (
            ht_hop(
                10.0,
                65_000_000,
                json!({"kind": "minstrel_ht", "update_interval": 0}),
            ),
            "radio.rate_control.update_interval",
        ),
    ];
    for (v, path) in cases {
        let cfg: airtcp::scenario::config::ScenarioConfig =
            serde_json::from_value(v.clone()).expect("parses");
        match airtcp::simulate(&cfg) {
            Ok(_) => panic!("{path} ran"),
            Err(e) => assert_eq!(e.path, path, "{}", e.message),
        }
    }
}
