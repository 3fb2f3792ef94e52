//! TCP-RLC through a wireless router inside whole scenarios (paper 004, §II-G, §IV): the sender
//! reaches the router over a wired link, the router serves its users one packet at a time with
//! per-flow priority queue pairs, each user's channel erases packets. Checks throughput against
//! the paper's AIMD mean, the router's service, determinism, conservation and errors.

use crate::common::*;
use airtcp::metrics::results::FlowResult;
use serde_json::{json, Value};

/// 1 "Mbps" of the paper: 1024 kbit/s, 500 packets of 256 B per second.
const MBPS: u64 = 1_024_000;

fn channel(p_min: f64, low_probability: f64) -> Value {
    json!({"kind": "bimodal", "low": p_min, "high": 1.0, "low_probability": low_probability,
           "hold_min": 100 * MS, "hold_max": 200 * MS})
}

/// S -(100 Mbps, 150 ms)- R ~router(rate)~ D, one flow S -> D with `transport`, the router's
/// pairs `pairs` (null: none) and D's channel `chan`.
fn single(rate: u64, chan: Value, transport: Value, pairs: Value, duration: u64) -> Value {
    let mut router = json!({"node": "R", "rate": rate, "users": [{"node": "D", "channel": chan}],
                            "queue": {"kind": "droptail", "packets": 150}});
    if !pairs.is_null() {
        router["priority_pairs"] = pairs;
    }
    json!({
        "name": "rlc", "duration": duration, "seed": 5, "nodes": ["S", "R", "D"],
        "links": [{"from": "S", "to": "R", "rate": 100_000_000u64, "delay": 150 * MS,
                   "queue": {"kind": "droptail", "packets": 10_000}}],
        "routers": [router],
        "flows": [{"id": "f", "src": "S", "dst": "D", "app": {"kind": "bulk"},
                   "transport": transport}],
    })
}

fn rlc(r: u32) -> Value {
    json!({"kind": "tcp_rlc", "redundancy": r})
}

fn pairs(high: u32, low: u32) -> Value {
    json!({"buffers": {"high": high, "low": low}})
}

#[test]
fn a_lossless_router_carries_tcp_rlc_near_the_aimd_mean() {
    // p = 1: the window saw-tooths between C/2 and C (C = 1 Mbps x 0.3 s = 150 packets), so
    // the goodput is about 0.75 C; coded packets fill the rest of the capacity.
    let r = run(&single(MBPS, Value::Null, rlc(1), pairs(150, 150), 200 * S));
    let g = r.flows[0].goodput_bps / MBPS as f64;
    assert!((0.6..=1.0).contains(&g), "goodput {g} of C");
    assert_eq!(r.flows[0].transport, "tcp_rlc");
}

#[test]
fn the_router_erases_at_the_channels_rate_and_tcp_rlc_tracks_p_min_c() {
    // p_min = 0.7 half the time: X = 0.75 p_min C = 0.525 C (spec §6(b) 1 band 0.85-1.10 x X in
    // the full form; here one 200 s run, wider).
    let r = run(&single(
        MBPS,
        channel(0.7, 0.5),
        rlc(2),
        pairs(150, 150),
        200 * S,
    ));
    let x = 0.75 * 0.7 * MBPS as f64;
    let g = r.flows[0].goodput_bps / x;
    assert!((0.75..=1.25).contains(&g), "goodput {g} of X");
    let erased: u64 = r
        .drops
        .iter()
        .filter(|d| d.queue == "router R" && d.reason == "channel_error")
        .map(|d| d.packets)
        .sum();
    let sent = r
        .queues
        .iter()
        .find(|q| q.queue == "router R")
        .expect("router queue row")
        .transmitted;
    let rate = erased as f64 / sent as f64;
    // Loss rate 0.5 x 0.3 = 0.15.
    assert!((rate - 0.15).abs() < 0.03, "erasure rate {rate}");
}

#[test]
fn the_router_never_idles_while_it_holds_packets() {
    // From a window of 60 on, (1 + r) W >= C = 150 packets per round trip even right after a
    // halving ((1 + r) p_min >= 2), so the router is never short of packets: it sends
    // rate / 2048 packets per second.
    let mut transport = rlc(2);
    transport["initial_cwnd"] = json!(60);
    let r = run(&single(
        MBPS,
        channel(0.7, 0.5),
        transport,
        pairs(150, 150),
        100 * S,
    ));
    let sent = r
        .queues
        .iter()
        .find(|q| q.queue == "router R")
        .expect("router queue row")
        .transmitted as f64;
    let full = 100.0 * MBPS as f64 / 2048.0;
    assert!(sent > 0.99 * full && sent <= full + 1.0, "{sent} of {full}");
}

