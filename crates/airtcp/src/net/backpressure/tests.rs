use super::*;

const MS: Time = 1_000_000;

fn params(differential: Differential) -> BpParams {
    BpParams {
        differential,
        buffer: 20,
        estimate_interval: 1000 * MS,
        report_idle: 100 * MS,
        report_repeat: 1000 * MS,
        rate_bps: 2e6,
        next_hops: NextHops::Any,
        loss_estimate: LossEstimate::PerPacket,
        selection: Selection::PerLink,
    }
}

/// Paper Example 1 (Fig. 1): node I (0) with receivers R1 (1) and R2 (2), flow 1 to R1,
/// flow 2 to R2 (commodities 0 and 2; 1 and 3 are their ACK directions).
fn example1() -> (BpNode, Commodities) {
    let edges = [(0, 1), (1, 0), (0, 2), (2, 0)];
    let dst = vec![1, 0, 2, 0];
    let hops = dst.iter().map(|&d| hops_to(3, &edges, d)).collect();
    let node = BpNode::new(0, vec![BpLink::new(0, 1), BpLink::new(1, 2)], 4);
    (
        node,
        Commodities {
            dst,
            hops,
            etx: Vec::new(),
        },
    )
}

fn fill(node: &mut BpNode, commodity: usize, n: u32, p: &BpParams) {
    for i in 0..n {
        assert!(node
            .enqueue(commodity, PacketId(100 * commodity as u32 + i), 0, p)
            .is_none());
    }
}

#[test]
fn classical_backpressure_serves_only_the_longer_queue() {
    // U_I^1 = 1, U_I^2 = 3: s* = argmax{1, 3} = flow 2, every time (Example 1).
    let p = params(Differential::Classical);
    let (mut node, c) = example1();
    fill(&mut node, 0, 1, &p);
    fill(&mut node, 2, 3, &p);
    let choice = node.select(0, &p, &c, None).unwrap();
    assert_eq!(
        (choice.commodity, choice.link, choice.differential),
        (2, 1, 3.0)
    );
}

#[test]
fn tcp_aware_backpressure_gives_both_flows_the_same_chance_below_k() {
    // Example 2: K = 10 > both queues: D = 10 for both; the tie goes by hops, then flow index.
    let p = params(Differential::TcpAware(KRule::Fixed(10.0)));
    let (mut node, c) = example1();
    fill(&mut node, 0, 1, &p);
    fill(&mut node, 2, 3, &p);
    let choice = node.select(0, &p, &c, None).unwrap();
    assert_eq!((choice.commodity, choice.differential), (0, 10.0));
    // Example 2 continued: U = 7 and 12 with K = 10: flow 2 only (12 > 10).
    let (mut node, c) = example1();
    fill(&mut node, 0, 7, &p);
    fill(&mut node, 2, 12, &p);
    assert_eq!(node.select(0, &p, &c, None).unwrap().commodity, 2);
}

#[test]
fn k_is_the_buffer_shared_by_the_flows_passing_through() {
    let p = params(Differential::TcpAware(KRule::BufferShare));
    let (mut node, _) = example1();
    assert_eq!(node.k(0, &p), 20.0);
    fill(&mut node, 0, 1, &p);
    fill(&mut node, 2, 1, &p);
    assert_eq!(node.k(0, &p), 10.0);
    // Flow 1's queue empties but it was seen within T: still passing through.
    let _ = node.take(Choice {
        commodity: 0,
        link: 0,
        differential: 1.0,
    });
    assert_eq!(node.k(500 * MS, &p), 10.0);
    assert_eq!(node.k(1500 * MS, &p), 20.0);
}

#[test]
fn a_neighbour_reporting_a_longer_queue_is_not_sent_to() {
    // Node 0 -> relay 1 -> destination 2; node 0 holds 3 packets, the relay reports 5.
    let edges = [(0, 1), (1, 0), (1, 2), (2, 1)];
    let c = Commodities {
        dst: vec![2, 0],
        hops: vec![hops_to(3, &edges, 2), hops_to(3, &edges, 0)],
        etx: Vec::new(),
    };
    let p = params(Differential::Classical);
    let mut node = BpNode::new(0, vec![BpLink::new(0, 1)], 2);
    fill(&mut node, 0, 3, &p);
    assert!(node.hear(1, &[5, 0]));
    assert_eq!(node.select(0, &p, &c, None), None, "D = 3 - 5 < 0: hold");
    assert!(node.hear(1, &[1, 0]));
    assert_eq!(node.select(0, &p, &c, None).unwrap().differential, 2.0);
    assert!(!node.hear(1, &[1, 0]), "the same report changes nothing");
    assert!(
        !node.hear(7, &[0, 0]),
        "a node that is not a link is ignored"
    );
}

