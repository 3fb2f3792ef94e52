//! The NC layer between TCP and the network (paper 000 §4.1.3, §4.2.1) in whole runs: losses on a
//! lossy hop are repaired without TCP noticing, a full queue at the source still makes TCP back
//! off, goodput over a clean path is TCP's own, a 30 %-lossy hop is usable, every routing scheme
//! carries it, runs repeat exactly with every packet accounted for, and the layer's counters in
//! the results add up. (Packet-trace tests of the protocol itself are in
//! `src/transport/nc_layer/tests.rs`.)

use crate::common::*;
use airtcp::metrics::results::RunResults;
use airtcp::transport::nc_layer::NcResult;
use serde_json::{json, Value};

/// A -> R -> B over 2 Mb/s, 5 ms wired links; A's queue holds `queue` packets; R -> B loses
/// `per` of the packets going forward.
fn chain(per: f64, queue: u64, duration: u64, app: Value, tcp: Value) -> Value {
    json!({
        "name": "chain", "duration": duration, "seed": 1, "nodes": ["A", "R", "B"],
        "links": [
            {"from": "A", "to": "R", "rate": 2_000_000, "delay": 5 * MS,
             "queue": {"kind": "droptail", "packets": queue}},
            {"from": "R", "to": "B", "rate": 2_000_000, "delay": 5 * MS,
             "queue": {"kind": "droptail", "packets": 100},
             "loss": {"kind": "bernoulli", "per": per, "direction": "forward"}}],
        "flows": [{"id": "f", "src": "A", "dst": "B", "app": app, "transport": tcp}]
    })
}

fn tcp(rwnd: u64, nc: bool) -> Value {
    let mut t = json!({"kind": "tcp", "cc": "newreno", "sack": true, "rwnd": rwnd});
    if nc {
        t["nc"] = json!({"block": "cwnd"});
    }
    t
}

fn bulk() -> Value {
    json!({"kind": "bulk"})
}

fn queue_full_at(r: &RunResults, queue: &str) -> u64 {
    r.drops
        .iter()
        .filter(|d| d.queue == queue && d.reason == "queue_full")
        .map(|d| d.packets)
        .sum()
}

#[test]
fn losses_on_a_lossy_hop_are_repaired_and_tcp_never_sees_them() {
    // 30 % of the packets crossing R -> B are lost; a window of 10 segments never fills A's
    // queue, so every loss is a "wireless" one and the NC layer repairs it.
    let bytes = 500_000u64;
    let app = json!({"kind": "bulk", "bytes": bytes});
    let with = run(&chain(0.3, 100, 60 * S, app.clone(), tcp(10_000, true)));
    let f = &with.flows[0];
    let lost: u64 = with.drops.iter().map(|d| d.packets).sum();
    eprintln!(
        "NC: {lost} packets lost, transfer done at {:?} s, {} retransmissions, {} recoveries, {} timeouts",
        f.completion_s, f.retransmissions, f.recoveries, f.timeouts
    );
    assert!(lost > 100, "the hop should lose packets: {lost}");
    assert_eq!(f.bytes_delivered, bytes);
    assert!(f.completion_s.is_some());
    assert_eq!(
        (f.retransmissions, f.recoveries, f.timeouts),
        (0, 0, 0),
        "TCP saw a loss"
    );
    // Plain TCP over the same hop: the losses are TCP's to handle.
    let without = run(&chain(0.3, 100, 60 * S, app, tcp(10_000, false)));
    let g = &without.flows[0];
    eprintln!(
        "plain TCP: {} bytes, done at {:?} s, {} timeouts",
        g.bytes_delivered, g.completion_s, g.timeouts
    );
    assert!(g.timeouts > 0);
    assert!(g
        .completion_s
        .is_none_or(|t| t > 3.0 * f.completion_s.unwrap()));
}

