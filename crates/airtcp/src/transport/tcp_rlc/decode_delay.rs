//! TCP-RLC's decode delay: for every frame the receiver delivers in order, the time from the
//! sending of its block's first packet to that delivery. A frame waits for its block to be
//! decoded (B degrees of freedom) and for every earlier block, so the delay grows with the block
//! size, in round trips, and with the repairs of blocks that came up short.
//!
//! The paper reports throughput only; this is a measure of our own (docs/tcp_rlc.md,
//! "Multipath"). Two approximations, both stated there:
//! - "the first packet sent" is the earliest send time among the block's packets that reached
//!   the receiver (the header carries each packet's own send time, not its block's). A block's
//!   packets leave in bursts a path round apart, so the error is at most one round of a path
//!   whose every packet of that block was lost, and usually nothing.
//! - the percentiles come from a histogram with logarithmic bins 1 % wide (from 1 us up; the
//!   value reported is the bin's geometric middle, within 0.5 % of any delay in it); the mean,
//!   the minimum and the maximum are exact. A fixed histogram keeps the memory constant and
//!   allocates nothing per packet.

use crate::sim::Time;

/// Delays below this fall in the first bin, ns.
const SMALLEST: f64 = 1e3;
/// Each bin's upper edge over its lower one.
const BIN_RATIO: f64 = 1.01;
/// Bins: 1 us to 10^13 ns (about 2.8 hours); longer delays fall in the last.
const BINS: usize = 2315;

/// The delays of a flow's delivered frames (see the module header).
#[derive(Debug, Clone)]
pub struct DecodeDelays {
    /// Frames per bin (allocated at the first delivery).
    bins: Vec<u64>,
    frames: u64,
    /// Sum of the frames' delays, ns.
    sum: f64,
    smallest: Time,
    largest: Time,
}

impl Default for DecodeDelays {
    fn default() -> Self {
        DecodeDelays {
            bins: Vec::new(),
            frames: 0,
            sum: 0.0,
            smallest: Time::MAX,
            largest: 0,
        }
    }
}

fn bin_of(delay: Time) -> usize {
    let d = delay as f64;
    if d < SMALLEST {
        return 0;
    }
    let i = ((d / SMALLEST).ln() / BIN_RATIO.ln()) as usize;
    i.min(BINS - 1)
}

/// The geometric middle of bin `i`, ns.
fn middle_of(i: usize) -> f64 {
    SMALLEST * BIN_RATIO.powf(i as f64 + 0.5)
}

impl DecodeDelays {
    /// `frames` frames were delivered `delay` after their block's first packet was sent.
    pub fn record(&mut self, delay: Time, frames: u64) {
        if frames == 0 {
            return;
        }
        if self.bins.is_empty() {
            self.bins = vec![0; BINS];
        }
        self.bins[bin_of(delay)] += frames;
        self.frames += frames;
        self.sum += delay as f64 * frames as f64;
        self.smallest = self.smallest.min(delay);
        self.largest = self.largest.max(delay);
    }

    /// Frames recorded.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The mean delay per frame, s (None before the first frame).
    pub fn mean_s(&self) -> Option<f64> {
        (self.frames > 0).then(|| self.sum / self.frames as f64 * 1e-9)
    }

    /// The delay that a share `q` (0 to 1) of the frames did not exceed, s, to the histogram's
    /// precision (None before the first frame).
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if self.frames == 0 {
            return None;
        }
        let wanted = (q.clamp(0.0, 1.0) * self.frames as f64).ceil().max(1.0) as u64;
        let mut below = 0;
        let bin = self
            .bins
            .iter()
            .position(|&n| {
                below += n;
                below >= wanted
            })
            .unwrap_or(BINS - 1);
        let ns = middle_of(bin).clamp(self.smallest as f64, self.largest as f64);
        Some(ns * 1e-9)
    }

    /// Bytes held on the heap (the bins, once there is a frame).
    pub fn heap_bytes(&self) -> u64 {
        (self.bins.capacity() * std::mem::size_of::<u64>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::MILLIS;

    #[test]
    fn the_bins_cover_a_microsecond_to_hours_one_percent_apart() {
        assert_eq!(bin_of(0), 0);
        assert_eq!(bin_of(999), 0);
        // The last bin starts just below 10^13 ns.
        assert!(middle_of(BINS - 1) > 1e13 && middle_of(BINS - 2) < 1e13);
        assert_eq!(bin_of(Time::MAX), BINS - 1);
        for d in [
            1_000u64,
            37_123,
            4 * MILLIS,
            1_000 * MILLIS,
            3_600_000 * MILLIS,
        ] {
            let mid = middle_of(bin_of(d));
            assert!((mid / d as f64 - 1.0).abs() <= 0.006, "{d}: {mid}");
        }
    }

    #[test]
    fn frames_weigh_the_mean_and_the_percentiles() {
        // 90 frames at 100 ms, 10 at 1 s: the mean 190 ms, the median 100 ms, the 95th 1 s.
        let mut d = DecodeDelays::default();
        assert_eq!((d.mean_s(), d.quantile_s(0.5)), (None, None));
        d.record(100 * MILLIS, 90);
        d.record(1_000 * MILLIS, 10);
        d.record(5_000 * MILLIS, 0);
        assert_eq!(d.frames(), 100);
        assert!((d.mean_s().unwrap() - 0.19).abs() < 1e-12);
        let near = |got: Option<f64>, want: f64| (got.unwrap() / want - 1.0).abs() < 0.006;
        assert!(near(d.quantile_s(0.5), 0.1));
        assert!(near(d.quantile_s(0.9), 0.1));
        assert!(near(d.quantile_s(0.91), 1.0));
        assert!(near(d.quantile_s(0.95), 1.0));
        // Never outside what was recorded.
        assert!(d.quantile_s(1.0).unwrap() <= 1.0 && near(d.quantile_s(1.0), 1.0));
        assert!(d.quantile_s(0.0).unwrap() >= 0.1 && near(d.quantile_s(0.0), 0.1));
    }
}
