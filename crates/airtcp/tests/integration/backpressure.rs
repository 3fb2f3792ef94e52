//! Backpressure forwarding over 802.11 (paper 000): a chain carries TCP as static routing does,
//! runs repeat exactly, and on the paper's tree (Fig. 6) classical backpressure starves the
//! two-hop flow while TCP-aware backpressure serves both flows; overflow drops are reported at
//! the node whose buffer overflowed.

use crate::common::*;
use serde_json::{json, Value};

fn radio() -> Value {
    // ns-2's two-ray ground radio: 250 m receive range, 550 m carrier sense.
    json!({"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
           "propagation": {"kind": "two_ray_ground"},
           "queue": {"kind": "droptail", "packets": 100}})
}

fn tcp(rwnd: u64) -> Value {
    json!({"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000, "rwnd": rwnd,
           "delayed_ack": 1, "initial_cwnd": 2})
}

fn tree(routing: Value, seed: u64, rwnd: u64) -> Value {
    json!({
        "name": "tree", "duration": 30 * S, "seed": seed, "radio": radio(),
        "topology": {"kind": "tree", "spacing": 200.0}, "routing": routing,
        "flows": [
            {"id": "A-B", "src": "n0", "dst": "n1", "start_jitter": 5 * S,
             "app": {"kind": "bulk"}, "transport": tcp(rwnd)},
            {"id": "A-D", "src": "n0", "dst": "n3", "start_jitter": 5 * S,
             "app": {"kind": "bulk"}, "transport": tcp(rwnd)}
        ]
    })
}

fn bp(differential: &str) -> Value {
    json!({"kind": "backpressure", "differential": differential})
}

fn goodputs(v: &Value) -> Vec<f64> {
    run(v).flows.iter().map(|f| f.goodput_bps).collect()
}

#[test]
fn a_chain_carries_tcp_like_static_routing() {
    let chain = |routing: Value| {
        json!({
            "name": "chain", "duration": 30 * S, "seed": 3, "radio": radio(),
            "topology": {"kind": "chain", "hops": 3, "spacing": 200.0}, "routing": routing,
            "flows": [{"id": "f", "src": "n0", "dst": "n3", "start": S,
                       "app": {"kind": "bulk"}, "transport": tcp(20_000)}]
        })
    };
    let fixed = goodputs(&chain(json!({"kind": "static"})))[0];
    for differential in ["classical", "tcp_aware"] {
        let g = goodputs(&chain(bp(differential)))[0];
        eprintln!("3-hop chain: static {fixed:.0} b/s, {differential} backpressure {g:.0} b/s");
        assert!(
            g > 0.8 * fixed && g < 1.2 * fixed,
            "{differential}: {g} vs {fixed}"
        );
    }
}

