//! The sender's per-segment record of outstanding data, `[snd_una, snd_max)`, with the SACK
//! scoreboard of RFC 6675 §3-4 (`Update`, `IsLost`, `SetPipe`, `NextSeg` rules 1 and 3).
//!
//! Counters of un-SACKed lost and un-SACKed retransmitted segments are kept incrementally, so
//! `pipe` is O(1). The SACKed segments are also kept as runs (disjoint ranges), so that a SACK
//! block repeated in every ACK costs only its new segments, and the loss threshold of `IsLost`
//! is read off the top runs. `mark_losses` and the `NextSeg` searches resume where they last
//! stopped (what lies below is known not to change until a timeout), so each costs amortised
//! O(1) per segment: with a window of a million segments a recovery no longer takes a million
//! squared steps.

use std::collections::{BTreeMap, VecDeque};

use super::rate::{Delivered, RateStamp};
use crate::sim::header::tcp::SackBlock;
use crate::sim::Time;

/// What the sender knows about one outstanding segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegState {
    /// Time of the latest (re)transmission.
    pub sent_at: Time,
    /// Retransmitted at least once since it was last marked lost (Karn's rule uses `ever_retx`).
    pub retransmitted: bool,
    /// Retransmitted at any time: its ACK gives no RTT sample.
    pub ever_retx: bool,
    /// Reported received by a SACK block.
    pub sacked: bool,
    /// Deemed lost (RFC 6675 IsLost, or everything after a timeout).
    pub lost: bool,
}

/// Outstanding segments and their SACK state.
#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    base: u64,
    segs: VecDeque<SegState>,
    sacked: u32,
    lost_unsacked: u32,
    retx_unsacked: u32,
    highest_sacked: Option<u64>,
    /// The SACKed outstanding segments as disjoint, non-adjacent `[start, end)` runs, by start.
    runs: BTreeMap<u64, u64>,
    /// Scratch: runs a SACK block overlaps.
    merged: Vec<(u64, u64)>,
    /// Every un-SACKed segment below this has been marked lost.
    lost_below: u64,
    /// No segment in `[base, lost_hint)` is lost, un-SACKed and not retransmitted.
    lost_hint: u64,
    /// No segment in `[base, hole_hint)` is un-SACKed and not retransmitted.
    hole_hint: u64,
    /// With [`Scoreboard::track_rates`]: the segments newly delivered (cumulatively or by SACK)
    /// since the last [`Scoreboard::take_delivered`], for the delivery-rate estimator.
    got: Delivered,
    /// Segments marked lost over the connection's life (each marking counted once).
    lost_marked: u64,
    /// With RACK ([`Scoreboard::track_deliveries`]): each segment newly delivered since the last
    /// [`Scoreboard::take_delivered_segments`], as (sequence, latest send time, ever
    /// retransmitted).
    delivered_segs: Option<Vec<(u64, Time, bool)>>,
    /// Each outstanding segment's delivery-rate stamp, beside `segs` ([`Scoreboard::track_rates`]).
    stamps: Option<VecDeque<RateStamp>>,
    /// Whether to list the segments newly marked lost (for BBR v3).
    track_losses: bool,
    /// With `track_losses`: (stamp, `lost_marked` after the marking) of each segment marked
    /// lost since the last [`Scoreboard::drain_losses`].
    newly_lost: Vec<(RateStamp, u64)>,
}

impl Scoreboard {
    /// First outstanding segment (snd_una).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the last segment sent (snd_max).
    pub fn end(&self) -> u64 {
        self.base + self.segs.len() as u64
    }

    /// Segments outstanding (FlightSize of RFC 5681, in segments).
    pub fn outstanding(&self) -> u32 {
        self.segs.len() as u32
    }

    /// SACKed segments.
    pub fn sacked(&self) -> u32 {
        self.sacked
    }

