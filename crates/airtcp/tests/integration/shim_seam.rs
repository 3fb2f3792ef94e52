//! The shim seam (`transport::shim`, docs/shim.md) with shims of the tests' own, installed on a
//! flow in place of the one its configuration asks for: a shim that takes every ACK arriving at
//! the source and replays it at once changes nothing; a destination buffer that holds every
//! arriving segment for a while and then hands it up in sequence (a reorder buffer's delivery)
//! delays the flow by that much, and TCP copes; arrivals name the path they followed.

use crate::common::*;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use airtcp::metrics::results::RunResults;
use airtcp::sim::header::tcp::{AckHeader, DataHeader};
use airtcp::sim::Time;
use airtcp::transport::shim::{Arrival, Shim, ShimIo, ShimTimer, Verdict};
use serde_json::{json, Value};

fn tcp() -> Value {
    json!({"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000, "delayed_ack": 2})
}

/// Runs `v` with `shim` on its first flow.
fn run_with(v: &Value, shim: Box<dyn Shim>) -> RunResults {
    let cfg = serde_json::from_value(v.clone()).expect("valid scenario");
    let mut world = airtcp::scenario::build::build(&cfg).expect("builds");
    assert!(world.install_shim(0, shim));
    let r = world.run().expect("runs");
    assert!(r.conservation.ok, "{:?}", r.conservation);
    r
}

fn without_timing(r: &RunResults) -> Value {
    let mut j = serde_json::to_value(r).unwrap();
    j.as_object_mut().unwrap().remove("timing");
    j
}

/// Takes every ACK arriving at the source and replays it into the sender at once.
struct AckReplayer(Arc<AtomicU64>);

impl Shim for AckReplayer {
    fn sees_arrivals(&self) -> bool {
        true
    }

    fn on_arriving_ack(&mut self, ack: &AckHeader, _: Arrival, io: &mut dyn ShimIo) -> Verdict {
        self.0.fetch_add(1, Ordering::Relaxed);
        io.replay_ack(*ack);
        Verdict::Consumed
    }
}

#[test]
fn a_shim_that_takes_every_arriving_ack_and_replays_it_changes_nothing() {
    // A lossy link, so that duplicate ACKs, recoveries and timeouts all go through the shim.
    let v = p2p(10_000_000, 10 * MS, 0.02, 20 * S, tcp());
    let plain = run(&v);
    let acks = Arc::new(AtomicU64::new(0));
    let shimmed = run_with(&v, Box::new(AckReplayer(acks.clone())));
    assert!(acks.load(Ordering::Relaxed) > 1000);
    assert!(plain.flows[0].retransmissions > 0);
    assert_eq!(without_timing(&plain), without_timing(&shimmed));
}

/// Holds every segment arriving at the destination for [`HOLD`], then hands the due ones up in
/// sequence order; passes everything else.
struct HoldingBuffer {
    held: VecDeque<(Time, DataHeader)>,
    one_way: Arc<AtomicU64>,
}

const HOLD: Time = 25 * MS;
const RELEASE: ShimTimer = 0;

impl Shim for HoldingBuffer {
    fn timers(&self) -> usize {
        1
    }

    fn sees_arrivals(&self) -> bool {
        true
    }

    fn on_arriving_segment(
        &mut self,
        segment: &DataHeader,
        arrival: Arrival,
        io: &mut dyn ShimIo,
    ) -> Verdict {
        let now = io.now();
        self.one_way
            .fetch_max(now - arrival.created, Ordering::Relaxed);
        self.held.push_back((now + HOLD, *segment));
        io.set_timer(RELEASE, self.held.front().map(|&(t, _)| t));
        Verdict::Consumed
    }

    fn on_timer(&mut self, _: ShimTimer, io: &mut dyn ShimIo) {
        let now = io.now();
        let mut due: Vec<DataHeader> = Vec::new();
        while let Some(&(t, s)) = self.held.front() {
            if t > now {
                break;
            }
            self.held.pop_front();
            due.push(s);
        }
        due.sort_by_key(|s| s.seq);
        for s in due {
            io.deliver(s);
        }
        io.set_timer(RELEASE, self.held.front().map(|&(t, _)| t));
    }
}

#[test]
fn a_destination_buffer_that_holds_arriving_segments_delays_the_flow_by_as_much() {
    let mut v = p2p(10_000_000, 10 * MS, 0.0, 20 * S, tcp());
    v["flows"][0]["app"] = json!({"kind": "bulk", "bytes": 2_000_000});
    let plain = run(&v);
    let one_way = Arc::new(AtomicU64::new(0));
    let buffer = HoldingBuffer {
        held: VecDeque::new(),
        one_way: one_way.clone(),
    };
    let held = run_with(&v, Box::new(buffer));
    let (a, b) = (&plain.flows[0], &held.flows[0]);
    eprintln!(
        "plain: rtt {:?} s, done at {:?} s; held {} ms: rtt {:?} s, done at {:?} s; largest one-way \
         delay seen {} us",
        a.mean_rtt_s,
        a.completion_s,
        HOLD / MS,
        b.mean_rtt_s,
        b.completion_s,
        one_way.load(Ordering::Relaxed) / 1000
    );
    // Everything arrives, each segment HOLD later: the RTT grows by about HOLD (not exactly: the
    // link's queue, which TCP keeps full, holds a little less when the ACKs come later).
    assert_eq!(a.bytes_delivered, b.bytes_delivered);
    assert!(b.completion_s.is_some());
    let grown = b.mean_rtt_s.unwrap() - a.mean_rtt_s.unwrap();
    assert!(
        (grown - HOLD as f64 / 1e9).abs() < 0.005,
        "RTT grew by {grown} s"
    );
    // The arrival carries its send time: the one-way delay includes the link's 10 ms.
    assert!(one_way.load(Ordering::Relaxed) >= 10 * MS);
}

/// Counts the segments and ACKs arriving per path, passing them on.
struct PathCounter(Arc<[[AtomicU64; 2]; 2]>);

impl Shim for PathCounter {
    fn sees_arrivals(&self) -> bool {
        true
    }

    fn on_arriving_segment(&mut self, _: &DataHeader, a: Arrival, _: &mut dyn ShimIo) -> Verdict {
        self.0[0][a.path as usize].fetch_add(1, Ordering::Relaxed);
        Verdict::Pass
    }

    fn on_arriving_ack(&mut self, _: &AckHeader, a: Arrival, _: &mut dyn ShimIo) -> Verdict {
        self.0[1][a.path as usize].fetch_add(1, Ordering::Relaxed);
        Verdict::Pass
    }
}

#[test]
fn arrivals_name_the_path_they_followed() {
    // Wired A-B-E and A-C-E, a TCP flow on both node-disjoint paths (its packets alternate, its
    // ACKs come back the same way).
    let link = |a: &str, b: &str| json!({"from": a, "to": b, "rate": 10_000_000, "delay": 5 * MS});
    let v = json!({
        "name": "two paths", "duration": 5 * S, "seed": 1, "nodes": ["A", "B", "C", "E"],
        "links": [link("A", "B"), link("B", "E"), link("A", "C"), link("C", "E")],
        "flows": [{"id": "f", "src": "A", "dst": "E", "app": {"kind": "bulk"}, "transport": tcp(),
                   "paths": {"kind": "disjoint", "k": 2}}]
    });
    let counts: Arc<[[AtomicU64; 2]; 2]> = Arc::new(Default::default());
    let r = run_with(&v, Box::new(PathCounter(counts.clone())));
    let got = |way: usize, path: usize| counts[way][path].load(Ordering::Relaxed);
    eprintln!(
        "segments per path {} {}, ACKs per path {} {}",
        got(0, 0),
        got(0, 1),
        got(1, 0),
        got(1, 1)
    );
    assert!(r.flows[0].bytes_delivered > 0);
    for way in 0..2 {
        let (a, b) = (got(way, 0), got(way, 1));
        assert!(
            a > 100 && b > 100 && a.abs_diff(b) <= 1 + (a + b) / 50,
            "{a} and {b}"
        );
    }
}
