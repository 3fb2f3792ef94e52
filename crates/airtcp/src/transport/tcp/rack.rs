//! RACK-TLP loss detection: RFC 8985 (Cheng, Cardwell, Dukkipati, Jha, February 2021), as
//! Linux runs it (`net/ipv4/tcp_recovery.c`, `tcp_send_loss_probe` / `tcp_schedule_loss_probe`
//! in `tcp_output.c`, `tcp_process_tlp_ack` in `tcp_input.c`), with `rack_tlp: true` (SACK only).
//!
//! **RACK** (Recent ACKnowledgment, §6) deems a segment lost when a segment sent after it has
//! been delivered and more than an RTT plus a reordering window has passed since it was sent:
//! time, not a count of duplicate ACKs. Per ACK (§6.2), after the ACK's SACK blocks and
//! cumulative point are applied:
//!
//! 1. min_RTT: the sender's RTT estimator ([`super::rtt`]), whose minimum is taken over the
//!    connection's life (Linux keeps a 5-minute windowed minimum).
//! 2. `RACK.xmit_ts`, `RACK.end_seq`, `RACK.rtt` follow the most recently (re)sent of the
//!    segments this ACK newly delivered (`RACK_sent_after`: later send time, higher sequence on
//!    a tie), skipping a retransmitted one whose ACK came sooner than min_RTT after the
//!    retransmission: that ACK was for the original (§6.2 step 2, Linux's `tcp_rack_advance`).
//! 3. Reordering: a newly delivered segment never retransmitted below `RACK.fack`, the highest
//!    delivered so far, sets `RACK.reordering_seen` (§6.2 step 3).
//! 4. The reordering window (§6.2 step 4, Linux's `tcp_rack_reo_wnd`):
//!    `reo_wnd = 0` if reordering was never seen and the sender is in fast recovery or after a
//!    timeout, or has at least DupThresh segments SACKed; otherwise
//!    `reo_wnd = min(reo_wnd_mult x min_RTT / 4, SRTT)`. `reo_wnd_mult` (Linux's
//!    `reo_wnd_steps`, at most 255) grows by one per round trip that reports a DSACK and falls back
//!    to 1 after [`REO_WND_PERSIST`] (16) recoveries without one.
//! 5. Every segment not yet delivered that was sent before `RACK.xmit_ts` (and is not already
//!    lost and waiting for its retransmission) is lost once
//!    `xmit_ts + RACK.rtt + reo_wnd <= now` (§6.2 step 5, Linux's `tcp_rack_detect_loss`); for
//!    the others the **reordering timer** is armed for the longest remaining wait, and on expiry
//!    the same test runs again (§6.3, Linux's `tcp_rack_reo_timeout`). Steps 4-5 run only on an
//!    ACK that advanced the RACK state (Linux's `rack.advanced`).
//!
//! A segment RACK deems lost is a lost segment of the RFC 6675 scoreboard: it is retransmitted
//! before new data (NextSeg rule 1) and, outside recovery, opens fast recovery (Linux's
//! `tcp_time_to_recover`: `lost_out > 0`). As in Linux with RACK on (`tcp_recovery` = 1, the
//! default), RACK replaces the DupThresh rules for SACK flows: no `IsLost` marking, no recovery on
//! the `dupthresh`-th duplicate ACK (DupThresh survives only in step 4), and no retransmission of
//! holes not deemed lost (NextSeg rule 3; Linux removed these "forward retransmissions" in 4.13).
//! A lost retransmission is found the same way as a lost original: its newer `xmit_ts` waits
//! for a segment sent after it.
//!
//! **TLP** (Tail Loss Probe, §7) turns a tail loss, which no later ACK would reveal, into one
//! that RACK sees:
//!
//! - Scheduling (§7.2, Linux's `tcp_schedule_loss_probe`): on an ACK and after new data is sent,
//!   in the open state (not in recovery, not after a timeout), with data outstanding and no probe
//!   outstanding, the probe timeout `PTO = 2 SRTT`, plus [`WC_DEL_ACK`] (WCDelAckT, 200 ms) when
//!   one segment is outstanding, 1 s ([`PTO_NO_SRTT`]) before the first RTT sample; never later
//!   than the retransmission timer would fire.
//! - Expiry (§7.3, Linux's `tcp_send_loss_probe`): one new segment if the application and the
//!   receiver window allow, beyond cwnd; otherwise a retransmission of the highest segment sent.
//!   `TLP.end_seq` = snd.nxt, and the retransmission timer restarts from now.
//! - The probe's ACK (§7.4, Linux's `tcp_process_tlp_ack`): a probe of new data ends the episode
//!   when it is acknowledged. A probe that was a retransmission: an ACK beyond `TLP.end_seq`
//!   means the probe repaired a loss, and the congestion response of a fast recovery is applied
//!   at once (ssthresh from the controller, cwnd = ssthresh: Linux's CWR
//!   `tcp_init_cwnd_reduction` + `tcp_end_cwnd_reduction`); a pure duplicate ACK at `TLP.end_seq`
//!   means both the original and the probe arrived (no loss). Fast recovery or a timeout ends the
//!   episode (they respond themselves).
//!
//! The reordering timer and the probe timer share the sender's one timer with the retransmission
//! and pacing deadlines, as Linux multiplexes `ICSK_TIME_REO_TIMEOUT` and `ICSK_TIME_LOSS_PROBE`
//! on the slot of `ICSK_TIME_RETRANS` (§8).
//!
//! Deviations:
//! - **No DSACK.** airtcp's receiver sends no DSACK (RFC 2883), so neither the reordering window's
//!   DSACK growth (§6.2 step 4) nor the TLP's DSACK test (§7.4) gets its signal from the receiver.
//!   The mechanism is kept and fed by what the sender can infer itself. (i) An ACK that newly
//!   delivers a retransmitted segment sooner than min_RTT after the retransmission was for the
//!   original, so the retransmission was spurious. (ii) The receiver acknowledges a duplicate
//!   segment at once (RFC 5681 §4.2) where a DSACK receiver would send the DSACK: an ACK that
//!   neither advances snd.una nor SACKs anything new while data is outstanding reports a
//!   duplicate, the block a DSACK would carry missing. Either is taken as the DSACK of §6.2
//!   step 4 (`reo_wnd_mult` + 1 once per round trip, `reo_wnd_persist` = 16) and as reordering
//!   seen (Linux's `tcp_check_sack_reordering` when a DSACK reports a segment SACKed before, or
//!   when a delayed original fills a hole in `tcp_try_undo_partial`). A replayed ACK that is not
//!   a duplicate's (Horizon's fake triple duplicate ACK, paper 003 §5.3.3) is read the same way;
//!   RACK-TLP ignores its duplicate count anyway, so Horizon's congestion signal does not reach
//!   a RACK sender. For TLP the pure-duplicate-ACK test above is the one Linux applies
//!   without DSACK; a receiver that delays the ACK of an original that arrived before the probe
//!   sends no duplicate, and the episode then counts as a loss (as Linux without DSACK).
//! - No undo of a window reduction found spurious (Eifel, DSACK undo); no timestamps.
//! - The reordering timer and the PTO are not rounded to jiffies (Linux adds `TCP_TIMEOUT_MIN`,
//!   2 jiffies, to both); `RACK.rtt` is the RTT of the segment `RACK.xmit_ts` comes from (the
//!   RFC), where Linux keeps the last one processed.
//! - After a timeout every un-SACKed segment is marked lost, as without RACK (Linux, with RACK,
//!   marks the first and those whose RACK timeout with a zero window has passed).

