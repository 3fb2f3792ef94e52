use super::*;

/// Delivers every Send action to the sender's neighbours on a line 0-1-2-..-(n-1), like a
/// loss-free medium, until nothing is left; returns how many messages were sent.
fn flood_line(a: &mut Aodv, n: u32, now: Time) -> usize {
    let mut sent = 0;
    while !a.out.is_empty() {
        let actions = std::mem::take(&mut a.out);
        for act in actions {
            if let AodvAction::Send { node, to, msg } = act {
                sent += 1;
                let neighbours: Vec<NodeId> = [node.wrapping_sub(1), node + 1]
                    .into_iter()
                    .filter(|&x| x < n)
                    .collect();
                for nb in neighbours {
                    if to.is_none() || to == Some(nb) {
                        a.on_message(nb, node, msg, now);
                    }
                }
            }
        }
    }
    sent
}

#[test]
fn discovery_on_a_line_builds_forward_and_reverse_routes() {
    let mut a = Aodv::new(5);
    a.discover(0, 4, 0);
    // TTL 1 reaches only node 1: no reply yet.
    flood_line(&mut a, 5, 0);
    assert_eq!(a.next_hop(0, 4, 0), None);
    a.on_discovery_timeout(0, 4, 1, 10 * MILLIS);
    flood_line(&mut a, 5, 10 * MILLIS);
    // TTL 3 reaches node 3, still not 4; then TTL 5 does.
    assert_eq!(a.next_hop(0, 4, 10 * MILLIS), None);
    a.on_discovery_timeout(0, 4, 2, 20 * MILLIS);
    flood_line(&mut a, 5, 20 * MILLIS);
    assert_eq!(a.next_hop(0, 4, 20 * MILLIS), Some(1));
    assert_eq!(a.next_hop(2, 4, 20 * MILLIS), Some(3));
    assert_eq!(a.next_hop(4, 0, 20 * MILLIS), Some(3));
    assert_eq!(a.nodes[0].routes[&4].hops, 4);
}

#[test]
fn a_link_break_invalidates_routes_and_warns_precursors() {
    let mut a = Aodv::new(4);
    a.discover(0, 3, 0);
    for attempt in 1..=3 {
        flood_line(&mut a, 4, 0);
        if a.next_hop(0, 3, 0).is_some() {
            break;
        }
        a.on_discovery_timeout(0, 3, attempt, 0);
    }
    assert_eq!(a.next_hop(0, 3, 0), Some(1));
    // Node 1 loses node 2: its route to 3 breaks and node 0 hears of it.
    a.link_broken(1, 2);
    flood_line(&mut a, 4, 1);
    assert_eq!(a.next_hop(1, 3, 1), None);
    assert_eq!(a.next_hop(0, 3, 1), None);
    assert!(a.stats.errors >= 1);
    // §6.4: rediscovering the broken 3-hop route starts the ring at 3 + TTL_INCREMENT.
    a.out.clear();
    a.discover(0, 3, 2);
    let ttl_of = |out: &[AodvAction]| match out[0] {
        AodvAction::Send {
            msg: AodvMsg::Rreq { ttl, .. },
            ..
        } => ttl,
        _ => unreachable!(),
    };
    assert_eq!(ttl_of(&a.out), 5);
    // A destination never heard of starts at TTL_START.
    let mut fresh = Aodv::new(4);
    fresh.discover(0, 3, 0);
    assert_eq!(ttl_of(&fresh.out), TTL_START);
}

#[test]
fn without_a_route_to_forward_a_node_reports_the_destination() {
    let mut a = Aodv::new(3);
    a.no_route_to_forward(1, 2);
    assert!(matches!(
        a.out[..],
        [AodvAction::Send {
            node: 1,
            to: None,
            msg: AodvMsg::Rerr { count: 1, unreachable, .. },
        }] if unreachable[0] == (2, 0)
    ));
}

