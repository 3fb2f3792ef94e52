//! Delivery-rate estimation: draft-cheng-iccrg-delivery-rate-estimation-02 (Cheng, Cardwell,
//! Hassas Yeganeh, Jacobson, 2022), as Linux's `tcp_rate.c` and ns-3's `TcpRateLinux` run it.
//! BBR (v1 and v3) reads its bandwidth from these samples; every TCP sender keeps them, so that
//! traces and any controller can use them.
//!
//! Names of the draft (§3) and here, counts in segments (the sender is segment-granular):
//!
//! | draft                     | here                              |
//! |---------------------------|-----------------------------------|
//! | C.delivered               | [`DeliveryRate::delivered`]       |
//! | C.delivered_time          | `delivered_time`                  |
//! | C.first_sent_time         | `first_sent_time`                 |
//! | C.app_limited             | `app_limited` (0: not limited)    |
//! | P.delivered, P.delivered_time, P.first_sent_time, P.is_app_limited, P.tx_in_flight, P.lost | [`RateStamp`] |
//! | rs.prior_delivered, rs.prior_time, rs.send_elapsed, rs.ack_elapsed, rs.interval | [`RateSample`] |
//!
//! - §3.2 (on each transmission, retransmissions included): if nothing is in flight, the
//!   connection's `first_sent_time` and `delivered_time` restart at now; the segment records the
//!   connection's `delivered`, `delivered_time`, `first_sent_time` and whether it is app-limited.
//! - §3.3 (`UpdateRateSample`, for each segment newly acknowledged cumulatively or by SACK): the
//!   sample follows the most recently sent of them (Linux's `tcp_skb_sent_after`: the latest send
//!   time, the higher sequence on a tie).
//! - §3.3 (`GenerateRateSample`, once per ACK): the app-limited bubble ends once delivery passes
//!   it; `delivered` = C.delivered - P.delivered; interval = max(send_elapsed, ack_elapsed); a
//!   sample whose interval is shorter than the minimum RTT is discarded (its rate would be
//!   inflated by ACK compression), as Linux does.
//! - §3.4 (`CheckIfApplicationLimited`): the sender calls [`DeliveryRate::check_app_limited`]
//!   when it runs out of data with window to spare and no lost segment waiting.
//!
//! BBR v3 also reads, for the newest delivered segment, the data in flight just after it was
//! sent (`P.tx_in_flight`, the draft-ietf-ccwg-bbr name) and the losses marked since
//! ([`RateSample::lost`], `RS.lost`), and for every segment newly marked lost the same two
//! ([`LostSegment`], the draft's `HandleLostPacket(P)`, Linux's `skb_marked_lost`).
//!
//! Deviation: a SACKed segment later covered by the cumulative ACK is not counted again (the
//! scoreboard reports each segment once), which is Linux's `delivered_mstamp = 0` rule.

use crate::sim::Time;

/// What a segment records about the connection when it is (re)sent (the draft's `P.*`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateStamp {
    /// C.delivered at the send.
    pub delivered: u64,
    /// C.delivered_time at the send.
    pub delivered_time: Time,
    /// C.first_sent_time at the send.
    pub first_sent_time: Time,
    /// Whether the connection was app-limited at the send.
    pub app_limited: bool,
    /// Segments in flight just after the send, this one included (P.tx_in_flight).
    pub tx_in_flight: u32,
    /// Segments marked lost over the connection's life at the send (P.lost = C.lost).
    pub lost: u64,
}

/// The newest of the segments one ACK newly delivered, as the scoreboard reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Segments newly acknowledged, cumulatively or by SACK (RFC 9937's DeliveredData).
    pub count: u32,
    /// The most recently sent of them: (send time, sequence, stamp).
    pub newest: Option<(Time, u64, RateStamp)>,
    /// Send time of the most recently sent of them that was never retransmitted (its RTT is
    /// unambiguous), for an RTT sample that SACKed segments also give.
    pub newest_clean_sent_at: Option<Time>,
}

impl Delivered {
    /// Counts segment `seq`, sent (last) at `sent_at`, as delivered by this ACK.
    pub fn add(&mut self, seq: u64, sent_at: Time, stamp: RateStamp, retransmitted: bool) {
        self.count += 1;
        if self.newest.is_none_or(|(t, s, _)| (sent_at, seq) > (t, s)) {
            self.newest = Some((sent_at, seq, stamp));
        }
        if !retransmitted && self.newest_clean_sent_at.is_none_or(|t| sent_at > t) {
            self.newest_clean_sent_at = Some(sent_at);
        }
    }
}