use std::collections::BTreeSet;

use crate::sim::time::MILLIS;
use crate::sim::Time;

/// WCDelAckT of RFC 8985 §7.2: the worst-case delayed-ACK time added to the PTO when one
/// segment is outstanding (Linux's `TCP_RTO_MIN`, 200 ms).
pub const WC_DEL_ACK: Time = 200 * MILLIS;
/// The PTO before the first RTT sample (RFC 8985 §7.2: 1 s; Linux's `TCP_TIMEOUT_INIT`).
pub const PTO_NO_SRTT: Time = 1000 * MILLIS;
/// Recoveries a grown reordering window persists without DSACK (RFC 8985 §6.2 step 4; Linux's
/// `TCP_RACK_RECOVERY_THRESH`).
pub const REO_WND_PERSIST: u32 = 16;
/// The largest `reo_wnd_mult` (Linux's `reo_wnd_steps` is a u8).
pub const MAX_REO_WND_MULT: u32 = 255;

/// One segment newly delivered by an ACK: (sequence, time of its latest transmission, whether it
/// was ever retransmitted).
pub type DeliveredSeg = (u64, Time, bool);

/// RACK's state (RFC 8985 §5.2 names, sequence numbers in segments).
#[derive(Debug, Clone)]
pub struct Rack {
    /// `RACK.xmit_ts` and `RACK.end_seq` (the segment's sequence number): the most recently sent
    /// segment delivered so far.
    newest: Option<(Time, u64)>,
    /// `RACK.rtt`: the RTT of that segment.
    rtt: Time,
    /// `RACK.fack`: one past the highest segment delivered so far.
    fack: u64,
    /// `RACK.reordering_seen`.
    reordering_seen: bool,
    /// `RACK.reo_wnd_mult`.
    reo_wnd_mult: u32,
    /// `RACK.reo_wnd_persist`.
    reo_wnd_persist: u32,
    /// `RACK.dsack_round`: snd.nxt when the window last grew.
    dsack_round: Option<u64>,
    /// An ACK advanced the RACK state since the last loss detection.
    advanced: bool,
    /// The segments RACK still has to judge: outstanding, not delivered, and not lost and waiting
    /// for a retransmission, by (latest send time, sequence) (Linux's `tsorted_sent_queue`).
    tsorted: BTreeSet<(Time, u64)>,
    /// The reordering timer's deadline.
    pub deadline: Option<Time>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            newest: None,
            rtt: 0,
            fack: 0,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            advanced: false,
            tsorted: BTreeSet::new(),
            deadline: None,
        }
    }
}