#[test]
fn duplicate_requests_are_dropped_and_discovery_gives_up() {
    let mut a = Aodv::new(2);
    a.discover(0, 1, 0);
    let msg = match a.out[0] {
        AodvAction::Send { msg, .. } => msg,
        _ => unreachable!(),
    };
    a.out.clear();
    a.on_message(1, 0, msg, 0);
    let replies = a.out.len();
    a.on_message(1, 0, msg, 1);
    assert_eq!(
        a.out.len(),
        replies,
        "a duplicate RREQ must not be answered twice"
    );
    // With nobody answering, discovery ends after the ring search and the retries.
    let mut b = Aodv::new(3);
    b.discover(0, 2, 0);
    let mut fails = 0;
    for attempt in 1..20 {
        b.out.clear();
        b.on_discovery_timeout(0, 2, attempt, attempt as Time * 1_000 * MILLIS);
        fails += b
            .out
            .iter()
            .filter(|x| matches!(x, AodvAction::DiscoveryFailed { .. }))
            .count();
    }
    assert_eq!(fails, 1);
    assert!(!b.discovering(0, 2));
}

/// ns-3 3.44's defaults: a HELLO every second, a neighbour lost after two missed.
const HELLO: HelloParams = HelloParams {
    interval: 1_000 * MILLIS,
    allowed_loss: 2,
};
/// How long a message takes from its sender to a neighbour in [`Line`] (standing in for the
/// network layer's jitter and the air).
const HOP: Time = MILLIS;

#[derive(Debug, Clone, Copy)]
enum Ev {
    Hello(NodeId),
    Purge(NodeId, u32),
    Discovery(NodeId, NodeId, u32),
    Receive(NodeId, NodeId, AodvMsg),
}

/// A packet-trace driver for the protocol alone: a line 0-1-..-(n-1) on which every message
/// reaches the sender's live neighbours [`HOP`] after it is sent, and the protocol's timers
/// fire on time; a dead node neither sends, receives nor runs timers.
struct Line {
    a: Aodv,
    n: u32,
    alive: Vec<bool>,
    now: Time,
    events: BTreeMap<(Time, u64), Ev>,
    order: u64,
    /// (time, sender, addressee, message) of every message sent.
    sent: Vec<(Time, NodeId, Option<NodeId>, AodvMsg)>,
    /// (time, node, neighbour) of every neighbour lost.
    lost: Vec<(Time, NodeId, NodeId)>,
}

impl Line {
    /// `n` nodes, each starting its HELLO timer at 30 ms x (its index + 1).
    fn new(n: u32, hello: Option<HelloParams>) -> Self {
        let mut l = Line {
            a: Aodv::with_hello(n as usize, hello),
            n,
            alive: vec![true; n as usize],
            now: 0,
            events: BTreeMap::new(),
            order: 0,
            sent: Vec::new(),
            lost: Vec::new(),
        };
        for node in 0..n {
            l.a.start_hello(node, (node as Time + 1) * 30 * MILLIS);
        }
        l.settle();
        l
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.events.insert((t, self.order), ev);
        self.order += 1;
    }

    /// Carries out what the protocol asked for.
    fn settle(&mut self) {
        for act in std::mem::take(&mut self.a.out) {
            match act {
                AodvAction::Send { node, to, msg } => {
                    self.sent.push((self.now, node, to, msg));
                    for nb in [node.wrapping_sub(1), node + 1] {
                        let hears = nb < self.n && self.alive[nb as usize];
                        if hears && (to.is_none() || to == Some(nb)) {
                            self.at(self.now + HOP, Ev::Receive(nb, node, msg));
                        }
                    }
                }
                AodvAction::HelloTimer { node, at } => self.at(at, Ev::Hello(node)),
                AodvAction::PurgeTimer {
                    node,
                    at,
                    generation,
                } => self.at(at, Ev::Purge(node, generation)),
                AodvAction::Timer {
                    node,
                    dst,
                    at,
                    attempt,
                } => self.at(at, Ev::Discovery(node, dst, attempt)),
                AodvAction::NeighbourLost { node, next } => self.lost.push((self.now, node, next)),
                AodvAction::RouteReady { .. } | AodvAction::DiscoveryFailed { .. } => {}
            }
        }
    }

