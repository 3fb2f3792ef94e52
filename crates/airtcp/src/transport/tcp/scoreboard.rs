//! The sender's per-segment record of outstanding data, `[snd_una, snd_max)`, with the SACK
//! scoreboard of RFC 6675 §3-4 (`Update`, `IsLost`, `SetPipe`, `NextSeg` rules 1 and 3).
//!
//! Counters of un-SACKed lost and un-SACKed retransmitted segments are kept incrementally, so
//! `pipe` is O(1); `mark_losses` scans the window, and only runs when SACK blocks are present.

use std::collections::VecDeque;

use super::segment::SackBlock;
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
        while self.base < ack {
            let s = self.segs.pop_front().expect("ack beyond snd_max");
            if s.sacked {
                self.sacked -= 1;
            } else {
                self.lost_unsacked -= s.lost as u32;
                self.retx_unsacked -= s.retransmitted as u32;
            }
            self.base += 1;
            last = Some(s);
        }
        if self.highest_sacked.is_some_and(|h| h < self.base) {
            self.highest_sacked = None;
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
            for seq in start..end {
                let s = &mut self.segs[(seq - self.base) as usize];
                if !s.sacked {
                    s.sacked = true;
                    self.sacked += 1;
                    self.lost_unsacked -= s.lost as u32;
                    self.retx_unsacked -= s.retransmitted as u32;
                    newly += 1;
                }
            }
            if end > start {
                let top = end - 1;
                if self.highest_sacked.is_none_or(|h| top > h) {
                    self.highest_sacked = Some(top);
                }
            }
        }
        newly
    }

    /// RFC 6675 `IsLost(seq)`: at least `dupthresh` SACKed segments lie above `seq`.
    pub fn is_lost(&self, seq: u64, dupthresh: u32) -> bool {
        if self.sacked < dupthresh || seq < self.base || seq >= self.end() {
            return false;
        }
        let from = (seq - self.base) as usize + 1;
        self.segs.iter().skip(from).filter(|s| s.sacked).count() as u32 >= dupthresh
    }

    /// Marks every un-SACKed segment for which `IsLost` holds.
    pub fn mark_losses(&mut self, dupthresh: u32) {
        if self.sacked < dupthresh {
            return;
        }
        let mut sacked_above = 0u32;
        for s in self.segs.iter_mut().rev() {
            if s.sacked {
                sacked_above += 1;
            } else if sacked_above >= dupthresh && !s.lost {
                s.lost = true;
                self.lost_unsacked += 1;
            }
        }
    }

    /// Marks one segment lost (the first segment retransmitted on entering recovery).
    pub fn mark_lost(&mut self, seq: u64) {
        let s = &mut self.segs[(seq - self.base) as usize];
        if !s.lost && !s.sacked {
            s.lost = true;
            self.lost_unsacked += 1;
        }
    }

    /// After a retransmission timeout: every un-SACKed segment is lost and none counts as
    /// retransmitted any more (RFC 6675 §5.1; SACK information is kept).
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if !s.sacked {
                s.lost = true;
                s.retransmitted = false;
            }
        }
        self.lost_unsacked = self.outstanding() - self.sacked;
        self.retx_unsacked = 0;
    }

    /// RFC 6675 `SetPipe()`: segments believed to be in the network.
    pub fn pipe(&self) -> u32 {
        (self.outstanding() - self.sacked) - self.lost_unsacked + self.retx_unsacked
    }

    /// NextSeg rule 1: the first lost, un-SACKed segment not yet retransmitted.
    pub fn first_lost_unretransmitted(&self) -> Option<u64> {
        if self.lost_unsacked == 0 {
            return None;
        }
        self.segs
            .iter()
            .position(|s| s.lost && !s.sacked && !s.retransmitted)
            .map(|i| self.base + i as u64)
    }

    /// NextSeg rule 3: the first un-SACKed segment below the highest SACKed one that has not
    /// been retransmitted.
    pub fn first_hole_unretransmitted(&self) -> Option<u64> {
        let top = self.highest_sacked?;
        self.segs
            .iter()
            .take((top - self.base) as usize)
            .position(|s| !s.sacked && !s.retransmitted)
            .map(|i| self.base + i as u64)
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
    }
}