/// `RACK_sent_after(t1, seq1, t2, seq2)`.
fn sent_after(a: (Time, u64), b: (Time, u64)) -> bool {
    a > b
}

impl Rack {
    /// Whether reordering has been seen (§6.2 step 3, or a spurious retransmission inferred).
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// The current `reo_wnd_mult`.
    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }

    /// Segment `seq` is (re)sent at `now`; `previous` is the time of its previous transmission.
    pub fn on_send(&mut self, seq: u64, previous: Option<Time>, now: Time) {
        if let Some(t) = previous {
            self.tsorted.remove(&(t, seq));
        }
        self.tsorted.insert((now, seq));
    }

    /// §6.2 steps 2 and 3 and the DSACK part of step 4 for the segments one ACK newly
    /// delivered, in any order. `min_rtt` is the sender's minimum RTT (`Time::MAX` before any
    /// sample), `snd_una` / `snd_nxt` are after the ACK; `duplicate`: the ACK reports a duplicate
    /// segment (the stand-in for a DSACK, see the module's deviations). Returns how many of the
    /// segments were inferred spurious retransmissions.
    pub fn on_delivered(
        &mut self,
        now: Time,
        min_rtt: Time,
        delivered: &[DeliveredSeg],
        snd_una: u64,
        snd_nxt: u64,
        duplicate: bool,
    ) -> u32 {
        let mut spurious = 0;
        // Step 3 goes up the sequence space; the scoreboard reports each run in order, and a
        // cumulative ACK's segments before the SACKed ones, so a sort is rarely work.
        let mut in_order = true;
        for w in delivered.windows(2) {
            in_order &= w[0].0 < w[1].0;
        }
        let mut sorted;
        let segs = if in_order {
            delivered
        } else {
            sorted = delivered.to_vec();
            sorted.sort_unstable_by_key(|d| d.0);
            &sorted[..]
        };
        for &(seq, sent_at, retx) in segs {
            self.tsorted.remove(&(sent_at, seq));
            let rtt = now.saturating_sub(sent_at);
            if retx && rtt < min_rtt {
                // Step 2: the ACK was for the original; the retransmission was spurious.
                spurious += 1;
            } else if self.newest.is_none_or(|n| sent_after((sent_at, seq), n)) {
                self.newest = Some((sent_at, seq));
                self.rtt = rtt;
                self.advanced = true;
            }
            // Step 3.
            if seq + 1 > self.fack {
                self.fack = seq + 1;
            } else if !retx {
                self.reordering_seen = true;
            }
        }
        // Step 4's DSACK rounds, with an inferred spurious retransmission for the DSACK.
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if spurious > 0 || duplicate {
            self.reordering_seen = true;
            if self.dsack_round.is_none() {
                self.dsack_round = Some(snd_nxt);
                self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(MAX_REO_WND_MULT);
                self.reo_wnd_persist = REO_WND_PERSIST;
            }
        }
        spurious
    }

    /// Fast recovery or the recovery after a timeout ended (§6.2 step 4: a grown window lasts
    /// [`REO_WND_PERSIST`] recoveries without DSACK; Linux's `tcp_try_undo_recovery`).
    pub fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// §6.2 step 4: the reordering window. `recovering`: in fast recovery or after a timeout;
    /// `sacked`: segments SACKed; `srtt` `None` before the first sample (then 0, as Linux's
    /// `srtt_us` = 0).
    pub fn reo_wnd(
        &self,
        recovering: bool,
        sacked: u32,
        dupthresh: u32,
        min_rtt: Time,
        srtt: Option<Time>,
    ) -> Time {
        if !self.reordering_seen && (recovering || sacked >= dupthresh) {
            return 0;
        }
        let Some(srtt) = srtt else { return 0 };
        (min_rtt / 4)
            .saturating_mul(self.reo_wnd_mult as Time)
            .min(srtt)
    }

    /// Whether an ACK advanced the RACK state since the last detection (Linux's
    /// `rack.advanced`).
    pub fn advanced(&self) -> bool {
        self.advanced
    }

    /// §6.2 step 5 (and §6.3 on the timer's expiry): calls `lost` for every segment deemed lost
    /// (and stops judging it until it is retransmitted), and arms or cancels the reordering
    /// timer for the others.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Time, mut lost: impl FnMut(u64)) {
        self.advanced = false;
        let mut timeout: Time = 0;
        let Some(newest) = self.newest else {
            self.deadline = None;
            return;
        };
        while let Some(&(sent_at, seq)) = self.tsorted.first() {
            if !sent_after(newest, (sent_at, seq)) {
                break;
            }
            let due = sent_at.saturating_add(self.rtt).saturating_add(reo_wnd);
            if due <= now {
                self.tsorted.pop_first();
                lost(seq);
            } else {
                // Later-sent segments wait longer: the last one sent before RACK.xmit_ts waits
                // the longest (the RFC's max over the remaining times).
                if let Some(&(t, _)) = self.tsorted.range(..newest).next_back() {
                    timeout = t.saturating_add(self.rtt).saturating_add(reo_wnd) - now;
                }
                break;
            }
        }
        self.deadline = (timeout > 0).then(|| now + timeout);
    }

    /// A retransmission timeout: every un-SACKed segment is lost and waits for its
    /// retransmission, so none is left to judge; the reordering timer stops.
    pub fn on_rto(&mut self) {
        self.tsorted.clear();
        self.deadline = None;
    }

    /// Nothing is outstanding any more.
    pub fn on_idle(&mut self) {
        self.tsorted.clear();
        self.deadline = None;
    }
}