    /// Highest SACKed segment.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.highest_sacked
    }

    /// State of outstanding segment `seq`.
    pub fn get(&self, seq: u64) -> &SegState {
        &self.segs[(seq - self.base) as usize]
    }

    /// Records the first transmission of segment `end()`.
    pub fn push_new(&mut self, now: Time) {
        self.segs.push_back(SegState {
            sent_at: now,
            retransmitted: false,
            ever_retx: false,
            sacked: false,
            lost: false,
        });
        if let Some(stamps) = self.stamps.as_mut() {
            stamps.push_back(RateStamp::default());
        }
    }

    /// Records the delivery-rate stamp of the latest (re)transmission of `seq`.
    pub fn set_stamp(&mut self, seq: u64, stamp: RateStamp) {
        if let Some(stamps) = self.stamps.as_mut() {
            stamps[(seq - self.base) as usize] = stamp;
        }
    }

    /// Keeps each segment's delivery-rate stamp and the newest delivered segment of each ACK
    /// (for a controller that reads rate samples). Called before anything is sent.
    pub fn track_rates(&mut self) {
        self.stamps = Some(VecDeque::new());
    }

    /// What the segment `seq`, at `index` from `base`, delivers to the ACK's tally.
    fn note_delivered(&mut self, seq: u64, sent_at: Time, retransmitted: bool, index: usize) {
        if let Some(stamps) = self.stamps.as_ref() {
            self.got.add(seq, sent_at, stamps[index], retransmitted);
        }
        if let Some(v) = self.delivered_segs.as_mut() {
            v.push((seq, sent_at, retransmitted));
        }
    }

    /// The segments newly delivered since the last call (and forgets them).
    pub fn take_delivered(&mut self) -> Delivered {
        std::mem::take(&mut self.got)
    }

    /// Keeps the list of each newly delivered segment (RACK reads it on every ACK).
    pub fn track_deliveries(&mut self) {
        self.delivered_segs = Some(Vec::new());
    }

    /// The segments newly delivered since the last call, swapped into `into` (cleared first).
    pub fn take_delivered_segments(&mut self, into: &mut Vec<(u64, Time, bool)>) {
        into.clear();
        if let Some(v) = self.delivered_segs.as_mut() {
            std::mem::swap(v, into);
        }
    }

    /// Un-SACKed segments marked lost (Linux's `lost_out`), retransmitted or not.
    pub fn lost_outstanding(&self) -> u32 {
        self.lost_unsacked
    }

    /// Whether more un-SACKed segments are marked lost than retransmitted (Linux's
    /// `lost_out > retrans_out`): a lost segment still waits for its retransmission.
    pub fn lost_waiting(&self) -> bool {
        self.lost_unsacked > self.retx_unsacked
    }

    /// Segments marked lost over the connection's life.
    pub fn lost_marked(&self) -> u64 {
        self.lost_marked
    }

    /// Starts listing the segments newly marked lost ([`Scoreboard::drain_losses`]).
    pub fn track_losses(&mut self) {
        self.track_losses = true;
    }

    /// The segments marked lost since the last call, in marking order: the stamp of each and
    /// `lost_marked` just after it was marked.
    pub fn drain_losses(&mut self) -> std::vec::Drain<'_, (RateStamp, u64)> {
        self.newly_lost.drain(..)
    }

    /// Records a retransmission of outstanding segment `seq`.
    pub fn mark_retransmitted(&mut self, seq: u64, now: Time) {
        let s = &mut self.segs[(seq - self.base) as usize];
        s.sent_at = now;
        s.ever_retx = true;
        if !s.retransmitted && !s.sacked {
            self.retx_unsacked += 1;
        }
        s.retransmitted = true;
    }

    /// Removes segments below `ack` (a cumulative ACK). Returns the state of the newest removed
    /// segment, from which the RTT is sampled.
    pub fn advance(&mut self, ack: u64) -> Option<SegState> {
        let mut last = None;
        let first = self.base;
        // Only the rate estimator and RACK need each delivered segment (this loop runs for every
        // segment a connection sends).
        let itemise = self.stamps.is_some() || self.delivered_segs.is_some();
        while self.base < ack {
            let s = self.segs.pop_front().expect("ack beyond snd_max");
            if s.sacked {
                self.sacked -= 1;
            } else {
                self.lost_unsacked -= s.lost as u32;
                self.retx_unsacked -= s.retransmitted as u32;
                if itemise {
                    let index = (self.base - first) as usize;
                    self.note_delivered(self.base, s.sent_at, s.ever_retx, index);
                }
            }
            self.base += 1;
            last = Some(s);
        }
        let removed = (self.base - first) as u32;
        if let Some(stamps) = self.stamps.as_mut() {
            stamps.drain(..removed as usize);
        }
        if self.highest_sacked.is_some_and(|h| h < self.base) {
            self.highest_sacked = None;
        }
        // Runs below the new base go; one straddling it is cut.
        while let Some((&start, &end)) = self.runs.first_key_value() {
            if start >= self.base {
                break;
            }
            self.runs.remove(&start);
            if end > self.base {
                self.runs.insert(self.base, end);
                break;
            }
        }
        last
    }

    /// RFC 6675 `Update()`: marks the segments covered by `blocks` as SACKed. Returns how many
    /// segments became SACKed.
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> u32 {
        let mut newly = 0;
        for b in blocks {
            let start = b.start.max(self.base);
            let end = b.end.min(self.end());
            if end <= start {
                continue;
            }
            newly += self.sack_range(start, end);
            let top = end - 1;
            if self.highest_sacked.is_none_or(|h| top > h) {
                self.highest_sacked = Some(top);
            }
        }
        newly
    }

    /// SACKs `[start, end)` (within the window): merges it with the runs it overlaps or
    /// touches, and updates only the segments in the gaps between them.
    fn sack_range(&mut self, start: u64, end: u64) -> u32 {
        self.merged.clear();
        if let Some((&s, &e)) = self.runs.range(..start).next_back() {
            if e >= start {
                self.merged.push((s, e));
            }
        }
        self.merged
            .extend(self.runs.range(start..=end).map(|(&s, &e)| (s, e)));
        let mut newly = 0;
        let mut cursor = start;
        for i in 0..self.merged.len() {
            let (s, e) = self.merged[i];
            newly += self.sack_segments(cursor, s.min(end));
            cursor = cursor.max(e);
            self.runs.remove(&s);
        }
        newly += self.sack_segments(cursor, end);
        let lo = self.merged.first().map_or(start, |&(s, _)| s.min(start));
        let hi = self.merged.last().map_or(end, |&(_, e)| e.max(end));
        self.runs.insert(lo, hi);
        newly
    }

    /// Marks the segments of `[start, end)` SACKed (none of them is yet).
    fn sack_segments(&mut self, start: u64, end: u64) -> u32 {
        for seq in start..end {
            let s = &mut self.segs[(seq - self.base) as usize];
            debug_assert!(!s.sacked, "segment {seq} is in no run but SACKed");
            s.sacked = true;
            self.sacked += 1;
            self.lost_unsacked -= s.lost as u32;
            self.retx_unsacked -= s.retransmitted as u32;
            let (sent_at, retx) = (s.sent_at, s.ever_retx);
            self.note_delivered(seq, sent_at, retx, (seq - self.base) as usize);
        }
        end.saturating_sub(start) as u32
    }

    /// The `dupthresh`-th highest SACKed segment: exactly the segments below it have at least
    /// `dupthresh` SACKed segments above them. `None` if fewer are SACKed.
    fn loss_threshold(&self, dupthresh: u32) -> Option<u64> {
        let mut need = dupthresh as u64;
        if need == 0 {
            return Some(self.end());
        }
        for (&start, &end) in self.runs.iter().rev() {
            if end - start >= need {
                return Some(end - need);
            }
            need -= end - start;
        }
        None
    }

    /// RFC 6675 `IsLost(seq)`: at least `dupthresh` SACKed segments lie above `seq`.
    pub fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        if self.sacked < dupthresh || seq < self.base || seq >= self.end() {
            return false;
        }
        self.loss_threshold(dupthresh).is_some_and(|t| seq < t)
    }

    /// Marks every un-SACKed segment for which `IsLost` holds. The threshold only rises while
    /// segments are outstanding (SACKs are never taken back), so the segments below the previous
    /// one are done already.
    pub fn mark_losses(&mut self, dupthresh: u32) {
        if self.sacked < dupthresh {
            return;
        }
        let Some(threshold) = self.loss_threshold(dupthresh) else {
            return;
        };
        for seq in self.lost_below.max(self.base)..threshold {
            self.mark_lost(seq);
        }
        self.lost_below = self.lost_below.max(threshold);
    }

    /// Marks one segment lost (the first segment retransmitted on entering recovery).
    pub fn mark_lost(&mut self, seq: u64) {
        let index = (seq - self.base) as usize;
        let s = &mut self.segs[index];
        if !s.lost && !s.sacked {
            s.lost = true;
            self.lost_unsacked += 1;
            self.lost_marked += 1;
            self.lost_hint = self.lost_hint.min(seq);
            if self.track_losses {
                let stamp = self.stamp_at(index);
                self.newly_lost.push((stamp, self.lost_marked));
            }
        }
    }

    /// RACK deems the latest transmission of `seq` lost (RFC 8985 §6.2 step 5): the segment is
    /// lost and, if it had been retransmitted, waits for another retransmission (Linux's
    /// `tcp_mark_skb_lost`; each marking is counted).
    pub fn mark_lost_again(&mut self, seq: u64) {
        let s = &mut self.segs[(seq - self.base) as usize];
        if s.sacked {
            return;
        }
        if !s.lost {
            s.lost = true;
            self.lost_unsacked += 1;
        }
        if s.retransmitted {
            s.retransmitted = false;
            self.retx_unsacked -= 1;
        }
        self.lost_marked += 1;
        self.lost_hint = self.lost_hint.min(seq);
        if self.track_losses {
            let stamp = self.stamp_at((seq - self.base) as usize);
            self.newly_lost.push((stamp, self.lost_marked));
        }
    }

    /// The delivery-rate stamp of the segment at `index` from `base` (a blank one without
    /// [`Scoreboard::track_rates`]).
    fn stamp_at(&self, index: usize) -> RateStamp {
        self.stamps
            .as_ref()
            .map_or_else(RateStamp::default, |st| st[index])
    }

    /// After a retransmission timeout: every un-SACKed segment is lost and none counts as
    /// retransmitted any more (RFC 6675 §5.1; SACK information is kept).
    pub fn mark_all_lost(&mut self) {
        let stamps = self.stamps.as_ref();
        for (index, s) in self.segs.iter_mut().enumerate() {
            if !s.sacked {
                if !s.lost {
                    self.lost_marked += 1;
                    if self.track_losses {
                        let stamp = stamps.map_or_else(RateStamp::default, |st| st[index]);
                        self.newly_lost.push((stamp, self.lost_marked));
                    }
                }
                s.lost = true;
                s.retransmitted = false;
            }
        }
        self.lost_unsacked = self.outstanding() - self.sacked;
        self.retx_unsacked = 0;
        self.lost_below = self.end();
        self.lost_hint = self.base;
        self.hole_hint = self.base;
    }

    /// RFC 6675 `SetPipe()`: segments believed to be in the network.
    pub fn pipe(&self) -> u32 {
        (self.outstanding() - self.sacked) - self.lost_unsacked + self.retx_unsacked
    }

    /// NextSeg rule 1: the first lost, un-SACKed segment not yet retransmitted. The search
    /// starts where the previous one ended (see `lost_hint`).
    pub fn first_lost_unretransmitted(&mut self) -> Option<u64> {
        if self.lost_unsacked == 0 {
            return None;
        }
        let from = self.lost_hint.max(self.base);
        let found = self
            .segs
            .range((from - self.base) as usize..)
            .position(|s| s.lost && !s.sacked && !s.retransmitted)
            .map(|i| from + i as u64);
        self.lost_hint = found.unwrap_or(self.end());
        found
    }

    /// NextSeg rule 3: the first un-SACKed segment below the highest SACKed one that has not
    /// been retransmitted. The search starts where the previous one ended (see `hole_hint`).
    pub fn first_hole_unretransmitted(&mut self) -> Option<u64> {
        let top = self.highest_sacked?;
        let from = self.hole_hint.max(self.base);
        if from >= top {
            return None;
        }
        let found = self
            .segs
            .range((from - self.base) as usize..(top - self.base) as usize)
            .position(|s| !s.sacked && !s.retransmitted)
            .map(|i| from + i as u64);
        self.hole_hint = found.unwrap_or(top);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for _ in 0..n {
            b.push_new(0);
        }
        b
    }

    #[test]
    fn sack_marks_holes_lost_after_dupthresh_segments() {
        let mut b = board(10);
        // Segment 0 lost, 1..4 SACKed.
        assert_eq!(b.apply_sack(&[SackBlock { start: 1, end: 4 }]), 3);
        b.mark_losses(3);
        assert!(b.is_lost(0, 3));
        assert!(!b.is_lost(1, 3));
        assert_eq!(b.first_lost_unretransmitted(), Some(0));
        // pipe: 10 outstanding - 3 sacked - 1 lost = 6.
        assert_eq!(b.pipe(), 6);
        b.mark_retransmitted(0, 5);
        assert_eq!(b.pipe(), 7);
        assert_eq!(b.first_lost_unretransmitted(), None);
        let last = b.advance(4).unwrap();
        assert!(last.sacked);
        assert_eq!(b.outstanding(), 6);
        assert_eq!(b.pipe(), 6);
        assert_eq!(b.highest_sacked(), None);
    }

    #[test]
    fn rule_three_finds_unretransmitted_holes_below_highest_sack() {
        let mut b = board(6);
        b.apply_sack(&[SackBlock { start: 4, end: 5 }]);
        assert_eq!(b.first_hole_unretransmitted(), Some(0));
        b.mark_retransmitted(0, 1);
        assert_eq!(b.first_hole_unretransmitted(), Some(1));
    }

    proptest! {
        /// The incremental pipe equals RFC 6675's SetPipe computed from scratch, whatever the
        /// sequence of SACKs, losses, retransmissions, timeouts and cumulative ACKs.
        #[test]
        fn pipe_matches_setpipe(ops in proptest::collection::vec((0u8..6, 0u64..40, 0u64..6), 1..80)) {
            let mut b = Scoreboard::default();
            for (op, x, len) in ops {
                match op {
                    0 => { for _ in 0..(x % 5 + 1) { b.push_new(0); } }
                    1 => { let s = b.base() + x; b.apply_sack(&[SackBlock { start: s, end: s + len }]); }
                    2 => b.mark_losses(3),
                    3 => { if b.outstanding() > 0 { let s = b.base() + x % b.outstanding() as u64; b.mark_retransmitted(s, 0); } }
                    4 => { let a = (b.base() + x % 4).min(b.end()); b.advance(a); }
                    _ => b.mark_all_lost(),
                }
                let expect: u32 = (b.base()..b.end()).map(|q| {
                    let s = b.get(q);
                    if s.sacked { 0 } else { (!s.lost) as u32 + s.retransmitted as u32 }
                }).sum();
                prop_assert_eq!(b.pipe(), expect);
                let sacked = (b.base()..b.end()).filter(|&q| b.get(q).sacked).count() as u32;
                prop_assert_eq!(b.sacked(), sacked);
            }
        }

        /// The runs, thresholds and resumed searches give what RFC 6675's definitions give when
        /// evaluated from scratch over the per-segment flags, whatever the sequence of
        /// operations (SACKs overlapping, touching and repeating earlier ones included).
        #[test]
        fn incremental_rules_match_the_definitions(
            ops in proptest::collection::vec((0u8..8, 0u64..40, 0u64..8), 1..120),
            dupthresh in 1u32..4,
        ) {
            let mut b = Scoreboard::default();
            for (op, x, len) in ops {
                match op {
                    0 => { for _ in 0..(x % 5 + 1) { b.push_new(0); } }
                    1 | 2 => {
                        let s = b.base() + x;
                        let blocks = [SackBlock { start: s, end: s + len },
                                      SackBlock { start: s + len + 1, end: s + 2 * len + 1 }];
                        let before = b.sacked();
                        let newly = b.apply_sack(&blocks[..op as usize]);
                        prop_assert_eq!(b.sacked(), before + newly);
                    }
                    3 => {
                        let expect = naive_lost(&b, dupthresh);
                        b.mark_losses(dupthresh);
                        let lost: Vec<bool> = (b.base()..b.end()).map(|q| b.get(q).lost).collect();
                        prop_assert_eq!(lost, expect);
                    }
                    4 => {
                        if let Some(q) = b.first_lost_unretransmitted().or(b.first_hole_unretransmitted()) {
                            b.mark_retransmitted(q, 0);
                        }
                    }
                    5 => { let a = (b.base() + x % 4).min(b.end()); b.advance(a); }
                    6 => b.mark_all_lost(),
                    _ => { if b.outstanding() > 0 { let q = b.base() + x % b.outstanding() as u64; b.mark_lost(q); } }
                }
                for q in b.base()..b.end() {
                    let above = (q + 1..b.end()).filter(|&r| b.get(r).sacked).count() as u32;
                    prop_assert_eq!(b.is_lost(q, dupthresh), above >= dupthresh, "IsLost({})", q);
                }
                let rule1 = (b.base()..b.end())
                    .find(|&q| { let s = b.get(q); s.lost && !s.sacked && !s.retransmitted });
                prop_assert_eq!(b.first_lost_unretransmitted(), rule1);
                let top = (b.base()..b.end()).filter(|&q| b.get(q).sacked).max();
                let rule3 = top.and_then(|t| (b.base()..t)
                    .find(|&q| { let s = b.get(q); !s.sacked && !s.retransmitted }));
                prop_assert_eq!(b.first_hole_unretransmitted(), rule3);
                prop_assert_eq!(b.highest_sacked(), top);
            }
        }
    }

    /// The lost flags after RFC 6675's marking, computed from scratch: every un-SACKed segment
    /// with at least `dupthresh` SACKed segments above it becomes lost.
    fn naive_lost(b: &Scoreboard, dupthresh: u32) -> Vec<bool> {
        (b.base()..b.end())
            .map(|q| {
                let s = b.get(q);
                let above = (q + 1..b.end()).filter(|&r| b.get(r).sacked).count() as u32;
                s.lost || (!s.sacked && b.sacked() >= dupthresh && above >= dupthresh)
            })
            .collect()
    }
}
