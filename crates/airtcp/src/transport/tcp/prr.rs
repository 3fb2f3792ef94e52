//! Proportional Rate Reduction: RFC 9937 (Mathis, Cardwell, Cheng, Dukkipati, December 2025;
//! obsoletes RFC 6937), the window during fast recovery that Linux (`tcp_cwnd_reduction`) and
//! ns-3 (`TcpPrrRecovery`, its default recovery) run.
//!
//! Instead of dropping the window to ssthresh at once (RFC 6675), PRR spreads the reduction over
//! the recovery round trip: while more than ssthresh is in flight, the sender sends
//! `ssthresh / RecoverFS` segments for every segment delivered (the proportional part); once the
//! pipe is at or below ssthresh it may send what was delivered, and one more on a "safe" ACK, up
//! to ssthresh (the reduction bound). At the end of recovery the window is ssthresh.
//!
//! RFC 9937 §6, in segments:
//!
//! ```text
//! on entering recovery:  prr_delivered = 0; prr_out = 0; RecoverFS = pipe
//! on every ACK in recovery:
//!   DeliveredData = change in snd.una + change in SACKed segments
//!   prr_delivered += DeliveredData
//!   if pipe > ssthresh:  sndcnt = ceil(prr_delivered * ssthresh / RecoverFS) - prr_out
//!   else:                sndcnt = max(prr_delivered - prr_out, DeliveredData)
//!                        if SafeACK: sndcnt += 1          (PRR-SSRB; else PRR-CRB)
//!                        sndcnt = min(ssthresh - pipe, sndcnt)
//!   if prr_out == 0 and sndcnt == 0: sndcnt = 1            (the fast retransmit)
//!   cwnd = pipe + sndcnt
//! on every transmission in recovery: prr_out += 1
//! on leaving recovery:   cwnd = ssthresh
//! ```
//!
//! SafeACK: the ACK advances snd.una and indicates no further loss (RFC 9937 §6; Linux's
//! `FLAG_SND_UNA_ADVANCED && !newly_lost`). `pipe` is RFC 6675's, after the ACK's SACK and loss
//! bookkeeping, before anything is sent in reply (as Linux orders it).
//!
//! Used with SACK only: without it DeliveredData would have to be guessed from duplicate ACKs
//! (RFC 9937 §6's "+1 SMSS per duplicate ACK"), which this sender does not do.

/// PRR's state through one recovery episode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prr {
    /// Segments delivered since recovery began.
    delivered: u64,
    /// Segments sent since recovery began.
    out: u64,
    /// The pipe when recovery began (at least 1).
    recover_fs: u64,
}

impl Prr {
    /// Recovery begins with `pipe` segments in flight.
    pub fn enter(pipe: u32) -> Self {
        Prr {
            delivered: 0,
            out: 0,
            recover_fs: (pipe as u64).max(1),
        }
    }

    /// One ACK in recovery that delivered `delivered` segments, with `pipe` in flight after its
    /// bookkeeping; `safe` as SafeACK. Returns the new window, segments.
    pub fn on_ack(&mut self, delivered: u32, safe: bool, pipe: u32, ssthresh: f64) -> f64 {
        self.delivered += delivered as u64;
        let ssthresh = ssthresh.max(1.0).floor() as i64;
        let (pipe_i, delivered_i) = (pipe as i64, delivered as i64);
        let (prr_delivered, prr_out) = (self.delivered as i64, self.out as i64);
        let mut sndcnt = if pipe_i > ssthresh {
            let recover_fs = self.recover_fs as i64;
            (prr_delivered * ssthresh + recover_fs - 1) / recover_fs - prr_out
        } else {
            let limit = (prr_delivered - prr_out).max(delivered_i) + safe as i64;
            limit.min(ssthresh - pipe_i)
        };
        if self.out == 0 {
            sndcnt = sndcnt.max(1);
        }
        (pipe_i + sndcnt.max(0)) as f64
    }

    /// A segment (new or retransmitted) was sent during recovery.
    pub fn on_send(&mut self) {
        self.out += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// RFC 9937 §7's first example: a window of 20 segments, one lost, ssthresh 10, every
    /// following ACK delivering one segment: PRR sends one segment for every two delivered, so
    /// the 19 ACKs of the round release 10 segments (the retransmission among them), and the
    /// pipe ends at ssthresh, where RFC 6675 would send nothing for 10 ACKs and then 10 at once.
    #[test]
    fn one_loss_halves_the_rate_evenly_over_the_round() {
        let mut prr = Prr::enter(20);
        let mut pipe = 19; // the lost segment no longer counts
        let mut sent = Vec::new();
        for _ in 0..19 {
            pipe -= 1; // the ACK's segment left the network
            let cwnd = prr.on_ack(1, false, pipe, 10.0) as u32;
            let mut n = 0;
            while pipe < cwnd {
                prr.on_send();
                pipe += 1;
                n += 1;
            }
            sent.push(n);
        }
        assert_eq!(sent.iter().sum::<u32>(), 10, "{sent:?}");
        // Alternating: a segment for every other ACK (the first is the fast retransmit).
        assert_eq!(&sent[..6], &[1, 0, 1, 0, 1, 0], "{sent:?}");
        assert_eq!(pipe, 10);
    }

    /// Heavy loss: the pipe falls below ssthresh, and the reduction bound lets the sender catch
    /// up only by what is delivered (CRB), one more on a safe ACK (SSRB).
    #[test]
    fn below_ssthresh_the_bound_is_what_was_delivered() {
        let mut prr = Prr::enter(20);
        prr.on_send(); // the fast retransmit
                       // pipe 4 after massive loss, ssthresh 10, an ACK delivering 2: 2 may go.
        assert_eq!(prr.on_ack(2, false, 4, 10.0), 6.0);
        // Nothing was sent for it; the next ACK delivers 2 more and is safe: prr_delivered 4 -
        // prr_out 1 = 3 owed, + 1 for the safe ACK.
        assert_eq!(prr.on_ack(2, true, 4, 10.0), 8.0);
        // The bound never lets the pipe pass ssthresh.
        assert_eq!(prr.on_ack(20, true, 4, 10.0), 10.0);
    }

    proptest! {
        /// Whatever the ACKs deliver: while the pipe is above ssthresh the segments sent never
        /// exceed ceil(delivered x ssthresh / RecoverFS) (at least the fast retransmit), and the
        /// pipe never grows past max(ssthresh, RecoverFS).
        #[test]
        fn sends_are_proportional_above_ssthresh(
            acks in proptest::collection::vec(1u32..4, 1..60),
            fs in 10u32..60,
        ) {
            let ssthresh = (fs / 2) as f64;
            let mut prr = Prr::enter(fs);
            let mut pipe = fs as i64;
            let (mut delivered, mut out) = (0u64, 0u64);
            for d in acks {
                pipe = (pipe - d as i64).max(0);
                delivered += d as u64;
                let cwnd = prr.on_ack(d, false, pipe as u32, ssthresh) as i64;
                while pipe < cwnd { prr.on_send(); pipe += 1; out += 1; }
                if pipe as f64 > ssthresh {
                    let bound = (delivered as f64 * ssthresh / fs as f64).ceil() as u64;
                    prop_assert!(out <= bound.max(1), "out {} bound {}", out, bound);
                }
                prop_assert!(pipe as f64 <= ssthresh.max(fs as f64));
            }
        }
    }
}
