//! UDP datagram sources and the sink.
//!
//! - Constant bit rate: datagrams of `packet_size` payload bytes every `packet_size * 8 / rate`
//!   seconds, from the flow's start to its stop. The k-th datagram leaves at
//!   `start + k * packet_size * 8 / rate` computed exactly in integers, so the schedule never
//!   drifts.
//! - Poisson: the same mean rate with exponential gaps (a Poisson arrival process), drawn from
//!   the flow's own random stream.
//! - Utility-controlled: paper 000's flow controller for non-TCP flows (eq. 5, see
//!   [`crate::transport::utility_control`]). Every `slot` it reads the flow's backlog at its
//!   source, U, and sets its rate to x = argmax M g(x) - U x capped by R_max; between decisions
//!   it sends at that rate, evenly spaced (a fractional credit carries over, so x = 2.5 packets
//!   per slot sends 5 packets every 2 slots). Deviation: the paper admits x packets at once at
//!   the slot boundary into a per-flow queue; spacing them over the slot avoids bursts into an
//!   interface queue of 50 packets that the paper's per-flow queues do not have.
//!
//! The sink counts payload bytes received.

use crate::sim::{Rng, Time};
use crate::transport::utility_control::{admission_rate, FlowTerms, Utility};

/// A constant-bit-rate datagram source.
#[derive(Debug, Clone)]
pub struct CbrSource {
    payload: u32,
    rate_bps: u64,
    start: Time,
    sent: u64,
}

impl CbrSource {
    /// A source of `payload`-byte datagrams at `rate_bps` payload bits per second from `start`.
    pub fn new(payload: u32, rate_bps: u64, start: Time) -> Self {
        CbrSource {
            payload,
            rate_bps,
            start,
            sent: 0,
        }
    }

    /// Emission time of the next datagram.
    pub fn next_time(&self) -> Time {
        let bits = self.sent as u128 * self.payload as u128 * 8 * 1_000_000_000u128;
        let offset = Time::try_from(bits / self.rate_bps as u128).unwrap_or(Time::MAX);
        self.start.saturating_add(offset)
    }

    /// Takes the next datagram: returns its sequence number and payload length.
    pub fn emit(&mut self) -> (u64, u32) {
        let seq = self.sent;
        self.sent += 1;
        (seq, self.payload)
    }

    /// Datagrams emitted.
    pub fn sent(&self) -> u64 {
        self.sent
    }
}

/// A Poisson datagram source: exponential gaps with mean `packet_size * 8 / rate`.
#[derive(Debug, Clone)]
pub struct PoissonSource {
    payload: u32,
    mean_gap_ns: f64,
    next: Time,
    /// The fraction of a nanosecond the exact arrival time lies beyond `next`, carried to the
    /// next gap: gaps far below 1 ns (a rate of 10^12 datagrams per second) then still add up
    /// and move time on, where rounding each to 0 ns froze the clock.
    carry: f64,
    sent: u64,
    rng: Rng,
}

impl PoissonSource {
    /// A source of `payload`-byte datagrams at a mean of `rate_bps` payload bits per second,
    /// the first one an exponential gap after `start`.
    pub fn new(payload: u32, rate_bps: u64, start: Time, rng: Rng) -> Self {
        let mean_gap_ns = payload as f64 * 8.0 * 1e9 / rate_bps as f64;
        let mut s = PoissonSource {
            payload,
            mean_gap_ns,
            next: start,
            carry: 0.0,
            sent: 0,
            rng,
        };
        s.advance();
        s
    }

    /// Moves `next` on by an exponential gap (whole nanoseconds, the fraction carried over).
    fn advance(&mut self) {
        let exact = self.carry + self.rng.exponential(self.mean_gap_ns);
        let whole = exact.floor();
        self.carry = exact - whole;
        // `as` saturates a huge gap at Time::MAX; the sum saturates too, never wraps.
        self.next = self.next.saturating_add(whole as Time);
    }

    /// Takes the next datagram and draws the gap to the one after.
    pub fn emit(&mut self) -> (u64, u32) {
        let seq = self.sent;
        self.sent += 1;
        self.advance();
        (seq, self.payload)
    }
}