#[test]
fn the_same_seed_gives_the_same_run() {
    let v = single(MBPS, channel(0.6, 0.5), rlc(3), pairs(150, 150), 30 * S);
    let a = run(&v);
    let b = run(&v);
    assert_eq!(
        serde_json::to_string(&a.flows).unwrap(),
        serde_json::to_string(&b.flows).unwrap()
    );
    assert_eq!(a.conservation.created, b.conservation.created);
}

fn refused(v: Value) -> airtcp::ConfigError {
    let cfg = serde_json::from_value(v).expect("parses");
    match airtcp::simulate(&cfg) {
        Ok(_) => panic!("the scenario ran"),
        Err(e) => e,
    }
}

#[test]
fn bad_router_fields_are_named() {
    let mut v = single(MBPS, channel(0.6, 0.5), rlc(3), pairs(150, 150), S);
    v["routers"][0]["users"][0]["channel"]["low_probability"] = json!(1.5);
    let e = refused(v);
    assert_eq!(e.path, "routers[0].users[0].channel.low_probability");
    let mut v = single(MBPS, Value::Null, rlc(3), pairs(150, 150), S);
    v["routers"][0]["users"][0]["node"] = json!("R");
    let e = refused(v);
    assert_eq!(e.path, "routers[0].users[0].node");
    let mut v = single(MBPS, Value::Null, rlc(3), pairs(150, 150), S);
    v["flows"][0]["transport"]["initial_cwnd"] = json!(0);
    let e = refused(v);
    assert_eq!(e.path, "flows[0].transport.initial_cwnd");
}

/// S -(100 Mbps, 150 ms)- R_l ~router(C / M)~ D for l = 1..M, each router's channel to D its
/// own bimodal process (p_1 = `p1`, 10 % of the time); one TCP-RLC flow over all M paths
/// (`separate`: M single-path flows, one per router).
fn multipath(m: usize, p1: f64, separate: bool, duration: u64) -> Value {
    let mut nodes = vec![json!("S"), json!("D")];
    let mut links = Vec::new();
    let mut routers = Vec::new();
    let r = (2.0 / p1).ceil() as u32 - 1;
    let buffer = 150usize.div_ceil(m) as u32;
    for l in 0..m {
        let name = format!("R{l}");
        nodes.push(json!(name));
        links.push(
            json!({"from": "S", "to": name, "rate": 100_000_000u64, "delay": 150 * MS,
                          "queue": {"kind": "droptail", "packets": 100_000}}),
        );
        routers.push(json!({"node": name, "rate": MBPS / m as u64,
                            "users": [{"node": "D", "channel": channel(p1, 0.1)}],
                            "priority_pairs": pairs(buffer, buffer)}));
    }
    let path = |l: usize| json!(["S", format!("R{l}"), "D"]);
    let flows: Vec<Value> = if separate {
        (0..m)
            .map(|l| {
                json!({"id": format!("f{l}"), "src": "S", "dst": "D", "app": {"kind": "bulk"},
                       "transport": rlc(r), "paths": {"kind": "explicit", "paths": [path(l)]}})
            })
            .collect()
    } else {
        vec![
            json!({"id": "f", "src": "S", "dst": "D", "app": {"kind": "bulk"},
                    "transport": rlc(r),
                    "paths": {"kind": "explicit", "paths": (0..m).map(path).collect::<Vec<_>>()}}),
        ]
    };
    json!({"name": "mp", "duration": duration, "seed": 2, "nodes": nodes, "links": links,
           "routers": routers, "flows": flows})
}

/// `v` with every flow's multipath source window rule `window`.
fn with_source_window(mut v: Value, window: &str) -> Value {
    for flow in v["flows"].as_array_mut().unwrap() {
        flow["transport"]["source_window"] = json!(window);
    }
    v
}

#[test]
fn coding_across_paths_with_per_block_windows_approaches_the_mean_channel_and_beats_separate_paths()
{
    // M = 4, p_1 = 0.3 10 % of the time: E[P] = 0.93; the paper's asymptote is 0.75 E[P] C
    // (spec §6(b) 2: M = 8 within [0.75, 1.0] of it; coding across paths ahead of M separate
    // single-path flows). 1000 s, as the paper's runs: the source's window starts at 1 and
    // needs about a minute to catch up with the paths. The claim holds with the per-block source
    // window, whose blocks span several round trips; the round-synchronous one pays the AIMD
    // saw-tooth on every round and falls behind the separate flows here (docs/tcp_rlc.md).
    let target = 0.75 * 0.93 * MBPS as f64;
    let coded = run(&with_source_window(
        multipath(4, 0.3, false, 1000 * S),
        "per_block",
    ));
    let coded = coded.flows[0].goodput_bps;
    let separate = run(&multipath(4, 0.3, true, 1000 * S));
    let separate: f64 = separate.flows.iter().map(|f| f.goodput_bps).sum();
    assert!(
        (0.75..=1.0).contains(&(coded / target)),
        "coded across paths: {} of 0.75 E[P] C",
        coded / target
    );
    assert!(
        coded > 1.03 * separate,
        "coded {coded} vs separate {separate}"
    );
}

