//! BFLY's two-hop coding decision (Omiwade, Zheng & Hua, "Butterflies in the mesh: lightweight
//! localized wireless network coding", NetCod 2008; paper 001 §VII; spec 001 §2.4): a node XORs
//! two natives that go to the *same* next hop j, which forwards the XOR undecoded to their
//! different next hops after it; each of those decodes with the other native, which it overheard
//! from that native's previous hop.
//!
//! The decision is made from the two-hop topology and the packets' source routes, not from
//! reception reports: natives a and b at node i are paired when
//! - they have the same next hop j and different next hops after j (d_a != d_b), and
//! - d_a hears b's previous hop u_b and d_b hears a's previous hop u_a (so each overheard the
//!   other's native when it was sent to i).
//!
//! The coder takes its head native and pairs it with the first queued native (in queue order)
//! that satisfies the rule; the pair's overhearing can still fail on the air, which the recovery
//! rule (the coder keeping both until d_a and d_b acknowledge them, [`super::cope_ack`]) covers.
//! Pure: the caller gives the candidates and the topology as closures.

/// A native as BFLY sees it: its id and three nodes of its source route around the coder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoutedNative {
    /// The native's identity.
    pub id: u64,
    /// The node it came from (u).
    pub previous: u32,
    /// The coder's next hop for it (j).
    pub next: u32,
    /// The hop after that (d); None if j is the destination.
    pub after_next: Option<u32>,
}

/// Whether `a` and `b` can travel as one XOR for two hops: same next hop, different hops
/// after it, and each of those hears the other native's previous hop.
pub fn pairable(
    a: &RoutedNative,
    b: &RoutedNative,
    hears: &mut impl FnMut(u32, u32) -> bool,
) -> bool {
    let (Some(da), Some(db)) = (a.after_next, b.after_next) else {
        return false;
    };
    a.id != b.id && a.next == b.next && da != db && hears(b.previous, da) && hears(a.previous, db)
}

/// The partner of `head` among `queued` (in queue order), if any.
pub fn partner<'a>(
    head: &RoutedNative,
    queued: impl IntoIterator<Item = &'a RoutedNative>,
    hears: &mut impl FnMut(u32, u32) -> bool,
) -> Option<RoutedNative> {
    queued
        .into_iter()
        .find(|c| pairable(head, c, hears))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The butterfly (paper 001 Fig. 8): A1 = 2 -> I1 = 0 -> I2 = 1 -> A2 = 4 and
    // B1 = 3 -> I1 -> I2 -> B2 = 5; A2 overhears B1, B2 overhears A1.
    fn butterfly_hears(talker: u32, listener: u32) -> bool {
        matches!((talker, listener), (3, 4) | (2, 5))
    }

    fn a(id: u64) -> RoutedNative {
        RoutedNative {
            id,
            previous: 2,
            next: 1,
            after_next: Some(4),
        }
    }

    fn b(id: u64) -> RoutedNative {
        RoutedNative {
            id,
            previous: 3,
            next: 1,
            after_next: Some(5),
        }
    }

    #[test]
    fn the_butterfly_s_two_flows_pair_at_i1() {
        assert!(pairable(&a(1), &b(2), &mut butterfly_hears));
        assert!(pairable(&b(2), &a(1), &mut butterfly_hears));
        // Two natives of one flow go to the same final hop: no pair.
        assert!(!pairable(&a(1), &a(3), &mut butterfly_hears));
        let queue = [a(3), b(2), b(4)];
        assert_eq!(
            partner(&a(1), &queue, &mut butterfly_hears).map(|p| p.id),
            Some(2)
        );
    }

    #[test]
    fn without_overhearing_or_a_common_next_hop_nothing_pairs() {
        // A2 does not hear B1.
        let mut one_way = |t: u32, l: u32| (t, l) == (2, 5);
        assert!(!pairable(&a(1), &b(2), &mut one_way));
        let elsewhere = RoutedNative { next: 7, ..b(2) };
        assert!(!pairable(&a(1), &elsewhere, &mut butterfly_hears));
        let last_hop = RoutedNative {
            after_next: None,
            ..b(2)
        };
        assert!(!pairable(&a(1), &last_hop, &mut butterfly_hears));
        assert_eq!(partner(&a(1), &[a(3)], &mut butterfly_hears), None);
    }
}
