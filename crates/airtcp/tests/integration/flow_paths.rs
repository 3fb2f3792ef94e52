//! Flow paths (`flows[].paths`, `net::flow_paths`): a flow pinned to a path longer than its route
//! takes it, hop by hop and back; a flow with two node-disjoint paths spreads its packets over
//! both; a forwarding layer re-pins packets through the context; packets are conserved throughout.

use crate::common::*;

use airtcp::metrics::results::RunResults;
use airtcp::net::flow_paths::{Way, NO_PATH};
use airtcp::net::forwarding::{Forwarding, ForwardingCtx, LayerNeeds};
use airtcp::sim::{NodeId, PacketId};
use serde_json::{json, Value};

/// Wired A-B-E (the route from A to E, two hops) and A-C-D-E (three hops), 10 Mbit/s, 5 ms each;
/// one bulk TCP flow A -> E with `paths` (null: none).
fn wired(paths: Value) -> Value {
    let link = |a: &str, b: &str| json!({"from": a, "to": b, "rate": 10_000_000, "delay": 5 * MS});
    json!({
        "name": "wired paths", "duration": 10 * S, "seed": 1,
        "nodes": ["A", "B", "C", "D", "E"],
        "links": [link("A", "B"), link("B", "E"), link("A", "C"), link("C", "D"), link("D", "E")],
        "flows": [{"id": "f", "src": "A", "dst": "E", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp"}, "paths": paths}]
    })
}

/// A ring of six radios 200 m apart (each hears only its two neighbours), one flow from n0 to
/// `dst` with `paths`: TCP, or `cbr` UDP at 200 kbit/s.
fn ring(dst: &str, paths: Value, udp: bool) -> Value {
    let (app, transport) = if udp {
        (
            json!({"kind": "cbr", "rate": 200_000, "packet_size": 500}),
            json!({"kind": "udp"}),
        )
    } else {
        (json!({"kind": "bulk"}), json!({"kind": "tcp"}))
    };
    json!({
        "name": "ring paths", "duration": 10 * S, "seed": 2,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "ring", "n": 6, "spacing": 200.0},
        "flows": [{"id": "f", "src": "n0", "dst": dst, "app": app, "transport": transport,
                   "paths": paths}]
    })
}

/// Packets the wired channel `name` ("FROM->TO") put on the wire.
fn sent(r: &RunResults, name: &str) -> u64 {
    r.queues
        .iter()
        .find(|q| q.queue == name)
        .unwrap_or_else(|| panic!("no queue {name}"))
        .transmitted
}

/// Unicast attempts of radio `from` to radio `to` (0 without a row).
fn attempts(r: &RunResults, from: &str, to: &str) -> u64 {
    r.links
        .iter()
        .find(|l| l.from == from && l.to == to)
        .map_or(0, |l| l.attempts)
}

fn names(paths: &[&[&str]]) -> Option<Vec<Vec<String>>> {
    Some(
        paths
            .iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect(),
    )
}

#[test]
fn a_wired_flow_pinned_to_the_long_way_takes_it_both_ways() {
    let routed = run(&wired(Value::Null));
    assert!(sent(&routed, "A->B") > 1000 && sent(&routed, "E->B") > 500);
    assert_eq!(sent(&routed, "A->C"), 0);
    assert_eq!(routed.flows[0].paths, None);

    let pinned = run(&wired(
        json!({"kind": "explicit", "paths": [["A", "C", "D", "E"]]}),
    ));
    for forward in ["A->C", "C->D", "D->E"] {
        assert!(sent(&pinned, forward) > 1000, "{forward}");
    }
    // TCP's ACKs come back the same way.
    for back in ["E->D", "D->C", "C->A"] {
        assert!(sent(&pinned, back) > 500, "{back}");
    }
    for off in ["A->B", "B->A", "B->E", "E->B"] {
        assert_eq!(sent(&pinned, off), 0, "{off}");
    }
    assert_eq!(pinned.flows[0].paths, names(&[&["A", "C", "D", "E"]]));
    assert!(
        pinned.flows[0].goodput_bps > 5e6,
        "{}",
        pinned.flows[0].goodput_bps
    );
    // A longer round trip: a larger mean RTT than over the route.
    assert!(pinned.flows[0].mean_rtt_s > routed.flows[0].mean_rtt_s);
}

#[test]
fn reverse_traffic_may_take_the_routes() {
    let r = run(&wired(
        json!({"kind": "explicit", "paths": [["A", "C", "D", "E"]],
                               "reverse": "routes"}),
    ));
    assert!(sent(&r, "A->C") > 1000 && sent(&r, "E->B") > 500 && sent(&r, "B->A") > 500);
    for off in ["A->B", "B->E", "E->D", "D->C", "C->A"] {
        assert_eq!(sent(&r, off), 0, "{off}");
    }
}

#[test]
fn a_radio_flow_pinned_around_the_ring_avoids_its_route() {
    let routed = run(&ring("n2", Value::Null, false));
    assert!(attempts(&routed, "n0", "n1") > 1000);
    assert_eq!(attempts(&routed, "n0", "n5"), 0);

    let long_way = json!({"kind": "explicit", "paths": [["n0", "n5", "n4", "n3", "n2"]]});
    let r = run(&ring("n2", long_way, false));
    for (from, to) in [("n0", "n5"), ("n5", "n4"), ("n4", "n3"), ("n3", "n2")] {
        assert!(attempts(&r, from, to) > 300, "{from} -> {to}");
        assert!(attempts(&r, to, from) > 100, "ACKs {to} -> {from}");
    }
    // The route's middle node sends nothing, and nobody sends to it.
    let relay = r.queues.iter().find(|q| q.queue == "radio n1").unwrap();
    assert_eq!(relay.transmitted, 0);
    assert_eq!(attempts(&r, "n0", "n1") + attempts(&r, "n2", "n1"), 0);
    assert!(r.flows[0].bytes_delivered > 100_000);
}

#[test]
fn two_disjoint_paths_share_a_flow_round_robin() {
    // n0 to n3, opposite on the ring: n0 n1 n2 n3 and n0 n5 n4 n3.
    let r = run(&ring("n3", json!({"kind": "disjoint", "k": 2}), true));
    assert_eq!(
        r.flows[0].paths,
        names(&[&["n0", "n1", "n2", "n3"], &["n0", "n5", "n4", "n3"]])
    );
    let via = |n: &str| {
        r.queues
            .iter()
            .find(|q| q.queue == format!("radio {n}"))
            .unwrap()
            .enqueued
    };
    // 200 kbit/s of 500-byte datagrams for 10 s: 500 packets, every other one each way.
    let (one, five) = (via("n1"), via("n5"));
    assert!(one >= 240 && five >= 240, "n1 {one}, n5 {five}");
    assert!(one.abs_diff(five) <= 10, "n1 {one}, n5 {five}");
    assert_eq!(via("n0"), r.flows[0].packets_sent);
}

#[test]
fn tcp_over_two_disjoint_paths_conserves_packets() {
    let r = run(&ring("n3", json!({"kind": "disjoint", "k": 2}), false));
    assert!(r.flows[0].bytes_delivered > 100_000);
    assert!(attempts(&r, "n1", "n2") > 100 && attempts(&r, "n5", "n4") > 100);
}

#[test]
fn the_metric_orders_the_disjoint_paths() {
    // Paths from A to D: direct, over a link losing 60 % each way (ETX 6.25), or through R
    // (ETX 2). By hops the direct one comes first, by ETX the relayed one. (The direct link is
    // below the default delivery threshold: off here, so that it counts.)
    let triangle = |metric: &str| {
        json!({
            "name": "triangle", "duration": S, "seed": 1,
            "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                      "propagation": {"kind": "range", "range": 250.0}},
            "topology": {"kind": "explicit", "nodes": [
                {"name": "A", "x": 0.0, "y": 0.0}, {"name": "R", "x": 120.0, "y": 60.0},
                {"name": "D", "x": 240.0, "y": 0.0}]},
            "link_errors": [{"from": "A", "to": "D", "direction": "both",
                             "error": {"kind": "bernoulli", "per": 0.6}}],
            "routing": {"kind": "static", "min_delivery": 0.0},
            "flows": [{"id": "f", "src": "A", "dst": "D", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"},
                       "paths": {"kind": "disjoint", "k": 2, "metric": metric}}]
        })
    };
    let hops = run(&triangle("hops"));
    assert_eq!(hops.flows[0].paths, names(&[&["A", "D"], &["A", "R", "D"]]));
    let etx = run(&triangle("etx"));
    assert_eq!(etx.flows[0].paths, names(&[&["A", "R", "D"], &["A", "D"]]));
}

/// Pins every packet it is asked to send on at its source to path `path` of its flow (or unpins
/// it with `NO_PATH`), then forwards it as the plain layer does.
struct Repin {
    path: u8,
}

impl Forwarding for Repin {
    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            packets: true,
            ..LayerNeeds::default()
        }
    }

    fn on_start(&mut self, ctx: &mut ForwardingCtx<'_>) {
        let paths = ctx.flow_paths().paths(0);
        assert_eq!(paths.len(), 2);
        assert_eq!(paths[1].nodes(), &[0, 5, 4, 3]);
        let hop = ctx
            .path_next_hop(0, 1, 5, Way::Forward)
            .expect("n5 is on path 1");
        assert_eq!(hop.node, 4);
        assert!(ctx.path_next_hop(0, 1, 1, Way::Forward).is_none());
    }

    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        let p = *ctx.packet(id);
        if node == p.src && p.flow == 0 {
            assert_ne!(p.path, NO_PATH, "the framework pinned it");
            ctx.pin(id, self.path);
        }
        ctx.forward_routed(node, id);
    }
}

