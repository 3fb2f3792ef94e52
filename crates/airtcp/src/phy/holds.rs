//! Holding times of two-state channel processes whose states last a duration uniform in
//! [`min`, `max`] (the bimodal link errors of paper 004 §IV and the downlink's bimodal erasures),
//! and how such a process is brought up to the present.
//!
//! A process is stepped one hold at a time, at most [`Holds::STEP_LIMIT`] holds per call. A gap
//! longer than that (holds of a few nanoseconds, or a link silent for a long time) is crossed at
//! once, in O(1): with fixed holds (min = max) exactly, by counting the holds that end within it;
//! otherwise by taking the renewal process to be in equilibrium: the time to the next switch is
//! then the forward recurrence time, a length-biased hold (density proportional to x on
//! [min, max]) times U(0, 1), and the state is for the caller to draw from its own stationary law.
//! That is exact in the limit of many holds and a stated approximation otherwise; without it a gap
//! cost one loop turn per hold, and holds of 1 ns stalled a run.

use crate::sim::{Rng, Time};

/// Holding times uniform in [`min`, `max`], ns.
#[derive(Debug, Clone, Copy)]
pub struct Holds {
    /// Shortest hold.
    pub min: Time,
    /// Longest hold.
    pub max: Time,
}

/// How [`Holds::cross`] brought the process up to the present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crossed {
    /// Hold by hold; the caller saw every switch.
    Stepped,
    /// Fixed holds, in one step: this many switches happened since the last one stepped.
    Fixed {
        /// Holds that ended.
        switches: u64,
    },
    /// Many variable holds: the process is in equilibrium; the caller draws the state.
    Equilibrium,
}

impl Holds {
    /// Holds stepped one by one before a gap is crossed at once.
    pub const STEP_LIMIT: u32 = 4096;

    /// One holding time, at least 1 ns so that the process always advances.
    pub fn draw(&self, rng: &mut Rng) -> Time {
        let span = self.max.saturating_sub(self.min) as f64;
        self.min
            .saturating_add((rng.uniform() * span) as Time)
            .max(1)
    }

    /// Brings a process whose current hold ends at `until` (0: no hold drawn yet) up to `now`.
    /// `switch(rng, started)` is called at every hold stepped, before its length is drawn;
    /// `started` is false for the very first hold.
    pub fn cross(
        &self,
        now: Time,
        until: &mut Time,
        rng: &mut Rng,
        switch: &mut dyn FnMut(&mut Rng, bool),
    ) -> Crossed {
        let mut steps = 0;
        while now >= *until {
            if steps == Self::STEP_LIMIT {
                return self.jump(now, until, rng);
            }
            switch(rng, *until > 0);
            *until = until.saturating_add(self.draw(rng));
            steps += 1;
        }
        Crossed::Stepped
    }

    fn jump(&self, now: Time, until: &mut Time, rng: &mut Rng) -> Crossed {
        if self.min >= self.max {
            // Fixed holds h: switches at until, until + h, ...; the last one at or before now.
            let h = self.min.max(1);
            let switches = (now - *until) / h + 1;
            *until = until.saturating_add(switches.saturating_mul(h));
            return Crossed::Fixed { switches };
        }
        let (a, b) = (self.min as f64, self.max as f64);
        let length = (a * a + rng.uniform() * (b * b - a * a)).sqrt();
        let residual = ((rng.uniform() * length) as Time).max(1);
        *until = now.saturating_add(residual);
        Crossed::Equilibrium
    }
}
