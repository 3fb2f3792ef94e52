//! What a COPE node knows (Katti et al., "XORs in the air", IEEE/ACM ToN 16(3), 2008, §3:
//! opportunistic listening, reception reports, guessing; spec 001 §2.2 items 1-3 and 8): the
//! packet pool of natives it sent, received or overheard, kept for `T` (COPE's 0.5 s); what each
//! neighbour reported holding, kept as long; the natives it has not reported yet; and the
//! probability that a neighbour holds a native, which the coding rule
//! ([`super::cope_rule`]) thresholds.
//!
//! - A neighbour **holds** a native for sure if it is the native's previous hop (it sent it to
//!   us) or reported it; otherwise COPE **guesses** from the delivery probability of the link
//!   from the native's previous hop to that neighbour (the ETX-style probe average; airtcp takes
//!   it from the configured error processes), 0 if they are not linked.
//! - The **COPE header** costs 4 bytes, plus 8 per native listed (id and next hop), 9 per
//!   reception-report entry and 7 per ACK entry (sizes approximate, spec 001 §2.2 item 8).
//!
//! Pure: times come from the caller. Storage is a ring per pool plus a set for lookups; once
//! grown to a window's worth of natives, nothing allocates.

use std::collections::{HashMap, VecDeque};

use crate::sim::Time;

/// COPE's pool lifetime, T = 0.5 s (ns).
pub const POOL_LIFETIME: Time = 500_000_000;

/// Bytes of a COPE header with `natives` listed, `reports` report entries and `acks` ACK entries.
pub fn header_bytes(natives: usize, reports: usize, acks: usize) -> u32 {
    (4 + 8 * natives + 9 * reports + 7 * acks) as u32
}

/// Natives one reception-report entry covers: COPE's entry names a source and its last packet
/// with a bitmap of the 8 before it (Katti et al. §5.1), so 9 natives of one flow.
pub const NATIVES_PER_REPORT_ENTRY: usize = 9;

/// Report entries a report of these natives takes (`report`: (native, flow) pairs, reordered
/// by flow here): per flow, one entry per [`NATIVES_PER_REPORT_ENTRY`] natives.
pub fn report_entries(report: &mut [(u64, u32)]) -> usize {
    report.sort_unstable_by_key(|&(id, flow)| (flow, id));
    let mut entries = 0;
    let mut i = 0;
    while i < report.len() {
        let flow = report[i].1;
        let n = report[i..].iter().take_while(|r| r.1 == flow).count();
        entries += n.div_ceil(NATIVES_PER_REPORT_ENTRY);
        i += n;
    }
    entries
}

/// Native ids seen within a lifetime, with their arrival times: membership in O(1) (by the
/// time a native arrived, so that asking needs no mutation), expiry in arrival order as natives
/// are added.
#[derive(Debug, Clone)]
pub struct Pool {
    lifetime: Time,
    order: VecDeque<(Time, u64)>,
    members: HashMap<u64, Time>,
}

impl Pool {
    /// An empty pool keeping natives for `lifetime`.
    pub fn new(lifetime: Time) -> Self {
        Pool {
            lifetime,
            order: VecDeque::new(),
            members: HashMap::new(),
        }
    }

    /// Adds `id` at `now` (a native already present keeps its first time); true if it is new.
    pub fn add(&mut self, id: u64, now: Time) -> bool {
        self.expire(now);
        if self.members.contains_key(&id) {
            return false;
        }
        self.members.insert(id, now);
        self.order.push_back((now, id));
        true
    }

    /// Whether `id` is in the pool at `now`.
    pub fn contains(&self, id: u64, now: Time) -> bool {
        self.members
            .get(&id)
            .is_some_and(|&t| t.saturating_add(self.lifetime) > now)
    }

    /// Natives held (those whose lifetime ran out count until the next [`Pool::add`]).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Forgets what arrived `lifetime` or longer before `now`.
    fn expire(&mut self, now: Time) {
        while let Some(&(t, id)) = self.order.front() {
            if t.saturating_add(self.lifetime) > now {
                break;
            }
            self.order.pop_front();
            self.members.remove(&id);
        }
    }
}