    /// Runs the events up to `until` and stops there.
    fn run(&mut self, until: Time) {
        while let Some((&(t, order), &ev)) = self.events.iter().next() {
            if t > until {
                break;
            }
            self.events.remove(&(t, order));
            self.now = t;
            let node = match ev {
                Ev::Hello(n) | Ev::Purge(n, _) | Ev::Discovery(n, ..) | Ev::Receive(n, ..) => n,
            };
            if !self.alive[node as usize] {
                continue;
            }
            match ev {
                Ev::Hello(n) => self.a.on_hello_timer(n, t),
                Ev::Purge(n, g) => self.a.on_purge_timer(n, g, t),
                Ev::Discovery(n, dst, attempt) => self.a.on_discovery_timeout(n, dst, attempt, t),
                Ev::Receive(n, from, msg) => self.a.on_message(n, from, msg, t),
            }
            self.settle();
        }
        self.now = until;
    }

    /// When `node` sent its HELLOs.
    fn hellos_from(&self, node: NodeId) -> Vec<Time> {
        self.sent
            .iter()
            .filter(|&&(_, from, _, msg)| {
                from == node && matches!(msg, AodvMsg::Rrep { orig, dst, .. } if orig == dst)
            })
            .map(|s| s.0)
            .collect()
    }
}

fn ms(t: &[Time]) -> Vec<Time> {
    t.iter().map(|&x| x * MILLIS).collect()
}

#[test]
fn a_node_says_hello_every_interval_unless_it_broadcast_a_rreq() {
    let mut l = Line::new(3, Some(HELLO));
    l.run(1_500 * MILLIS);
    // Node 1 looks for node 2 at 1.5 s: its RREQ stands in for the HELLO it would send at
    // 2.06 s, and it looks again one interval after the RREQ, at 2.5 s.
    l.a.discover(1, 2, l.now);
    l.settle();
    l.run(3_600 * MILLIS);
    assert_eq!(l.hellos_from(0), ms(&[30, 1_030, 2_030, 3_030]));
    assert_eq!(l.hellos_from(1), ms(&[60, 1_060, 2_500, 3_500]));
    assert_eq!(l.hellos_from(2), ms(&[90, 1_090, 2_090, 3_090]));
    // A HELLO is a broadcast RREP for its sender, with the sender's sequence number (node 1
    // raised its own for the RREQ), hop count 0 and lifetime ALLOWED_HELLO_LOSS x
    // HELLO_INTERVAL.
    let hello_of_1 = l.sent.iter().find(|s| s.0 == 2_500 * MILLIS).unwrap();
    assert_eq!(
        (hello_of_1.1, hello_of_1.2, hello_of_1.3),
        (
            1,
            None,
            AodvMsg::Rrep {
                orig: 1,
                dst: 1,
                dst_seq: 1,
                hops: 0,
                lifetime: 2_000 * MILLIS,
            }
        )
    );
    assert_eq!(l.a.stats.hellos, 12);
    // Hearing one makes a one-hop route to the sender and a neighbour-table entry that
    // lasts two intervals from the last HELLO heard (node 1's at 3.5 s, heard at 3.501 s).
    assert_eq!(l.a.neighbours(1).len(), 2);
    assert!(l.a.neighbours(0).contains(&(1, 5_501 * MILLIS)));
    let r = &l.a.nodes[0].routes[&1];
    assert!(r.valid && r.next == 1 && r.hops == 1 && r.valid_seq && r.seq == 1);

    // With HELLOs off, nothing is sent and nobody keeps a neighbour table.
    let mut off = Line::new(3, None);
    for node in 0..3 {
        off.a.on_hello_timer(node, 0);
    }
    off.settle();
    off.run(5_000 * MILLIS);
    assert!(off.sent.is_empty());
    assert!(off.a.neighbours(1).is_empty());
}

