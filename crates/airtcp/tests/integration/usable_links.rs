//! The routing's delivery threshold (`routing.min_delivery`, `scenario::usable_links`): routes,
//! flow paths and AODV's discoveries use only radio links that get a full-size data frame through
//! at their own rate at least half the time, both ways.
//!
//! The example throughout: an 802.11a chain n0 - n1 - n2, 10 m apart, 54 Mbps, 16 dBm, log-distance
//! exponent 3.5 (46.6777 dB at 1 m), noise -93.97 dBm. n0 hears n2 at -76.2 dBm, above the -82 dBm
//! receive threshold, so n0 - n2 is a link; but at 17.8 dB SNR a 1536-byte frame at 54 Mbps (which
//! needs about 22 dB) almost never gets through. n0 - n1 has 28.3 dB.

use crate::common::*;
use airtcp::scenario::layout::layout;
use airtcp::ScenarioConfig;
use serde_json::{json, Value};

/// The chain with `routing` (placed at `xs`, metres along a line), one bulk TCP flow n0 -> n2.
fn chain_at(xs: &[f64], routing: Value) -> Value {
    let nodes: Vec<Value> = xs
        .iter()
        .enumerate()
        .map(|(i, x)| json!({"name": format!("n{}", if xs.len() == 2 { 2 * i } else { i }), "x": x, "y": 0.0}))
        .collect();
    json!({
        "name": "gray-zone", "duration": 5 * S, "seed": 1,
        "radio": {"standard": "802.11a", "data_rate": 54_000_000, "basic_rate": 6_000_000,
                  "tx_power": 16.0,
                  "propagation": {"kind": "log_distance", "exponent": 3.5,
                                  "reference_distance": 1.0, "reference_loss": 46.6777}},
        "topology": {"kind": "explicit", "nodes": nodes},
        "routing": routing,
        "flows": [{"id": "f", "src": "n0", "dst": "n2", "start": 0, "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "mss": 1460}}]
    })
}

fn chain(routing: Value) -> Value {
    chain_at(&[0.0, 10.0, 20.0], routing)
}

fn config(v: &Value) -> ScenarioConfig {
    serde_json::from_value(v.clone()).expect("valid scenario")
}

/// The route of the flow, by static routing.
fn route(v: &Value) -> Vec<String> {
    layout(&config(v)).expect("builds").flows[0]
        .route
        .clone()
        .expect("a route")
}

fn error(v: &Value) -> String {
    match airtcp::scenario::build::build(&config(v)) {
        Ok(_) => panic!("builds"),
        Err(e) => e.to_string(),
    }
}

/// Data frames radio `name` sent.
fn sent(r: &airtcp::metrics::results::RunResults, name: &str) -> u64 {
    r.queues
        .iter()
        .find(|q| q.queue == format!("radio {name}"))
        .expect("radio")
        .transmitted
}

#[test]
fn hop_count_routes_around_a_link_that_delivers_nothing() {
    for metric in ["hops", "etx", "ett"] {
        let routing = json!({"kind": "static", "metric": metric});
        assert_eq!(route(&chain(routing)), ["n0", "n1", "n2"], "{metric}");
    }
    // Without the threshold hop count takes the direct link.
    let off = json!({"kind": "static", "metric": "hops", "min_delivery": 0.0});
    assert_eq!(route(&chain(off.clone())), ["n0", "n2"]);

    let relayed = run(&chain(json!({"kind": "static"})));
    let direct = run(&chain(off));
    let (good, bad) = (relayed.flows[0].goodput_bps, direct.flows[0].goodput_bps);
    eprintln!("54 Mbps chain, 5 s: over n1 {good:.0} bit/s, direct {bad:.0} bit/s");
    assert!(good > 10e6, "over n1: {good} bit/s");
    assert!(bad < 0.01 * good, "direct: {bad} bit/s");
    assert!(sent(&relayed, "n1") > 1000);
    assert_eq!(sent(&direct, "n1"), 0);
}

#[test]
fn etx_and_ett_leave_dead_links_out_of_the_graph() {
    // Without the relay the direct link is the only way: ETX would weigh it (finitely) and take
    // it; with the threshold it is no link at all, and the flow is refused.
    for metric in ["hops", "etx", "ett"] {
        let lone = chain_at(&[0.0, 20.0], json!({"kind": "static", "metric": metric}));
        let message = error(&lone);
        assert!(
            message.starts_with(
                "flows[0]: no path of links that deliver at their data rate from 'n0' to 'n2' \
                 (routing.min_delivery 0.5 of 1536-byte frames, both ways); the best path, \
                 n0 -> n2, is held back by 'n0' -> 'n2', which delivers "
            ),
            "{metric}: {message}"
        );
        assert!(
            message.ends_with(
                " at 54 Mbps): move the nodes closer, lower the data rate, or lower \
                 routing.min_delivery (0 allows every link the receiver locks onto)"
            ),
            "{message}"
        );
        if metric == "hops" {
            eprintln!("{message}");
        }
        // Without it hop count takes the link; ETX and ETT weigh it by its delivery of a
        // 1076-byte frame, which is 0 in floating point here (an infinite ETX), and report no
        // route without saying why.
        let off = chain_at(
            &[0.0, 20.0],
            json!({"kind": "static", "metric": metric, "min_delivery": 0}),
        );
        if metric == "hops" {
            assert_eq!(route(&off), ["n0", "n2"]);
        } else {
            assert_eq!(error(&off), "flows[0].dst: no route between 'n0' and 'n2'");
        }
    }
}

#[test]
fn the_threshold_judges_each_link_at_its_own_rate() {
    // Ideal rate control gives n0 - n2 (17.8 dB) 36 Mbps, at which it delivers: usable, and
    // hop count takes it.
    let mut v = chain(json!({"kind": "static"}));
    v["radio"]["rate_control"] = json!({"kind": "ideal"});
    assert_eq!(route(&v), ["n0", "n2"]);
    // Pinned back to 54 Mbps (both ways) it is dead again.
    v["radio"]["link_rates"] = json!([{"from": "n0", "to": "n2", "rate": 54_000_000}]);
    assert_eq!(route(&v), ["n0", "n1", "n2"]);
}

#[test]
fn link_errors_count_and_exactly_the_threshold_passes() {
    // 802.11b in range: every frame the PHY decodes; the errors alone decide.
    let triangle = |per: f64, direction: &str| {
        json!({
            "name": "triangle", "duration": S, "seed": 1,
            "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                      "propagation": {"kind": "range", "range": 250.0}},
            "topology": {"kind": "explicit", "nodes": [
                {"name": "A", "x": 0.0, "y": 0.0}, {"name": "R", "x": 120.0, "y": 60.0},
                {"name": "D", "x": 240.0, "y": 0.0}]},
            "link_errors": [{"from": "A", "to": "D", "direction": direction,
                             "error": {"kind": "bernoulli", "per": per}}],
            "flows": [{"id": "f", "src": "A", "dst": "D", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"}}]
        })
    };
    assert_eq!(route(&triangle(0.5, "both")), ["A", "D"]);
    assert_eq!(route(&triangle(0.6, "both")), ["A", "R", "D"]);
    // The reverse direction alone fails it too: the way back carries the flow's ACKs.
    assert_eq!(route(&triangle(0.6, "reverse")), ["A", "R", "D"]);
    let mut strict = triangle(0.4, "both");
    strict["routing"] = json!({"kind": "static", "min_delivery": 0.7});
    assert_eq!(route(&strict), ["A", "R", "D"]);
    strict["routing"] = json!({"kind": "static", "min_delivery": 0.6});
    assert_eq!(route(&strict), ["A", "D"]);
}

#[test]
fn an_explicit_path_over_a_dead_link_is_refused() {
    let mut v = chain(json!({"kind": "static"}));
    v["flows"][0]["paths"] = json!({"kind": "explicit", "paths": [["n0", "n2"]]});
    let message = error(&v);
    assert!(
        message.starts_with("flows[0].paths.paths[0][1]: the link from 'n0' to 'n2' delivers "),
        "{message}"
    );
    assert!(
        message.ends_with(
            " at 54 Mbps), below routing.min_delivery 0.5: a path over it carries next to \
             nothing (go through a relay, or lower routing.min_delivery; 0 allows every link the \
             receiver locks onto)"
        ),
        "{message}"
    );
    // The relayed path is fine; without the threshold so is the direct one.
    v["flows"][0]["paths"] = json!({"kind": "explicit", "paths": [["n0", "n1", "n2"]]});
    run(&v);
    v["flows"][0]["paths"] = json!({"kind": "explicit", "paths": [["n0", "n2"]]});
    v["routing"] = json!({"kind": "static", "min_delivery": 0});
    let r = run(&v);
    assert_eq!(sent(&r, "n1"), 0);
}

#[test]
fn disjoint_paths_count_only_usable_links() {
    let mut v = chain(json!({"kind": "static"}));
    v["flows"][0]["paths"] = json!({"kind": "disjoint", "k": 2});
    assert_eq!(
        error(&v),
        "flows[0].paths.k: asks for 2 node-disjoint paths; there is only 1 from 'n0' to 'n2' over \
         links that deliver at their data rate (routing.min_delivery 0.5; 2 counting every link \
         the receivers lock onto)"
    );
    v["flows"][0]["paths"] = json!({"kind": "disjoint", "k": 1, "metric": "etx"});
    let r = run(&v);
    assert_eq!(
        r.flows[0].paths,
        Some(vec![vec!["n0".to_string(), "n1".into(), "n2".into()]])
    );
}

#[test]
fn aodv_discovers_the_two_hop_route() {
    let aodv = run(&chain(json!({"kind": "aodv"})));
    let rfc = run(&chain(json!({"kind": "aodv", "min_delivery": 0})));
    let (good, bad) = (aodv.flows[0].goodput_bps, rfc.flows[0].goodput_bps);
    eprintln!(
        "54 Mbps chain, 5 s, AODV: ignoring the gray zone {good:.0} bit/s, RFC 3561 {bad:.0} bit/s"
    );
    assert!(good > 10e6, "{good} bit/s");
    assert!(sent(&aodv, "n1") > 1000);
    // As RFC 3561 has it, n2 answers n0's first RREQ (TTL 1) directly: the route is the dead
    // link, and n1 sends control messages only.
    assert!(bad < 0.01 * good, "{bad} bit/s");
    assert!(sent(&rfc, "n1") < 100, "{}", sent(&rfc, "n1"));
}

#[test]
fn a_flow_without_a_usable_path_is_refused_under_aodv_too() {
    let lone = chain_at(&[0.0, 20.0], json!({"kind": "aodv"}));
    assert!(
        error(&lone).starts_with(
            "flows[0]: no path of links that deliver at their data rate from 'n0' to 'n2'"
        ),
        "{}",
        error(&lone)
    );
    // Out of range altogether is said as before, with the receive range the radio settings
    // give and how far the nearest node is.
    let far = chain_at(&[0.0, 60.0], json!({"kind": "static"}));
    let text = error(&far);
    let prefix = "flows[0].src: 'n0' is out of radio range of every other node (receive range ";
    assert!(text.starts_with(prefix), "{text}");
    assert!(
        text.ends_with(" m; the nearest node, 'n2', is 60.0 m away)"),
        "{text}"
    );
    let range: f64 = text[prefix.len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(range > 0.0 && range < 60.0, "{text}");
}

#[test]
fn the_threshold_is_a_probability() {
    for (bad, text) in [(1.5, "1.5"), (-0.1, "-0.1")] {
        for kind in ["static", "aodv", "horizon"] {
            let v = chain(json!({"kind": kind, "min_delivery": bad}));
            assert_eq!(
                error(&v),
                format!("routing.min_delivery: must be between 0 and 1, got {text}")
            );
        }
    }
    let v = chain(json!({"kind": "backpressure", "min_delivery": 0.5}));
    assert!(serde_json::from_value::<ScenarioConfig>(v).is_err());
}
