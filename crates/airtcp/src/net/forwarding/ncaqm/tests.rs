//! NCAQM's queue by hand (spec 001 §6(a): Alg. 1 on the X topology, Alg. 2's Example 2, its
//! ties and its empty history) and by property (capacity, eligibility, per-flow order,
//! conservation).

use super::queue::{Enqueued, NcaqmQueue, Queued};
use crate::coding::cope_rule::{Native, COPE_THRESHOLD};
use crate::sim::time::MILLIS;
use crate::sim::Rng;
use proptest::prelude::*;

/// Native `id` of `flow`, going to next hop 100 + flow.
fn pkt(flow: u32, id: u64) -> Queued {
    Queued {
        native: Native {
            id,
            next_hop: 100 + flow,
            large: true,
        },
        flow,
        solo: false,
    }
}

fn everyone_holds(_: u32, _: u64) -> f64 {
    1.0
}

fn nobody_holds(_: u32, _: u64) -> f64 {
    0.0
}

fn ids(q: &NcaqmQueue) -> Vec<Vec<u64>> {
    q.entries()
        .map(|e| e.natives().iter().map(|n| n.native.id).collect())
        .collect()
}

fn queue(capacity: usize) -> NcaqmQueue {
    NcaqmQueue::new(capacity, COPE_THRESHOLD, 1000 * MILLIS)
}

#[test]
fn alg1_recodes_when_the_relay_learns_what_its_next_hops_hold() {
    // The X: flow 1 (a1, a2, a3) and flow 2 (b1) at I; nothing known to decode at first.
    let mut q = queue(10);
    let mut rng = Rng::stream(1, "t");
    for (flow, id) in [(1, 11), (1, 12), (1, 13), (2, 21)] {
        let got = q.enqueue(pkt(flow, id), &mut nobody_holds, 0, &mut rng);
        assert_eq!(got, Enqueued::Appended);
    }
    // Reports arrive: R1 holds b1, R2 holds a1..a3. b1 joins the first eligible entry, a1.
    q.recode(&mut everyone_holds);
    assert_eq!(ids(&q), [vec![11, 21], vec![12], vec![13]]);
    // An arrival joins the first entry it can: b2 cannot overtake nothing of its flow here, and
    // the head already holds flow 2, so it pairs with a2.
    assert_eq!(
        q.enqueue(pkt(2, 22), &mut everyone_holds, 0, &mut rng),
        Enqueued::Joined(1)
    );
    assert_eq!(ids(&q), [vec![11, 21], vec![12, 22], vec![13]]);
}

#[test]
fn alg1_never_lets_a_packet_overtake_one_of_its_own_flow() {
    // [a1, b1, c1, ...]: a1 + b1 not decodable (R1 lacks b1), so b1 sits alone behind a1.
    let mut q = queue(10);
    let mut rng = Rng::stream(1, "t");
    let mut holds = |r: u32, id: u64| if r == 101 && id == 21 { 0.0 } else { 1.0 };
    for (flow, id) in [(1, 11), (2, 21), (3, 31)] {
        q.enqueue(pkt(flow, id), &mut holds, 0, &mut rng);
    }
    // c1 joined a1 (decodable), b1 stays alone.
    assert_eq!(ids(&q), [vec![11, 31], vec![21]]);
    // b2 could be decoded with a1 + c1 by its next hop, but b1 is behind that entry: b2 must
    // not jump it; it goes to the tail.
    let mut all = |_: u32, _: u64| 1.0;
    assert_eq!(
        q.enqueue(pkt(2, 22), &mut all, 0, &mut rng),
        Enqueued::Appended
    );
    assert_eq!(ids(&q), [vec![11, 31], vec![21], vec![22]]);
}

/// A queue whose history says what each code carried: `sends` entries of the given flows
/// dequeued at time 0.
fn with_history(capacity: usize, sends: &[(&[u32], usize)]) -> NcaqmQueue {
    let mut q = queue(capacity);
    let mut rng = Rng::stream(2, "history");
    let mut id = 10_000;
    for &(flows, times) in sends {
        for _ in 0..times {
            for &f in flows {
                id += 1;
                q.enqueue(pkt(f, id), &mut everyone_holds, 0, &mut rng);
            }
            q.dequeue(&mut nobody_holds, 0).expect("queued");
        }
    }
    assert!(q.is_empty());
    q
}

/// Fills `q` with coded entries of `coded` (flows) and uncoded ones of `alone` (flow, count).
fn fill(q: &mut NcaqmQueue, coded: (&[u32], usize), alone: &[(u32, usize)], first_id: u64) {
    let mut rng = Rng::stream(3, "fill");
    let mut id = first_id;
    for _ in 0..coded.1 {
        for &f in coded.0 {
            id += 1;
            q.enqueue(pkt(f, id), &mut everyone_holds, 0, &mut rng);
        }
    }
    for &(f, n) in alone {
        for _ in 0..n {
            id += 1;
            q.enqueue(pkt(f, id), &mut nobody_holds, 0, &mut rng);
        }
    }
}

