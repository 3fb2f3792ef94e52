//! Pacing: spacing a flow's transmissions at a rate instead of sending a window's worth back to
//! back, as Linux's internal pacing (`tcp_internal_pacing`, or the fq qdisc) and ns-3's
//! `TcpSocketBase` pacing timer do.
//!
//! After each paced transmission of `len` bytes the next may leave no earlier than
//! `len / rate` later (ns-3's `m_pacingTimer`, scheduled for the segment's time at the pacing
//! rate; Linux's `tcp_wstamp_ns` advanced by the same amount). The rate is the congestion
//! control's own (BBR's `pacing_gain x BtlBw`), or, for a controller without one and with
//! `pacing: true`, Linux's `tcp_update_pacing_rate`:
//!
//! ```text
//! rate = ratio x max(cwnd, in flight) x mss / srtt,
//! ratio = 200 % while cwnd < ssthresh / 2 (slow start), 120 % otherwise
//! ```
//!
//! (sysctls `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, the same defaults as ns-3's
//! `TcpSocketState::PacingSsRatio` / `PacingCaRatio`). Before the first RTT sample there is no
//! rate and nothing is paced (ns-3's `PaceInitialWindow` false).
//!
//! Only the sender's ordinary sending is paced; the fast retransmit that opens recovery leaves
//! at once, as ns-3's `DoRetransmit` does, and still delays the next paced segment.

use crate::sim::Time;

/// Linux's `tcp_pacing_ss_ratio` (200 %), as a factor.
pub const SS_RATIO: f64 = 2.0;
/// Linux's `tcp_pacing_ca_ratio` (120 %), as a factor.
pub const CA_RATIO: f64 = 1.2;

/// When the next paced segment may leave.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pacer {
    next: Option<Time>,
}

impl Pacer {
    /// Whether a segment may leave at `now`.
    pub fn ready(&self, now: Time) -> bool {
        self.next.is_none_or(|t| t <= now)
    }

    /// The time the next segment may leave, if it is still ahead of the last transmission.
    pub fn deadline(&self) -> Option<Time> {
        self.next
    }

    /// A segment of `segments` segment's worth (the last of a transfer may be a fraction) left
    /// at `now`, paced at `rate` segments per second.
    pub fn sent(&mut self, now: Time, segments: f64, rate: f64) {
        if rate > 0.0 && rate.is_finite() {
            let gap = (segments * 1e9 / rate).min(u32::MAX as f64) as Time;
            self.next = Some(now.saturating_add(gap));
        }
    }

    /// The pacing deadline passed: the timer fired.
    pub fn expire(&mut self, now: Time) {
        if self.ready(now) {
            self.next = None;
        }
    }
}

/// Linux's `tcp_update_pacing_rate` for a controller that sets no rate: segments per second, or
/// None before the first RTT sample.
pub fn linux_rate(cwnd: f64, ssthresh: f64, in_flight: u32, srtt: Option<Time>) -> Option<f64> {
    let srtt = srtt.filter(|&s| s > 0)? as f64 / 1e9;
    let ratio = if cwnd < ssthresh / 2.0 {
        SS_RATIO
    } else {
        CA_RATIO
    };
    Some(ratio * cwnd.max(in_flight as f64) / srtt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    #[test]
    fn segments_leave_one_gap_apart() {
        let mut p = Pacer::default();
        assert!(p.ready(0));
        p.sent(0, 1.0, 100.0); // 100 segments/s: 10 ms apart
        assert_eq!(p.deadline(), Some(10 * MILLIS));
        assert!(!p.ready(9 * MILLIS));
        assert!(p.ready(10 * MILLIS));
        p.sent(10 * MILLIS, 0.5, 100.0);
        assert_eq!(p.deadline(), Some(15 * MILLIS));
        p.expire(15 * MILLIS);
        assert_eq!(p.deadline(), None);
    }

    #[test]
    fn linux_paces_slow_start_at_twice_and_avoidance_at_1_2_times_cwnd_per_rtt() {
        let srtt = Some(100 * MILLIS);
        assert_eq!(linux_rate(10.0, f64::INFINITY, 4, srtt), Some(200.0));
        let ca = linux_rate(10.0, 12.0, 4, srtt).unwrap();
        assert!((ca - 120.0).abs() < 1e-9);
        assert_eq!(linux_rate(10.0, 12.0, 4, None), None);
        // in flight above cwnd (just after a reduction) keeps the rate up
        assert!((linux_rate(10.0, 12.0, 20, srtt).unwrap() - 240.0).abs() < 1e-9);
    }
}