#[test]
fn a_full_queue_at_the_source_makes_tcp_back_off() {
    // No loss anywhere but A's queue of 10 packets, and an unlimited window: every overflow at
    // A withholds a segment's ACK (paper §4.2.1), TCP retransmits it and halves its window.
    // Were the drops masked like wireless losses, the window would grow to rwnd (1048 segments).
    let mut v = chain(0.0, 10, 30 * S, bulk(), tcp(1 << 20, true));
    v["metrics"] = json!({"trace_cwnd": true, "trace_interval": 10 * MS});
    let r = run(&v);
    let f = &r.flows[0];
    let drops = queue_full_at(&r, "A->R");
    let cwnd = &r.timeseries.cwnd.cwnd;
    let max = cwnd.iter().copied().fold(0.0, f64::max);
    let halvings = cwnd.windows(2).filter(|w| w[1] <= 0.55 * w[0]).count();
    eprintln!(
        "{drops} drops at A, {} retransmissions, {} recoveries, {} timeouts, cwnd max {max:.1}, \
         {halvings} halvings, goodput {:.0} kb/s",
        f.retransmissions,
        f.recoveries,
        f.timeouts,
        f.goodput_bps / 1e3
    );
    assert!(drops > 0);
    assert!(f.recoveries > 0 && halvings > 0);
    assert!(f.retransmissions >= drops);
    assert!(max < 60.0, "the window grew to {max}: drops were masked");
    assert!(f.goodput_bps > 1.7e6);
}

#[test]
fn goodput_over_a_clean_chain_is_tcps_own() {
    // Wired: 2 Mb/s, A's queue 20, window 30 segments (A's queue overflows now and then).
    let plain = run(&chain(0.0, 20, 60 * S, bulk(), tcp(30_000, false))).flows[0].goodput_bps;
    let nc = run(&chain(0.0, 20, 60 * S, bulk(), tcp(30_000, true))).flows[0].goodput_bps;
    eprintln!("wired chain: TCP {plain:.0} b/s, TCP over NC {nc:.0} b/s");
    assert!((nc - plain).abs() < 0.1 * plain, "{nc} vs {plain}");
}

#[test]
fn a_thirty_percent_lossy_hop_is_usable_with_nc() {
    let plain = run(&chain(0.3, 20, 60 * S, bulk(), tcp(30_000, false)));
    let nc = run(&chain(0.3, 20, 60 * S, bulk(), tcp(30_000, true)));
    let (p, n) = (plain.flows[0].goodput_bps, nc.flows[0].goodput_bps);
    eprintln!(
        "30 % loss on R->B: TCP {:.0} kb/s, TCP over NC {:.0} kb/s ({} timeouts)",
        p / 1e3,
        n / 1e3,
        nc.flows[0].timeouts
    );
    // At most (1 - 0.3) x 2 Mb/s gets through R -> B; the NC layer gets most of it.
    assert!(n > 10.0 * p);
    assert!(n > 0.5 * 0.7 * 2e6, "{n}");
}

fn radio() -> Value {
    // ns-2's two-ray ground radio: 250 m receive range, 550 m carrier sense.
    json!({"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
           "propagation": {"kind": "two_ray_ground"},
           "queue": {"kind": "droptail", "packets": 100}})
}

/// The paper's TCP (§5.1, ns-2 defaults: window 20 packets, an ACK per segment).
fn paper_tcp(nc: bool) -> Value {
    let mut t = json!({"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000,
                       "rwnd": 20_000, "delayed_ack": 1, "initial_cwnd": 2});
    if nc {
        t["nc"] = json!({});
    }
    t
}

fn wireless_chain(routing: &Value, per: f64, seed: u64, transport: Value) -> Value {
    json!({
        "name": "chain", "duration": 30 * S, "seed": seed, "radio": radio(),
        "topology": {"kind": "chain", "hops": 3, "spacing": 200.0}, "routing": routing,
        "link_errors": [{"from": "n1", "to": "n2", "error": {"kind": "bernoulli", "per": per}}],
        "flows": [{"id": "f", "src": "n0", "dst": "n3", "start": S,
                   "app": {"kind": "bulk"}, "transport": transport}]
    })
}

#[test]
fn every_routing_carries_nc_at_tcps_goodput() {
    // A 3-hop 802.11 chain, as paper 000 uses the NC layer "for fair comparison" with static
    // routing, AODV and backpressure.
    for routing in [
        json!({"kind": "static"}),
        json!({"kind": "aodv"}),
        json!({"kind": "backpressure", "differential": "tcp_aware"}),
    ] {
        let plain = run(&wireless_chain(&routing, 0.0, 2, paper_tcp(false)));
        let nc = run(&wireless_chain(&routing, 0.0, 2, paper_tcp(true)));
        let (p, n) = (plain.flows[0].goodput_bps, nc.flows[0].goodput_bps);
        eprintln!(
            "{}: TCP {:.0} kb/s, TCP over NC {:.0} kb/s",
            routing["kind"],
            p / 1e3,
            n / 1e3
        );
        assert!((n - p).abs() < 0.1 * p, "{}: {n} vs {p}", routing["kind"]);
    }
}