/// One ACK's delivery-rate sample, with what a rate-based controller needs besides the rate
/// (Linux's `struct rate_sample`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RateSample {
    /// Arrival time of the ACK.
    pub now: Time,
    /// Segments delivered over `interval` (C.delivered - P.delivered); 0 when invalid.
    pub delivered: u64,
    /// max(send_elapsed, ack_elapsed), ns; 0 when the sample is invalid.
    pub interval: Time,
    /// C.delivered when the newest delivered segment was sent (P.delivered); None when the ACK
    /// delivered nothing.
    pub prior_delivered: Option<u64>,
    /// Whether the newest delivered segment was sent while app-limited.
    pub is_app_limited: bool,
    /// Segments this ACK newly acknowledged or SACKed.
    pub acked_sacked: u32,
    /// Segments this ACK's processing newly marked lost.
    pub losses: u32,
    /// RTT from the newest delivered segment never retransmitted, ns.
    pub rtt: Option<Time>,
    /// Segments in flight before the ACK.
    pub prior_in_flight: u32,
    /// Segments in flight after the ACK's bookkeeping (before anything new is sent).
    pub in_flight: u32,
    /// C.delivered after this ACK.
    pub total_delivered: u64,
    /// Segments marked lost over the connection's life, after this ACK.
    pub total_lost: u64,
    /// Segments in flight just after the newest delivered segment was sent (RS.tx_in_flight);
    /// 0 when the ACK delivered nothing.
    pub tx_in_flight: u32,
    /// `total_lost` when the newest delivered segment was sent (its P.lost).
    pub prior_lost: u64,
    /// The sender's loss-recovery state after the ACK's bookkeeping.
    pub ca_state: CaState,
    /// Segment payload, bytes (for controllers that size by bytes, as BBR's send quantum).
    pub mss: u32,
}

impl RateSample {
    /// The delivery rate, segments per second, if the sample is valid.
    pub fn rate(&self) -> Option<f64> {
        (self.interval > 0).then(|| self.delivered as f64 * 1e9 / self.interval as f64)
    }

    /// Segments marked lost between the send of the newest delivered segment and this ACK
    /// (RS.lost; 0 when the ACK delivered nothing).
    pub fn lost(&self) -> u64 {
        if self.prior_delivered.is_none() {
            return 0;
        }
        self.total_lost.saturating_sub(self.prior_lost)
    }
}

/// A segment the sender has just marked lost, as BBR v3 reads it (the draft's
/// `HandleLostPacket(P)`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LostSegment {
    /// When the loss was marked.
    pub now: Time,
    /// The segment's stamp from its latest (re)transmission.
    pub stamp: RateStamp,
    /// Segments marked lost over the connection's life, this one included (C.lost).
    pub total_lost: u64,
    /// Segments delivered so far (C.delivered).
    pub delivered: u64,
}

impl LostSegment {
    /// Segments marked lost since the segment was sent, itself included (C.lost - P.lost).
    pub fn lost(&self) -> u64 {
        self.total_lost.saturating_sub(self.stamp.lost)
    }
}

/// The sender's loss-recovery state (Linux's `icsk_ca_state`, ns-3's `TcpCongState_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CaState {
    /// No recovery.
    #[default]
    Open,
    /// Fast recovery (loss detected by duplicate ACKs, SACK or RACK).
    Recovery,
    /// After a retransmission timeout, until the cumulative ACK passes the recovery point.
    Loss,
}

/// The connection's side of the estimator (the draft's `C.*`).
#[derive(Debug, Clone, Default)]
pub struct DeliveryRate {
    /// Segments delivered so far (C.delivered).
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// C.delivered + in flight when the sender last ran out of data; 0 when not app-limited.
    app_limited: u64,
}