/// TLP's state (RFC 8985 §7).
#[derive(Debug, Clone, Default)]
pub struct Tlp {
    /// The probe timer's deadline (PTO).
    pub deadline: Option<Time>,
    /// `TLP.end_seq`: snd.nxt when the outstanding probe was sent (Linux's `tlp_high_seq`).
    pub end_seq: Option<u64>,
    /// Whether the outstanding probe was a retransmission (Linux's `tlp_retrans`).
    pub is_retrans: bool,
}

/// What the ACK of a probe tells (RFC 8985 §7.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlpVerdict {
    /// No probe outstanding, or its episode is not over.
    Pending,
    /// The episode is over without a loss to respond to.
    NoLoss,
    /// The probe repaired a loss: respond as to a fast recovery.
    Loss,
}

impl Tlp {
    /// §7.2: the probe timeout, `srtt` `None` before the first sample, `outstanding` segments,
    /// `rto_left` the time until the retransmission timer fires (if it runs).
    pub fn pto(srtt: Option<Time>, outstanding: u32, rto_left: Option<Time>) -> Time {
        let pto = match srtt {
            Some(s) if outstanding == 1 => 2 * s + WC_DEL_ACK,
            Some(s) => 2 * s,
            None => PTO_NO_SRTT,
        };
        rto_left.map_or(pto, |r| pto.min(r))
    }

