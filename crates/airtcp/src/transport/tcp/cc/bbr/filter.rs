//! The windowed max filter BBR keeps its bottleneck bandwidth in: Kathleen Nichols' algorithm,
//! as Linux's `lib/win_minmax.c` (`minmax_running_max`) and ns-3's `WindowedFilter` run it. It
//! keeps the best, second-best and third-best samples of the window, each younger than the one
//! before, so that when the best ages out the next is at hand; O(1) per sample.

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