impl DeliveryRate {
    /// The stamp of a segment sent now with `in_flight` segments outstanding before it (§3.2);
    /// the sender fills in the flight and loss counts it keeps (`tx_in_flight`, `lost`).
    pub fn on_send(&mut self, now: Time, in_flight: u32) -> RateStamp {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        RateStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            ..RateStamp::default()
        }
    }

    /// §3.4: the sender has nothing more to send with `in_flight` segments outstanding.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + in_flight as u64).max(1);
    }

    /// Whether the connection is in an app-limited bubble.
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// §3.3: folds one ACK's newly delivered segments into a sample; `min_rtt` is the smallest
    /// RTT seen (samples shorter than it are discarded). The caller fills the fields about
    /// losses, flight and state.
    pub fn on_ack(&mut self, now: Time, got: &Delivered, min_rtt: Option<Time>) -> RateSample {
        let mut rs = RateSample {
            now,
            acked_sacked: got.count,
            ..RateSample::default()
        };
        let Some((sent_at, _, stamp)) = got.newest else {
            return rs;
        };
        self.delivered += got.count as u64;
        self.delivered_time = now;
        // The send phase of the sample ends at the newest delivered segment's send.
        let send_elapsed = sent_at.saturating_sub(stamp.first_sent_time);
        self.first_sent_time = sent_at;
        let ack_elapsed = now.saturating_sub(stamp.delivered_time);
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        rs.prior_delivered = Some(stamp.delivered);
        rs.is_app_limited = stamp.app_limited;
        rs.tx_in_flight = stamp.tx_in_flight;
        rs.prior_lost = stamp.lost;
        rs.total_delivered = self.delivered;
        let interval = send_elapsed.max(ack_elapsed);
        if interval > 0 && min_rtt.is_none_or(|m| interval >= m) {
            rs.delivered = self.delivered - stamp.delivered;
            rs.interval = interval;
        }
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    /// A window of 10 segments over a path of 100 ms RTT whose bottleneck spaces ACKs 10 ms
    /// apart, each ACK clocking out one new segment: once the first window's samples are past,
    /// every sample says 100 segments/s, the bottleneck's rate (the draft's §2).
    #[test]
    fn samples_measure_the_bottleneck_rate_of_an_ack_clock() {
        let mut c = DeliveryRate::default();
        let mut sent: Vec<(Time, RateStamp)> = (0..10).map(|i| (0, c.on_send(0, i))).collect();
        let mut rates = Vec::new();
        for j in 0..40u64 {
            let now = 100 * MILLIS + j * 10 * MILLIS;
            let (sent_at, stamp) = sent[j as usize];
            let mut got = Delivered::default();
            got.add(j, sent_at, stamp, false);
            rates.push(c.on_ack(now, &got, Some(100 * MILLIS)).rate());
            sent.push((now, c.on_send(now, 9)));
        }
        // The first window was sent in a burst at t = 0: its samples, and those of the segments
        // it clocked out, stretch back to that burst.
        assert_eq!(rates[0], Some(10.0));
        for (j, r) in rates.iter().enumerate().skip(20) {
            let r = r.expect("valid");
            assert!((r - 100.0).abs() < 1e-9, "sample {j}: {r}");
        }
        assert_eq!(c.delivered, 40);
    }

    #[test]
    fn a_sample_shorter_than_the_minimum_rtt_is_discarded() {
        let mut c = DeliveryRate::default();
        let s = c.on_send(0, 0);
        let mut got = Delivered::default();
        got.add(0, 0, s, false);
        let rs = c.on_ack(5 * MILLIS, &got, Some(20 * MILLIS));
        assert_eq!(rs.rate(), None);
        assert_eq!(rs.acked_sacked, 1);
        assert_eq!(c.delivered, 1);
    }

    #[test]
    fn the_app_limited_bubble_ends_once_delivery_passes_it() {
        let mut c = DeliveryRate::default();
        let s0 = c.on_send(0, 0);
        c.mark_app_limited(1);
        let s1 = c.on_send(MILLIS, 1);
        assert!(!s0.app_limited && s1.app_limited);
        let mut got = Delivered::default();
        got.add(0, 0, s0, false);
        let rs = c.on_ack(50 * MILLIS, &got, None);
        assert!(!rs.is_app_limited);
        assert!(
            c.app_limited(),
            "delivered 1 is not past the bubble's end 1"
        );
        let mut got = Delivered::default();
        got.add(1, MILLIS, s1, false);
        let rs = c.on_ack(51 * MILLIS, &got, None);
        assert!(rs.is_app_limited, "the segment was sent inside the bubble");
        assert!(!c.app_limited());
    }

    #[test]
    fn the_newest_sent_segment_leads_the_sample() {
        let mut got = Delivered::default();
        let a = RateStamp {
            delivered: 5,
            ..RateStamp::default()
        };
        let b = RateStamp {
            delivered: 3,
            ..RateStamp::default()
        };
        got.add(7, 30, a, true);
        got.add(4, 40, b, false);
        assert_eq!(got.newest, Some((40, 4, b)));
        assert_eq!(got.newest_clean_sent_at, Some(40));
        assert_eq!(got.count, 2);
    }
}
