//! COPE's coding decision at a transmit opportunity (Katti et al., "XORs in the air", IEEE/ACM
//! ToN 16(3), 2008, §3 and §5: the coding algorithm and its probability threshold; paper 001's
//! TCP+COPE baseline and the substrate of its NCAQM, spec 001 §2.2 item 4).
//!
//! The coder takes the native at the head of its output queue and tries to add, neighbour by
//! neighbour, the head of that neighbour's virtual queue (the natives going to it next): first in
//! the head's size class (small or large), then in the other. A native joins when the XOR stays
//! decodable: every next hop r of the set must hold every native of the set but its own, and the
//! coder only knows this as a probability (1 from a reception report or because r sent or
//! forwarded the native, the link delivery probability when guessing), so it asks that for every
//! r the product of those probabilities be at least the threshold G (COPE's 0.8). Never two
//! natives for one next hop; nothing is ever delayed to wait for a partner (the head goes alone
//! if nothing fits).
//!
//! With 15 % overhearing loss and guessing alone, two-way codes pass (0.85 >= 0.8) and three-way
//! ones do not (0.85^2 = 0.7225): larger codes need reception reports.
//!
//! Pure: no clock, no queue of its own; the caller's virtual queues and knowledge are asked
//! through closures, and the choice goes into a caller's vector (no allocation once it has grown).

/// A native waiting at the coder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Native {
    /// The native's identity (the pool's key).
    pub id: u64,
    /// The neighbour it goes to next.
    pub next_hop: u32,
    /// Its size class (COPE keeps small and large natives in separate virtual queues).
    pub large: bool,
}

/// COPE's threshold G.
pub const COPE_THRESHOLD: f64 = 0.8;

/// Whether `set` stays decodable by the threshold: for each native's next hop, the product of
/// the probabilities that it holds the other natives is at least `threshold`.
pub fn decodable(set: &[Native], holds: &mut impl FnMut(u32, u64) -> f64, threshold: f64) -> bool {
    set.iter().all(|own| {
        let p: f64 = set
            .iter()
            .filter(|other| other.id != own.id)
            .map(|other| holds(own.next_hop, other.id))
            .product();
        p >= threshold
    })
}

/// Chooses the natives to send with `head` in one XOR, into `chosen` (cleared first; `head` is
/// always its first element). `neighbours` are tried in the given order (the caller sorts them:
/// ascending node id); `virtual_head(n, large)` is the head of neighbour n's virtual queue of that
/// size class; `holds(r, id)` the probability that node r holds native `id`.
pub fn choose(
    head: Native,
    neighbours: &[u32],
    virtual_head: &mut impl FnMut(u32, bool) -> Option<Native>,
    holds: &mut impl FnMut(u32, u64) -> f64,
    threshold: f64,
    chosen: &mut Vec<Native>,
) {
    chosen.clear();
    chosen.push(head);
    for class in [head.large, !head.large] {
        for &n in neighbours {
            if chosen.iter().any(|c| c.next_hop == n) {
                continue;
            }
            let Some(candidate) = virtual_head(n, class) else {
                continue;
            };
            if candidate.next_hop != n || chosen.iter().any(|c| c.id == candidate.id) {
                continue;
            }
            chosen.push(candidate);
            if !decodable(chosen, holds, threshold) {
                chosen.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn native(id: u64, next_hop: u32) -> Native {
        Native {
            id,
            next_hop,
            large: true,
        }
    }

    /// Neighbours 1..=4, one large native for each (id = 10 x neighbour), every native held by
    /// every other neighbour with probability `p`.
    fn run(p: f64, neighbours: &[u32]) -> Vec<u64> {
        let mut chosen = Vec::new();
        let mut heads = |n: u32, large: bool| large.then(|| native(10 * n as u64, n));
        let mut holds = |r: u32, id: u64| if id == 10 * r as u64 { 1.0 } else { p };
        choose(
            native(10, 1),
            neighbours,
            &mut heads,
            &mut holds,
            COPE_THRESHOLD,
            &mut chosen,
        );
        chosen.iter().map(|c| c.id).collect()
    }

    #[test]
    fn guessing_at_fifteen_percent_loss_allows_two_way_codes_only() {
        assert_eq!(run(0.85, &[1, 2, 3, 4]), [10, 20]);
        // 0.85^2 = 0.7225 < 0.8: a third native would fail every next hop's test.
        assert!(!decodable(
            &[native(10, 1), native(20, 2), native(30, 3)],
            &mut |_, _| 0.85,
            COPE_THRESHOLD
        ));
    }

    #[test]
    fn reports_make_four_way_codes() {
        assert_eq!(run(1.0, &[1, 2, 3, 4]), [10, 20, 30, 40]);
        // Neighbours are tried in the caller's order.
        assert_eq!(run(0.85, &[4, 3, 2, 1]), [10, 40]);
    }

    #[test]
    fn a_next_hop_that_lacks_a_native_blocks_the_code_and_the_head_goes_alone() {
        assert_eq!(run(0.5, &[1, 2, 3]), [10]);
    }

    #[test]
    fn the_head_s_size_class_comes_first_then_the_other() {
        let mut chosen = Vec::new();
        // Neighbour 2 has only a small native, neighbour 3 a large one.
        let mut heads = |n: u32, large: bool| match (n, large) {
            (2, false) => Some(Native {
                id: 20,
                next_hop: 2,
                large: false,
            }),
            (3, true) => Some(native(30, 3)),
            _ => None,
        };
        choose(
            native(10, 1),
            &[1, 2, 3],
            &mut heads,
            &mut |_, _| 1.0,
            COPE_THRESHOLD,
            &mut chosen,
        );
        assert_eq!(
            chosen.iter().map(|c| c.id).collect::<Vec<_>>(),
            [10, 30, 20]
        );
    }

    proptest! {
        /// Whatever the queues and knowledge: the head first, one native per next hop, and the
        /// set decodable by the threshold.
        #[test]
        fn every_choice_is_decodable_with_distinct_next_hops(
            probs in proptest::collection::vec(0.5f64..=1.0, 64),
            present in proptest::collection::vec(any::<bool>(), 16),
        ) {
            let mut heads = |n: u32, large: bool| {
                let slot = (n as usize) * 2 + usize::from(large);
                present[slot % 16].then(|| Native { id: 100 + slot as u64, next_hop: n, large })
            };
            let mut holds = |r: u32, id: u64| probs[(r as usize * 7 + id as usize) % 64];
            let mut chosen = Vec::new();
            let head = native(1, 0);
            choose(head, &[0, 1, 2, 3, 4, 5, 6, 7], &mut heads, &mut holds, COPE_THRESHOLD, &mut chosen);
            prop_assert_eq!(chosen[0], head);
            for (i, a) in chosen.iter().enumerate() {
                for b in &chosen[i + 1..] {
                    prop_assert_ne!(a.next_hop, b.next_hop);
                }
            }
            prop_assert!(decodable(&chosen, &mut holds, COPE_THRESHOLD));
        }
    }
}
