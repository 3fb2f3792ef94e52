//! Simulated time: unsigned integer nanoseconds since the start of the run.
//!
//! Integers keep runs bit-identical across platforms and make event ordering exact; 2^64 ns is
//! about 584 years, so overflow is not a concern for any scenario.

/// A point in simulated time or a duration, in nanoseconds.
pub type Time = u64;

/// One microsecond.
pub const MICROS: Time = 1_000;
/// One millisecond.
pub const MILLIS: Time = 1_000_000;
/// One second.
pub const SECS: Time = 1_000_000_000;

/// Converts to seconds for reporting only (never for decisions).
pub fn to_secs(t: Time) -> f64 {
    t as f64 / 1e9
}

/// Converts seconds to the nearest nanosecond (used when a model yields a real-valued duration).
pub fn from_secs(s: f64) -> Time {
    debug_assert!(s >= 0.0 && s.is_finite());
    (s * 1e9).round() as Time
}

/// Serialisation time of `bytes` at `rate_bps`, rounded up to the next nanosecond so that a link
/// never exceeds its rate.
pub fn tx_time(bytes: u32, rate_bps: u64) -> Time {
    let rate = rate_bps.max(1);
    // Every frame below 2 GB fits 64 bits; the 128-bit division (a library call) is for the rest.
    if let Some(bits) = (bytes as u64).checked_mul(8 * SECS) {
        return bits.div_ceil(rate);
    }
    let bits = bytes as u128 * 8 * SECS as u128;
    // 4 GB at 1 bit/s is longer than Time holds: saturate ("never"), do not truncate.
    Time::try_from(bits.div_ceil(rate as u128)).unwrap_or(Time::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_saturates() {
        assert_eq!(tx_time(u32::MAX, 1), Time::MAX);
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1000 bytes at 2 Mbps = 4 ms exactly.
        assert_eq!(tx_time(1000, 2_000_000), 4 * MILLIS);
        // 1 byte at 3 bps = 2.666.. s -> rounded up.
        assert_eq!(tx_time(1, 3), 2_666_666_667);
        // Either side of the 64-bit product's limit.
        assert_eq!(tx_time(1 << 31, 8 * SECS), 1 << 31);
        assert_eq!(tx_time(u32::MAX, 8 * SECS), u32::MAX as Time);
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(from_secs(to_secs(1_234_567_891)), 1_234_567_891);
    }
}
