//! Goodput accounting and Jain's fairness index.

use crate::sim::time::to_secs;
use crate::sim::Time;

/// Counts application bytes delivered in order, in total and per time bin.
///
/// Only deliveries within the flow's active period `[start, stop]` count, so that goodput is
/// bytes x 8 / (stop - start) as the papers define it. Bins are aligned to time 0 so that the
/// series of different flows line up. They are allocated as deliveries reach them, so a meter
/// costs memory for the time its flow delivers, not for the run's whole length in bins.
#[derive(Debug, Clone)]
pub struct GoodputMeter {
    start: Time,
    stop: Time,
    bin: Time,
    /// Bins of the run `[0, duration)`, up to the last one anything was delivered in.
    n_bins: usize,
    bins: Vec<u64>,
    /// The bin of the latest delivery: its index and span `[from, to)` (deliveries come in time
    /// order, so most land in it without a division).
    current: (usize, Time, Time),
    /// Bytes delivered within `[start, stop]`.
    pub bytes: u64,
}

impl GoodputMeter {
    /// A meter for a flow active in `[start, stop]` of a run lasting `duration`.
    pub fn new(start: Time, stop: Time, bin: Time, duration: Time) -> Self {
        let n = duration.div_ceil(bin) as usize;
        GoodputMeter {
            start,
            stop,
            bin,
            n_bins: n.max(1),
            bins: Vec::new(),
            current: (0, 0, 0),
            bytes: 0,
        }
    }

    /// Records `bytes` delivered at `now`.
    pub fn record(&mut self, now: Time, bytes: u64) {
        if bytes == 0 || now < self.start || now > self.stop {
            return;
        }
        self.bytes += bytes;
        let (mut i, from, to) = self.current;
        if now < from || now >= to {
            i = ((now / self.bin) as usize).min(self.n_bins - 1);
            // The last bin also takes deliveries at the run's very end.
            let to = match i + 1 == self.n_bins {
                true => Time::MAX,
                false => (i as Time + 1) * self.bin,
            };
            self.current = (i, i as Time * self.bin, to);
            if i >= self.bins.len() {
                self.bins.resize(i + 1, 0);
            }
        }
        self.bins[i] += bytes;
    }

    /// Goodput over the active period, bit/s.
    pub fn goodput_bps(&self) -> f64 {
        let span = to_secs(self.stop.saturating_sub(self.start));
        if span > 0.0 {
            self.bytes as f64 * 8.0 / span
        } else {
            0.0
        }
    }

    /// (bin start in s, goodput in bit/s) per bin; the last bin may be shorter than the others.
    pub fn series(&self, duration: Time) -> impl Iterator<Item = (f64, f64)> + '_ {
        (0..self.n_bins).map(move |i| {
            let b = self.bins.get(i).copied().unwrap_or(0);
            let t0 = i as Time * self.bin;
            let width = (t0 + self.bin).min(duration.max(t0 + 1)) - t0;
            (to_secs(t0), b as f64 * 8.0 / to_secs(width))
        })
    }
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for no flows or when every value is 0.
pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|x| x * x).sum();
    if values.is_empty() || sum_sq == 0.0 {
        1.0
    } else {
        sum * sum / (values.len() as f64 * sum_sq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::SECS;

    #[test]
    fn jain_extremes() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0]), 1.0);
        assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
        assert_eq!(jain_index(&[]), 1.0);
    }

    #[test]
    fn meter_counts_only_the_active_period() {
        let mut m = GoodputMeter::new(SECS, 3 * SECS, SECS, 4 * SECS);
        m.record(SECS / 2, 1000); // before start
        m.record(SECS, 1000);
        m.record(2 * SECS + 1, 500);
        m.record(3 * SECS + 1, 1000); // after stop
        assert_eq!(m.bytes, 1500);
        assert_eq!(m.goodput_bps(), 1500.0 * 8.0 / 2.0);
        let s: Vec<_> = m.series(4 * SECS).collect();
        assert_eq!(s.len(), 4);
        assert_eq!(s[1], (1.0, 8000.0));
        assert_eq!(s[2], (2.0, 4000.0));
        assert_eq!(s[3], (3.0, 0.0));
    }

    #[test]
    fn bins_match_a_division_per_delivery_in_any_order() {
        // The remembered bin must not change where a delivery lands: times in order, repeated,
        // going back, on bin edges and past the run's end (clamped into the last bin).
        let (bin, duration) = (7, 50);
        let times = [0, 3, 6, 7, 7, 13, 2, 14, 49, 50, 60, 21, 48, 0, 35];
        let mut m = GoodputMeter::new(0, Time::MAX, bin, duration);
        let n = duration.div_ceil(bin) as usize;
        let mut want = vec![0u64; n];
        for (k, &t) in times.iter().enumerate() {
            let bytes = k as u64 + 1;
            m.record(t, bytes);
            want[((t / bin) as usize).min(n - 1)] += bytes;
        }
        let mut got = m.bins.clone();
        got.resize(n, 0);
        assert_eq!(got, want);
    }

    #[test]
    fn bins_are_allocated_only_up_to_the_last_delivery() {
        // A year of nanosecond bins: nothing is allocated until something is delivered.
        let year = 365 * 24 * 3600 * SECS;
        let mut m = GoodputMeter::new(0, year, 1, year);
        assert_eq!(m.bins.capacity(), 0);
        m.record(10, 1);
        assert_eq!(m.bins.len(), 11);
        assert_eq!(m.goodput_bps(), 8.0 / to_secs(year));
    }
}
