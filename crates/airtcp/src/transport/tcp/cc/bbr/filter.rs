//! The max filters BBR keeps its estimates in.
//!
//! - [`WindowedMax`]: Kathleen Nichols' windowed max, as Linux's `lib/win_minmax.c`
//!   (`minmax_running_max`) and ns-3's `WindowedFilter` run it, for BBR v1's BtlBw over 10
//!   rounds. It keeps the best, second-best and third-best samples of the window, each younger
//!   than the one before, so that when the best ages out the next is at hand; O(1) per sample.
//! - [`PairMax`]: the maximum over the current and the previous period (two slots), for the
//!   ACK-aggregation estimate of both versions (Linux's `extra_acked[2]`) and BBR v3's
//!   `BBR.max_bw` over the current and the previous ProbeBW cycle (the draft's
//!   `MaxBwFilterLen` = 2 cycles, Linux v3's `bw_hi[2]`).

/// A running maximum over a window of `window` ticks (BBR: packet-timed round trips).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowedMax {
    /// (tick, value) of the best, second and third best samples.
    s: [(u64, f64); 3],
}

impl WindowedMax {
    /// The maximum over the window.
    pub fn best(&self) -> f64 {
        self.s[0].1
    }

    /// Forgets everything: `v` at tick `t` is the only sample.
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    /// Adds sample `v` taken at tick `t` (ticks never go backwards); returns the maximum.
    pub fn update(&mut self, window: u64, t: u64, v: f64) -> f64 {
        let sample = (t, v);
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > window {
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].1 {
            self.s[1] = sample;
            self.s[2] = sample;
        } else if v >= self.s[2].1 {
            self.s[2] = sample;
        }
        // The sub-window update: age the best out, or refresh the second and third choices
        // once a quarter / half of the window has passed with the same samples.
        let dt = t.saturating_sub(self.s[0].0);
        if dt > window {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = sample;
            if t.saturating_sub(self.s[0].0) > window {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = sample;
            }
        } else if self.s[1].0 == self.s[0].0 && dt > window / 4 {
            self.s[1] = sample;
            self.s[2] = sample;
        } else if self.s[2].0 == self.s[1].0 && dt > window / 2 {
            self.s[2] = sample;
        }
        self.s[0].1
    }
}

/// The maximum over two periods: the one under way and the one before it. Starting a period
/// forgets the older one.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairMax {
    slots: [f64; 2],
    current: usize,
}

impl PairMax {
    /// The maximum over both periods.
    pub fn best(&self) -> f64 {
        self.slots[0].max(self.slots[1])
    }

    /// The maximum of the period under way.
    pub fn current(&self) -> f64 {
        self.slots[self.current]
    }

    /// Adds a sample to the period under way.
    pub fn update(&mut self, v: f64) {
        let slot = &mut self.slots[self.current];
        *slot = slot.max(v);
    }

    /// Starts a new period: the one under way becomes the previous one.
    pub fn advance(&mut self) {
        self.current ^= 1;
        self.slots[self.current] = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_pair_max_remembers_one_period_back() {
        let mut f = PairMax::default();
        f.update(5.0);
        f.update(3.0);
        assert_eq!((f.best(), f.current()), (5.0, 5.0));
        f.advance();
        f.update(2.0);
        assert_eq!((f.best(), f.current()), (5.0, 2.0));
        f.advance();
        assert_eq!(f.best(), 2.0, "the 5 is two periods old");
    }

    #[test]
    fn a_peak_is_remembered_for_the_window_then_forgotten() {
        let mut f = WindowedMax::default();
        f.update(10, 0, 5.0);
        f.update(10, 1, 9.0);
        for t in 2..=11 {
            assert_eq!(f.update(10, t, 4.0), 9.0, "tick {t}");
        }
        // tick 12: the peak of tick 1 is more than 10 ticks old.
        assert!(f.update(10, 12, 4.0) < 9.0);
    }

    proptest! {
        /// The filter never reports less than the newest sample, nor more than the true maximum
        /// of the samples at most `window` ticks old.
        #[test]
        fn best_lies_between_the_newest_sample_and_the_true_windowed_max(
            samples in proptest::collection::vec((0u64..3, 0.0f64..100.0), 1..200),
            window in 1u64..12,
        ) {
            let mut f = WindowedMax::default();
            let mut t = 0;
            let mut seen: Vec<(u64, f64)> = Vec::new();
            for (dt, v) in samples {
                t += dt;
                let best = f.update(window, t, v);
                seen.push((t, v));
                let true_max = seen.iter().filter(|(s, _)| t - s <= window).map(|x| x.1)
                    .fold(f64::MIN, f64::max);
                prop_assert!(best >= v);
                prop_assert!(best <= true_max + 1e-12, "best {} > windowed max {}", best, true_max);
            }
        }
    }
}