#[test]
fn a_layer_pins_packets_itself() {
    let v = ring("n3", json!({"kind": "disjoint", "k": 2}), false);
    let cfg = serde_json::from_value(v).unwrap();
    let mut world = airtcp::scenario::build::build(&cfg).unwrap();
    world.net.install_forwarding(Box::new(Repin { path: 1 }));
    let r = world.run().unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation);
    assert!(attempts(&r, "n5", "n4") > 300);
    assert_eq!(attempts(&r, "n0", "n1") + attempts(&r, "n3", "n2"), 0);

    // Unpinned, packets take the route (n0 n1 n2 n3 and back: the lowest-numbered neighbours).
    let cfg = serde_json::from_value(ring("n3", json!({"kind": "disjoint", "k": 2}), false));
    let mut world = airtcp::scenario::build::build(&cfg.unwrap()).unwrap();
    world
        .net
        .install_forwarding(Box::new(Repin { path: NO_PATH }));
    let r = world.run().unwrap();
    assert!(r.conservation.ok, "{:?}", r.conservation);
    assert_eq!(attempts(&r, "n0", "n5") + attempts(&r, "n3", "n4"), 0);
}

/// A ring of six radios, n1 -> n4 three hops either way round (an exact tie), a bulk TCP flow;
/// static routing, `symmetric` as given.
fn tied_ring(symmetric: bool) -> Value {
    json!({
        "name": "tied ring", "duration": 10 * S, "seed": 3,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "ring", "n": 6, "spacing": 200.0},
        "routing": {"kind": "static", "symmetric": symmetric},
        "flows": [{"id": "f", "src": "n1", "dst": "n4", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp"}}]
    })
}

/// The way round each direction went: the last relay before n4 (data) and before n1 (ACKs),
/// by unicast attempts; "n5" or "n3" for the data, "n0" or "n2" for the ACKs.
fn ways(r: &RunResults) -> (Vec<&'static str>, Vec<&'static str>) {
    let data = ["n3", "n5"]
        .into_iter()
        .filter(|&v| attempts(r, v, "n4") > 0)
        .collect();
    let acks = ["n0", "n2"]
        .into_iter()
        .filter(|&v| attempts(r, v, "n1") > 0)
        .collect();
    (data, acks)
}

#[test]
fn symmetric_static_routes_bring_the_acks_back_the_way_the_data_went() {
    // Shortest paths break the tie at each end on their own: the data goes one way round, the
    // ACKs the other.
    let plain = run(&tied_ring(false));
    let (data, acks) = ways(&plain);
    assert_eq!(
        (data.as_slice(), acks.as_slice()),
        (&["n3"][..], &["n0"][..]),
        "one way each"
    );
    assert_eq!(plain.flows[0].paths, None);
    // Symmetric: one pinned path, retraced.
    let sym = run(&tied_ring(true));
    let path = sym.flows[0].paths.as_ref().expect("a pinned path");
    assert_eq!(path.len(), 1);
    let (data, acks) = ways(&sym);
    let back = if path[0][1] == "n0" {
        ("n5", "n0")
    } else {
        ("n3", "n2")
    };
    assert_eq!(
        (data.as_slice(), acks.as_slice()),
        (&[back.0][..], &[back.1][..])
    );
    assert!(sym.flows[0].goodput_bps > 100_000.0);
}