#[test]
fn the_next_hop_weighs_the_differential_by_the_link_quality() {
    // Two relays, equal differentials; relay 2's link loses 60 % of the attempts.
    let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
    let c = Commodities {
        dst: vec![3, 0],
        hops: vec![hops_to(4, &edges, 3), hops_to(4, &edges, 0)],
        etx: Vec::new(),
    };
    let p = params(Differential::Classical);
    let mut node = BpNode::new(0, vec![BpLink::new(0, 1), BpLink::new(1, 2)], 2);
    fill(&mut node, 0, 6, &p);
    node.hear(1, &[2, 0]); // D = 4 via relay 1
    node.hear(2, &[0, 0]); // D = 6 via relay 2
    assert_eq!(node.select(0, &p, &c, None).unwrap().link, 1);
    for i in 0..10 {
        node.outcome(0, true); // radio 0: relay 1
        node.outcome(1, i < 4); // radio 1: relay 2
    }
    node.refresh_estimates(1000 * MS, &p);
    assert!((node.links[1].loss - 0.6).abs() < 1e-12);
    // 4 x 1.0 > 6 x 0.4: relay 1 now.
    assert_eq!(node.select(1000 * MS, &p, &c, None).unwrap().link, 0);
    // An interval with nothing sent to relay 2 halves its estimate: 6 x 0.7 > 4.
    node.refresh_estimates(2000 * MS, &p);
    assert!((node.links[1].loss - 0.3).abs() < 1e-12);
    assert_eq!(node.select(2000 * MS, &p, &c, None).unwrap().link, 1);
}

#[test]
fn flow_first_keeps_link_quality_out_of_the_choice_between_flows() {
    // Example 1's node, both flows below K = 10 (D = K for both), R1's link a little lossy.
    let (mut node, c) = example1();
    let per_link = BpParams {
        next_hops: NextHops::Closer,
        ..params(Differential::TcpAware(KRule::BufferShare))
    };
    fill(&mut node, 0, 3, &per_link);
    fill(&mut node, 2, 3, &per_link);
    for i in 0..100 {
        node.outcome(0, i != 0); // one collision in 100 on I-R1
        node.outcome(1, true);
    }
    node.refresh_estimates(1000 * MS, &per_link);
    let served = |node: &mut BpNode, p: &BpParams| {
        let mut flows = Vec::new();
        for _ in 0..4 {
            let choice = node.select(1000 * MS, p, &c, None).unwrap();
            flows.push(choice.commodity);
            let (id, _) = node.take(choice);
            node.enqueue(choice.commodity, id, 1000 * MS, p); // keep the backlogs
        }
        flows
    };
    // Per link, the cleaner link wins every tie: flow 2 only.
    assert_eq!(served(&mut node, &per_link), [2, 2, 2, 2]);
    // Flow first: the tie between flows goes round-robin whatever the links' quality.
    let flow_first = BpParams {
        selection: Selection::FlowFirst,
        ..per_link
    };
    assert_eq!(served(&mut node, &flow_first), [0, 2, 0, 2]);
}

#[test]
fn flow_first_routes_the_chosen_flow_by_link_quality() {
    // Two relays towards 3 with equal differentials; relay 1's link loses half the attempts.
    let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
    let c = Commodities {
        dst: vec![3, 0],
        hops: vec![hops_to(4, &edges, 3), hops_to(4, &edges, 0)],
        etx: Vec::new(),
    };
    let p = BpParams {
        selection: Selection::FlowFirst,
        ..params(Differential::TcpAware(KRule::Fixed(5.0)))
    };
    let mut node = BpNode::new(0, vec![BpLink::new(0, 1), BpLink::new(1, 2)], 2);
    fill(&mut node, 0, 2, &p);
    assert_eq!(
        node.select(0, &p, &c, None).unwrap().link,
        0,
        "tie: lower node id"
    );
    for i in 0..10 {
        node.outcome(0, i % 2 == 0);
        node.outcome(1, true);
    }
    node.refresh_estimates(1000 * MS, &p);
    assert_eq!(node.select(1000 * MS, &p, &c, None).unwrap().link, 1);
    // Relay 2 reports 4 queued: (5 - 0) x 0.5 via relay 1 beats (5 - 4) x 1 via relay 2.
    node.hear(2, &[4, 0]);
    assert_eq!(node.select(1000 * MS, &p, &c, None).unwrap().link, 0);
}