#[test]
fn runs_with_nc_repeat_exactly() {
    // Two flows sharing a lossy, congested backpressure tree: coding coefficients, repairs and
    // edge drops all happen; the results must not differ in a byte.
    let tree = json!({
        "name": "tree", "duration": 20 * S, "seed": 5, "radio": radio(),
        "topology": {"kind": "tree", "spacing": 200.0},
        "routing": {"kind": "backpressure"},
        "link_errors": [{"from": "n0", "to": "n1", "error": {"kind": "bernoulli", "per": 0.3}}],
        "flows": [
            {"id": "a", "src": "n0", "dst": "n1", "start_jitter": 2 * S,
             "app": {"kind": "bulk"}, "transport": tcp(1 << 20, true)},
            {"id": "b", "src": "n0", "dst": "n3", "start_jitter": 2 * S,
             "app": {"kind": "bulk"}, "transport": tcp(1 << 20, true)}
        ]
    });
    let a = serde_json::to_string(&run(&tree)).unwrap();
    let b = serde_json::to_string(&run(&tree)).unwrap();
    let strip = |s: &str| s[..s.find("\"timing\"").unwrap()].to_string();
    assert_eq!(strip(&a), strip(&b));
    assert!(
        a.contains("queue_full"),
        "the runs should congest the source"
    );
}

#[test]
fn every_packet_is_accounted_for() {
    // Coded packets, repairs, NC-ACKs and repair requests, with losses, overflows at the source
    // and at relays, under each routing scheme: created = delivered + dropped + in flight.
    for routing in [
        json!({"kind": "static"}),
        json!({"kind": "aodv"}),
        json!({"kind": "backpressure"}),
    ] {
        let r = run(&wireless_chain(&routing, 0.3, 3, tcp(1 << 20, true)));
        let c = &r.conservation;
        assert!(c.ok, "{:?}", c);
        assert_eq!(c.created, c.delivered + c.dropped + c.in_flight);
        assert!(c.dropped > 0 && r.flows[0].bytes_delivered > 0);
    }
}

#[test]
fn a_fixed_block_size_works_too() {
    let mut t = tcp(30_000, true);
    t["nc"] = json!({"block": 8, "repair_interval": 50 * MS});
    let bytes = 300_000u64;
    let r = run(&chain(
        0.1,
        20,
        30 * S,
        json!({"kind": "bulk", "bytes": bytes}),
        t,
    ));
    assert_eq!(r.flows[0].bytes_delivered, bytes);
}

#[test]
fn bad_nc_blocks_are_refused() {
    for (nc, message) in [
        (
            json!({"block": 0}),
            "flows[0].transport.nc.block: must be from 1 to 4096",
        ),
        (
            json!({"block": 5000}),
            "flows[0].transport.nc.block: must be from 1 to 4096",
        ),
        (
            json!({"max_block": 0}),
            "flows[0].transport.nc.max_block: must be from 1 to 4096",
        ),
        (
            json!({"repair_interval": 0}),
            "flows[0].transport.nc.repair_interval: must be greater than zero",
        ),
    ] {
        let mut t = tcp(30_000, true);
        t["nc"] = nc;
        let cfg = serde_json::from_value(chain(0.0, 20, S, bulk(), t)).expect("parses");
        let e = airtcp::simulate(&cfg).expect_err("refused");
        assert_eq!(e.to_string(), message);
    }
    for nc in [
        json!({"block": "window"}),
        json!({"relay_congestion": "drop"}),
    ] {
        let mut t = tcp(30_000, true);
        t["nc"] = nc;
        let parsed: Result<airtcp::ScenarioConfig, _> =
            serde_json::from_value(chain(0.0, 20, S, bulk(), t));
        assert!(parsed.is_err());
    }
}

