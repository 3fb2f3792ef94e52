//! ARF and AARF: rate up after a run of successes, down after failures.
//!
//! - ARF (Kamerman & Monteban, "WaveLAN-II: a high-performance wireless LAN for the unlicensed
//!   band", Bell Labs Technical Journal, 1997), as ns-3's `ArfWifiManager` runs it: after
//!   `success_threshold` (10) acknowledged data frames in a row, or `timer_threshold` (15) data
//!   attempts since the last change, the next rate up is tried ("recovery"); if the first attempt
//!   at it fails, the rate falls back at once; otherwise every second failure in a row steps
//!   down.
//! - AARF (Lacage, Manshaei & Turletti, "IEEE 802.11 rate adaptation: a practical approach",
//!   MSWiM 2004), as ns-3's `AarfWifiManager`: as ARF, but a failed probe multiplies the success
//!   threshold by `success_k` (2, capped at `max_success_threshold`, 60) and the timer by
//!   `timer_k` (2); a fallback of the ordinary kind resets both to their minimums (10 and 15).
//!   One state machine runs both; ARF's thresholds never change (`adaptive: false`).
//!
//! Every data attempt counts, first transmissions and retries alike (a failure "transcends
//! retransmission boundaries", as ns-3's comment puts it: there is a backoff before each). RTS
//! outcomes do not count, as in ns-3. The starting rate is the ladder's lowest.
//!
//! Deviation kept from ns-3: after a failed probe the timer threshold is floored at the minimum
//! *success* threshold, not the timer's (`max(timer x k, min_success)` in its source); with the
//! default factors it never matters (15 x 2 > 10).

use super::RateManager;
use crate::sim::Time;

/// AARF's constants (ARF's with both factors 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AarfParams {
    /// Successes in a row that raise the rate, at first and after an ordinary fallback.
    pub min_success_threshold: u32,
    /// Cap of the success threshold.
    pub max_success_threshold: u32,
    /// Attempts since the last change that raise the rate, at first and after a fallback.
    pub min_timer_threshold: u32,
    /// Factor of the success threshold after a failed probe.
    pub success_k: f64,
    /// Factor of the timer threshold after a failed probe.
    pub timer_k: f64,
    /// AARF: a failed probe scales the thresholds (ARF: they never change).
    pub adaptive: bool,
}

impl AarfParams {
    /// ns-3's `ArfWifiManager` (`SuccessThreshold` 10, `TimerThreshold` 15).
    pub const ARF: AarfParams = AarfParams {
        min_success_threshold: 10,
        max_success_threshold: 10,
        min_timer_threshold: 15,
        success_k: 1.0,
        timer_k: 1.0,
        adaptive: false,
    };

    /// ns-3's `AarfWifiManager` defaults.
    pub const AARF: AarfParams = AarfParams {
        min_success_threshold: 10,
        max_success_threshold: 60,
        min_timer_threshold: 15,
        success_k: 2.0,
        timer_k: 2.0,
        adaptive: true,
    };
}

/// One neighbour's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Station {
    rate: usize,
    /// Data attempts since the last change of rate (reset by fallbacks as ns-3 does).
    timer: u32,
    /// Acknowledged attempts in a row.
    success: u32,
    /// Failed attempts in a row.
    failed: u32,
    /// The rate was just raised and no attempt at it has succeeded yet.
    recovery: bool,
    success_threshold: u32,
    timer_threshold: u32,
}

/// Bytes ARF and AARF keep per neighbour.
pub const BYTES_PER_NEIGHBOUR: u64 = size_of::<Station>() as u64;

/// ARF / AARF for all of a radio's neighbours.
#[derive(Debug, Clone)]
pub struct Aarf {
    p: AarfParams,
    top: usize,
    stations: Vec<Station>,
}

impl Aarf {
    /// The manager over a ladder of `rates` rates for `neighbours` neighbours.
    pub fn new(p: AarfParams, rates: usize, neighbours: usize) -> Self {
        Aarf {
            top: rates.saturating_sub(1),
            stations: vec![Self::fresh(&p); neighbours],
            p,
        }
    }

    /// A neighbour not yet tried: the lowest rate, thresholds at their minimum.
    fn fresh(p: &AarfParams) -> Station {
        Station {
            rate: 0,
            timer: 0,
            success: 0,
            failed: 0,
            recovery: false,
            success_threshold: p.min_success_threshold,
            timer_threshold: p.min_timer_threshold,
        }
    }

    fn acked(&mut self, nb: usize) {
        let top = self.top;
        let s = &mut self.stations[nb];
        s.timer += 1;
        s.success += 1;
        s.failed = 0;
        s.recovery = false;
        if (s.success == s.success_threshold || s.timer == s.timer_threshold) && s.rate < top {
            s.rate += 1;
            s.timer = 0;
            s.success = 0;
            s.recovery = true;
        }
    }