#[test]
fn closer_in_etx_lets_a_flow_detour_around_a_lossy_link() {
    // The diamond: A (0) - B (1) lossy (ETX 4), A - C (2), C - D (3), D - B clean (ETX 1).
    // A flow from A to B: by hops only B is nearer than A; by ETX C (2 via D) is too (A: 3).
    let edges = [
        (0, 1),
        (1, 0),
        (0, 2),
        (2, 0),
        (2, 3),
        (3, 2),
        (3, 1),
        (1, 3),
    ];
    let dst = vec![1, 0];
    let hops = dst.iter().map(|&d| hops_to(4, &edges, d)).collect();
    let etx = vec![vec![3.0, 0.0, 2.0, 1.0], vec![0.0, 3.0, 1.0, 2.0]];
    let c = Commodities { dst, hops, etx };
    let mut p = BpParams {
        next_hops: NextHops::Closer,
        selection: Selection::FlowFirst,
        ..params(Differential::TcpAware(KRule::Fixed(10.0)))
    };
    let mut node = BpNode::new(0, vec![BpLink::new(0, 1), BpLink::new(1, 2)], 2);
    fill(&mut node, 0, 3, &p);
    for i in 0..8 {
        node.outcome(0, i % 4 == 0); // A-B: 1 attempt in 4 answered
        node.outcome(1, true);
    }
    node.refresh_estimates(1000 * MS, &p);
    // By hops the flow can only take the lossy link: 10 x 0.25.
    assert_eq!(node.select(1000 * MS, &p, &c, None).unwrap().link, 0);
    // By ETX, C is nearer too, and (10 - 0) x 1 beats 10 x 0.25.
    p.next_hops = NextHops::CloserEtx;
    assert_eq!(node.select(1000 * MS, &p, &c, None).unwrap().link, 1);
    // C reporting a backlog of 8: (10 - 8) x 1 < 10 x 0.25, back to B.
    node.hear(2, &[8, 0]);
    assert_eq!(node.select(1000 * MS, &p, &c, None).unwrap().link, 0);
}

#[test]
fn overflow_drops_the_newest_packet_of_the_largest_queue() {
    let p = BpParams {
        buffer: 4,
        ..params(Differential::Classical)
    };
    let (mut node, _) = example1();
    fill(&mut node, 0, 3, &p);
    fill(&mut node, 2, 1, &p);
    // Full; a packet of flow 2 arrives: flow 1's queue (3) is the largest.
    let victim = node.enqueue(2, PacketId(999), 0, &p);
    assert_eq!(victim, Some(PacketId(2)));
    assert_eq!((node.backlog(0), node.backlog(2), node.len()), (2, 2, 4));
    // Ties go to the arriving packet's flow: it is dropped itself.
    let victim = node.enqueue(2, PacketId(1000), 0, &p);
    assert_eq!(victim, Some(PacketId(1000)));
    assert_eq!(node.overflow_drops, 2);
}

#[test]
fn reports_are_snapshots_taken_with_the_packet() {
    let p = params(Differential::Classical);
    let (mut node, c) = example1();
    fill(&mut node, 0, 2, &p);
    assert!(node.report_stale(0));
    assert!(node.control_due(100 * MS, &p, 0));
    let choice = node.select(0, &p, &c, None).unwrap();
    let (_, next) = node.take(choice);
    assert_eq!(next, 1);
    assert_eq!(node.advertised(0), &[1, 0, 0, 0]);
    assert!(!node.report_stale(0));
    node.reported_at(0, 100 * MS);
    fill(&mut node, 2, 1, &p);
    assert!(
        !node.control_due(150 * MS, &p, 0),
        "a report went out 50 ms ago"
    );
    assert!(node.control_due(200 * MS, &p, 0));
}

#[test]
fn a_radio_chooses_among_the_links_on_its_own_channel() {
    // Node 0 has two radios: port 0 reaches node 1 (radio 10), port 1 reaches node 1 again
    // (radio 11) and node 2 (radio 20). One flow to node 3 behind both.
    let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
    let c = Commodities {
        dst: vec![3, 0],
        hops: vec![hops_to(4, &edges, 3), hops_to(4, &edges, 0)],
        etx: Vec::new(),
    };
    let p = params(Differential::Classical);
    let links = vec![
        BpLink::new(10, 1),
        BpLink::new(11, 1).on_port(1),
        BpLink::new(20, 2).on_port(1),
    ];
    let mut node = BpNode::with_ports(0, links, 2, 2);
    fill(&mut node, 0, 3, &p);
    // Node 1 reports more than node 0 holds: only node 2 is worth sending to, on port 1.
    assert!(node.hear(1, &[5, 0]));
    assert_eq!(
        (node.reported(0, 0), node.reported(1, 0)),
        (5, 5),
        "both links"
    );
    assert_eq!(
        node.select(0, &p, &c, Some(0)),
        None,
        "port 0 reaches node 1 only"
    );
    let choice = node.select(0, &p, &c, Some(1)).unwrap();
    assert_eq!(choice.link, 2);
    assert_eq!(node.select(0, &p, &c, None), Some(choice));
    // The report goes out on port 1 only: port 0's channel still holds the old one.
    let (_, next) = node.take(choice);
    assert_eq!(next, 2);
    assert_eq!(
        (node.advertised(0), node.advertised(1)),
        (&[0, 0][..], &[2, 0][..])
    );
    assert!(node.report_stale(0) && !node.report_stale(1));
    node.reported_at(1, 100 * MS);
    assert!(node.control_due(100 * MS, &p, 0) && !node.control_due(100 * MS, &p, 1));
}

#[test]
fn hop_distances() {
    let edges = [(0, 1), (1, 0), (1, 2), (2, 1)];
    assert_eq!(hops_to(4, &edges, 2), vec![2, 1, 0, u32::MAX]);
}
