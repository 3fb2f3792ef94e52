//! The forwarding seam (`net::forwarding`, docs/forwarding.md) with layers of the tests' own,
//! installed in place of the one the scenario asks for: a layer that only watches changes
//! nothing and sees what the MACs count; a layer that holds every packet itself and hands it to
//! the radio at its transmit opportunities carries a flow as the interface queue does.

mod common;
use common::*;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use airtcp::mac::frame::{Frame, RadioId};
use airtcp::metrics::results::RunResults;
use airtcp::net::forwarding::{
    Forwarding, ForwardingCtx, Frames, Heard, LayerNeeds, MacView, Route, TxStatus, TxUnit,
};
use airtcp::net::routing::Iface;
use airtcp::sim::{NodeId, PacketId, Time};
use serde_json::{json, Value};

/// A chain of `hops` hops, 200 m apart, 250 m range, one bulk TCP flow end to end (the relays
/// overhear each other's frames to their other neighbour).
fn chain(hops: u32, duration: u64) -> Value {
    json!({
        "name": "chain", "duration": duration, "seed": 4,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "range", "range": 250.0},
                  "queue": {"kind": "droptail", "packets": 50}},
        "topology": {"kind": "chain", "hops": hops, "spacing": 200.0},
        "flows": [{"id": "f", "src": "n0", "dst": format!("n{hops}"), "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000,
                                 "delayed_ack": 2, "initial_cwnd": 2}}],
    })
}

/// Runs `v` with `layer` installed instead of the scenario's own.
fn run_with(v: &Value, layer: Box<dyn Forwarding>) -> RunResults {
    let cfg = serde_json::from_value(v.clone()).expect("valid scenario");
    let mut world = airtcp::scenario::build::build(&cfg).expect("builds");
    world.net.install_forwarding(layer);
    let r = world.run().expect("runs");
    assert!(r.conservation.ok, "{:?}", r.conservation);
    r
}

fn without_timing(r: &RunResults) -> Value {
    let mut j = serde_json::to_value(r).unwrap();
    j.as_object_mut().unwrap().remove("timing");
    j
}

/// Counts what a layer is shown; forwards as the plain layer does.
#[derive(Default)]
struct Counts {
    addressed: AtomicU64,
    overheard: AtomicU64,
    attempts: AtomicU64,
    answered: AtomicU64,
    delivered: AtomicU64,
    given_up: AtomicU64,
}

struct Watcher(Arc<Counts>);

