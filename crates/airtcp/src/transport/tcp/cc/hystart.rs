//! Leaving slow start before it overflows the bottleneck: HyStart (Ha & Rhee, "Taming the
//! elephants: New TCP slow start", Computer Networks 55(9), 2011) as Linux's `tcp_cubic.c` and
//! ns-3 3.44's `TcpCubic` run it, and HyStart++ (RFC 9406, Balasubramanian, Huang, Olson, 2023).
//! Cubic takes it from its `hystart` parameter; it acts only in slow start.
//!
//! **HyStart** (`linux`, `ns3`) ends slow start (ssthresh = cwnd) when, within a round (a window
//! of data, from the first ACK after the previous round's last segment), either
//! - the ACK train: ACKs arriving at most 2 ms apart (`hystart_ack_delta_us`) have spanned more
//!   than `delay_min / 2` (Linux, unpaced) or `delay_min` (ns-3) since the round began; or
//! - the delay increase: after 8 RTT samples of the round (`HYSTART_MIN_SAMPLES`), the round's
//!   minimum RTT exceeds `delay_min + threshold`, with threshold = clamp(delay_min / 8, 4 ms,
//!   16 ms) in Linux (`HYSTART_DELAY_THRESH`) and clamp(delay_min, 4 ms, 1 s) in ns-3
//!   (`HystartDelayThresh` with `HyStartDelayMin` 4 ms, `HyStartDelayMax` 1 s); Linux keeps the
//!   round's minimum over all its samples, ns-3 over its first 8.
//!
//! Both only look once cwnd >= 16 segments (`hystart_low_window`, `HyStartLowWindow`);
//! `delay_min` is the smallest RTT seen. Once it has fired HyStart stays off until a timeout
//! (Linux's `bictcp_reset` on `TCP_CA_Loss`).
//!
//! **HyStart++** (`rfc9406`, §4.2 with its constants of §4.3): per round, the minimum RTT of the
//! round is compared with the previous round's, after at least `N_RTT_SAMPLE` = 8 samples;
//! an increase of at least clamp(lastRoundMinRTT / 8, 4 ms, 16 ms) moves the sender to
//! Conservative Slow Start (CSS), which grows the window 4 times slower (`CSS_GROWTH_DIVISOR`);
//! if a CSS round's minimum RTT drops below the RTT that started CSS, slow start resumes; after
//! `CSS_ROUNDS` = 5 CSS rounds the sender enters congestion avoidance (ssthresh = cwnd). A loss
//! ends slow start and CSS as usual. L (the per-ACK growth cap) is infinite: the sender is not
//! paced by default.
//!
//! Rounds: the hooks carry no sequence numbers, so a round ends, as for Vegas
//! ([`super::Rounds`]), with the first ACK whose RTT sample shows that its segment was sent after
//! the round began, which is when the ACK passes the round's end sequence (`end_seq`,
//! `windowEnd`). ACKs without an RTT sample (Karn's rule) cannot end a round.

use serde::{Deserialize, Serialize};

use super::{AckSample, CcState, Rounds};
use crate::sim::time::MILLIS;
use crate::sim::Time;

/// Which slow-start exit Cubic runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HyStartKind {
    /// Plain slow start until a loss (RFC 9438 §4.10's MAY). (Not `off`: YAML 1.1 reads that
    /// as a boolean.)
    #[default]
    None,
    /// HyStart as Linux's tcp_cubic.c runs it (ACK train at delay_min/2, delay threshold
    /// clamp(delay_min/8, 4 ms, 16 ms)).
    Linux,
    /// HyStart as ns-3 3.44's TcpCubic runs it (ACK train at delay_min, delay threshold
    /// clamp(delay_min, 4 ms, 1 s)).
    Ns3,
    /// HyStart++ (RFC 9406): Conservative Slow Start after an RTT increase, then congestion
    /// avoidance.
    Rfc9406,
}

/// HyStart's cwnd floor, segments (`hystart_low_window`).
const LOW_WINDOW: f64 = 16.0;
/// RTT samples per round before the delay test (`HYSTART_MIN_SAMPLES`, `N_RTT_SAMPLE`).
const MIN_SAMPLES: u32 = 8;
/// ACKs at most this far apart form a train (`hystart_ack_delta_us`).
const ACK_DELTA: Time = 2 * MILLIS;
/// Bounds of the delay threshold (`HYSTART_DELAY_MIN/MAX`, `MIN/MAX_RTT_THRESH`).
const DELAY_MIN: Time = 4 * MILLIS;
const DELAY_MAX_LINUX: Time = 16 * MILLIS;
const DELAY_MAX_NS3: Time = 1000 * MILLIS;
/// HyStart++'s CSS growth divisor and length, rounds.
const CSS_GROWTH_DIVISOR: f64 = 4.0;
const CSS_ROUNDS: u32 = 5;

