//! A wired node (a gateway on the Internet side) linked to a node of the wireless topology: the
//! mixed scenario paper 000's grid uses (flows from a gateway into the mesh).

use crate::common::*;
use serde_json::json;

#[test]
fn a_wired_gateway_reaches_the_mesh_through_a_placed_node() {
    let v = json!({
        "name": "gateway", "duration": 10 * S, "seed": 1,
        "nodes": ["gw"],
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0}},
        "topology": {"kind": "chain", "hops": 2, "spacing": 200.0},
        "links": [{"from": "gw", "to": "n0", "rate": 10_000_000, "delay": 5 * MS,
                   "queue": {"kind": "droptail", "packets": 100}}],
        "flows": [{"id": "f1", "src": "gw", "dst": "n2", "start": S, "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp"}}]
    });
    let r = run(&v);
    // The wired hop's queues are named after both ends, the placed one included.
    assert!(
        r.queues.iter().any(|q| q.queue == "gw->n0"),
        "{:?}",
        r.queues
    );
    assert!(r.queues.iter().any(|q| q.queue == "n0->gw"));
    // Two radio hops at 2 Mb/s: a few hundred kb/s get through.
    assert!(r.flows[0].goodput_bps > 300e3, "{}", r.flows[0].goodput_bps);
}
