//! The forwarding seam (`net::forwarding`, docs/forwarding.md) with layers of the tests' own,
//! installed in place of the one the scenario asks for: a layer that only watches changes
//! nothing and sees what the MACs count; a layer that holds every packet itself and hands it to
//! the radio at its transmit opportunities carries a flow as the interface queue does; a relay
//! that codes two packets for opposite neighbours into one frame (COPE's Alice-and-Bob exchange)
//! carries both with fewer frames, and every packet is accounted for once.

use crate::common::*;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use airtcp::mac::frame::{Frame, RadioId};
use airtcp::metrics::results::RunResults;
use airtcp::net::forwarding::{
    Forwarding, ForwardingCtx, Frames, Heard, LayerNeeds, LayerWriter, MacView, Route, TxStatus,
    TxUnit,
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
            ..LayerNeeds::default()
        }
    }

    fn on_frame(&mut self, _radio: RadioId, _f: &Frame, heard: Heard, _: &mut ForwardingCtx<'_>) {
        let c = match heard {
            Heard::Overheard => &self.0.overheard,
            Heard::Addressed | Heard::Broadcast => &self.0.addressed,
            Heard::Duplicate => return,
        };
        c.fetch_add(1, Ordering::Relaxed);
    }

    fn on_attempt(&mut self, _radio: RadioId, _next: RadioId, ok: bool) {
        self.0.attempts.fetch_add(1, Ordering::Relaxed);
        self.0.answered.fetch_add(ok as u64, Ordering::Relaxed);
    }

    fn on_tx_status(
        &mut self,
        _: RadioId,
        _: PacketId,
        _: Option<RadioId>,
        s: TxStatus,
        _: MacView<'_>,
    ) {
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
        Some(TxUnit::packet(id, next_hop))
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

/// COPE's two-flow exchange at one relay, as small as it gets: the relay holds the packets it
/// must send on in one FIFO per radio; when its head and a later packet go to different
/// neighbours it sends both in one coded frame (MAC-addressed to the head's next hop, the other
/// next hop overhears; which one is addressed is drawn from the layer's random stream), else
/// the head alone, once it has waited [`HOLD`] for a partner (COPE never waits and codes what
/// the queue holds). A node decodes a native meant for it if it knows every other native of the frame
/// (here: it sent it); the relay retires a native once its next hop took it, and sends it again
/// otherwise.
struct XorRelay {
    /// Per radio: packet, next hop, when it was queued.
    queues: Vec<VecDeque<(PacketId, NodeId, Time)>>,
    /// Uids each node has sent on or originated: what it can XOR out of a coded frame.
    known: Vec<HashSet<u64>>,
    /// Uids of natives some next hop took.
    taken: HashSet<u64>,
    /// Natives of each coded frame in flight, by carrier.
    carriers: HashMap<PacketId, Vec<(PacketId, NodeId)>>,
    stats: Arc<XorCounts>,
}

#[derive(Default)]
struct XorCounts {
    coded_frames: AtomicU64,
    natives_taken: AtomicU64,
    natives_resent: AtomicU64,
    duplicates: AtomicU64,
}

/// The coded frame's header bytes beside the longest native (COPE's header, §5.1, for two
/// natives: about 20 bytes; the test only needs a size).
const CODING_HEADER: u32 = 20;

/// How long a packet waits for a partner before it goes alone.
const HOLD: Time = 100 * MS;

impl XorRelay {
    /// The position of a partner for the head of radio `r`'s queue (another next hop).
    fn partner(&self, r: RadioId) -> Option<usize> {
        let q = &self.queues[r as usize];
        let to = q.front()?.1;
        q.iter().position(|&(_, n, _)| n != to)
    }
}

impl Forwarding for XorRelay {
    fn needs(&self) -> LayerNeeds {
        LayerNeeds::ALL
    }

    fn on_packet(&mut self, node: NodeId, id: PacketId, ctx: &mut ForwardingCtx<'_>) {
        self.known[node as usize].insert(ctx.packet(id).uid);
        match ctx.route(node, id) {
            Route::Via(hop) => match hop.iface {
                Iface::Radio(r) => {
                    let now = ctx.now();
                    self.queues[r as usize].push_back((id, hop.node, now));
                    ctx.radio_enqueued(r, self.queues[r as usize].len());
                    ctx.set_timer(now + HOLD, r as u64);
                    ctx.wake(r);
                }
                _ => ctx.push(hop, id),
            },
            Route::Taken => {}
            Route::Unreachable => ctx.drop_at_node(node, id, airtcp::sim::DropReason::NoRoute),
        }
    }

    fn on_timer(&mut self, token: u64, ctx: &mut ForwardingCtx<'_>) {
        ctx.wake(token as RadioId);
    }

    fn has_pending(&self, radio: RadioId, now: Time) -> bool {
        match self.queues[radio as usize].front() {
            Some(&(_, _, queued)) => now >= queued + HOLD || self.partner(radio).is_some(),
            None => false,
        }
    }

    fn pull(&mut self, radio: RadioId, mut mac: MacView<'_>) -> Option<TxUnit> {
        if !self.has_pending(radio, mac.now) {
            return None;
        }
        let partner = self.partner(radio);
        let q = &mut self.queues[radio as usize];
        let (head, to, _) = q.pop_front()?;
        let Some(k) = partner else {
            return Some(TxUnit::packet(head, to));
        };
        let (other, other_to, _) = q.remove(k - 1).expect("found");
        let natives = [(head, to), (other, other_to)];
        let size = natives
            .iter()
            .map(|&(id, _)| mac.packet(id).size)
            .max()
            .unwrap();
        // The MAC destination: either next hop, drawn from the layer's own stream (COPE picks
        // one; the other overhears).
        let addressee = if mac.rng().bernoulli(0.5) {
            to
        } else {
            other_to
        };
        let unit = mac.coded(
            radio, // single-radio nodes: radio r belongs to node r
            addressee,
            LayerWriter::new().finish(),
            size + CODING_HEADER,
            &natives,
        );
        self.carriers.insert(unit.id, natives.to_vec());
        self.stats.coded_frames.fetch_add(1, Ordering::Relaxed);
        Some(unit)
    }

    fn on_frame(
        &mut self,
        radio: RadioId,
        frame: &Frame,
        heard: Heard,
        ctx: &mut ForwardingCtx<'_>,
    ) {
        if heard == Heard::Duplicate {
            self.stats.duplicates.fetch_add(1, Ordering::Relaxed);
        }
        let me = radio as NodeId;
        let from = frame.src as NodeId;
        let natives = ctx.natives(frame).to_vec();
        for n in &natives {
            let others_known = natives
                .iter()
                .filter(|o| o.packet.uid != n.packet.uid)
                .all(|o| self.known[me as usize].contains(&o.packet.uid));
            if n.next_hop == me && others_known && self.taken.insert(n.packet.uid) {
                self.stats.natives_taken.fetch_add(1, Ordering::Relaxed);
                ctx.accept(me, n.packet, from);
            }
        }
    }

    fn on_tx_status(
        &mut self,
        radio: RadioId,
        id: PacketId,
        _next: Option<RadioId>,
        _status: TxStatus,
        mut mac: MacView<'_>,
    ) {
        let Some(natives) = self.carriers.remove(&id) else {
            return;
        };
        // Whatever became of the carrier, each native's fate is its next hop's: taken, or sent
        // again (first in line).
        for &(native, to) in natives.iter().rev() {
            if self.taken.contains(&mac.packet(native).uid) {
                mac.retire(native);
            } else {
                self.stats.natives_resent.fetch_add(1, Ordering::Relaxed);
                self.queues[radio as usize].push_front((native, to, mac.now));
            }
        }
    }

    fn count_held(&self) -> u64 {
        let queued: usize = self.queues.iter().map(VecDeque::len).sum();
        let in_frames: usize = self.carriers.values().map(Vec::len).sum();
        (queued + in_frames) as u64
    }

    fn for_each_held(&self, node: NodeId, f: &mut dyn FnMut(PacketId)) {
        self.queues[node as usize]
            .iter()
            .for_each(|&(id, ..)| f(id));
    }
}

#[test]
fn a_relay_that_codes_two_natives_into_one_frame_carries_both_flows_with_fewer_frames() {
    // n0 - n1 - n2, 200 m apart, 250 m range: the ends do not hear each other. One UDP flow each
    // way, 100 kb/s each, a packet every 80 ms: light load (under saturation one end wins the
    // medium for hundreds of milliseconds at a time and the relay holds one direction only).
    // Lossy: a fifth of the frames between n1 and n2 are lost either way, so natives n2 was to
    // overhear are sent again, carriers are given up and ACKs lost make duplicates.
    for lossy in [false, true] {
        let flow = |id: &str, src: &str, dst: &str| {
            json!({"id": id, "src": src, "dst": dst,
                   "app": {"kind": "cbr", "rate": 100_000, "packet_size": 1000},
                   "transport": {"kind": "udp"}})
        };
        let mut v = chain(2, 20 * S);
        v["flows"] = json!([flow("right", "n0", "n2"), flow("left", "n2", "n0")]);
        if lossy {
            v["link_errors"] = json!([{"from": "n1", "to": "n2", "direction": "both",
                                       "error": {"kind": "bernoulli", "per": 0.2}}]);
        }
        let plain = run(&v);
        let relay = |stats: &Arc<XorCounts>| XorRelay {
            queues: vec![VecDeque::new(); 3],
            known: vec![HashSet::new(); 3],
            taken: HashSet::new(),
            carriers: HashMap::new(),
            stats: stats.clone(),
        };
        let stats = Arc::new(XorCounts::default());
        let coded = run_with(&v, Box::new(relay(&stats)));
        // Run twice, the same: the layer's draws come from its own seeded stream.
        let again = run_with(&v, Box::new(relay(&Arc::new(XorCounts::default()))));
        assert_eq!(without_timing(&coded), without_timing(&again));
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let relay_frames = |r: &RunResults| {
            let q = r
                .queues
                .iter()
                .find(|q| q.queue == "radio n1")
                .expect("relay radio");
            q.transmitted
        };
        let delivered = |r: &RunResults| -> Vec<u64> {
            r.flows.iter().map(|f| f.bytes_delivered / 1000).collect()
        };
        eprintln!(
            "lossy {lossy}: plain: relay frames {}, delivered {:?}; coded: relay frames {}, \
             delivered {:?}, coded frames {}, natives taken {}, resent {}, duplicates {}, {:?}",
            relay_frames(&plain),
            delivered(&plain),
            relay_frames(&coded),
            delivered(&coded),
            get(&stats.coded_frames),
            get(&stats.natives_taken),
            get(&stats.natives_resent),
            get(&stats.duplicates),
            coded.conservation,
        );
        // Both flows get through, as much as without coding...
        for (a, b) in delivered(&plain).into_iter().zip(delivered(&coded)) {
            assert!(b as f64 > 0.95 * a as f64, "{b} packets against {a}");
        }
        // ... with far fewer frames from the relay: most of its frames carry two natives.
        let coded_frames = get(&stats.coded_frames);
        assert!(coded_frames > 150, "{coded_frames}");
        assert!(
            (relay_frames(&coded) as f64) < 0.8 * relay_frames(&plain) as f64,
            "{} frames against {}",
            relay_frames(&coded),
            relay_frames(&plain)
        );
        if lossy {
            assert!(get(&stats.natives_resent) > 0);
            assert!(get(&stats.duplicates) > 0);
        }
        // Every native taken is retired at the relay once (the copy carries on), and nothing
        // else but carriers given up is: created = delivered + dropped + retired + in flight.
        let c = &coded.conservation;
        assert!(c.ok);
        assert!(c.retired >= get(&stats.natives_taken));
        assert!(c.retired - get(&stats.natives_taken) <= coded_frames);
        assert_eq!(plain.conservation.retired, 0);
    }
}

#[test]
fn a_link_whose_rate_table_entry_is_lower_carries_what_that_rate_carries() {
    // One hop n0 -> n1, saturated UDP, the radios at 2 Mb/s; then the same with the rate table's
    // entry n0 -> n1 at 1 Mb/s (the ACKs back keep their rate), and a scenario whose radios all
    // run at 1 Mb/s.
    let mut v = chain(1, 10 * S);
    v["flows"][0]["app"] = json!({"kind": "cbr", "rate": 3_000_000, "packet_size": 1000});
    v["flows"][0]["transport"] = json!({"kind": "udp"});
    let fast = run(&v);
    let cfg = serde_json::from_value(v.clone()).expect("valid scenario");
    let mut world = airtcp::scenario::build::build(&cfg).expect("builds");
    assert!(world.net.wireless.set_link_rate(0, 1, 1_000_000));
    assert!(
        !world.net.wireless.set_link_rate(0, 0, 1_000_000),
        "not a neighbour"
    );
    let slow_link = world.run().expect("runs");
    let mut all_slow = v.clone();
    all_slow["radio"]["data_rate"] = json!(1_000_000);
    let slow = run(&all_slow);
    let g = |r: &RunResults| r.flows[0].goodput_bps;
    eprintln!(
        "2 Mb/s: {:.0} b/s; link at 1 Mb/s: {:.0} b/s; radios at 1 Mb/s: {:.0} b/s",
        g(&fast),
        g(&slow_link),
        g(&slow)
    );
    assert!(slow_link.conservation.ok);
    assert!(g(&slow_link) < 0.7 * g(&fast));
    // The ACKs go at the basic rate, 1 Mb/s in both: the same exchanges on the air, the same
    // random draws, the same packets delivered.
    assert_eq!(
        slow_link.flows[0].bytes_delivered,
        slow.flows[0].bytes_delivered
    );
}

/// A stop asked for before the set-up's route searches skips them and runs no event; without one,
/// the searches publish their progress, one per flow end.
#[test]
fn a_stop_during_set_up_cuts_the_route_searches_short() {
    let chain = json!({
        "name": "stop", "duration": 10 * S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "propagation": {"kind": "two_ray_ground"}},
        "topology": {"kind": "chain", "hops": 3, "spacing": 200.0},
        "routing": {"kind": "static"},
        "flows": [{"id": "f", "src": "n0", "dst": "n3", "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno"}}]
    })
    .to_string();
    let stopped = airtcp::world::RunControl::default();
    stopped.request_stop();
    let out = airtcp::simulate_json_controlled(&chain, &stopped).expect("builds");
    assert!(out.is_none());
    assert_eq!(
        stopped.setup_progress(),
        (0, 2),
        "stopped before the first search"
    );
    assert_eq!(stopped.now(), 0, "no event ran");
    let watched = airtcp::world::RunControl::default();
    let out = airtcp::simulate_json_controlled(&chain, &watched).expect("runs");
    assert!(out.is_some());
    // The last step is published before the last search: one of two done.
    assert_eq!(watched.setup_progress(), (1, 2));
}