/// What the slow-start exit decides for one ACK in slow start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowStartStep {
    /// The factor the ordinary slow-start increase is multiplied by (1, or 1/4 in CSS).
    pub growth: f64,
    /// Slow start ends now: ssthresh = cwnd.
    pub exit: bool,
}

/// The slow-start exit's state.
#[derive(Debug, Clone, Default)]
pub struct HyStart {
    kind: HyStartKind,
    rounds: Rounds,
    round_start: Time,
    last_ack: Time,
    /// This round's minimum RTT and its number of samples.
    round_min: Option<Time>,
    samples: u32,
    /// HyStart fired (until a timeout).
    found: bool,
    /// HyStart++: the previous round's minimum, the RTT that started CSS and CSS rounds done.
    last_round_min: Option<Time>,
    css_baseline: Option<Time>,
    css_rounds: u32,
}

impl HyStart {
    /// A slow-start exit of kind `kind`.
    pub fn new(kind: HyStartKind) -> Self {
        HyStart {
            kind,
            ..HyStart::default()
        }
    }

    /// Whether the sender is in HyStart++'s Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.css_baseline.is_some()
    }

    /// One ACK in slow start: feeds its RTT sample and says how to grow.
    pub fn on_ack(&mut self, state: &CcState, ack: &AckSample) -> SlowStartStep {
        let mut step = SlowStartStep {
            growth: 1.0,
            exit: false,
        };
        if self.kind == HyStartKind::None {
            return step;
        }
        let new_round = self.rounds.ends_round(ack.now, ack.rtt);
        if new_round {
            self.start_round(ack.now);
        }
        match self.kind {
            HyStartKind::None => {}
            HyStartKind::Linux | HyStartKind::Ns3 => step.exit = self.classic(state, ack),
            HyStartKind::Rfc9406 => step = self.plus_plus(ack, new_round),
        }
        step
    }

    fn start_round(&mut self, now: Time) {
        self.round_start = now;
        self.last_ack = now;
        if self.round_min.is_some() && self.samples >= MIN_SAMPLES {
            self.last_round_min = self.round_min;
        }
        self.round_min = None;
        self.samples = 0;
    }

    /// HyStart (Linux's `hystart_update`, ns-3's `HystartUpdate`).
    fn classic(&mut self, state: &CcState, ack: &AckSample) -> bool {
        let (Some(delay), Some(delay_min)) = (ack.rtt, ack.min_rtt) else {
            return false;
        };
        if self.found || state.cwnd < LOW_WINDOW {
            return false;
        }
        let linux = self.kind == HyStartKind::Linux;
        if ack.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = ack.now;
            let train = if linux { delay_min / 2 } else { delay_min };
            if ack.now.saturating_sub(self.round_start) > train {
                self.found = true;
            }
        }
        if linux || self.samples < MIN_SAMPLES {
            self.round_min = Some(self.round_min.map_or(delay, |m| m.min(delay)));
        }
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else {
            let threshold = if linux {
                (delay_min / 8).clamp(DELAY_MIN, DELAY_MAX_LINUX)
            } else {
                delay_min.clamp(DELAY_MIN, DELAY_MAX_NS3)
            };
            if self.round_min.is_some_and(|m| m > delay_min + threshold) {
                self.found = true;
            }
        }
        self.found
    }

    /// HyStart++ (RFC 9406 §4.2).
    fn plus_plus(&mut self, ack: &AckSample, new_round: bool) -> SlowStartStep {
        if new_round && self.in_css() {
            self.css_rounds += 1;
            if self.css_rounds >= CSS_ROUNDS {
                return SlowStartStep {
                    growth: 1.0 / CSS_GROWTH_DIVISOR,
                    exit: true,
                };
            }
        }
        if let Some(rtt) = ack.rtt {
            self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        if self.samples >= MIN_SAMPLES {
            if let (Some(current), Some(baseline)) = (self.round_min, self.css_baseline) {
                if current < baseline {
                    // The RTT increase was spurious: back to slow start.
                    self.css_baseline = None;
                    self.css_rounds = 0;
                }
            } else if let (Some(current), Some(last)) = (self.round_min, self.last_round_min) {
                let threshold = (last / 8).clamp(DELAY_MIN, DELAY_MAX_LINUX);
                if current >= last + threshold {
                    self.css_baseline = Some(current);
                    self.css_rounds = 0;
                }
            }
        }
        SlowStartStep {
            growth: if self.in_css() {
                1.0 / CSS_GROWTH_DIVISOR
            } else {
                1.0
            },
            exit: false,
        }
    }

    /// A timeout: HyStart may fire again (Linux's `bictcp_reset`), HyStart++ starts over.
    pub fn reset(&mut self) {
        *self = HyStart::new(self.kind);
    }

    /// A loss ended slow start: CSS ends with it.
    pub fn end(&mut self) {
        self.css_baseline = None;
        self.css_rounds = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ACK clock of 15 ACKs 2.5 ms apart per round (a window sent within one RTT, ACKs too
    /// far apart to form a train), rounds 200 ms apart, each ACK carrying an RTT sample of 40 ms
    /// + `queue_ms(round)`; returns the round in which the exit fires and the growth factors.
    fn run(kind: HyStartKind, queue_ms: impl Fn(u64) -> u64) -> (Option<u64>, Vec<f64>) {
        let mut h = HyStart::new(kind);
        let state = CcState {
            cwnd: 20.0,
            ssthresh: f64::INFINITY,
        };
        let base = 40 * MILLIS;
        let mut growth = Vec::new();
        for round in 0..30u64 {
            let rtt = base + queue_ms(round) * MILLIS;
            for i in 0..15u64 {
                let now = round * 200 * MILLIS + i * 5 * MILLIS / 2 + rtt;
                let ack = AckSample {
                    now,
                    acked: 1,
                    rtt: Some(rtt),
                    min_rtt: Some(base),
                    srtt: Some(rtt),
                    in_flight: 20,
                };
                let step = h.on_ack(&state, &ack);
                growth.push(step.growth);
                if step.exit {
                    return (Some(round), growth);
                }
            }
        }
        (None, growth)
    }

    #[test]
    fn linux_leaves_slow_start_once_the_rtt_rises_by_an_eighth_of_the_minimum() {
        // 40 ms base: threshold clamp(5 ms, 4, 16) = 5 ms. A 4 ms queue does not trigger, 6 does.
        assert_eq!(run(HyStartKind::Linux, |_| 4).0, None);
        assert_eq!(
            run(HyStartKind::Linux, |r| if r >= 3 { 6 } else { 0 }).0,
            Some(3)
        );
    }

    #[test]
    fn ns3_waits_for_the_rtt_to_double() {
        // ns-3's threshold is clamp(delay_min, 4 ms, 1 s) = 40 ms here.
        assert_eq!(run(HyStartKind::Ns3, |_| 30).0, None);
        assert_eq!(
            run(HyStartKind::Ns3, |r| if r >= 2 { 45 } else { 0 }).0,
            Some(2)
        );
    }

    #[test]
    fn plus_plus_slows_down_for_five_rounds_then_leaves() {
        let (exit, growth) = run(HyStartKind::Rfc9406, |r| if r >= 4 { 8 } else { 0 });
        // The increase is seen in round 4 (its minimum, 48 ms, >= 40 + 5): CSS for 5 rounds.
        assert_eq!(exit, Some(9));
        assert!(growth.contains(&0.25));
        assert_eq!(growth[..60], [1.0; 60]);
    }

    #[test]
    fn plus_plus_resumes_slow_start_when_the_rtt_falls_back() {
        // The RTT rises in round 4 only: CSS, then slow start again, no exit.
        let (exit, growth) = run(HyStartKind::Rfc9406, |r| if r == 4 { 8 } else { 0 });
        assert_eq!(exit, None);
        assert_eq!(*growth.last().unwrap(), 1.0);
    }

    #[test]
    fn an_ack_train_longer_than_half_the_minimum_rtt_ends_linux_slow_start() {
        let mut h = HyStart::new(HyStartKind::Linux);
        let state = CcState {
            cwnd: 20.0,
            ssthresh: f64::INFINITY,
        };
        let mut exit_at = None;
        for i in 0..30u64 {
            // ACKs 1 ms apart, no RTT increase: only the train can fire.
            let ack = AckSample {
                now: 40 * MILLIS + i * MILLIS,
                acked: 1,
                rtt: Some(40 * MILLIS),
                min_rtt: Some(40 * MILLIS),
                srtt: Some(40 * MILLIS),
                in_flight: 20,
            };
            if h.on_ack(&state, &ack).exit {
                exit_at = Some(i);
                break;
            }
        }
        // The round began at the first ACK; the train passes 20 ms at the 22nd.
        assert_eq!(exit_at, Some(21));
    }

    #[test]
    fn none_never_exits() {
        assert_eq!(run(HyStartKind::None, |r| r * 10).0, None);
    }
}