/// Flow 3's packets decode nowhere: an arrival of flow 3 joins nothing.
fn flow3_undecodable(_: u32, id: u64) -> f64 {
    if (300..400).contains(&id) {
        0.0
    } else {
        1.0
    }
}

#[test]
fn alg2_drops_the_dominant_flow_s_last_uncoded_packet() {
    // Example 2: flows 1 and 2 always coded together (alpha = 1); at I, 3 coded entries and 5
    // more of flow 1 alone: Q1 = 8, Q2 = 3, Phi1 = Q_h = 8 (flow 1 dominant), Phi2 = 0.
    let mut q = with_history(8, &[(&[1, 2], 10)]);
    fill(&mut q, (&[1, 2], 3), &[(1, 5)], 0);
    assert_eq!(q.len(), 8);
    let last_of_flow_1 = ids(&q).last().expect("full")[0];
    let mut rng = Rng::stream(4, "alg2");
    let got = q.enqueue(pkt(3, 301), &mut flow3_undecodable, 1, &mut rng);
    assert_eq!(got, Enqueued::Dropped(last_of_flow_1));
    assert_eq!(q.len(), 8);
    assert_eq!(
        ids(&q).last(),
        Some(&vec![301]),
        "the arrival took the freed slot"
    );
}

#[test]
fn alg2_drops_the_arrival_when_the_dominant_flow_has_only_coded_packets() {
    // Flow 1 always coded with 2 (alpha 1); flow 2 half coded, half alone. Queue: 6 x (1+2) and
    // 2 of flow 2: code {1,2}: 1 x 6 > 0.5 x 8, so Phi1 = 6, Phi2 = 0.5 x 4 = 2 (alone), Phi3 = 1.
    let mut q = with_history(8, &[(&[1, 2], 4), (&[2], 4)]);
    fill(&mut q, (&[1, 2], 6), &[(2, 2)], 0);
    assert_eq!(q.len(), 8);
    let before = ids(&q);
    let mut rng = Rng::stream(5, "alg2");
    let got = q.enqueue(pkt(3, 301), &mut flow3_undecodable, 1, &mut rng);
    assert_eq!(got, Enqueued::Dropped(301));
    assert_eq!(ids(&q), before);
}

#[test]
fn alg2_breaks_ties_evenly_and_drops_tail_without_history() {
    // Flows 1 and 2 each sent alone before; 4 of each queued: Phi1 = Phi2 = 4.
    let base = {
        let mut q = with_history(8, &[(&[1], 2), (&[2], 2)]);
        fill(&mut q, (&[], 0), &[(1, 4), (2, 4)], 0);
        q
    };
    let mut rng = Rng::stream(6, "ties");
    let trials = 10_000;
    let mut flow1 = 0;
    for _ in 0..trials {
        let mut q = base.clone();
        let Enqueued::Dropped(victim) = q.enqueue(pkt(3, 301), &mut flow3_undecodable, 1, &mut rng)
        else {
            panic!("the queue is full");
        };
        // Victims: id 4 (flow 1's last) or 8 (flow 2's last).
        assert!(victim == 4 || victim == 8, "{victim}");
        flow1 += usize::from(victim == 4);
    }
    let share = flow1 as f64 / trials as f64;
    assert!((share - 0.5).abs() <= 0.02, "{share}");
    // Nothing ever sent: drop-tail.
    let mut q = queue(2);
    fill(&mut q, (&[], 0), &[(1, 2)], 0);
    let got = q.enqueue(pkt(2, 77), &mut nobody_holds, 0, &mut Rng::stream(7, "t"));
    assert_eq!(got, Enqueued::Dropped(77));
}

proptest! {
    /// Random arrivals of 4 flows and dequeues under fixed knowledge: never more than L
    /// entries; every entry of distinct flows and next hops and decodable; each flow leaves in
    /// arrival order; arrivals = sent + dropped + queued.
    #[test]
    fn the_queue_keeps_its_invariants(
        ops in proptest::collection::vec((0u32..4, any::<bool>()), 1..300),
        knows in proptest::collection::vec(any::<bool>(), 16),
        capacity in 1usize..8,
    ) {
        // Knowledge per packet, not per flow, so that a later packet of a flow may code where
        // an earlier one could not (the case condition (iii) guards).
        let mut holds = |r: u32, id: u64| {
            if knows[(r as usize * 7 + id as usize) % 16] { 1.0 } else { 0.5 }
        };
        let mut q = queue(capacity);
        let mut rng = Rng::stream(8, "prop");
        let (mut arrived, mut sent, mut dropped) = (0usize, 0usize, 0usize);
        let mut next_id = [0u64; 4];
        let mut last_sent = [0u64; 4];
        for (t, &(flow, dequeue)) in ops.iter().enumerate() {
            let now = t as u64 * 10 * MILLIS;
            if dequeue {
                if let Some(e) = q.dequeue(&mut holds, now) {
                    for n in e.natives() {
                        let f = n.flow as usize;
                        prop_assert!(n.native.id > last_sent[f], "flow {} out of order", f);
                        last_sent[f] = n.native.id;
                        sent += 1;
                    }
                }
            } else {
                next_id[flow as usize] += 1;
                let id = flow as u64 * 1000 + next_id[flow as usize];
                arrived += 1;
                if let Enqueued::Dropped(_) = q.enqueue(pkt(flow, id), &mut holds, now, &mut rng) {
                    dropped += 1;
                }
            }
            prop_assert!(q.len() <= capacity);
            let queued: usize = q.entries().map(|e| e.natives().len()).sum();
            prop_assert_eq!(arrived, sent + dropped + queued);
            for e in q.entries() {
                let natives: Vec<Native> = e.natives().iter().map(|n| n.native).collect();
                prop_assert!(crate::coding::cope_rule::decodable(&natives, &mut holds, COPE_THRESHOLD));
                for (i, a) in e.natives().iter().enumerate() {
                    for b in &e.natives()[i + 1..] {
                        prop_assert!(a.flow != b.flow && a.native.next_hop != b.native.next_hop);
                    }
                }
            }
        }
    }
}

