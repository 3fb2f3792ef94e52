//! UDP with a constant-bit-rate source: datagrams of `packet_size` payload bytes every
//! `packet_size * 8 / rate` seconds, from the flow's start to its stop. The k-th datagram leaves
//! at `start + k * packet_size * 8 / rate` computed exactly in integers, so the schedule never
//! drifts. The sink counts payload bytes received.

use crate::sim::Time;

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
        self.start + (bits / self.rate_bps as u128) as Time
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
}
