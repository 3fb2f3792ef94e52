//! Property test over whole simulations: random chains of links with random rates, delays,
//! buffers and loss, carrying random TCP and UDP flows. Every run must finish without a panic,
//! conserve packets, deliver no more than was sent, and give identical results when repeated.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

fn scenario() -> impl Strategy<Value = Value> {
    let link = (1u64..=20, 0u64..=50, 1u32..=60, 0.0f64..0.1, 0u8..3);
    let flow = (
        0usize..5,
        0usize..5,
        0u64..2000,
        any::<bool>(),
        0u8..4,
        1u32..=12,
        1u32..=3,
    );
    (
        proptest::collection::vec(link, 1..5),
        proptest::collection::vec(flow, 1..4),
        any::<u64>(),
    )
        .prop_map(|(links, flows, seed)| {
            let n = links.len() + 1;
            let nodes: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
            let links: Vec<Value> = links
                .iter()
                .enumerate()
                .map(|(i, &(mbps, delay_ms, buf, per, dir))| {
                    let direction = ["forward", "reverse", "both"][dir as usize];
                    json!({"from": format!("n{i}"), "to": format!("n{}", i + 1),
                           "rate": mbps * 1_000_000, "delay": delay_ms * MS,
                           "queue": {"kind": "droptail", "packets": buf},
                           "loss": {"kind": "bernoulli", "per": per, "direction": direction}})
                })
                .collect();
            let flows: Vec<Value> = flows
                .iter()
                .enumerate()
                .filter_map(|(i, &(a, b, start_ms, udp, cc, iw, delack))| {
                    let (src, dst) = (a % n, b % n);
                    if src == dst {
                        return None;
                    }
                    let (app, transport) = if udp {
                        (
                            json!({"kind": "cbr", "rate": 200_000, "packet_size": 500}),
                            json!({"kind": "udp"}),
                        )
                    } else {
                        let (cc, sack) = [
                            ("reno", false),
                            ("newreno", false),
                            ("newreno", true),
                            ("reno", true),
                        ][cc as usize];
                        let bytes = if i % 2 == 0 {
                            Value::Null
                        } else {
                            json!(50_000)
                        };
                        (
                            json!({"kind": "bulk", "bytes": bytes}),
                            json!({"kind": "tcp", "cc": cc, "sack": sack, "initial_cwnd": iw,
                                "delayed_ack": delack, "min_rto": 200 * MS}),
                        )
                    };
                    Some(json!({"id": format!("f{i}"), "src": format!("n{src}"),
                                "dst": format!("n{dst}"), "start": start_ms * MS,
                                "app": app, "transport": transport}))
                })
                .collect();
            json!({"name": "random", "duration": 20 * S, "seed": seed, "nodes": nodes,
                   "links": links, "flows": flows,
                   "metrics": {"trace_cwnd": true, "trace_rtt": true}})
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_worlds_run_conserve_packets_and_repeat_exactly(v in scenario()) {
        let r = run(&v); // asserts conservation
        for f in &r.flows {
            prop_assert!(f.goodput_bps.is_finite() && f.goodput_bps >= 0.0);
            if f.transport == "tcp" {
                prop_assert!(f.bytes_delivered <= f.packets_sent * 1000);
            }
            if let Some(t) = f.completion_s {
                prop_assert!(t <= 20.0);
            }
        }
        let again = run(&v);
        prop_assert_eq!(
            serde_json::to_string(&r.flows).unwrap(),
            serde_json::to_string(&again.flows).unwrap()
        );
        prop_assert_eq!(r.conservation.created, again.conservation.created);
    }
}

/// Random meshes: 3-12 radios in a 700 m square (range or two-ray propagation, optional fading,
/// RTS/CTS and link errors) with TCP and UDP flows between connected nodes.
fn mesh() -> impl Strategy<Value = Value> {
    let node = (0.0f64..700.0, 0.0f64..700.0);
    (
        proptest::collection::vec(node, 3..12),
        any::<bool>(),
        0u8..3,
        any::<bool>(),
        proptest::collection::vec((0usize..12, 0usize..12, any::<bool>()), 1..4),
        proptest::option::of((0usize..12, 0usize..12, 0.0f64..0.5)),
        any::<u64>(),
    )
        .prop_map(|(pos, two_ray, fading, rts, flows, link_error, seed)| {
            let n = pos.len();
            let nodes: Vec<Value> = pos
                .iter()
                .enumerate()
                .map(|(i, (x, y))| json!({"name": format!("n{i}"), "x": x, "y": y}))
                .collect();
            let propagation = if two_ray {
                json!({"kind": "two_ray_ground"})
            } else {
                json!({"kind": "range", "range": 250.0})
            };
            let fading = [json!({"kind": "none"}), json!({"kind": "rayleigh"}),
                          json!({"kind": "block", "coherence": 50 * MS})][fading as usize].clone();
            let flows: Vec<Value> = flows
                .iter()
                .enumerate()
                .filter(|(_, (a, b, _))| a % n != b % n)
                .map(|(i, &(a, b, udp))| {
                    let (app, tr) = if udp {
                        (json!({"kind": "cbr", "rate": 300_000, "packet_size": 500}), json!({"kind": "udp"}))
                    } else {
                        (json!({"kind": "bulk"}), json!({"kind": "tcp", "min_rto": 200 * MS}))
                    };
                    json!({"id": format!("f{i}"), "src": format!("n{}", a % n),
                           "dst": format!("n{}", b % n), "start": i as u64 * 10 * MS,
                           "app": app, "transport": tr})
                })
                .collect();
            let errors: Vec<Value> = link_error
                .filter(|(a, b, _)| a % n != b % n)
                .map(|(a, b, per)| json!({"from": format!("n{}", a % n), "to": format!("n{}", b % n),
                                          "direction": "both", "error": {"kind": "bernoulli", "per": per}}))
                .into_iter()
                .collect();
            json!({"name": "mesh", "duration": 10 * S, "seed": seed,
                   "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                             "rts_cts": rts, "propagation": propagation, "fading": fading},
                   "topology": {"kind": "explicit", "nodes": nodes},
                   "link_errors": errors, "flows": flows})
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_meshes_run_conserve_packets_and_repeat_exactly(v in mesh()) {
        let cfg: airtcp::ScenarioConfig = serde_json::from_value(v.clone()).unwrap();
        // Disconnected pairs are refused at build time; that is fine, there is nothing to run.
        let Ok(r) = airtcp::simulate(&cfg) else { return Ok(()) };
        prop_assert!(r.conservation.ok, "{:?}", r.conservation);
        let again = airtcp::simulate(&cfg).unwrap();
        prop_assert_eq!(
            serde_json::to_string(&r.flows).unwrap(),
            serde_json::to_string(&again.flows).unwrap()
        );
    }
}