#[test]
fn a_retransmission_goes_to_the_head_or_joins_an_entry_and_a_solo_native_joins_nothing() {
    let mut q = NcaqmQueue::new(4, COPE_THRESHOLD, 1000 * MILLIS);
    let mut rng = Rng::stream(1, "front");
    let mut holds = everyone_holds;
    // Two natives of flow 1, then flow 2's retransmission joins the head entry.
    assert_eq!(
        q.enqueue(pkt(1, 10), &mut holds, 0, &mut rng),
        Enqueued::Appended
    );
    assert_eq!(
        q.enqueue(pkt(1, 11), &mut holds, 0, &mut rng),
        Enqueued::Appended
    );
    assert_eq!(
        q.insert(pkt(2, 20), &mut holds, 0, &mut rng, true),
        Enqueued::Joined(0)
    );
    // Nothing it may join: flow 1's retransmission goes to the head.
    assert_eq!(
        q.insert(pkt(1, 9), &mut holds, 0, &mut rng, true),
        Enqueued::Appended
    );
    let heads: Vec<u64> = q.entries().map(|e| e.natives()[0].native.id).collect();
    assert_eq!(heads, [9, 10, 11]);
    // A solo native (an ACK the layer does not code) stays alone.
    let mut ack = pkt(3, 30);
    ack.solo = true;
    assert_eq!(q.enqueue(ack, &mut holds, 0, &mut rng), Enqueued::Appended);
    assert_eq!(
        q.enqueue(pkt(4, 40), &mut holds, 0, &mut rng),
        Enqueued::Joined(0)
    );
    q.recode(&mut holds);
    assert!(q
        .entries()
        .all(|e| !e.is_coded() || e.natives().iter().all(|n| !n.solo)));
    let mut out = Vec::new();
    q.drain(&mut out);
    out.sort_unstable();
    assert_eq!(out, [9, 10, 11, 20, 30, 40]);
}

/// Everyone holds everything, and natives 1 and 2 pair as a BFLY two-hop code.
struct PairsOneAndTwo;

impl super::queue::Decodability for PairsOneAndTwo {
    fn holds(&mut self, _: u32, _: u64) -> f64 {
        1.0
    }

    fn two_hop(&mut self, a: u64, b: u64) -> bool {
        matches!((a, b), (1, 2) | (2, 1))
    }
}

#[test]
fn a_two_hop_pair_is_one_entry_that_takes_nothing_else() {
    let mut q = queue(4);
    let mut rng = Rng::stream(1, "bfly");
    let mut c = PairsOneAndTwo;
    // Natives 1 (flow 1) and 2 (flow 2) go to the same next hop, 7; 3 (flow 3) to 103.
    let to_seven = |flow: u32, id: u64| Queued {
        native: Native {
            id,
            next_hop: 7,
            large: true,
        },
        ..pkt(flow, id)
    };
    assert_eq!(
        q.enqueue(to_seven(1, 1), &mut c, 0, &mut rng),
        Enqueued::Appended
    );
    assert_eq!(
        q.enqueue(to_seven(2, 2), &mut c, 0, &mut rng),
        Enqueued::Joined(0)
    );
    assert!(q.entries().next().expect("an entry").is_two_hop());
    // Decodable one-hop by COPE's rule, but the pair is forwarded undecoded: not joined.
    assert_eq!(
        q.enqueue(pkt(3, 3), &mut c, 0, &mut rng),
        Enqueued::Appended
    );
    // Two natives for 7 that do not pair stay apart (one next hop could decode only one).
    assert_eq!(
        q.enqueue(to_seven(4, 4), &mut c, 0, &mut rng),
        Enqueued::Joined(1)
    );
    q.recode(&mut c);
    assert_eq!(ids(&q), [vec![1, 2], vec![3, 4]]);
}