#[test]
fn each_path_controllers_packets_cross_only_its_router() {
    let r = run(&multipath(3, 0.5, false, 20 * S));
    let sent = |l: usize| {
        let name = format!("router R{l}");
        r.queues
            .iter()
            .find(|q| q.queue == name)
            .expect("router")
            .transmitted
    };
    // Every router carries its share (the routers are alike), and the links from S to each
    // router carry what that router sent plus what it dropped.
    for l in 0..3 {
        assert!(sent(l) > 1000, "router {l}: {}", sent(l));
    }
    let through = |l: usize| {
        let name = format!("S->R{l}");
        r.queues
            .iter()
            .find(|q| q.queue == name)
            .expect("link")
            .transmitted
    };
    let total: u64 = (0..3).map(through).sum();
    assert!((0..3).all(|l| through(l) * 5 > total), "{total}");
}

/// Data packets the flow delivered per mean round trip.
fn delivered_per_round_trip(f: &FlowResult) -> f64 {
    f.goodput_bps / 2048.0 * f.mean_rtt_s.expect("RTT samples")
}

#[test]
fn the_multipath_source_window_tracks_what_the_paths_deliver_per_round_trip() {
    // Fig. 4(b)'s case, M = 4, p_1 = 0.1, 1000 s. Per round, a block opens about once per round
    // trip and takes every pull until the next opens; it is delivered whole (else duplicates
    // halve W), so the mean W is about the data delivered per round, which is less than per mean
    // round trip (a round is timed by the first feedback on a block's first, high-priority
    // packet; the mean RTT takes in the low packets' waits in the LIFOs too). Per block (the
    // earlier rule) W grows by one per block and runs to a few times what is delivered.
    let fig4b = multipath(4, 0.1, false, 1000 * S);
    let round = run(&fig4b);
    let block = run(&with_source_window(fig4b, "per_block"));
    let (round, block) = (&round.flows[0], &block.flows[0]);
    let ratio = |f: &FlowResult| f.mean_window.expect("TCP-RLC") / delivered_per_round_trip(f);
    assert!(
        ratio(round) <= 1.0,
        "per round: W / delivered {}",
        ratio(round)
    );
    assert!(
        ratio(block) >= 2.5,
        "per block: W / delivered {}",
        ratio(block)
    );
    // The round-synchronous window is cut when a round comes up short.
    assert!(round.recoveries > 0);
    // Both deliver most of what the paths carry; the per-block rule more of it.
    assert!(round.goodput_bps > 0.6 * block.goodput_bps);

    // The decode delay: frames wait for their blocks, one round trip's worth per round against
    // about three per block.
    let delays = |f: &FlowResult| {
        (
            f.decode_delay_mean_s.expect("mean"),
            f.decode_delay_p95_s.expect("95th"),
            f.decode_delay_p99_s.expect("99th"),
        )
    };
    for (mean, p95, p99) in [delays(round), delays(block)] {
        // No frame is decoded before its block's packets cross the 150 ms wired link.
        assert!(
            mean > 0.15 && mean <= p95 && p95 <= p99,
            "{mean} {p95} {p99}"
        );
    }
    let rtt = round.mean_rtt_s.unwrap();
    let (round_mean, round_p95, _) = delays(round);
    assert!(
        round_mean < 1.5 * rtt,
        "per round: {round_mean} s, RTT {rtt} s"
    );
    let (block_mean, block_p95, _) = delays(block);
    assert!(
        block_mean > 2.0 * round_mean,
        "{block_mean} vs {round_mean}"
    );
    assert!(block_p95 > 2.0 * round_p95, "{block_p95} vs {round_p95}");
}

#[test]
fn a_single_path_flow_reports_its_decode_delay_and_ignores_the_source_window() {
    let v = single(MBPS, channel(0.7, 0.5), rlc(2), pairs(150, 150), 100 * S);
    let a = run(&v);
    let b = run(&with_source_window(v, "per_block"));
    assert_eq!(
        serde_json::to_string(&a.flows).unwrap(),
        serde_json::to_string(&b.flows).unwrap()
    );
    let f = &a.flows[0];
    let (mean, p95) = (
        f.decode_delay_mean_s.unwrap(),
        f.decode_delay_p95_s.unwrap(),
    );
    assert!(mean > 0.15 && mean <= p95 && p95 < 10.0, "{mean} {p95}");
}