/// A node's knowledge: its own pool, the natives it still has to report, and per neighbour
/// what that neighbour reported.
#[derive(Debug, Clone)]
pub struct Knowledge {
    /// The node's pool.
    pub pool: Pool,
    /// Natives to report, with their flows (a report entry covers natives of one flow).
    unreported: VecDeque<(u64, u32)>,
    /// Per neighbour (by index in `neighbours`), the natives it reported.
    reported: Vec<Pool>,
    neighbours: Vec<u32>,
    /// Whether natives heard are queued for reception reports (off: a node that never reports
    /// keeps no list of them).
    reporting: bool,
}

impl Knowledge {
    /// The knowledge of a node with these `neighbours` (node ids, any order), pools kept for
    /// `lifetime`.
    pub fn new(neighbours: &[u32], lifetime: Time) -> Self {
        let mut sorted = neighbours.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        Knowledge {
            pool: Pool::new(lifetime),
            unreported: VecDeque::new(),
            reported: vec![Pool::new(lifetime); sorted.len()],
            neighbours: sorted,
            reporting: true,
        }
    }

    /// The same knowledge for a node that sends no reception reports.
    pub fn without_reports(mut self) -> Self {
        self.reporting = false;
        self
    }

    /// The node received or overheard native `id` of flow `flow` at `now`: it joins the pool,
    /// and (if new) the natives to report.
    pub fn heard(&mut self, id: u64, flow: u32, now: Time) {
        if self.pool.add(id, now) && self.reporting {
            self.unreported.push_back((id, flow));
        }
    }

    /// Up to `max` natives to report, oldest first, into `out` (cleared), with their flows;
    /// they are then considered reported.
    pub fn take_report(&mut self, max: usize, out: &mut Vec<(u64, u32)>) {
        out.clear();
        while out.len() < max {
            match self.unreported.pop_front() {
                Some(id) => out.push(id),
                None => break,
            }
        }
    }

    /// Natives not reported yet.
    pub fn unreported(&self) -> usize {
        self.unreported.len()
    }

    /// Neighbour `from` reported holding `ids` at `now` (a node that is not a neighbour is
    /// ignored); whether that told anything new.
    pub fn on_report(&mut self, from: u32, ids: impl IntoIterator<Item = u64>, now: Time) -> bool {
        let mut news = false;
        if let Ok(i) = self.neighbours.binary_search(&from) {
            for id in ids {
                news |= self.reported[i].add(id, now);
            }
        }
        news
    }