/// Paper 000's utility-controlled source (module docs).
#[derive(Debug, Clone)]
pub struct UtilitySource {
    payload: u32,
    slot: Time,
    /// R_max, packets per slot.
    r_max: f64,
    m: f64,
    utility: Utility,
    /// Current rate x, packets per slot.
    rate: f64,
    /// Packets earned and not yet sent.
    credit: f64,
    /// When `credit` was last brought up to date.
    last: Time,
    /// Next decision.
    next_update: Time,
    sent: u64,
}

impl UtilitySource {
    /// A source of `payload`-byte datagrams deciding its rate every `slot` from `start`, with
    /// R_max = `r_max_bps` payload bits per second.
    pub fn new(
        payload: u32,
        slot: Time,
        r_max_bps: u64,
        m: f64,
        utility: Utility,
        start: Time,
    ) -> Self {
        let r_max = r_max_bps as f64 * slot as f64 / 1e9 / (payload as f64 * 8.0);
        UtilitySource {
            payload,
            slot,
            r_max,
            m,
            utility,
            rate: 0.0,
            credit: 0.0,
            last: start,
            next_update: start,
            sent: 0,
        }
    }

    /// Whether a decision is due at `now`.
    pub fn decision_due(&self, now: Time) -> bool {
        now >= self.next_update
    }

    /// Decides the rate for the next slot from the flow's `backlog` at its source (U).
    pub fn decide(&mut self, now: Time, backlog: u64) {
        self.accrue(now);
        self.rate = admission_rate(
            FlowTerms {
                m: self.m,
                backlog: backlog as f64,
                utility: self.utility,
            },
            self.r_max,
        );
        self.next_update = self.next_update.saturating_add(self.slot);
    }

    fn accrue(&mut self, now: Time) {
        self.credit += self.rate * (now - self.last) as f64 / self.slot as f64;
        self.last = now;
    }

    /// Takes a datagram if one is earned by `now`.
    pub fn try_emit(&mut self, now: Time) -> Option<(u64, u32)> {
        self.accrue(now);
        // A hair of tolerance: the tick scheduled for the instant the credit reaches one must
        // not miss it by rounding.
        if self.credit < 1.0 - 1e-9 {
            return None;
        }
        self.credit -= 1.0;
        let seq = self.sent;
        self.sent += 1;
        Some((seq, self.payload))
    }

    /// When the next datagram is earned at the current rate, or the next decision if sooner.
    pub fn next_time(&self) -> Time {
        if self.rate <= 0.0 || self.credit >= 1.0 - 1e-9 {
            return if self.credit >= 1.0 - 1e-9 {
                self.last
            } else {
                self.next_update
            };
        }
        // A tiny rate makes the wait astronomically long: `as` saturates it at Time::MAX and
        // the sum must saturate too (a wrapped sum would lie in the past).
        let wait = ((1.0 - self.credit) * self.slot as f64 / self.rate).ceil() as Time;
        self.last.saturating_add(wait).min(self.next_update)
    }

    /// Current rate, packets per slot.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

/// The source of a UDP flow.
#[derive(Debug, Clone)]
pub enum DatagramSource {
    /// Constant bit rate.
    Cbr(CbrSource),
    /// Poisson arrivals.
    Poisson(PoissonSource),
    /// Utility-controlled (paper 000 eq. 5).
    Utility(UtilitySource),
}

impl DatagramSource {
    /// When the source next needs attention (a datagram or a decision).
    pub fn next_time(&self) -> Time {
        match self {
            DatagramSource::Cbr(s) => s.next_time(),
            DatagramSource::Poisson(s) => s.next,
            DatagramSource::Utility(s) => s.next_time(),
        }
    }

    /// Datagrams emitted.
    pub fn sent(&self) -> u64 {
        match self {
            DatagramSource::Cbr(s) => s.sent(),
            DatagramSource::Poisson(s) => s.sent,
            DatagramSource::Utility(s) => s.sent,
        }
    }
}

/// Counts what a UDP flow delivers.
#[derive(Debug, Clone, Default)]
pub struct UdpSink {
    /// Datagrams received.
    pub packets: u64,
    /// Payload bytes received.
    pub bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbr_schedule_is_exact() {
        // 500-byte datagrams at 100 kbps: one every 40 ms.
        let mut s = CbrSource::new(500, 100_000, 1_000);
        let times: Vec<Time> = (0..3)
            .map(|_| {
                let t = s.next_time();
                s.emit();
                t
            })
            .collect();
        assert_eq!(times, vec![1_000, 40_001_000, 80_001_000]);
    }