    fn failed(&mut self, nb: usize) {
        let p = self.p;
        let s = &mut self.stations[nb];
        s.timer += 1;
        s.failed += 1;
        s.success = 0;
        if s.recovery {
            if s.failed == 1 && p.adaptive {
                // The probe failed: wait longer before the next one.
                let scaled = f64::from(s.success_threshold) * p.success_k;
                s.success_threshold = scaled.min(f64::from(p.max_success_threshold)) as u32;
                let scaled = f64::from(s.timer_threshold) * p.timer_k;
                s.timer_threshold = scaled.max(f64::from(p.min_success_threshold)) as u32;
            }
            if s.failed == 1 {
                // The probe failed: back down at once.
                s.rate = s.rate.saturating_sub(1);
            }
            s.timer = 0;
        } else {
            if s.failed.is_multiple_of(2) {
                // Every second failure in a row: an ordinary fallback.
                s.timer_threshold = p.min_timer_threshold;
                s.success_threshold = p.min_success_threshold;
                s.rate = s.rate.saturating_sub(1);
            }
            if s.failed >= 2 {
                s.timer = 0;
            }
        }
    }
}

impl RateManager for Aarf {
    fn pick(&mut self, nb: usize) -> usize {
        self.stations[nb].rate
    }

    fn add_neighbour(&mut self) {
        let s = Self::fresh(&self.p);
        self.stations.push(s);
    }

    fn on_data(&mut self, nb: usize, _rate: usize, acked: Option<f64>, _now: Time) {
        match acked {
            Some(_) => self.acked(nb),
            None => self.failed(nb),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: Option<f64> = Some(100.0);

    fn run(m: &mut Aarf, outcomes: &str) -> Vec<usize> {
        // 's' success, 'f' failure; the rate picked before each attempt.
        outcomes
            .chars()
            .map(|c| {
                let r = m.pick(0);
                m.on_data(0, r, (c == 's').then_some(100.0), 0);
                r
            })
            .collect()
    }

    #[test]
    fn arf_climbs_after_ten_successes_and_falls_back_on_a_failed_probe() {
        let mut m = Aarf::new(AarfParams::ARF, 4, 1);
        let rates = run(&mut m, &"s".repeat(10));
        assert_eq!(rates, vec![0; 10]);
        assert_eq!(m.pick(0), 1, "the 11th attempt probes the next rate");
        // The probe fails: straight back down.
        m.on_data(0, 1, None, 0);
        assert_eq!(m.pick(0), 0);
        assert_eq!(
            m.stations[0].success_threshold, 10,
            "ARF keeps its threshold"
        );
    }

    #[test]
    fn every_second_failure_in_a_row_steps_down() {
        let mut m = Aarf::new(AarfParams::ARF, 4, 1);
        m.stations[0].rate = 3;
        let rates = run(&mut m, "fffff");
        assert_eq!(rates, vec![3, 3, 2, 2, 1]);
        assert_eq!(m.pick(0), 1);
        // A success in between starts the count again.
        let rates = run(&mut m, "sff");
        assert_eq!(rates, vec![1, 1, 1]);
        assert_eq!(m.pick(0), 0);
    }

    #[test]
    fn the_timer_raises_the_rate_despite_scattered_failures() {
        // Alternating success and failure never makes 10 successes in a row nor 2 failures in
        // a row; the 15th attempt since the last change raises the rate.
        let mut m = Aarf::new(AarfParams::ARF, 4, 1);
        let rates = run(&mut m, &"sf".repeat(7));
        assert_eq!(rates, vec![0; 14]);
        m.on_data(0, 0, OK, 0);
        assert_eq!(m.pick(0), 1);
    }

    #[test]
    fn aarf_doubles_its_threshold_after_each_failed_probe_up_to_sixty() {
        let mut m = Aarf::new(AarfParams::AARF, 4, 1);
        let mut thresholds = Vec::new();
        for _ in 0..4 {
            let n = m.stations[0].success_threshold as usize;
            run(&mut m, &"s".repeat(n));
            assert_eq!(m.pick(0), 1, "a probe after {n} successes");
            m.on_data(0, 1, None, 0);
            assert_eq!(m.pick(0), 0);
            thresholds.push(m.stations[0].success_threshold);
        }
        assert_eq!(thresholds, vec![20, 40, 60, 60]);
        // An ordinary fallback (two failures in a row once a success ended the probe's
        // recovery) resets it.
        m.stations[0].rate = 2;
        run(&mut m, "sff");
        assert_eq!(m.pick(0), 1);
        assert_eq!(m.stations[0].success_threshold, 10);
        assert_eq!(m.stations[0].timer_threshold, 15);
    }

    #[test]
    fn the_rate_stays_within_the_ladder() {
        let mut m = Aarf::new(AarfParams::ARF, 2, 2);
        run(&mut m, &"s".repeat(100));
        assert_eq!(m.pick(0), 1);
        run(&mut m, &"f".repeat(100));
        assert_eq!(m.pick(0), 0);
        assert_eq!(m.pick(1), 0, "neighbours are independent");
    }
}