    /// The probability that neighbour `r` holds native `id` at `now`, whose previous hop was
    /// `previous` and which this node received at `heard_at`: 1 if `r` reported it; otherwise,
    /// while the native is younger than the pool lifetime, 1 if `r` sent it and
    /// `delivery(previous, r)` (the guess) if not; 0 once it is that old.
    ///
    /// The age: the previous hop put the native in its pool when it sent it or got it, and a
    /// neighbour that overheard it when the previous hop sent it, both no later than the frame
    /// this node received it in; each pool forgets it T after (COPE's pools keep natives for T,
    /// "XORs in the air" §3.1), so by `heard_at + T` nobody holds it from that transmission. No
    /// decay before [I]: the pool forgets at once, and the gap between the overhearing and this
    /// node's reception (a MAC retry) is milliseconds against T. For a native the previous hop
    /// relayed, its copy may be older than that (it waited in its queue): the guess may still
    /// count on a copy forgotten.
    pub fn holds(
        &self,
        r: u32,
        id: u64,
        previous: u32,
        heard_at: Time,
        now: Time,
        delivery: &mut impl FnMut(u32, u32) -> f64,
    ) -> f64 {
        if let Ok(i) = self.neighbours.binary_search(&r) {
            if self.reported[i].contains(id, now) {
                return 1.0;
            }
        }
        if now >= heard_at.saturating_add(self.pool.lifetime) {
            return 0.0;
        }
        if r == previous {
            return 1.0;
        }
        delivery(previous, r).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    #[test]
    fn the_pool_forgets_a_native_its_lifetime_after_hearing_it() {
        let mut pool = Pool::new(POOL_LIFETIME);
        assert!(pool.add(7, 0));
        assert!(!pool.add(7, 100 * MILLIS), "already held");
        assert!(pool.contains(7, POOL_LIFETIME - 1));
        // A native overheard T + epsilon before the XOR that needs it arrives is gone.
        assert!(!pool.contains(7, POOL_LIFETIME));
        assert!(pool.add(8, POOL_LIFETIME));
        assert_eq!(pool.len(), 1, "7 forgotten");
        assert!(pool.add(7, POOL_LIFETIME), "heard again: new");
        assert_eq!(pool.len(), 2);
    }

    #[test]
    fn reports_are_certain_and_guesses_are_the_link_s_delivery() {
        let mut k = Knowledge::new(&[3, 1, 2], POOL_LIFETIME);
        let mut delivery = |from: u32, to: u32| if (from, to) == (1, 2) { 0.85 } else { 0.0 };
        // Native 40 came from neighbour 1 at t = 0: 1 holds it (it sent it), 2 overheard it with
        // probability 0.85, 3 cannot have.
        assert_eq!(k.holds(1, 40, 1, 0, 0, &mut delivery), 1.0);
        assert_eq!(k.holds(2, 40, 1, 0, 0, &mut delivery), 0.85);
        assert_eq!(k.holds(3, 40, 1, 0, 0, &mut delivery), 0.0);
        k.on_report(3, [40], 10 * MILLIS);
        assert_eq!(k.holds(3, 40, 1, 0, 20 * MILLIS, &mut delivery), 1.0);
        // Reports expire with the pool's lifetime.
        assert_eq!(
            k.holds(3, 40, 1, 0, 10 * MILLIS + POOL_LIFETIME, &mut delivery),
            0.0
        );
        // A report from a node that is not a neighbour is ignored.
        k.on_report(9, [41], 0);
        assert_eq!(k.holds(9, 41, 1, 0, 0, &mut delivery), 0.0);
    }

    #[test]
    fn guesses_age_with_the_pool() {
        let mut k = Knowledge::new(&[1, 2, 3], POOL_LIFETIME);
        let mut delivery = |from: u32, to: u32| if (from, to) == (1, 2) { 1.0 } else { 0.0 };
        // t = 0: this node receives native 40 from 1; 2 overhears it (a perfect link). It waits
        // in this node's queue.
        let just_before = POOL_LIFETIME - 1;
        assert_eq!(k.holds(1, 40, 1, 0, just_before, &mut delivery), 1.0);
        assert_eq!(k.holds(2, 40, 1, 0, just_before, &mut delivery), 1.0);
        // t = T: 1 and 2 put it in their pools at t = 0 at the latest; both have forgotten it.
        assert_eq!(k.holds(1, 40, 1, 0, POOL_LIFETIME, &mut delivery), 0.0);
        assert_eq!(k.holds(2, 40, 1, 0, POOL_LIFETIME, &mut delivery), 0.0);
        // A report says more: 3 reported it at 100 ms (it may have decoded it later than t = 0),
        // and that stands for T from the report.
        k.on_report(3, [40], 100 * MILLIS);
        assert_eq!(k.holds(3, 40, 1, 0, POOL_LIFETIME, &mut delivery), 1.0);
        assert_eq!(
            k.holds(3, 40, 1, 0, 100 * MILLIS + POOL_LIFETIME, &mut delivery),
            0.0
        );
    }

    #[test]
    fn natives_heard_are_reported_once_oldest_first() {
        let mut k = Knowledge::new(&[1], POOL_LIFETIME);
        for id in [5, 6, 5, 7] {
            k.heard(id, 1, 0);
        }
        let mut report = Vec::new();
        k.take_report(2, &mut report);
        assert_eq!(report, [(5, 1), (6, 1)]);
        k.take_report(8, &mut report);
        assert_eq!(report, [(7, 1)]);
        k.take_report(8, &mut report);
        assert!(report.is_empty() && k.unreported() == 0);
    }

    #[test]
    fn a_report_entry_covers_nine_natives_of_one_flow() {
        let mut report: Vec<(u64, u32)> = (0..10).map(|i| (i, 1)).collect();
        assert_eq!(report_entries(&mut report), 2);
        report.push((50, 2));
        assert_eq!(report_entries(&mut report), 3);
        assert_eq!(report_entries(&mut []), 0);
    }

    #[test]
    fn the_header_counts_its_entries() {
        assert_eq!(header_bytes(0, 0, 0), 4);
        assert_eq!(header_bytes(2, 3, 1), 4 + 16 + 27 + 7);
    }
}