#[test]
fn nc_counters_are_in_the_results_and_add_up() {
    // 30 % loss on R -> B, 1 MB transfers (1000 segments of the default MSS). With a window of
    // 10 segments A's queue never fills: no edge drops, no TCP retransmissions. With an
    // unlimited window it overflows: edge drops, TCP retransmissions turned repairs, and repairs
    // that arrive after the block's rank is already full (not innovative).
    let bytes = 1_000_000u64;
    let app = json!({"kind": "bulk", "bytes": bytes});
    for rwnd in [10_000, 1 << 20] {
        let r = run(&chain(0.3, 100, 60 * S, app.clone(), tcp(rwnd, true)));
        let f = &r.flows[0];
        let report = f
            .shim
            .as_ref()
            .expect("a flow over the NC layer reports its counters");
        assert_eq!(report.key, "nc");
        let nc: NcResult = serde_json::from_str(report.value.get()).unwrap();
        let (s, k) = (&nc.source, &nc.sink);
        eprintln!("rwnd {rwnd}: source {s:?}\n  sink {k:?}");
        assert_eq!(f.bytes_delivered, bytes);
        // The receiver's counters add up (docs/nc_layer.md).
        assert_eq!(k.coded_received, k.innovative + k.non_innovative + k.late);
        // Every segment TCP hands down is a new coded packet, a repair, or absorbed.
        assert_eq!(
            s.coded_sent + s.repairs_retransmitted + s.absorbed,
            f.packets_sent
        );
        assert_eq!(s.repairs_retransmitted + s.absorbed, f.retransmissions);
        // The transfer is complete: every segment was sent once as new and delivered, every
        // block opened was decoded, and each segment took one innovative packet.
        assert_eq!(s.coded_sent, bytes / 1000);
        assert_eq!(k.segments_delivered, s.coded_sent);
        assert_eq!(k.innovative, k.segments_delivered);
        assert!(s.blocks > 0 && k.blocks_decoded == s.blocks);
        // The lossy hop: packets lost, repairs asked for and sent.
        let sent = s.coded_sent + s.repairs_requested + s.repairs_retransmitted;
        assert!(k.coded_received < sent);
        assert!(k.requests_sent > 0 && s.repairs_requested > 0);
        assert!(s.requests <= k.requests_sent && s.nc_acks <= k.acks_sent);
        assert_eq!(k.acks_sent, k.coded_received);
        assert!(s.tcp_acks > 0 && s.tcp_acks <= s.nc_acks);
        // Only A's queue overflows into edge drops.
        assert_eq!(s.edge_drops, queue_full_at(&r, "A->R"));
        if rwnd == 10_000 {
            assert_eq!((s.edge_drops, f.retransmissions), (0, 0));
        } else {
            assert!(s.edge_drops > 0 && s.repairs_retransmitted > 0 && k.non_innovative > 0);
        }
        // The JSON shape: "nc": {"source": {...}, "sink": {...}}.
        let json = serde_json::to_value(&r).unwrap();
        let nc_json = &json["flows"][0]["nc"];
        assert_eq!(nc_json["source"]["coded_sent"], s.coded_sent);
        assert_eq!(nc_json["source"]["requests_received"], s.requests);
        assert_eq!(nc_json["source"]["edge_drops"], s.edge_drops);
        assert_eq!(nc_json["sink"]["blocks_decoded"], k.blocks_decoded);
        assert_eq!(nc_json["sink"]["non_innovative"], k.non_innovative);
        assert_eq!(nc_json["source"].as_object().unwrap().len(), 11);
        assert_eq!(nc_json["sink"].as_object().unwrap().len(), 10);
        // No relay queue overflows here (R -> B's queue is far above the window): no marks.
        assert_eq!((k.marks_received, k.ece_sent), (0, 0));
        assert_eq!((s.ece_received, s.congestion_signals), (0, 0));
        // ... as the flow's last key, with the counters in the order the layer lists them.
        let text = serde_json::to_string(&r.flows[0]).unwrap();
        let tail = format!(
            r#","nc":{{"source":{{"blocks":{},"coded_sent":{}"#,
            s.blocks, s.coded_sent
        );
        assert!(text.contains(&tail), "{text}");
        assert!(
            text.ends_with(&format!(r#""ece_sent":{}}}}}}}"#, k.ece_sent)),
            "{text}"
        );
        let mean_rtt = text.find(r#""mean_rtt_s":"#).unwrap();
        assert!(mean_rtt < text.find(r#""nc":"#).unwrap(), "{text}");
    }
    // Without the layer: no counters, and no "nc" key in the JSON.
    let plain = run(&chain(0.3, 100, 60 * S, app, tcp(10_000, false)));
    assert!(plain.flows[0].shim.is_none());
    let plain_json = serde_json::to_value(&plain).unwrap();
    assert!(plain_json["flows"][0].get("nc").is_none());
}

#[test]
fn a_window_far_above_the_source_queue_does_not_stall_the_flow() {
    // 1000 segments at once into a queue of 100: most of the first window (and many repairs
    // answering the receiver's requests) is dropped at the source. Dropped repairs once withheld
    // TCP's segments too, and the flow stalled for good after 3 s (0 bytes in the next 27 s).
    let v = json!({
        "name": "burst", "duration": 12 * S, "seed": 1, "nodes": ["A", "B"],
        "links": [{"from": "A", "to": "B", "rate": 100_000_000u64, "delay": 5 * MS,
                   "queue": {"kind": "droptail", "packets": 100}}],
        "flows": [{"id": "f1", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "rwnd": 100_000_000u64, "initial_cwnd": 1000,
                                 "nc": {"block": "cwnd", "max_block": 64}}}],
    });
    let r = run(&v);
    let g = &r.timeseries.goodput;
    let late: Vec<f64> = (0..g.t_s.len())
        .filter(|&i| g.t_s[i] >= 6.0)
        .map(|i| g.goodput_bps[i])
        .collect();
    assert!(
        late.iter().all(|&b| b > 50e6),
        "goodput per second from 6 s: {late:?}"
    );
}

#[test]
fn a_relays_overflow_reaches_tcp_as_congestion_unless_masked() {
    // A -> R at 10 Mb/s, R -> B at 2 Mb/s with a 10-packet queue, an unlimited window: R's queue
    // is the bottleneck. R marks the flow's next packet after each overflow drop, B echoes the
    // marks, and with `relay_congestion: signal` TCP halves its window once per round trip of
    // marks; masked (paper 000's layer), TCP never hears of them and its window is bounded only
    // by A's queue, so R drops a large share of what A sends and repairs replace it.
    let scenario = |relay_congestion: &str| {
        json!({
            "name": "bottleneck", "duration": 30 * S, "seed": 1, "nodes": ["A", "R", "B"],
            "links": [
                {"from": "A", "to": "R", "rate": 10_000_000, "delay": 5 * MS,
                 "queue": {"kind": "droptail", "packets": 100}},
                {"from": "R", "to": "B", "rate": 2_000_000, "delay": 5 * MS,
                 "queue": {"kind": "droptail", "packets": 10}}],
            "flows": [{"id": "f", "src": "A", "dst": "B", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp", "cc": "newreno", "sack": true,
                                     "rwnd": 1u64 << 24,
                                     "nc": {"block": "cwnd",
                                            "relay_congestion": relay_congestion}}}],
        })
    };
    let counters = |r: &RunResults| -> NcResult {
        serde_json::from_str(r.flows[0].shim.as_ref().unwrap().value.get()).unwrap()
    };
    let signal = run(&scenario("signal"));
    let mask = run(&scenario("mask"));
    let (ns, nm) = (counters(&signal), counters(&mask));
    let (fs, fm) = (&signal.flows[0], &mask.flows[0]);
    let (ds, dm) = (queue_full_at(&signal, "R->B"), queue_full_at(&mask, "R->B"));
    eprintln!(
        "signal: {:.0} kb/s, R drops {ds}, recoveries {}, marks {}, signals {}, repairs {}\n\
         mask:   {:.0} kb/s, R drops {dm}, recoveries {}, marks {}, signals {}, repairs {}",
        fs.goodput_bps / 1e3,
        fs.recoveries,
        ns.sink.marks_received,
        ns.source.congestion_signals,
        ns.source.repairs_requested,
        fm.goodput_bps / 1e3,
        fm.recoveries,
        nm.sink.marks_received,
        nm.source.congestion_signals,
        nm.source.repairs_requested,
    );
    // Every overflow at R owes one mark, and R forwards more of the flow after it (the
    // transfer goes on): marks arrive, ECE goes back, and the counters chain down.
    for n in [&ns, &nm] {
        assert!(n.sink.marks_received > 0);
        assert!(n.sink.ece_sent <= n.sink.marks_received);
        assert!(n.source.ece_received <= n.sink.ece_sent);
        assert!(n.source.congestion_signals <= n.source.ece_received);
    }
    assert_eq!(nm.source.congestion_signals, 0);
    assert!(ns.source.congestion_signals > 0 && fs.recoveries > 0);
    // TCP backs off: R drops a small fraction of what it dropped masked, and the flow carries
    // at least as much.
    assert!(ds * 5 < dm, "R's drops: {ds} signalled, {dm} masked");
    assert!(fs.goodput_bps >= 0.95 * fm.goodput_bps);
}