impl Forwarding for Watcher {
    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            packets: false,
            pulls: false,
            frames: Frames::ReceivedAndOverheard,
            mac_outcomes: true,
        }
    }

    fn on_frame(&mut self, _radio: RadioId, _f: &Frame, heard: Heard, _: &mut ForwardingCtx<'_>) {
        let c = match heard {
            Heard::Overheard => &self.0.overheard,
            Heard::Addressed | Heard::Broadcast => &self.0.addressed,
        };
        c.fetch_add(1, Ordering::Relaxed);
    }

    fn on_attempt(&mut self, _radio: RadioId, _next: RadioId, ok: bool) {
        self.0.attempts.fetch_add(1, Ordering::Relaxed);
        self.0.answered.fetch_add(ok as u64, Ordering::Relaxed);
    }

    fn on_tx_status(&mut self, _: RadioId, _: PacketId, _: Option<RadioId>, s: TxStatus, _: Time) {
        let c = match s {
            TxStatus::RetryLimit => &self.0.given_up,
            _ => &self.0.delivered,
        };
        c.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_layer_that_only_watches_changes_nothing_and_sees_what_the_macs_count() {
    let v = chain(3, 20 * S);
    let plain = run(&v);
    let counts = Arc::new(Counts::default());
    let watched = run_with(&v, Box::new(Watcher(counts.clone())));
    assert_eq!(without_timing(&plain), without_timing(&watched));
    let sum = |f: fn(&airtcp::metrics::results::LinkRow) -> u64| -> u64 {
        plain.links.iter().map(f).sum()
    };
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    assert!(get(&counts.overheard) > 0);
    assert_eq!(get(&counts.overheard), sum(|l| l.overheard));
    assert_eq!(get(&counts.attempts), sum(|l| l.attempts));
    assert_eq!(get(&counts.answered), sum(|l| l.answered));
    let retry_drops: u64 = plain
        .drops
        .iter()
        .filter(|d| d.reason == "retry_limit")
        .map(|d| d.packets)
        .sum();
    assert_eq!(get(&counts.given_up), retry_drops);
    // A packet whose MAC reports it delivered (or handed over: its ACK was lost) was decoded by
    // its addressee first, once (a retransmitted copy is acknowledged but not handed up again).
    assert!(get(&counts.delivered) > 0);
    assert!(get(&counts.addressed) >= get(&counts.delivered));
}

/// Holds every packet for a radio in a FIFO of its own, unbounded, and hands the head to the
/// radio at each transmit opportunity: the pull side of the seam, with routed next hops.
struct PullingFifo {
    queues: Vec<VecDeque<(PacketId, NodeId)>>,
    node_of: Vec<NodeId>,
    pulled: Arc<AtomicU64>,
}

impl Forwarding for PullingFifo {
    fn needs(&self) -> LayerNeeds {
        LayerNeeds {
            packets: true,
            pulls: true,
            ..LayerNeeds::default()
        }
    }

    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        match ctx.route(node, id) {
            Route::Via(hop) => match hop.iface {
                Iface::Radio(r) => {
                    let q = &mut self.queues[r as usize];
                    q.push_back((id, hop.node));
                    ctx.radio_enqueued(r, q.len());
                    ctx.wake(r);
                }
                _ => ctx.push(hop, id),
            },
            Route::Taken => {}
            Route::Unreachable => {
                ctx.drop_at_node(node, id, airtcp::sim::DropReason::NoRoute);
            }
        }
    }

    fn has_pending(&self, radio: RadioId, _now: Time) -> bool {
        !self.queues[radio as usize].is_empty()
    }

    fn pull(&mut self, radio: RadioId, _mac: MacView<'_>) -> Option<TxUnit> {
        let (id, next_hop) = self.queues[radio as usize].pop_front()?;
        self.pulled.fetch_add(1, Ordering::Relaxed);
        Some(TxUnit { id, next_hop })
    }

    fn on_node_down(&mut self, node: NodeId, out: &mut Vec<PacketId>) {
        for (r, q) in self.queues.iter_mut().enumerate() {
            if self.node_of[r] == node {
                out.extend(q.drain(..).map(|(id, _)| id));
            }
        }
    }

    fn count_held(&self) -> u64 {
        self.queues.iter().map(|q| q.len() as u64).sum()
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        for (r, q) in self.queues.iter().enumerate() {
            if self.node_of[r] == node {
                q.iter().for_each(|&(id, _)| f(id));
            }
        }
    }
}

#[test]
fn a_layer_that_holds_packets_and_pulls_them_carries_a_flow_like_the_interface_queue() {
    for (hops, failure) in [(1, false), (3, false), (3, true)] {
        let mut v = chain(hops, 20 * S);
        if failure {
            // The relay fails mid-run: what the layer holds there is dropped, and counted.
            v["failures"] = json!([{"node": "n1", "at": 10 * S}]);
        }
        let plain = run(&v);
        let nodes = hops as usize + 1;
        let pulled = Arc::new(AtomicU64::new(0));
        let layer = PullingFifo {
            queues: vec![VecDeque::new(); nodes],
            node_of: (0..nodes as NodeId).collect(),
            pulled: pulled.clone(),
        };
        let r = run_with(&v, Box::new(layer));
        let (a, b) = (plain.flows[0].goodput_bps, r.flows[0].goodput_bps);
        eprintln!("{hops} hops, failure {failure}: interface queue {a:.0} b/s, pulled {b:.0} b/s");
        assert!(pulled.load(Ordering::Relaxed) > 100);
        if failure {
            assert!(b > 0.0);
        } else {
            assert!((b - a).abs() < 0.15 * a, "{b:.0} against {a:.0}");
        }
        // Nothing went through the interface queues' drop-tail: the layer's queues have no limit.
        assert!(!r.drops.iter().any(|d| d.reason == "queue_full"));
    }
}