    /// §7.4 for an ACK of `ack` that advanced snd.una (`advanced`) or SACKed new data
    /// (`sacked`); Linux's `tcp_process_tlp_ack` without DSACK.
    pub fn on_ack(&mut self, ack: u64, advanced: bool, sacked: bool) -> TlpVerdict {
        let Some(end) = self.end_seq else {
            return TlpVerdict::Pending;
        };
        if ack < end {
            return TlpVerdict::Pending;
        }
        let verdict = if !self.is_retrans {
            TlpVerdict::NoLoss
        } else if ack > end {
            TlpVerdict::Loss
        } else if !advanced && !sacked {
            TlpVerdict::NoLoss
        } else {
            return TlpVerdict::Pending;
        };
        self.end_seq = None;
        verdict
    }

    /// Fast recovery or a timeout began: the episode ends, the probe timer stops.
    pub fn cancel(&mut self) {
        self.end_seq = None;
        self.deadline = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = MILLIS;

    #[test]
    fn reo_wnd_follows_step_four() {
        let mut r = Rack::default();
        // Reordering not seen: 0 in recovery or with DupThresh segments SACKed.
        assert_eq!(r.reo_wnd(true, 0, 3, 40 * MS, Some(50 * MS)), 0);
        assert_eq!(r.reo_wnd(false, 3, 3, 40 * MS, Some(50 * MS)), 0);
        assert_eq!(r.reo_wnd(false, 2, 3, 40 * MS, Some(50 * MS)), 10 * MS);
        // No SRTT yet: 0.
        assert_eq!(r.reo_wnd(false, 0, 3, Time::MAX, None), 0);
        // Reordering seen: min_rtt / 4 even in recovery.
        r.reordering_seen = true;
        assert_eq!(r.reo_wnd(true, 5, 3, 40 * MS, Some(50 * MS)), 10 * MS);
        // Capped by SRTT.
        r.reo_wnd_mult = 8;
        assert_eq!(r.reo_wnd(true, 5, 3, 40 * MS, Some(50 * MS)), 50 * MS);
    }

    #[test]
    fn spurious_retransmission_grows_the_window_once_per_round_and_persists_16_recoveries() {
        let mut r = Rack::default();
        // Segment 3 retransmitted at 100 ms, its ACK at 110 ms with min_rtt 40 ms.
        let n = r.on_delivered(110 * MS, 40 * MS, &[(3, 100 * MS, true)], 4, 20, false);
        assert_eq!(n, 1);
        assert!(r.reordering_seen());
        assert_eq!(r.reo_wnd_mult(), 2);
        // Another in the same round: no growth.
        r.on_delivered(111 * MS, 40 * MS, &[(5, 105 * MS, true)], 6, 22, false);
        assert_eq!(r.reo_wnd_mult(), 2);
        // After snd.una passes the round's snd.nxt, a new one (here a duplicate segment's ACK)
        // grows it again.
        r.on_delivered(200 * MS, 40 * MS, &[], 22, 40, true);
        assert_eq!(r.reo_wnd_mult(), 3);
        for _ in 0..15 {
            r.on_recovery_end();
            assert_eq!(r.reo_wnd_mult(), 3);
        }
        r.on_recovery_end();
        assert_eq!(r.reo_wnd_mult(), 1);
    }

    #[test]
    fn loss_marking_and_timer_follow_step_five() {
        let mut r = Rack::default();
        for s in 0..4 {
            r.on_send(s, None, s * MS);
        }
        // Segment 2 (sent at 2 ms) is SACKed at 42 ms: RACK.rtt = 40 ms.
        r.on_delivered(42 * MS, 40 * MS, &[(2, 2 * MS, false)], 0, 4, false);
        let mut lost = Vec::new();
        // reo_wnd 5 ms: segments 0 and 1 are due at 45 and 46 ms.
        r.detect_loss(42 * MS, 5 * MS, |s| lost.push(s));
        assert!(lost.is_empty());
        assert_eq!(r.deadline, Some(46 * MS));
        r.detect_loss(45 * MS, 5 * MS, |s| lost.push(s));
        assert_eq!(lost, vec![0]);
        assert_eq!(r.deadline, Some(46 * MS));
        r.detect_loss(46 * MS, 5 * MS, |s| lost.push(s));
        assert_eq!(lost, vec![0, 1]);
        assert_eq!(r.deadline, None);
        // Segment 3 was sent after RACK.xmit_ts: not judged.
        assert_eq!(r.tsorted.len(), 1);
    }

    #[test]
    fn reordering_is_a_late_original_below_fack() {
        let mut r = Rack::default();
        r.on_delivered(50 * MS, 40 * MS, &[(4, 4 * MS, false)], 0, 6, false);
        assert!(!r.reordering_seen());
        r.on_delivered(52 * MS, 40 * MS, &[(3, 3 * MS, false)], 0, 6, false);
        assert!(r.reordering_seen());
    }

    #[test]
    fn tlp_verdicts_follow_linux_without_dsack() {
        let mut t = Tlp {
            end_seq: Some(10),
            is_retrans: true,
            ..Tlp::default()
        };
        // The ACK of the probe (or of the original) up to 10: wait.
        assert_eq!(t.on_ack(10, true, false), TlpVerdict::Pending);
        // A pure duplicate at 10: both arrived.
        assert_eq!(t.on_ack(10, false, false), TlpVerdict::NoLoss);
        assert_eq!(t.end_seq, None);
        t.end_seq = Some(10);
        // Beyond 10: the probe repaired a loss.
        assert_eq!(t.on_ack(12, true, false), TlpVerdict::Loss);
        // A probe of new data ends with its ACK.
        t.end_seq = Some(10);
        t.is_retrans = false;
        assert_eq!(t.on_ack(9, true, false), TlpVerdict::Pending);
        assert_eq!(t.on_ack(10, true, false), TlpVerdict::NoLoss);
    }

    #[test]
    fn pto_is_two_srtt_plus_delayed_ack_for_one_segment_capped_by_rto() {
        assert_eq!(Tlp::pto(Some(40 * MS), 5, None), 80 * MS);
        assert_eq!(Tlp::pto(Some(40 * MS), 1, None), 280 * MS);
        assert_eq!(Tlp::pto(Some(40 * MS), 1, Some(250 * MS)), 250 * MS);
        assert_eq!(Tlp::pto(None, 3, None), 1000 * MS);
    }
}