    #[test]
    fn a_vanishing_utility_rate_waits_for_the_next_decision_not_the_past() {
        // M = 1e-6 with 1-byte packets and a backlog: the alpha-fair rate is ~1e-20 packets per
        // slot, so the wait for one packet overflows Time; it must saturate, not wrap to
        // `last - 1`.
        let utility = Utility::AlphaFair { alpha: 0.5 };
        let mut s = UtilitySource::new(1, 10_000_000, 1_000_000, 1e-6, utility, 0);
        for now in [0, 10_000_000, 20_000_000] {
            assert!(s.decision_due(now));
            s.decide(now, 5);
            assert!(s.try_emit(now).is_none());
            assert!(s.rate() > 0.0 && s.rate() < 1e-6, "rate {}", s.rate());
            assert_eq!(s.next_time(), now + 10_000_000);
        }
    }

    #[test]
    fn gaps_below_a_nanosecond_add_up() {
        // 1-byte datagrams at 10^12 bit/s: a mean gap of 0.008 ns. Each gap used to round to
        // 0 ns and time stood still; now 125 datagrams share a nanosecond on average.
        let mut s = PoissonSource::new(1, 1_000_000_000_000, 0, Rng::stream(1, "fast"));
        for _ in 0..125_000 {
            s.emit();
        }
        assert!((s.next as f64 - 1000.0).abs() < 60.0, "{}", s.next);
    }

    #[test]
    fn huge_gaps_saturate_instead_of_wrapping() {
        let mut p = PoissonSource::new(u32::MAX, 1, Time::MAX - 5, Rng::stream(1, "t"));
        p.emit();
        assert_eq!(p.next, Time::MAX);
        let mut c = CbrSource::new(u32::MAX, 1, Time::MAX - 5);
        c.emit();
        assert_eq!(c.next_time(), Time::MAX);
    }

    #[test]
    fn poisson_gaps_average_the_rate_and_vary() {
        // 1000-byte datagrams at 800 kbps: one every 10 ms on average.
        let mut s = PoissonSource::new(1000, 800_000, 0, Rng::stream(1, "test"));
        let mut gaps = Vec::new();
        let mut last = 0;
        for _ in 0..20_000 {
            gaps.push((s.next - last) as f64);
            last = s.next;
            s.emit();
        }
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64;
        assert!((mean / 1e7 - 1.0).abs() < 0.03, "mean gap {mean}");
        // Exponential: standard deviation = mean.
        assert!(
            (var.sqrt() / mean - 1.0).abs() < 0.05,
            "cv {}",
            var.sqrt() / mean
        );
    }

    #[test]
    fn utility_source_sends_m_over_u_per_slot_evenly() {
        // Slot 10 ms, 1000-byte datagrams, R_max 8 Mbps = 10 packets per slot, M = 25.
        let mut s = UtilitySource::new(1000, 10_000_000, 8_000_000, 25.0, Utility::Log, 0);
        assert!(s.decision_due(0));
        s.decide(0, 10); // x = M / U = 2.5 packets per slot.
        assert!((s.rate() - 2.5).abs() < 1e-12);
        let mut s = UtilitySource::new(1000, 10_000_000, 8_000_000, 25.0, Utility::Log, 0);
        // Drive it as the world does: at each tick decide if due, emit if earned, and come back
        // at `next_time`.
        let mut times = Vec::new();
        let mut now = 0;
        while now < 40_000_000 {
            if s.decision_due(now) {
                s.decide(now, 10);
            }
            if s.try_emit(now).is_some() {
                times.push(now);
            }
            let next = s.next_time();
            assert!(next >= now);
            now = next;
        }
        // 2.5 per 10 ms: one every 4 ms, the first once the first one is earned.
        let expected: Vec<Time> = (1..10).map(|k| k * 4_000_000).collect();
        assert_eq!(times, expected);
        // An empty queue sends at R_max.
        s.decide(now, 0);
        assert!((s.rate() - 10.0).abs() < 1e-12);
    }
}