#[test]
fn backpressure_runs_repeat_exactly() {
    let a = serde_json::to_string(&run(&tree(bp("tcp_aware"), 4, 20_000))).unwrap();
    let b = serde_json::to_string(&run(&tree(bp("tcp_aware"), 4, 20_000))).unwrap();
    let strip = |s: &str| s[..s.find("\"timing\"").unwrap()].to_string();
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn tcp_aware_backpressure_serves_both_tree_flows() {
    // Paper Fig. 6a: both flows transmit. ns-2's TCP window of 20 packets (docs/backpressure.md).
    for seed in 1..=10 {
        let g = goodputs(&tree(bp("tcp_aware"), seed, 20_000));
        let total = g[0] + g[1];
        let jain = total * total / (2.0 * (g[0] * g[0] + g[1] * g[1]));
        eprintln!(
            "seed {seed}: TCP-aware {:.0} / {:.0} kb/s, Jain {jain:.3}",
            g[0] / 1e3,
            g[1] / 1e3
        );
        assert!(g.iter().all(|&x| x > 0.25 * total), "seed {seed}: {g:?}");
        assert!(jain >= 0.9, "seed {seed}: Jain {jain}");
    }
}

#[test]
fn classical_backpressure_starves_the_two_hop_flow() {
    // Paper Fig. 6b: flow 2 gets no chance. Measured with windows larger than the buffer share
    // (1 MiB): with ns-2's 20-packet window the starvation happens in about half of the seeds
    // only, because the two-hop flow that starts first holds its ground (docs/backpressure.md).
    let mut starved = 0;
    for seed in 1..=10 {
        let g = goodputs(&tree(bp("classical"), seed, 1 << 20));
        eprintln!(
            "seed {seed}: classical {:.0} / {:.0} kb/s",
            g[0] / 1e3,
            g[1] / 1e3
        );
        starved += (g[1] < 0.1 * g[0]) as u32;
    }
    assert!(starved >= 8, "flow 2 starved in {starved} of 10 seeds");
}

#[test]
fn tcp_aware_fairness_holds_across_the_parameters_the_paper_leaves_open() {
    // T (loss estimate and "flows passing through") and the idle time before a control packet
    // are not given in the paper (docs/backpressure.md): the tree stays fair across a decade of
    // each, and for TCP-Vegas with alpha/beta 1/3 (ns-2) and 2/4.
    let mut rows = Vec::new();
    for (t_ms, idle_ms, vegas) in [
        (100, 100, None),
        (1000, 100, None),
        (5000, 100, None),
        (1000, 10, None),
        (1000, 1000, None),
        (1000, 100, Some((1, 3))),
        (1000, 100, Some((2, 4))),
    ] {
        let routing = json!({"kind": "backpressure", "differential": "tcp_aware",
                             "estimate_interval": t_ms * MS, "report_idle": idle_ms * MS});
        for seed in 1..=3 {
            let mut v = tree(routing.clone(), seed, 20_000);
            if let Some((alpha, beta)) = vegas {
                for f in v["flows"].as_array_mut().unwrap() {
                    f["transport"]["cc"] = json!("vegas");
                    f["transport"]["sack"] = json!(false);
                    f["transport"]["vegas"] = json!({"alpha": alpha, "beta": beta, "gamma": 1});
                }
            }
            let g = goodputs(&v);
            let total = g[0] + g[1];
            rows.push(format!(
                "T {t_ms} ms, idle {idle_ms} ms, vegas {vegas:?}, seed {seed}: {:.0} / {:.0} kb/s",
                g[0] / 1e3,
                g[1] / 1e3
            ));
            assert!(g.iter().all(|&x| x > 0.25 * total), "{}", rows.join("\n"));
        }
    }
    eprintln!("{}", rows.join("\n"));
}

/// A 3-hop chain n0 - n1 - n2 - n3 under backpressure with a shared buffer of `buffer` packets
/// per node and one UDP flow of 2 Mb/s (several times what the chain carries) from `src` to
/// `dst`.
fn flooded_chain(differential: &str, buffer: u64, src: &str, dst: &str) -> Value {
    let mut radio = radio();
    radio["queue"]["packets"] = json!(buffer);
    json!({
        "name": "flood", "duration": 10 * S, "seed": 2, "radio": radio,
        "topology": {"kind": "chain", "hops": 3, "spacing": 200.0}, "routing": bp(differential),
        "flows": [{"id": "f", "src": src, "dst": dst,
                   "app": {"kind": "cbr", "rate": 2_000_000, "packet_size": 1000},
                   "transport": {"kind": "udp"}}]
    })
}

#[test]
fn overflow_drops_are_reported_at_the_node_that_overflows() {
    // Buffers of 5 packets and a UDP flow far above the chain's capacity: the source's buffer
    // overflows all the time (the relays' some hundreds of times in 10 s too, under either
    // differential). The counts must land on the node that dropped, whichever end the flow
    // starts from, and agree with the drops table.
    for differential in ["classical", "tcp_aware"] {
        for (src, dst) in [("n0", "n3"), ("n3", "n0")] {
            let r = run(&flooded_chain(differential, 5, src, dst));
            let table = backpressure_rows(&r);
            let rows: Vec<_> = table.iter().map(|b| (b.0.as_str(), b.1, b.2)).collect();
            eprintln!("{differential} {src}->{dst}: (node, overflow drops, control sent) {rows:?}");
            let nodes: Vec<_> = rows.iter().map(|row| row.0).collect();
            assert_eq!(nodes, ["n0", "n1", "n2", "n3"]);
            let of = |node: &str| rows.iter().find(|row| row.0 == node).unwrap();
            let most = rows.iter().map(|row| row.1).max().unwrap();
            assert!(
                of(src).1 > 1000 && of(src).1 == most,
                "{differential}: {rows:?}"
            );
            assert_eq!(
                of(dst).1,
                0,
                "{differential}: the destination queues nothing"
            );
            // The destination never sends a data frame: its reports go out as control packets.
            assert!(of(dst).2 > 0, "{differential}: {rows:?}");
            for b in &table {
                // Data never enters a radio's interface queue under backpressure, so every
                // queue_full drop of "radio NODE" is an overflow of NODE's shared buffer.
                let queue_full: u64 = r
                    .drops
                    .iter()
                    .filter(|d| d.queue == format!("radio {}", b.0) && d.reason == "queue_full")
                    .map(|d| d.packets)
                    .sum();
                assert_eq!(b.1, queue_full, "{differential}: {}", b.0);
            }
            let json = serde_json::to_value(&r).unwrap();
            let row = &json["backpressure"][if src == "n0" { 0 } else { 3 }];
            assert_eq!(row["node"], src);
            assert_eq!(row["overflow_drops"], of(src).1);
            assert!(row["control_sent"].is_u64());
        }
    }
    // Without backpressure the table is empty.
    let mut v = flooded_chain("classical", 5, "n0", "n3");
    v["routing"] = json!({"kind": "static"});
    let r = run(&v);
    assert!(backpressure_rows(&r).is_empty());
    assert_eq!(serde_json::to_value(&r).unwrap()["backpressure"], json!([]));
}

/// The rows of the results' backpressure table (the forwarding layer's report): (node, overflow
/// drops, control packets sent).
fn backpressure_rows(r: &airtcp::metrics::results::RunResults) -> Vec<(String, u64, u64)> {
    let table = r.forwarding.get("backpressure").expect("always reported");
    let rows: Vec<Value> = serde_json::from_str(table.get()).expect("a JSON array");
    rows.iter()
        .map(|row| {
            (
                row["node"].as_str().unwrap().to_string(),
                row["overflow_drops"].as_u64().unwrap(),
                row["control_sent"].as_u64().unwrap(),
            )
        })
        .collect()
}