#[test]
fn a_neighbour_that_falls_silent_is_lost_and_its_routes_break_with_a_rerr() {
    // 0 - 1 - 2 - 3: 0 finds a route to 3 through 1 and 2; 2 dies at 5 s. No data flows, so
    // only missing HELLOs can tell its neighbours.
    let mut l = Line::new(4, Some(HELLO));
    l.run(500 * MILLIS);
    l.a.discover(0, 3, l.now);
    l.settle();
    l.run(5_000 * MILLIS);
    assert_eq!(l.a.nodes[0].routes[&3].next, 1);
    assert_eq!(l.a.nodes[1].routes[&3].precursors, [0]);
    assert!(l.lost.is_empty(), "{:?}", l.lost);
    l.alive[2] = false;
    let last = *l.hellos_from(2).last().unwrap();
    assert_eq!(last, 4_090 * MILLIS);
    l.run(9_000 * MILLIS);

    // Its entries at 1 and 3 expired at 4.091 + 2 s; each node's next purge (every second
    // after its last one) finds that: 1 and 3 lose 2, and nobody loses anyone else.
    let lost: Vec<(NodeId, NodeId)> = l.lost.iter().map(|&(_, n, nb)| (n, nb)).collect();
    assert_eq!(lost.len(), 2, "{:?}", l.lost);
    assert!(lost.contains(&(1, 2)) && lost.contains(&(3, 2)));
    for &(t, ..) in &l.lost {
        assert!(t > last + HOP + 2 * HELLO.interval, "{t}");
        assert!(t <= last + HOP + 3 * HELLO.interval, "{t}");
    }
    assert_eq!(l.a.stats.hello_losses, 2);
    assert_eq!(l.a.stats.link_breaks, 2);

    // 1's route to 3 went through 2 and had 0 as precursor: 1 broadcasts a RERR for 3 with
    // the sequence number raised, and 0, whose route to 3 goes through 1, drops it too.
    let (t1, ..) = *l.lost.iter().find(|x| x.1 == 1).unwrap();
    let rerr: Vec<_> = l
        .sent
        .iter()
        .filter(|s| matches!(s.3, AodvMsg::Rerr { .. }))
        .collect();
    assert_eq!(rerr.len(), 1, "{rerr:?}");
    let seq3 = l.a.nodes[1].routes[&3].seq;
    let mut unreachable = [(0, 0); RERR_MAX];
    unreachable[0] = (3, seq3);
    assert_eq!(
        *rerr[0],
        (
            t1,
            1,
            None,
            AodvMsg::Rerr {
                count: 1,
                unreachable
            }
        )
    );
    assert!(!l.a.nodes[1].routes[&3].valid && !l.a.nodes[1].routes[&2].valid);
    assert!(!l.a.nodes[0].routes[&3].valid);
    assert_eq!(l.a.next_hop(0, 3, l.now), None);
    // 0 and 1 still hear each other.
    assert!(l.a.nodes[0].routes[&1].valid);
}

#[test]
fn with_hellos_the_mac_breaks_links_only_to_neighbours_in_the_table() {
    let mut l = Line::new(3, Some(HELLO));
    l.run(1_500 * MILLIS);
    // 0 never heard 2 (not its neighbour on the line): a MAC failure towards it breaks nothing.
    l.a.tx_failed(0, 2, l.now);
    l.settle();
    assert!(l.lost.is_empty());
    assert_eq!(l.a.stats.link_breaks, 0);
    // 1 has 2 in its table: the failure breaks the link at once (not a missed HELLO).
    l.a.tx_failed(1, 2, l.now);
    l.settle();
    assert_eq!(l.lost, [(1_500 * MILLIS, 1, 2)]);
    assert_eq!((l.a.stats.link_breaks, l.a.stats.hello_losses), (1, 0));
    assert_eq!(l.a.neighbours(1).len(), 1);
    // 2 is still alive: its next HELLO (2.09 s) puts it back.
    l.run(2_100 * MILLIS);
    assert_eq!(l.a.neighbours(1).len(), 2);

    // A relay forwarding data to a neighbour keeps it in the table for ACTIVE_ROUTE_TIMEOUT
    // after the last packet, HELLOs or not (ns-3's `Forwarding`): 2 dies at 2.1 s, 1 goes on
    // forwarding to it (as 0's relay) until 4 s, and loses it only once 3 s have passed since.
    l.alive[2] = false;
    let mut t = 2_100 * MILLIS;
    while t <= 4_000 * MILLIS {
        l.run(t);
        l.a.forwarded(1, 0, 2, t);
        l.settle();
        t += 100 * MILLIS;
    }
    l.run(8_000 * MILLIS);
    assert_eq!(l.lost.len(), 2, "{:?}", l.lost);
    let (when, node, nb) = l.lost[1];
    assert_eq!((node, nb), (1, 2));
    assert!(when > 7_000 * MILLIS && when <= 8_000 * MILLIS, "{when}");
}
